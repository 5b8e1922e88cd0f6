"""The default reading: URLs as people write them today, mapped onto RFC 1738's meanings.

RFC 1738 fixes what each scheme *means* (one ``CWD`` per segment, the Gopher selector, …);
how people *write* URLs today is RFC 3986's generic syntax, with IRIs (RFC 3987) and the
successor RFCs of each scheme (4266 gopher, 5538 news/nntp, 4248 telnet, 4156 wais, 4157
prospero, 8089 file, 6068 mailto, 6874 zone ids).  This module is the front half of that
reading; every scheme's class parser is the back half:

1. :func:`prepare` checks the text against RFC 3986 §3 / RFC 3987 §2.2 (each component's
   characters, ``%`` escapes, the authority's host and port) and names the component and
   offset of the first character that breaks it;
2. it maps the IRI to a URI (RFC 3987 §3.1): a character beyond US-ASCII in the userinfo,
   path, query or fragment becomes its UTF-8 octets, percent-encoded — what goes on the
   wire; a host is percent-decoded (RFC 3986 §3.2.2 allows ``ex%61mple.com``) and, when it
   then holds non-ASCII, converted to IDNA A-labels with UTS #46 processing (the ``idna``
   package);
3. the scheme's class parser reads the result in its non-1738 mode (``strict=False``):
   characters RFC 3986 allows but RFC 1738 calls unsafe (``~``, ``/`` and ``?`` in a query,
   an empty port, ``host?query``) are accepted *as written* and sent as written.

``Syntax.RFC1738`` skips all this and applies RFC 1738 to the letter (``--rfc1738``);
``Syntax.LENIENT`` maps (step 2) but checks no characters (``omniurl parse --lenient``: text
as found in the wild, e.g. an unencoded space, which the http parser then encodes).

The mapping keeps every ASCII character where it was, so an error the class parser raises
names an offset in the mapped text; :class:`Prepared` translates it back to the text the
person wrote.
"""

from __future__ import annotations

from enum import StrEnum
from functools import cache

from . import grammar, precompiled
from .errors import EncodingError, HostError, PortError, SchemeError, URLError

TYPE_CHECKING = False
if TYPE_CHECKING:  # (re itself is imported where a pattern is compiled: a get needs none)
    import re

__all__ = ["Prepared", "Syntax", "check_reference", "prepare"]


class Syntax(StrEnum):
    """How a URL is *written* (never where it may go: that is the safety policy's job)."""

    #: RFC 3986 generic syntax, IRIs and the successor RFCs, mapped onto RFC 1738's per-scheme
    #: meanings (the default everywhere: parse, plan, get, the API, redirects, join).
    RFC3986 = "rfc3986"
    #: RFC 1738 to the letter, with its exact error messages (``--rfc1738``).
    RFC1738 = "rfc1738"
    #: No character checks at all, for URLs quoted from real-world text (``parse --lenient``).
    LENIENT = "lenient"


# -- RFC 3986 §2 and RFC 3987 §2.2, as character-class contents ------------------------------

# unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~"                       (RFC 3986 §2.3)
_UNRESERVED = r"A-Za-z0-9\-._~"
# sub-delims = "!" / "$" / "&" / "'" / "(" / ")" / "*" / "+" / "," / ";" / "="   (§2.2)
_SUB_DELIMS = r"!$&'()*+,;="
# ucschar (RFC 3987 §2.2): the characters an IRI may hold raw beyond US-ASCII.
_UCSCHAR = (
    "\u00a0-\ud7ff\uf900-\ufdcf\ufdf0-\uffef"
    "\U00010000-\U0001fffd\U00020000-\U0002fffd\U00030000-\U0003fffd"
    "\U00040000-\U0004fffd\U00050000-\U0005fffd\U00060000-\U0006fffd"
    "\U00070000-\U0007fffd\U00080000-\U0008fffd\U00090000-\U0009fffd"
    "\U000a0000-\U000afffd\U000b0000-\U000bfffd\U000c0000-\U000cfffd"
    "\U000d0000-\U000dfffd\U000e1000-\U000efffd"
)
# iprivate (RFC 3987 §2.2): allowed in the query only.
_IPRIVATE = "\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd"
_IUNRESERVED = _UNRESERVED + _UCSCHAR
# ipchar = iunreserved / pct-encoded / sub-delims / ":" / "@"
_IPCHAR = _IUNRESERVED + _SUB_DELIMS + ":@"

