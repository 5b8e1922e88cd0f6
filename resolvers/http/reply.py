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

The byte-level grammar is not ours: the status line, the field lines, the chunked framing
and the trailers are read by llhttp (Node's parser, in C, through ``httptools``), or by
h11 0.16 where ``OMNIURL_HTTP_PARSER=h11`` asks for it or httptools is not installed
(:func:`default_parser`).  Both are hardened against the framing tricks a hand-written
parser misses (docs/http.md lists them).  What *this* module decides, the same for both,
is what RFC 9112 §6 leaves to the client and the parsers read differently: which framing
the head means (:func:`framing_of`: coding names compared as ASCII tokens, every
``Transfer-Encoding`` field, ``chunked`` only last, ``Content-Length`` ASCII digits), the
limits (a head of at most :data:`MAX_HEAD` bytes whether or not its end has arrived, chunk
lines, trailers), HTTP/1.x and statuses 100-599 only, and whether the connection may carry
another request (:attr:`ReplyReader.reuse_refused` says why not).

What the reply *means* — a redirect to follow, a Digest challenge to answer, a range to
append, an error — is decided by :func:`decide`, also pure, from the :class:`Head`.
"""

from __future__ import annotations

import os
import types
from enum import Enum
from functools import cached_property

from omniurl.schemes import precompiled
from omniurl.schemes.records import record

from ..errors import ConfigurationError, ConnectionClosed, LimitExceeded, ProtocolError

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing's import: ~9 ms of a get's start, docs/speed.md)
    from typing import Any, Literal

#: A head (status line and fields) longer than this is refused (httpcore's bound: 100 KiB),
#: whether its empty line has arrived or not.
MAX_HEAD = 100 * 1024
#: Interim (1xx) replies accepted before the final one (a server that sends them without end
#: is refused, not waited on forever).
MAX_INTERIM = 32
#: A chunk-size line (with extensions) or trailer line longer than this is refused.  (The
#: parsers stream such a line without keeping it; the bound is ours, counted as the bytes
#: fed without a step of the body's progress, so it holds within one read of the socket.)
MAX_CHUNK_LINE = 4096
#: The trailer section's fields, in all (RFC 9112 §7.1.2), bounded as a head.
MAX_TRAILER = MAX_HEAD

#: The parsers that can read replies, by the name ``OMNIURL_HTTP_PARSER`` takes.
PARSERS = ("llhttp", "h11")
#: The environment variable that chooses one (read once, by :func:`default_parser`).
PARSER_VARIABLE = "OMNIURL_HTTP_PARSER"

# reason-phrase = 1*( HTAB / SP / VCHAR / obs-text )                     (RFC 9112 §4)
# (held as h11 holds it: no NUL, CR, LF, VT or FF; llhttp lets a NUL through)
_REASON = precompiled.compile(rb"[^\x00\n\r\x0b\x0c]*")
# token = 1*tchar ; tchar = "!" / "#" / ... / DIGIT / ALPHA           (RFC 9110 §5.6.2)
# transfer-coding = token *( OWS ";" OWS transfer-parameter )           (RFC 9112 §7)
# (ASCII only: a str pattern with explicit ranges, so "chun\u212aed" — a Kelvin sign, which
# str.lower() turns into "k" — is no token and never "chunked")
_CODING = precompiled.compile(
    r"(?P<name>[!#$%&'*+\-.^_`|~0-9A-Za-z]+)[ \t]*(?P<params>;.*)?", precompiled.DOTALL
)


class _Need(Enum):
    NEED_DATA = "NEED_DATA"


#: :meth:`ReplyReader.next_event` needs more bytes (h11's sentinel of the same name).
NEED_DATA = _Need.NEED_DATA


@record(frozen=True)
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

    @cached_property
    def _by_name(self) -> dict[str, list[str]]:
        """The values by lower-case name (made once: the framing asks for several)."""
        index: dict[str, list[str]] = {}
        for name, value in self.fields:
            index.setdefault(name.lower(), []).append(value)
        return index

    def get(self, name: str) -> str | None:
        """The first field of this (case-insensitive) name, or None."""
        values = self._by_name.get(name.lower())
        return values[0] if values else None


@record(frozen=True)
class Data:
    """A piece of the body, as framed (chunk boundaries are not kept)."""

    data: bytes


@record(frozen=True)
class End:
    """The body is complete; ``keep_alive``: the connection may carry another request."""

    keep_alive: bool


Event = Head | Data | End | _Need
if TYPE_CHECKING:
    Framing = Literal["length", "chunked", "close", "none"]


class Octets(str):
    """A field value that was not UTF-8, read as Latin-1: each character is one octet the
    server sent (RFC 9110 §5.5: obs-text), so a reader that needs the octets — a
    ``Location`` to follow — takes them back exactly (``value.encode("latin-1")``)."""

    __slots__ = ()


def _decode(data: bytes) -> str:
    """A field's octets as text: ASCII, else UTF-8, else Latin-1 (RFC 9110 §5.5: obs-text),
    marked :class:`Octets`."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return Octets(data.decode("latin-1"))


# -- choosing the parser ---------------------------------------------------------------------

_default: str | None = None


def default_parser() -> str:
    """The parser replies are read with, chosen once per process: ``OMNIURL_HTTP_PARSER``
    (``llhttp`` or ``h11``) when set, else llhttp when httptools is installed (it is a
    dependency; 22-43x faster than the hand-written reader it replaced on 100,000 small
    replies), else h11 (pure Python, for a platform without httptools' wheels)."""
    global _default
    if _default is None:
        asked = os.environ.get(PARSER_VARIABLE, "").strip().lower()
        if asked and asked not in PARSERS:
            raise ConfigurationError(
                f"{PARSER_VARIABLE}={asked!r}: the HTTP reply parser is 'llhttp' or 'h11'",
                component="environment",
            )
        if not asked:
            try:
                import httptools  # noqa: F401
            except ImportError:  # pragma: no cover (a platform without its wheels)
                asked = "h11"
            else:
                asked = "llhttp"
        _default = asked
    return _default


# -- the parsers behind the seam -------------------------------------------------------------


#: httptools' parser and errors, once imported (by the first llhttp reader): :func:`_llhttp`.
_httptools: Any = None


def _llhttp() -> Any:
    """httptools' ``HttpResponseParser``, ``HttpParserError`` and ``HttpParserUpgrade``,
    from the modules that define them (the objects ``httptools`` re-exports): the
    ``omniurl`` command leaves the bodies of httptools' packages waiting, whose
    ``httptools.parser.protocol`` imports typing for a ``Protocol`` class nothing here uses
    (omniurl/deferred.py's ``PACKAGES``)."""
    try:
        from httptools.parser.errors import HttpParserError, HttpParserUpgrade
        from httptools.parser.parser import HttpResponseParser
    except ImportError:  # pragma: no cover (another layout of httptools)
        import httptools

        return httptools
    return types.SimpleNamespace(
        HttpResponseParser=HttpResponseParser,
        HttpParserError=HttpParserError,
        HttpParserUpgrade=HttpParserUpgrade,
    )


def preload() -> None:
    """Import the default parser now rather than at the first reply: before a split batch
    forks its workers (:meth:`HTTPResolver.prepare`), so that each has it in hand."""
    global _httptools
    if default_parser() == "llhttp" and _httptools is None:
        _httptools = _llhttp()


class _Leftover(Exception):
    """Bytes after the end of the reply (raised inside llhttp's callback, to stop it)."""


@record()
class _RawHead:
    version: str  # "1.1"
    status: int
    reason: bytes
    fields: list[tuple[bytes, bytes]]


class _Message:
    """One message's head and, when chunked, its body, as a parser reads them."""

    #: The body is complete.
    done = False
    #: Bytes were given after the end of the body.
    leftover = False

    def feed_head(self, data: bytes) -> None:
        """Bytes of the head, before its end (a parser may refuse them early)."""
        raise NotImplementedError

    def finish_head(self, data: bytes) -> _RawHead:
        """The head's last bytes, through its empty line; the head as read."""
        raise NotImplementedError

    def feed_body(self, data: bytes, out: list[bytes]) -> bool:
        """Bytes of a chunked body; the data they carried is appended to ``out``.  Returns
        whether the body made progress (a chunk, data, a trailer field, the end)."""
        raise NotImplementedError


class _LLHTTPMessage(_Message):
    """llhttp (httptools.HttpResponseParser) in its strict default, with one leniency:
    ``Transfer-Encoding`` with ``Content-Length`` is read as chunked (RFC 9112 §6.3 rule 3,
    as h11 reads it) instead of refused — and the connection is then never reused."""

    def __init__(self) -> None:
        global _httptools
        if _httptools is None:
            _httptools = _llhttp()
        self._parser = _httptools.HttpResponseParser(self)
        self._parser.set_dangerous_leniencies(lenient_chunked_length=True)
        self._reason = b""
        self._fields: list[tuple[bytes, bytes]] = []
        self._started = False
        self._body: list[bytes] | None = None
        self._progress = False
        self._trailer = 0
        self._error: Exception | None = None
        self.complete = False
        self.chunks = 0
        self.done = False
        self.leftover = False

    # llhttp's callbacks
    def on_message_begin(self) -> None:
        if self._started:  # a second message: bytes after this reply's end
            raise _Leftover
        self._started = True

    def on_status(self, data: bytes) -> None:
        self._reason += data

    def on_header(self, name: bytes, value: bytes) -> None:
        if not self.complete:
            self._fields.append((name, value))
            return
        self._progress = True  # a trailer field (RFC 9112 §7.1.2), validated by llhttp
        self._trailer += len(name) + len(value) + 4
        if self._trailer > MAX_TRAILER:
            self._error = LimitExceeded(
                f"the server's trailer fields are longer than {MAX_TRAILER} bytes",
                component="header",
            )
            raise self._error

    def on_headers_complete(self) -> None:
        self.complete = True

    def on_chunk_header(self) -> None:
        self.chunks += 1
        self._progress = True

    def on_chunk_complete(self) -> None:
        self._progress = True

    def on_body(self, data: bytes) -> None:
        if self._body is not None:
            self._body.append(data)
        self._progress = True

    def on_message_complete(self) -> None:
        self.done = True

    def _feed(self, data: bytes) -> None:
        try:
            self._parser.feed_data(data)
        except _httptools.HttpParserUpgrade:
            raise ProtocolError(
                "the server switched protocols (101) although omniurl asked for no upgrade",
                component="status",
            ) from None
        except _httptools.HttpParserError as exc:
            if self.done:  # after the end: another message's bytes, or garbage
                self.leftover = True
                return
            if self._error is not None:
                raise self._error from None
            raise ProtocolError(f"the server sent a malformed reply: {exc}") from None

    def feed_head(self, data: bytes) -> None:
        self._feed(data)

    def finish_head(self, data: bytes) -> _RawHead:
        self._feed(data)
        if not self.complete:  # (an empty line llhttp did not take as the end: refused)
            raise ProtocolError("the server sent a malformed reply head")
        return _RawHead(
            self._parser.get_http_version(),
            self._parser.get_status_code(),
            self._reason,
            self._fields,
        )

    def feed_body(self, data: bytes, out: list[bytes]) -> bool:
        self._body, self._progress = out, False
        self._feed(data)
        if not self.chunks and out:
            # llhttp read a body we framed as chunked without any chunk: the two readings
            # differ, and no reading of this reply is safe (never expected; a guard).
            raise ProtocolError("the server's reply has no consistent framing")
        return self._progress or self.done


class _H11Message(_Message):
    """h11 0.16 (pure Python): the fallback reader, and the second opinion in the tests."""

    def __init__(self, method: str) -> None:
        import h11

        self._h11 = h11
        self._conn = h11.Connection(h11.CLIENT, max_incomplete_event_size=MAX_HEAD + 1)
        self._conn.send(h11.Request(method=method, target="/", headers=[("Host", "omniurl")]))
        self._conn.send(h11.EndOfMessage())
        self._head = bytearray()
        self._trailer = 0
        self.done = False
        self.leftover = False

    def _next(self) -> Any:
        try:
            return self._conn.next_event()
        except self._h11.RemoteProtocolError as exc:
            raise ProtocolError(f"the server sent a malformed reply: {exc}") from None

    def feed_head(self, data: bytes) -> None:
        self._head += data

    def finish_head(self, data: bytes) -> _RawHead:
        h11 = self._h11
        self._conn.receive_data(bytes(self._head) + data)
        event = self._next()
        if not isinstance(event, h11.InformationalResponse | h11.Response):
            raise ProtocolError("the server sent a malformed reply head")
        return _RawHead(
            event.http_version.decode("ascii"),
            event.status_code,
            bytes(event.reason),
            [(bytes(n), bytes(v)) for n, v in event.headers.raw_items()],
        )

    def feed_body(self, data: bytes, out: list[bytes]) -> bool:
        h11 = self._h11
        self._conn.receive_data(data)
        progress = False
        while True:
            event = self._next()
            if event is h11.NEED_DATA:
                return progress
            progress = True
            if isinstance(event, h11.Data):
                out.append(bytes(event.data))
            elif isinstance(event, h11.EndOfMessage):
                self._trailer = sum(len(n) + len(v) + 4 for n, v in event.headers.raw_items())
                if self._trailer > MAX_TRAILER:
                    raise LimitExceeded(
                        f"the server's trailer fields are longer than {MAX_TRAILER} bytes",
                        component="header",
                    )
                self.done = True
                self.leftover = bool(self._conn.trailing_data[0])
                return True


def _message(parser: str, method: str) -> _Message:
    return _LLHTTPMessage() if parser == "llhttp" else _H11Message(method)


# -- the head: what the parsers leave to us (RFC 9112 §4, §6) --------------------------------


def _checked_head(raw: _RawHead) -> Head:
    """The parser's reading, held to what a client of ours accepts: HTTP/1.x (§2.3: this is
    an HTTP/1.1 connection), a status of 100-599 (RFC 9110 §15: "values outside the range
    100..599 are invalid"), a reason phrase without NUL, CR, LF, VT or FF (§4, as h11
    reads it; llhttp takes a NUL)."""
    if not raw.version.startswith("1."):
        raise ProtocolError(
            f"the server answered in HTTP/{raw.version} on an HTTP/1.1 connection",
            component="status",
        )
    if not 100 <= raw.status <= 599:
        raise ProtocolError(
            f"the server sent the status {raw.status:03d}, outside 100-599 (RFC 9110 §15)",
            component="status",
        )
    if _REASON.fullmatch(raw.reason) is None:
        raise ProtocolError(
            f"the server sent a control character in its reason phrase: {raw.reason[:80]!r}",
            component="status",
        )
    # The fields and the index by lower-case name in one pass (Head._by_name, which the
    # framing asks several times): 2,000 small replies, 18 -> 12 µs a head (timeit).
    fields: list[tuple[str, str]] = []
    index: dict[str, list[str]] = {}
    for n, v in raw.fields:
        name = n.decode("latin-1")
        value = v.decode("ascii") if v.isascii() else _decode(v)
        fields.append((name, value))
        key = name.lower()
        values = index.get(key)
        if values is None:
            index[key] = [value]
        else:
            values.append(value)
    head = Head(f"HTTP/{raw.version}", raw.status, raw.reason.decode("latin-1"), tuple(fields))
    head.__dict__["_by_name"] = index
    return head


def transfer_codings(head: Head) -> list[str]:
    """Every ``Transfer-Encoding`` field's codings, combined in order (RFC 9110 §5.3), each
    name an ASCII token compared case-insensitively (RFC 9112 §7: a coding name is a token;
    empty list elements are ignored, RFC 9110 §5.6.1).  A name that is no token is refused."""
    names: list[str] = []
    for value in head._by_name.get("transfer-encoding", ()):
        for element in value.split(","):
            element = element.strip(" \t")
            if not element:
                continue
            m = _CODING.fullmatch(element)
            if m is None:
                raise ProtocolError(
                    f"the server sent an invalid Transfer-Encoding: {value[:80]!r}",
                    component="transfer-encoding",
                )
            name = m["name"].lower()
            if name == "chunked" and m["params"]:
                raise ProtocolError(
                    f"the server sent chunked with parameters: {value[:80]!r}",
                    component="transfer-encoding",
                )
            names.append(name)
    return names


def content_length(head: Head) -> int | None:
    """The ``Content-Length`` (RFC 9110 §8.6): ASCII digits only, every field and list
    element the same number; None without one."""
    values = head._by_name.get("content-length")
    if not values:
        return None
    if len(values) == 1 and values[0].isdigit() and values[0].isascii():
        return int(values[0])  # (one field, digits only: the common case, as below)
    seen: set[str] = set()
    for value in values:
        for element in value.split(","):
            element = element.strip(" \t")
            if not (element.isascii() and element.isdigit()):
                seen = set()
                break
            seen.add(element.lstrip("0") or "0")
        else:
            continue
        break
    if len(seen) != 1:
        shown = ", ".join(values)
        raise ProtocolError(
            f"the server sent an invalid Content-Length: {shown[:80]!r}",
            component="content-length",
        )
    return int(seen.pop())


def framing_of(head: Head, method: str) -> tuple[Framing, int]:
    """How the body of ``head`` is delimited (RFC 9112 §6.3) and, for ``length``, its size.

    Rule 1: no body after HEAD, a 1xx, 204 or 304.  Rule 3/4: ``Transfer-Encoding`` wins
    over ``Content-Length``; ``chunked`` must be the last coding and appear once (§6.1:
    "MUST NOT apply chunked more than once"; a chunked that is not last is refused, as
    curl and h11 refuse it), and a response whose last coding is another is read until
    the close.  Rule 5: ``Content-Length``.  Rule 8: until the close."""
    length = content_length(head)  # (checked even where unused, as both parsers check it)
    codings = transfer_codings(head)
    if method == "HEAD" or head.status in (204, 304) or 100 <= head.status < 200:
        return "none", 0
    if codings:
        if "chunked" in codings:
            if codings[-1] != "chunked" or codings.count("chunked") > 1:
                raise ProtocolError(
                    "the server sent chunked, but not once and last, in its "
                    f"Transfer-Encoding: {', '.join(codings)!r} (RFC 9112 §6.1)",
                    component="transfer-encoding",
                )
            return "chunked", 0
        return "close", 0
    if length is None:
        return "close", 0
    return "length", length


def keeps_alive(head: Head) -> bool:
    """RFC 9112 §9.3: HTTP/1.1 persists unless ``Connection: close``; 1.0 never does here."""
    tokens = {t.strip(" \t").lower() for t in (head.get("connection") or "").split(",")}
    return head.http_version == "HTTP/1.1" and "close" not in tokens


def reuse_refused(head: Head, framing: Framing) -> str | None:
    """Why the connection may not carry another request after this reply, whatever its
    body: ``Connection: close`` or HTTP/1.0 (§9.3), a body read until the close (§6.3),
    ``Transfer-Encoding`` with ``Content-Length`` (§6.1: "the connection MUST be closed
    after" such a message, a sign of request smuggling) — or None."""
    if framing == "close":
        return "the body is delimited by the close of the connection"
    if head.get("transfer-encoding") is not None and head.get("content-length") is not None:
        return "the reply has both Transfer-Encoding and Content-Length (RFC 9112 §6.1)"
    if not keeps_alive(head):
        return "the server does not keep the connection (Connection: close, or HTTP/1.0)"
    return None


def parse_head(data: bytes, *, parser: str | None = None) -> Head:
    """A status line and field lines, through the empty line that ends them, read by
    ``parser`` (:func:`default_parser`) and checked as :class:`ReplyReader` checks them."""
    return _checked_head(_message(parser or default_parser(), "GET").finish_head(data))


def _unfolded(data: bytes) -> bytes:
    """Field lines with each obs-fold replaced by one SP (RFC 9112 §5.2: "A user agent that
    receives an obs-fold in a response message ... MUST replace each received obs-fold with
    one or more SP octets prior to interpreting the field value"; h11 joins them so, curl
    7.88 reads them so; llhttp refuses them in its strict mode, whose one leniency that
    takes them, ``lenient_headers``, also lets control characters into values).  The
    whitespace on both sides goes with the line break, as h11 joins a fold."""
    if b"\r\n " not in data and b"\r\n\t" not in data:
        return data
    import re  # (only a folded head's: a get imports no re, tests/test_get_startup.py)

    return re.sub(rb"[ \t]*\r\n[ \t]+", b" ", data)


def _head_end(buffer: bytearray, start: int) -> int:
    """The end of the head (past its empty line) in ``buffer``, or -1: the first CRLF CRLF,
    or LF LF (h11 reads a bare-LF head; llhttp refuses it, once fed)."""
    crlf = buffer.find(b"\n\r\n", start)
    lf = buffer.find(b"\n\n", start, crlf + 1 if crlf != -1 else len(buffer))
    if lf != -1:
        return lf + 2
    return crlf + 3 if crlf != -1 else -1


class ReplyReader:
    """One reply to a ``method`` request, from bytes to events (see the module docstring).
    ``parser``: ``"llhttp"`` or ``"h11"`` (default: :func:`default_parser`)."""

    def __init__(
        self, method: str = "GET", *, max_head: int = MAX_HEAD, parser: str | None = None
    ) -> None:
        self.method = method
        self.max_head = max_head
        self.parser = parser or default_parser()
        self.head: Head | None = None
        self.framing: Framing = "none"
        #: Why the connection may not carry another request (None: it may, so far).
        self.reuse_refused: str | None = None
        self._buffer = bytearray()
        self._eof = False
        self._interim = 0
        #: The interim (1xx) heads' bytes skipped (``-w %{size_header}`` counts them, as
        #: curl's).
        self.interim_bytes = 0
        #: Body bytes still to come (``length``).
        self._remaining = 0
        self._done = False
        self._message: _Message | None = None
        self._fed = 0  # head bytes given to the parser
        self._lines_from = -1  # where the field lines begin (past the start line), once known
        self._lines_searched = 0  # where the search for the start line's end resumes
        self._searched = 0  # where the search for the head's end resumes
        self._scanned = 0  # the buffer's length at the last hold-back scan (_foldable)
        self._idle = 0  # chunked: bytes fed since the body last made progress

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

    @property
    def remaining(self) -> int:
        """The body bytes still to come of a ``length`` body (0 for the others)."""
        return self._remaining if self.framing == "length" else 0

    def give_back(self, data: bytes) -> None:
        """Body bytes taken from this machine (its :class:`Data` events of a ``length``
        body) given back, to be taken again: the batch's lean engine hands a reply it began
        to the general path (``resolvers.http.executor.Prepared``), which reads the body
        from its first byte."""
        if self.framing != "length" or self._done:
            raise ProtocolError("only an unfinished body of known length can be given back")
        self._buffer[:0] = data
        self._remaining += len(data)

    def trailing(self) -> int:
        """How many bytes past the end of the reply this machine was given (0 before its
        :class:`End`; at least 1 when a chunked reply's parser took some past its end):
        bytes nobody asked for, which forbid reusing the connection (the connection's
        check; issue 30)."""
        if not self._done:
            return 0
        leftover = self._message is not None and self._message.leftover
        return len(self._buffer) or int(leftover)

    def rest(self) -> bytes:
        """The bytes given past the end of a whole reply of known length, taken out of
        this machine (b"": none, or the reply is not whole): on a connection with requests
        pipelined (RFC 9112 §9.3.2), the beginning of the next reply."""
        if not self._done or self.framing != "length" or not self._buffer:
            return b""
        rest = bytes(self._buffer)
        self._buffer.clear()
        return rest

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
            return self._end() if self._eof else NEED_DATA
        return self._end()

    def _end(self) -> End:
        self._done = True
        if self._buffer and self.reuse_refused is None:
            self.reuse_refused = "the server sent bytes after the end of its reply"
        return End(self.reuse_refused is None)

    def _take(self, n: int) -> Data:
        if n >= len(self._buffer):  # (all of it: one copy, nothing moved)
            piece = bytes(self._buffer)
            self._buffer.clear()
            return Data(piece)
        piece = bytes(self._buffer[:n])
        del self._buffer[:n]
        return Data(piece)

    def _next_head(self) -> Event:
        while True:
            buffer = self._buffer
            if self._message is None:
                self._message = _message(self.parser, self.method)
                self._fed = self._searched = self._scanned = 0
                self._lines_from = -1
                self._lines_searched = 0
            end = _head_end(buffer, self._searched)
            if end == -1:
                self._searched = max(0, len(buffer) - 2)
                if len(buffer) > self.max_head:
                    raise LimitExceeded(
                        f"the server's reply head is longer than {self.max_head} bytes",
                        component="header",
                    )
                cut = self._foldable(buffer)
                if cut > self._fed:  # (a parser may refuse a broken head early)
                    self._message.feed_head(self._field_bytes(buffer, cut))
                    self._fed = cut
                if self._eof:
                    what = "in the middle of its reply" if buffer else "without a reply"
                    raise ConnectionClosed(f"the server closed the connection {what}")
                return NEED_DATA
            if end > self.max_head:
                raise LimitExceeded(
                    f"the server's reply head is longer than {self.max_head} bytes",
                    component="header",
                )
            raw = self._message.finish_head(self._field_bytes(buffer, end))
            del buffer[:end]
            head = _checked_head(raw)
            if head.status == 101:
                raise ProtocolError(
                    "the server switched protocols (101) although omniurl asked for no upgrade",
                    component="status",
                )
            if head.status < 200:
                # RFC 9110 §15.2: interim replies precede the final one; none is ours to act on
                self._interim += 1
                self.interim_bytes += end
                if self._interim > MAX_INTERIM:
                    raise LimitExceeded(
                        f"the server sent more than {MAX_INTERIM} interim (1xx) replies",
                        component="status",
                    )
                self._message = None
                continue
            self.head = head
            self.framing, self._remaining = framing_of(head, self.method)
            self.reuse_refused = reuse_refused(head, self.framing)
            if self.framing != "chunked":
                self._message = None
            return head

    def _foldable(self, buffer: bytearray) -> int:
        """How much of an unfinished head may go to the parser now: all of it but the line
        breaks and white space at its end (an obs-fold may be coming: :func:`_unfolded`
        needs its line break and the white space on both sides together)."""
        self._find_lines(buffer, len(buffer))
        # The whole run of CR, LF, SP and HTAB at the end waits: a fold's line break may
        # follow a line of white space alone (``a\r\n \r\n b``), and a run cut before its
        # last line break would reach the parser as a line ending, then a line starting with
        # white space (llhttp: "unexpected whitespace"; h11: a value depending on the cut).
        # What lies past ``_fed`` is all such bytes after every call (fed up to the last
        # other byte), so only the bytes come since the last call are looked at: a server
        # dripping white space a byte at a time costs a step a byte, not the run each time.
        end = len(buffer)
        stop = max(self._fed, self._scanned)
        while end > stop and buffer[end - 1] in (0x0D, 0x0A, 0x20, 0x09):
            end -= 1
        if end == stop:
            end = self._fed  # (all new: the run since what was fed waits whole)
        self._scanned = len(buffer)
        return end

    def _find_lines(self, buffer: bytearray, stop: int) -> None:
        """Find where the field lines begin (past the start line's CRLF) in ``buffer[:stop]``,
        the search resumed where it last ended: a start line dripped a byte a read is not
        searched again from its first byte at each (quadratic: 10 s of CPU for 100,000
        bytes, against 0.3 s before the fold's seam)."""
        if self._lines_from < 0:
            first = buffer.find(b"\r\n", self._lines_searched, stop)
            if first != -1:
                self._lines_from = first + 2
            else:
                self._lines_searched = max(self._lines_searched, stop - 1)

    def _field_bytes(self, buffer: bytearray, stop: int) -> bytes:
        """``buffer[self._fed:stop]`` for the parser: the start line as it came, the field
        lines unfolded (:func:`_unfolded`; a line starting with white space right after the
        start line is no fold, RFC 9112 §2.2: the parser refuses it)."""
        self._find_lines(buffer, stop)
        start = self._fed
        if self._lines_from < 0 or stop <= self._lines_from:
            return bytes(buffer[start:stop])
        if start >= self._lines_from:
            return _unfolded(bytes(buffer[start:stop]))
        lines = self._lines_from
        return bytes(buffer[start:lines]) + _unfolded(bytes(buffer[lines:stop]))

    def _length_body(self) -> Event:
        if self._remaining <= 0:
            return self._end()
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

    def _chunked_body(self) -> Event:
        message = self._message
        assert message is not None
        if message.done:
            # (bytes the parser took past the end; what is left in the buffer counts in _end.
            # A CR/LF llhttp skipped after the end, as RFC 9112 §2.2 allows, is not seen.)
            if message.leftover and self.reuse_refused is None:
                self.reuse_refused = "the server sent bytes after the end of its reply"
            return self._end()
        if not self._buffer:
            if self._eof:
                raise ConnectionClosed("the server closed the connection inside a chunk")
            return NEED_DATA
        data = bytes(self._buffer)
        self._buffer.clear()
        out: list[bytes] = []
        if message.feed_body(data, out):
            self._idle = 0
        else:
            self._idle += len(data)
            if self._idle > MAX_CHUNK_LINE:
                raise LimitExceeded("the server sent an over-long chunk line", component="body")
        if out:
            return Data(out[0] if len(out) == 1 else b"".join(out))
        return self._chunked_body()


# -- what a reply means (RFC 9110 §15) -------------------------------------------------------

#: RFC 9110 §15.4: the redirections a client follows with a Location.
REDIRECTS = (301, 302, 303, 307, 308)


def digest_challenged(head: Head, has_digest: bool) -> bool:
    """A 401 that asks for Digest (RFC 7616 §3.3), to a request that has Digest credentials."""
    if head.status != 401 or not has_digest:
        return False
    from .planner import digest_asked

    return digest_asked(head.get("www-authenticate"))


def redirect_location(head: Head, follow: bool) -> str | None:
    """The ``Location`` to follow (RFC 9110 §10.2.2), or None: not a redirect, no Location,
    an empty one (:func:`empty_location`), or following is off (the 3xx is then the
    result)."""
    if head.status in REDIRECTS and follow:
        location = head.get("location")
        if location is not None and not empty_location(location):
            return location
    return None


def empty_location(location: str) -> bool:
    """Whether a ``Location`` value is empty or white space alone.  RFC 9110 §10.2.2 makes
    the value a URI-reference resolved against the request's URI, and the empty reference
    resolves to that URI itself (RFC 3986 §5.2.2): following it sends the same request
    again, a loop by construction.  So it is not followed and the 3xx is the result, as
    curl's ``-L`` does (its body shown, exit 0; before, omniurl sent the request 11 times
    and ended "more than 10 redirects", exit 6; wget follows it 20 times, exit 8)."""
    return not location.strip(" \t")


def location_reference(location: str) -> str:
    """A ``Location`` value as the URI-reference to resolve (RFC 9110 §10.2.2, and the
    recovery its note allows, as curl, wget and browsers make it): outer white space
    dropped, a space inside as ``%20`` (``Location: /my file.pdf``), and the octets of a
    value that was not UTF-8 (:class:`Octets`: a Latin-1 server's ``/caf\xe9.txt``) each
    as its own ``%XX`` — never re-encoded as the UTF-8 of the character they stand for.
    Tabs and controls are left for the URL check to refuse."""
    reference = location.strip().replace(" ", "%20")
    if isinstance(location, Octets):
        reference = "".join(c if c < "\x80" else f"%{ord(c):02X}" for c in reference)
    return reference


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
    "PARSERS",
    "PARSER_VARIABLE",
    "REDIRECTS",
    "Data",
    "End",
    "Event",
    "Head",
    "Octets",
    "ReplyReader",
    "content_length",
    "default_parser",
    "digest_challenged",
    "empty_location",
    "failure",
    "framing_of",
    "keeps_alive",
    "location_reference",
    "parse_head",
    "redirect_location",
    "reuse_refused",
    "transfer_codings",
]
