"""``--max-filesize`` with ``-I``, and for ``file:`` URLs, as curl's (checked on loopback
against curl 7.88.1 and curl's source today, docs/cli.md):

- ``-I`` shows the head first (before: nothing at all, exit 6); an HTTP head whose
  ``Content-Length`` is over the limit then fails as a GET would (curl: the head, then exit
  63), while FTP's ``SIZE`` and a file's size describe a transfer ``-I`` does not make (curl:
  the head, exit 0);
- a ``file:`` download over the limit is refused before a byte is read and leaves no file
  (curl since 8.4 applies the limit to every protocol; 7.88 ignored it for ``file://``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from _ftphttp import run_cli

from omniurl.testservers.ftp import start_ftp
from omniurl.testservers.http import start_http

DATA = bytes(range(256)) * 4  # 1,024 bytes
TOO_LARGE = "the content is 1024 bytes, more than --max-filesize 1000"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "srv").mkdir()
    (tmp_path / "srv" / "big.bin").write_bytes(DATA)
    (tmp_path / "out").mkdir()
    return tmp_path


async def test_http_head_is_shown_then_the_limit_fails_it(root: Path) -> None:
    async with await start_http(root / "srv") as web:
        await _http_head(f"http://127.0.0.1:{web.port}/big.bin")


async def _http_head(url: str) -> None:
    status, head, err = await run_cli("get", "-I", url)
    assert status == 0, err
    assert b"Content-Length: 1024\r\n" in head and head.endswith(b"\r\n\r\n")
    status, out, err = await run_cli("get", "-I", "--max-filesize", "1000", url)
    assert status == 6, err  # (the limit's exit status, curl's 63)
    assert _same_but_date(out, head)  # (the head first, as curl shows it)
    assert (
        err
        == f"omniurl: {url}: the content is 1024 bytes, more than --max-filesize 1000\n".encode()
    )
    status, out, err = await run_cli("get", "-I", "--max-filesize", "1024", url)
    assert (status, err) == (0, b"")
    assert _same_but_date(out, head)


def _same_but_date(one: bytes, other: bytes) -> bool:
    """Two heads alike but for their Date field (the server's clock moves between them)."""

    def without_date(head: bytes) -> list[bytes]:
        return [line for line in head.split(b"\r\n") if not line.lower().startswith(b"date:")]

    return without_date(one) == without_date(other)


async def test_ftp_head_is_shown_and_the_limit_not_applied(root: Path) -> None:
    async with await start_ftp(root / "srv") as ftp:
        await _unlimited_head(f"ftp://127.0.0.1:{ftp.port}/big.bin")


async def _unlimited_head(url: str) -> None:
    status, head, err = await run_cli("get", "-I", url)
    assert status == 0, err
    assert b"Content-Length: 1024\r\n" in head
    status, out, err = await run_cli("get", "-I", "--max-filesize", "1000", url)
    assert (status, out, err) == (0, head, b"")


async def test_file_head_is_shown_and_the_limit_not_applied(root: Path) -> None:
    await _unlimited_head((root / "srv" / "big.bin").as_uri())


async def test_a_file_url_over_the_limit_is_refused_and_leaves_no_file(root: Path) -> None:
    url = (root / "srv" / "big.bin").as_uri()
    target = root / "out" / "big.bin"
    status, out, err = await run_cli("get", "--max-filesize", "1000", "-o", str(target), url)
    assert (status, out) == (6, b""), err
    assert (
        err
        == f"omniurl: {url}: the content is 1024 bytes, more than --max-filesize 1000\n".encode()
    )
    assert list((root / "out").iterdir()) == []
    status, out, err = await run_cli("get", "--max-filesize", "1024", "-o", str(target), url)
    assert (status, err) == (0, b"")
    assert target.read_bytes() == DATA
