"""RFC 1630's ``mid:``, ``cid:`` (§5.9; RFC 2392 since) and ``urn:`` (§5.6).

::

    midaddress = "mid:" addr-spec            ; RFC 2392: mid:message-id [ "/" content-id ]
    cidaddress = "cid:" content-identifier
    ; urn: "reserved" (RFC 1630 §5.6), e.g. "urn:/iana/dns/ch/cern/cn/techdoc/94/1642-3";
    ; RFC 2141 later: "urn:" NID ":" NSS

mid and cid identifiers are decoded and without the enclosing "<>".  A URN is kept as
written (URN equivalence is defined on the encoded form).
"""

from __future__ import annotations

import re

from . import grammar
from .authority import format_fragment, split_fragment
from .base import URL, _tnew, class_constants, tuple_backed
from .errors import SchemeSyntaxError
from .percent import check, decode, display, quote_addr_specs
from .records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar, Final

_BAD_ID = grammar.lazy_bad_char(grammar.UNRESERVED + ";?:@&=")
_BAD_XCHARS = grammar.lazy_bad_char(grammar.XCHAR)
#: Left raw in an id ("?" would start an RFC 3986 query; "@" and "," delimit an addr-spec
#: and are escaped inside quotes, see ``quote_addr_specs``).
ID_SAFE = ";:@&="
# The fast paths: an addr-spec is characters with an "@" after the first one (RFC 2392 §2).
_ID = (
    grammar.fast_plus(grammar.UNRESERVED + ";?:&=")
    + "@"
    + grammar.fast(grammar.UNRESERVED + ";?:@&=")
)
# midaddress = "mid:" addr-spec [ "/" addr-spec ];  cidaddress = "cid:" addr-spec
_MID = f"({_ID})(?:/({_ID}))?" + grammar.FRAGMENT_FAST
_CID = f"({_ID})" + grammar.FRAGMENT_FAST
_MID_FAST = grammar.Lazy(_MID)  # (the strict reading: compiled on first use)
#: The default reading's ("~" too, RFC 3986 §2.3; its optional group as grammar.alternated
#: writes it).
_MID_LAX = re.compile(grammar.alternated(grammar.lax(_MID)))
_CID_FAST = grammar.Lazy(_CID)
_CID_LAX = grammar.Lazy(grammar.lax(_CID))  # (the lenient reading's: on first use)
#: The default reading's (``CidURL._parse_default``): "~" and "/" too (RFC 3986 path
#: characters; the general way reads the whole text up to the fragment as the content-id,
#: an addr-spec whose first "@" follows a character).  Without "/", such a URL took the
#: general way (~15 µs, compiled).
_CID_DEFAULT = re.compile(
    grammar.alternated(
        grammar.lax(
            f"({grammar.fast_plus(grammar.UNRESERVED + ';?:&=/')}"
            f"@{grammar.fast(grammar.UNRESERVED + ';?:@&=/')})" + grammar.FRAGMENT_FAST
        )
    )
)
# NID = let-num [ 1*31let-num-hyp ]   (RFC 2141 §2)
_NID = re.compile(r"[A-Za-z0-9][A-Za-z0-9\-]{0,31}")
# The default reading of a URN in one match (``URNURL._parse_default``): an NID before the
# first ":" when it is one, the rest as written (RFC 3986 characters: "~" too).
_URN_DEFAULT = re.compile(
    grammar.alternated(
        grammar.lax(
            rf"(?:([A-Za-z0-9][A-Za-z0-9\-]{{0,31}}):)?({grammar.fast(grammar.XCHAR)})"
            + grammar.FRAGMENT_FAST
        )
    )
)


#: The default reading's matches as bound methods (statics, compiled: see grammar.match_groups).
_MID_LAX_MATCH: Final = _MID_LAX.fullmatch
_CID_DEFAULT_MATCH: Final = _CID_DEFAULT.fullmatch
_URN_DEFAULT_MATCH: Final = _URN_DEFAULT.fullmatch


def _written_id(value: str, safe: str) -> str:
    """An id as written back: its addr-specs encoded (``quote_addr_specs``), and a leading
    "@" as ``%40`` — the parser finds the addr-spec's "@" after a local part (below), so an
    id decoding to "@a@h" (written ``%40a@h``) written "@a@h" would parse no more."""
    out = quote_addr_specs(value, safe)
    return "%40" + out[1:] if out[:1] == "@" else out


