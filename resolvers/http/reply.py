"""An HTTP/1.1 reply as a pure machine (RFC 9112), in h11's shape: bytes in, events out.

:class:`ReplyReader` never touches a socket.  The executor feeds it what the connection
gives (:meth:`ReplyReader.receive_data`, ``b""`` at end of stream) and takes events
(:meth:`ReplyReader.next_event`): one :class:`Head` (interim 1xx replies are skipped,
§15.2 of RFC 9110, and bounded in number), then :class:`Data` pieces of the message body
as framed by §6 (``Content-Length``, ``chunked`` or the close of the connection), then
:class:`End`, or :data:`NEED_DATA` when it must be given more.  A body of known length
can bypass the machine (:meth:`ReplyReader.raw_wanted` / :meth:`ReplyReader.raw_received`):
the executor copies it straight from the socket into its buffer, and the machine only
counts — the bulk path does no per-chunk work it does not need.

What the reply *means* — a redirect to follow, a Digest challenge to answer, a range to
append, an error — is decided by :func:`decide`, also pure, from the :class:`Head`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from typing import Literal

from ..errors import ConnectionClosed, LimitExceeded, ProtocolError

#: A head (status line and fields) longer than this is refused (httpcore's bound: 100 KiB).
MAX_HEAD = 100 * 1024
#: Interim (1xx) replies accepted before the final one (a server that sends them without end
#: is refused, not waited on forever).
MAX_INTERIM = 32
#: A chunk-size line (with extensions) or trailer line longer than this is refused.
MAX_CHUNK_LINE = 4096

# status-line = HTTP-version SP status-code SP [ reason-phrase ]        (RFC 9112 §4)
# HTTP-version = "HTTP/" DIGIT "." DIGIT ; reason-phrase = 1*( HTAB / SP / VCHAR / obs-text )
# (the SP before an absent reason is optional here, as h11 and curl accept it)
_STATUS_LINE = re.compile(
    rb"HTTP/(?P<version>[0-9]\.[0-9]) (?P<status>[0-9]{3})(?: (?P<reason>[^\r\n]*))?"
)
# field-line = field-name ":" OWS field-value OWS                        (RFC 9112 §5)
# field-name = token (RFC 9110 §5.1); token = 1*tchar
_FIELD_LINE = re.compile(rb"(?P<name>[!#$%&'*+\-.^_`|~0-9A-Za-z]+):[ \t]*(?P<value>.*?)[ \t]*")
# chunk-size = 1*HEXDIG ; chunk-ext = *( BWS ";" BWS chunk-ext-name ... ) (RFC 9112 §7.1)
_CHUNK_SIZE = re.compile(rb"(?P<size>[0-9A-Fa-f]{1,16})[ \t]*(?:;.*)?")


class _Need(Enum):
    NEED_DATA = "NEED_DATA"


#: :meth:`ReplyReader.next_event` needs more bytes (h11's sentinel of the same name).
NEED_DATA = _Need.NEED_DATA


@dataclass(frozen=True)
class Head:
    """The final reply's status line and header fields (names as received, in order)."""

    http_version: str
    status: int
    reason: str
    fields: tuple[tuple[str, str], ...]

    @property
    def status_line(self) -> str:
        """What ``-v`` shows and errors quote: ``HTTP/1.1 404 Not Found``."""
        return f"{self.http_version} {self.status} {self.reason}".rstrip()

    def headers(self) -> dict[str, str]:
        """The fields by lower-case name, repeated fields joined with ", " (RFC 9110 §5.3),
        in the order of their first appearance."""
        joined: dict[str, str] = {}
        for name, value in self.fields:
            key = name.lower()
            joined[key] = f"{joined[key]}, {value}" if key in joined else value
        return joined

    def field_lines(self) -> list[str]:
        """Each field as received, one ``Name: value`` line each (what ``-I``/``-v`` show)."""
        return [f"{name}: {value}" for name, value in self.fields]

    def get(self, name: str) -> str | None:
        """The first field of this (case-insensitive) name, or None."""
        name = name.lower()
        return next((v for n, v in self.fields if n.lower() == name), None)


@dataclass(frozen=True)
class Data:
    """A piece of the body, as framed (chunk boundaries are not kept)."""

    data: bytes


@dataclass(frozen=True)
class End:
    """The body is complete; ``keep_alive``: the connection may carry another request."""

    keep_alive: bool


Event = Head | Data | End | _Need
Framing = Literal["length", "chunked", "close", "none"]


