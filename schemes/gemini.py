"""gemini: URLs (the Gemini protocol specification, "Gemini URI scheme").

::

    gemini-URI = "gemini://" host [ ":" port ] path-abempty [ "?" query ]

RFC 3986's generic syntax with three rules of its own: the authority is a host (never empty)
and an optional port — a user name or password is refused, in every reading —, the default
port is 1965, and the request a client sends *is* the absolute URL, so path and query are kept
as on the wire (still encoded), as ``http:``'s are.  The fragment is split off and never sent.
"""

from __future__ import annotations

import re

from . import grammar
from .authority import expect_slashes, format_fragment, parse_hostport, split_fragment
from .base import InternetURL, _tnew, class_constants, tuple_backed
from .errors import AuthorityError, HostError
from .percent import check
from .records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar, Final

_BAD_PATH = grammar.lazy_bad_char(grammar.HSEGMENT + "/")
_BAD_QUERY = grammar.lazy_bad_char(grammar.SEARCH)
# Outside the letter's characters (the default reading's second try, the lenient one):
# what never stands raw on a request line (controls, space, non-ASCII, §2.2's unsafe ones)
# is encoded at parse time, so the request is always one clean line.
_NEVER_RAW = grammar.Lazy(r'[^\x21-\x7e]|["<>\\^`{|}]')  # (lenient text only: on first use)


def _encode_never_raw(text: str) -> str:
    return _NEVER_RAW.sub(
        lambda m: "".join(f"%{b:02X}" for b in m.group().encode("utf-8", "surrogateescape")),
        text,
    )


# "gemini://" hostport [ "/" hpath ] [ "?" search ]     (the fast path, see grammar)
_PATTERN = (
    "//"
    + grammar.HOSTPORT_FAST
    + rf"(/{grammar.fast(grammar.HSEGMENT + '/')})?"
    + rf"(?:\?({grammar.fast(grammar.SEARCH)}))?"
    + grammar.FRAGMENT_FAST
)
_FAST = grammar.Lazy(_PATTERN)  # (the strict reading: compiled on first use)
#: The default reading's (RFC 3986 characters: "~").
_LAX = grammar.Lazy(grammar.lax(_PATTERN))  # (the lenient reading's: on first use)
#: The default reading's (``_parse_default``): RFC 3986's hosts and empty ports besides,
#: and "/" and "?" in the query (RFC 3986 §3.4: data there, as the general way reads them;
#: without them such a URL took the general way, ~15 µs compiled).
_DEFAULT = re.compile(
    grammar.default(
        _PATTERN.replace(
            rf"(?:\?({grammar.fast(grammar.SEARCH)}))?",
            rf"(?:\?({grammar.fast(grammar.SEARCH + '/?')}))?",
        )
    )
)


#: The default reading's matches as bound methods (statics, compiled: see grammar.match_groups).
_DEFAULT_MATCH: Final = _DEFAULT.fullmatch


@tuple_backed
@record(frozen=True, kw_only=True)
@class_constants
class GeminiURL(InternetURL):
    """``gemini://host:port/path?query``."""

    #: The path as on the wire, still encoded, with its leading "/"; "" when absent.
    path: str = ""
    #: The query after "?", still encoded (the answer to a 1x input request); None: no "?".
    query: str | None = None

    schemes: ClassVar[tuple[str, ...]] = ("gemini",)
    DEFAULT_PORT: ClassVar[int | None] = 1965

    @classmethod
    def from_text(cls, text: str, *, scheme: str, rest: str, strict: bool = True) -> GeminiURL:
        return cls._parse_at(text, len(text) - len(rest), scheme, strict)

    @classmethod
    def _parse_at(cls, text: str, start: int, scheme: str, strict: bool) -> GeminiURL:
        url = _geminiurl_from_match(
            cls, (_FAST.get() if strict else _LAX.get()).fullmatch(text, start), text, start, scheme
        )
        return cls._parse_slow(text, start, scheme, strict) if url is None else url

    @classmethod
    def _parse_default(cls, text: str, start: int, scheme: str) -> GeminiURL | None:
        return _geminiurl_from_match(cls, _DEFAULT_MATCH(text, start), text, start, scheme)

    @classmethod
    def _parse_slow(cls, text: str, start: int, scheme: str, strict: bool) -> GeminiURL:
        """Component by component: the whole grammar, and the offset of any error."""
        end, fragment = split_fragment(text, start, strict)
        login = expect_slashes(text, start, scheme)
        # RFC 3986 §3.2: the authority ends at the first "/", "?" (or the end).
        auth_end = end
        for stop in ("/", "?"):
            found = text.find(stop, login, auth_end)
            if found >= 0:
                auth_end = found
        at = text.find("@", login, auth_end)
        if at >= 0:
            raise AuthorityError(
                "a gemini: URL has no user name or password (Gemini specification: the "
                "userinfo subcomponent is not allowed)",
                component="user",
                offset=login,
            )
        if login == auth_end:
            raise HostError("a gemini: URL names a host", component="host", offset=login)
        host, port = parse_hostport(text, login, auth_end, strict=strict)
        q = text.find("?", auth_end, end)
        path_end = end if q < 0 else q
        if strict:
            check(text, auth_end, path_end, _BAD_PATH, "path", "'?' ends the path")
            if q >= 0:
                check(text, q + 1, end, _BAD_QUERY, "query", "'/' and '?' in the query")
        path = text[auth_end:path_end]
        query = None if q < 0 else text[q + 1 : end]
        if not strict:
            path = _encode_never_raw(path)
            query = None if query is None else _encode_never_raw(query)
        return cls._make(
            {
                "scheme": scheme,
                "fragment": fragment,
                "user": None,
                "password": None,
                "host": host,
                "port": port,
                "path": path,
                "query": query,
            }
        )

    def __str__(self) -> str:
        return self.request_url + format_fragment(self.fragment)

    @property
    def request_url(self) -> str:
        """The absolute URL as written, without its fragment (which is never sent)."""
        port = "" if self.port is None else f":{self.port}"
        query = "" if self.query is None else "?" + self.query
        return f"{self.scheme}://{self.host}{port}{self.path}{query}"

    def components(self) -> dict[str, Any]:
        out = self.authority_json()
        out["path"] = self.path
        out["query"] = self.query
        return out


def _geminiurl_from_match(
    cls: type[GeminiURL], m: re.Match[str] | None, text: str, start: int, scheme: str
) -> GeminiURL | None:
    """The URL the fast pattern's match ``m`` stands for, or None for the slow path."""
    if m is None or not grammar.escapes_ok(text, start):
        return None
    host, port, path, query, fragment = grammar.match_groups(m)
    if path is None and query is not None and "@" in query:
        # "gemini://h?a@b": RFC 1738 would read "h?a" as a user name; the default reading
        # refuses the "?" there (schemes.registry's _login_question): the slow path says so
        return None
    if port is not None and len(port) == 5 and int(port) > 65535:
        return None
    if host[0] == "[" and not grammar.ipv6_ok(host):
        return None
    # scheme, fragment, user, password, host, port, path, query (tuple_backed)
    return _tnew(
        cls,
        (
            scheme,
            fragment,
            None,
            None,
            host,
            int(port) if port else None,
            path or "",
            query,
        ),
    )


__all__ = ["GeminiURL"]
