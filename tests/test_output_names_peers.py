"""``-O`` and the batch name a file by its URL's last segment as curl and wget do: a ``;``
or ``?`` that is part of an HTTP or Gopher name stays in the name.

Found by running curl, wget and ``omniurl get`` side by side on nginx, vsftpd and
gophernicus: ``http://h/pub/se;mi.txt`` was saved as ``se`` (curl and wget: ``se;mi.txt``),
``gopher://h/0/a%3Bb.txt`` as ``a`` and ``gopher://h/0/q%3Fx.txt`` as ``q`` — the name was
cut at the first ``;`` and ``?`` whatever the scheme, a rule that is right only for FTP's
``;type=`` (RFC 1738 §3.2.2), Prospero's fields and a query.  RFC 3986 §3.3 makes ``;`` a
path segment's own character; a Gopher selector is opaque (RFC 1436, RFC 4266 §2.1).
"""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from _ftphttp import run_cli
from helpers import loopback_server

from omniurl import testservers
from omniurl.batch import output_name
from omniurl.schemes import parse

BODY = b"semicolon\n"


@pytest.mark.parametrize(
    ("url", "name"),
    [
        ("http://h/pub/se;mi.txt", "se;mi.txt"),
        ("http://h/pub/se%3Bmi.txt", "se;mi.txt"),
        ("http://h/a;b?c=/d;e", "a;b"),  # (the query is still no part of it)
        ("gemini://h/a;b.gmi?x;y", "a;b.gmi"),
        ("gopher://h/0/a%3Bb.txt", "a;b.txt"),
        ("gopher://h/0/se;mi.txt", "se;mi.txt"),
        ("gopher://h/0/q%3Fx.txt", "q?x.txt"),
        # where ";" begins parameters, they still name nothing
        ("ftp://h/pub/file.tar.gz;type=i", "file.tar.gz"),
        ("ftp://h/pub/a%3Bb.txt", "a;b.txt"),
        ("prospero://h/a/b;x=1", "b"),
    ],
)
def test_a_names_own_semicolon_and_question_mark_stay(url: str, name: str) -> None:
    assert output_name(parse(url)) == name


@pytest_asyncio.fixture
async def http(tmp_path: Path) -> AsyncIterator[testservers.RunningServer]:
    root = tmp_path / "site"
    root.mkdir()
    (root / "se;mi.txt").write_bytes(BODY)
    async with await testservers.start("http", root) as server:
        yield server