_CLASSES = {
    # iuserinfo = *( iunreserved / pct-encoded / sub-delims / ":" )           (§3.2.1)
    "userinfo": _IUNRESERVED + _SUB_DELIMS + ":",
    # ireg-name = *( iunreserved / pct-encoded / sub-delims )                 (§3.2.2)
    "host": _IUNRESERVED + _SUB_DELIMS,
    # ipath-* = segments of ipchar separated by "/"                           (§3.3)
    "path": _IPCHAR + "/",
    # iquery = *( ipchar / iprivate / "/" / "?" )                             (§3.4)
    "query": _IPCHAR + _IPRIVATE + "/?",
    # ifragment = *( ipchar / "/" / "?" )                                     (§3.5)
    "fragment": _IPCHAR + "/?",
}
_SECTION = {
    "userinfo": "§3.2.1",
    "host": "§3.2.2",
    "path": "§3.3",
    "query": "§3.4",
    "fragment": "§3.5",
}

# Every pattern below is compiled on first use, not at import: the classes above with their
# astral ranges took ~9 ms to compile, and most runs parse only URLs that RFC 1738's letter
# already accepts (schemes.registry.parse asks it first) and never need them.


@cache
def _bad(name: str) -> re.Pattern[str]:
    """The first character that breaks component ``name`` (or a "%" that starts no escape)."""
    import re

    return re.compile(f"[^{_CLASSES[name]}%]|%(?![0-9A-Fa-f]{{2}})")


_NON_ASCII = grammar.Lazy(r"[^\x00-\x7f]+")  # (IRIs only: compiled on first use)


@cache
def _fast() -> re.Pattern[str]:
    """The common case in one match: ASCII, a reg-name host without escapes, every "%"
    checked afterwards.  Such a URL needs no mapping at all (~0.4 µs; the component walk is
    ~3 µs)."""
    import re

    p = rf"[{_UNRESERVED}{_SUB_DELIMS}:@%/]"
    return re.compile(
        rf"[A-Za-z0-9+\-.]++:"
        rf"(?://(?:[{_UNRESERVED}{_SUB_DELIMS}:%]*+@)?[{_UNRESERVED}{_SUB_DELIMS}]*+(?::[0-9]*+)?"
        rf"(?:/{p}*+)?|(?!//){p}*+)"
        rf"(?:\?[{_UNRESERVED}{_SUB_DELIMS}:@%/?]*+)?(?:#[{_UNRESERVED}{_SUB_DELIMS}:@%/?]*+)?"
    )


_STRAY_PERCENT = precompiled.compile(r"%(?![0-9A-Fa-f]{2})")
# scheme ":" at the start of a reference (RFC 3986 §3.1 and §4.2)
_SCHEME_PREFIX = grammar.Lazy(r"[A-Za-z][A-Za-z0-9+\-.]*:")  # (on first use)
# IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )          (§3.2.2)
_IPVFUTURE = rf"[vV][0-9A-Fa-f]+\.[{_UNRESERVED}{_SUB_DELIMS}:]+"
# ZoneID = 1*( unreserved / pct-encoded )                                    (RFC 6874 §2)
_ZONE_ID = rf"(?:[{_UNRESERVED}]|%[0-9A-Fa-f]{{2}})+"


class Prepared:
    """The URI a text stands for, and how its offsets map back to the text.

    (A plain class with slots, native where mypyc compiles this module: a frozen dataclass's
    creation cost ~0.6 ms CPU of every ``omniurl`` start, as every command imports this
    module, and a ``NamedTuple`` imports :mod:`typing`, ~3-5 ms; it is read, never
    compared.)"""

    __slots__ = ("shifts", "text")

    def __init__(self, text: str, shifts: tuple[tuple[int, int], ...] = ()) -> None:
        self.text = text
        #: ``(offset in text, offset in the original)`` at each place the mapping changed
        #: length.
        self.shifts = shifts

    def original_offset(self, offset: int | None) -> int | None:
        """The offset in the text as written for ``offset`` in :attr:`text`."""
        if offset is None or not self.shifts:
            return offset
        base_out, base_in = 0, 0
        for out_pos, in_pos in self.shifts:
            if out_pos > offset:
                # Inside a piece that changed length (an IRI character's escapes, an IDNA
                # label): blame the piece's start, never a place past its end.
                if out_pos - base_out != in_pos - base_in:
                    return base_in
                break
            base_out, base_in = out_pos, in_pos
        return base_in + max(0, offset - base_out)

    def restate(self, exc: URLError) -> URLError:
        """``exc`` with its offset moved back to the text as written."""
        offset = getattr(exc, "offset", None)
        moved = self.original_offset(offset)
        if moved == offset:
            return exc
        out = type(exc)(exc.message, component=exc.component, offset=moved)
        out.__cause__ = exc.__cause__
        return out


