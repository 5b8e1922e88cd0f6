"""A Gopher connection on a plain non-blocking socket: connect, send, bounded reads.

Gopher is one request and one reply per connection, mostly bulk data, often many small
connections at once — the case where asyncio's ``StreamReader`` costs the most (a transport,
a protocol, a copy into its buffer and another out of it, a task per ``wait_for``).  Here the
reply is read with ``loop.sock_recv`` (the kernel fills the ``bytes`` handed out: no copy of
ours), each wait bounded with ``asyncio.timeout`` (no task per read), and lines are cut from
a small leftover buffer.

The socket comes from :func:`resolvers.net.open_socket` (the ``--resolve`` mapping and the
policy's address rules apply before ``connect()``), and every failure is a typed
:mod:`resolvers.errors` error, exactly as with :func:`resolvers.net.open_tcp`.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator

from ..errors import ConnectionClosed, LimitExceeded, ResolveTimeout
from ..net import open_socket
from ..options import Options


class Connection:
    """One Gopher exchange: :meth:`send` the request, then read lines or chunks."""

    def __init__(self, sock: socket.socket, options: Options) -> None:
        self.sock = sock
        self.options = options
        self._loop = asyncio.get_running_loop()
        self._chunk = max(options.chunk_size, 1024)
        self._pending = b""  # given back by unread()
        self._eof = False

    @classmethod
    async def open(cls, host: str, port: int, options: Options) -> Connection:
        return cls(await open_socket(host, port, options), options)

    async def send(self, data: bytes, what: str = "the selector") -> None:
        try:
            # A request the kernel takes whole at once (a selector almost always is: a fresh
            # connection's send buffer is empty) needs no deadline; only the rest, should
            # the kernel take part of it, is sent under the timeout.
            try:
                sent = self.sock.send(data)
            except (BlockingIOError, InterruptedError):
                sent = 0
            if sent == len(data):
                return
            async with asyncio.timeout(self.options.read_timeout):
                await self._loop.sock_sendall(self.sock, memoryview(data)[sent:])
        except TimeoutError:
            raise ResolveTimeout(
                f"timed out after {self.options.read_timeout:g} s sending {what}"
            ) from None
        except OSError as exc:
            raise ConnectionClosed(f"connection lost while sending {what}: {exc}") from None

    async def _recv(self, what: str) -> bytes:
        """The next bytes from the server (b"" at end of stream), one bounded wait.

        ``recv`` hands back a new ``bytes`` object filled by the kernel: no copy of our own
        (measured faster than receiving into a buffer and copying chunks out of it).
        """
        if self._pending:
            data, self._pending = self._pending, b""
            return data
        if self._eof:
            return b""
        try:
            # Data already waiting is taken at once; only a real wait goes through the loop,
            # bounded by the read timeout.
            data = self.sock.recv(self._chunk)
        except (BlockingIOError, InterruptedError):
            data = await self._wait_recv(what)
        except OSError as exc:
            raise ConnectionClosed(f"connection lost while reading {what}: {exc}") from None
        if not data:
            self._eof = True
        return data

    async def _wait_recv(self, what: str) -> bytes:
        try:
            async with asyncio.timeout(self.options.read_timeout):
                return await self._loop.sock_recv(self.sock, self._chunk)
        except TimeoutError:
            raise ResolveTimeout(
                f"timed out after {self.options.read_timeout:g} s waiting for {what}"
            ) from None
        except OSError as exc:
            raise ConnectionClosed(f"connection lost while reading {what}: {exc}") from None

    async def read_some(self, what: str = "the reply") -> bytes:
        return await self._recv(what)

    def unread(self, data: bytes) -> None:
        """Give back bytes read too far (the next read returns them first)."""
        self._pending = data + self._pending

    async def read_line(self, what: str) -> bytes:
        """One LF- or CRLF-terminated line without its ending, at most ``max_line`` long."""
        line = b""
        while True:
            data = await self._recv(what)
            if not data:
                raise ConnectionClosed(
                    f"connection closed in the middle of {what}"
                    if line
                    else f"connection closed while waiting for {what}"
                )
            cut = data.find(b"\n")
            if cut >= 0:
                line += data[:cut]
                self.unread(data[cut + 1 :])
                if len(line) > self.options.max_line + 1:
                    raise LimitExceeded(f"{what}: line longer than {self.options.max_line} bytes")
                return line[:-1] if line.endswith(b"\r") else line
            line += data
            if len(line) > self.options.max_line + 1:
                raise LimitExceeded(f"{what}: line longer than {self.options.max_line} bytes")

    async def chunks(self, what: str, size: int | None = None) -> AsyncIterator[bytes]:
        """The rest of the reply (or exactly ``size`` bytes, else :class:`ConnectionClosed`)."""
        remaining = size
        while remaining is None or remaining > 0:
            data = await self._recv(what)
            if not data:
                if remaining is not None:
                    raise ConnectionClosed(
                        f"connection closed with {remaining} bytes of {what} still to come"
                    )
                return
            if remaining is not None:
                if len(data) > remaining:
                    self.unread(data[remaining:])
                    data = data[:remaining]
                remaining -= len(data)
            yield data

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()


class TLSConnection(Connection):
    """Gopher over TLS (``gophers:``, as curl and phetch speak it): the same exchange over
    asyncio's TLS streams — the handshake, the certificate checked for the host, is part of
    :meth:`open`; reads and writes are bounded exactly as on a plain socket."""

    def __init__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, options: Options
    ) -> None:
        self.reader = reader
        self.writer = writer
        self.options = options
        self._loop = asyncio.get_running_loop()
        self._chunk = max(options.chunk_size, 1024)
        self._pending = b""
        self._eof = False

    @classmethod
    async def open(cls, host: str, port: int, options: Options) -> Connection:
        from ..net import open_tcp
        from ..tls import ssl_context

        reader, writer = await open_tcp(host, port, options, tls=ssl_context(options))
        return cls(reader, writer, options)

    async def send(self, data: bytes, what: str = "the selector") -> None:
        try:
            self.writer.write(data)
            async with asyncio.timeout(self.options.read_timeout):
                await self.writer.drain()
        except TimeoutError:
            raise ResolveTimeout(
                f"timed out after {self.options.read_timeout:g} s sending {what}"
            ) from None
        except OSError as exc:
            raise ConnectionClosed(f"connection lost while sending {what}: {exc}") from None

    async def _recv(self, what: str) -> bytes:
        if self._pending:
            data, self._pending = self._pending, b""
            return data
        if self._eof:
            return b""
        try:
            async with asyncio.timeout(self.options.read_timeout):
                data = await self.reader.read(self._chunk)
        except TimeoutError:
            raise ResolveTimeout(
                f"timed out after {self.options.read_timeout:g} s waiting for {what}"
            ) from None
        except OSError as exc:  # (ssl.SSLError is an OSError)
            raise ConnectionClosed(f"connection lost while reading {what}: {exc}") from None
        if not data:
            self._eof = True
        return data

    def close(self) -> None:
        with contextlib.suppress(OSError, RuntimeError):
            self.writer.close()


__all__ = ["Connection", "TLSConnection"]
