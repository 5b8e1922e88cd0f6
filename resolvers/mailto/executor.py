"""The mailto executor (I/O): send the planned message through the relay with aiosmtplib, or
hand it back as a draft.

Each SMTP step of the plan is one aiosmtplib call, in the plan's order (``DATA`` and the
message are one ``data()`` call: aiosmtplib waits for 354, dot-stuffs and ends the data).
Every aiosmtplib failure becomes a typed :mod:`resolvers.errors` error: a refused recipient
is a :class:`ReplyError` naming the URL component that gave the address, a refused AUTH an
:class:`AuthError`, a silent server a :class:`ResolveTimeout`.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
from collections.abc import AsyncIterator
from typing import Any

import aiosmtplib

from ..errors import (
    AuthError,
    ConnectError,
    ConnectionClosed,
    LimitExceeded,
    PlanError,
    ProtocolError,
    ReplyError,
    ResolveTimeout,
)
from ..net import resolve_addresses, with_timeout
from ..options import Options
from ..plan import Plan, Step
from ..resource import Resource
from ..tls import ssl_context as tls_context
from .planner import Greeting, Login, MailtoDetails, Recipient, Relay, SMTPRole


async def _draft(data: bytes) -> AsyncIterator[bytes]:
    yield data


def _component_of(plan: Plan, recipient: str) -> str:
    """The URL component an address came from (for errors)."""
    raw = recipient.encode("utf-8", "surrogateescape")
    for value in plan.wire_values():
        if value.context == "addr-spec" and value.value == raw and value.component != "sender":
            return value.component
    return "address"


def _reply(response: Any) -> str:
    return f"{response.code} {response.message}".strip()


async def _password(relay: Relay, options: Options) -> str:
    """The AUTH password: from the credentials (``~/.netrc``) for the relay, else asked."""
    known = options.credentials.get(relay.host.lower())
    if known is not None and known[0] == relay.user:
        return known[1]
    if options.ask is not None:
        return await options.ask(f"SMTP password for {relay.user}@{relay.host}: ", secret=True)
    raise AuthError(
        f"no password for SMTP user {relay.user!r} at {relay.host} (put it in ~/.netrc or "
        "run on a terminal)",
        component="smtp",
    )


async def _connect_socket(relay: Relay, options: Options) -> tuple[socket.socket, str, int]:
    """A socket connected to one of the relay's policy-checked addresses (``--resolve``
    applied), tried in order, each connect bounded."""
    loop = asyncio.get_running_loop()
    last = ""
    for address, port in await resolve_addresses(relay.host, relay.port, options):
        options.note("*", f"connecting to {address} port {port} (SMTP relay {relay.host})")
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        try:
            sock = socket.socket(family, socket.SOCK_STREAM)
        except OSError as exc:  # EMFILE/ENFILE: typed, naming the relay (issue 14)
            raise ConnectError(
                f"cannot open a socket for the SMTP relay {relay.host}:{relay.port}: "
                f"{exc.strerror or exc}",
                component="smtp",
            ) from exc
        sock.setblocking(False)
        try:
            await with_timeout(
                loop.sock_connect(sock, (address, port)),
                options.connect_timeout,
                f"connecting to the SMTP relay {relay.host}:{relay.port}",
            )
        except OSError as exc:
            sock.close()
            last = exc.strerror or str(exc)
            continue
        except BaseException:
            sock.close()
            raise
        return sock, address, port
    raise ConnectError(
        f"cannot connect to the SMTP relay {relay.host}:{relay.port}: {last}", component="smtp"
    )


async def _send(plan: Plan, options: Options, relay: Relay) -> list[str]:
    """Carry out the SMTP steps; return the server's replies."""
    sock, _address, _port = await _connect_socket(relay, options)
    # One context for implicit TLS and STARTTLS: trust anchors, client certificate, floor.
    context = tls_context(options)
    smtp = aiosmtplib.SMTP(
        # Connected to the checked address; the name is what TLS verifies (implicit TLS
        # here, STARTTLS in its step).
        hostname=relay.host,
        sock=sock,
        timeout=options.read_timeout,
        use_tls=relay.tls,
        start_tls=False,
        tls_context=context if relay.tls else None,
    )
    replies: list[str] = []
    try:
        response = await smtp.connect(timeout=options.connect_timeout)
        replies.append(_reply(response))
        options.note("<", replies[-1])
        for step in plan.steps:
            response = await _step(smtp, step, plan, options, relay)
            if response is not None:
                replies.append(_reply(response))
                options.note("<", replies[-1])
    finally:
        if smtp.is_connected:
            smtp.close()
        sock.close()
    return replies


