"""Whole-transfer limits: ``--max-time`` and the low-speed limit stop a trickling server over
every protocol, before and during the content, with typed errors; the time a person takes
to answer a prompt is not counted."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
from _ftphttp import run_cli

from omniurl.resolvers import Options, resolve
from omniurl.resolvers.deadline import DeadlineExceeded, Guard, TooSlow
from omniurl.resolvers.errors import ResolveTimeout

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_max_time_counts_from_the_start() -> None:
    clock = Clock()
    guard = Guard(max_time=3.0, speed_limit=0, clock=clock)
    assert guard.wait_limit() == 3.0
    clock.now += 2.5
    guard.observe(10)
    assert guard.wait_limit() == pytest.approx(0.5)
    clock.now += 0.5
    with pytest.raises(DeadlineExceeded, match="--max-time 3 s"):
        guard.check()


def test_time_left_is_max_times_rest_and_time_up_its_error() -> None:
    """What a wait outside wait_limit's (a telnet session) may last, and the error it
    raises when its own timer says the time is up (even an ulp before the guard's clock)."""
    clock = Clock()
    assert Guard(clock=clock).time_left() is None  # (no -m: no limit)
    guard = Guard(max_time=3.0, clock=clock)  # (the speed window is no part of it)
    assert guard.time_left() == 3.0
    clock.now += 2.25
    assert guard.time_left() == 0.75
    assert guard.time_left(clock.now + 1) == 0.0  # (never below 0)
    guard.check_max_time()  # (not yet)
    with pytest.raises(DeadlineExceeded, match=r"^the transfer took longer than --max-time 3 s$"):
        guard.time_up()


def test_the_low_speed_window_judges_the_last_speed_time_seconds() -> None:
    clock = Clock()
    guard = Guard(speed_limit=10, speed_time=5.0, clock=clock)
    guard.start_content()
    assert guard.wait_limit() == 5.0  # nothing yet: judged once 5 s have passed
    for _ in range(5):  # 60 bytes a second for 5 s: fine
        clock.now += 1
        guard.observe(60)
    # 300 bytes in the window, 50 needed: the window holds until the sample that brings it
    # under 50 expires — the last one, stamped now, 5 s from now (to the window's slot:
    # a sixtieth of speed_time).
    assert guard.wait_limit() == pytest.approx(5.0, abs=5.0 / 60)
    for _ in range(5):  # then a trickle: 1 byte a second
        clock.now += 1
        if clock.now < 110:
            guard.observe(1)
    with pytest.raises(TooSlow, match="slower than 10 bytes/s for 5 s"):
        clock.now += 0.1
        guard.observe(1)


def test_a_watchdog_a_fraction_early_still_judges_the_window() -> None:
    """The watchdogs fire once the limit is at most 0.5 ms away: their check is made at the
    moment it falls due (check_due), else a trickle 0.4 ms short of speed_time passed
    check() and was ended with the fallback words "no data within" (1 in ~8 runs of
    test_batch_lean_qa's trickle case, lean engine; now−start was 0.9996 s of 1 s)."""
    clock = Clock()
    guard = Guard(speed_limit=1000, speed_time=1.0, clock=clock)
    guard.start_content()
    for _ in range(9):  # 10 bytes every 0.1 s: far under 1,000 bytes/s
        clock.now += 0.1
        guard.observe(10)
    clock.now += 0.0996  # 0.4 ms before the window is a whole second long
    assert 0 < (guard.wait_limit() or 0) <= 0.0005
    guard.check()  # (too early for check itself: it passes)
    with pytest.raises(TooSlow, match="slower than 1000 bytes/s for 1 s"):
        guard.check_due()


def test_zero_turns_the_speed_limit_off() -> None:
    guard = Guard(speed_limit=0, speed_time=1.0, clock=Clock())
    assert guard.wait_limit() is None and guard.setup_limit() is None


@contextlib.asynccontextmanager
async def serving(handler: Handler) -> AsyncIterator[int]:
    tasks: set[asyncio.Task[None]] = set()

    async def track(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        tasks.add(task)
        try:
            await handler(reader, writer)
        except (OSError, asyncio.CancelledError):
            pass
        finally:
            writer.close()
            tasks.discard(task)

    server = await asyncio.start_server(track, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
        for task in list(tasks):
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def trickle(writer: asyncio.StreamWriter, data: bytes, every: float = 0.5) -> None:
    """Send ``data`` one byte at a time, ``every`` seconds apart (bounded: ~30 s at most)."""
    for byte in data[:60]:
        writer.write(bytes([byte]))
        await writer.drain()
        await asyncio.sleep(every)


async def http_trickling_body(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await reader.readuntil(b"\r\n\r\n")
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n")
    await trickle(writer, b"x" * 1000)


async def http_trickling_head(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await reader.readuntil(b"\r\n\r\n")
    await trickle(writer, b"HTTP/1.1 200 OK\r\nX-Slow: " + b"y" * 1000)


async def gopher_trickling_text(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await reader.readline()
    await trickle(writer, b"line of text\r\n" * 100)


async def gopher_trickling_menu(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await reader.readline()
    await trickle(writer, b"0a file\t/a\th\t70\r\n" * 100)


async def elapsed_error(url: str, options: Options) -> tuple[float, BaseException]:
    started = time.monotonic()
    with pytest.raises(ResolveTimeout) as info:
        async with await resolve(url, options) as resource:
            async for _chunk in resource:
                pass
    return time.monotonic() - started, info.value


@pytest.mark.parametrize(
    ("handler", "scheme", "path"),
    [
        (http_trickling_body, "http", "/x"),
        (http_trickling_head, "http", "/x"),
        (gopher_trickling_text, "gopher", "/0/x"),
        (gopher_trickling_menu, "gopher", "/1/"),
    ],
)
async def test_max_time_ends_a_trickle_on_time(handler: Handler, scheme: str, path: str) -> None:
    async with serving(handler) as port:
        took, error = await elapsed_error(
            f"{scheme}://127.0.0.1:{port}{path}", Options(max_time=1.5, read_timeout=10)
        )
    assert isinstance(error, DeadlineExceeded | TooSlow)
    assert 1.4 < took < 3.0


async def test_the_low_speed_limit_ends_a_trickling_body() -> None:
    async with serving(http_trickling_body) as port:
        took, error = await elapsed_error(
            f"http://127.0.0.1:{port}/x", Options(speed_limit=5, speed_time=1.5, read_timeout=10)
        )
    assert isinstance(error, TooSlow)
    assert "slower than 5 bytes/s for 1.5 s" in str(error)
    assert 1.4 < took < 3.5


async def test_the_setup_must_end_within_speed_time() -> None:
    async with serving(http_trickling_head) as port:
        took, error = await elapsed_error(
            f"http://127.0.0.1:{port}/x", Options(speed_time=1.5, read_timeout=10)
        )
    assert isinstance(error, TooSlow)
    assert "no content after 1.5 s" in str(error)
    assert 1.4 < took < 3.0


async def test_a_prompts_answer_time_is_not_counted() -> None:
    async def search(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        line = await reader.readline()
        writer.write(b"0found " + line.split(b"\t")[-1].strip() + b"\t/f\th\t70\r\n.\r\n")
        await writer.drain()

    async def slow_person(prompt: str, secret: bool = False) -> str:
        await asyncio.sleep(1.2)
        return "words"

    async with serving(search) as port:
        options = Options(max_time=1.0, speed_time=1.0, ask=slow_person)
        async with await resolve(f"gopher://127.0.0.1:{port}/7/search", options) as menu:
            names = [e.name async for e in menu.aiter_entries()]
    assert names == ["found words"]


async def test_cli_max_time_against_a_one_byte_a_second_server(tmp_path: Path) -> None:
    async def one_a_second(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n")
        await trickle(writer, b"z" * 100, every=1.0)

    async with serving(one_a_second) as port:
        started = time.monotonic()
        status, _out, err = await run_cli(
            "get", "--max-time", "3", "-o", str(tmp_path / "f"), f"http://127.0.0.1:{port}/f"
        )
        took = time.monotonic() - started
    assert status == 4, err
    assert b"longer than --max-time 3 s" in err
    assert 3.0 < took < 4.0 + 1.5  # + the interpreter's start-up on a loaded machine
    assert list(tmp_path.iterdir()) == []
