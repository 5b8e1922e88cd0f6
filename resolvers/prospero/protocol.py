"""Prospero request and reply messages (pure: bytes in, values out, no sockets).

From the Prospero protocol document ("Spaces, quoting, and line-feeds"): a message is lines
separated by LF (CR LF accepted); a line is tokens separated by spaces or tabs; a token with
special characters, or an empty one, is quoted with single quotes, a quote inside doubled
(``'it''s'``, ``''``).  NUL can never be carried.  Version 1 predates the quoting rules ("no
Version 1 server ever implemented quoting properly"), so a version-1 request can only carry
tokens without whitespace or quotes.

Requests built here::

    VERSION 5 omniurl                                   (version 5)
    AUTHENTICATE '' UNAUTHENTICATED <user>
    GET-OBJECT-INFO ACCESS-METHOD ASCII <hsoname> <object-version>
    SELECT LINK FIELD <name> ASCII <value>             (one per extra ;field=value)

    VERSION 1                                           (version-1 fallback)
    AUTHENTICATOR UNAUTHENTICATED <user>
    DIRECTORY ASCII <directory hsoname>
    LIST ATTRIBUTES COMPONENTS <last component>

Replies understood: ``ATTRIBUTE OBJECT INTRINSIC ACCESS-METHOD SEQUENCE <tokens>`` (v5),
``LINK ...`` / ``LINK-INFO ... ACCESS-METHOD <tokens>`` (v1), ``FORWARDED``, ``NONE-FOUND``,
``UNRESOLVED``, ``NOT-A-DIRECTORY``, ``FAILURE``, ``ERROR``, ``VERSION-NOT-SUPPORTED``.
"""

from __future__ import annotations

import re

from omniurl.resolvers.errors import LimitExceeded, ProtocolError
from omniurl.schemes.records import field, record

#: The software name sent after ``VERSION 5`` and as the unauthenticated principal.
CLIENT_NAME = b"omniurl"
#: "0" names the current version of an object (Prospero's default object-version).
CURRENT_VERSION = b"0"
#: The attribute asked for: how the object can be retrieved.
ACCESS_METHOD = b"ACCESS-METHOD"

# token-char = any octet but SP, TAB, LF, CR, "'" and NUL: such a token goes unquoted.
_PLAIN = re.compile(rb"[^ \t\r\n'\x00]+")


def quote(token: bytes) -> bytes:
    """A token as it goes on the wire: as is when plain, else in single quotes."""
    if b"\x00" in token:
        raise ValueError("NUL cannot be carried in a Prospero token")
    if _PLAIN.fullmatch(token):
        return token
    return b"'" + token.replace(b"'", b"''") + b"'"


def is_v1_safe(token: bytes) -> bool:
    """Whether a version-1 request (no quoting) can carry ``token``."""
    return bool(_PLAIN.fullmatch(token))


def tokenize(line: bytes) -> list[bytes]:
    """Split one line into tokens, undoing the quoting."""
    tokens: list[bytes] = []
    i, n = 0, len(line)
    while i < n:
        if line[i] in b" \t":
            i += 1
            continue
        token = bytearray()
        while i < n and line[i] not in b" \t":
            if line[i] == 0x27:  # "'": a quoted run; "''" inside it is one quote
                i += 1
                while True:
                    if i >= n:
                        raise ProtocolError(f"unterminated quote in Prospero line {line[:80]!r}")
                    if line[i] == 0x27:
                        if i + 1 < n and line[i + 1] == 0x27:
                            token.append(0x27)
                            i += 2
                            continue
                        i += 1
                        break
                    token.append(line[i])
                    i += 1
            else:
                token.append(line[i])
                i += 1
        tokens.append(bytes(token))
    return tokens


