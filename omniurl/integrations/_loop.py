"""One background event loop for synchronous callers (urllib, pandas) of the async resolvers.

``urlopen`` is synchronous and may be called from code that already runs an event loop (a
notebook, a web handler), where ``asyncio.run`` is not allowed; a private loop in a daemon
thread serves both.  Every wait on it is bounded by the caller's timeout.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

from omniurl.threadwait import run_on

T = TypeVar("T")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None


def loop() -> asyncio.AbstractEventLoop:
    """The shared loop, started on first use."""
    global _loop
    with _lock:
        if _loop is None or _loop.is_closed():
            new = asyncio.new_event_loop()
            threading.Thread(target=new.run_forever, name="omniurl-loop", daemon=True).start()
            _loop = new
        return _loop


def run(coro: Coroutine[Any, Any, T], timeout: float | None) -> T:
    """:func:`run_on` the shared loop."""
    return run_on(loop(), coro, timeout)