def _addr_spec(text: str, start: int, end: int, component: str, strict: bool) -> str:
    if strict:
        check(text, start, end, _BAD_ID, component, "RFC 2392")
    # The structure holds in every reading (RFC 2392 §2 keeps RFC 1630's addr-spec).
    if text.find("@", start, end) <= start:
        raise SchemeSyntaxError(
            f"a {component} has the form of an addr-spec, local@domain (RFC 1630 §5.9)",
            component=component,
            offset=start,
        )
    return decode(text[start:end], component, start)


@tuple_backed
@record(frozen=True, kw_only=True)
@class_constants
class MidURL(URL):
    """``mid:<message-id>[/<content-id>]`` — a mail message, or a part of one."""

    message_id: str = ""
    content_id: str | None = None

    schemes: ClassVar[tuple[str, ...]] = ("mid",)

    @classmethod
    def from_text(cls, text: str, *, scheme: str, rest: str, strict: bool = True) -> MidURL:
        return cls._parse_slow(text, len(text) - len(rest), scheme, strict)

    @classmethod
    def _parse_at(cls, text: str, start: int, scheme: str, strict: bool) -> URL:
        m = (_MID_FAST.get() if strict else _MID_LAX).fullmatch(text, start)
        url = _midurl_from_match(cls, m, text, start, scheme)
        return cls._parse_slow(text, start, scheme, strict) if url is None else url

    @classmethod
    def _parse_default(cls, text: str, start: int, scheme: str) -> MidURL | None:
        return _midurl_from_match(cls, _MID_LAX_MATCH(text, start), text, start, scheme)

    @classmethod
    def _parse_slow(cls, text: str, start: int, scheme: str, strict: bool) -> MidURL:
        """Component by component: the whole grammar, and the offset of any error."""
        end, fragment = split_fragment(text, start, strict)
        slash = text.find("/", start, end)
        mend = end if slash < 0 else slash
        fields: dict[str, Any] = {
            "scheme": scheme,
            "fragment": fragment,
            "message_id": _addr_spec(text, start, mend, "message_id", strict),
        }
        if slash >= 0:
            fields["content_id"] = _addr_spec(text, slash + 1, end, "content_id", strict)
        return cls._make(fields)

    def __str__(self) -> str:
        out = f"{self.scheme}:{_written_id(self.message_id, ID_SAFE)}"
        if self.content_id is not None:
            out += "/" + _written_id(self.content_id, ID_SAFE)
        return out + format_fragment(self.fragment)

    def components(self) -> dict[str, Any]:
        return {
            "message_id": display(self.message_id),
            "content_id": None if self.content_id is None else display(self.content_id),
        }


def _midurl_from_match(
    cls: type[MidURL], m: re.Match[str] | None, text: str, start: int, scheme: str
) -> MidURL | None:
    """The URL the fast pattern's match ``m`` stands for, or None for the slow path."""
    if m is None or not grammar.escapes_ok(text, start):
        return None
    message_id, content_id, fragment = grammar.match_groups(m)
    if "%" in message_id:
        message_id = decode(message_id)
    if content_id is not None and "%" in content_id:
        content_id = decode(content_id)
    return _tnew(cls, (scheme, fragment, message_id, content_id))  # (tuple_backed order)


@tuple_backed
@record(frozen=True, kw_only=True)
@class_constants
class CidURL(URL):
    """``cid:<content-id>`` — a MIME body part of the same message."""

    content_id: str = ""

    schemes: ClassVar[tuple[str, ...]] = ("cid",)

    @classmethod
    def from_text(cls, text: str, *, scheme: str, rest: str, strict: bool = True) -> CidURL:
        return cls._parse_slow(text, len(text) - len(rest), scheme, strict)

    @classmethod
    def _parse_at(cls, text: str, start: int, scheme: str, strict: bool) -> URL:
        m = (_CID_FAST.get() if strict else _CID_LAX.get()).fullmatch(text, start)
        url = _cidurl_from_match(cls, m, text, start, scheme)
        return cls._parse_slow(text, start, scheme, strict) if url is None else url

    @classmethod
    def _parse_default(cls, text: str, start: int, scheme: str) -> CidURL | None:
        if text.find("//", start, start + 2) >= 0:  # RFC 3986's authority: the general way
            return None  # reads it  (find with an end: a compiled call, startswith's is not)
        return _cidurl_from_match(cls, _CID_DEFAULT_MATCH(text, start), text, start, scheme)

    @classmethod
    def _parse_slow(cls, text: str, start: int, scheme: str, strict: bool) -> CidURL:
        """Component by component: the whole grammar, and the offset of any error."""
        end, fragment = split_fragment(text, start, strict)
        return cls._make(
            {
                "scheme": scheme,
                "fragment": fragment,
                "content_id": _addr_spec(text, start, end, "content_id", strict),
            }
        )

    def __str__(self) -> str:
        return f"{self.scheme}:{_written_id(self.content_id, ID_SAFE + '/')}" + format_fragment(
            self.fragment
        )

    def components(self) -> dict[str, Any]:
        return {"content_id": display(self.content_id)}


