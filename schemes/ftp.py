"""ftp: URLs (§3.2).

::

    ftpurl  = "ftp://" login [ "/" fpath [ ";type=" ftptype ]]
    fpath   = fsegment *[ "/" fsegment ]
    fsegment = *[ uchar | "?" | ":" | "@" | "&" | "=" ]
    ftptype = "A" | "I" | "D" | "a" | "i" | "d"

The url-path is kept as the RFC means it (§3.2.2): each ``<cwd>`` segment, decoded, is the
argument of one CWD command, in order.  ``%2F`` inside a segment stays data (it becomes a "/"
inside one CWD argument), and empty segments are kept: ``ftp://host//etc/motd`` has
``cwd == ("", "etc")`` — a null-argument ``CWD`` first.
"""

from __future__ import annotations

from . import grammar, precompiled
from .authority import format_fragment, format_login, parse_ip_schemepart
from .base import InternetURL, _tnew, class_constants, tuple_backed
from .errors import SchemeSyntaxError
from .percent import Decoded, LazilyDecoded, char_error, decode, display, quote
from .records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from typing import Any, ClassVar, Final

# fpath with "/" allowed between segments: the first bad character of the whole url-path.
_BAD_FPATH = grammar.lazy_bad_char(grammar.FSEGMENT + "/")
#: Reserved characters a segment may carry unencoded (";" and "/" are encoded, §3.2.2).
#: Left raw in a segment: RFC 1738's fsegment allows "?" too, but RFC 3986 §3.3 reads a raw
#: "?" as the start of a query, so ``str()`` escapes it (it decodes the same either way).
SEGMENT_SAFE = ":@&="
_TYPECODES = {"a": "a", "i": "i", "d": "d", "A": "a", "I": "i", "D": "d"}


# ftpurl = "ftp://" login [ "/" fpath [ ";type=" ftptype ]]     (the fast path, see grammar)
_PATTERN = (
    "//"
    + grammar.LOGIN_FAST
    + rf"(?:/({grammar.fast(grammar.FSEGMENT + '/')})(?:;[Tt][Yy][Pp][Ee]=([AIDaid]))?)?"
    + grammar.FRAGMENT_FAST
)
_FAST = grammar.Lazy(_PATTERN)  # (the strict reading: compiled on first use)
#: The lenient reading's (RFC 3986 characters: "~"; no "?" in a login).
_LAX = grammar.Lazy(grammar.lax(_PATTERN))  # (compiled on first use)
# The default reading's (``_parse_default``): RFC 3986's hosts and empty ports, and ";" in
# a segment (RFC 3986 §3.3: a sub-delim; data in its CWD argument, as the general way reads
# it), the ";type=" at the end then read from the path (the typecode group never matches).
_DEFAULT_PATTERN = (
    "//"
    + grammar.LOGIN_FAST
    + rf"(?:/({grammar.fast(grammar.FSEGMENT + ';/')})(?:(?!)())?)?"
    + grammar.FRAGMENT_FAST
)
_DEFAULT = grammar.Lazy(grammar.default(_DEFAULT_PATTERN))  # (a URL with "@": on first use)
#: The same for a URL without "@" (its host scanned once: grammar.without_login).
_DEFAULT_HOST = precompiled.compile(grammar.default(grammar.without_login(_DEFAULT_PATTERN)))
_DEFAULT_HOST_MATCH: Final = _DEFAULT_HOST.fullmatch  # (a static: see grammar.match_groups)