async def _step(
    smtp: aiosmtplib.SMTP, step: Step, plan: Plan, options: Options, relay: Relay
) -> Any:
    op = step.role
    if op is None:  # an info step
        return None
    options.note(">", step.shown if op is not SMTPRole.MESSAGE else f"({len(step.data)} octets)")
    if op is SMTPRole.EHLO:
        return await smtp.ehlo(hostname=step.detail_as(Greeting).helo)
    if op is SMTPRole.STARTTLS:
        return await smtp.starttls(server_hostname=relay.host, tls_context=tls_context(options))
    if op is SMTPRole.AUTH:
        password = await _password(relay, options)
        # One AUTH, with the strongest mechanism both sides know (aiosmtplib's preference:
        # CRAM-MD5, PLAIN, LOGIN).  Not login(): on a refusal it tries the next mechanism,
        # sending the password again -- in clear text after a refused CRAM-MD5.
        methods = smtp.supported_auth_methods
        if not methods:
            raise aiosmtplib.SMTPNotSupported("no AUTH mechanism we know (RFC 4954)")
        mechanism = getattr(smtp, "auth_" + methods[0].replace("-", ""))
        return await mechanism(step.detail_as(Login).user, password)
    if op is SMTPRole.MAIL:
        # The plan's line itself: aiosmtplib's mail()/rcpt() re-parse the address with
        # email.utils.parseaddr, which rewrites quoted-pairs ("a\b"@x -> "ab"@x: another
        # mailbox) and refuses some addr-specs with a ValueError.
        response = await smtp.execute_command(step.data)
        if response.code != 250:  # RFC 5321 §4.1.1.2
            sender = plan.details_as(MailtoDetails).sender
            raise aiosmtplib.SMTPSenderRefused(response.code, response.message, sender)
        return response
    if op is SMTPRole.RCPT:
        response = await smtp.execute_command(step.data)
        if response.code not in (250, 251):  # RFC 5321 §4.1.1.3
            raise aiosmtplib.SMTPRecipientRefused(
                response.code, response.message, step.detail_as(Recipient).address
            )
        return response
    if op is SMTPRole.DATA:
        return None  # the message step sends DATA and the message (one aiosmtplib call)
    if op is SMTPRole.MESSAGE:
        return await smtp.data(step.data)
    if op is SMTPRole.QUIT:
        return await smtp.quit()
    raise PlanError(f"unknown SMTP step {op!r}")  # pragma: no cover - planner bug


def _typed(exc: BaseException, plan: Plan, relay: Relay) -> BaseException:
    """aiosmtplib's exception as one of ours."""
    where = f"{relay.host}:{relay.port}"
    if isinstance(exc, aiosmtplib.SMTPRecipientRefused):
        return ReplyError(
            f"the SMTP relay refused recipient {exc.recipient}: {exc.code} {exc.message}",
            component=_component_of(plan, exc.recipient),
            code=exc.code,
            reply=exc.message,
        )
    if isinstance(exc, aiosmtplib.SMTPSenderRefused):
        return ReplyError(
            f"the SMTP relay refused sender {exc.sender}: {exc.code} {exc.message}",
            component="sender",
            code=exc.code,
            reply=exc.message,
        )
    if isinstance(exc, aiosmtplib.SMTPAuthenticationError):
        return AuthError(
            f"the SMTP relay refused the login: {exc.code} {exc.message}", component="smtp"
        )
    if isinstance(exc, aiosmtplib.SMTPNotSupported):
        return ProtocolError(f"the SMTP relay {where} cannot: {exc.message}")
    if isinstance(exc, aiosmtplib.SMTPResponseException) and exc.code < 0:
        # aiosmtplib's "invalid response" (-1): the relay broke the reply syntax (RFC 5321
        # §4.2) or its line bound -- nothing the relay meant as a refusal.
        kind = LimitExceeded if "too long" in exc.message else ProtocolError
        return kind(f"the SMTP relay {where} sent an invalid reply: {exc.message}")
    if isinstance(exc, aiosmtplib.SMTPResponseException):
        return ReplyError(
            f"the SMTP relay {where} refused: {exc.code} {exc.message}",
            code=exc.code,
            reply=exc.message,
        )
    if isinstance(exc, aiosmtplib.SMTPConnectTimeoutError):
        return ResolveTimeout(f"timed out connecting to the SMTP relay {where}", component="smtp")
    if isinstance(exc, aiosmtplib.SMTPTimeoutError):
        return ResolveTimeout(f"the SMTP relay {where} did not answer in time: {exc}")
    if isinstance(exc, aiosmtplib.SMTPConnectError):
        return ConnectError(f"cannot connect to the SMTP relay {where}: {exc}", component="smtp")
    if isinstance(exc, aiosmtplib.SMTPServerDisconnected):
        return ConnectionClosed(f"the SMTP relay {where} closed the connection: {exc}")
    if isinstance(exc, ssl.SSLError):
        return ConnectError(f"TLS with the SMTP relay {where} failed: {exc}", component="smtp")
    if isinstance(exc, OSError):
        return ConnectError(f"SMTP relay {where}: {exc}", component="smtp")
    return ProtocolError(f"SMTP relay {where}: {exc}")


async def execute(plan: Plan, options: Options) -> Resource:
    """Send the message (relay configured) or return it as a draft."""
    message = next(s for s in plan.steps if s.role is SMTPRole.MESSAGE)
    details = plan.details_as(MailtoDetails)
    envelope = {
        "mail_from": details.sender,
        "rcpt_to": list(details.recipients),
    }
    metadata: dict[str, Any] = {
        "envelope": envelope,
        "message_id": details.message_id,
    }
    relay: Relay | None = details.relay
    if relay is None:
        return Resource(
            plan,
            kind="content",
            body=_draft(message.data),
            media_type="message/rfc822",
            size=len(message.data),
            metadata={**metadata, "sent": False},
        )
    try:
        replies = await _send(plan, options, relay)
    except (aiosmtplib.SMTPException, OSError) as exc:
        raise _typed(exc, plan, relay) from None
    return Resource(
        plan,
        kind="content",
        body=None,
        media_type=None,
        size=0,
        replies=replies,
        metadata={**metadata, "sent": True, "relay": f"{relay.host}:{relay.port}"},
    )
