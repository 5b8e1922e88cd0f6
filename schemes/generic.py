"""Any other scheme: the generic URL of §5 (``genericurl = scheme ":" schemepart``).

``x-`` schemes (§4, experimental) and schemes no parser is registered for parse here.  The
scheme-specific part is kept as written — without knowing the scheme, decoding it would lose
the difference between a reserved character and its escape (§2.2).

In the default reading such a URL is RFC 3986's generic syntax, and that has rules for an
authority (§3.2): ``userinfo = *( unreserved / pct-encoded / sub-delims / ":" )``, ``host =
IP-literal / IPv4address / reg-name``, ``port = *DIGIT``.  ``data://test:test`` (a port that
is not digits), ``sc://te@s:t@/`` (an "@" in the userinfo) and ``ssh://h:80:22`` (a host with
colons) are refused, naming the component and offset, by :func:`schemes.rfc3986.prepare`:
:meth:`GenericURL.reads_alike` sends every ``//`` URL there, since RFC 1738's letter reads
it as ``*xchar`` with no authority rules.  The host is checked, never decoded nor mapped to
IDNA labels (only a known scheme says a host is a DNS name).
"""

from __future__ import annotations

from . import grammar
from .authority import format_fragment, split_fragment
from .base import URL, _tnew, class_constants, tuple_backed
from .percent import check, display
from .records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# schemepart = *xchar | ip-schemepart
_BAD_XCHARS = grammar.lazy_bad_char(grammar.XCHAR)


# genericurl = scheme ":" schemepart,  schemepart = *xchar      (the fast path)
_FAST = grammar.Lazy(f"({grammar.fast(grammar.XCHAR)})" + grammar.FRAGMENT_FAST)

# The default reading's (``_parse_default``): RFC 3986 §3's URI in one match, with exactly
# the characters schemes.rfc3986.prepare accepts for a scheme omniurl does not know
# (``opaque_host``): without "//", path and query characters (pchar, "/", "?"); with "//",
# an authority — ``[ userinfo "@" ] host [ ":" port ]``: a userinfo of unreserved
# characters, sub-delims, ":" and escapes (§3.2.1), a reg-name of unreserved characters,
# sub-delims and escapes kept as written or an IPv6 literal (§3.2.2, RFC 6874's zone; its
# groups checked with grammar.ipv6_ok after the match), ``*DIGIT`` for the port (§3.2.3) —
# then the path and query; and a fragment (§3.5).  Every "%" is checked to start an escape
# after the match (grammar.escapes_ok).  What it does not take (IPvFuture, a stray "%", a
# character RFC 3986 refuses, non-ASCII) is left to the general way, which names the error.
_PCHAR = r"A-Za-z0-9\-._~!$&'()*+,;=:@"
_SUB_UNRESERVED = r"A-Za-z0-9\-._~!$&'()*+,;="
_DEFAULT = grammar.Lazy(
    grammar.alternated(
        rf"((?!//)[{_PCHAR}/?%]*+"
        rf"|//(?:[{_SUB_UNRESERVED}:%]*+@)?"
        rf"(?:[{_SUB_UNRESERVED}%]*+|({grammar.IP_LITERAL_LAX}))"
        rf"(?::[0-9]*+)?(?:[/?][{_PCHAR}/?%]*+)?)"
        rf"(?:#([{_PCHAR}/?%]*+))?"
    )
)


@tuple_backed
@record(frozen=True, kw_only=True)
@class_constants
class GenericURL(URL):
    """``scheme:schemepart`` for a scheme omniurl has no parser for (§5)."""

    #: Everything between "scheme:" and "#", as written (still encoded).
    scheme_specific_part: str = ""

    @classmethod
    def from_text(cls, text: str, *, scheme: str, rest: str, strict: bool = True) -> GenericURL:
        return cls._parse_at(text, len(text) - len(rest), scheme, strict)

    @classmethod
    def _parse_at(cls, text: str, start: int, scheme: str, strict: bool) -> GenericURL:
        m = _FAST.get().fullmatch(text, start)
        if m is not None and grammar.escapes_ok(text, start):
            ssp, fragment = m.groups()
            # scheme, fragment, scheme_specific_part (tuple_backed)
            return _tnew(cls, (scheme, fragment, ssp))
        return cls._parse_slow(text, start, scheme, strict)

    @classmethod
    def _parse_default(cls, text: str, start: int, scheme: str) -> GenericURL | None:
        """The default reading of ASCII ``text`` in one match (:data:`_DEFAULT`), or None
        for the general way: what that way gives (the letter's parser or RFC 3986's check,
        then the scheme-specific part as written up to the first "#"), without the
        registry's lookup, the letter's parser and the component walk (issue 32, seventh
        round: 10-24 µs a URL there; tests/test_parse_fast_default.py compares the two)."""
        m = _DEFAULT.get().fullmatch(text, start)
        if m is None or not grammar.escapes_ok(text, start):
            return None
        ssp, literal, fragment = m.groups()
        if literal is not None and not grammar.ipv6_ok(literal):
            return None
        # scheme, fragment, scheme_specific_part (tuple_backed)
        return _tnew(cls, (scheme, fragment, ssp))

    @classmethod
    def _parse_slow(cls, text: str, start: int, scheme: str, strict: bool) -> GenericURL:
        """Component by component: the whole grammar, and the offset of any error."""
        end, fragment = split_fragment(text, start, strict)
        if strict:
            check(text, start, end, _BAD_XCHARS, "scheme_specific_part", "§5: *xchar")
        return cls._make(
            {"scheme": scheme, "fragment": fragment, "scheme_specific_part": text[start:end]}
        )

    @classmethod
    def reads_alike(cls, text: str, start: int) -> bool:
        """RFC 1738 reads ``//…`` as plain ``*xchar``; RFC 3986 §3.2 gives it an authority
        with rules (see the module): such URLs always take the default reading's check."""
        return not text.startswith("//", start)

    def __str__(self) -> str:
        return f"{self.scheme}:{self.scheme_specific_part}{format_fragment(self.fragment)}"

    def components(self) -> dict[str, Any]:
        return {"scheme_specific_part": display(self.scheme_specific_part)}