def _decode(data: bytes) -> str:
    """A field's octets as text: ASCII, else UTF-8, else Latin-1 (RFC 9110 §5.5: obs-text)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def parse_head(data: bytes) -> Head:
    """A status line and field lines (CRLF or bare LF, as h11 accepts), without the empty
    line that ends them.  obs-fold continuation lines are joined with a space (§5.2)."""
    lines = data.replace(b"\r\n", b"\n").split(b"\n")
    m = _STATUS_LINE.fullmatch(lines[0])
    if m is None:
        raise ProtocolError(f"the server sent a malformed status line: {lines[0][:80]!r}")
    fields: list[tuple[str, str]] = []
    for line in lines[1:]:
        if line[:1] in (b" ", b"\t") and fields:  # obs-fold
            name, value = fields[-1]
            more = _decode(line.strip(b" \t"))
            fields[-1] = (name, f"{value} {more}".strip())
            continue
        f = _FIELD_LINE.fullmatch(line)
        if f is None or b"\r" in line or b"\0" in line:
            raise ProtocolError(f"the server sent a malformed header field: {line[:80]!r}")
        fields.append((f["name"].decode("ascii"), _decode(f["value"])))
    reason = (m["reason"] or b"").decode("latin-1")
    return Head(f"HTTP/{m['version'].decode()}", int(m["status"]), reason, tuple(fields))


def framing_of(head: Head, method: str) -> tuple[Framing, int]:
    """How the body of ``head`` is delimited (RFC 9112 §6.3) and, for ``length``, its size."""
    if method == "HEAD" or head.status in (204, 304) or 100 <= head.status < 200:
        return "none", 0
    coding = head.get("transfer-encoding")
    if coding is not None:
        if coding.replace(" ", "").lower().split(",")[-1] != "chunked":
            return "close", 0  # §6.3 rule 4 (a response): read until the close
        return "chunked", 0
    lengths = {v.strip() for n, v in head.fields if n.lower() == "content-length"}
    if not lengths:
        return "close", 0
    value = lengths.pop()
    if lengths or not value.isdigit() or not value.isascii():
        raise ProtocolError(
            f"the server sent an invalid Content-Length: {head.get('content-length')!r}",
            component="content-length",
        )
    return "length", int(value)


def keeps_alive(head: Head) -> bool:
    """RFC 9112 §9.3: HTTP/1.1 persists unless ``Connection: close``; 1.0 never does here."""
    tokens = {t.strip().lower() for t in (head.get("connection") or "").split(",")}
    return head.http_version == "HTTP/1.1" and "close" not in tokens


class ReplyReader:
    """One reply to a ``method`` request, from bytes to events (see the module docstring)."""

    def __init__(self, method: str = "GET", *, max_head: int = MAX_HEAD) -> None:
        self.method = method
        self.max_head = max_head
        self.head: Head | None = None
        self.framing: Framing = "none"
        self._buffer = bytearray()
        self._eof = False
        self._interim = 0
        #: Body bytes still to come (``length``), or of the current chunk (``chunked``).
        self._remaining = 0
        #: ``chunked``: "size", "data", "crlf" (after a chunk's data) or "trailer".
        self._chunk_state = "size"
        self._done = False
        self._keep_alive = False

    # -- input ---------------------------------------------------------------------------

    def receive_data(self, data: bytes) -> None:
        """Bytes from the connection; ``b""`` means the peer closed it."""
        if data:
            self._buffer += data
        else:
            self._eof = True

    def raw_wanted(self) -> int:
        """The body bytes the caller may read straight from the connection, past this
        machine (its buffer is empty and the body has a known length), else 0."""
        if self.framing == "length" and not (self._buffer or self._done or self._eof):
            return self._remaining
        return 0

    def raw_received(self, n: int) -> None:
        """``n`` body bytes were read past the machine (at most :meth:`raw_wanted`); an
        ``n`` of 0 is the peer's close."""
        if n == 0:
            self._eof = True
        self._remaining -= n

    def trailing(self) -> int:
        """How many bytes past the end of the reply this machine was given (0 before its
        :class:`End`): bytes nobody asked for, which forbid reusing the connection (the
        connection's check; issue 30)."""
        return len(self._buffer) if self._done else 0

    # -- output --------------------------------------------------------------------------

    def next_event(self) -> Event:
        if self._done:
            raise ProtocolError("the reply is already complete")
        if self.head is None:
            return self._next_head()
        if self.framing == "length":
            return self._length_body()
        if self.framing == "chunked":
            return self._chunked_body()
        if self.framing == "close":
            if self._buffer:
                return self._take(len(self._buffer))
            return self._end(False) if self._eof else NEED_DATA
        return self._end(keeps_alive(self.head))

    def _end(self, keep_alive: bool) -> End:
        self._done = True
        self._keep_alive = keep_alive
        return End(keep_alive)

    def _take(self, n: int) -> Data:
        piece = bytes(self._buffer[:n])
        del self._buffer[:n]
        return Data(piece)

    def _next_head(self) -> Event:
        while True:
            end = self._buffer.find(b"\n\r\n")
            size = 3
            other = self._buffer.find(b"\n\n")
            if other != -1 and (end == -1 or other < end):
                end, size = other, 2
            if end == -1:
                if len(self._buffer) > self.max_head:
                    raise LimitExceeded(
                        f"the server's reply head is longer than {self.max_head} bytes",
                        component="header",
                    )
                if self._eof:
                    what = "in the middle of its reply" if self._buffer else "without a reply"
                    raise ConnectionClosed(f"the server closed the connection {what}")
                return NEED_DATA
            head = parse_head(bytes(self._buffer[: end + 1]).rstrip(b"\r\n"))
            del self._buffer[: end + size]
            if 100 <= head.status < 200 and head.status != 101:
                # RFC 9110 §15.2: interim replies precede the final one; none is ours to act on
                self._interim += 1
                if self._interim > MAX_INTERIM:
                    raise LimitExceeded(
                        f"the server sent more than {MAX_INTERIM} interim (1xx) replies",
                        component="status",
                    )
                continue
            self.head = head
            self.framing, self._remaining = framing_of(head, self.method)
            if head.status == 101:
                self.framing = "close"
            return head

    def _length_body(self) -> Event:
        if self._remaining <= 0:
            assert self.head is not None
            return self._end(keeps_alive(self.head) and not self._buffer)
        if self._buffer:
            piece = self._take(min(len(self._buffer), self._remaining))
            self._remaining -= len(piece.data)
            return piece
        if self._eof:
            raise ConnectionClosed(
                f"the server closed the connection with {self._remaining} bytes of the "
                "body still to come"
            )
        return NEED_DATA

    def _line(self) -> bytes | None:
        """A CRLF (or LF) line of the chunked framing, or None until one is complete."""
        at = self._buffer.find(b"\n")
        if at == -1:
            if len(self._buffer) > MAX_CHUNK_LINE:
                raise LimitExceeded("the server sent an over-long chunk line", component="body")
            if self._eof:
                raise ConnectionClosed("the server closed the connection inside a chunk")
            return None
        line = bytes(self._buffer[:at]).rstrip(b"\r")
        del self._buffer[: at + 1]
        return line

    def _chunked_body(self) -> Event:
        while True:
            if self._chunk_state == "data":
                if not self._buffer:
                    if self._eof:
                        raise ConnectionClosed("the server closed the connection inside a chunk")
                    return NEED_DATA
                piece = self._take(min(len(self._buffer), self._remaining))
                self._remaining -= len(piece.data)
                if self._remaining == 0:
                    self._chunk_state = "crlf"
                return piece
            line = self._line()
            if line is None:
                return NEED_DATA
            if self._chunk_state == "crlf":
                if line:
                    raise ProtocolError("the server sent a chunk longer than its size")
                self._chunk_state = "size"
            elif self._chunk_state == "size":
                m = _CHUNK_SIZE.fullmatch(line)
                if m is None:
                    raise ProtocolError(f"the server sent a malformed chunk size: {line[:40]!r}")
                self._remaining = int(m["size"], 16)
                self._chunk_state = "data" if self._remaining else "trailer"
            elif not line:  # the empty line after the trailer fields (§7.1.2)
                assert self.head is not None
                return self._end(keeps_alive(self.head) and not self._buffer)


