"""The mailto planner (pure): a ``mailto:`` URL -> the message, its envelope, the SMTP steps.

With an SMTP relay configured (``MailtoOptions.smtp``, ``--smtp HOST[:PORT]``) the plan
is the SMTP conversation (RFC 5321 §3.3): ``EHLO``, optionally ``STARTTLS`` (and ``EHLO``
again) and ``AUTH``, ``MAIL FROM``, one ``RCPT TO`` per recipient, ``DATA``, the message,
``QUIT``.  Without one, the plan is the message alone: the executor outputs it as a draft
(``message/rfc822``) for a person or another program to send.

The values are tagged for the policy (:mod:`resolvers.policy`): each address as an
``addr-spec``, each header field name against the mailto allow-list (``header-field``), each
header value against CR/LF (``header``), the body against NUL (``mail-body``).
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from omniurl.schemes.base import URL
from omniurl.schemes.mailto import MailtoURL
from omniurl.schemes.percent import to_octets
from omniurl.schemes.records import record

from ..errors import PlanError
from ..options import Options
from ..plan import Plan, Role, Step, WireValue
from .message import ADDRESS_FIELDS, Draft, build, split_addresses

# The typed options (MailtoOptions) live in .settings (cheap for the command line).
from .settings import MailtoOptions

DEFAULT_SMTP_PORT = 25
#: What an EHLO argument may be made of: printable US-ASCII, no space (one word).
_EHLO_WORD = re.compile(r"[!-~]+")
DEFAULT_SMTPS_PORT = 465


@record(frozen=True)
class Relay:
    host: str
    port: int
    starttls: bool
    tls: bool
    user: str | None


def relay_of(options: Options) -> Relay | None:
    """The configured SMTP relay, or ``None`` (draft mode)."""
    mine = options.of(MailtoOptions)
    spec: Any = mine.smtp
    if not spec:
        return None
    tls = mine.tls
    default = DEFAULT_SMTPS_PORT if tls else DEFAULT_SMTP_PORT
    if isinstance(spec, tuple):
        host, port = str(spec[0]), int(spec[1])
    else:
        host, port = parse_hostport(str(spec), default)
    user = mine.smtp_user
    if user is None and host.lower() in options.credentials:
        user = options.credentials[host.lower()][0]
    return Relay(host, port, mine.starttls, tls, user)


def parse_hostport(spec: str, default: int) -> tuple[str, int]:
    """``host``, ``host:port``, ``[v6]:port``."""
    if spec.startswith("["):
        host, _, rest = spec[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else ""
    elif spec.count(":") == 1:
        host, _, port = spec.partition(":")
    else:
        host, port = spec, ""
    if port and not (port.isdigit() and 0 < int(port) < 65536):
        raise PlanError(f"--smtp {spec}: bad port {port!r}", component="smtp")
    if not host:
        raise PlanError(f"--smtp {spec}: no host", component="smtp")
    return host, int(port) if port else default


@record()
class _Walk:
    """What the URL's address and header fields give: the values for the policy, the
    recipients, the other fields and the body."""

    values: list[WireValue]
    to: list[str]
    cc: list[str]
    bcc: list[str]
    headers: list[tuple[str, str]]
    body: str


def _walk(url: MailtoURL, sender: str, body_default: str | None) -> _Walk:
    """Walk the URL, tagging every value with its component and wire context."""
    values: list[WireValue] = [WireValue("sender", to_octets(sender), "addr-spec")]
    recipients: dict[str, list[str]] = {"to": [], "cc": [], "bcc": []}
    headers: list[tuple[str, str]] = []
    body: str | None = None
    path = split_addresses(url.address)
    for i, address in enumerate(path):
        component = "address" if len(path) == 1 else f"address[{i}]"
        values.append(WireValue(component, to_octets(address), "addr-spec"))
        recipients["to"].append(address)
    for i, (name, value) in enumerate(url.headers):
        component = f"headers[{i}]"
        values.append(WireValue(component, to_octets(name), "header-field"))
        lower = name.lower()
        if lower == "body":
            values.append(WireValue(component, to_octets(value), "mail-body"))
            body = value if body is None else body + "\n" + value
        elif lower in ADDRESS_FIELDS:
            for address in split_addresses(value):
                values.append(WireValue(component, to_octets(address), "addr-spec"))
                recipients[lower].append(address)
        else:
            values.append(WireValue(component, to_octets(value), "header"))
            headers.append((name, value))
    if body is None:
        body = body_default or ""
        if body_default:
            values.append(WireValue("body", to_octets(body_default), "mail-body"))
    return _Walk(values, recipients["to"], recipients["cc"], recipients["bcc"], headers, body)


def plan_mailto(url: URL, options: Options, *, now: datetime) -> Plan:
    """The plan for ``url`` (see the module docstring).  ``now`` is the local time the
    message is dated with unless ``MailtoOptions.date`` gives one (RFC 5322 §3.6.1): a fact
    the caller passes in, so that the planner stays a function of its arguments."""
    if not isinstance(url, MailtoURL):
        raise PlanError(f"not a mailto URL: {url}", component="scheme")
    mine = options.of(MailtoOptions)
    sender = mine.sender or options.email
    walk = _walk(url, sender, mine.body)
    values = walk.values
    if not (walk.to or walk.cc or walk.bcc):
        raise PlanError("the mailto: URL names no recipient", component="address")
    # Whole seconds: the Date field shows no more, and the Message-ID derives from it.
    date: datetime = mine.date or now.replace(microsecond=0)
    draft = build(
        sender=sender,
        to=walk.to,
        cc=walk.cc,
        bcc=walk.bcc,
        headers=walk.headers,
        body=walk.body,
        date=date,
    )
    if draft.message is None:
        # A value the policy refuses (CR LF in a field, a field off the allow-list, an
        # address that is no addr-spec) is the policy's to report, from its one place;
        # anything else is a plan error.  Either way nothing is sent.
        options.policy.check_plan(
            Plan(
                url=url,
                scheme=url.scheme,
                host=None,
                port=None,
                transport=None,
                steps=(Step(data=b"", shown="", kind="info", values=tuple(values)),),
            )
        )
        raise PlanError(f"cannot build the message: {draft.problem}", component="headers")
    relay = relay_of(options)
    steps = _smtp_steps(draft, values, relay, options) if relay else _draft_steps(draft, values)
    return Plan(
        url=url,
        scheme=url.scheme,
        host=relay.host if relay else None,
        port=relay.port if relay else None,
        transport="tcp" if relay else None,
        steps=tuple(steps),
        # The relay comes from the caller's configuration, not from the URL (§6's caution is
        # about ports a URL names).
        explicit_port=False,
        details=MailtoDetails(
            relay=relay,
            sender=draft.sender,
            recipients=tuple(draft.recipients),
            message_id=draft.message_id,
        ),
    )


class SMTPRole(Role):
    """What each step of a mail plan is for (RFC 5321 §4.1.1 commands, and the message)."""

    EHLO = "ehlo"
    STARTTLS = "starttls"
    AUTH = "auth"
    MAIL = "mail"
    RCPT = "rcpt"
    DATA = "data"
    MESSAGE = "message"
    QUIT = "quit"


@record(frozen=True)
class Greeting:
    """EHLO's detail: the domain or address literal it names (RFC 5321 §4.1.1.1)."""

    helo: str


