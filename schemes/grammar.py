"""RFC 1738 §5's BNF, written once as named regular-expression pieces (the h11 way).

Every piece carries the BNF line it implements in a comment above it.  The pieces are
*character-class contents* (strings meant to go inside ``[...]``) and whole patterns; the
scheme modules compose them into one compiled pattern per production, so a URL is validated
by a handful of precompiled matches rather than character-by-character Python code.

Where omniurl departs from the BNF, the comment says so and why (``[IPv6]`` literals, the
fragment, RFC 6068 mailto header fields).
"""

from __future__ import annotations

import sys

from . import precompiled

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from re import Match, Pattern
    from typing import Any, Final


class Lazy:
    """A pattern compiled on its first use, with the compiled pattern's ``search``,
    ``match``, ``fullmatch``, ``finditer`` and ``sub``.

    Compiling costs at import what only some URLs use: the strict reading's fast patterns
    (the default reading asks its own first: 0.3-1 ms a scheme), and the patterns of the
    component checks, the hostname and group rules, the lone-surrogate and password
    searches (the slow paths: ~20 patterns, ~2 ms of every ``omniurl parse`` and ``plan``,
    fresh venv, 2026-11-28).  A URL the default reading takes in one match uses none."""

    __slots__ = ("_compiled", "source")

    def __init__(self, source: str) -> None:
        self.source = source
        self._compiled: Pattern[str] | None = None

    def get(self) -> Pattern[str]:
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = precompiled.compile(self.source)
        return compiled

    @property
    def pattern(self) -> str:
        return self.source

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> Match[str] | None:
        return self.get().search(string, pos, endpos)

    def match(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> Match[str] | None:
        return self.get().match(string, pos, endpos)

    def fullmatch(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> Match[str] | None:
        return self.get().fullmatch(string, pos, endpos)

    def finditer(
        self, string: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> Iterator[Match[str]]:
        return self.get().finditer(string, pos, endpos)

    def sub(self, repl: str | Callable[[Match[str]], str], string: str, count: int = 0) -> str:
        return self.get().sub(repl, string, count)


# -- Miscellaneous definitions (§5) ------------------------------------------------------------

# alpha = lowalpha | hialpha
ALPHA = "A-Za-z"
# digit = "0" | "1" | ... | "9"
DIGIT = "0-9"
# safe = "$" | "-" | "_" | "." | "+"
SAFE = r"$\-_.+"
# extra = "!" | "*" | "'" | "(" | ")" | ","
EXTRA = r"!*'(),"
# national = "{" | "}" | "|" | "\" | "^" | "~" | "[" | "]" | "`"
NATIONAL = "{}|\\^~[]`"
# punctuation = "<" | ">" | "#" | "%" | <">
PUNCTUATION = '<>#%"'
# reserved = ";" | "/" | "?" | ":" | "@" | "&" | "="
RESERVED = ";/?:@&="
# unreserved = alpha | digit | safe | extra
UNRESERVED = ALPHA + DIGIT + SAFE + EXTRA
# hex = digit | "A" | ... | "F" | "a" | ... | "f"
HEX = "0-9A-Fa-f"
# escape = "%" hex hex
ESCAPE = f"%[{HEX}]{{2}}"

#: The characters §2.2 lets appear unencoded anywhere: "only alphanumerics, the special
#: characters "$-_.+!*'()," ... may be used unencoded within a URL" (as a plain string).
UNRESERVED_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789$-_.+!*'(),"

# -- character classes of the components (contents of [...]; escapes are added separately) ----

# uchar = unreserved | escape
UCHAR = UNRESERVED
# xchar = unreserved | reserved | escape
XCHAR = UNRESERVED + r";/?:@&="
# user = *[ uchar | ";" | "?" | "&" | "=" ]      password: the same
USER = UNRESERVED + r";?&="
# fsegment = *[ uchar | "?" | ":" | "@" | "&" | "=" ]   (ftp, file)
FSEGMENT = UNRESERVED + r"?:@&="
# hsegment = *[ uchar | ";" | ":" | "@" | "&" | "=" ]   (http)
HSEGMENT = UNRESERVED + r";:@&="
# search = *[ uchar | ";" | ":" | "@" | "&" | "=" ]     (http, wais)
SEARCH = UNRESERVED + r";:@&="
# psegment = *[ uchar | "?" | ":" | "@" | "&" | "=" ]   (prospero)
PSEGMENT = UNRESERVED + r"?:@&="
# fieldname = *[ uchar | "?" | ":" | "@" | "&" ]        fieldvalue: the same (prospero)
FIELD = UNRESERVED + r"?:@&"
# article = 1*[ uchar | ";" | "/" | "?" | ":" | "&" | "=" ] "@" host   (the part before "@")
ARTICLE = UNRESERVED + r";/?:&="
# group = alpha *[ alpha | digit | "-" | "." | "+" | "_" ]
GROUP = r"[A-Za-z][A-Za-z0-9\-.+_]*"
# The fragment (RFC 1630 §4.2, fragmentid = xalphas): omniurl accepts any xchar.
FRAGMENT = XCHAR

# -- host (§3.1, §5) -----------------------------------------------------------------------------

# alphadigit = alpha | digit
# domainlabel = alphadigit | alphadigit *[ alphadigit | "-" ] alphadigit
DOMAINLABEL = r"[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?"
# toplabel = alpha | alpha *[ alphadigit | "-" ] alphadigit
TOPLABEL = r"[A-Za-z](?:[A-Za-z0-9\-]*[A-Za-z0-9])?"
# hostname = *[ domainlabel "." ] toplabel
HOSTNAME = rf"(?:{DOMAINLABEL}\.)*{TOPLABEL}"
# hostnumber = digits "." digits "." digits "." digits   (each group checked <= 255 in code)
HOSTNUMBER = r"[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+"
# Modern extension (RFC 3986 §3.2.2): "[" IPv6address "]" (validated by ipaddress in code).
IP_LITERAL = r"\[[0-9A-Fa-f:.]+\]"
# host = hostname | hostnumber
HOST = rf"(?:{HOSTNAME}|{HOSTNUMBER}|{IP_LITERAL})"
# port = digits
PORT = r"[0-9]+"

# -- scheme (§2.1) -------------------------------------------------------------------------------

# scheme = 1*[ lowalpha | digit | "+" | "-" | "." ]   ("interpreters should use case-ignore")
SCHEME_RE = Lazy(r"[A-Za-z0-9+\-.]+")

# (each compiled on its first use: the strict reading's and the general way's, grammar.Lazy)
HOSTNAME_RE = Lazy(HOSTNAME)
HOSTNUMBER_RE = Lazy(HOSTNUMBER)
GROUP_RE = Lazy(GROUP)
DIGITS_RE = Lazy(r"[0-9]+")


def component(cls: str) -> str:
    """``*[ <cls> | escape ]`` as a pattern string.

    The repetition is possessive (``*+``, Python 3.11): every component ends at a delimiter
    its class excludes, so giving characters back could never help a match — and not
    trying saves the backtracking that made a failed optional ``user@`` cost O(n) per URL.
    """
    return f"(?:[{cls}]|{ESCAPE})*+"


def bad_char(cls: str) -> Pattern[str]:
    """A pattern finding the first character that breaks ``*[ <cls> | escape ]``: a character
    outside the class, or a ``%`` not followed by two hex digits."""
    import re

    return re.compile(f"[^{cls}%]|%(?![{HEX}]{{2}})")


def lazy_bad_char(cls: str) -> Lazy:
    """:func:`bad_char`'s pattern, compiled on its first use (:class:`Lazy`): what the
    scheme modules keep for their component checks, which a URL the default reading takes
    in one match never makes."""
    return Lazy(f"[^{cls}%]|%(?![{HEX}]{{2}})")


def bad_escape() -> Pattern[str]:
    """A pattern finding a ``%`` not followed by two hex digits (lenient mode's only check on
    characters is none at all; this one is for strict components that allow any character)."""
    import re

    return re.compile(f"%(?![{HEX}]{{2}})")


# -- the fast path ---------------------------------------------------------------------------
# Each scheme compiles one pattern for its whole scheme-specific part from the pieces below
# and tries it first: one match validates the common, strictly valid URL.  These pieces accept
# a strict subset of the full grammar (hostnames only: IPv4 and [IPv6] hosts, ports above
# 65535 and anything unusual take the slower component-by-component path, which also finds
# the offset of an error).  tests/test_properties_parse.py checks both paths agree.


def fast(cls: str) -> str:
    """The fast path's ``*[ <cls> | escape ]``: one character class with "%" in it (a class
    scan is several times faster than an alternation per character).  Whether every "%"
    starts an escape is checked once per URL with :data:`STRAY_PERCENT`."""
    return f"[{cls}%]*+"


def fast_plus(cls: str) -> str:
    """The fast path's ``1*[ <cls> | escape ]`` (see :func:`fast`)."""
    return f"[{cls}%]++"


def without_login(pattern: str) -> str:
    """``pattern`` with its :data:`LOGIN_FAST` reduced to a hostport: for a URL without "@",
    whose host the login's optional user would otherwise scan twice (~25% of an http URL's
    match).  The match has two groups fewer (no user, no password: the caller reads a
    match of two groups fewer as a URL without them); groups kept that could never match,
    ``(?:(?!)()())?``, cost ~450 instructions a URL of the default reading (callgrind,
    HTTP's pattern, the fifth mix's http URLs)."""
    return pattern.replace(LOGIN_FAST, rf"({HOST_FAST})(?::([0-9]{{1,5}}))?")


def lax(pattern: str) -> str:
    """A fast-path pattern with ``~`` added to every ``fast``/``fast_plus`` class: the pattern
    of a scheme's default and lenient readings (``strict=False``), where RFC 3986 §2.3 makes
    ``~`` unreserved (RFC 1738 §2.2 calls it unsafe: the strict pattern refuses it).  Every
    such class ends in ``%]`` (see :func:`fast`); a login is :data:`LOGIN_LAX`'s."""
    lax_login = LOGIN_LAX.replace(IP_LITERAL_FAST, IP_LITERAL_LAX)
    pattern = pattern.replace(LOGIN_FAST, lax_login).replace(IP_LITERAL_FAST, IP_LITERAL_LAX)
    return pattern.replace("%]", "~%]")


def ipv6_ok(host: str) -> bool:
    """Whether ``host``, matched by :data:`IP_LITERAL_FAST` (hex digits and ":" in brackets)
    or :data:`IP_LITERAL_LAX` (and a zone id, RFC 6874, or an IPv4 tail), is an RFC 3986
    §3.2.2 IPv6address: eight groups of 1-4 digits, or fewer around one "::", the last two
    of them possibly written as a dotted IPv4 address (``::ffff:192.0.2.1``: four numbers
    0-255 without leading zeros) — the set ``ipaddress.IPv6Address`` accepts of such text,
    in a fifth of its time (tests/test_parse_fast_default.py compares them).  An IPvFuture
    literal (``[v7.x]``: only :data:`HOST_DEFAULT` matches one, its whole grammar) is one."""
    inner = host[1:-1]
    if inner[:1] in ("v", "V"):
        return True
    if "%" in inner:  # a zone id (RFC 6874: "%25" and the zone, matched by the pattern)
        inner = inner[: inner.index("%")]
    if "." in inner:  # an IPv4 tail (§3.2.2's ls32): the last group, two groups' worth
        last = inner.rfind(":")
        if last < 0 or inner.find(".") < last or not _ipv4_strict(inner, last + 1):
            return False  # (a "." before the last ":" is in a hex group: none may hold one)
        inner = inner[: last + 1] + "0:0"
    head, sep, tail = inner.partition("::")
    if sep:
        if tail.startswith(":") or "::" in tail:
            return False
        groups = (head.split(":") if head else []) + (tail.split(":") if tail else [])
        if len(groups) > 7:
            return False
    else:
        groups = inner.split(":")
        if len(groups) != 8:
            return False
    for group in groups:  # noqa: SIM110 (a loop: no generator object per host)
        if not 0 < len(group) <= 4:
            return False
    return True


def _ipv4_strict(text: str, start: int) -> bool:
    """Whether ``text[start:]`` is four dot-separated numbers 0-255, each "0" or without a
    leading zero (RFC 3986 §3.2.2's dec-octet; what ``ipaddress.IPv4Address`` accepts)."""
    octets = text[start:].split(".")
    if len(octets) != 4:
        return False
    for octet in octets:
        n = len(octet)
        if not 0 < n <= 3 or not octet.isdigit() or (n > 1 and octet[0] == "0"):
            return False
        if n == 3 and int(octet) > 255:
            return False
    return True


#: A "%" that starts no escape: the fast path leaves such a URL to the slow path.
STRAY_PERCENT: Pattern[str] = precompiled.compile(f"%(?![{HEX}]{{2}})")


def _match_groups() -> Callable[[Match[str]], tuple[Any, ...]]:
    """``Match.groups``, the type taken from a match (a parse imports no ``re``)."""
    m = STRAY_PERCENT.match("%")
    assert m is not None
    return type(m).groups


#: ``Match.groups`` called as a function, as the fast paths read their match: compiled,
#: ``m.groups()`` is a method looked up by name at every call (``_PyObject_GetMethod``, then
#: ``PyObject_VectorcallMethod``), where the descriptor kept here is one vectorcall.
match_groups: Final = _match_groups()
#: Whether mypyc compiled this module (setup.py): a compiled module's file is the extension.
_COMPILED = not __file__.endswith(".py")


def escapes_ok(text: str, start: int) -> bool:
    """Whether every "%" of ``text[start:]`` starts an escape of two hex digits (RFC 3986
    §2.1): ``STRAY_PERCENT.search(text, start) is None``, which the fast paths ask of every
    URL holding a "%".  Compiled, a loop of ``find`` and ``ord``, where the search costs a
    method call into ``re`` and its state set up (~130 ns a URL and more, measured on the
    mailto-with-a-query URLs of benchmarks/parse_bench.py) and the loop of ``in "0123…f"``
    it replaced ~920 instructions an escape (callgrind, a 174-character http URL with 14
    escapes; ~315 with ``ord``).  An escape right after an escape (percent-encoded UTF-8:
    two to four in a row) is read without a ``find``, whose call was most of an escape's
    cost: on benchmarks/parse_bench.py's fifth mix, compiled, 0.94 → 0.55 µs a URL of
    percent-encoded UTF-8 paths and 3.24 → 1.47 µs a URL of 10-60 query pairs (best of 5,
    standalone mypyc module, the same URLs).  Interpreted (the pure package), the search: a
    loop is slower there than ``re`` scanning."""
    i = text.find("%", start)
    if i < 0:
        return True
    if not _COMPILED:
        return STRAY_PERCENT.search(text, i) is None
    n = len(text)
    while True:
        if i + 2 >= n:
            return False
        c = ord(text[i + 1])
        if not (48 <= c <= 57 or 65 <= c <= 70 or 97 <= c <= 102):  # 0-9 A-F a-f
            return False
        c = ord(text[i + 2])
        if not (48 <= c <= 57 or 65 <= c <= 70 or 97 <= c <= 102):
            return False
        i += 3
        if i < n and ord(text[i]) == 37:  # "%": the next escape at once (UTF-8's runs)
            continue
        i = text.find("%", i)
        if i < 0:
            return True


def class_table(cls: str) -> bytes:
    """A ``bytes.translate`` table for ``*[ <cls> | escape ]`` (``cls`` the contents of a
    class as the fast patterns write them: ranges ``a-z`` and ``\\``-escaped characters; an
    escape is allowed where "%" is in ``cls``): each byte of the class to a code — "%" to
    "%", a hex digit to "h", any other to "g" — and every other byte to 0 (the NUL byte is in
    no class).  What :func:`tail_ok` reads a long component with."""
    members: set[int] = set()
    i = 0
    n = len(cls)
    while i < n:
        c = cls[i]
        if c == "\\":
            i += 1
            c = cls[i]
        if i + 2 < n and cls[i + 1] == "-":
            last = cls[i + 2]
            if last == "\\":
                i += 1
                last = cls[i + 2]
            members.update(range(ord(c), ord(last) + 1))
            i += 3
        else:
            members.add(ord(c))
            i += 1
    codes = []
    for b in range(256):
        if b == 0 or b not in members:
            codes.append(0)
        elif b == 37:  # "%"
            codes.append(37)
        elif 48 <= b <= 57 or 65 <= b <= 70 or 97 <= b <= 102:  # 0-9 A-F a-f
            codes.append(104)  # "h"
        else:
            codes.append(103)  # "g"
    return bytes(codes)


#: ``str.isascii`` called as a function (compiled, a method looked up by name: fastparse's).
_isascii: Final = str.isascii


def tail_ok(text: str, start: int, table: bytes) -> bool:
    """Whether ``text[start:]`` is ``*[ <cls> | escape ]`` for the class ``table`` was made of
    (:func:`class_table`): what a fast pattern's ``[<cls>%]*+`` and :func:`escapes_ok` check
    together, the characters at under half ``re``'s cost on long text.

    Why: ``re`` runs a class of ``[...]*+`` one character at a time through ``charset``
    (``sre_ucs1_count``: ~22 instructions, ~2-4 ns a character, compiled fresh venv), where
    ``bytes.translate`` maps each byte through the table (~1.5 ns) and ``0 in`` is a
    ``memchr``.  The escapes are :func:`escapes_ok`'s (a ``find`` for each "%"), as in the
    one match: not ``find``s of two- and three-byte codes in the translated text
    (``"%g"``, ``"%h%"``…), which an earlier version made — ``bytes.find`` of a needle of two
    or more bytes compares at every position where the needle's last byte occurs, and in a
    text of class codes that is a data-dependent branch at nearly every byte: on the fifth
    mix's long queries, each such ``find`` took ~2.2 µs against ~1.2 µs for the same text
    searched again (the branch predictor learns a repeated text: what timing one query in a
    loop measures) and ~0.2 µs for a one-byte ``find`` (``memchr``).  That was the four
    ``find``s' 8-9 µs of a 684-character query that "took 11-22 µs where its parts timed
    alone sum to ~4 µs" (docs/speed.md, *seventh round (cost per character)*); callgrind
    counts instructions, not mispredicted branches, so it showed the reverse.  (Measured:
    docs/speed.md, *eighth round (the fifth mix)*.)"""
    if not _isascii(text):  # (the default reading's fast paths read ASCII text only)
        return False
    if 0 in text[start:].encode().translate(table):
        return False
    return escapes_ok(text, start)


def span_ok(text: str, start: int, end: int, table: bytes) -> bool:
    """Whether every character of ``text[start:end]`` is of the class ``table`` was made of
    (:func:`class_table`), by ``bytes.translate`` as :func:`tail_ok` (escapes not checked)."""
    return _isascii(text) and 0 not in text[start:end].encode().translate(table)


# hostname, the same language as HOSTNAME written for speed: possessive runs, and a
# lookbehind ("a label does not end with '-'") where HOSTNAME backtracks.  Possessive
# "label." repetitions are safe because what follows a host (":", "/", "#", the end) never
# starts a label.  (The lookbehind sits after the run, not inside an optional group: one
# group fewer per label, ~25% of the host's match time.)
DOMAINLABEL_FAST = r"[A-Za-z0-9][A-Za-z0-9\-]*+(?<!-)"
TOPLABEL_FAST = r"[A-Za-z][A-Za-z0-9\-]*+(?<!-)"
HOSTNAME_FAST = rf"(?:{DOMAINLABEL_FAST}\.)*+{TOPLABEL_FAST}"
# hostnumber with each group 0-255 in at most three digits (the check the slow path makes in
# code, §3.1); longer zero-padded groups ("0001") are left to the slow path.
_OCTET_FAST = r"(?:25[0-5]|2[0-4][0-9]|[01]?[0-9]?[0-9])"
HOSTNUMBER_FAST = rf"{_OCTET_FAST}\.{_OCTET_FAST}\.{_OCTET_FAST}\.{_OCTET_FAST}"
# "[" IPv6address "]" (RFC 3986 §3.2.2) in hexadecimal groups: the pattern only says which
# characters; :func:`ipv6_ok` checks the groups once the whole URL matched (a pattern for
# RFC 3986's nine alternatives is ~2 KB and costs its compile time in every start).  In the
# strict reading an embedded IPv4 tail, IPvFuture and a zone id (RFC 6874, which it refuses)
# take the slower path; the default and lenient readings' pattern (:func:`lax`)
# takes a zone of unreserved characters and an IPv4 tail ("." among the digits: up to
# ``ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255``, 45 characters).
IP_LITERAL_FAST = r"\[[0-9A-Fa-f:]{2,39}\]"
IP_LITERAL_LAX = r"\[[0-9A-Fa-f:.]{2,45}(?:%25[A-Za-z0-9\-._~]+)?\]"
# host = hostname | hostnumber | IP-literal  (the fast path's hosts)
HOST_FAST = rf"(?:{HOSTNAME_FAST}|{HOSTNUMBER_FAST}|{IP_LITERAL_FAST})"

# login = [ user [ ":" password ] "@" ] hostport     groups: user, password, host, port
LOGIN_FAST = rf"(?:({fast(USER)})(?::({fast(USER)}))?@)?({HOST_FAST})(?::([0-9]{{1,5}}))?"
# The same for the default reading (with :func:`lax`): RFC 3986 §3.2 ends the authority at
# "?", so a user or password holding one is left to the slow path, which says so.
LOGIN_LAX = LOGIN_FAST.replace(fast(USER), fast(USER.replace("?", "")))
# hostport = host [ ":" port ]                       groups: host, port
HOSTPORT_FAST = rf"({HOST_FAST})(?::([0-9]{{1,5}}))?"
# [ "#" fragment ]                                   group: fragment
FRAGMENT_FAST = rf"(?:#({fast(FRAGMENT)}))?"


# -- the default reading's fast path (RFC 3986's characters, RFC 1738's meanings) --------------
# A host in the default reading is RFC 3986 §3.2.2's: an IP literal, an IPv4 address, or a
# reg-name of unreserved characters and sub-delims (``h_1.example``, ``1.2.3``, a trailing
# "."), kept as written (authority.check_host's lenient rule); escapes in a reg-name are
# decoded by the general way (rfc3986.prepare), so "%" is not taken here.  A reg-name that
# is four dot-separated numbers is an IPv4 address, and each number must be 0-255: such a
# host takes the HOSTNUMBER_FAST alternative or none.
_REG_NAME_CHARS = r"A-Za-z0-9\-._~!$&'()*+,;="
#: An IPv4 number of the default reading: 0-255 after any leading zeros (``0177.0.0.1``,
#: as other tools write octal: the general way reads each number as decimal, keeps the host
#: as written, and refuses only a number above 255, authority.check_host).
_OCTET_DEFAULT = r"0*(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
_HOSTNUMBER_DEFAULT = rf"{_OCTET_DEFAULT}\.{_OCTET_DEFAULT}\.{_OCTET_DEFAULT}\.{_OCTET_DEFAULT}"
#: IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )  (RFC 3986 §3.2.2), kept
#: as written, as the general way keeps it (rfc3986.check_ip_literal); :func:`ipv6_ok` says
#: yes to it (no other fast pattern's literal starts with "v").
_IPVFUTURE_DEFAULT = r"\[[vV][0-9A-Fa-f]++\.[A-Za-z0-9\-._~!$&'()*+,;=:]++\]"
HOST_DEFAULT = (
    rf"(?:(?![0-9]++\.[0-9]++\.[0-9]++\.[0-9]++(?![{_REG_NAME_CHARS}]))[{_REG_NAME_CHARS}]++"
    rf"|{_HOSTNUMBER_DEFAULT}|{IP_LITERAL_LAX}|{_IPVFUTURE_DEFAULT})"
)
_PORT_FAST = r"(?::([0-9]{1,5}))?"
#: An empty port means none in the default reading (RFC 3986 §3.2.3: "port = *DIGIT"); the
#: group is then None (read it with ``int(port) if port else None``).  Leading zeros are
#: digits of the number, however many (``:00000000000000000000080`` is 80, as the general
#: way reads it: WPT's and curl's tests write such ports): the group holds the last one to
#: five digits after them ("0" for a port of zeros), so that a reader's ``len(port) == 5
#: and int(port) > 65535`` still finds a port out of range.
_PORT_DEFAULT = r"(?::0*([0-9]{1,5})|:)?"


def default(pattern: str) -> str:
    """:func:`lax` with RFC 3986's hosts (:data:`HOST_DEFAULT`) and empty ports: the pattern
    of a scheme's ``_parse_default``, whose match must give what the general way gives
    (tests/test_parse_fast_default.py), its optional groups written as :func:`alternated`
    says."""
    pattern = lax(pattern)
    pattern = pattern.replace(HOST_FAST.replace(IP_LITERAL_FAST, IP_LITERAL_LAX), HOST_DEFAULT)
    return alternated(pattern.replace(_PORT_FAST, _PORT_DEFAULT))


def alternated(pattern: str) -> str:
    """``pattern`` with each optional group, ``(?:X)?`` or ``(X)?``, written as an
    alternation with an empty branch, ``(?:X|)`` or ``(?:(X)|)``: the same language, the
    same groups (a group of a branch not taken is None, as of a repetition not made), and
    the same order of trying (``X`` first, then nothing), in fewer of ``re``'s steps.

    Why: ``_sre`` runs ``(...)?`` of anything wider than one character as a general
    repetition (its REPEAT and MAX_UNTIL, a context saved at each), and everything after
    it in the pattern as the repetition's continuation, where a branch is one step.  A URL
    pattern is a chain of such groups (login, port, path, query, fragment): rewritten,
    HTTP's default pattern matches a short URL in ~4,300 instructions instead of ~5,800
    and a 690-character one in ~10,800 instead of ~11,500 (callgrind, fullmatch alone, the
    http URLs of benchmarks/parse_bench.py's fifth mix without "@").  Lazy (``??``) and
    possessive (``?+``) groups and lookarounds are left as they are.
    """
    out: list[str] = []
    opens: list[int] = []  # where each open group starts in ``out``
    i = 0
    n = len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":  # an escaped character, as it is
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if c == "[":  # a class, as it is ("]" first, or after "^", is a member)
            j = i + 1
            if j < n and pattern[j] == "^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            out.append(pattern[i : j + 1])
            i = j + 1
            continue
        i += 1
        if c == "(":
            opens.append(len(out))
        elif c == ")":
            start = opens.pop()
            if i < n and pattern[i] == "?" and (i + 1 == n or pattern[i + 1] not in "?+"):
                group = "".join(out[start:]) + ")"
                del out[start:]
                if group.startswith("(?:"):
                    c = group[:-1] + "|)"
                elif group.startswith("(?") and not group.startswith("(?P<"):
                    c = group + "?"  # (a lookaround, as it is)
                else:
                    c = "(?:" + group + "|)"
                i += 1
        out.append(c)
    return "".join(out)
