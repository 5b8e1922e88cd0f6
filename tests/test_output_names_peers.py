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
