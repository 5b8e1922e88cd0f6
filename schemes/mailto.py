"""mailto: URLs (§3.5), with RFC 6068's header fields as an extension.

::

    mailtourl      = "mailto:" encoded822addr
    encoded822addr = 1*xchar               ; further defined in RFC822
    ; RFC 6068: mailtoURI = "mailto:" [ to ] [ hfields ]
    ;           hfields = "?" hfield *( "&" hfield ),  hfield = hfname "=" hfvalue

"Within mailto URLs, there are no reserved characters" (§3.5) — except that, following RFC
6068, a "?" starts the header fields (``?subject=...&body=...``), and in them "&" and "="
delimit.  A "?" that belongs to an address must be written ``%3F``.  ``address`` is the
decoded addr-spec (RFC 6068 allows several, comma-separated); "%" in an address is ``%25``.

``str()`` writes the address as RFC 6068 §2 asks — "/", "?", "#", "[", "]", "&", ";", "="
escaped — and keeps its structure: an "@" or "," inside a quoted local part is escaped, the
delimiting ones are not (§6: ``"not@me"@example.org`` is ``mailto:%22not%40me%22@example.org``;
a raw "@" there would name another address).
"""

from __future__ import annotations

import re

from . import grammar
from .authority import format_fragment, split_fragment
from .base import URL, _tnew, class_constants, tuple_backed
from .errors import SchemeSyntaxError
from .percent import Decoded, LazilyDecoded, check, decode, display, quote, quote_addr_specs
from .records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar, Final

_BAD_ADDRESS = grammar.lazy_bad_char(grammar.UNRESERVED + ";/:@&=")
_BAD_HFIELD = grammar.lazy_bad_char(grammar.UNRESERVED + ";/:@")
#: Left raw in an address: ":" (RFC 6068 §2: of gen-delims only "@" and ":" may stand raw;
#: "&", ";" and "=" must be encoded; "@" and "," delimit, see ``quote_addr_specs``).
ADDRESS_SAFE = ":"
HFIELD_SAFE = ";/:@"


# mailtourl = "mailto:" encoded822addr [ "?" hfield *( "&" hfield ) ]   (the fast path)
# hfield = hfname "=" hfvalue (RFC 6068 §2; neither part holds "&" or "=")
_HFIELD = grammar.fast(grammar.UNRESERVED + ";/:@")
_PATTERN = (
    f"({grammar.fast_plus(grammar.UNRESERVED + ';/:@&=')})"
    + rf"(?:\?({_HFIELD}={_HFIELD}(?:&{_HFIELD}={_HFIELD})*+))?"
    + grammar.FRAGMENT_FAST
)
_FAST = grammar.Lazy(_PATTERN)  # (the strict reading: compiled on first use)
#: The lenient reading's (RFC 3986 characters: "~"; compiled on first use).
_LAX = grammar.Lazy(grammar.lax(_PATTERN))
# The default reading's (``_parse_default``): header fields of RFC 3986 query characters
# but the delimiters "&" and "=" (a "/" or "?" in a body or subject), and header fields
# without an address (``mailto:?to=…``), as the general way reads them.
_DEFAULT_HFIELD = grammar.fast(grammar.UNRESERVED + ";/:@?")
#: A value may hold "=" (the general way splits a field at its first "=", RFC 6068 §2's
#: hfname "=" hfvalue: the rest is the value); without it such a URL took the general way.
_DEFAULT_HVALUE = grammar.fast(grammar.UNRESERVED + ";/:@?=")
_DEFAULT_HFIELDS = f"{_DEFAULT_HFIELD}={_DEFAULT_HVALUE}(?:&{_DEFAULT_HFIELD}={_DEFAULT_HVALUE})*+"
_DEFAULT = re.compile(
    grammar.alternated(
        grammar.lax(
            f"({grammar.fast(grammar.UNRESERVED + ';/:@&=')})"
            + rf"(?:\?({_DEFAULT_HFIELDS})?)?"
            + grammar.FRAGMENT_FAST
        )
    )
)


