"""gopher: URLs, Gopher+ included (§3.4).

::

    gopherurl = "gopher://" hostport [ / [ gtype [ selector
                [ "%09" search [ "%09" gopher+_string ] ] ] ] ]
    gtype     = xchar
    selector  = *xchar
    gopher+_string = *xchar

"Within the <gopher-path>, no characters are reserved" (§3.4.1): "?", ";", "/" and the rest
are selector data — only an encoded tab (``%09``) separates the selector from the search and
the search from the Gopher+ string.  Everything is decoded: the selector is the octets sent
to the server.  A selector or search may not hold CR or LF (they would end the request line,
RFC 1436); the Gopher+ string may (an ASK form's answers, §3.4.9), and it is everything after
the second ``%09``, tabs included.

When the search is empty, RFC 1738 (§3.4.3) sends "selector TAB TAB gopher+"; the last draft
(draft-ietf-uri-url-07 §3.4.3) sends the search "optionally ... (if the element is not
empty)".  Which is sent is the planner's choice; the parser keeps ``search == ""`` apart from
``search is None``.
"""

from __future__ import annotations

from . import grammar, precompiled
from .authority import format_fragment, format_login, parse_ip_schemepart
from .base import InternetURL, _tnew, class_constants, tuple_backed
from .errors import SchemeSyntaxError
from .percent import Decoded as _Decoded
from .percent import check, decode, display, quote, to_octets
from .records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from typing import Any, ClassVar, Final

_BAD_XCHARS = grammar.lazy_bad_char(grammar.XCHAR)
_TAB = grammar.Lazy(r"%09|\t")  # (each compiled on first use)
_CRLF = grammar.Lazy(r"%0[DdAa]|[\r\n]")
#: In a gopher-path no character is reserved (§3.4.1): reserved ones stay unencoded.
PATH_SAFE = grammar.RESERVED


# gopherurl = "gopher://" hostport [ / [ gtype [ selector [ "%09" search ... ] ] ] ]  (fast path)
_PATTERN = (
    "//" + grammar.HOSTPORT_FAST + f"(?:/({grammar.fast(grammar.XCHAR)}))?" + grammar.FRAGMENT_FAST
)
_FAST = grammar.Lazy(_PATTERN)  # (the strict reading: compiled on first use)
#: The default reading's (RFC 3986 characters: "~"; no "?" in a login).
_LAX = grammar.Lazy(grammar.lax(_PATTERN))  # (the lenient reading's: on first use)
#: The default reading's (``_parse_default``): RFC 3986's hosts and empty ports besides.
_DEFAULT = precompiled.compile(grammar.default(_PATTERN))


#: The default reading's matches as bound methods (statics, compiled: see grammar.match_groups).
_DEFAULT_MATCH: Final = _DEFAULT.fullmatch


