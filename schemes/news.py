"""news: and snews: URLs (RFC 1738 §3.6; RFC 5538 §2).

::

    newsurl   = "news:" grouppart                                     (RFC 1738 §5)
    grouppart = "*" | group | article
    group     = alpha *[ alpha | digit | "-" | "." | "+" | "_" ]
    article   = 1*[ uchar | ";" | "/" | "?" | ":" | "&" | "=" ] "@" host

"A message identifier may be distinguished from a news group name by the presence of the
commercial at "@" character."  ``message_id`` is decoded and without the enclosing "<>";
``newsgroup`` is "*" for "all available news groups".

RFC 5538 (the default reading; ``--rfc1738`` keeps the letter above) adds what every
newsreader writes: a server, ``news://server[:port]/group`` and ``news://server/message-id``
(``host``/``port``; ``None`` when the URL names none, and the configured server is used);
``news://server/`` for all of that server's groups; group names as RFC 3977 §4.1 allows
them; wildmats (RFC 3977 §4: ``news:comp.*``, ``news://server/comp.*,!comp.os.*``), kept in
``newsgroup`` (see :attr:`NewsURL.wildmat`); and ``snews:``, the same over TLS (port 563).
"""

from __future__ import annotations

import re

from . import grammar
from .authority import check_host, format_fragment, format_login, parse_hostport, split_fragment
from .base import URL, _tnew, class_constants, tuple_backed
from .errors import SchemeSyntaxError
from .percent import char_error, check, decode, display, quote
from .records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar, Final

_BAD_UNIQUE = grammar.lazy_bad_char(grammar.ARTICLE)
_NOT_GROUP = grammar.Lazy(r"[^A-Za-z0-9\-.+_]")  # (on first use)
#: The wildmat specials of RFC 3977 §4.1 (a group name holds none of them).
WILDMAT_SPECIALS = frozenset("*?[]!,\\")
#: Left raw in a message-id: not "?" (an RFC 3986 query) nor "/" (RFC 5538 §2.1 reads a raw
#: "/" after news://server/ as a delimiter, and the default reading refuses one).
ARTICLE_SAFE = ";:&="