def is_plain(text: str) -> bool:
    """Whether ASCII ``text`` is an RFC 3986 URI that needs no mapping: a reg-name host
    without escapes, every "%" an escape, no "?" that could sit in a userinfo (one match,
    ~0.4 µs; the component walk is ~3 µs)."""
    return (
        _fast().fullmatch(text) is not None
        and ("%" not in text or _STRAY_PERCENT.search(text) is None)
        and ("?" not in text or "@" not in text)  # (a "?" in a userinfo: see _Walk.run)
    )


def prepare(
    text: str, colon: int, *, check: bool = True, opaque_host: bool = False, plain: bool = True
) -> Prepared:
    """Check ``text`` (its scheme ends at ``colon``) and map it to a URI (see the module).

    ``check=False`` maps without checking characters (the lenient reading).
    ``opaque_host``: the scheme is not one omniurl knows, so its reg-name is only checked
    against RFC 3986 §3.2.2 (``pct-encoded`` allowed, kept as written; non-ASCII as UTF-8
    escapes, RFC 3987 §3.1) — never decoded nor turned into IDNA labels, which assume DNS.
    ``plain=False``: the caller already found :func:`is_plain` false for ``text``.
    """
    if plain and text.isascii() and is_plain(text):
        return Prepared(text)
    return _Walk(text, check, opaque_host).run(colon)


def default_text(text: str, colon: int) -> str | None:
    """The URI a text stands for, for the default reading's one match (schemes.fastparse),
    or None when the component walk must answer (:func:`prepare`: it names every error).

    Only the mappings a one-match pattern cannot make, and only where the text is what
    :func:`prepare` would map it to when it accepts it: a percent-encoded registered name
    decoded (RFC 3986 §3.2.2; ``http://HO0_-st%41/``, WPT's and curl's tests) when it
    decodes to ASCII that may stand in a host (:func:`_decode_host`'s rule), and every
    character beyond US-ASCII outside the host — a path, query, fragment or userinfo typed
    in UTF-8 — as its percent-encoded UTF-8 octets (RFC 3987 §3.1 step 2) when it is a
    ``ucschar`` (RFC 3987 §2.2; ``iprivate``, a query's only, is left to the walk).  The
    walk checks each component's characters first; here the class's default pattern checks
    the mapped text's instead, and it takes only characters RFC 3986 allows where they
    stand: so a text either maps to what the walk would give, or the pattern refuses it and
    the walk names the fault.  A host holding non-ASCII is IDNA's (the walk's
    :func:`_idna`): None.  (Loops of ``ord``, compiled: ``re`` and the walk's helpers cost
    more than the match.)
    """
    out = text
    # "[" and "]" stand only around an IP literal host (RFC 3986 §3.2.2); the walk refuses
    # them anywhere else, where a class's pattern may take them (a news: message-id's
    # domain literal, ``news:x@[::1]``, which RFC 1738's parser reads in an ASCII text)
    brackets = text.count("[") + text.count("]")
    if text.startswith("//", colon + 1):
        auth_start = colon + 3
        end = len(text)
        hash_at = text.find("#", auth_start)
        body_end = end if hash_at < 0 else hash_at
        q = text.find("?", auth_start, body_end)
        query_at = body_end if q < 0 else q
        slash = text.find("/", auth_start, query_at)
        auth_end = query_at if slash < 0 else slash
        at = text.rfind("@", auth_start, auth_end)
        host_start = auth_start if at < 0 else at + 1
        if text.startswith("[", host_start):
            close = text.find("]", host_start, auth_end)
            if close < 0 or brackets != 2 or not text[host_start:close].isascii():
                return None
        elif brackets:
            return None
        else:
            port_at = text.rfind(":", host_start, auth_end)
            host_end = auth_end if port_at < 0 else port_at
            if not text[host_start:host_end].isascii():
                return None
            if text.find("%", host_start, host_end) >= 0:
                name = _ascii_name(text, host_start, host_end)
                if name is None:
                    return None
                out = text[:host_start] + name + text[host_end:]
    elif brackets:
        return None
    if not out.isascii():
        pieces: list[str] = []
        pos = 0
        i = 0
        n = len(out)
        while i < n:
            if ord(out[i]) < 128:
                i += 1
                continue
            j = i
            while j < n:
                cp = ord(out[j])
                if cp < 128:
                    break
                if not _ucschar(cp):
                    return None
                j += 1
            pieces.append(out[pos:i])
            pieces.append("%" + out[i:j].encode("utf-8").hex("%").upper())
            pos = i = j
        pieces.append(out[pos:])
        out = "".join(pieces)
    return None if out is text else out