#: The default reading's matches as bound methods (statics, compiled: see grammar.match_groups).
_DEFAULT_MATCH: Final = _DEFAULT.fullmatch
#: A long URL: its length after "mailto:" at and above which :func:`_parse_long` reads it (the
#: addresses' characters by ``bytes.translate``, ~1.5 ns a character, where ``re``'s class
#: scan costs ~2-4: grammar.tail_ok; docs/speed.md, *eighth round (the fifth mix)*).
_LONG: Final = 128
#: The addresses' characters: :data:`_DEFAULT`'s first class (``grammar.lax``'s "~" in it).
_ADDRESS_CLASS: Final = grammar.UNRESERVED + ";/:@&=~%"
_ADDRESS: Final = grammar.class_table(_ADDRESS_CLASS)
#: :data:`_DEFAULT` after the addresses (groups: header fields, fragment), compiled on the
#: first long URL.
_DEFAULT_REST: Final = grammar.Lazy(
    grammar.alternated(grammar.lax(rf"(?:\?({_DEFAULT_HFIELDS})?)?" + grammar.FRAGMENT_FAST))
)


def _authority_error(start: int) -> SchemeSyntaxError:
    """``mailto://…`` in the default reading: RFC 6068 §2 has no authority (``mailtoURI =
    "mailto:" [ to ] [ hfields ]``), its addr-spec has no raw "/" (``qchar`` excludes it),
    and RFC 3986 §3.3 would read the "//" as an authority (``mailto://test:test``: host
    "test", port "test").  RFC 1738's letter (``*xchar``) still takes it."""
    return SchemeSyntaxError(
        "a mailto: URL has no authority: '//' cannot start it (RFC 6068 §2: to = addr-spec, "
        "in which '/' is written %2F)",
        component="address",
        offset=start,
    )


@tuple_backed
@record(frozen=True, kw_only=True)
@class_constants
class MailtoURL(URL):
    """``mailto:addr-spec`` (§3.5) and ``mailto:addr?subject=...&body=...`` (RFC 6068)."""

    #: The decoded addr-spec (or comma-separated addr-specs, RFC 6068); "" when only
    #: header fields are given (``mailto:?to=...``).
    address: str = ""
    #: The decoded header fields in order, names as written (RFC 6068 §2).
    headers: tuple[tuple[str, str], ...] = ()

    schemes: ClassVar[tuple[str, ...]] = ("mailto",)

    @classmethod
    def from_text(cls, text: str, *, scheme: str, rest: str, strict: bool = True) -> MailtoURL:
        return cls._parse_at(text, len(text) - len(rest), scheme, strict)

    @classmethod
    def _parse_at(cls, text: str, start: int, scheme: str, strict: bool) -> MailtoURL:
        if not strict and text.startswith("//", start):
            raise _authority_error(start)
        url = _mailtourl_from_match(
            cls, (_FAST.get() if strict else _LAX.get()).fullmatch(text, start), text, start, scheme
        )
        return cls._parse_slow(text, start, scheme, strict) if url is None else url

    @classmethod
    def _parse_default(cls, text: str, start: int, scheme: str) -> MailtoURL | None:
        if text.find("//", start, start + 2) >= 0:  # refused in this reading: the general way
            return None  # says so  (find with an end: a compiled call, startswith's is not)
        if len(text) - start >= _LONG:
            return _parse_long(cls, text, start, scheme)
        return _mailtourl_from_match(cls, _DEFAULT_MATCH(text, start), text, start, scheme)

    @classmethod
    def _parse_slow(cls, text: str, start: int, scheme: str, strict: bool) -> MailtoURL:
        """Component by component: the whole grammar, and the offset of any error."""
        end, fragment = split_fragment(text, start, strict)
        q = text.find("?", start, end)
        addr_end = end if q < 0 else q
        if strict:
            check(text, start, addr_end, _BAD_ADDRESS, "address", "RFC 6068: '?' starts headers")
            if q < 0 and addr_end == start:
                raise SchemeSyntaxError(
                    "a mailto: URL names an address (§3.5: encoded822addr = 1*xchar)",
                    component="address",
                    offset=start,
                )
        headers: list[tuple[str, str]] = []
        if q >= 0:
            pos = q + 1
            while pos <= end:
                amp = text.find("&", pos, end)
                field_end = end if amp < 0 else amp
                if field_end > pos or strict:
                    eq = text.find("=", pos, field_end)
                    if eq < 0:  # (every reading: RFC 6068 §2, hfield = hfname "=" hfvalue)
                        raise SchemeSyntaxError(
                            "a header field is written name=value (RFC 6068 §2)",
                            component="headers",
                            offset=pos,
                        )
                    if strict:
                        check(text, pos, eq, _BAD_HFIELD, "headers", "RFC 6068 §2")
                        check(text, eq + 1, field_end, _BAD_HFIELD, "headers", "RFC 6068 §2")
                    headers.append(
                        (
                            decode(text[pos:eq], "headers", pos),
                            decode(text[eq + 1 : field_end], "headers", eq + 1),
                        )
                    )
                pos = field_end + 1
        return cls._make(
            {
                "scheme": scheme,
                "fragment": fragment,
                "address": decode(text[start:addr_end], "address", start),
                "headers": tuple(headers),
            }
        )

    @classmethod
    def reads_alike(cls, text: str, start: int) -> bool:
        """RFC 1738's letter reads ``mailto://x`` as the address ``//x`` (``*xchar``); the
        default reading refuses it (see :func:`_authority_error`), so the letter's parser is
        never asked first for such a URL."""
        return not text.startswith("//", start)

    def __str__(self) -> str:
        # RFC 6068 §2 and §6: an "@" or "," inside a quoted local part is escaped, in the
        # address and in a header field's value (to=, cc=) alike.
        out = f"{self.scheme}:{quote_addr_specs(self.address, ADDRESS_SAFE)}"
        if self.headers:
            out += "?" + "&".join(
                f"{quote(n, HFIELD_SAFE)}={quote_addr_specs(v, HFIELD_SAFE)}"
                for n, v in self.headers
            )
        return out + format_fragment(self.fragment)

    def components(self) -> dict[str, Any]:
        return {
            "address": display(self.address),
            "headers": [[display(n), display(v)] for n, v in self.headers],
        }


