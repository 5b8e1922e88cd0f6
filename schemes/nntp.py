"""nntp: URLs (§3.7).

::

    nntpurl = "nntp://" hostport "/" group [ "/" digits ]
"""

from __future__ import annotations

import re

from . import grammar
from .authority import format_fragment, format_login, parse_ip_schemepart
from .base import InternetURL, _tnew, class_constants, tuple_backed
from .errors import SchemeSyntaxError
from .news import _group_error
from .percent import decode, display, quote
from .records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar, Final

# nntpurl = "nntp://" hostport "/" group [ "/" digits ]      (the fast path, see grammar)
_PATTERN = (
    "//" + grammar.HOSTPORT_FAST + rf"/({grammar.GROUP})(?:/([0-9]+))?" + grammar.FRAGMENT_FAST
)
_FAST = grammar.Lazy(_PATTERN)  # (the strict reading: compiled on first use)
#: The default reading's (RFC 3986 characters: "~"; no "?" in a login).
_LAX = grammar.Lazy(grammar.lax(_PATTERN))  # (the lenient reading's: on first use)
# The default reading's (``_parse_default``): RFC 3986's hosts and empty ports, and a group
# of RFC 3986 path characters (RFC 5538 §2.2: a newsgroup-name need not start with a
# letter; the general way takes the segment as it stands, decoded, "?" too), empty or
# absent (``nntp://h``, ``nntp://h/``: the group ""), and an empty article (``/g/``: none).
# (Without the last three, such a URL took the general way: ~15 µs compiled.)
_DEFAULT = re.compile(
    grammar.default(
        "//"
        + grammar.HOSTPORT_FAST
        + rf"(?:/({grammar.fast(grammar.UNRESERVED + ';:@&=?')})(?:/([0-9]*+))?)?"
        + grammar.FRAGMENT_FAST
    )
)


#: The default reading's matches as bound methods (statics, compiled: see grammar.match_groups).
_DEFAULT_MATCH: Final = _DEFAULT.fullmatch


@tuple_backed
@record(frozen=True, kw_only=True)
@class_constants
class NNTPURL(InternetURL):
    """``nntp://host:port/<newsgroup-name>/<article-number>`` (§3.7)."""

    newsgroup: str = ""
    #: The article number within the group; None: the group itself.
    article: int | None = None

    schemes: ClassVar[tuple[str, ...]] = ("nntp",)
    DEFAULT_PORT: ClassVar[int | None] = 119

    @classmethod
    def from_text(cls, text: str, *, scheme: str, rest: str, strict: bool = True) -> NNTPURL:
        return cls._parse_at(text, len(text) - len(rest), scheme, strict)

    @classmethod
    def _parse_at(cls, text: str, start: int, scheme: str, strict: bool) -> NNTPURL:
        url = _nntpurl_from_match(
            cls, (_FAST.get() if strict else _LAX.get()).fullmatch(text, start), text, start, scheme
        )
        return cls._parse_slow(text, start, scheme, strict) if url is None else url

    @classmethod
    def _parse_default(cls, text: str, start: int, scheme: str) -> NNTPURL | None:
        return _nntpurl_from_match(cls, _DEFAULT_MATCH(text, start), text, start, scheme)

    @classmethod
    def _parse_slow(cls, text: str, start: int, scheme: str, strict: bool) -> NNTPURL:
        """Component by component: the whole grammar, and the offset of any error."""
        fields, slash, end = parse_ip_schemepart(text, start, scheme, strict, hostport_only=True)
        if slash == end:
            if strict:
                raise SchemeSyntaxError(
                    "an nntp: URL names a newsgroup after the host (§3.7)",
                    component="newsgroup",
                    offset=end,
                )
            return cls._make(fields)
        gstart = slash + 1
        second = text.find("/", gstart, end)
        gend = end if second < 0 else second
        if strict and not grammar.GROUP_RE.fullmatch(text, gstart, gend):
            raise _group_error(text, gstart, gend)
        fields["newsgroup"] = decode(text[gstart:gend], "newsgroup", gstart)
        if second >= 0:
            if not grammar.DIGITS_RE.fullmatch(text, second + 1, end):
                if strict or second + 1 < end:
                    raise SchemeSyntaxError(
                        "the article number is decimal digits (§3.7)",
                        component="article",
                        offset=second + 1,
                    )
            else:
                fields["article"] = int(text[second + 1 : end])
        return cls._make(fields)

    def __str__(self) -> str:
        out = f"{self.scheme}://{format_login(None, None, self.host, self.port)}/"
        out += quote(self.newsgroup)
        if self.article is not None:
            out += f"/{self.article}"
        return out + format_fragment(self.fragment)

    def components(self) -> dict[str, Any]:
        out = self.authority_json()
        out["newsgroup"] = display(self.newsgroup)
        out["article"] = self.article
        return out


def _nntpurl_from_match(
    cls: type[NNTPURL], m: re.Match[str] | None, text: str, start: int, scheme: str
) -> NNTPURL | None:
    """The URL the fast pattern's match ``m`` stands for, or None for the slow path."""
    if m is not None and grammar.escapes_ok(text, start):
        host, port, group, article, fragment = grammar.match_groups(m)
        if (port is None or len(port) < 5 or int(port) < 65536) and (
            host[0] != "[" or grammar.ipv6_ok(host)
        ):
            # scheme, fragment, user, password, host, port, newsgroup, article (tuple_backed)
            return _tnew(
                cls,
                (
                    scheme,
                    fragment,
                    None,
                    None,
                    host,
                    int(port) if port else None,
                    "" if group is None else decode(group) if "%" in group else group,
                    int(article) if article else None,
                ),
            )
    return None
