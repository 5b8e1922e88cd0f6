"""http: and https: URLs (§3.3; https by RFC 2818 with the same syntax, port 443).

::

    httpurl = "http://" hostport [ "/" hpath [ "?" search ]]
    hpath   = hsegment *[ "/" hsegment ]
    hsegment = *[ uchar | ";" | ":" | "@" | "&" | "=" ]
    search  = *[ uchar | ";" | ":" | "@" | "&" | "=" ]

The path and search are kept *as on the wire* (still encoded): an HTTP server gives meaning
to ``%2F`` versus ``/`` (RFC 1630 §4.1.2 example 2), so decoding them here would lose
information.  ``path`` includes its leading "/" ("" when the URL has none).  "No user name
or password is allowed" (§3.3): refused in strict mode, kept in lenient mode.
"""

from __future__ import annotations

from . import grammar, precompiled
from .authority import format_fragment, format_login, parse_ip_schemepart
from .base import InternetURL, _tnew, class_constants, tuple_backed
from .percent import check, decode
from .records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from typing import Any, ClassVar, Final

_BAD_HPATH = grammar.lazy_bad_char(grammar.HSEGMENT + "/")
_BAD_SEARCH = grammar.lazy_bad_char(grammar.SEARCH)
# Lenient mode: characters never sent raw on an HTTP request line (controls, space, non-ASCII,
# and §2.2's unsafe/national ones a server may misread) are encoded at parse time.
_NEVER_RAW = grammar.Lazy(r'[^\x21-\x7e]|["<>\\^`{|}]')  # (lenient text only: on first use)


def _encode_never_raw(text: str) -> str:
    return _NEVER_RAW.sub(
        lambda m: "".join(f"%{b:02X}" for b in m.group().encode("utf-8", "surrogateescape")),
        text,
    )


# httpurl = "http://" hostport [ "/" hpath [ "?" search ]]      (the fast path, see grammar)
# The login's user and password groups serve the default reading (RFC 3986 §3.2.1 allows a
# userinfo; §3.3 of RFC 1738 does not: the strict reading refuses a URL that fills them).
_PATTERN = (
    "//"
    + grammar.LOGIN_FAST
    + rf"(?:(/{grammar.fast(grammar.HSEGMENT + '/')})"
    + rf"(?:\?({grammar.fast(grammar.SEARCH)}))?)?"
    + grammar.FRAGMENT_FAST
)
_FAST = grammar.Lazy(_PATTERN)  # (the strict reading: compiled on first use)
_LAX = grammar.Lazy(grammar.lax(_PATTERN))  # (the lenient reading's: compiled on first use)
# The default reading's (``_parse_default``): RFC 3986's hosts, empty ports, "/" and "?" in
# the search (§3.4), and "host?search" without a path (what the general way reads so:
# authority.parse_ip_schemepart's lenient_search).
_DEFAULT_PATTERN = (
    "//"
    + grammar.LOGIN_FAST
    + rf"(/{grammar.fast(grammar.HSEGMENT + '/')})?"
    + rf"(?:\?({grammar.fast(grammar.SEARCH + '/?')}))?"
    + grammar.FRAGMENT_FAST
)
_DEFAULT = grammar.Lazy(grammar.default(_DEFAULT_PATTERN))  # (a URL with "@": on first use)
#: The same for a URL without "@" (its host scanned once: grammar.without_login).
_DEFAULT_HOST = precompiled.compile(grammar.default(grammar.without_login(_DEFAULT_PATTERN)))
_DEFAULT_HOST_MATCH: Final = _DEFAULT_HOST.fullmatch  # (a static: see grammar.match_groups)
#: A long URL without "@": its path, search and fragment are longer than ``re`` scans cheaply
#: (``_parse_long``).  Its length from the "//" on, at and above which the two steps pay
#: (docs/speed.md, *seventh round (cost per character)*).
_LONG: Final = 128
#: The head of :data:`_DEFAULT_HOST`: "//" host [":" port], followed by "/", "?", "#" or the
#: end (groups: host, port).  (From the table at import, as _DEFAULT_HOST: a get of a long URL
#: imports no ``re``.)
_DEFAULT_HEAD: Final = precompiled.compile(
    grammar.default(grammar.without_login("//" + grammar.LOGIN_FAST)) + "(?![^/?#])"
)
_DEFAULT_HEAD_MATCH: Final = _DEFAULT_HEAD.match
#: The characters of the search and the fragment (the same class: RFC 3986 §3.4, §3.5), and
#: "#" between them; the path's are these but "?" (§3.3), which ends it.  ("%": escapes.)
_TAIL_CLASS: Final = grammar.SEARCH + "/?~%#"
_TAIL: Final = grammar.class_table(_TAIL_CLASS)