#: What a decoded registered name may not hold (:func:`_decode_host`'s rule, ASCII).
_NOT_IN_NAME = '%:/?#@[]\\"<>^`{|}'


def _ascii_name(text: str, start: int, end: int) -> str | None:
    """``text[start:end]``, a registered name with escapes, decoded when every escape is
    two hex digits standing for an ASCII character :func:`_decode_host` lets stand in a
    host; else None (non-ASCII octets are UTF-8 for IDNA, the rest errors: the walk's)."""
    pieces: list[str] = []
    pos = start
    i = text.find("%", start, end)
    while i >= 0:
        if i + 2 >= end:
            return None
        hi = _hex_value(ord(text[i + 1]))
        lo = _hex_value(ord(text[i + 2]))
        if hi < 0 or lo < 0:
            return None
        c = hi * 16 + lo
        if c <= 32 or c >= 127:
            return None
        ch = chr(c)
        if ch in _NOT_IN_NAME:
            return None
        pieces.append(text[pos:i])
        pieces.append(ch)
        pos = i + 3
        i = text.find("%", pos, end)
    pieces.append(text[pos:end])
    return "".join(pieces)


def _hex_value(c: int) -> int:
    """The value of hex digit ``c`` (a code point), or -1."""
    if 48 <= c <= 57:
        return c - 48
    if 65 <= c <= 70:
        return c - 55
    if 97 <= c <= 102:
        return c - 87
    return -1


def _ucschar(cp: int) -> bool:
    """Whether code point ``cp`` (beyond US-ASCII) is RFC 3987 §2.2's ``ucschar``
    (:data:`_UCSCHAR`, as ranges): no controls, surrogates, private use or noncharacters."""
    if cp <= 0xFFFF:
        return 0xA0 <= cp <= 0xD7FF or 0xF900 <= cp <= 0xFDCF or 0xFDF0 <= cp <= 0xFFEF
    return (cp & 0xFFFF) <= 0xFFFD and cp <= 0xEFFFD and not 0xE0000 <= cp <= 0xE0FFF


def check_reference(text: str, component: str) -> None:
    """Check a URI reference (RFC 3986 §4.1: ``URI-reference = URI / relative-ref``) and
    raise the :class:`URLError` of its first fault, with ``component`` (``"base"`` or
    ``"reference"``) and the offset in ``text``; the message names the part (§3.2-§3.5).

    Purely syntactic: hosts are checked as reg-names, IP literals as RFC 3986 / RFC 6874
    say, ports as digits; IRI characters (RFC 3987) are allowed, as :func:`prepare` allows
    them.  A relative-path reference whose first segment holds ":" is refused (§4.2:
    ``path-noscheme``; write ``./a:b``), since it reads as a scheme.
    """
    colon = -1
    m = _SCHEME_PREFIX.match(text)
    if m is not None:
        colon = m.end() - 1
    else:
        end = len(text)
        for delimiter in "/?#":
            cut = text.find(delimiter)
            if 0 <= cut < end:
                end = cut
        first_colon = text.find(":", 0, end)
        if first_colon >= 0:
            name = text[:first_colon]
            what = f"{name!r} before ':' is not a scheme name" if name else "no scheme name"
            raise SchemeError(
                f"{what}; a relative path whose first segment holds ':' must start with "
                "'./' (RFC 3986 §4.2)",
                component=component,
                offset=first_colon,
            )
    try:
        _Walk(text, True, True).run(colon)
    except URLError as exc:
        part = exc.component or "text"
        out = type(exc)(f"in the {part}: {exc.message}", component=component, offset=exc.offset)
        raise out from None


