"""The lifecycle the adversary servers share: listen on 127.0.0.1 port 0 as an async context
manager, serve each connection with ``_handle``, and close everything without raising.

A misbehaving server's own cleanup must neither fail nor hang the test that uses it, so
every close here is bounded (``close_quietly``: 2 s) and swallows the errors a half-dead peer
causes.
"""

from __future__ import annotations

import asyncio
from types import TracebackType
from typing import Self

from ..base import close_quietly


class LoopbackServer:
    """Base of the adversary servers: subclasses write ``_handle`` and may call
    :meth:`end_connection` in its ``finally``."""

    port: int = 0
    _server: asyncio.Server | None = None

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        raise NotImplementedError

    @staticmethod
    async def end_connection(writer: asyncio.StreamWriter) -> None:
        """Close one connection, bounded and quiet (the peer may have gone already)."""
        await close_quietly(writer)

    async def __aenter__(self) -> Self:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        assert self._server is not None
        await close_quietly(self._server)
