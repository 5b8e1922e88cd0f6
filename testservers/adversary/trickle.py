"""A server that reads one request line, then sends its reply one byte at a time.

Protocol-agnostic: the reply is whatever bytes the caller gives (a Gopher text, an HTTP
status line and headers, an FTP 220 banner...), dripped every ``interval`` seconds — the
"trickle" that no per-read timeout catches (issue 14 item 2).  ``greet=True`` sends without
waiting for a request (FTP, NNTP, telnet speak first).  Listens on 127.0.0.1 port 0.
"""

from __future__ import annotations

import asyncio

from .loopback import LoopbackServer


class TrickleServer(LoopbackServer):
    def __init__(self, reply: bytes, *, interval: float = 0.2, greet: bool = False) -> None:
        self.reply = reply
        self.interval = interval
        self.greet = greet
        self.connections = 0

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            if not self.greet:
                await asyncio.wait_for(reader.readline(), 10)
            for i in range(len(self.reply)):
                writer.write(self.reply[i : i + 1])
                await writer.drain()
                await asyncio.sleep(self.interval)
        except (OSError, TimeoutError, asyncio.CancelledError):
            pass
        finally:
            await self.end_connection(writer)