@tuple_backed
@record(frozen=True, kw_only=True)
@class_constants
class GopherURL(InternetURL):
    """``gopher://host:port/<gtype><selector>%09<search>%09<gopher+_string>`` (§3.4)."""

    #: The Gopher item type, one character; "1" (a menu) when the gopher-path is empty.
    gtype: str = "1"
    #: The decoded selector string (may be empty: the server's top menu).
    selector: str = ""
    #: The decoded search string after the first ``%09``; None when absent.
    search: str | None = None
    #: The decoded Gopher+ string after the second ``%09`` (e.g. "+", "!", "$",
    #: "+application/postscript Es_ES"); None for a plain Gopher item.
    gopher_plus: str | None = None

    schemes: ClassVar[tuple[str, ...]] = ("gopher",)
    DEFAULT_PORT: ClassVar[int | None] = 70

    @classmethod
    def from_text(cls, text: str, *, scheme: str, rest: str, strict: bool = True) -> GopherURL:
        return cls._parse_at(text, len(text) - len(rest), scheme, strict)

    @classmethod
    def _parse_at(cls, text: str, start: int, scheme: str, strict: bool) -> GopherURL:
        url = _gopherurl_from_match(
            cls, (_FAST.get() if strict else _LAX.get()).fullmatch(text, start), text, start, scheme
        )
        return cls._parse_slow(text, start, scheme, strict) if url is None else url

    @classmethod
    def _parse_default(cls, text: str, start: int, scheme: str) -> GopherURL | None:
        return _gopherurl_from_match(cls, _DEFAULT_MATCH(text, start), text, start, scheme)

    @classmethod
    def _parse_slow(cls, text: str, start: int, scheme: str, strict: bool) -> GopherURL:
        """Component by component: the whole grammar, and the offset of any error."""
        fields, slash, end = parse_ip_schemepart(text, start, scheme, strict, hostport_only=True)
        if slash + 1 < end:
            gpos = slash + 1
            if strict:
                check(text, gpos, end, _BAD_XCHARS, "selector", "§3.4.1")
            # gtype = xchar: one character, or one escape (lenient: a stray "%" is itself)
            escaped = text[gpos] == "%" and grammar.STRAY_PERCENT.match(text, gpos, end) is None
            glen = 3 if escaped else 1
            gtype = decode(text[gpos : gpos + glen], "gtype", gpos)
            if gtype in "\t\r\n":  # (every reading: RFC 1436, RFC 4266 §2.1)
                raise SchemeSyntaxError(
                    "the gopher type cannot be a TAB, CR or LF", component="gtype", offset=gpos
                )
            if not gtype.isascii() and len(to_octets(gtype)) != 1:
                raise SchemeSyntaxError(
                    "the gopher type is one octet (RFC 1436), not a multi-octet character",
                    component="gtype",
                    offset=gpos,
                )
            fields["gtype"] = gtype
            pieces = _split_tabs(text, gpos + glen, end)
            names = ("selector", "search", "gopher_plus")
            for name, (a, b) in zip(names, pieces, strict=False):
                if name != "gopher_plus":  # (every reading: RFC 1436, RFC 4266 §2.1)
                    m = _CRLF.search(text, a, b)
                    if m is not None:
                        raise SchemeSyntaxError(
                            f"the {name} cannot hold CR or LF: they would end the request "
                            "line (RFC 1436)",
                            component=name,
                            offset=m.start(),
                        )
                fields[name] = decode(text[a:b], name, a)
        return cls._make(fields)

    def __str__(self) -> str:
        out = f"{self.scheme}://{format_login(None, None, self.host, self.port)}/"
        out += quote(self.gtype, PATH_SAFE) + quote(self.selector, PATH_SAFE)
        if self.search is not None or self.gopher_plus is not None:
            out += "%09" + quote(self.search or "", PATH_SAFE)
        if self.gopher_plus is not None:
            out += "%09" + quote(self.gopher_plus, PATH_SAFE)
        return out + format_fragment(self.fragment)

    def components(self) -> dict[str, Any]:
        out = self.authority_json()
        out["gtype"] = display(self.gtype)
        out["selector"] = display(self.selector)
        out["search"] = None if self.search is None else display(self.search)
        out["gopher_plus"] = None if self.gopher_plus is None else display(self.gopher_plus)
        return out