def split_lines(message: bytes, *, max_line: int = 64 * 1024) -> list[bytes]:
    """A message's lines (LF, CR LF or CR endings), empty lines dropped, each bounded."""
    lines = [ln.rstrip(b"\r") for ln in message.replace(b"\r\n", b"\n").split(b"\n")]
    for ln in lines:
        if len(ln) > max_line:
            raise LimitExceeded(f"Prospero line longer than {max_line} octets")
    return [ln for ln in lines if ln.strip()]


# -- requests --------------------------------------------------------------------------------


def v5_request(
    hsoname: bytes,
    version: bytes | None = None,
    fields: tuple[tuple[bytes, bytes], ...] = (),
    *,
    user: bytes = CLIENT_NAME,
) -> bytes:
    """The version-5 ``GET-OBJECT-INFO ACCESS-METHOD`` request for one object."""
    lines = [
        b"VERSION 5 " + CLIENT_NAME,
        b"AUTHENTICATE '' UNAUTHENTICATED " + quote(user),
        b"GET-OBJECT-INFO "
        + ACCESS_METHOD
        + b" ASCII "
        + quote(hsoname)
        + b" "
        + quote(version or CURRENT_VERSION),
    ]
    lines += [b"SELECT LINK FIELD " + quote(n) + b" ASCII " + quote(v) for n, v in fields]
    return b"\n".join(lines) + b"\n"


def v1_split(hsoname: bytes) -> tuple[bytes, bytes]:
    """The directory and component a version-1 ``LIST`` names for ``hsoname``.

    Version 1 could only list directories, so the fallback reads the hsoname as a path:
    ``/pub/hello.txt`` is component ``hello.txt`` of directory ``/pub``.
    """
    head, slash, tail = hsoname.rstrip(b"/").rpartition(b"/")
    if not slash:
        return b"", hsoname
    return head or b"/", tail


def v1_request(hsoname: bytes, *, user: bytes = CLIENT_NAME) -> bytes:
    """The version-1 ``LIST ATTRIBUTES`` request (callers check :func:`is_v1_safe` first)."""
    directory, component = v1_split(hsoname)
    return (
        b"VERSION 1\n"
        b"AUTHENTICATOR UNAUTHENTICATED " + user + b"\n"
        b"DIRECTORY ASCII " + (directory or b"''") + b"\n"
        b"LIST ATTRIBUTES COMPONENTS " + component + b"\n"
    )


# -- replies ---------------------------------------------------------------------------------


@record(frozen=True)
class AccessMethod:
    """One value of the ACCESS-METHOD attribute (protocol document, "ACCESS-METHOD").

    ``method`` (AFTP, FTP, GOPHER, WAIS, LOCAL, NFS, AFS...), then host type and host, hsoname
    type and hsoname — ``''`` meaning "as in the link" — then method-specific ``extra``
    tokens (BINARY/TEXT for AFTP, the item type for GOPHER).
    """

    method: str
    host_type: str
    host: str
    hsoname_type: str
    hsoname: str
    extra: tuple[str, ...] = ()

    @classmethod
    def from_tokens(cls, tokens: list[bytes]) -> AccessMethod:
        if len(tokens) < 5:
            raise ProtocolError(
                f"ACCESS-METHOD with {len(tokens)} elements; at least 5 are required"
            )
        text = [t.decode("utf-8", "surrogateescape") for t in tokens]
        return cls(text[0].upper(), text[1], text[2], text[3], text[4], tuple(text[5:]))

    def with_link(self, host: str, hsoname: str) -> AccessMethod:
        """Fill the ``''`` shorthand with the link's host and hsoname."""
        return AccessMethod(
            self.method,
            self.host_type or "INTERNET-D",
            self.host or host,
            self.hsoname_type or "ASCII",
            self.hsoname or hsoname,
            self.extra,
        )

    def tokens(self) -> list[str]:
        return [self.method, self.host_type, self.host, self.hsoname_type, self.hsoname,
                *self.extra]  # fmt: skip