# grouppart = "*" | group | article      (article with a hostname: the fast path, see grammar)
_PATTERN = (
    rf"(?:(\*|{grammar.GROUP})|({grammar.fast_plus(grammar.ARTICLE)}@{grammar.HOSTNAME_FAST}))"
    + grammar.FRAGMENT_FAST
)
_FAST = grammar.Lazy(_PATTERN)  # (the strict reading: compiled on first use)
#: The lenient reading's (RFC 3986 characters: "~"; compiled on first use).
_LAX = grammar.Lazy(grammar.lax(_PATTERN))
# The default reading's (``_parse_default``): a group of RFC 3986 path characters but "%",
# "/", "?" and "@" (RFC 5538 §2.2: a newsgroup-name need not start with a letter; the
# general way takes the text as it stands).
#: The message-id of the default reading whose domain is not a hostname (an IPv4 address,
#: "_" in a name…): the general way reads it to the letter's grammar when it can, else as
#: RFC 3986 path characters (decoded whole); without "/" or "?" in it the two agree.
_ANY_ARTICLE = (
    rf"[{grammar.UNRESERVED};:&=%]++@[{grammar.UNRESERVED};:&=~]++"
    # or an IPv6 literal (the letter's, no zone: checked with grammar.ipv6_ok after the
    # match; "%" first in the class, so that grammar.lax adds no "~", which the letter and
    # then RFC 3986's check of "[" in a path refuse)
    # (and an IPv4 tail: grammar.ipv6_ok reads it as ipaddress does)
    + rf"|[%{grammar.ARTICLE}]++@\[[:0-9A-Fa-f.]{{2,45}}\]"
)
#: (A group with escapes, "%" in its class: decoded and held to RFC 3977 §4.1's printable
#: characters after the match, as the general way does, or left to it.)
_DEFAULT = re.compile(
    grammar.alternated(
        grammar.lax(
            rf"(?:(\*|[{grammar.UNRESERVED};:&=%]++)"
            rf"|({grammar.fast_plus(grammar.ARTICLE)}@{grammar.HOSTNAME_FAST}|{_ANY_ARTICLE}))"
            + grammar.FRAGMENT_FAST
        ).replace(";:&=]++", ";:&=~]++")
    )
)
#: A message-id in encoded angle brackets (``news:%3Cid@host%3E``, as archives and some
#: clients write one): the general way refuses it to the letter (a host does not end in an
#: escape), then reads the text as RFC 3986 path characters, decoded whole, with the enclosing
#: pair taken off (RFC 5538 §2.2): 17-30 µs a URL (issue 32, seventh round).  This takes its
#: shape without "/" (which the general way refuses there), "?" or a non-ASCII character:
#: an "@" raw, the first escape "%3C", the last "%3E" (checked after the match).
_BRACKETED = re.compile(
    grammar.alternated(
        r"(%3[Cc][A-Za-z0-9\-._~!$&'()*+,;=:@%]*+)"
        r"(?:#([A-Za-z0-9\-._~!$&'()*+,;=:@/?%]*+))?"
    )
)
#: The default reading's RFC 5538 server form (``news://server[:port]/…``, ``snews:``): the
#: server as RFC 3986 §3.2.2 writes a host, then every group ("*" or none), a group name or
#: wildmat of unreserved characters, or a message-id without "/" or "?" (RFC 5538 §2.1:
#: a raw "/" there is refused; the general way says so).
_SERVER = re.compile(
    grammar.default(
        "//"
        + grammar.HOSTPORT_FAST
        + rf"(?:/(?:([{grammar.UNRESERVED};:&=]++)"
        + rf"|([{grammar.UNRESERVED};:&=%]*+@[{grammar.UNRESERVED};:&=@%]*+))?)?"
        + grammar.FRAGMENT_FAST
    ).replace(";:&=]++", ";:&=~]++")
)


#: The default reading's matches as bound methods (statics, compiled: see grammar.match_groups).
_DEFAULT_MATCH: Final = _DEFAULT.fullmatch
_BRACKETED_MATCH: Final = _BRACKETED.fullmatch
_SERVER_MATCH: Final = _SERVER.fullmatch


