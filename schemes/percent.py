"""Percent-encoding (§2.2): decode to octets, encode per component, and check.

Decoded components are ``str``.  The octets a URL encodes are decoded as UTF-8 where they are
UTF-8, and every other octet is kept as a lone surrogate (the ``surrogateescape`` error
handler), so no information is lost: :func:`to_octets` gives back exactly the octets the URL
encoded — what goes on the wire.

Encoding is per component: only alphanumerics and ``$-_.+!*'(),`` are always left alone
(§2.2); each component adds the reserved characters it may carry unencoded (see
``schemes.grammar``).  Unsafe, national and punctuation characters, controls, and octets
80-FF are always encoded.
"""

from __future__ import annotations

from _codecs import escape_decode
from functools import lru_cache

from . import grammar
from .errors import EncodingError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from re import Pattern
    from typing import Any, Final

__all__ = [
    "check",
    "check_octets",
    "decode",
    "display",
    "encode",
    "quote",
    "quote_addr_specs",
    "to_octets",
    "unquote_to_bytes",
]

#: ``_codecs.escape_decode`` (a static, compiled): what :func:`decode` reads escapes with.
_escape_decode: Final = escape_decode

_HEX = "0123456789ABCDEFabcdef"
_HEXBYTE: dict[str, int] = {a + b: int(a + b, 16) for a in _HEX for b in _HEX}
#: "XX" -> its character, for the escapes of US-ASCII octets (00-7F): what most escapes in
#: a URL are (%20, %09, %2F), decoded without the round trip through bytes.
_ASCII_ESCAPE: dict[str, str] = {k: chr(v) for k, v in _HEXBYTE.items() if v < 0x80}
#: "XX" -> the Latin-1 character of its octet (00-FF): an ASCII text's escapes become one
#: Latin-1 string, whose ``encode("latin-1")`` is exactly the octets (its other characters
#: are ASCII), decoded as UTF-8 in one call.
_OCTET_CHAR: dict[str, str] = {k: chr(v) for k, v in _HEXBYTE.items()}


#: A lone surrogate that stands for no octets: UTF-8 has none for U+D800-U+DFFF, and only
#: U+DC80-U+DCFF are ``surrogateescape``'s stand-ins for the octets 80-FF.
#: (Raw: mypyc takes no surrogate.  Compiled on first use: only non-ASCII text needs it.)
_NOT_OCTETS = grammar.Lazy(r"[\ud800-\udc7f\udd00-\udfff]")


def check_octets(text: str, component: str | None, *, start: int = 0) -> None:
    """Raise :class:`EncodingError` at the first lone surrogate of ``text`` that stands for
    no octets (``offset`` counted from ``start``).

    A URL is octets (RFC 3986 §2.1 and §2.5: characters are UTF-8 before they are
    percent-encoded); ``"\\ud800"`` has no UTF-8 form, so a text holding it names no URL.
    Every public text function (``parse``, ``join``, ``normalize``, ``url_safe``) asks this
    first, so such a text is a typed URL error, never ``UnicodeEncodeError``.
    """
    if text.isascii():
        return
    bad = _NOT_OCTETS.search(text)
    if bad is not None:
        raise EncodingError(
            f"a lone surrogate (U+{ord(bad.group()):04X}) stands for no character and no "
            "octets (RFC 3986 §2.5: a URL's characters are UTF-8 octets)",
            component=component,
            offset=start + bad.start(),
        )


def to_octets(value: str) -> bytes:
    """The exact octets a decoded component stands for (UTF-8 plus ``surrogateescape``)."""
    return value.encode("utf-8", "surrogateescape")


def unquote_to_bytes(text: str) -> bytes:
    """Decode every ``%XX`` of ``text`` to its octet.  A ``%`` not followed by two hex digits
    is kept as it is (strict callers have already refused it: see :func:`check`)."""
    raw = text.encode("utf-8", "surrogateescape")
    if b"%" not in raw:
        return raw
    parts = raw.split(b"%")
    out = bytearray(parts[0])
    for part in parts[1:]:
        octet = _HEXBYTE.get(part[:2].decode("latin-1"))
        if octet is None:
            out += b"%"
            out += part
        else:
            out.append(octet)
            out += part[2:]
    return bytes(out)


