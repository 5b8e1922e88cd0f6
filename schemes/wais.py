"""wais: URLs (§3.9).

::

    waisurl      = waisdatabase | waisindex | waisdoc
    waisdatabase = "wais://" hostport "/" database
    waisindex    = "wais://" hostport "/" database "?" search
    waisdoc      = "wais://" hostport "/" database "/" wtype "/" wpath
    database     = *uchar
    wtype        = *uchar
    wpath        = *uchar

All four components are decoded.  The wpath is the WAIS document-id, "treated opaquely"
(§3.9): its octets go back to the server that issued it.  A "+" in the search is kept as
written (RFC 1630 reads it as a space between words; the planner decides).
"""

from __future__ import annotations

import re

from . import grammar
from .authority import format_fragment, format_login, parse_ip_schemepart
from .base import InternetURL, _tnew, class_constants, tuple_backed
from .errors import SchemeSyntaxError
from .percent import check, decode, display, quote
from .records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar, Final

_BAD_UCHAR = grammar.lazy_bad_char(grammar.UCHAR)
_BAD_SEARCH = grammar.lazy_bad_char(grammar.SEARCH)
SEARCH_SAFE = ";:@&="


# waisurl = "wais://" hostport "/" database [ "?" search | "/" wtype "/" wpath ]   (fast path)
_UCHARS = grammar.fast(grammar.UCHAR)
_PATTERN = (
    "//"
    + grammar.HOSTPORT_FAST
    + rf"/({_UCHARS})(?:\?({grammar.fast(grammar.SEARCH)})|/({_UCHARS})/({_UCHARS}))?"
    + grammar.FRAGMENT_FAST
)
_FAST = grammar.Lazy(_PATTERN)  # (the strict reading: compiled on first use)
#: The default reading's (RFC 3986 characters: "~"; no "?" in a login).
_LAX = grammar.Lazy(grammar.lax(_PATTERN))  # (the lenient reading's: on first use)
#: The default reading's (``_parse_default``): RFC 3986's hosts and empty ports besides,
#: RFC 3986 §3.3's path characters in the database, wtype and wpath (sub-delims, ":" and
#: "@": data there), "/" in the wpath (the general way splits the path at its first two
#: "/") and "/" and "?" in the search (§3.4), each decoded as the general way reads it.
#: (Without the last three, such a URL took the general way: ~15 µs compiled.)
_PCHARS = grammar.fast(grammar.UCHAR + ";=:@&")
_DEFAULT = re.compile(
    grammar.default(
        "//"
        + grammar.HOSTPORT_FAST
        + rf"/({_PCHARS})(?:\?({grammar.fast(grammar.SEARCH + '/?')})"
        + rf"|/({_PCHARS})/({grammar.fast(grammar.UCHAR + ';=:@&/')}))?"
        + grammar.FRAGMENT_FAST
    )
)


#: The default reading's matches as bound methods (statics, compiled: see grammar.match_groups).
_DEFAULT_MATCH: Final = _DEFAULT.fullmatch