@tuple_backed
@record(frozen=True, kw_only=True)
@class_constants
class NewsURL(URL):
    """``news:<newsgroup-name>``, ``news:*`` or ``news:<message-id>`` (§3.6), with RFC
    5538's ``news://server[:port]/…`` and wildmats in the default reading."""

    newsgroup: str | None = None
    message_id: str | None = None
    #: The server the URL names (RFC 5538 §2.1), as written; None: the configured one.
    host: str | None = None
    #: Its explicit port, or None.
    port: int | None = None

    schemes: ClassVar[tuple[str, ...]] = ("news",)
    #: The NNTP port when the URL names a server (RFC 3977 §3; snews: 563).
    SERVER_PORT: ClassVar[int] = 119

    @classmethod
    def reads_alike(cls, text: str, start: int) -> bool:
        """Whether RFC 1738's letter and the default reading agree on ``text``: not for
        ``news://h/a@b``, a message-id "//h/a@b" to the letter and one on server h to RFC
        5538 (see :func:`schemes.registry.parse`)."""
        return not text.startswith("//", start)

    @property
    def hostname(self) -> str | None:
        """The server for a socket (lower case, IPv6 brackets removed), or None."""
        if self.host is None:
            return None
        h = self.host
        return (h[1:-1] if h.startswith("[") and h.endswith("]") else h).lower()

    @property
    def effective_port(self) -> int | None:
        """The port of the server the URL names, or None when it names none."""
        if self.host is None:
            return None
        return self.port if self.port is not None else self.SERVER_PORT

    @property
    def wildmat(self) -> bool:
        """Whether ``newsgroup`` is a wildmat (RFC 3977 §4: ``*``, ``?``, ``[…]``, ``,``,
        ``!``) rather than one group's name; ``"*"`` is one too: every group."""
        return self.newsgroup is not None and not WILDMAT_SPECIALS.isdisjoint(self.newsgroup)

    @classmethod
    def from_text(cls, text: str, *, scheme: str, rest: str, strict: bool = True) -> NewsURL:
        return cls._parse_at(text, len(text) - len(rest), scheme, strict)

    @classmethod
    def _parse_at(cls, text: str, start: int, scheme: str, strict: bool) -> NewsURL:
        m = None
        if strict or not text.startswith("//", start):
            m = (_FAST.get() if strict else _LAX.get()).fullmatch(text, start)
        url = _newsurl_from_match(cls, m, text, start, scheme)
        return cls._parse_slow(text, start, scheme, strict) if url is None else url

    @classmethod
    def _parse_default(cls, text: str, start: int, scheme: str) -> NewsURL | None:
        if text.find("//", start, start + 2) >= 0:  # RFC 5538's news://server/…
            return _server_from_match(cls, _SERVER_MATCH(text, start), text, start, scheme)
        if text.startswith("%3", start):
            # (asked first: :data:`_DEFAULT` takes no text this takes, and its failing match
            # cost ~2.9 µs of such a URL, compiled)
            m = _BRACKETED_MATCH(text, start)
            url = _bracketed_from_match(cls, m, text, start, scheme)
            if url is not None:
                return url
        return _newsurl_from_match(cls, _DEFAULT_MATCH(text, start), text, start, scheme)

    @classmethod
    def _parse_slow(cls, text: str, start: int, scheme: str, strict: bool) -> NewsURL:
        """Component by component: the whole grammar, and the offset of any error."""
        end, fragment = split_fragment(text, start, strict)
        fields: dict[str, Any] = {"scheme": scheme, "fragment": fragment}
        if not strict and text.startswith("//", start):
            # RFC 5538 §2.1: "news:" "//" authority "/" ( article / newsgroups )
            slash = text.find("/", start + 2, end)
            login_end = end if slash < 0 else slash
            if text.find("@", start + 2, login_end) >= 0:
                raise SchemeSyntaxError(
                    "a news: URL's server takes no user name or password (RFC 5538 §2.1: "
                    "NNTP authenticates with AUTHINFO; use ~/.netrc)",
                    component="user",
                    offset=start + 2,
                )
            host, port = parse_hostport(text, start + 2, login_end, strict=False)
            fields["host"], fields["port"] = host, port
            start = end if slash < 0 else slash + 1
            if start == end:  # "news://server/": every group of that server
                fields["newsgroup"] = "*"
                return cls._make(fields)
        if start == end:
            raise SchemeSyntaxError(
                "a news: URL names a newsgroup, '*' or a message-id (§3.6)",
                component="newsgroup",
                offset=start,
            )
        at = text.rfind("@", start, end)
        if at >= 0 and not strict and text.find("/", start, end) >= 0:
            raise SchemeSyntaxError(
                "a message-id holds no '/' unencoded here (RFC 5538 §2.1: write it %2F)",
                component="message_id",
                offset=text.find("/", start, end),
            )
        if at >= 0:
            if strict:
                check(text, start, at, _BAD_UNIQUE, "message_id", "§3.6")
                if at == start:
                    raise SchemeSyntaxError(
                        "a message-id has a unique part before '@' (§3.6)",
                        component="message_id",
                        offset=start,
                    )
                check_host(text, at + 1, end, strict=True, empty_host=False)
            message_id = decode(text[start:end], "message_id", start)
            if not strict and message_id.startswith("<") and message_id.endswith(">"):
                message_id = message_id[1:-1]  # RFC 5538 §2.2 writes it without them
            fields["message_id"] = message_id
        elif text[start:end] == "*":
            fields["newsgroup"] = "*"
        else:
            if strict and not grammar.GROUP_RE.fullmatch(text, start, end):
                raise _group_error(text, start, end)
            group = decode(text[start:end], "newsgroup", start)
            if not strict:
                _check_group(group, text, start)
            fields["newsgroup"] = group
        return cls._make(fields)

    def __str__(self) -> str:
        if self.message_id is not None:
            unique, at, host = self.message_id.rpartition("@")
            body = (
                f"{quote(unique, ARTICLE_SAFE)}@{_domain(host, self.host is not None)}"
                if at
                else quote(host, ARTICLE_SAFE)
            )
            if self.message_id.startswith("<") and self.message_id.endswith(">"):
                # (the default reading takes one enclosing pair off, RFC 5538 §2.2: an id
                # still in brackets is written inside one more, or it read back without)
                body = f"%3C{body}%3E"
        elif self.newsgroup == "*":
            body = "*"
        else:
            body = quote(self.newsgroup or "", GROUP_SAFE)
        # (no body starts with "//", which would read as RFC 5538's server: "/" is escaped)
        server = "" if self.host is None else f"//{format_login(None, None, self.host, self.port)}/"
        return f"{self.scheme}:{server}{body}{format_fragment(self.fragment)}"

    def components(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "newsgroup": None if self.newsgroup is None else display(self.newsgroup),
            "message_id": None if self.message_id is None else display(self.message_id),
        }
        if self.host is not None:  # (RFC 5538's form only: RFC 1738's keeps its two keys)
            out["host"] = display(self.host)
            out["port"] = self.port
        return out


