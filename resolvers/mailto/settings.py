"""The mailto: options (cheap to import: the command line reads their flags; the planner,
``email`` and the SMTP client are not imported for that, see resolvers/lazy.py)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from omniurl.schemes.records import record

from ..spec import flag


def _envelope(message_id: str | None, sender: str, recipients: tuple[str, ...]) -> dict[str, Any]:
    """The keys a draft's and a sent message's JSON share (RFC 5321 §3.3's envelope)."""
    envelope = {"mail_from": sender, "rcpt_to": list(recipients)}
    return {"envelope": envelope, "message_id": message_id}


@record(frozen=True)
class Draft:
    """A message not sent (no relay): its content is the message (``message/rfc822``);
    this is the envelope it would be sent with (``Resource.result_as(Draft)``)."""

    message_id: str | None
    sender: str
    recipients: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        """The ``"metadata"`` of ``omniurl get --json`` (keys kept stable)."""
        return {**_envelope(self.message_id, self.sender, self.recipients), "sent": False}


@record(frozen=True)
class Sent:
    """A message handed to the relay (``Resource.result_as(Sent)``; a draft's is a
    :class:`Draft`)."""

    message_id: str | None
    sender: str
    recipients: tuple[str, ...]
    #: ``host:port`` of the relay.
    relay: str
    #: The relay's answer to the message's data (``250 …``).
    last_reply: str

    def to_json(self) -> dict[str, Any]:
        """The ``"metadata"`` of ``omniurl get --json`` (keys kept stable)."""
        shared = _envelope(self.message_id, self.sender, self.recipients)
        return {**shared, "sent": True, "relay": self.relay}


@record(frozen=True)
class MailtoOptions:
    """Without ``smtp`` the message is a draft (``message/rfc822``); with it, it is sent."""

    #: The relay, ``"host[:port]"`` or ``(host, port)``.
    smtp: str | tuple[str, int] | None = flag(
        "--smtp", default=None, metavar="HOST[:PORT]", help="send through this relay"
    )
    #: STARTTLS after the first EHLO (RFC 3207).
    starttls: bool = flag(
        "--starttls",
        default=False,
        action="store_true",
        help="upgrade the relay connection with STARTTLS (RFC 3207) before anything else",
    )
    #: TLS from the first byte (RFC 8314).
    tls: bool = flag(
        "--smtp-tls",
        default=False,
        action="store_true",
        help="TLS from the first byte (RFC 8314; default port 465)",
    )
    #: AUTH user (RFC 4954); the password comes from the credentials or is asked for.
    smtp_user: str | None = flag(
        "--smtp-user",
        default=None,
        metavar="USER",
        help="AUTH as USER (password from ~/.netrc for the relay, else asked)",
    )
    #: The sender; None: ``Options.email``.
    sender: str | None = flag(
        "--from",
        default=None,
        metavar="ADDRESS",
        help="the sender (default: --email, $EMAIL, or user@localhost)",
    )
    #: The body when the URL has none.
    body: str | None = flag(
        "--body", default=None, metavar="TEXT", help="the body, if the URL has none"
    )
    #: Header fields a URL may set although they are not on the allow-list (a policy
    #: setting: the command line hands them to ``Policy.allowing_mail_headers``).
    allow_headers: tuple[str, ...] = flag(
        "--allow-header",
        default=(),
        metavar="NAME",
        action="append",
        convert=tuple,
        help="let the URL set this header field although it is not on the allow-list "
        "(to, cc, subject, body, in-reply-to, references, keywords, comments); repeatable",
    )
    #: The EHLO name.
    helo: str = "localhost"
    #: The Date field; None: now (a fixed one for tests).
    date: datetime | None = None


__all__ = ["MailtoOptions", "Sent"]