class _Walk:
    """RFC 3986 §3's split of one URL, checking and mapping each component in turn."""

    def __init__(self, text: str, check: bool, opaque_host: bool = False) -> None:
        self.text = text
        self.check = check
        self.opaque_host = opaque_host
        self.out: list[str] = []
        self.out_len = 0
        self.shifts: list[tuple[int, int]] = []

    def emit(self, piece: str, source_end: int, *, source_start: int) -> None:
        if len(piece) != source_end - source_start:
            # A piece that changes length starts where it starts in both texts: an offset
            # inside it (a host's error: "%31.%32.3.256") is blamed on the piece's start,
            # not on the start of the text or of an earlier piece (Prepared.original_offset).
            start = (self.out_len, source_start)
            if start != (self.shifts[-1] if self.shifts else (0, 0)):
                self.shifts.append(start)
        self.out.append(piece)
        self.out_len += len(piece)
        if len(piece) != source_end - source_start or self.shifts:
            self.shifts.append((self.out_len, source_end))

    def run(self, colon: int) -> Prepared:
        text = self.text
        end = len(text)
        hash_at = text.find("#", colon + 1)
        body_end = end if hash_at < 0 else hash_at
        q = text.find("?", colon + 1, body_end)
        query_at = body_end if q < 0 else q
        self.emit(text[: colon + 1], colon + 1, source_start=0)
        pos = colon + 1
        if text.startswith("//", pos):
            auth_start = pos + 2
            slash = text.find("/", auth_start, query_at)
            auth_end = query_at if slash < 0 else slash
            if (
                auth_end == q
                and not self.opaque_host
                and text.find("@", q, body_end if slash < 0 else slash) >= 0
            ):
                # RFC 1738 lets a user or password hold "?"; RFC 3986 ends the authority
                # there.  Refuse rather than read one way here and the other in the scheme
                # (a scheme omniurl does not know has no RFC 1738 reading: "?" ends it).
                raise EncodingError(
                    "'?' in a user name or password is written %3F (RFC 3986 §3.2.1: a "
                    "raw '?' ends the authority)",
                    component="user" if text.find(":", auth_start, q) < 0 else "password",
                    offset=q,
                )
            self.emit("//", auth_start, source_start=pos)
            self.authority(auth_start, auth_end)
            pos = auth_end
        self.component("path", pos, query_at)
        if query_at < body_end:
            self.emit("?", query_at + 1, source_start=query_at)
            self.component("query", query_at + 1, body_end)
        if hash_at >= 0:
            self.emit("#", hash_at + 1, source_start=hash_at)
            self.component("fragment", hash_at + 1, end)
        return Prepared("".join(self.out), tuple(self.shifts))

    def component(self, name: str, start: int, end: int) -> None:
        """Check ``text[start:end]`` as component ``name``; emit it, IRI characters encoded."""
        text = self.text
        if self.check:
            m = _bad(name).search(text, start, end)
            if m is not None:
                error = _char_error(text, m.start(), name)
                if name == "userinfo":  # RFC 1738's names for its two halves
                    colon = text.find(":", start, m.start())
                    error.component = "user" if colon < 0 else "password"
                raise error
        piece = text[start:end]
        if piece.isascii():
            self.emit(piece, end, source_start=start)
            return
        # Run by run, so that an offset inside the component maps back exactly.
        pos = start
        for m in _NON_ASCII.finditer(text, start, end):
            if m.start() > pos:
                self.emit(text[pos : m.start()], m.start(), source_start=pos)
            self.emit(_encode_non_ascii(m.group()), m.end(), source_start=m.start())
            pos = m.end()
        if pos < end:
            self.emit(text[pos:end], end, source_start=pos)

    def authority(self, start: int, end: int) -> None:
        """``authority = [ userinfo "@" ] host [ ":" port ]`` (§3.2)."""
        text = self.text
        at = text.rfind("@", start, end)
        host_start = start
        if at >= 0:
            self.component("userinfo", start, at)
            self.emit("@", at + 1, source_start=at)
            host_start = at + 1
        if text.startswith("[", host_start):
            close = text.find("]", host_start, end)
            if close < 0:
                raise HostError(
                    "'[' opens an IP literal that is never closed (RFC 3986 §3.2.2)",
                    component="host",
                    offset=host_start,
                )
            host_end = close + 1
            if self.check:
                check_ip_literal(text, host_start, host_end)
            self.emit(text[host_start:host_end], host_end, source_start=host_start)
        else:
            colon = text.rfind(":", host_start, end)
            host_end = end if colon < 0 else colon
            self.emit(self.reg_name(host_start, host_end), host_end, source_start=host_start)
        if host_end < end:
            if text[host_end] != ":":
                raise HostError(
                    "only ':port' may follow an IP literal (RFC 3986 §3.2.2)",
                    component="host",
                    offset=host_end,
                )
            port_at = host_end + 1
            for i in range(port_at, end):
                if not ("0" <= text[i] <= "9"):
                    raise PortError(
                        f"the port {text[port_at:end]!r} is not a decimal number (RFC 3986 §3.2.3)",
                        component="port",
                        offset=i,
                    )
            self.emit(text[host_end:end], end, source_start=host_end)

    def reg_name(self, start: int, end: int) -> str:
        """A registered name: percent-decoded, then IDNA A-labels when it holds non-ASCII."""
        text = self.text
        if self.check:
            m = _bad("host").search(text, start, end)
            if m is not None:
                if text[m.start()] == ":":
                    # host:port:... or an IPv6 address without its brackets
                    raise HostError(
                        "a host holds no ':' (RFC 3986 §3.2.2: one ':port' of digits may "
                        "follow it; an IPv6 address is written in '[ ]')",
                        component="host",
                        offset=m.start(),
                    )
                raise _char_error(text, m.start(), "host")
        host = text[start:end]
        if self.opaque_host:
            return host if host.isascii() else _encode_non_ascii(host)
        if "%" in host:
            host = _decode_host(text, start, end)
        if not host.isascii():
            host = _idna(host, start)
        return host