@tuple_backed
@record(frozen=True, kw_only=True)
@class_constants
class HTTPURL(InternetURL):
    """``http://host:port/path?search`` (§3.3)."""

    #: The path as on the wire, still encoded, with its leading "/"; "" when absent.
    path: str = ""
    #: The search part after "?", still encoded; None when there is no "?".
    search: str | None = None

    schemes: ClassVar[tuple[str, ...]] = ("http",)
    DEFAULT_PORT: ClassVar[int | None] = 80

    @classmethod
    def from_text(cls, text: str, *, scheme: str, rest: str, strict: bool = True) -> HTTPURL:
        return cls._parse_at(text, len(text) - len(rest), scheme, strict)

    @classmethod
    def _parse_at(cls, text: str, start: int, scheme: str, strict: bool) -> HTTPURL:
        url = _httpurl_from_match(
            cls, (_FAST.get() if strict else _LAX.get()).fullmatch(text, start), text, start, scheme
        )
        if url is None or (strict and url.user is not None):
            return cls._parse_slow(text, start, scheme, strict)
        return url

    @classmethod
    def _parse_default(cls, text: str, start: int, scheme: str) -> HTTPURL | None:
        if "@" not in text:
            if len(text) - start >= _LONG:
                return _parse_long(cls, text, start, scheme)
            return _httpurl_from_match(cls, _DEFAULT_HOST_MATCH(text, start), text, start, scheme)
        m = _DEFAULT.get().fullmatch(text, start)
        if m is not None and m.group(5) is None:
            search = m.group(6)
            if search is not None and "@" in search:
                # "//a?b@h": a "?" in a userinfo, which the general way refuses (an "@"
                # before the "?", "//u@h?q", is the userinfo's: read here, as there)
                return None
        return _httpurl_from_match(cls, m, text, start, scheme)

    @classmethod
    def _parse_slow(cls, text: str, start: int, scheme: str, strict: bool) -> HTTPURL:
        """Component by component: the whole grammar, and the offset of any error."""
        # lenient: "http://host?q" (no "/" before "?") as browsers read it
        fields, auth_end, end = parse_ip_schemepart(
            text, start, scheme, strict, userinfo=False, userinfo_rule="§3.3", lenient_search=True
        )
        if auth_end < end:
            q = text.find("?", auth_end, end)
            path_end = end if q < 0 else q
            if strict:
                check(text, auth_end + 1, path_end, _BAD_HPATH, "path", "§3.3: '?' in the path")
                if q >= 0:
                    check(text, q + 1, end, _BAD_SEARCH, "search", "§3.3: '/' and '?' in search")
            path = text[auth_end:path_end]
            search = None if q < 0 else text[q + 1 : end]
            if not strict:
                path = _encode_never_raw(path)
                if search is not None:
                    search = _encode_never_raw(search)
            fields["path"] = path
            fields["search"] = search
        return cls._make(fields)

    def __str__(self) -> str:
        out = f"{self.scheme}://{format_login(self.user, self.password, self.host, self.port)}"
        out += self.path
        if self.search is not None:
            out += "?" + self.search
        return out + format_fragment(self.fragment)

    @property
    def target(self) -> str:
        """The request-target of the HTTP request line: path (or "/") and "?search"."""
        target = self.path or "/"
        return target if self.search is None else f"{target}?{self.search}"

    def components(self) -> dict[str, Any]:
        out = self.authority_json()
        out["path"] = self.path
        out["search"] = self.search
        return out