def _gopherurl_from_match(
    cls: type[GopherURL], m: re.Match[str] | None, text: str, start: int, scheme: str
) -> GopherURL | None:
    """The URL the fast pattern's match ``m`` stands for, or None for the slow path."""
    if m is not None and grammar.escapes_ok(text, start):
        host, port, path, fragment = grammar.match_groups(m)
        if (port is None or len(port) < 5 or int(port) < 65536) and (
            host[0] != "[" or grammar.ipv6_ok(host)
        ):
            gtype = "1"
            # (Any: a str, None or a _Decoded, which a compiled str variable would refuse)
            selector: Any = ""
            search: Any = None
            plus: Any = None
            if path:
                gtype = path[0]
                selector = path[1:]
                if "%" in path:
                    if gtype == "%":
                        return None
                    # (only a %0A or %0D escape decodes to a line end: the raw characters
                    # never match the pattern)
                    line_end = "%0A" in path or "%0D" in path or "%0a" in path or "%0d" in path
                    if not line_end and path.isascii():
                        # Split at the first two "%09" as written and each part decoded
                        # when first read (_Decoded): the same as decoding, then splitting
                        # at the tabs, since only %09 decodes to a tab (no UTF-8 sequence
                        # holds octet 09); an ASCII text's escapes decode without an error.
                        parts = selector.split("%09", 2)
                        selector = _lazy(parts[0])
                        if len(parts) > 1:
                            search = _lazy(parts[1])
                            plus = _lazy(parts[2]) if len(parts) > 2 else None
                    else:
                        # decode, then split at the first two tabs (only %09 makes a tab)
                        parts = decode(selector).split("\t", 2)
                        selector = parts[0]
                        if len(parts) > 1:
                            search = parts[1]
                            plus = parts[2] if len(parts) > 2 else None
                        if line_end and _has_line_end(selector, search):
                            return None
            # scheme, fragment, user, password, host, port, gtype, selector, search,
            # gopher_plus (tuple_backed)
            return _tnew(
                cls,
                (
                    scheme,
                    fragment,
                    None,
                    None,
                    host,
                    int(port) if port else None,
                    gtype,
                    selector,
                    search,
                    plus,
                ),
            )
    return None


def _lazy(raw: str) -> Any:
    """``raw`` decoded: itself without an escape, else a :class:`_Decoded` (decoded on first
    read).  Why: decoding the selector, search and Gopher+ string was a quarter of a Gopher
    search URL's parse (~0.9 µs of ~3.3 µs, compiled), the family of
    benchmarks/parse_bench.py that stayed near urlsplit's rate (0.99-1.09x; 1.33x since)."""
    return _Decoded(raw) if "%" in raw else raw


_item: Any = tuple.__getitem__


def _selector(url: GopherURL) -> str:
    value = _item(url, 7)
    return value.value() if isinstance(value, _Decoded) else value


def _search(url: GopherURL) -> str | None:
    value = _item(url, 8)
    return value.value() if isinstance(value, _Decoded) else value


def _gopher_plus(url: GopherURL) -> str | None:
    value = _item(url, 9)
    return value.value() if isinstance(value, _Decoded) else value


def _has_line_end(selector: str, search: str | None) -> bool:
    """CR or LF in the selector or search (the slow path names the offending escape)."""
    return (
        "\r" in selector
        or "\n" in selector
        or (search is not None and ("\r" in search or "\n" in search))
    )


def _split_tabs(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The raw spans of selector, search and gopher+ string: split at the first two tabs."""
    spans = []
    pos = start
    for _ in range(2):
        m = _TAB.search(text, pos, end)
        if m is None:
            break
        spans.append((pos, m.start()))
        pos = m.end()
    spans.append((pos, end))
    return spans


@tuple_backed
@record(frozen=True, kw_only=True)
@class_constants
class GophersURL(GopherURL):
    """``gophers://host:port/…``: Gopher over TLS, as curl and phetch speak it — the syntax
    and meaning of §3.4 with a TLS handshake first.  There is no RFC and no port of its own:
    curl, the reference client, connects to 70 as for gopher:."""

    schemes: ClassVar[tuple[str, ...]] = ("gophers",)


# (after tuple_backed, which made each field a tuple item getter: items 7, 8 and 9 may hold a
# _Decoded, read through these)
for _cls in (GopherURL, GophersURL):
    setattr(_cls, "selector", property(_selector, doc="The decoded selector string."))  # noqa: B010
    setattr(_cls, "search", property(_search, doc="The decoded search string, or None."))  # noqa: B010
    setattr(_cls, "gopher_plus", property(_gopher_plus, doc="The decoded Gopher+ string, or None."))  # noqa: B010