def map_iri_host(text: str, colon: int) -> str | None:
    """The URI :func:`prepare` maps ``text`` to, where ``text``'s only characters beyond
    US-ASCII are in its registered name (``https://bücher.example/x``): the same split
    (:class:`_Walk`), the host checked as ``_Walk.reg_name`` checks it and replaced by its
    A-labels; None for every other text, and wherever the general way would refuse it.

    Why: such a URL is then read by the class's one-match default reading (schemes.fastparse)
    instead of the general way's walk (~10 µs of the ~14 µs its parse cost, docs/speed.md
    *seventh round (IDN hosts)*).  The default reading of the mapped text is what the general
    way gives for it (tests/test_parse_fast_default.py), which is what it gives for ``text``:
    its other components are the same ASCII characters, checked alike."""
    pos = colon + 1
    if not text.startswith("//", pos):
        return None
    end = len(text)
    hash_at = text.find("#", pos)
    body_end = end if hash_at < 0 else hash_at
    q = text.find("?", pos, body_end)
    query_at = body_end if q < 0 else q
    auth_start = pos + 2
    slash = text.find("/", auth_start, query_at)
    auth_end = query_at if slash < 0 else slash
    if auth_end == q and text.find("@", q, body_end if slash < 0 else slash) >= 0:
        return None  # ('?' in a userinfo: _Walk.run's refusal)
    at = text.rfind("@", auth_start, auth_end)
    host_start = auth_start if at < 0 else at + 1
    if text.startswith("[", host_start):
        return None
    port_colon = text.rfind(":", host_start, auth_end)
    host_end = auth_end if port_colon < 0 else port_colon
    head = text[:host_start]
    tail = text[host_end:]
    host = text[host_start:host_end]
    if not (head.isascii() and tail.isascii()) or host.isascii() or "%" in host:
        return None
    if _bad("host").search(text, host_start, host_end) is not None:
        return None
    from .uts46 import to_ascii

    try:
        return head + to_ascii(host) + tail
    except (UnicodeError, ValueError):
        return None


