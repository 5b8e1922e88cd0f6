"""glibc's allocator tuned for bulk transfers: chunk buffers reused, not mapped afresh.

Every chunk of a transfer is a new ``bytes`` object of ``Options.chunk_size`` (256 KiB):
``sock_recv`` fills it straight from the kernel and the consumer drops it a moment later.
glibc serves allocations of 128 KiB and more with ``mmap`` (``M_MMAP_THRESHOLD``) and gives
free memory at the top of the heap back to the kernel past ``M_TRIM_THRESHOLD``; its dynamic
thresholds do not settle for this pattern, so a 1 GiB download mapped, zero-filled, faulted
in and unmapped about half of its pages anew: 135,000 page faults and 0.6 s of system time,
more than the copy itself (measured against vsftpd: 0.85 s for 1 GiB, 0.38 s tuned).

Fixed thresholds above the chunk size keep freed buffers in the heap for the next read.
Process-wide, so only the ``omniurl`` command sets them (never a program that imports the
library); a no-op where the C library is not glibc.  ``mallopt`` is reached through ctypes,
whose import cost 2.4-3.4 ms CPU of a start (measured after asyncio's and omniurl's own
imports, ``python -S``): a batch sets the thresholds at once, one URL only
once its transfer passes :data:`BULK` bytes (:func:`tune_when_bulk`), so fetching a small
file never imports ctypes.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterable, AsyncIterator

#: mallopt() parameters, from glibc's <malloc.h>.
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3

#: Allocations below this come from the heap (glibc's default: 128 KiB, then dynamic).
MMAP_THRESHOLD = 4 * 1024 * 1024
#: Free memory kept at the top of the heap before it is given back to the kernel.
TRIM_THRESHOLD = 16 * 1024 * 1024


def tune_for_transfers(chunk_size: int) -> bool:
    """Raise glibc's mmap and trim thresholds above ``chunk_size``; True if it was done.

    Peak memory stays bounded: what is kept is what a transfer had in use at once (a few
    chunks), plus at most :data:`TRIM_THRESHOLD` of free heap.
    """
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # musl and others: no mallopt
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    # glibc refuses an mmap threshold above 32 MiB (DEFAULT_MMAP_THRESHOLD_MAX on 64 bits).
    mmap_threshold = min(max(MMAP_THRESHOLD, 2 * chunk_size), 32 * 1024 * 1024)
    trim_threshold = max(TRIM_THRESHOLD, 4 * chunk_size)
    return bool(
        mallopt(M_MMAP_THRESHOLD, mmap_threshold) and mallopt(M_TRIM_THRESHOLD, trim_threshold)
    )


#: Bytes a transfer carries before :func:`bulk` raises the thresholds: below it a transfer
#: has a few buffers to map, fewer page faults than importing ctypes costs.
BULK = 1024 * 1024

#: The chunk size to tune for once a transfer passes :data:`BULK` (set by the ``omniurl``
#: command: :func:`tune_when_bulk`); None: nothing pending (a library caller, or done).
_pending: int | None = None


def tune_when_bulk(chunk_size: int) -> None:
    """Have :func:`bulk` raise the thresholds for ``chunk_size`` once a transfer passes
    :data:`BULK` bytes (the ``omniurl`` command's ``get`` of one URL)."""
    global _pending
    _pending = chunk_size


def bulk(source: AsyncIterable[bytes]) -> AsyncIterable[bytes]:
    """``source`` as it is, or (while :func:`tune_when_bulk` is pending) its chunks counted
    on their way, the thresholds raised when :data:`BULK` bytes have passed."""
    return source if _pending is None else _counted(source)


async def _counted(source: AsyncIterable[bytes]) -> AsyncIterator[bytes]:
    global _pending
    seen = 0
    async for chunk in source:
        if _pending is not None:
            seen += len(chunk)
            if seen >= BULK:
                tune_for_transfers(_pending)
                _pending = None
        yield chunk