@tuple_backed
@record(frozen=True, kw_only=True)
@class_constants
class WAISURL(InternetURL):
    """``wais://host:port/database[?search | /wtype/wpath]`` (§3.9)."""

    database: str = ""
    search: str | None = None
    wtype: str | None = None
    wpath: str | None = None

    schemes: ClassVar[tuple[str, ...]] = ("wais",)
    DEFAULT_PORT: ClassVar[int | None] = 210

    @classmethod
    def from_text(cls, text: str, *, scheme: str, rest: str, strict: bool = True) -> WAISURL:
        return cls._parse_at(text, len(text) - len(rest), scheme, strict)

    @classmethod
    def _parse_at(cls, text: str, start: int, scheme: str, strict: bool) -> WAISURL:
        url = _waisurl_from_match(
            cls, (_FAST.get() if strict else _LAX.get()).fullmatch(text, start), text, start, scheme
        )
        return cls._parse_slow(text, start, scheme, strict) if url is None else url

    @classmethod
    def _parse_default(cls, text: str, start: int, scheme: str) -> WAISURL | None:
        return _waisurl_from_match(cls, _DEFAULT_MATCH(text, start), text, start, scheme)

    @classmethod
    def _parse_slow(cls, text: str, start: int, scheme: str, strict: bool) -> WAISURL:
        """Component by component: the whole grammar, and the offset of any error."""
        fields, slash, end = parse_ip_schemepart(text, start, scheme, strict, hostport_only=True)
        if slash == end:
            # Structure is checked in every reading (RFC 4156 §2 keeps §3.9's grammar).
            raise SchemeSyntaxError(
                "a wais: URL names a database after the host (§3.9)",
                component="database",
                offset=end,
            )
        dstart = slash + 1
        q = text.find("?", dstart, end)
        path_end = end if q < 0 else q
        parts = text[dstart:path_end].split("/", 2)
        offsets = [dstart]
        for p in parts[:-1]:
            offsets.append(offsets[-1] + len(p) + 1)
        if q >= 0 and len(parts) > 1:
            raise SchemeSyntaxError(
                "a wais: URL has either ?search or /wtype/wpath, not both (§3.9)",
                component="search",
                offset=q,
            )
        if len(parts) == 2:
            raise SchemeSyntaxError(
                "a wais: document URL is database/wtype/wpath (§3.9)",
                component="wpath",
                offset=path_end,
            )
        if strict:
            names = ("database", "wtype", "wpath")
            for name, part, off in zip(names, parts, offsets, strict=False):
                check(text, off, off + len(part), _BAD_UCHAR, name, "§3.9: *uchar")
            if q >= 0:
                check(text, q + 1, end, _BAD_SEARCH, "search", "§3.9")
        fields["database"] = decode(parts[0], "database", dstart)
        if len(parts) > 1:
            fields["wtype"] = decode(parts[1], "wtype", offsets[1])
            fields["wpath"] = decode(parts[2], "wpath", offsets[2]) if len(parts) > 2 else ""
        if q >= 0:
            fields["search"] = decode(text[q + 1 : end], "search", q + 1)
        return cls._make(fields)

    def __str__(self) -> str:
        out = f"{self.scheme}://{format_login(None, None, self.host, self.port)}/"
        out += quote(self.database)
        if self.wtype is not None:
            out += f"/{quote(self.wtype)}/{quote(self.wpath or '')}"
        if self.search is not None:
            out += "?" + quote(self.search, SEARCH_SAFE)
        return out + format_fragment(self.fragment)

    def components(self) -> dict[str, Any]:
        out = self.authority_json()
        out["database"] = display(self.database)
        out["search"] = None if self.search is None else display(self.search)
        out["wtype"] = None if self.wtype is None else display(self.wtype)
        out["wpath"] = None if self.wpath is None else display(self.wpath)
        return out


def _waisurl_from_match(
    cls: type[WAISURL], m: re.Match[str] | None, text: str, start: int, scheme: str
) -> WAISURL | None:
    """The URL the fast pattern's match ``m`` stands for, or None for the slow path."""
    if m is not None and grammar.escapes_ok(text, start):
        host, port, database, search, wtype, wpath, fragment = grammar.match_groups(m)
        if (port is None or len(port) < 5 or int(port) < 65536) and (
            host[0] != "[" or grammar.ipv6_ok(host)
        ):
            # the fields in order (tuple_backed): scheme, fragment, user, password, …
            return _tnew(
                cls,
                (
                    scheme,
                    fragment,
                    None,
                    None,
                    host,
                    int(port) if port else None,
                    decode(database) if "%" in database else database,
                    decode(search) if search and "%" in search else search,
                    decode(wtype) if wtype and "%" in wtype else wtype,
                    decode(wpath) if wpath and "%" in wpath else wpath,
                ),
            )
    return None