@tuple_backed
@record(frozen=True, kw_only=True)
@class_constants
class FTPURL(InternetURL):
    """``ftp://user:password@host:port/cwd1/cwd2/name;type=typecode`` (§3.2)."""

    #: The decoded ``<cwd>`` segments, one CWD each (empty ones kept: a null-argument CWD).
    cwd: tuple[str, ...] = ()
    #: The decoded ``<name>`` (RETR, or NLST with typecode "d"); "" when absent.
    name: str = ""
    #: "a", "i" or "d" (lower case), or None when ``;type=`` is absent (§3.2.3: guess).
    typecode: str | None = None

    schemes: ClassVar[tuple[str, ...]] = ("ftp",)
    DEFAULT_PORT: ClassVar[int | None] = 21

    @classmethod
    def from_text(cls, text: str, *, scheme: str, rest: str, strict: bool = True) -> FTPURL:
        return cls._parse_at(text, len(text) - len(rest), scheme, strict)

    @classmethod
    def _parse_at(cls, text: str, start: int, scheme: str, strict: bool) -> FTPURL:
        url = _ftpurl_from_match(
            cls,
            (_FAST.get() if strict else _LAX.get()).fullmatch(text, start),
            text,
            start,
            scheme,
        )
        return cls._parse_slow(text, start, scheme, strict) if url is None else url

    @classmethod
    def _parse_default(cls, text: str, start: int, scheme: str) -> FTPURL | None:
        m = (
            _DEFAULT.get().fullmatch(text, start)
            if "@" in text
            else _DEFAULT_HOST_MATCH(text, start)
        )
        return _ftpurl_from_match(cls, m, text, start, scheme)

    @classmethod
    def _parse_slow(cls, text: str, start: int, scheme: str, strict: bool) -> FTPURL:
        """Component by component: the whole grammar, and the offset of any error."""
        fields, slash, end = parse_ip_schemepart(text, start, scheme, strict)
        if slash < end:
            path_start = slash + 1
            path_end = end
            # ";type=" ftptype  (a BNF literal: case-insensitive, RFC 822 conventions)
            if end - path_start >= 7 and text[end - 7] == ";":
                tag = text[end - 6 : end - 1].lower()
                code = _TYPECODES.get(text[end - 1])
                if tag == "type=" and code is not None:
                    fields["typecode"] = code
                    path_end = end - 7
                elif tag == "type=":  # refused in lenient mode too: never guess a typecode
                    raise SchemeSyntaxError(
                        f"typecode {text[end - 1]!r} is not a, i or d (§3.2.2)",
                        component="typecode",
                        offset=end - 1,
                    )
            if strict:
                m = _BAD_FPATH.search(text, path_start, path_end)
                if m is not None:
                    raise _segment_error(text, path_start, path_end, m.start())
            segments = text[path_start:path_end].split("/")
            offset = path_start
            decoded = []
            for seg in segments:
                decoded.append(decode(seg, "path", offset) if "%" in seg else seg)
                offset += len(seg) + 1
            fields["name"] = decoded.pop()
            fields["cwd"] = tuple(decoded)
        return cls._make(fields)

    def __str__(self) -> str:
        path = "/".join([quote(s, SEGMENT_SAFE) for s in (*self.cwd, self.name)])
        out = f"{self.scheme}://{format_login(self.user, self.password, self.host, self.port)}/"
        out += path
        if self.typecode is not None:
            out += ";type=" + self.typecode
        return out + format_fragment(self.fragment)

    def components(self) -> dict[str, Any]:
        out = self.authority_json()
        out["cwd"] = [display(s) for s in self.cwd]
        out["name"] = display(self.name)
        out["typecode"] = self.typecode
        return out


