"""SIGTERM and SIGHUP end a command the way Ctrl-C does.

``timeout(1)``, systemd and a closing terminal send SIGTERM or SIGHUP, whose default action
kills the process at once: a ``.NAME.part`` file would stay behind and a batch's manifest
would miss its last rows.  Here either signal cancels the running command instead, so every
``finally`` runs (temporary files removed, the old target kept, the manifest flushed, the
connections closed), and the process exits with the shell's status for it, 128 + the signal
number (143, 129), as a process killed by it would.
"""

from __future__ import annotations

import asyncio
import gc
import signal
import sys

from omniurl.exitstatus import ENDING, cancel_on_ending  # (ENDING's home; named here still)

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing's import: ~9 ms of a get's start, docs/speed.md)
    from collections.abc import Coroutine
    from typing import Any


def run_command(coro: Coroutine[Any, Any, int]) -> int:
    """``asyncio.run(coro)``, with SIGTERM/SIGHUP cancelling it; the exit status is then
    128 + the signal's number.  (SIGINT stays asyncio.run's: KeyboardInterrupt.)

    The handlers are Python's (``signal.signal``), which hand the cancel to the loop with
    ``call_soon_threadsafe`` — asyncio's own way with SIGINT (``asyncio.Runner``) — not
    ``loop.add_signal_handler``, whose check that the callback is no coroutine function
    imports ``inspect`` (with ``ast``, ``dis``, ``tokenize``: ~5-9 ms of CPU at load 4,
    which a get otherwise never loads: omniurl/deferred.py)."""
    received: list[int] = []

    async def main() -> int:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None
        if not gc.isenabled():  # the omniurl process's start (cli.main.run)
            from .main import COLLECT_AFTER, collect_from_now

            loop.call_later(COLLECT_AFTER, collect_from_now)

        def stop(signum: int) -> None:
            if not received:
                received.append(signum)
                task.cancel()

        installed = cancel_on_ending(loop, stop)
        try:
            return await coro
        finally:
            for signum, previous in installed:  # (None: one not set from Python)
                signal.signal(signum, signal.SIG_DFL if previous is None else previous)

    try:
        status = asyncio.run(main())
    except asyncio.CancelledError:
        if not received:
            raise
        status = 0
    if received:
        name = signal.Signals(received[0]).name
        sys.stderr.write(f"omniurl: ended by {name}\n")
        return 128 + received[0]
    return status


__all__ = ["ENDING", "run_command"]
