"""``-i`` lists read in bounded lines, and FIFOs waited on without deafening the command:
``omniurl get -i /dev/full`` ends with an error row instead of reading for ever, an overlong
line is a row of its own, and SIGTERM/SIGINT end a command waiting on ``-i FIFO`` or
``-o FIFO`` with 143/130.  Every wait is bounded."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from helpers import ROOT

from omniurl.cli.inputs import MAX_LINE, MAX_SKIP, LineSplitter, Overlong

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX FIFOs and signals")


def test_lines_are_split_across_chunks_and_bounded() -> None:
    splitter = LineSplitter(limit=10, skip_limit=20)
    assert splitter.feed(b"gopher:/") == []
    assert splitter.feed(b"/a\nb\r\n0123456789ABC\nc") == [
        b"gopher://a",
        b"b\r",
        Overlong(3, b"0123456789ABC", True),
    ]
    assert splitter.end() == [b"c"]
    # an overlong line across chunks: one row when its end comes, then reading goes on
    splitter = LineSplitter(limit=10, skip_limit=20)
    assert splitter.feed(b"x" * 15) == []
    assert splitter.feed(b"y" * 10 + b"\nnext\n") == [Overlong(1, b"x" * 15, True), b"next"]
    # an endless line: given up past limit + skip_limit, nothing more read
    splitter = LineSplitter(limit=10, skip_limit=20)
    assert splitter.feed(b"z" * 25) == []
    assert splitter.feed(b"z" * 10) == [Overlong(1, b"z" * 25, False)]
    assert splitter.done and splitter.feed(b"\nmore\n") == [] and splitter.end() == []


@pytest_asyncio.fixture
async def web() -> AsyncIterator[tuple[str, asyncio.Event]]:
    """HTTP: /ok/N answers 'ok'; ``asked`` is set at each request."""
    asked = asyncio.Event()

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
            asked.set()
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nok\n")
            await writer.drain()
        except (OSError, asyncio.IncompleteReadError, TimeoutError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    try:
        yield f"127.0.0.1:{server.sockets[0].getsockname()[1]}", asked
    finally:
        server.close()


async def _start(*args: str, cwd: Path) -> asyncio.subprocess.Process:
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env["PYTHONPATH"] = str(ROOT)
    env["HOME"] = str(cwd)
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "omniurl", "get", *args,
        cwd=cwd, env=env, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip


async def _ended(proc: asyncio.subprocess.Process, within: float) -> tuple[int, bytes]:
    try:
        _out, err = await asyncio.wait_for(proc.communicate(), within)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    assert proc.returncode is not None
    return proc.returncode, err


async def test_dev_full_as_a_url_list_is_one_error_row(tmp_path: Path) -> None:
    """/dev/full is an endless line of zeros: before, 10.8 GB were read in 26 s."""
    manifest = tmp_path / "m.jsonl"
    proc = await _start("-i", "/dev/full", "--manifest", str(manifest), cwd=tmp_path)
    status, err = await _ended(proc, 60)
    rows = [json.loads(line) for line in manifest.read_text().splitlines()]
    assert len(rows) == 1 and rows[0]["error_type"] == "LimitExceeded"
    assert f"no line end within {MAX_SKIP} more" in rows[0]["error_message"]
    assert status == 6, err


async def test_an_overlong_line_is_a_row_and_reading_goes_on(
    web: tuple[str, asyncio.Event], tmp_path: Path
) -> None:
    netloc, _asked = web
    urls = tmp_path / "urls.txt"
    urls.write_bytes(
        f"http://{netloc}/ok/1\n".encode()
        + b"http://h/" + b"a" * MAX_LINE + b"\n"
        + f"http://{netloc}/ok/2\n".encode()
    )  # fmt: skip
    manifest = tmp_path / "m.jsonl"
    proc = await _start("-i", str(urls), "--manifest", str(manifest), cwd=tmp_path)
    status, err = await _ended(proc, 60)
    rows = sorted(
        (json.loads(line) for line in manifest.read_text().splitlines()),
        key=lambda r: r["index"],  # (the manifest is in completion order)
    )
    assert [(r["index"], r["ok"], r["error_type"]) for r in rows] == [
        (0, True, None),
        (1, False, "LimitExceeded"),
        (2, True, None),
    ]
    assert rows[1]["error_message"] == (
        f"line 2 of {urls} is longer than {MAX_LINE} bytes: not read as a URL"
    )
    assert len(rows[1]["url"]) <= 41
    assert status == 6, err


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
async def test_a_signal_ends_a_command_waiting_for_a_fifo_writer(
    tmp_path: Path, signum: int, status: int
) -> None:
    fifo = tmp_path / "urls.fifo"
    os.mkfifo(fifo)
    proc = await _start("-i", str(fifo), "--manifest", str(tmp_path / "m.jsonl"), cwd=tmp_path)
    await asyncio.sleep(1.5)  # started, and waiting for a writer that never comes
    assert proc.returncode is None
    proc.send_signal(signum)
    got, err = await _ended(proc, 10)
    assert got == status, err


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
async def test_a_signal_ends_a_command_waiting_for_a_fifo_reader(
    web: tuple[str, asyncio.Event], tmp_path: Path, signum: int, status: int
) -> None:
    netloc, asked = web
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    proc = await _start("-o", str(fifo), f"http://{netloc}/ok/1", cwd=tmp_path)
    await asyncio.wait_for(asked.wait(), 15)
    await asyncio.sleep(0.5)  # the content is here; nobody reads the FIFO
    assert proc.returncode is None
    proc.send_signal(signum)
    got, err = await _ended(proc, 10)
    assert got == status, err


async def test_o_fifo_still_delivers_to_its_reader(
    web: tuple[str, asyncio.Event], tmp_path: Path
) -> None:
    netloc, _asked = web
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    proc = await _start("-o", str(fifo), f"http://{netloc}/ok/1", cwd=tmp_path)
    reader = await asyncio.create_subprocess_exec("cat", str(fifo), stdout=asyncio.subprocess.PIPE)
    out, _ = await asyncio.wait_for(reader.communicate(), 15)
    status, err = await _ended(proc, 15)
    assert (status, out) == (0, b"ok\n"), err


def test_one_wait_serves_a_url_lists_reads_and_a_fifos_writes() -> None:
    """cli.fifo._ready: readable (a URL list on a pipe) or writable (a full FIFO), each
    only once the other end acts, and the loop's watch of the descriptor removed after."""
    from omniurl.cli.fifo import _ready

    async def run() -> list[str]:
        loop = asyncio.get_running_loop()
        r, w = os.pipe()
        os.set_blocking(r, False)
        os.set_blocking(w, False)
        order: list[str] = []
        try:
            reading = asyncio.ensure_future(_ready(loop, r, write=False))
            await asyncio.sleep(0.05)
            assert not reading.done()
            order.append("write")
            os.write(w, b"ftp://h/x\n")
            await asyncio.wait_for(reading, 5)
            order.append("readable")
            assert loop.remove_reader(r) is False  # (its watch gone)
            while True:  # fill the pipe
                try:
                    os.write(w, b"x" * 65536)
                except BlockingIOError:
                    break
            writing = asyncio.ensure_future(_ready(loop, w, write=True))
            await asyncio.sleep(0.05)
            assert not writing.done()
            order.append("drain")
            while True:
                try:
                    if not os.read(r, 1 << 20):
                        break
                except BlockingIOError:
                    break
            await asyncio.wait_for(writing, 5)
            order.append("writable")
            assert loop.remove_writer(w) is False
        finally:
            os.close(r)
            os.close(w)
        return order

    assert asyncio.run(run()) == ["write", "readable", "drain", "writable"]
