"""A scripted FTP server for the tests that need a server misbehaving on cue (not a test
module): the control loop, ``EPSV`` data listeners and canned replies once; each test's
subclass answers the commands its story is about (``answer``)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import ClassVar, TypeVar

from helpers import loopback_server


@dataclass
class Connection:
    """One control connection: its number (1 for the first) and its data connections."""

    writer: asyncio.StreamWriter
    number: int
    data: asyncio.Queue[asyncio.StreamWriter] = field(default_factory=asyncio.Queue)
    listeners: list[asyncio.Server] = field(default_factory=list)
    #: The data connections taken: closed when the control connection ends.
    held: list[asyncio.StreamWriter] = field(default_factory=list)

    async def data_connection(self) -> asyncio.StreamWriter:
        """The next data connection the client opened (bounded: 10 s)."""
        out = await asyncio.wait_for(self.data.get(), 10)
        self.held.append(out)
        return out


@dataclass
class ScriptedFTP:
    """Greets with ``220``, answers ``EPSV`` with a new listener and the other commands from
    ``replies`` (``502`` for the rest) until ``QUIT``, a close, or ``read_timeout`` of
    silence."""

    replies: ClassVar[dict[bytes, bytes]] = {
        b"USER": b"331 pw\r\n",
        b"PASS": b"230 ok\r\n",
        b"TYPE": b"200 ok\r\n",
        b"QUIT": b"221 bye\r\n",
    }
    read_timeout: ClassVar[float] = 10
    #: (Keyword-only: a subclass's own fields come first, positionally.)
    port: int = field(default=0, kw_only=True)
    #: How many control connections were opened.
    connections: int = field(default=0, kw_only=True)

    async def answer(self, conn: Connection, line: bytes, verb: bytes) -> bool:
        """Answer one command (``line`` without its CRLF); False ends the connection at
        once (without the drain)."""
        if verb == b"EPSV":

            async def accepted(_r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
                await conn.data.put(w)

            listener = await asyncio.start_server(accepted, "127.0.0.1", 0)
            conn.listeners.append(listener)
            port = listener.sockets[0].getsockname()[1]
            conn.writer.write(b"229 Entering Extended Passive Mode (|||%d|)\r\n" % port)
        else:
            conn.writer.write(self.replies.get(verb, b"502 no\r\n"))
        return True

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        conn = Connection(writer, self.connections)
        writer.write(b"220 scripted\r\n")
        try:
            while line := await asyncio.wait_for(reader.readline(), self.read_timeout):
                line = line.rstrip(b"\r\n")
                verb = line.split(b" ", 1)[0]
                if not await self.answer(conn, line, verb):
                    break
                await writer.drain()
                if verb == b"QUIT":
                    break
        except (OSError, TimeoutError):
            pass
        finally:
            for out in conn.held:
                out.close()
            for listener in conn.listeners:
                listener.close()
            writer.close()


Server = TypeVar("Server", bound=ScriptedFTP)


@contextlib.asynccontextmanager
async def serving(server: Server) -> AsyncIterator[Server]:
    """``server`` listening on 127.0.0.1 (its ``port``) for the block."""
    async with loopback_server(server.serve) as port:
        server.port = port
        yield server