def _parse_long(cls: type[HTTPURL], text: str, start: int, scheme: str) -> HTTPURL | None:
    """:data:`_DEFAULT_HOST`'s fullmatch of a long URL without "@", in two steps: the head
    (host and port) matched by ``re``, the rest split at its first "#" and its first "?"
    before that, its characters and escapes checked by :func:`grammar.tail_ok` — the same
    URL, or None where the fullmatch gives None.

    Why the two give the same: after the head, the pattern is ``(/P*)?([?]Q*)?(#Q*)?`` where
    ``Q`` is :data:`_TAIL_CLASS` without "#" and ``P`` is ``Q`` without "?": that is every
    text of ``Q`` and at most one "#" that starts with "/", "?" or "#" or is empty (the head's
    look-ahead), read at its first "#" and the first "?" before it.  Why: ``re``'s class scan
    is ~22 instructions a character, the translate's ~10 (grammar.tail_ok)."""
    m = _DEFAULT_HEAD_MATCH(text, start)
    if m is None:
        return None
    host, port = grammar.match_groups(m)
    # (where the match ends: not "//", the host and ":port" counted, since the default
    # reading's port group leaves out a port's leading zeros and an empty port's ":")
    tail = m.end()
    n = len(text)
    hash_at = text.find("#", tail)
    if hash_at < 0:
        hash_at = n
        fragment = None
    elif text.find("#", hash_at + 1) >= 0:
        return None
    else:
        fragment = text[hash_at + 1 :]
    # (escapes: the head holds a "%" only in an IPv6 zone id, where "%25" is the pattern's)
    if not grammar.tail_ok(text, tail, _TAIL):
        return None
    q = text.find("?", tail, hash_at)
    end = hash_at if q < 0 else q
    return _httpurl_from_groups(
        cls,
        (
            host,
            port,
            text[tail:end] if tail < end else None,  # (the head's look-ahead: it starts "/")
            None if q < 0 else text[q + 1 : hash_at],
            fragment,
        ),
        scheme,
    )


def _httpurl_from_match(
    cls: type[HTTPURL], m: re.Match[str] | None, text: str, start: int, scheme: str
) -> HTTPURL | None:
    """The URL the fast pattern's match ``m`` stands for, or None for the slow path."""
    if m is None or not grammar.escapes_ok(text, start):
        return None
    return _httpurl_from_groups(cls, grammar.match_groups(m), scheme)


def _httpurl_from_groups(
    cls: type[HTTPURL], groups: tuple[Any, ...], scheme: str
) -> HTTPURL | None:
    """The URL of a fast pattern's groups (user and password first, or not: a pattern of
    :func:`grammar.without_login`), or None for the slow path."""
    if len(groups) == 5:  # (grammar.without_login's pattern: no user, no password)
        user = password = None
        host, port, path, search, fragment = groups
    else:
        user, password, host, port, path, search, fragment = groups
    if port is not None and len(port) == 5 and int(port) > 65535:
        return None
    if host[0] == "[" and not grammar.ipv6_ok(host):
        return None
    if user is not None:
        if "%" in user:
            user = decode(user)
        if password is not None and "%" in password:
            password = decode(password)
    # scheme, fragment, user, password, host, port, path, search (tuple_backed)
    return _tnew(
        cls,
        (
            scheme,
            fragment,
            user,
            password,
            host,
            int(port) if port else None,
            path or "",
            search,
        ),
    )


@tuple_backed
@record(frozen=True, kw_only=True)
@class_constants
class HTTPSURL(HTTPURL):
    """``https://host:port/path?search`` — HTTP over TLS (RFC 2818), the syntax of §3.3."""

    schemes: ClassVar[tuple[str, ...]] = ("https",)
    DEFAULT_PORT: ClassVar[int | None] = 443