def _newsurl_from_match(
    cls: type[NewsURL], m: re.Match[str] | None, text: str, start: int, scheme: str
) -> NewsURL | None:
    """The URL the fast pattern's match ``m`` stands for, or None for the slow path."""
    if m is not None and grammar.escapes_ok(text, start):
        group, article, fragment = grammar.match_groups(m)
        if (  # (a message-id at an IPv6 literal)
            article is not None
            and article[-1] == "]"
            and not grammar.ipv6_ok(article[article.rindex("@") + 1 :])
        ):
            return None
        if group is not None and "%" in group:
            group = decode(group)
            if not _printable(group):  # (the general way names the character)
                return None
        # scheme, fragment, newsgroup, message_id, host, port (tuple_backed)
        return _tnew(
            cls,
            (
                scheme,
                fragment,
                group,
                decode(article) if article and "%" in article else article,
                None,
                None,
            ),
        )
    return None


def _bracketed_from_match(
    cls: type[NewsURL], m: re.Match[str] | None, text: str, start: int, scheme: str
) -> NewsURL | None:
    """The URL :data:`_BRACKETED`'s match ``m`` stands for, or None for the general way: the
    message-id of :meth:`NewsURL._parse_slow`'s default reading, decoded, without the pair."""
    if m is None or not grammar.escapes_ok(text, start):
        return None
    body, fragment = grammar.match_groups(m)
    if "@" not in body or len(body) < 7 or body[-3:] not in ("%3E", "%3e"):
        return None
    # The octets 3C and 3E are no part of a UTF-8 sequence: decoding the text between them
    # is decoding the whole and taking the pair off (the general way), and most such ids
    # hold no other escape (decode cost ~2.2 µs a URL, compiled).
    inner = body[3:-3]
    message_id = decode(inner) if "%" in inner else inner
    # scheme, fragment, newsgroup, message_id, host, port (tuple_backed)
    return _tnew(cls, (scheme, fragment, None, message_id, None, None))


