"""FTP: a transfer shorter than the 150 reply announced is a typed error (issue 14 item 5).

Before, the data connection's early close looked like the end of the file: 1,000 of
1,000,000 bytes, control said 226, exit 0 and the old file replaced.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from omniurl.resolvers import Options, resolve
from omniurl.resolvers.errors import ConnectionClosed
from omniurl.testservers.adversary import ShortFTPServer


async def _read(url: str) -> bytes:
    async with await resolve(url, Options()) as resource:
        return await resource.read()


async def test_short_transfer_is_typed() -> None:
    async with ShortFTPServer(announced=1_000_000, sent=1000) as server:
        url = f"ftp://127.0.0.1:{server.port}/file.bin;type=i"
        with pytest.raises(ConnectionClosed) as info:
            await asyncio.wait_for(_read(url), 20)
    assert str(info.value) == (
        "the data connection of RETR file.bin closed after 1000 bytes; the server announced 1000000"
    )


async def test_a_full_transfer_still_passes() -> None:
    async with ShortFTPServer(announced=1000, sent=1000) as server:
        data = await asyncio.wait_for(_read(f"ftp://127.0.0.1:{server.port}/f;type=i"), 20)
    assert data == b"x" * 1000


async def test_cli_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "file.bin"
    target.write_bytes(b"old contents")
    async with ShortFTPServer(announced=1_000_000, sent=1000) as server:
        url = f"ftp://127.0.0.1:{server.port}/file.bin;type=i"
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "omniurl",
            "get",
            "-o",
            str(target),
            url,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
        )
        _out, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 4, err
    assert b"closed after 1000 bytes; the server announced 1000000" in err
    assert target.read_bytes() == b"old contents"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.bin"]