def _ftpurl_from_match(
    cls: type[FTPURL], m: re.Match[str] | None, text: str, start: int, scheme: str
) -> FTPURL | None:
    """The URL the fast pattern's match ``m`` stands for, or None for the slow path."""
    if m is not None and grammar.escapes_ok(text, start):
        groups = grammar.match_groups(m)
        if len(groups) == 5:  # (grammar.without_login's pattern: no user, no password)
            user = password = None
            host, port, path, typecode, fragment = groups
        else:
            user, password, host, port, path, typecode, fragment = groups
        if (port is None or len(port) < 5 or int(port) < 65536) and (
            host[0] != "[" or grammar.ipv6_ok(host)
        ):
            if (  # (the default pattern's ";": see above)
                path is not None
                and ";" in path
                and len(path) >= 7
                and path[-7] == ";"
                and path[-6:-1].lower() == "type="
            ):
                typecode = _TYPECODES.get(path[-1])
                if typecode is None:
                    return None  # not a, i or d: the general way says so
                path = path[:-7]
            cwd: Any
            name: Any
            if path is not None and "%" in path and path.isascii():
                # The name and the cwd segments kept as written, decoded when first read
                # (percent.Decoded, _Cwd): the same text to every reader.  Why: decoding
                # them was ~15-20% of an FTP URL's parse with escapes (compiled), the
                # family of benchmarks/parse_bench.py nearest urlsplit's rate (0.98-1.14x).
                head, sep, last = path.rpartition("/")
                name = Decoded(last) if "%" in last else last
                cwd = () if not sep else _Cwd(head) if "%" in head else tuple(head.split("/"))
            else:
                if path is None:
                    segments = [""]
                elif "%" in path:
                    segments = _decoded_segments(path)
                else:
                    segments = path.split("/")
                name = segments.pop()
                cwd = tuple(segments)
            # scheme, fragment, user, password, host, port, cwd, name, typecode
            return _tnew(
                cls,
                (
                    scheme,
                    fragment,
                    decode(user) if user and "%" in user else user,
                    decode(password) if password and "%" in password else password,
                    host,
                    int(port) if port else None,
                    cwd,
                    name,
                    None if typecode is None else typecode.lower(),
                ),
            )
    return None


class _Cwd(LazilyDecoded):
    """An FTP URL's cwd segments as written (``a/b%20c``: ASCII, every "%" an escape),
    decoded when first read into the tuple ``FTPURL.cwd`` is; to every reader that tuple
    (as :class:`schemes.percent.Decoded` is its text)."""

    def decode_raw(self, raw: str) -> tuple[str, ...]:
        return tuple(_decoded_segments(raw))


def _decoded_segments(path: str) -> list[str]:
    """The decoded "/"-separated segments of ``path`` (escapes in it).  Decoding first and
    splitting after is the same unless an escape is a "/" (%2F stays data inside its
    segment, §3.2.2): no UTF-8 sequence holds octet 2F, so the decoder never joins octets
    across a "/"."""
    if "%2F" in path or "%2f" in path:
        return [decode(s) for s in path.split("/")]
    return decode(path).split("/")


_item: Any = tuple.__getitem__


def _cwd(url: FTPURL) -> tuple[str, ...]:
    value = _item(url, 6)
    return value.value() if isinstance(value, _Cwd) else value


def _name(url: FTPURL) -> str:
    value = _item(url, 7)
    return value.value() if isinstance(value, Decoded) else value


@tuple_backed
@record(frozen=True, kw_only=True)
@class_constants
class FTPSURL(FTPURL):
    """``ftps://…``: FTP over implicit TLS (RFC 4217 §2's "implicit" mode, port 990) — the
    syntax and meaning of §3.2 with the TLS handshake first and protected data connections.
    (Explicit TLS on an ``ftp:`` URL, ``AUTH TLS``, is the ``--ftp-ssl`` option.)"""

    schemes: ClassVar[tuple[str, ...]] = ("ftps",)
    DEFAULT_PORT: ClassVar[int | None] = 990


def _segment_error(text: str, path_start: int, path_end: int, pos: int) -> Exception:
    """Name the segment that broke: ``cwd[i]`` or ``name``."""
    index = text.count("/", path_start, pos)
    component = "name" if index == text.count("/", path_start, path_end) else f"cwd[{index}]"
    return char_error(text, pos, component, "§3.2.2: ';' and '/' inside a segment")


# (after tuple_backed, which made each field a tuple item getter: items 6 and 7 may hold a
# _Cwd or a Decoded, read through these)
for _cls in (FTPURL, FTPSURL):
    setattr(_cls, "cwd", property(_cwd, doc="The decoded cwd segments, one CWD each."))  # noqa: B010
    setattr(_cls, "name", property(_name, doc="The decoded name; '' when absent."))  # noqa: B010
