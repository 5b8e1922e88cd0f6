"""Bounded, first-come-first-served waits for a connection: a client's per-host slots and
its HTTP pool's connections.

Why a FIFO semaphore rather than a pool that scans its queue: httpcore's pool (which
omniurl's HTTP connections went through before :mod:`resolvers.http.pool`) re-scanned
every queued request against every connection each time a request started or ended, so N
requests queued on C connections cost O(N·C) per event and O(N²·C) in all — profiled:
1,000 concurrent gets through 100 connections spent 25 s of CPU there (16 M
``Origin.__eq__`` calls for 500), and the requests still queued ran out of their pool
timeout (``ResolveTimeout``).  Here a request waits in an ``asyncio.Semaphore`` (FIFO,
O(1) a wake-up) before it reaches :class:`resolvers.http.pool.HTTPPool`, so the pool only ever
holds requests it can serve at once.

A wait for a slot is a queue, not a slow server: it runs inside
:func:`resolvers.deadline.queued` (the resolve's ``--max-time``/``--speed-time`` clocks
stand still), and only ``pool_timeout`` bounds it (None: unbounded, the default — every
request holding a slot is itself bounded by its own deadlines, so the queue moves).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Hashable

from .deadline import queued
from .errors import ConfigurationError, PoolTimeout


class Slots:
    """At most ``limit`` holders per key; the others wait in arrival order.

    A key's semaphore exists while someone holds or waits for it (a client that visits 10⁶
    hosts keeps no 10⁶ entries)."""

    def __init__(self, limit: int, *, pool_timeout: float | None = None, what: str = "") -> None:
        if limit < 1:
            raise ConfigurationError(f"{what or 'a limit'} must be at least 1, not {limit}")
        if pool_timeout is not None and pool_timeout <= 0:
            raise ConfigurationError(f"pool_timeout must be positive, not {pool_timeout}")
        self.limit = limit
        self.pool_timeout = pool_timeout
        self.what = what
        self._slots: dict[Hashable, tuple[asyncio.Semaphore, list[int]]] = {}

    def busy(self, key: Hashable) -> int:
        """How many hold or wait for ``key`` (for tests and ``-v``)."""
        entry = self._slots.get(key)
        return entry[1][0] if entry is not None else 0

    async def acquire(self, key: Hashable) -> None:
        """Wait (outside the resolve's deadlines) for a slot of ``key``; :class:`PoolTimeout`
        after ``pool_timeout`` seconds."""
        entry = self._slots.get(key)
        if entry is None:
            entry = self._slots[key] = (asyncio.Semaphore(self.limit), [0])
        semaphore, users = entry
        users[0] += 1
        try:
            if not semaphore.locked():
                await semaphore.acquire()  # free: no queue, no timer
                return
            async with queued():
                try:
                    async with asyncio.timeout(self.pool_timeout):
                        await semaphore.acquire()
                except TimeoutError:
                    raise PoolTimeout(
                        f"no {self.what or 'slot'} became free within pool_timeout "
                        f"{self.pool_timeout:g} s ({self.limit} in use)"
                    ) from None
        except BaseException:
            self._leave(key, entry)
            raise

    def release(self, key: Hashable) -> None:
        entry = self._slots.get(key)
        if entry is None:  # pragma: no cover - a release without an acquire
            raise RuntimeError(f"release of {key!r} without a slot")
        entry[0].release()
        self._leave(key, entry)

    def _leave(self, key: Hashable, entry: tuple[asyncio.Semaphore, list[int]]) -> None:
        entry[1][0] -= 1
        if not entry[1][0]:
            del self._slots[key]

    @contextlib.asynccontextmanager
    async def hold(self, key: Hashable) -> AsyncIterator[None]:
        """``async with slots.hold(key):`` — a slot for the block."""
        await self.acquire(key)
        try:
            yield
        finally:
            self.release(key)


__all__ = ["PoolTimeout", "Slots"]
