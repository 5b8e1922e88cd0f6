"""NNTP's conditional steps: each one's words (what ``omniurl plan`` shows) beside the pure
decision the executor asks, tested without sockets.

The facts are :class:`Seen`, what the replies so far have shown: the capabilities
(RFC 3977 §5.2), the GROUP reply (§6.1.1) and the commands the server did not understand
(answered 500, 501 or 503, RFC 3977 §3.2.1) — the fallbacks to RFC 977 and RFC 2980.
"""

from __future__ import annotations

from enum import StrEnum

from omniurl.resolvers.plan import Condition, Role
from omniurl.schemes.records import field, record

from .replies import GroupInfo


class NNTPRole(Role):
    """What each NNTP step is for; the executor dispatches on these."""

    TLS = "tls"
    STARTTLS = "starttls"
    CAPABILITIES = "capabilities"
    MODE_READER = "mode-reader"
    AUTH_USER = "auth-user"
    AUTH_PASS = "auth-pass"
    ARTICLE = "article"
    LIST_ACTIVE = "list-active"
    LIST = "list"
    GROUP = "group"
    OVER = "over"
    XOVER = "xover"
    LISTGROUP = "listgroup"
    QUIT = "quit"


@record()
class Seen:
    """What the replies so far have shown (filled in by the executor as they arrive)."""

    #: The capability list; ``None`` when the server does not know CAPABILITIES (RFC 977).
    capabilities: dict[str, tuple[str, ...]] | None = None
    #: The GROUP reply, once it came.
    group: GroupInfo | None = None
    #: The commands the server answered "not understood" (the plan falls back from them).
    fell_back: set[StrEnum] = field(default_factory=set)
    #: Whether the connection is now TLS after STARTTLS (RFC 4642).
    upgraded: bool = False


def mode_reader_due(seen: Seen) -> bool:
    """RFC 3977 §5.3: MODE READER only to a server that lists MODE-READER (a mode-switching
    server such as INN's innd), never when READER is already listed; an RFC 977 server cannot
    tell us, so it gets one (500 is harmless)."""
    caps = seen.capabilities
    return caps is None or ("READER" not in caps and "MODE-READER" in caps)


def starttls_due(seen: Seen) -> bool:
    """RFC 4642 §2.1: STARTTLS when CAPABILITIES lists it (never twice)."""
    caps = seen.capabilities
    return not seen.upgraded and caps is not None and "STARTTLS" in caps


def capabilities_again_due(seen: Seen) -> bool:
    """RFC 4642 §2.2.2: after TLS starts, the capabilities learnt before are discarded and
    asked for again."""
    return seen.upgraded


def auth_user_due(code: int) -> bool:
    """RFC 4643 §2.1: AUTHINFO USER answers a 480 (authentication required)."""
    return code == 480


def auth_pass_due(code: int) -> bool:
    """RFC 4643 §2.3: AUTHINFO PASS answers a 381 (password required)."""
    return code == 381


def over_due(seen: Seen) -> bool:
    """OVER when the group has articles (an empty group is an empty listing)."""
    return seen.group is not None and not seen.group.empty


def xover_due(seen: Seen) -> bool:
    """XOVER (RFC 2980 §2.8) when OVER was not understood."""
    return over_due(seen) and NNTPRole.OVER in seen.fell_back


def listgroup_due(seen: Seen) -> bool:
    """LISTGROUP (RFC 3977 §6.1.2) when XOVER was not understood either."""
    return over_due(seen) and NNTPRole.XOVER in seen.fell_back


def list_due(seen: Seen) -> bool:
    """RFC 977's bare LIST when LIST ACTIVE was not understood."""
    return NNTPRole.LIST_ACTIVE in seen.fell_back


MODE_READER = Condition(
    "CAPABILITIES lists MODE-READER, or the server does not know CAPABILITIES", mode_reader_due
)
STARTTLS = Condition("CAPABILITIES lists STARTTLS (RFC 4642)", starttls_due)
CAPABILITIES_AGAIN = Condition("after STARTTLS (RFC 4642 §2.2.2)", capabilities_again_due)
AUTH_USER = Condition("reply 480 (then the refused command is sent again)", auth_user_due)
AUTH_PASS = Condition("reply 381", auth_pass_due)
NO_OVER = Condition("OVER answered 500, 501 or 503", xover_due)
NO_XOVER = Condition("XOVER answered 500, 501 or 503", listgroup_due)
NO_LIST_ACTIVE = Condition("LIST ACTIVE answered 500 or 501 (an RFC 977 server)", list_due)
NO_LIST_ACTIVE_FILTERED = Condition(
    "LIST ACTIVE answered 500 or 501 (an RFC 977 server): every group, filtered by the wildmat",
    list_due,
)


def group_has_articles(limit: int) -> Condition[Seen]:
    """OVER's condition; its words say how the range is chosen."""
    return Condition(
        f"the group has articles; <first>-<last> are the newest {limit} article numbers "
        "the GROUP reply gives",
        over_due,
    )


__all__ = [
    "AUTH_PASS",
    "AUTH_USER",
    "CAPABILITIES_AGAIN",
    "MODE_READER",
    "NO_LIST_ACTIVE",
    "NO_LIST_ACTIVE_FILTERED",
    "NO_OVER",
    "NO_XOVER",
    "STARTTLS",
    "NNTPRole",
    "Seen",
    "auth_pass_due",
    "auth_user_due",
    "capabilities_again_due",
    "group_has_articles",
    "list_due",
    "listgroup_due",
    "mode_reader_due",
    "over_due",
    "starttls_due",
    "xover_due",
]