def _parse_long(cls: type[MailtoURL], text: str, start: int, scheme: str) -> MailtoURL | None:
    """:data:`_DEFAULT`'s fullmatch of a long URL in two steps: the addresses, up to the
    first "?" or "#", their characters checked by ``bytes.translate`` (grammar.span_ok),
    and the rest (header fields, fragment) matched by ``re`` — the same URL, or None where
    the fullmatch gives None.

    Why the two give the same: :data:`_DEFAULT` is ``(A*+)`` and then a text that is empty
    or starts with "?" or "#", where the class ``A`` (:data:`_ADDRESS_CLASS`) holds neither:
    the possessive run ends at the first character outside ``A``, so the addresses are the
    text up to the first "?" or "#" when all its characters are of ``A``, and no match
    otherwise.  The escapes are :func:`grammar.escapes_ok`'s over the whole text, as in the
    one match."""
    end = text.find("?", start)
    hash_at = text.find("#", start, len(text) if end < 0 else end)
    if hash_at >= 0:
        end = hash_at
    elif end < 0:
        end = len(text)
    if not grammar.span_ok(text, start, end, _ADDRESS):
        return None
    m = _DEFAULT_REST.get().fullmatch(text, end)
    if m is None or not grammar.escapes_ok(text, start):
        return None
    fields, fragment = grammar.match_groups(m)
    return _mailtourl_from_groups(cls, text[start:end], fields, fragment, scheme)


def _mailtourl_from_match(
    cls: type[MailtoURL], m: re.Match[str] | None, text: str, start: int, scheme: str
) -> MailtoURL | None:
    """The URL the fast pattern's match ``m`` stands for, or None for the slow path."""
    if m is None or not grammar.escapes_ok(text, start):
        return None
    address, fields, fragment = grammar.match_groups(m)
    return _mailtourl_from_groups(cls, address, fields, fragment, scheme)


