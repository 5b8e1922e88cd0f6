"""The mailto executor (I/O): a byte pump between the relay and the SMTP machine, or the
message handed back as a draft.

Every decision — which command next, what each reply code means, how AUTH goes — is
:class:`resolvers.mailto.machine.SMTPMachine`'s (pure, tested with bytes); here the bytes
move over a :class:`resolvers.net.Stream` (each wait bounded, each failure typed), the TLS
handshake runs when the machine pauses for it, and the AUTH password is looked up or asked.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from .. import net
from ..errors import AuthError, ConnectError
from ..options import Options
from ..plan import Plan
from ..resource import Resource
from ..tls import ssl_context as tls_context
from .machine import (
    NEED_DATA,
    Done,
    PasswordWanted,
    Received,
    Send,
    SMTPMachine,
    StartTLS,
)
from .planner import MailtoDetails, Relay, SMTPRole
from .settings import Draft, Sent


async def _draft(data: bytes) -> AsyncIterator[bytes]:
    yield data


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


async def _connect(relay: Relay, options: Options) -> net.Stream:
    """The relay's policy-checked addresses (``--resolve`` applied), each connect bounded;
    implicit TLS (RFC 8314) is part of it.  A proxy is for URLs' servers, not the relay."""
    context = tls_context(options) if relay.tls else None
    try:
        return await net.connect(relay.host, relay.port, options.with_(proxy=None), tls=context)
    except ConnectError as exc:
        raise ConnectError(
            f"cannot connect to the SMTP relay {relay.host}:{relay.port}: {exc.message}",
            component="smtp",
        ) from None


async def _send(plan: Plan, options: Options, relay: Relay) -> list[str]:
    """Carry out the SMTP conversation; return the relay's replies."""
    stream = await _connect(relay, options)
    machine = SMTPMachine(plan, max_line=options.max_line)
    replies: list[str] = []
    try:
        while True:
            event = machine.next_event()
            if event is NEED_DATA:
                machine.receive_data(await stream.read(f"the reply of {relay.host}"))
            elif isinstance(event, Received):
                replies.append(str(event.reply))
                options.note("<", replies[-1])
            elif isinstance(event, Send):
                options.note(">", event.shown)
                await stream.write(event.data, event.shown)
            elif isinstance(event, StartTLS):
                await stream.start_tls(tls_context(options), relay.host, relay.port)
                options.note("*", f"TLS started with {relay.host}")
                machine.tls_started()
            elif isinstance(event, PasswordWanted):
                machine.password(await _password(relay, options))
            else:
                assert isinstance(event, Done), event  # (PAUSED: answered above, never here)
                return replies
    finally:
        await stream.aclose()


async def execute(plan: Plan, options: Options) -> Resource:
    """Send the message (relay configured) or return it as a draft."""
    message = next(s for s in plan.steps if s.role is SMTPRole.MESSAGE)
    details = plan.details_as(MailtoDetails)
    relay: Relay | None = details.relay
    if relay is None:  # a draft: the message is the content
        return Resource(
            plan,
            kind="content",
            body=_draft(message.data),
            media_type="message/rfc822",
            size=len(message.data),
            result=Draft(details.message_id, details.sender, details.recipients),
        )
    replies = await _send(plan, options, relay)
    sent = Sent(
        message_id=details.message_id,
        sender=details.sender,
        recipients=details.recipients,
        relay=f"{relay.host}:{relay.port}",
        last_reply=replies[-2] if len(replies) > 1 else "",
    )
    return Resource(
        plan,
        kind="content",
        body=None,
        media_type=None,
        size=0,
        replies=replies,
        result=sent,
    )
