"""Standard output whose file description another process made non-blocking (a reader of
the pipe, a program sharing the terminal): a write finds it full (``EAGAIN``) whenever the
reader is behind.  ``omniurl get`` ended with exit 23 there ("cannot write standard
output: Resource temporarily unavailable"; curl 7.88 too: "Failure writing output to
destination"); it now waits as a blocking write would, bounded
(``resolvers.net.wait_writable``), whether the content is spliced to the pipe or written."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from helpers import ROOT

from omniurl.cli.main import _PatientFile
from omniurl.resolvers.net import wait_writable
from omniurl.testservers import RunningServer
from omniurl.testservers.http import start_http

DATA = os.urandom(3 << 20)  # 3 MiB: many times a pipe's 64 KiB


def _nonblocking_pipe() -> tuple[int, int]:
    r, w = os.pipe()
    os.set_blocking(w, False)
    return r, w


@pytest_asyncio.fixture
async def web(tmp_path: Path) -> AsyncIterator[RunningServer]:
    (tmp_path / "big.bin").write_bytes(DATA)
    server = await start_http(tmp_path)
    try:
        yield server
    finally:
        await server.close()


async def _read_late(r: int, wait: float) -> bytes:
    """Everything from ``r`` to its end, read only after ``wait`` seconds (the pipe fills
    up meanwhile), bounded."""
    await asyncio.sleep(wait)

    def read_all() -> bytes:
        got = bytearray()
        while chunk := os.read(r, 1 << 16):
            got += chunk
        return bytes(got)

    return await asyncio.wait_for(asyncio.to_thread(read_all), 60)


@pytest.mark.parametrize("splice", [True, False])
async def test_a_get_waits_for_a_nonblocking_pipe(web: RunningServer, splice: bool) -> None:
    r, w = _nonblocking_pipe()
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env["PYTHONPATH"] = str(ROOT)
    if not splice:
        env["OMNIURL_NO_SPLICE"] = "1"
    try:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "omniurl", "get", f"http://127.0.0.1:{web.port}/big.bin",
            cwd=ROOT, env=env, stdin=asyncio.subprocess.DEVNULL, stdout=w,
            stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
    finally:
        os.close(w)  # (the child holds the same non-blocking file description)
    try:
        got = await _read_late(r, 1.0)
        _out, err = await asyncio.wait_for(proc.communicate(), 60)
    finally:
        os.close(r)
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    assert (proc.returncode, err) == (0, b"")
    assert got == DATA


def test_standard_outputs_writes_wait_while_the_pipe_is_full() -> None:
    r, w = _nonblocking_pipe()
    out = _PatientFile(w, "w", closefd=True)
    got = bytearray()

    def drain() -> None:
        time.sleep(0.3)  # (the pipe full before the reader starts)
        while chunk := os.read(r, 1 << 16):
            got.extend(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    view = memoryview(DATA)
    while view:
        view = view[out.write(view) :]
    out.close()
    reader.join(30)
    os.close(r)
    assert bytes(got) == DATA


def test_the_wait_is_bounded() -> None:
    r, w = _nonblocking_pipe()
    try:
        with pytest.raises(BlockingIOError):
            while True:
                os.write(w, bytes(1 << 16))
        start = time.monotonic()
        with pytest.raises(TimeoutError) as exc:
            wait_writable(w, 0.2)
        assert 0.15 < time.monotonic() - start < 5
        assert exc.value.strerror == "the output took nothing for 0.2 s (non-blocking)"
        os.read(r, 1 << 16)
        wait_writable(w, 5)  # (room again: at once)
    finally:
        os.close(r)
        os.close(w)


@pytest.mark.parametrize("flag", ["-u", None])
def test_an_unbuffered_standard_output_stays_unbuffered(flag: str | None) -> None:
    """``python -u`` (PYTHONUNBUFFERED) leaves standard output without a buffer: a line
    printed is in the pipe at once.  The patient standard output kept that (before: a
    BufferedWriter under it held the line until the exit, ``write_through`` or not); without
    ``-u``, a pipe's output stays block-buffered (the line comes at the exit)."""
    import subprocess

    code = (
        "import sys, time; from omniurl.cli.main import _standard_streams; "
        "_standard_streams(); print('first'); time.sleep(3); print('last')"
    )
    args = [sys.executable, *([flag] if flag else []), "-c", code]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PYTHONUNBUFFERED", None)
    proc = subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        os.set_blocking(proc.stdout.fileno(), False)
        deadline = time.monotonic() + 2.5
        got = b""
        while time.monotonic() < deadline and b"\n" not in got:
            time.sleep(0.05)
            got += proc.stdout.read() or b""
        assert got == (b"first\n" if flag else b"")
        assert proc.wait(30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        assert proc.stdout is not None
        proc.stdout.close()


def test_standard_errors_writes_wait_while_a_nonblocking_pipe_is_full() -> None:
    """Standard error drops what it cannot write, but a full non-blocking pipe is no
    failure: its reader is behind.  ``FileIO.write`` gives None for ``EAGAIN`` (never
    ``BlockingIOError``, which the lossy file passed up for "the buffer above it" to wait
    and try again): the buffer raised ``BlockingIOError``, out of whatever line wrote —
    a traceback and exit 1 here, exit 23 for a get's progress line — and the rest was lost.
    Now it waits as standard output does (bounded), and every line arrives."""
    import subprocess

    code = (
        "import sys; from omniurl.cli.main import _standard_streams; _standard_streams()\n"
        "for n in range(400): print(str(n) * 500, file=sys.stderr)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r, w = _nonblocking_pipe()
    try:
        proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, env=env, stderr=w)
    finally:
        os.close(w)  # (the child holds the same non-blocking file description)
    try:
        time.sleep(1.0)  # (the pipe full before the reader starts)
        got = bytearray()
        while chunk := os.read(r, 1 << 16):
            got += chunk
        assert proc.wait(60) == 0, bytes(got[-300:])
    finally:
        os.close(r)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert got.decode().splitlines() == [str(n) * 500 for n in range(400)]
