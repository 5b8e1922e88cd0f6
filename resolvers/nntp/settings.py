"""The news:/nntp: options, and their defaults (cheap to import: the command line reads
their flags; the planner and the executor are not imported for that)."""

from __future__ import annotations

from enum import StrEnum

from omniurl.schemes.records import record

from ..spec import flag

DEFAULT_MAX_ARTICLES = 1000


class StartTLS(StrEnum):
    """STARTTLS (RFC 4642) on news:/nntp:."""

    #: Plain NNTP unless asked (the default, as curl).
    NEVER = "never"
    #: When the server's CAPABILITIES list STARTTLS (curl's --ssl).
    AUTO = "auto"
    #: Refuse a server that does not offer it (curl's --ssl-reqd).
    REQUIRE = "require"


STARTTLS_MODES = tuple(m.value for m in StartTLS)


@record(frozen=True)
class NNTPOptions:
    """What a news: or nntp: URL cannot say."""

    #: The server for ``news:`` URLs, ``host[:port]`` (RFC 1738 §3.6 names none).
    server: str | None = flag(
        "--nntp-server",
        default=None,
        metavar="HOST[:PORT]",
        help="the NNTP server for news: URLs, which name none (RFC 1738 §3.6); "
        "default: $NNTPSERVER",
    )
    #: How many of a group's newest articles a listing shows.
    max_articles: int = flag(
        "--nntp-max-articles",
        default=DEFAULT_MAX_ARTICLES,
        metavar="N",
        type=int,
        help=f"list at most the newest N articles of a group ({DEFAULT_MAX_ARTICLES})",
    )
    starttls: StartTLS = flag(
        "--nntp-starttls",
        default=StartTLS.NEVER,
        choices=STARTTLS_MODES,
        convert=StartTLS,
        help="STARTTLS (RFC 4642) on news: and nntp: URLs: never (the default, as curl), "
        "auto (when the server's CAPABILITIES list it), require (refuse a server that "
        "does not); snews: URLs are TLS from the first byte (port 563)",
    )


__all__ = ["DEFAULT_MAX_ARTICLES", "STARTTLS_MODES", "NNTPOptions", "StartTLS"]