# -- what a reply means (RFC 9110 §15) -------------------------------------------------------

#: RFC 9110 §15.4: the redirections a client follows with a Location.
REDIRECTS = (301, 302, 303, 307, 308)


def digest_challenged(head: Head, has_digest: bool) -> bool:
    """A 401 that asks for Digest (RFC 7616 §3.3), to a request that has Digest credentials."""
    from .planner import digest_asked

    return head.status == 401 and has_digest and digest_asked(head.get("www-authenticate"))


def redirect_location(head: Head, follow: bool) -> str | None:
    """The ``Location`` to follow (RFC 9110 §10.2.2), or None: not a redirect, no Location,
    or following is off (the 3xx is then the result)."""
    if head.status in REDIRECTS and follow:
        return head.get("location")
    return None


def failure(head: Head, url: str, *, sent: frozenset[str] = frozenset()) -> Exception | None:
    """The typed error a final status means (§15.5, §15.6), or None for a success.
    ``sent``: the credentials the request carried (lower-case ``authorization``,
    ``proxy-authorization``), so a refused login is told from a missing one."""
    from ..errors import AuthError, StatusError

    replies = (head.status_line, *head.field_lines())
    if head.status in (401, 407):
        # RFC 9110 §15.5.2/§15.5.8: credentials missing or refused (exit 7), not a
        # missing resource.  A wrong password is not a missing one: say which.
        who = "the proxy" if head.status == 407 else "the server"
        field = "proxy-authorization" if head.status == 407 else "authorization"
        said = (
            f"{who} refused the credentials"
            if field in sent
            else f"{who} needs credentials (give -u USER:PASSWORD or a netrc login)"
        )
        return AuthError(
            f"{url}: {said} ({head.status} {head.reason})",
            component="user",
            status=head.status,
            replies=replies,
        )
    if head.status >= 400:
        return StatusError(
            f"{url}: the server answered {head.status} {head.reason}",
            status=head.status,
            reply=head.status_line,
            replies=replies,
        )
    return None


__all__ = [
    "MAX_HEAD",
    "NEED_DATA",
    "REDIRECTS",
    "Data",
    "End",
    "Event",
    "Head",
    "ReplyReader",
    "digest_challenged",
    "failure",
    "framing_of",
    "keeps_alive",
    "parse_head",
    "redirect_location",
]