def _server_from_match(
    cls: type[NewsURL], m: re.Match[str] | None, text: str, start: int, scheme: str
) -> NewsURL | None:
    """The URL :data:`_SERVER`'s match ``m`` stands for, or None for the general way: what
    :meth:`NewsURL._parse_slow` reads in the default reading (RFC 5538 §2.1)."""
    if m is None or not grammar.escapes_ok(text, start):
        return None
    host, port, group, article, fragment = grammar.match_groups(m)
    if (port is not None and len(port) == 5 and int(port) > 65535) or (
        host[0] == "[" and not grammar.ipv6_ok(host)
    ):
        return None
    message_id = None
    if article is not None:
        message_id = decode(article) if "%" in article else article
        if message_id.startswith("<") and message_id.endswith(">"):
            message_id = message_id[1:-1]  # RFC 5538 §2.2 writes it without them
    elif group is None:
        group = "*"  # "news://server/": every group of that server
    # scheme, fragment, newsgroup, message_id, host, port (tuple_backed)
    return _tnew(cls, (scheme, fragment, group, message_id, host, int(port) if port else None))


def _domain(host: str, server: bool) -> str:
    """A message-id's id-right as written back.  RFC 5536 §3.1.3 allows a domain literal
    (``[192.0.2.1]``), but RFC 3986 no raw "[" or "]" in a path, so they are written
    ``%5B``/``%5D`` — except around an IPv6 address of the server-less form, which RFC 1738's
    host grammar (§3.6, ``"@" host``, with RFC 3986's ``[IPv6]``) reads raw.  Writing them raw
    elsewhere gave a URL the default reading refuses (``news:a@%5B127.0.0.1%5D`` was written
    ``news:a@[127.0.0.1]``: found by the sixth mix's round trips)."""
    if not server and host[:1] == "[" and host[-1:] == "]" and "%" not in host:
        import ipaddress  # (only for a domain literal)

        try:
            ipaddress.IPv6Address(host[1:-1])
        except ValueError:
            pass
        else:
            return quote(host, ARTICLE_SAFE + "[]:")
    return quote(host, ARTICLE_SAFE + ":")


@tuple_backed
@record(frozen=True, kw_only=True)
@class_constants
class SNewsURL(NewsURL):
    """``snews://server/…``: news over TLS (RFC 5538 §2.1; NNTP over TLS, port 563)."""

    schemes: ClassVar[tuple[str, ...]] = ("snews",)
    SERVER_PORT: ClassVar[int] = 563


#: What a group name or wildmat keeps unencoded ("*" and "," carry wildmat meaning).
GROUP_SAFE = "*,!"


def _printable(group: str) -> bool:
    """Whether :func:`_check_group` accepts ``group``."""
    for ch in group:  # noqa: SIM110 (a loop: no generator object per group)
        if ch <= " " or ch == "\x7f" or 0xDC80 <= ord(ch) <= 0xDCFF:
            return False
    return True


def _check_group(group: str, text: str, start: int) -> None:
    """RFC 3977 §4.1: a group name (or wildmat) is printable: no space, no control."""
    for i, ch in enumerate(group):
        if ch <= " " or ch == "\x7f" or 0xDC80 <= ord(ch) <= 0xDCFF:
            raise SchemeSyntaxError(
                f"a newsgroup name holds printable characters only, not {ch!r} (RFC 3977 §4.1)",
                component="newsgroup",
                offset=start + i if text[start : start + len(group)] == group else start,
            )


def _group_error(text: str, start: int, end: int) -> Exception:
    """The first character that breaks ``group = alpha *[ alpha | digit | "-.+_" ]``."""
    m = _NOT_GROUP.search(text, start, end)
    pos = m.start() if m is not None else start
    if m is not None and text[pos] not in grammar.UNRESERVED_CHARS:
        return char_error(text, pos, "newsgroup", "§3.6")
    return SchemeSyntaxError(
        "a newsgroup name starts with a letter and holds only letters, digits and '-.+_' "
        "(§5: group)",
        component="newsgroup",
        offset=pos,
    )
