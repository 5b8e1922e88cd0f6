"""An FTP listing on a terminal keeps every row's size and date at any width (issue 31
item 13: at 80 columns the rows with long URLs lost them; at 120 all had them)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from helpers import on_a_terminal

from omniurl import testservers

NAMES = {
    "a.txt": 6,
    "big.bin": 300 * 1024 * 1024 // 1024,  # (a sparse size is enough: 300 KiB)
    "a-file-with-a-rather-long-name-for-this-test.tar.gz": 1234,
    "mid-length-name.txt": 42,
}


@pytest.mark.parametrize("columns", [60, 80, 120])
async def test_every_row_keeps_its_size_and_date(tmp_path: Path, columns: int) -> None:
    root = tmp_path / "srv"
    (root / "pub").mkdir(parents=True)
    for name, size in NAMES.items():
        (root / "pub" / name).write_bytes(b"x" * size)
    async with await testservers.start("ftp", root) as ftp:
        status, out = await asyncio.to_thread(
            on_a_terminal, "get", f"ftp://{ftp.netloc}/pub/", cwd=tmp_path, columns=columns
        )
    assert status == 0, out
    rows = [r for r in out.decode().splitlines()[1:] if r.strip()]
    assert len(rows) == len(NAMES), rows
    date = re.compile(r"\b\d{4}-\d\d-\d\d \d\d:\d\d\b")
    for row in rows:
        url = row.split()[-1]
        assert url.startswith(f"ftp://{ftp.netloc}/pub/"), row  # the URL whole, last
        assert date.search(row), row  # the date
        assert re.search(r"\b\d+(\.\d)? (B|KiB|MiB)\b", row), row  # the size, human
        if len(url) + 48 < columns:  # kind, size, date, MIN_NAME of a name
            assert len(row) < columns, row  # fits when it can
    by_url = {r.split()[-1]: r for r in rows}
    assert " 300.0 KiB " in by_url[f"ftp://{ftp.netloc}/pub/big.bin"]
    assert " 6 B " in by_url[f"ftp://{ftp.netloc}/pub/a.txt"]