def decode(text: str, component: str = "", offset: int | None = None) -> str:
    """Decode a component: ``%XX`` escapes to octets, octets to ``str`` (UTF-8, with
    ``surrogateescape`` for the octets that are not UTF-8).

    Raises :class:`EncodingError` only when ``text`` holds a character that cannot stand for
    octets at all (a lone surrogate outside the escape range, possible in lenient mode).
    """
    if "%" not in text:
        return text
    if text.isascii():
        if "\\" not in text:
            # Each "%" made "\x" and the octets decoded by CPython's own escape decoder (the
            # one of ``bytes`` literals: "\x" and exactly two hex digits, else ValueError),
            # in one pass in C where the loop below makes two slices and a look-up an
            # escape: ~2x sooner on the fifth mix's escaped components (benchmarks/
            # parse_bench.py, compiled; docs/speed.md, *eighth round*).  (A backslash of the
            # text would start an escape of its own: such a text takes the loop.)
            try:
                octets = _escape_decode(text.encode().replace(b"%", b"\\x"))[0]
            except ValueError:  # a stray "%": the loop below keeps it as written
                pass
            else:
                return octets.decode("utf-8", "surrogateescape")
        # The common case: an ASCII text, every "%" an escape.  Each escape becomes the
        # Latin-1 character of its octet; when all were ASCII octets that is the answer
        # (~0.5 µs for one escape; the round trip through bytes below is ~1.1 µs), else the
        # string's Latin-1 octets are the URL's, decoded as UTF-8 at once (UTF-8 escapes in
        # a held-out benchmark path: ~2.5x sooner than unquote_to_bytes).
        parts = text.split("%")
        out = [parts[0]]
        for part in parts[1:]:
            ch = _OCTET_CHAR.get(part[:2])
            if ch is None:  # a stray "%": the general way keeps it
                break
            out.append(ch)
            out.append(part[2:])
        else:
            joined = "".join(out)
            if joined.isascii():
                return joined
            return joined.encode("latin-1").decode("utf-8", "surrogateescape")
    try:
        return unquote_to_bytes(text).decode("utf-8", "surrogateescape")
    except UnicodeEncodeError as exc:
        raise EncodingError(
            f"character {text[exc.start]!r} cannot be encoded as octets",
            component=component or None,
            offset=None if offset is None else offset + exc.start,
        ) from None


class LazilyDecoded:
    """A component as a fast path keeps it, written (ASCII, every "%" an escape), decoded on
    first read: where decoding at parse time cost more than the rest of the parse and most
    readers never read the field.  To every reader it is its decoded value (:meth:`value`):
    the class's field property returns that, and it compares and hashes as that (a built-in
    URL's equality and hash are its fields', schemes.base.tuple_backed); pickled or copied,
    it is that.  (An ASCII text whose every "%" is an escape decodes without an error:
    nothing is learnt sooner by decoding at parse time.)

    A subclass says only how its text decodes (:meth:`decode_raw`, typed there); the first
    read's decoding and its keeping are here, once.  (``Any``, not a ``Generic`` base: that
    would import ``typing`` into every start, which tests/test_startup.py refuses; each
    field's property is typed.)  The parse pays only the constructor, unchanged by this:
    benchmarks/parse_bench.py, compiled, measured no difference (docs/speed.md *Parsing*)."""

    decoded: Any = None

    def __init__(self, raw: str) -> None:
        self.raw = raw

    def decode_raw(self, raw: str) -> Any:
        """``raw`` (the component as written) decoded: the subclass's one job."""
        raise NotImplementedError

    def value(self) -> Any:
        """The decoded value (worked out on the first call, kept)."""
        decoded = self.decoded
        if decoded is None:
            decoded = self.decoded = self.decode_raw(self.raw)
        return decoded

    def __eq__(self, other: object) -> bool:
        return self.value() == (other.value() if isinstance(other, LazilyDecoded) else other)

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash(self.value())

    def __repr__(self) -> str:
        return repr(self.value())

    def __reduce__(self) -> tuple[type, tuple[object]]:
        value = self.value()
        return (type(value), (value,))


