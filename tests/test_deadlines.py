"""--max-time and --speed-limit/--speed-time against adversary trickle servers (issue 14 item 2).

A server dripping one byte every 0.2 s never trips the per-read timeout; before the guard
these transfers ran until the server stopped (forever, for a real adversary).
"""

from __future__ import annotations

import asyncio
import time

import pytest

from omniurl.resolvers import Options, resolve
from omniurl.resolvers.errors import DeadlineExceeded, ResolveTimeout, TooSlow
from omniurl.testservers.adversary import TrickleServer

TEXT = b"x" * 10_000 + b"\r\n.\r\n"
HTTP = b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n" + b"X-Slow: " + b"a" * 10_000 + b"\r\n"


async def _fetch(url: str, options: Options) -> None:
    async with await resolve(url, options) as resource:
        await resource.read()


async def _timed(reply: bytes, scheme_path: str, options: Options) -> tuple[BaseException, float]:
    async with TrickleServer(reply, interval=0.05) as server:
        url = scheme_path.format(port=server.port)
        start = time.monotonic()
        with pytest.raises(ResolveTimeout) as info:
            await asyncio.wait_for(_fetch(url, options), 20)
        return info.value, time.monotonic() - start


@pytest.mark.parametrize(
    ("reply", "url"),
    [(TEXT, "gopher://127.0.0.1:{port}/0trickle"), (HTTP, "http://127.0.0.1:{port}/trickle")],
    ids=["gopher", "http"],
)
async def test_max_time_ends_a_trickle(reply: bytes, url: str) -> None:
    error, elapsed = await _timed(reply, url, Options(max_time=1.0))
    assert isinstance(error, DeadlineExceeded), repr(error)
    assert 0.9 <= elapsed < 3.0, elapsed


@pytest.mark.parametrize(
    ("reply", "url"),
    [(TEXT, "gopher://127.0.0.1:{port}/0trickle"), (HTTP, "http://127.0.0.1:{port}/trickle")],
    ids=["gopher", "http"],
)
async def test_speed_limit_ends_a_trickle(reply: bytes, url: str) -> None:
    # ~20 bytes/s arrive; the limit asks for 100 bytes/s over 1 s.
    error, elapsed = await _timed(reply, url, Options(speed_limit=100, speed_time=1.0))
    assert isinstance(error, TooSlow), repr(error)
    assert 0.9 <= elapsed < 3.0, elapsed


@pytest.mark.parametrize(
    ("reply", "url"),
    [
        (b"220-welcome\r\n" * 2000, "ftp://127.0.0.1:{port}/file"),
        (b"200 " + b"a" * 5000 + b"\r\n", "nntp://127.0.0.1:{port}/comp.x/1"),
    ],
    ids=["ftp-220-continuations", "nntp-greeting"],
)
async def test_max_time_ends_a_trickling_greeting(reply: bytes, url: str) -> None:
    async with TrickleServer(reply, interval=0.01, greet=True) as server:
        start = time.monotonic()
        with pytest.raises(DeadlineExceeded):
            await asyncio.wait_for(_fetch(url.format(port=server.port), Options(max_time=1.0)), 20)
        assert 0.9 <= time.monotonic() - start < 3.0
