"""Build the RFC 5322 message and its SMTP envelope a ``mailto:`` URL stands for (pure).

RFC 1738 §3.5 gives the addr-spec; RFC 6068 adds header fields (``?subject=…&body=…``):
``to`` and ``cc`` add recipients, ``body`` is the text of the message, the others become
header fields.  The message is built with the standard library's :mod:`email` package
(policy ``SMTP``: CRLF line endings, RFC 2047 for non-ASCII header text), so what the plan
shows is byte for byte what is sent or written as a draft.

Nothing here decides what is *safe*: the planner tags every value for the policy
(:mod:`resolvers.policy`), which refuses header injection, fields outside the allow-list and
addresses that are not addr-specs before anything is sent.
"""

from __future__ import annotations

import email.errors
import email.policy
import email.utils
import hashlib
from collections.abc import Sequence
from datetime import datetime
from email.message import EmailMessage

from omniurl.schemes.records import field, record

#: Header fields whose value is a list of addr-specs (RFC 6068 §2: "to", and by extension
#: the other address fields), and the envelope-only one.
ADDRESS_FIELDS = frozenset({"to", "cc", "bcc"})

#: How the message spells the fields RFC 6068 names in lower case.
CANONICAL = {
    "to": "To",
    "cc": "Cc",
    "bcc": "Bcc",
    "subject": "Subject",
    "in-reply-to": "In-Reply-To",
    "references": "References",
    "keywords": "Keywords",
    "comments": "Comments",
    "from": "From",
    "reply-to": "Reply-To",
}


def split_addresses(text: str) -> list[str]:
    """``addr-spec *("," addr-spec)`` (RFC 6068 §2), commas inside quotes kept; empty
    items dropped (``mailto:?to=a@b`` has an empty path)."""
    items: list[str] = []
    buf: list[str] = []
    quoted = escaped = False
    for ch in text:
        if escaped:
            escaped = False
        elif ch == "\\" and quoted:
            escaped = True
        elif ch == '"':
            quoted = not quoted
        elif ch == "," and not quoted:
            items.append("".join(buf).strip())
            buf = []
            continue
        buf.append(ch)
    items.append("".join(buf).strip())
    return [a_label_domain(item) for item in items if item]


def a_label_domain(address: str) -> str:
    """``local@domain`` with an internationalized domain as IDNA A-labels (RFC 6068 §2: a
    mailto: URI carries the domain as UTF-8; SMTP without SMTPUTF8 carries A-labels).  A
    domain IDNA refuses is left as it is, for the address check to name."""
    local, at, domain = address.rpartition("@")
    if not at or domain.isascii():
        return address
    import idna

    try:
        return f"{local}@{idna.encode(domain, uts46=True).decode('ascii')}"
    except (idna.IDNAError, UnicodeError, ValueError):
        return address


@record(frozen=True)
class Draft:
    """The message and its envelope.  ``message`` is ``None`` when it could not be built
    (a value the policy refuses anyway, such as CR LF in a header field); ``problem`` says
    why."""

    sender: str
    to: tuple[str, ...]
    cc: tuple[str, ...]
    bcc: tuple[str, ...]
    headers: tuple[tuple[str, str], ...]
    body: str
    message: bytes | None
    message_id: str | None
    problem: str | None = None
    recipients: tuple[str, ...] = field(default=())


def build(
    *,
    sender: str,
    to: Sequence[str],
    cc: Sequence[str],
    bcc: Sequence[str],
    headers: Sequence[tuple[str, str]],
    body: str,
    date: datetime,
) -> Draft:
    """The RFC 5322 message (``From``, ``To``, ``Cc``, the URL's other fields in order,
    ``Date``, ``Message-ID``, then a ``text/plain; charset=utf-8`` body) and its envelope.

    The Message-ID is derived from the content and the date (not random), so the plan is a
    function of the URL and the options; Bcc recipients go into the envelope only.
    """
    recipients = tuple(dict.fromkeys([*to, *cc, *bcc]))
    text = body.replace("\r\n", "\n").replace("\r", "\n")
    if text and not text.endswith("\n"):
        text += "\n"
    digest = hashlib.sha256(
        repr((sender, recipients, tuple(headers), text, date.isoformat())).encode(
            "utf-8", "surrogateescape"
        )
    ).hexdigest()[:24]
    domain = sender.rpartition("@")[2] or "localhost"
    message_id = f"<{digest}.omniurl@{domain}>"
    msg = EmailMessage(policy=email.policy.SMTP)
    try:
        if not any(name.lower() == "from" for name, _ in headers):
            msg["From"] = sender  # unless the caller let the URL set it (--allow-header From)
        if to:
            msg["To"] = ", ".join(to)
        if cc:
            msg["Cc"] = ", ".join(cc)
        for name, value in headers:
            msg[CANONICAL.get(name.lower(), name)] = value
        msg["Date"] = email.utils.format_datetime(date)
        msg["Message-ID"] = message_id
        ascii_body = text.isascii()
        msg.set_content(text, cte="7bit" if ascii_body else "quoted-printable")
        data = msg.as_bytes()
    except (
        ValueError,
        TypeError,
        IndexError,
        UnicodeError,
        email.errors.MessageError,
        # CPython's address parser trips over some malformed addresses itself
        # ("mailto:a@%5Bx": 'InvalidHeaderDefect' object has no attribute 'all_defects'):
        # still no message, and the policy names the address — never a traceback.
        AttributeError,
    ) as exc:
        return Draft(
            sender=sender,
            to=tuple(to),
            cc=tuple(cc),
            bcc=tuple(bcc),
            headers=tuple(headers),
            body=text,
            message=None,
            message_id=None,
            problem=str(exc),
            recipients=recipients,
        )
    return Draft(
        sender=sender,
        to=tuple(to),
        cc=tuple(cc),
        bcc=tuple(bcc),
        headers=tuple(headers),
        body=text,
        message=data,
        message_id=message_id,
        recipients=recipients,
    )
