"""SIGTERM and SIGHUP mid-transfer end ``omniurl get`` like Ctrl-C: no ``.part`` file left,
the old target kept, exit 143/129, and a batch's manifest holding every finished URL.

The server sends a response head and a first block, then stalls (bounded by the test), so the
signal always arrives while content is being written.
"""

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
from helpers import ROOT, loopback_server

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

HEAD = b"HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\nContent-Type: application/x-bin\r\n\r\n"


@pytest_asyncio.fixture
async def stalling() -> AsyncIterator[tuple[str, asyncio.Event]]:
    """An HTTP server: small files at /ok/N, and /stall sends 1,000 of 1,000,000 bytes."""
    sent = asyncio.Event()

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
            if request.startswith(b"GET /ok/"):
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n")
                await writer.drain()
                return
            writer.write(HEAD + b"x" * 1000)
            await writer.drain()
            sent.set()
            await asyncio.sleep(20)  # bounded stall: the test ends long before
        except (OSError, asyncio.IncompleteReadError, TimeoutError):
            pass
        finally:
            writer.close()

    async with loopback_server(serve) as port:
        yield f"127.0.0.1:{port}", sent


async def _signalled(
    args: list[str], sent: asyncio.Event, signum: int, cwd: Path
) -> tuple[int, bytes]:
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env["PYTHONPATH"] = str(ROOT)
    env["HOME"] = str(cwd)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "omniurl", "get", *args,
        cwd=cwd, env=env, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        await asyncio.wait_for(sent.wait(), 15)
        await asyncio.sleep(0.5)  # the first block reaches the .part file
        proc.send_signal(signum)
        _out, err = await asyncio.wait_for(proc.communicate(), 15)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    assert proc.returncode is not None
    return proc.returncode, err


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
async def test_a_signal_mid_transfer_leaves_no_part_and_keeps_the_old_file(
    stalling: tuple[str, asyncio.Event], tmp_path: Path, signum: int, status: int
) -> None:
    netloc, sent = stalling
    target = tmp_path / "file.bin"
    target.write_bytes(b"the old file\n")
    code, err = await _signalled(
        ["-o", str(target), f"http://{netloc}/stall"], sent, signum, tmp_path
    )
    assert code == status, err
    assert f"ended by {signal.Signals(signum).name}".encode() in err
    assert target.read_bytes() == b"the old file\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.bin"]


async def test_sigterm_mid_batch_keeps_a_complete_manifest_prefix(
    stalling: tuple[str, asyncio.Event], tmp_path: Path
) -> None:
    netloc, sent = stalling
    out = tmp_path / "out"
    out.mkdir()
    manifest = tmp_path / "m.jsonl"
    urls = [f"http://{netloc}/ok/{i}.txt" for i in range(3)] + [f"http://{netloc}/stall"]
    code, err = await _signalled(
        [*urls, "--output-dir", str(out), "--manifest", str(manifest)], sent, signal.SIGTERM,
        tmp_path,
    )  # fmt: skip
    assert code == 143, err
    rows = [json.loads(line) for line in manifest.read_text().splitlines()]
    assert [r["index"] for r in rows] == [0, 1, 2]
    assert all(r["ok"] for r in rows)
    assert sorted(p.name for p in out.iterdir()) == ["0.txt", "1.txt", "2.txt"]
