"""The ``adversary`` test server: one misbehaviour per run (``--mode``, see
:mod:`testservers.adversary.modes`), on loopback, for the tests and for trying a client by
hand (``omniurl serve adversary --mode huge-gopher-menu``)."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

from ..base import ConnectionTasks, RunningServer, register
from .modes import MODES, Params


@register("adversary", "misbehave on purpose: trickles, floods, huge listings, lies (--mode)")
async def start(
    root: Path,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    mode: str = "trickle-gopher-text",
    count: int = 10_000_000,
    interval: float = 1.5,
    **kw: Any,
) -> RunningServer:
    """Start the server in ``mode``; ``info["connections"]`` counts the clients served."""
    if mode not in MODES:
        raise ValueError(f"no adversary mode {mode!r}; the modes: {', '.join(sorted(MODES))}")
    handler = MODES[mode][1]
    params = Params(count=count, interval=interval)
    info: dict[str, Any] = {"connections": 0, "mode": mode}
    connections = ConnectionTasks()

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        info["connections"] += 1
        try:
            await handler(reader, writer, params)
        except (OSError, TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer.wait_closed(), 2)

    server = await asyncio.start_server(connections.track(serve), host, port)
    params.port = int(server.sockets[0].getsockname()[1])

    async def close() -> None:
        await connections.close(server)

    return RunningServer("adversary", host, params.port, close, info=info)


__all__ = ["start"]
