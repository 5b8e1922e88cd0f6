"""Wait in this thread for work run on an event loop in another thread.

The sync ``omniurl.Client`` (its own loop) and the urllib and fsspec doors (a shared loop,
fsspec's) each hand a coroutine to a loop running elsewhere and block until it is done; an
interrupted or timed-out wait must not leave the transfer running with nobody to read it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run_on(
    shared: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, T], timeout: float | None
) -> T:
    """Run ``coro`` on ``shared`` (a loop in another thread: ours, fsspec's) and wait for
    it, at most ``timeout`` seconds.

    Timed out or interrupted (Ctrl-C's KeyboardInterrupt in ``urlopen(…).read()``), the
    work is cancelled and waited for (5 s at most) before the exception goes on, so the
    transfer is over when the caller sees it.  Before, an interrupted read went on in the
    background and the response's ``close()`` then raised a bare ``RuntimeError``
    ("aclose(): asynchronous generator is already running"): urllib's, and fsspec's (its
    ``sync`` leaves the work running too), and the sync ``omniurl.Client``'s own."""
    running: list[asyncio.Task[Any]] = []

    async def tracked() -> T:
        task = asyncio.current_task()
        if task is not None:
            running.append(task)
        return await coro

    future = asyncio.run_coroutine_threadsafe(tracked(), shared)
    try:
        return future.result(timeout)
    except BaseException:
        if future.cancel():  # (queues the task's cancel on the loop before settle's start)

            async def settle() -> None:
                if not running:  # cancelled before it began: never to be awaited
                    coro.close()
                elif not running[0].done():
                    await asyncio.wait(running, timeout=5)

            with contextlib.suppress(BaseException):
                asyncio.run_coroutine_threadsafe(settle(), shared).result(6)
        raise
