"""A small Finger server (RFC 1288) for the tests and for trying the plugin out.

``omniurl serve x-finger --port PORT`` (the spec's ``test_server`` names :func:`start`), or
``python -m omniurl_xfinger.server [PORT]``, serves a fixed table of users on 127.0.0.1.
Queries are bounded (one line of at most 512 octets, 5 s to send it); forwarding queries
(``user@host``) are declined as RFC 1288 §3.2.1 recommends.  Every query received is kept in
``FingerServer.queries`` so a test can check the exact bytes (and ``connections`` counts
the connections, so a test can check that a refused URL made none).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from dataclasses import dataclass, field

USERS: dict[str, str] = {
    "alice": "Login: alice\t\t\tName: Alice Liddell\r\nPlan:\r\nFollow the white rabbit.\r\n",
    "bob": "Login: bob\t\t\tName: Bob Dobbs\r\nNo plan.\r\n",
}


@dataclass
class FingerServer:
    users: dict[str, str] = field(default_factory=lambda: dict(USERS))
    queries: list[bytes] = field(default_factory=list)
    #: Connections accepted (a refused URL must not even connect).
    connections: int = 0
    server: asyncio.Server | None = None

    @property
    def port(self) -> int:
        assert self.server is not None
        return int(self.server.sockets[0].getsockname()[1])

    def answer(self, query: bytes) -> bytes:
        text = query.decode("utf-8", "replace").strip()
        verbose = text.upper().startswith("/W")
        if verbose:
            text = text[2:].strip()
        if "@" in text:
            return b"finger: forwarding service denied\r\n"
        if not text:
            return "".join(f"{u}\r\n" for u in sorted(self.users)).encode()
        info = self.users.get(text)
        if info is None:
            return f"finger: {text}: no such user.\r\n".encode()
        return (info + ("Verbose: yes\r\n" if verbose else "")).encode()

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            query = await asyncio.wait_for(reader.readuntil(b"\n"), 5)
            self.queries.append(query)
            writer.write(self.answer(query[:512]))
            await writer.drain()
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, OSError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(OSError, TimeoutError):
                await asyncio.wait_for(writer.wait_closed(), 2)

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> FingerServer:
        self.server = await asyncio.start_server(self.handle, host, port, limit=512)
        return self

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()
            await asyncio.wait_for(self.server.wait_closed(), 5)


async def start(*, host: str = "127.0.0.1", port: int = 0, root: object = None) -> FingerServer:
    """``omniurl serve x-finger`` starts this (the spec's ``test_server``): a server
    listening on ``host:port`` (0: any free port), with ``port`` and ``close()``.  ``root``
    (``--root``) is not used: the users are a fixed table."""
    return await FingerServer().start(host, port)


async def _main(port: int) -> None:
    server = await FingerServer().start(port=port)
    sys.stderr.write(f"finger server on 127.0.0.1:{server.port}; Ctrl-C stops it\n")
    try:
        await asyncio.Event().wait()
    finally:
        await server.close()


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_main(int(sys.argv[1]) if len(sys.argv) > 1 else 0))