@pytest.mark.parametrize("lean", ["1", "0"])
async def test_every_save_path_keeps_the_semicolon(
    http: testservers.RunningServer, tmp_path: Path, lean: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``-O``, ``--output-dir`` and a ``-Z`` batch (its lean HTTP engine on and off) save
    ``se;mi.txt`` under that name, with the server's bytes — as curl's ``-O`` does."""
    monkeypatch.setenv("OMNIURL_BATCH_LEAN", lean)
    url = f"http://{http.netloc}/se;mi.txt"
    single = tmp_path / "O"
    single.mkdir()
    status, _out, err = await run_cli("get", "-s", "-S", "-O", url, cwd=single)
    assert status == 0, err
    assert sorted(os.listdir(single)) == ["se;mi.txt"]
    assert (single / "se;mi.txt").read_bytes() == BODY

    batch = tmp_path / "Z"
    batch.mkdir()
    other = f"http://{http.netloc}/se;mi.txt?again"
    status, _out, err = await run_cli(
        "get", "-s", "-S", "-Z", "--output-dir", str(batch), url, other
    )
    assert status == 0, err
    assert sorted(os.listdir(batch)) == ["se;mi.1.txt", "se;mi.txt"]
    assert {p.read_bytes() for p in batch.iterdir()} == {BODY}

    curl = shutil.which("curl")
    if curl is not None:  # (the peer, where it is installed: the same name)
        peer = tmp_path / "curl"
        peer.mkdir()
        proc = await asyncio.create_subprocess_exec(curl, "-s", "-m", "20", "-O", url, cwd=peer)
        assert await asyncio.wait_for(proc.wait(), 30) == 0
        assert os.listdir(peer) == os.listdir(single)


async def test_gopher_o_keeps_the_selectors_semicolon(tmp_path: Path) -> None:
    """A Gopher text item whose selector holds ";": ``-O`` saves it under the whole name."""
    root = tmp_path / "hole"
    root.mkdir()
    (root / "a;b.txt").write_bytes(b"gopher\r\n")
    out = tmp_path / "out"
    out.mkdir()
    async with await testservers.start("gopher", root) as server:
        status, _out, err = await run_cli(
            "get", "-s", "-S", "-O", f"gopher://{server.netloc}/0/a%3Bb.txt", cwd=out
        )
    assert status == 0, err
    assert os.listdir(out) == ["a;b.txt"]
    assert (out / "a;b.txt").read_bytes() == b"gopher\r\n"


#: A name of 90 CJK characters: 274 bytes of UTF-8, past every file system's 255.
LONG = "%E4%B8%80" * 90 + ".txt"


def test_a_long_name_is_bounded_in_bytes() -> None:
    """200 characters were the bound: 90 CJK ones are 270 bytes, and -O failed with "File
    name too long" (exit 23) after the download, where wget saves a shorter name."""
    name = output_name(parse(f"http://h/{LONG}"))
    assert len(name.encode()) <= 200 and name == "\u4e00" * 66
    ascii_name = output_name(parse("http://h/" + "a" * 300 + ".txt"))
    assert ascii_name == "a" * 200  # (unchanged: one byte a character)
    listing = output_name(parse("gopher://h/1/" + "%F0%9F%98%80" * 60))
    assert listing.endswith(".tsv") and len(listing.encode()) <= 200


async def _any_path(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while (await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)) is not None:
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")
            await writer.drain()
    except (asyncio.IncompleteReadError, TimeoutError, ConnectionError):
        pass
    finally:
        writer.close()


@pytest.mark.parametrize("lean", ["1", "0"])
async def test_a_long_name_is_saved_by_every_path(
    tmp_path: Path, lean: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OMNIURL_BATCH_LEAN", lean)
    async with loopback_server(_any_path) as port:
        url = f"http://127.0.0.1:{port}/{LONG}"
        single = tmp_path / "O"
        single.mkdir()
        status, _out, err = await run_cli("get", "-s", "-S", "-O", url, cwd=single)
        assert status == 0, err
        assert [p.read_bytes() for p in single.iterdir()] == [b"hello"]
        batch = tmp_path / "Z"
        batch.mkdir()
        status, _out, err = await run_cli(
            "get", "-s", "-S", "-Z", "--output-dir", str(batch), url, url + "?2"
        )
        assert status == 0, err
    assert sorted(os.listdir(batch)) == sorted([f"{'一' * 66}", f"{'一' * 66}.1"])


async def _long_disposition(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n"
            b"Content-Disposition: attachment; filename*=UTF-8''" + LONG.encode() + b"\r\n\r\nhello"
        )
        await writer.drain()
    except (asyncio.IncompleteReadError, TimeoutError, ConnectionError):
        pass
    finally:
        writer.close()


async def test_j_bounds_the_servers_long_name_in_bytes(tmp_path: Path) -> None:
    """``-J``: a Content-Disposition name of 274 bytes is saved under its first 198."""
    async with loopback_server(_long_disposition) as port:
        status, _out, err = await run_cli(
            "get", "-s", "-S", "-J", "-O", f"http://127.0.0.1:{port}/x", cwd=tmp_path
        )
    assert status == 0, err
    assert os.listdir(tmp_path) == ["一" * 66]
    assert (tmp_path / ("一" * 66)).read_bytes() == b"hello"