def _cidurl_from_match(
    cls: type[CidURL], m: re.Match[str] | None, text: str, start: int, scheme: str
) -> CidURL | None:
    """The URL the fast pattern's match ``m`` stands for, or None for the slow path."""
    if m is None or not grammar.escapes_ok(text, start):
        return None
    content_id, fragment = grammar.match_groups(m)
    if "%" in content_id:
        content_id = decode(content_id)
    return _tnew(cls, (scheme, fragment, content_id))  # (tuple_backed order)


@tuple_backed
@record(frozen=True, kw_only=True)
@class_constants
class URNURL(URL):
    """``urn:<nid>:<nss>`` (RFC 2141), or RFC 1630's early ``urn:/iana/...`` form."""

    #: The namespace identifier ("isbn"), or None for a URN without one (RFC 1630's form).
    nid: str | None = None
    #: The namespace-specific string, as written.
    nss: str = ""

    schemes: ClassVar[tuple[str, ...]] = ("urn",)

    @classmethod
    def from_text(cls, text: str, *, scheme: str, rest: str, strict: bool = True) -> URNURL:
        return cls._parse_slow(text, len(text) - len(rest), scheme, strict)

    @classmethod
    def _parse_at(cls, text: str, start: int, scheme: str, strict: bool) -> URL:
        return cls._parse_slow(text, start, scheme, strict)

    @classmethod
    def _parse_default(cls, text: str, start: int, scheme: str) -> URNURL | None:
        if text.find("//", start, start + 2) >= 0:  # refused: the general way says so
            return None
        m = _URN_DEFAULT_MATCH(text, start)
        if m is None or not grammar.escapes_ok(text, start):
            return None
        nid, nss, fragment = grammar.match_groups(m)
        # scheme, fragment, nid, nss (tuple_backed)
        return _tnew(cls, (scheme, fragment, nid, nss))

    @classmethod
    def _parse_slow(cls, text: str, start: int, scheme: str, strict: bool) -> URNURL:
        """Component by component: the whole grammar, and the offset of any error."""
        if not strict and text.startswith("//", start):
            # RFC 8141 §2: assigned-name = "urn" ":" NID ":" NSS, NID starting with an
            # alphanumeric; RFC 1630's early form is "urn:/iana/…".  "//" is neither, and
            # RFC 3986 §3.2 would read it as an authority (urn://test:test: port "test").
            raise SchemeSyntaxError(
                "a URN has no authority: '//' cannot start it (RFC 8141 §2: "
                "urn:NID:NSS, the NID starting with a letter or digit)",
                component="nid",
                offset=start,
            )
        end, fragment = split_fragment(text, start, strict)
        if strict:
            check(text, start, end, _BAD_XCHARS, "nss", "RFC 1630 §5.6")
            if start == end:
                raise SchemeSyntaxError("a URN is not empty", component="nss", offset=start)
        colon = text.find(":", start, end)
        nid: str | None = None
        nss_start = start
        if colon > start and _NID.fullmatch(text, start, colon):
            nid = text[start:colon]
            nss_start = colon + 1
        return cls._make(
            {"scheme": scheme, "fragment": fragment, "nid": nid, "nss": text[nss_start:end]}
        )

    @classmethod
    def reads_alike(cls, text: str, start: int) -> bool:
        """RFC 1738's letter reads ``urn://x`` as ``*xchar``; the default reading refuses
        it (RFC 8141), so the letter's parser is never asked first for such a URL."""
        return not text.startswith("//", start)

    def __str__(self) -> str:
        body = self.nss if self.nid is None else f"{self.nid}:{self.nss}"
        return f"{self.scheme}:{body}{format_fragment(self.fragment)}"

    def components(self) -> dict[str, Any]:
        return {"nid": self.nid, "nss": display(self.nss)}
