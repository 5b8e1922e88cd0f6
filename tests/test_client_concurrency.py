"""Many concurrent gets through one ``AsyncClient``: all succeed, the wait for a connection
is a queue (not a deadline), and nothing is left open.

Before: ``asyncio.gather`` of 1,000 HTTP gets through one client failed 676 with
``ResolveTimeout`` (httpcore's queue, quadratic in its length, counted the wait against the
connect timeout) and 2,000 all failed with ``TooSlow`` ("no content after 60 s": the wait
counted against ``--speed-time``).  See resolvers/slots.py and resolvers/deadline.py.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from _ftphttp import OPTS

import omniurl
from omniurl.resolvers.slots import Slots
from omniurl.testservers import RunningServer
from omniurl.testservers.gopher import start as start_gopher
from omniurl.testservers.http import start_http

#: Low thousands, each protocol: a few seconds on two cores with the servers in-process.
N = 1500
BODY = bytes(range(256)) * 4  # 1 KiB, binary: served as it is


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "f.bin").write_bytes(BODY)
    return tmp_path


@pytest_asyncio.fixture
async def web(root: Path) -> AsyncIterator[RunningServer]:
    server = await start_http(root)
    try:
        yield server
    finally:
        await server.close()


@pytest_asyncio.fixture
async def gopher(root: Path) -> AsyncIterator[RunningServer]:
    server = await start_gopher(root)
    try:
        yield server
    finally:
        await server.close()


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts fds in /proc")
@pytest.mark.parametrize("scheme", ["http", "gopher"])
async def test_thousands_of_concurrent_gets_all_succeed_and_leave_no_fd_open(
    scheme: str, web: RunningServer, gopher: RunningServer
) -> None:
    server = web if scheme == "http" else gopher
    url = f"{scheme}://{server.netloc}/{'9/' if scheme == 'gopher' else ''}f.bin"
    before = open_fds()
    peak = 0
    # A deadline shorter than the queue (N gets through 6 connections take seconds): it
    # must count from when a get has its connection, not from when it was called.
    options = OPTS.with_(speed_time=2.0, connect_timeout=2, read_timeout=2)
    async with omniurl.AsyncClient(options) as client:

        async def one() -> bytes | omniurl.Listing:
            nonlocal peak
            peak = max(peak, open_fds())
            return await client.get(url)

        async with asyncio.timeout(120):  # bounded: a hang fails, it does not stall CI
            got = await asyncio.gather(*(one() for _ in range(N)), return_exceptions=True)
    failures = [g for g in got if not isinstance(g, bytes)]
    assert failures == []
    assert [len(g) for g in got if g != BODY] == []
    # 6 per host, and their server ends: the client never held more than a few dozen
    assert peak - before <= 2 * 6 + 4
    await asyncio.sleep(0.1)  # the server's side of the last connections closes
    assert open_fds() == before


class SlowServer:
    """Answers each HTTP request (Connection: close) or Gopher selector ``delay`` seconds
    after it arrives, one connection at a time per request."""

    def __init__(self, delay: float, http: bool) -> None:
        self.delay = delay
        self.http = http
        self.served = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await reader.readuntil(b"\r\n\r\n" if self.http else b"\r\n")
            await asyncio.sleep(self.delay)
            head = b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\n"
            writer.write((head if self.http else b"") + b"abc")
            await writer.drain()
            self.served += 1
        finally:
            writer.close()


@pytest.mark.parametrize("http", [True, False])
async def test_the_wait_for_a_slot_is_not_counted_against_the_deadlines(http: bool) -> None:
    """Five gets, one at a time (``max_per_host=1``), each answered after 0.3 s, under a
    1 s ``--speed-time`` and a 1 s ``--max-time``: the last waits 1.2 s for its slot and
    still succeeds — the clocks start when it has its connection."""
    slow = SlowServer(0.3, http)
    server = await asyncio.start_server(slow.handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    url = f"http://127.0.0.1:{port}/x" if http else f"gopher://127.0.0.1:{port}/9/x"
    try:
        options = OPTS.with_(speed_time=1.0, max_time=1.0)
        async with omniurl.AsyncClient(options, max_per_host=1) as client:
            got = await asyncio.wait_for(asyncio.gather(*(client.get(url) for _ in range(5))), 10)
        assert got == [b"abc"] * 5
        assert slow.served == 5
    finally:
        server.close()
        await server.wait_closed()


async def test_the_wait_for_an_http_connection_is_not_counted_either() -> None:
    """The HTTP pool's own queue (``max_connections``), behind the per-host slots: five gets
    to five names of one server, one connection for all, 0.3 s each, a 1 s deadline."""
    slow = SlowServer(0.3, True)
    server = await asyncio.start_server(slow.handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    names = [f"h{i}.test" for i in range(5)]
    options = OPTS.with_(
        speed_time=1.0,
        max_time=1.0,
        resolve={(name, None): ("127.0.0.1", port) for name in names},
    )
    try:
        async with omniurl.AsyncClient(options, max_connections=1) as client:
            got = await asyncio.wait_for(
                asyncio.gather(*(client.get(f"http://{name}/x") for name in names)), 10
            )
        assert got == [b"abc"] * 5
    finally:
        server.close()
        await server.wait_closed()


async def test_a_resolve_still_times_out_once_it_has_its_connection() -> None:
    """The pause is only the queue: a server that never answers still ends in ``TooSlow``
    (``--speed-time``) for the get that reached it."""
    silent: list[asyncio.StreamWriter] = []

    async def never(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        silent.append(writer)

    server = await asyncio.start_server(never, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        options = OPTS.with_(speed_time=0.5, read_timeout=30)
        async with omniurl.AsyncClient(options, max_per_host=1) as client:
            with pytest.raises(omniurl.TooSlow):
                await asyncio.wait_for(client.get(f"gopher://127.0.0.1:{port}/9/x"), 10)
    finally:
        for writer in silent:
            writer.close()
        server.close()
        await server.wait_closed()


async def test_pool_timeout_bounds_the_queue() -> None:
    """``pool_timeout`` is the queue's own bound: the second get, behind a first that holds
    the only slot for longer, ends with ``PoolTimeout`` (a ``ResolveTimeout``); nothing of
    it reached the server."""
    slow = SlowServer(0.5, False)
    server = await asyncio.start_server(slow.handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    url = f"gopher://127.0.0.1:{port}/9/x"
    try:
        async with omniurl.AsyncClient(OPTS, max_per_host=1, pool_timeout=0.1) as client:
            first, second = await asyncio.gather(
                client.get(url), client.get(url), return_exceptions=True
            )
        assert first == b"abc"
        assert isinstance(second, omniurl.PoolTimeout)
        assert isinstance(second, omniurl.ResolveTimeout)
        assert "pool_timeout 0.1 s" in str(second)
        assert slow.served == 1
    finally:
        server.close()
        await server.wait_closed()


async def test_slots_are_first_come_first_served_and_forget_idle_keys() -> None:
    slots = Slots(1)
    order: list[int] = []

    async def take(i: int) -> None:
        async with slots.hold("k"):
            order.append(i)
            await asyncio.sleep(0)

    await asyncio.gather(*(take(i) for i in range(20)))
    assert order == list(range(20))
    assert slots.busy("k") == 0
    assert slots._slots == {}  # no entry kept for a key nobody holds or waits for


async def test_a_cancelled_waiter_gives_up_its_place() -> None:
    slots = Slots(1)
    await slots.acquire("k")
    waiter = asyncio.create_task(slots.acquire("k"))
    await asyncio.sleep(0)
    assert slots.busy("k") == 2
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    assert slots.busy("k") == 1
    slots.release("k")
    assert slots._slots == {}


async def test_a_waiting_get_holds_little_memory() -> None:
    """Thousands queued behind a busy server cost a few KB each — the URL and a place in
    the queue, not a copy of the options or an open connection (6 KB each before)."""
    import gc
    import tracemalloc

    key = ("127.0.0.1", 9)
    async with omniurl.AsyncClient(OPTS, max_per_host=1) as client:
        await client._hosts.acquire(key)  # the only slot is taken: every get waits
        gc.collect()
        tracemalloc.start()
        try:
            gets = [asyncio.create_task(client.get("http://127.0.0.1:9/x")) for _ in range(2000)]
            await asyncio.sleep(0.05)
            assert client._hosts.busy(key) == 2001
            per_get = tracemalloc.get_traced_memory()[0] / 2000
        finally:
            tracemalloc.stop()
        for get in gets:
            get.cancel()
        await asyncio.gather(*gets, return_exceptions=True)
        client._hosts.release(key)
        assert client._hosts._slots == {}
    assert per_get < 4096, per_get
