"""Writing into a FIFO or a device (``-o /dev/null``, ``-o FIFO``) from the event loop.

Apart from :mod:`omniurl.cli.inputs` (which re-exports it) because that module imports the
batch's machinery (``omniurl.batch``: ``dataclasses`` with ``inspect``, ``pathlib``,
``hashlib``), which a single ``get -o /dev/null URL`` has no use for: ~20 ms of importtime
in a fresh venv, 2026-11-28 (``python -X importtime``; the bodies of the modules
``omniurl/deferred.py`` defers ran too).
"""

from __future__ import annotations

import asyncio
import errno
import os


def _wake(ready: asyncio.Future[None]) -> None:
    if not ready.done():
        ready.set_result(None)


async def _ready(loop: asyncio.AbstractEventLoop, fd: int, *, write: bool) -> None:
    """Until the loop reports ``fd`` writable (``write``) or readable: the one wait of
    :func:`write_all` and of :mod:`omniurl.cli.inputs`' URL lists, its watch removed after."""
    ready: asyncio.Future[None] = loop.create_future()
    if write:
        loop.add_writer(fd, _wake, ready)
    else:
        loop.add_reader(fd, _wake, ready)
    try:
        await ready
    finally:
        if write:
            loop.remove_writer(fd)
        else:
            loop.remove_reader(fd)


async def open_for_writing(path: str, *, poll: float = 0.05, truncate: bool = False) -> int:
    """``path`` (a FIFO or a device; with ``truncate``, a file written in place) opened for
    writing, non-blocking.  A FIFO without a reader refuses a non-blocking open (ENXIO): it
    is tried again every ``poll`` seconds, the loop free meanwhile (signals end the wait)."""
    flags = os.O_WRONLY | os.O_NONBLOCK | (os.O_TRUNC if truncate else 0)
    while True:
        try:
            return os.open(path, flags)
        except OSError as exc:
            if exc.errno != errno.ENXIO:
                raise
        await asyncio.sleep(poll)


async def write_all(fd: int, data: bytes | memoryview) -> None:
    """Write all of ``data`` to a non-blocking ``fd``, waiting (on the loop) while it is full."""
    loop = asyncio.get_running_loop()
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view) :]
        except BlockingIOError:
            await _ready(loop, fd, write=True)


__all__ = ["open_for_writing", "write_all"]