class Decoded(LazilyDecoded):
    """A component's text decoded on first read (Gopher's selector, search and Gopher+
    string; FTP's name; Prospero's hsoname)."""

    def decode_raw(self, raw: str) -> str:
        return decode(raw)


@lru_cache(maxsize=64)
def _table(safe: str) -> tuple[str, ...]:
    keep = set(grammar.UNRESERVED_CHARS) | set(safe)
    return tuple(chr(b) if chr(b) in keep else f"%{b:02X}" for b in range(256))


def quote(value: str, safe: str = "") -> str:
    """Encode a decoded component for a URL: every octet outside the unreserved characters
    and ``safe`` becomes ``%XX`` (upper-case hex, §2.2)."""
    table = _table(safe)
    return "".join([table[b] for b in to_octets(value)])


encode = quote


def quote_addr_specs(value: str, safe: str = "") -> str:
    """Encode a list of RFC 5322 addr-specs (``local@domain,local@domain``) keeping its
    structure: each "@" and "," outside a quoted string or a domain literal stays raw (it
    delimits), and every other character is encoded as :func:`quote` with ``safe`` does —
    "@" and "," inside ``"..."`` or ``[...]`` included, since raw there they would read as
    delimiters.  RFC 6068 §6's example: the address ``"not@me"@example.org`` is written
    ``%22not%40me%22@example.org``; ``%22not@me%22@example.org`` is another address.

    A value that is not shaped so (a quote or "[" never closed) is encoded as a whole, its
    "@" raw: there is no structure to keep, and a parser still finds its "@".
    """
    if '"' not in value and "[" not in value:
        return quote(value, safe + "@")
    inner = safe.replace("@", "").replace(",", "")
    out: list[str] = []
    run: list[str] = []
    quoted = literal = escaped = after_at = False

    def flush() -> None:
        if run:
            out.append(quote("".join(run), inner).replace(",", "%2C"))
            run.clear()

    for ch in value:
        if escaped:
            escaped = False
        elif quoted and ch == "\\":
            escaped = True
        elif ch == '"' and not literal:
            quoted = not quoted
        elif ch == "[" and after_at and not quoted:  # domain-literal = "[" … "]" after "@"
            literal = True
        elif ch == "]" and literal:
            literal = False
        elif ch in "@," and not quoted and not literal:
            flush()
            out.append(ch)
            after_at = ch == "@"
            continue
        after_at = False
        run.append(ch)
    if quoted or literal or escaped:
        return quote(value, safe + "@")
    flush()
    return "".join(out)


def display(value: str) -> str:
    """A decoded component as JSON-friendly text: itself where it is UTF-8, with each octet
    that is not (kept as a surrogate) shown as ``%XX``."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "".join(
            f"%{ord(c) - 0xDC00:02X}" if 0xDC80 <= ord(c) <= 0xDCFF else c for c in value
        )
    return value


def check(
    text: str, start: int, end: int, bad: Pattern[str] | grammar.Lazy, component: str, rule: str
) -> None:
    """Raise :class:`EncodingError` at the first character of ``text[start:end]`` that
    ``bad`` finds (see :func:`schemes.grammar.bad_char`)."""
    m = bad.search(text, start, end)
    if m is not None:
        raise char_error(text, m.start(), component, rule)


def char_error(text: str, pos: int, component: str, rule: str) -> EncodingError:
    """The error for the character at ``text[pos]``, explaining how to fix it."""
    ch = text[pos]
    if ch == "%":
        return EncodingError(
            "'%' must start an escape of two hex digits, e.g. %25 for '%' itself "
            "(§2.2; RFC 1630 §4.1.2 example 3)",
            component=component,
            offset=pos,
        )
    if ch in grammar.RESERVED:
        what = f"{ch!r} is reserved here ({rule}); encode it as %{ord(ch):02X}"
    elif ch.isascii() and ch.isprintable() and ch != " ":
        what = f"{ch!r} is unsafe and must be encoded as %{ord(ch):02X} (§2.2)"
    else:
        enc = "".join(f"%{b:02X}" for b in to_octets(ch)) if ch.isascii() else None
        what = f"character {ch!r} must be encoded" + (f" as {enc}" if enc else "") + " (§2.2)"
    return EncodingError(what, component=component, offset=pos)