def check_ip_literal(text: str, start: int, end: int) -> None:
    """``IP-literal = "[" ( IPv6address / IPv6addrz / IPvFuture ) "]"`` (RFC 3986 §3.2.2,
    RFC 6874 §2: ``IPv6addrz = IPv6address "%25" ZoneID``).

    The grammar puts a zone after any IPv6 address, so any parses (``http://[::1%25lo]/``).
    Which addresses a *connection* may use one with is the policy's question, not syntax's:
    a zone selects an interface only for a non-global scope (RFC 4007 §6), and
    ``resolvers.policy.check_zone`` refuses it on a global address before anything is sent.
    """
    import ipaddress
    import re

    inner = text[start + 1 : end - 1]
    if re.fullmatch(_IPVFUTURE, inner):
        return
    address, sep, zone = inner.partition("%25")
    try:
        ipaddress.IPv6Address(address)
    except ValueError:
        raise HostError(
            f"{text[start:end]!r} is not an IPv6 address literal (RFC 3986 §3.2.2)",
            component="host",
            offset=start,
        ) from None
    if "%" in address:
        raise HostError(
            "a zone id is written '%25' and its name (RFC 6874 §2)",
            component="host",
            offset=text.index("%", start),
        )
    if sep:
        zone_at = start + 1 + len(address) + 3
        if not re.fullmatch(_ZONE_ID, zone):
            raise HostError(
                "a zone id is unreserved characters or %XX escapes (RFC 6874 §2)",
                component="host",
                offset=zone_at,
            )


def _decode_host(text: str, start: int, end: int) -> str:
    """A percent-encoded registered name, decoded (RFC 3986 §3.2.2: UTF-8 octets).

    The decoded name is the host every reader gets and ``str()`` writes raw, so one holding
    an ASCII character RFC 3986 allows nowhere raw (``"<>^`{|}``, or a delimiter, a control,
    a space) is refused: written back it would not parse (``http://a"b/``), and it names no
    host DNS could hold (RFC 1034 §3.5).  Beyond US-ASCII it holds what the raw IRI's host
    may (RFC 3987 §3.1: the two are one URI), then goes to IDNA as the raw one does."""
    from .percent import unquote_to_bytes

    raw = unquote_to_bytes(text[start:end])
    try:
        host = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise HostError(
            "a percent-encoded host name must be UTF-8 (RFC 3986 §3.2.2)",
            component="host",
            offset=start,
        ) from None
    for ch in host:
        if (
            not ch.isprintable() or ch <= " " or ch in '%:/?#@[]\\\x7f"<>^`{|}'
            if ch.isascii()
            # (beyond US-ASCII: what an IRI's host may hold raw, RFC 3987 §2.2's ucschar;
            # IDNA then judges it as it judges the raw character — a soft hyphen, which
            # UTS #46 ignores, was refused here and read away when raw)
            else not _ucschar(ord(ch))
        ):
            raise HostError(
                f"the host decodes to {host!r}, and {ch!r} cannot appear in a host name",
                component="host",
                offset=start,
            )
    return host


def _idna(host: str, offset: int) -> str:
    """UTS #46 processing and IDNA 2008 A-labels (what DNS and every protocol send): the
    ``idna`` package's answers and refusals, the common label computed by
    :mod:`schemes.uts46` (compiled; idna's own code for the rare rules and every error)."""
    from .uts46 import to_ascii

    try:
        return to_ascii(host)
    except (UnicodeError, ValueError) as exc:  # (idna.IDNAError is a UnicodeError)
        raise HostError(
            f"{host!r} is not a valid internationalized domain name ({exc})",
            component="host",
            offset=offset,
        ) from None


def _encode_non_ascii(piece: str) -> str:
    """RFC 3987 §3.1 step 2: each run of non-ASCII characters as percent-encoded UTF-8."""
    return _NON_ASCII.sub(
        lambda m: "".join(f"%{b:02X}" for b in m.group().encode("utf-8", "surrogateescape")),
        piece,
    )


def _char_error(text: str, pos: int, component: str) -> URLError:
    """The error for ``text[pos]`` in ``component``, saying how to write it instead."""
    ch = text[pos]
    rule = f"RFC 3986 {_SECTION[component]}"
    if ch == "%":
        return EncodingError(
            f"'%' must start an escape of two hex digits, e.g. %25 for '%' itself ({rule})",
            component=component,
            offset=pos,
        )
    octets = ch.encode("utf-8", "surrogateescape")
    encoded = "".join(f"%{b:02X}" for b in octets)
    if ch.isascii() and ch.isprintable() and ch != " ":
        what = f"{ch!r} cannot appear in the {component}; encode it as {encoded}"
    else:
        what = f"character {ch!r} cannot appear in the {component}; encode it as {encoded}"
    return EncodingError(f"{what} ({rule})", component=component, offset=pos)
