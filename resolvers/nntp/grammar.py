"""The wire grammar of NNTP arguments and the URLs a listing hands out (pure, no I/O).

Two kinds of URL data go on an NNTP command line: a newsgroup name (``GROUP``, ``LISTGROUP``)
and a message-id (``ARTICLE <id>``).  The octets that would *split* the line — controls, SP,
TAB, CR, LF — are the safety policy's business (``resolvers.policy.DELIMITERS["nntp"]``), so
that every delimiter rule lives in one place; this module checks what remains of each
grammar, so a URL the server could only answer with ``501 syntax error`` is refused before
a connection is opened, with the component to blame.
"""

from __future__ import annotations

from omniurl.resolvers.policy import DELIMITERS
from omniurl.schemes.errors import SchemeSyntaxError

#: RFC 3977 §3.6: "Message-ids MUST NOT be more than 250 octets in length", brackets included.
MAX_MESSAGE_ID = 250
#: RFC 3977 §6: article numbers are in the range 1 to 2,147,483,647.
MAX_ARTICLE_NUMBER = 2_147_483_647

# RFC 3977 §9.8 (ABNF of a newsgroup name):
#   newsgroup-name = 1*wildmat-exact
#   wildmat-exact  = %x22-29 / %x2B / %x2D-3E / %x40-5A / %x5E-7E / UTF8-non-ascii
# i.e. every printable ASCII character except the wildmat specials ! * , ? [ \ ] (and SP).
_WILDMAT_EXACT_ASCII = frozenset(
    [*range(0x22, 0x2A), 0x2B, *range(0x2D, 0x3F), *range(0x40, 0x5B), *range(0x5E, 0x7F)]
)

# RFC 3977 §9.8 (ABNF of a message-id):
#   message-id = "<" 1*248A-NOTGT ">"
#   A-NOTGT    = %x21-3D / %x3F-7E        ; exclude ">"
_A_NOTGT = frozenset(range(0x21, 0x3E)) | frozenset(range(0x3F, 0x7F))

#: The octets the policy refuses in an NNTP argument: left to it, never double-checked here.
_POLICY_DELIMITERS = DELIMITERS["nntp"]


def check_newsgroup(name: str, *, component: str = "newsgroup") -> bytes:
    """The octets of ``name`` as sent, or :class:`SchemeSyntaxError` naming ``component``.

    RFC 1738 §3.6 gives the URL's own grammar (``alpha *[alpha | digit | "-" | "." | "+" |
    "_"]``); the parser applies it.  Here the *protocol's* grammar is applied to the decoded
    value: RFC 3977 §4.1 names may hold any printable character but the wildmat specials,
    and UTF-8 beyond ASCII.
    """
    octets = name.encode("utf-8", "surrogateescape")
    if not octets:
        raise SchemeSyntaxError("the newsgroup name is empty", component=component)
    if not _is_utf8(octets):
        raise SchemeSyntaxError(
            "the newsgroup name is not UTF-8 (RFC 3977 §4.1)", component=component
        )
    for index, octet in enumerate(octets):
        if octet in _POLICY_DELIMITERS or octet >= 0x80 or octet in _WILDMAT_EXACT_ASCII:
            continue
        raise SchemeSyntaxError(
            f"the newsgroup name holds {chr(octet)!r} at octet {index}, which RFC 3977 §4.1 "
            "does not allow in a name (it is a wildmat special)",
            component=component,
        )
    return octets


def check_wildmat(pattern: str, *, component: str = "newsgroup") -> bytes:
    """The octets of a wildmat as sent (``LIST ACTIVE wildmat``, RFC 3977 §4.1): patterns of
    name characters, ``*`` and ``?``, separated by ``,`` and negated by ``!``; ``[``, ``]``
    and ``\\`` are reserved there, so refused here."""
    octets = pattern.encode("utf-8", "surrogateescape")
    if not octets or not _is_utf8(octets):
        raise SchemeSyntaxError(
            "the wildmat is empty or not UTF-8 (RFC 3977 §4.1)", component=component
        )
    for index, octet in enumerate(octets):
        if octet in _POLICY_DELIMITERS or octet >= 0x80 or octet in _WILDMAT_EXACT_ASCII:
            continue
        if octet in b"*?,!":
            continue
        raise SchemeSyntaxError(
            f"the wildmat holds {chr(octet)!r} at octet {index}, which RFC 3977 §4.1 reserves",
            component=component,
        )
    for part in octets.split(b","):
        if part in (b"", b"!"):
            raise SchemeSyntaxError(
                "a wildmat has a pattern between each ',' (RFC 3977 §4.1)", component=component
            )
    return octets


