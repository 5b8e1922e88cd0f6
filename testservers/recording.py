"""A server that records every byte it receives (TCP or UDP), and answers only if told to.

Its job is to *prove* things about what a client sent: that a URL refused by the safety policy
sent zero bytes (``server.received == b""`` and ``server.connections == 0``), or that the
command lines a client sent are exactly the lines its plan shows.  It binds loopback and port 0
by default, like every test server.

``greeting`` is written as soon as a TCP client connects; ``respond(line) -> bytes | None`` is
called for every received line (CRLF or LF terminated) and its answer written back — enough to
script a line protocol (``220 hi``, ``331 password``, ...) without writing a whole server.  With
``respond=None`` the server reads and records until the client goes away.

    async with await start_recording() as rec:
        ...                                   # point a client at rec.port
        assert rec.server.received == b""
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from .base import ConnectionTasks, RunningServer, close_quietly, register

#: A scripted answer to one received line (without its ending); ``None`` answers nothing.
Responder = Callable[[bytes], bytes | None]


@dataclass
class Recording:
    """What a recording server saw: all bytes (in arrival order), per connection and datagram."""

    #: Every byte received, all connections and datagrams concatenated in arrival order.
    received: bytearray = field(default_factory=bytearray)
    #: Bytes per TCP connection, in connection order.
    per_connection: list[bytearray] = field(default_factory=list)
    #: Every UDP datagram, in arrival order.
    datagrams: list[bytes] = field(default_factory=list)
    #: Connections accepted (TCP) — 0 proves a client did not even connect.
    connections: int = 0
    #: Set whenever something arrives (tests wait on it, bounded).
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    def lines(self) -> list[bytes]:
        """The received bytes split into lines (CRLF or LF), without endings."""
        data = bytes(self.received)
        if not data:
            return []
        parts = data.replace(b"\r\n", b"\n").split(b"\n")
        return parts[:-1] if parts[-1] == b"" else parts

    async def wait_for(self, predicate: Callable[[Recording], bool], timeout: float = 5) -> None:
        """Wait (bounded) until ``predicate(self)`` holds."""

        async def loop() -> None:
            while not predicate(self):
                self.changed.clear()
                await self.changed.wait()

        await asyncio.wait_for(loop(), timeout)

    def _add(self, data: bytes, conn: bytearray | None = None) -> None:
        self.received += data
        if conn is not None:
            conn += data
        self.changed.set()


async def start_recording(
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    transport: str = "tcp",
    greeting: bytes = b"",
    respond: Responder | None = None,
    reply_datagram: bytes | None = None,
) -> RunningServer:
    """Start a recording server; ``info["recording"]`` (also ``.recording``) holds what it saw."""
    recording = Recording()
    if transport == "udp":
        return await _start_udp(host, port, recording, reply_datagram)
    connections = ConnectionTasks()
    writers: set[asyncio.StreamWriter] = set()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        recording.connections += 1
        mine = bytearray()
        recording.per_connection.append(mine)
        recording.changed.set()
        writers.add(writer)
        buffer = b""
        try:
            if greeting:
                writer.write(greeting)
                await writer.drain()
            while True:
                data = await reader.read(65536)
                if not data:
                    break
                recording._add(data, mine)
                if respond is None:
                    continue
                buffer += data
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    answer = respond(line.removesuffix(b"\r"))
                    if answer:
                        writer.write(answer)
                        await writer.drain()
        except (ConnectionError, OSError, asyncio.CancelledError):
            pass  # the client went away, or the server is closing
        finally:
            writers.discard(writer)
            await close_quietly(writer, 1)

    server = await asyncio.start_server(connections.track(handle), host, port)
    bound_port = server.sockets[0].getsockname()[1]

    async def close() -> None:
        for writer in list(writers):
            writer.close()
        await connections.close(server)

    running = RunningServer("recording", host, bound_port, close, info={"recording": recording})
    return running


class _UDP(asyncio.DatagramProtocol):
    def __init__(self, recording: Recording, reply: bytes | None) -> None:
        self.recording = recording
        self.reply = reply
        self.transport: asyncio.DatagramTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.DatagramTransport, transport)

    def datagram_received(self, data: bytes, addr: tuple[str | Any, int]) -> None:
        self.recording.datagrams.append(data)
        self.recording._add(data)
        if self.reply is not None and self.transport is not None:
            self.transport.sendto(self.reply, addr)


async def _start_udp(
    host: str, port: int, recording: Recording, reply: bytes | None
) -> RunningServer:
    loop = asyncio.get_running_loop()
    transport, _protocol = await loop.create_datagram_endpoint(
        lambda: _UDP(recording, reply), local_addr=(host, port)
    )
    bound_port = transport.get_extra_info("sockname")[1]

    async def close() -> None:
        transport.close()

    return RunningServer(
        "recording", host, bound_port, close, transport="udp", info={"recording": recording}
    )


def recording_of(server: RunningServer) -> Recording:
    """The :class:`Recording` of a server started by :func:`start_recording`."""
    rec = server.info["recording"]
    assert isinstance(rec, Recording)
    return rec


@register("recording", "record every byte received on TCP (nothing is answered)")
async def start(root: Path, *, host: str = "127.0.0.1", port: int = 0, **kw: Any) -> RunningServer:
    """``omniurl serve recording``: the root is unused."""
    return await start_recording(host, port, **kw)


__all__ = ["Recording", "Responder", "recording_of", "start_recording"]