@record(frozen=True)
class Forwarded:
    """``FORWARDED [OBJECT] <host-type> <host> <hsoname-type> <hsoname> [<version>]``: the
    object moved (protocol document: an object that migrated answers FORWARDED)."""

    host: str
    hsoname: str
    version: str | None = None


@record()
class Reply:
    """What a reply message says.  Exactly one of the outcomes is set."""

    lines: list[str] = field(default_factory=list)
    methods: list[AccessMethod] = field(default_factory=list)
    forwarded: Forwarded | None = None
    #: ``NONE-FOUND``, ``UNRESOLVED``, ``NOT-A-DIRECTORY``, ``FAILURE``, ``ERROR``,
    #: ``VERSION-NOT-SUPPORTED``: the word, and the rest of the line.
    status: str | None = None
    detail: str = ""
    #: The link a version-1 ``LINK`` line named: (host, hsoname).
    link: tuple[str, str] | None = None


_STATUS_WORDS = frozenset(
    {"NONE-FOUND", "UNRESOLVED", "NOT-A-DIRECTORY", "FAILURE", "ERROR", "VERSION-NOT-SUPPORTED"}
)


def parse_reply(message: bytes, *, max_line: int = 64 * 1024) -> Reply:
    """Read a reply to either request.  Unknown lines are kept in ``lines`` and ignored."""
    reply = Reply()
    for raw in split_lines(message, max_line=max_line):
        reply.lines.append(raw.decode("utf-8", "backslashreplace"))
        tokens = tokenize(raw)
        if not tokens:
            continue
        word = tokens[0].upper().decode("ascii", "replace")
        if word == "ATTRIBUTE":
            # ATTRIBUTE <applies-to> <precedence> <name> <value-type> <value...>
            if len(tokens) >= 5 and tokens[3].upper() == ACCESS_METHOD:
                reply.methods.append(AccessMethod.from_tokens(tokens[5:]))
        elif word == "LINK-INFO":
            # Version 1: LINK-INFO [<applies-to> <precedence>] ACCESS-METHOD <tokens...>
            upper = [t.upper() for t in tokens]
            if ACCESS_METHOD in upper:
                at = upper.index(ACCESS_METHOD)
                rest = tokens[at + 1 :]
                if rest and rest[0].upper() == b"SEQUENCE":
                    rest = rest[1:]
                reply.methods.append(AccessMethod.from_tokens(rest))
        elif word == "LINK":
            # LINK <link-type> <object-type> <name> <host-type> <host> <hsoname-type> <hsoname>
            if len(tokens) >= 8:
                reply.link = (_text(tokens[5]), _text(tokens[7]))
        elif word == "FORWARDED":
            # FORWARDED [OBJECT] <host-type> <host> <hsoname-type> <hsoname> [<version>]
            rest = tokens[1:]
            if rest and rest[0].upper() in (b"OBJECT", b"LINK"):
                rest = rest[1:]
            if len(rest) < 4:
                raise ProtocolError(f"FORWARDED without a new location: {raw[:200]!r}")
            reply.forwarded = Forwarded(
                host=_text(rest[1]),
                hsoname=_text(rest[3]),
                version=_text(rest[4]) if len(rest) > 4 and rest[4] else None,
            )
        elif word in _STATUS_WORDS and reply.status is None:
            reply.status = word
            reply.detail = " ".join(_text(t) for t in tokens[1:])
    return reply


def _text(token: bytes) -> str:
    return token.decode("utf-8", "surrogateescape")


def split_host(host: str) -> tuple[str, int | None]:
    """Prospero writes a port inside the host token as ``host(port)``."""
    m = re.fullmatch(r"(.*)\((\d{1,5})\)", host)
    if m and 0 < int(m.group(2)) < 65536:
        return m.group(1), int(m.group(2))
    return host, None


def join_host(host: str, port: int | None) -> str:
    return host if port is None else f"{host}({port})"
