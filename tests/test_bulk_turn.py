"""A bulk read lets the loop run once a read (``resolvers.net.Stream._turn``): a peer that
keeps the socket full never makes a read wait, and until a read waited nothing else ran —
the loop's timers, the other tasks, the cancel that SIGTERM and Ctrl-C hand to the loop.
Every byte in order, the loop's callbacks run between reads, so that SIGTERM, Ctrl-C and
``--max-time`` end a transfer whose server never pauses at once (docs/speed.md, *Gopher:
bulk waits in poll(2)*: the waits in ``poll(2)`` of that round, ``net.one_transfer``, are
removed; this fix stays)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from helpers import ROOT, loopback_server, tcp_pair

from omniurl.resolvers import net
from omniurl.resolvers.net import Stream
from omniurl.resolvers.options import Options

DATA = os.urandom(6 << 20)  # 6 MiB: several bulk reads, each several waits under the mark


def _sender(sock: socket.socket, data: bytes, *, pause: bool = True) -> threading.Thread:
    """A peer that sends ``data`` in 4 KiB writes (gophernicus's) from a thread, pausing
    2 ms after each 256 KiB (so that the reader catches up and waits, well within
    ``BULK_LINGER``) unless ``pause`` is false, then closes."""

    def send() -> None:
        with sock:
            for at in range(0, len(data), 4096):
                sock.sendall(data[at : at + 4096])
                if pause and (at + 4096) % (256 << 10) == 0:
                    time.sleep(0.002)

    thread = threading.Thread(target=send, daemon=True)
    thread.start()
    return thread


class _Counts:
    """How often the loop turned, and the waits made through it."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.turns = 0
        self.loop_waits = 0
        waited = Stream._wait_readable

        async def wait(stream: Stream, timeout: float | None) -> bool:
            self.loop_waits += 1
            return await waited(stream, timeout)

        monkeypatch.setattr(Stream, "_wait_readable", wait)

    async def tick(self) -> None:
        while True:
            self.turns += 1
            await asyncio.sleep(0)


async def _read_all(
    stream: Stream, counts: _Counts, read: str, fd: int = -1
) -> tuple[bytes, list[tuple[int, int]]]:
    """Every byte through ``splice_into`` (to ``fd``) or ``fill_into``; for each read, the
    waits it made through the loop, and the loop's turns from its start to its return."""
    ticker = asyncio.ensure_future(counts.tick())
    buffer = memoryview(bytearray(net.BULK_READ))
    got, reads = bytearray(), []
    try:
        while True:
            turns, waits = counts.turns, counts.loop_waits
            if read == "splice" and stream.can_splice:
                n = await stream.splice_into(fd, net.BULK_READ, "the body")
            else:
                n = await stream.fill_into(buffer, "the body")
                got += buffer[:n]
            reads.append((counts.loop_waits - waits, counts.turns - turns))
            if not n:
                return bytes(got), reads
    finally:
        ticker.cancel()


@pytest.mark.parametrize("pause", [True, False])
@pytest.mark.parametrize("read", ["splice", "fill"])
async def test_the_loop_runs_each_bulk_read(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, read: str, pause: bool
) -> None:
    counts = _Counts(monkeypatch)
    ours, theirs = tcp_pair()
    stream = Stream(ours, Options(read_timeout=10))
    stream.bulk()
    if not pause:  # (a peer ahead of the reader: the socket full before the first read)
        theirs.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 8 << 20)
    sender = _sender(theirs, DATA, pause=pause)
    if not pause:
        time.sleep(0.05)
    target = tmp_path / "out.bin"
    with target.open("wb") as out:
        got, reads = await _read_all(stream, counts, read, out.fileno())
    stream.close()
    sender.join(10)
    assert (target.read_bytes() if read == "splice" else got) == DATA
    # the loop ran (its timers, a signal's cancel) during every read, or at the start of
    # the next: after one that found its bytes there and never waited
    assert all(reads[i][1] >= 1 for i in range(1, len(reads)) if not reads[i - 1][0]), reads
    if pause:
        assert counts.loop_waits > 0  # (the waits under the mark: through the loop)


# -- the command: a server that never pauses ----------------------------------------------


@pytest_asyncio.fixture
async def endless() -> AsyncIterator[tuple[int, asyncio.Event]]:
    """A Gopher server whose every item is an endless stream of binary, sent as fast as it
    is read (bounded by the test: 60 s); the event is set once 8 MiB are out."""
    flowing = asyncio.Event()
    block = os.urandom(64 << 10)

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await asyncio.wait_for(reader.readline(), 10)
            sent, deadline = 0, time.monotonic() + 60
            while time.monotonic() < deadline:
                writer.write(block)
                await writer.drain()
                sent += len(block)
                if sent >= 8 << 20:
                    flowing.set()
        except (OSError, TimeoutError):
            pass
        finally:
            writer.close()

    async with loopback_server(serve) as port:
        yield port, flowing


async def _command(args: list[str], cwd: Path) -> asyncio.subprocess.Process:
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env["PYTHONPATH"] = str(ROOT)
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "omniurl", "get", *args,
        cwd=cwd, env=env, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip


async def _ended(proc: asyncio.subprocess.Process, within: float) -> tuple[int, bytes, float]:
    start = time.monotonic()
    try:
        _out, err = await asyncio.wait_for(proc.communicate(), within)
    finally:
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()
    assert proc.returncode is not None
    return proc.returncode, err, time.monotonic() - start


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize(
    ("signum", "status", "said"),
    [(signal.SIGTERM, 143, b"ended by SIGTERM"), (signal.SIGINT, 130, b"interrupted")],
)
async def test_a_signal_ends_a_transfer_that_never_pauses(
    endless: tuple[int, asyncio.Event], tmp_path: Path, signum: int, status: int, said: bytes
) -> None:
    port, flowing = endless
    target = tmp_path / "big.bin"
    proc = await _command(["-o", str(target), f"gopher://127.0.0.1:{port}/9/big"], tmp_path)
    try:
        await asyncio.wait_for(flowing.wait(), 20)
    finally:
        proc.send_signal(signum)
    code, err, took = await _ended(proc, 15)
    assert code == status, err
    assert said in err
    assert list(tmp_path.iterdir()) == []  # (the .part file removed, nothing under the name)
    assert took < 10, took


async def test_max_time_ends_a_transfer_that_never_pauses(
    endless: tuple[int, asyncio.Event], tmp_path: Path
) -> None:
    port, _flowing = endless
    target = tmp_path / "big.bin"
    start = time.monotonic()
    proc = await _command(
        ["--max-time", "2", "-o", str(target), f"gopher://127.0.0.1:{port}/9/big"], tmp_path
    )
    code, err, _took = await _ended(proc, 30)
    assert code == 4, err  # (a transport failure: the time ran out)
    assert b"2" in err and b"max-time" in err.replace(b"maximum time", b"max-time"), err
    assert list(tmp_path.iterdir()) == []
    assert time.monotonic() - start < 15
