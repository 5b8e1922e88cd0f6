"""omniurl's own HTTP/1.1 connections: the planned head goes out byte for byte.

A :class:`Connection` writes the bytes the plan's steps hold (request line, header fields,
the empty line: RFC 9112 §2.1) and nothing else, then pumps the connection's bytes through
the pure :class:`~resolvers.http.reply.ReplyReader`.  There is no second serialiser between
the plan and the wire (httpcore's, before, re-encoded the request: "the plan is the wire"
held by convention only).  Connections are opened on the one stream seam,
:func:`resolvers.net.connect` — the policy's address check, ``--resolve``, SOCKS and
``CONNECT`` tunnels, TLS — and kept alive in :class:`Connections` (one resolve's, or a
client's shared :class:`~resolvers.http.pool.HTTPPool`).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable

from ..errors import ConnectionClosed
from ..net import Stream, connect, moved
from ..options import Options
from .planner import Origin
from .reply import NEED_DATA, Data, End, Head, ReplyReader

TYPE_CHECKING = False
if TYPE_CHECKING:
    import ssl

#: Bytes asked of the socket per read of a head (and of a chunked or close-framed body).
HEAD_READ = 64 * 1024
#: Bytes asked of the socket per read of a body of known length: large reads are what make
#: bulk transfers fast (256 KiB → 1 MiB: fewer passes through the loop and the writer; 512
#: MiB from nginx cost 0.60 s of CPU through httpcore, 0.29 s so, curl 0.28 s).
BULK_READ = 1 << 20


class StaleConnection(ConnectionClosed):
    """A kept-alive connection ended before the first byte of this request's reply: the
    server closed it while it was idle (RFC 9112 §9.6 lets a server close an idle persistent
    connection at any time; the FIN can arrive after the peek that found it alive).  Nothing
    of this request was answered, so an idempotent request is sent again on a new connection
    (RFC 9112 §9.3.1)."""


def framed_twice(head: Head) -> bool:
    """A reply with both ``Transfer-Encoding`` and ``Content-Length``: RFC 9112 §6.1 — such a
    message "ought to be handled as an error", and a client "MUST close the connection after
    processing the response" (request smuggling hides in the disagreement)."""
    names = {name.lower() for name, _ in head.fields}
    return "transfer-encoding" in names and "content-length" in names


def asks_close(head: bytes) -> bool:
    """Whether a request head carries ``Connection: close``: RFC 9112 §9.6, a client that
    sends it "MUST NOT send further requests on that connection" (before, ``-H
    'Connection: close'`` went out and the next request rode the same connection)."""
    lower = head.lower()
    at = lower.find(b"\nconnection:")
    while at >= 0:
        end = lower.find(b"\n", at + 1)
        value = lower[at + 12 : end if end >= 0 else len(lower)]
        if any(token.strip(b" \t\r") == b"close" for token in value.split(b",")):
            return True
        at = lower.find(b"\nconnection:", at + 1)
    return False