def wildmat_matches(pattern: bytes, name: bytes) -> bool:
    """RFC 3977 §4.2: ``name`` matches when the rightmost pattern that matches it is not
    negated (``!``); ``*`` is any run of characters, ``?`` one character (pure; used to
    filter an RFC 977 server's whole ``LIST`` when ``LIST ACTIVE wildmat`` is unknown)."""
    import re

    result = False
    for part in pattern.split(b","):
        negated = part.startswith(b"!")
        body = part[1:] if negated else part
        regex = b"".join(
            b".*" if c == b"*" else b"." if c == b"?" else re.escape(c)
            for c in (body[i : i + 1] for i in range(len(body)))
        )
        if re.fullmatch(regex, name, re.DOTALL):
            result = not negated
    return result


def check_message_id(message_id: str, *, component: str = "message_id") -> bytes:
    """The message-id *with* its angle brackets, as sent (RFC 1738 §3.6: "the client must
    add" them), or :class:`SchemeSyntaxError` naming ``component``."""
    octets = message_id.encode("utf-8", "surrogateescape")
    if not octets:
        raise SchemeSyntaxError("the message-id is empty", component=component)
    wired = b"<" + octets + b">"
    if len(wired) > MAX_MESSAGE_ID:
        raise SchemeSyntaxError(
            f"the message-id is {len(wired)} octets with its brackets; RFC 3977 §3.6 allows "
            f"at most {MAX_MESSAGE_ID}",
            component=component,
        )
    for index, octet in enumerate(octets):
        if octet in _POLICY_DELIMITERS or octet in _A_NOTGT:
            continue
        what = "'>'" if octet == 0x3E else f"the octet 0x{octet:02X}"
        raise SchemeSyntaxError(
            f"the message-id holds {what} at octet {index}; RFC 3977 §3.6 allows printable "
            "US-ASCII except '>' only",
            component=component,
        )
    return wired


def check_article_number(number: int, *, component: str = "article") -> int:
    """An article number RFC 3977 §6 allows (1 to 2**31-1)."""
    if not 1 <= number <= MAX_ARTICLE_NUMBER:
        raise SchemeSyntaxError(
            f"article number {number} is outside 1-{MAX_ARTICLE_NUMBER} (RFC 3977 §6)",
            component=component,
        )
    return number


def _is_utf8(octets: bytes) -> bool:
    try:
        octets.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


# -- URLs handed out in listings ----------------------------------------------------------

# RFC 1738 §5: group = alpha *[ alpha | digit | "-" | "." | "+" | "_" ]; anything else is
# %-encoded when we build a URL from a name the server gave us.
_ALNUM = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_GROUP_SAFE = _ALNUM | frozenset(b"-.+_")
# RFC 1738 §5: messageid = 1*[ uchar | ";" | "/" | "?" | ":" | "&" | "=" ] "@" host, where
# uchar = unreserved | escape: "%" and "#" (and every unsafe character) must be encoded.
_MID_SAFE = _ALNUM | frozenset(b"$-_.+!*'(),;/?:&=@")


def _encode(octets: bytes, safe: frozenset[int]) -> str:
    return "".join(chr(o) if o in safe else f"%{o:02X}" for o in octets)


def encode_group(name: bytes) -> str:
    """A newsgroup name as it appears in a ``news:``/``nntp:`` URL (§2.2 encoding)."""
    return _encode(name, _GROUP_SAFE)


def news_url_for_group(name: bytes) -> str:
    """``news:<newsgroup-name>`` (RFC 1738 §3.6)."""
    return "news:" + encode_group(name)


def news_url_for_message_id(message_id: bytes) -> str | None:
    """``news:<message-id>`` without the brackets (§3.6); ``None`` for a malformed id."""
    if len(message_id) < 3 or not (message_id.startswith(b"<") and message_id.endswith(b">")):
        return None
    inner = message_id[1:-1]
    if b"@" not in inner:
        return None
    return "news:" + _encode(inner, _MID_SAFE)


def nntp_url(host: str, port: int, group: bytes, number: int | None = None) -> str:
    """``nntp://<host>:<port>/<newsgroup-name>/<number>`` (RFC 1738 §3.7); the port is
    left out when it is the default, 119; an IPv6 host gets its brackets."""
    authority = f"[{host}]" if ":" in host and not host.startswith("[") else host
    if port != 119:
        authority += f":{port}"
    url = f"nntp://{authority}/{encode_group(group)}"
    if number is not None:
        url += f"/{number}"
    return url