def _mailtourl_from_groups(
    cls: type[MailtoURL], address: str, fields: str | None, fragment: str | None, scheme: str
) -> MailtoURL | None:
    """The URL of the default pattern's groups (escapes checked), or None for the slow
    path."""
    headers: tuple[tuple[str, str], ...] | _Fields = ()
    if fields is not None:
        # Decoded when first read (MailtoURL.headers): an ASCII text's fields, every "%" an
        # escape, decode without an error, so nothing is learnt sooner by decoding now.
        headers = _Fields(fields) if fields.isascii() else _decode_fields(fields)
    elif not address:
        return None  # ("mailto:" alone: the general way says what it is)
    if "%" in address:
        # Decoded when first read (MailtoURL.address), as the fields: an ASCII address whose
        # every "%" is an escape decodes without an error.  Decoding at once was a quarter
        # of a URL's parse on the fifth mix's mailto: URLs of up to 25 recipients (~1.9 µs
        # of ~7; benchmarks/parse_bench.py, compiled), which most readers never ask for.
        kept: str | Decoded = Decoded(address) if address.isascii() else decode(address)
        # scheme, fragment, address, headers (tuple_backed)
        return _tnew(cls, (scheme, fragment, kept, headers))
    return _tnew(cls, (scheme, fragment, address, headers))


def _decode_fields(fields: str) -> tuple[tuple[str, str], ...]:
    """``name=value&…`` (the fast pattern's header fields) as decoded pairs."""
    # (a loop of split and partition: ~25% sooner than one findall and a tuple of its
    # pairs in the pure build, A/B interleaved; in the compiled build one replace, one
    # split and zip over the parts cost ~3,300 instructions more a URL, callgrind)
    pairs = []
    if "%" in fields and "%26" not in fields and "%3D" not in fields and "%3d" not in fields:
        # Decoded at once, then split: the same as field by field when no escape is a
        # delimiter ("&", "="), since no UTF-8 sequence holds octet 26 or 3D (a lone
        # octet is one surrogate either way); one call instead of one a part.
        for field in decode(fields).split("&"):
            name, _eq, value = field.partition("=")
            pairs.append((name, value))
    else:
        for field in fields.split("&"):
            name, _eq, value = field.partition("=")
            pairs.append(
                (
                    decode(name) if "%" in name else name,
                    decode(value) if "%" in value else value,
                )
            )
    return tuple(pairs)


class _Fields(LazilyDecoded):
    """A parsed URL's header fields as written (``name=value&…``), decoded on first read.

    Why: a mailto: URL with a query was the one family of benchmarks/parse_bench.py slower
    than ``urlsplit`` (0.81-0.93x), which splits and decodes nothing; most of its time went
    to decoding and pairing the fields, which most readers of a parsed URL never ask for.
    To every reader it is the decoded tuple: ``MailtoURL.headers`` returns that, and it
    compares and hashes as that (a URL's equality and hash are its fields', tuple_backed);
    pickled or copied, it is that tuple.
    """

    def decode_raw(self, raw: str) -> tuple[tuple[str, str], ...]:
        return _decode_fields(raw)


_item: Any = tuple.__getitem__


def _address(url: MailtoURL) -> str:
    """``MailtoURL.address``: the decoded addr-specs, decoded on first read where the
    parser kept them as written (:class:`schemes.percent.Decoded`)."""
    value = _item(url, 2)
    return value.value() if isinstance(value, Decoded) else value


def _headers(url: MailtoURL) -> tuple[tuple[str, str], ...]:
    """``MailtoURL.headers``: the decoded header fields (RFC 6068 §2), decoded on first
    read where the parser kept them as written (:class:`_Fields`)."""
    value = _item(url, 3)
    return value.value() if isinstance(value, _Fields) else value


# (after tuple_backed, which made each field a tuple item getter; address is item 2,
# headers item 3)
setattr(MailtoURL, "address", property(_address, doc="The decoded addr-spec(s)."))  # noqa: B010
setattr(MailtoURL, "headers", property(_headers, doc="The decoded header fields in order."))  # noqa: B010