class Connection:
    """One HTTP/1.1 connection to ``origin`` (scheme, host, port) over a :class:`Stream`."""

    def __init__(self, stream: Stream, origin: Origin) -> None:
        self.stream = stream
        self.origin = origin
        #: The previous reply ended with the connection fit for another request.
        self.reusable = False
        self.idle_since = 0.0
        #: Taken from the kept connections (it carried a request before this one).
        self.reused = False
        #: The reply's head forbids reuse whatever its framing says (RFC 9112 §6.1).
        self._last = False
        #: The request said ``Connection: close`` (:func:`asks_close`): never reused.
        self.asked_close = False
        #: The server sent bytes before the first request went out (:meth:`Stream.spoke_first`):
        #: out of step with its requests, never reused.
        self.spoke_first = False

    async def exchange(self, head: bytes, method: str) -> tuple[Head, ReplyReader]:
        """Send ``head`` exactly and read the reply's head (interim 1xx replies skipped)."""
        self.reusable = False
        self.asked_close = asks_close(head)
        reader = ReplyReader(method)
        if not self.reused and not self.spoke_first:
            self.spoke_first = self.stream.spoke_first()
        try:
            await self.stream.write(head, "the request")
        except ConnectionClosed as exc:
            if self.reused:
                raise StaleConnection(*exc.args) from None
            raise
        return await self.read_head(reader), reader

    async def read_head(self, reader: ReplyReader, answered: bool = False) -> Head:
        """Read the reply's head into ``reader`` (``answered``: it has had a byte of it
        already — the batch's lean engine hands over a head it began reading)."""
        try:
            while (event := reader.next_event()) is NEED_DATA:
                data = await self.stream.read("the reply", HEAD_READ)
                answered = answered or bool(data)
                reader.receive_data(data)
        except ConnectionClosed as exc:
            if self.reused and not answered:
                raise StaleConnection(*exc.args) from None
            raise
        assert isinstance(event, Head)
        self._last = framed_twice(event)
        if reader.interim_bytes:
            trace = self.stream.options.trace
            if trace is not None:
                trace.interim += reader.interim_bytes
        return event

    async def body(
        self,
        reader: ReplyReader,
        views: Callable[[], bool] = lambda: False,
        sink: Callable[[], int | None] = lambda: None,
    ) -> AsyncIterator[bytes]:
        """The body's bytes as they arrive; at its end, :attr:`reusable` says whether the
        connection may carry another request.  While ``views()`` holds (the consumer writes
        each chunk before asking for the next: ``Resource.views_ok``), a known-length body
        comes as ``memoryview`` chunks of one reused buffer; and where the consumer only
        writes to a file descriptor (``sink()``: ``Resource.sink``), it is spliced there
        (``Stream.splice_into``: chunks that stand for the bytes moved, ``net.moved``)."""
        stream = self.stream
        buffer: memoryview | None = None
        bulk = False
        while True:
            want = reader.raw_wanted()
            if want and views():
                if not bulk and want > HEAD_READ:
                    stream.bulk()  # (fuller, fewer reads: Stream.fill_into)
                bulk = True
                fd = sink()
                if fd is not None and stream.can_splice:
                    n = await stream.splice_into(fd, min(want, BULK_READ), "the body")
                    reader.raw_received(n)
                    if n:
                        yield moved(n)  # type: ignore[misc]
                    continue
                # Content-Length, the consumer writes at once: straight from the socket into
                # one buffer, read after read (readinto); the machine only counts.
                if buffer is None:
                    buffer = memoryview(bytearray(min(want, BULK_READ)))
                space = buffer[:want] if want < len(buffer) else buffer
                n = await stream.fill_into(space, "the body")
                reader.raw_received(n)
                if n:
                    yield buffer[:n]  # type: ignore[misc]
                continue
            if want:
                # Content-Length: straight from the socket, the machine only counts.
                data = await stream.read("the body", min(want, BULK_READ))
                reader.raw_received(len(data))
                if data:
                    yield data
                continue
            event = reader.next_event()
            if event is NEED_DATA:
                reader.receive_data(await stream.read("the body", HEAD_READ))
            elif isinstance(event, Data):
                yield event.data
            else:
                assert isinstance(event, End)
                self.reusable = self._reusable(event, reader)
                return

    def _reusable(self, end: End, reader: ReplyReader) -> bool:
        """Whether the connection may carry another request after this reply: the reply
        says so (``End.keep_alive``: HTTP/1.1, no ``Connection: close``, not read to the
        close), its head was not framed twice, and not a byte the server sent is left
        unread — neither past the reply's end in the reader nor anywhere between the socket
        and here (:meth:`Stream.idle_ended`).  Bytes a server sends between replies are
        never read as the next reply (issue 30: through one client over https, a few bytes
        behind the first reply came back as the second ``get``'s)."""
        return (
            end.keep_alive
            and not self._last
            and not self.asked_close
            and not self.spoke_first
            and not reader.trailing()
            and not self.stream.idle_ended()
        )

    async def drain(self, reader: ReplyReader, limit: int = 1 << 20) -> bool:
        """Read a body nobody wants (a 401's page before the Digest answer, a followed
        redirect's), at most ``limit`` bytes: past it the connection is not worth keeping.
        Whether the body ended within ``limit``."""
        seen = 0
        async for data in self.body(reader):
            seen += len(data)
            if seen > limit:
                self.reusable = False
                return False
        return True

    def close(self) -> None:
        self.reusable = False
        self.stream.close()


class Connections:
    """Kept-alive connections of one set of options, by origin; bounded.

    At most ``max_keepalive`` idle ones are kept, each for ``keepalive_expiry`` seconds (how
    many are open at once is the client's :class:`~resolvers.http.pool.HTTPPool`'s to
    bound).  A kept connection the server has closed meanwhile (or written to unasked) is
    noticed — every buffer between the socket and the reader looked at
    (:meth:`Stream.idle_ended`) — and not reused.
    """

    def __init__(
        self, options: Options, *, max_keepalive: int = 20, keepalive_expiry: float = 5.0
    ) -> None:
        self.options = options
        self.max_keepalive = max_keepalive
        self.keepalive_expiry = keepalive_expiry
        self._idle: list[Connection] = []
        self._tls: ssl.SSLContext | None = None
        self._closed = False

    def _context(self) -> ssl.SSLContext:
        if self._tls is None:  # (built once: loading the CA store costs milliseconds)
            from ..tls import ssl_context

            self._tls = ssl_context(self.options)
        return self._tls

    async def connect(self, scheme: str, host: str, port: int, options: Options) -> Connection:
        """A connection to the origin: a kept one if any is alive, else a new one."""
        origin = (scheme, host, port)
        now = time.monotonic()
        for conn in reversed(self._idle):
            if conn.origin == origin:
                self._idle.remove(conn)
                if now - conn.idle_since < self.keepalive_expiry and not conn.stream.idle_ended():
                    conn.stream.options = options  # (this resolve's timeouts and bounds)
                    conn.reused = True
                    return conn
                conn.close()
        tls = self._context() if scheme == "https" else None
        return Connection(await connect(host, port, options, tls=tls), origin)

    def release(self, conn: Connection) -> None:
        """Hand ``conn`` back after its reply: kept if it may carry another request."""
        if not conn.reusable or self._closed or self.max_keepalive <= 0:
            conn.close()
            return
        conn.idle_since = time.monotonic()
        self._idle.append(conn)
        while len(self._idle) > self.max_keepalive:
            self._idle.pop(0).close()

    async def aclose(self) -> None:
        self._closed = True
        idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()


__all__ = ["BULK_READ", "Connection", "Connections", "StaleConnection"]