@record(frozen=True)
class Login:
    """AUTH's detail: the relay's user (the password is asked for or looked up at run time)."""

    user: str


@record(frozen=True)
class Recipient:
    """RCPT TO's detail: the address, for the typed refusal naming it."""

    address: str


@record(frozen=True)
class MailtoDetails:
    """What the mailto executor needs: where to send (None: a draft) and the envelope."""

    relay: Relay | None
    sender: str
    recipients: tuple[str, ...]
    message_id: str | None


def _message_step(draft: Draft, values: list[WireValue]) -> Step:
    assert draft.message is not None
    return Step(
        data=draft.message,
        shown=draft.message.decode("utf-8", "backslashreplace"),
        kind="message",
        values=tuple(values),
        role=SMTPRole.MESSAGE,
    )


def _draft_steps(draft: Draft, values: list[WireValue]) -> list[Step]:
    envelope = f"MAIL FROM:<{draft.sender}> " + " ".join(f"RCPT TO:<{r}>" for r in draft.recipients)
    return [
        Step(
            data=b"",
            shown=f"no SMTP relay configured (--smtp HOST[:PORT]): output the message as a "
            f"draft (message/rfc822); envelope {envelope}",
            kind="info",
        ),
        _message_step(draft, values),
    ]


def _smtp_steps(
    draft: Draft, values: list[WireValue], relay: Relay, options: Options
) -> list[Step]:
    helo = options.of(MailtoOptions).helo or "localhost"
    # RFC 5321 §4.1.1.1: EHLO SP ( Domain / address-literal ) CRLF -- one word of printable
    # ASCII (the caller's setting, not the URL's: a plan error, before anything is sent).
    if not _EHLO_WORD.fullmatch(helo):
        raise PlanError(
            f"--helo {helo!r}: not a domain or address literal for EHLO (RFC 5321 §4.1.1.1)",
            component="helo",
        )
    steps: list[Step] = []
    if relay.tls:
        steps.append(Step(data=b"", shown="TLS from the first byte (RFC 8314)", kind="info"))
    steps.append(Step.line(f"EHLO {helo}", role=SMTPRole.EHLO, detail=Greeting(helo)))
    if relay.starttls:
        steps.append(Step.line("STARTTLS", role=SMTPRole.STARTTLS))
        steps.append(Step.line(f"EHLO {helo}", role=SMTPRole.EHLO, detail=Greeting(helo)))
    if relay.user is not None:
        steps.append(
            Step(
                data=b"",
                shown=f"AUTH (user {relay.user!r}, password ****)",
                kind="send",
                role=SMTPRole.AUTH,
                detail=Login(relay.user),
            )
        )
    steps.append(Step.line(f"MAIL FROM:<{draft.sender}>", role=SMTPRole.MAIL))
    for recipient in draft.recipients:
        steps.append(
            Step.line(f"RCPT TO:<{recipient}>", role=SMTPRole.RCPT, detail=Recipient(recipient))
        )
    steps.append(Step.line("DATA", role=SMTPRole.DATA))
    steps.append(_message_step(draft, values))
    steps.append(Step.line("QUIT", role=SMTPRole.QUIT))
    return steps
