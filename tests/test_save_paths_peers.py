"""docs/saving.md's checks against Debian's servers: the same bytes by every save path
(standard output to a pipe, ``-o``, ``-O``, ``-Z``, ``-Z --procs 2``, ``omniurl.get()``,
fsspec, the gateway) from gophernicus (Gopher that sends files unframed), molly-brown
(Gemini), vsftpd converting text in ASCII mode and INN (NNTP).  Each skips, saying why,
where its server is not installed (``.ci/run`` installs them)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from _ftphttp import MOLLY, VSFTPD, molly_brown, running, start_vsftpd, write_tree
from test_gopher_interop import gophernicus  # noqa: F401 -- the module's fixture
from test_nntp_interop import INN_GROUP, Inn, inn  # noqa: F401 -- the module's fixture
from test_save_paths_schemes import through_every_path

from omniurl.resolvers.options import Options

pytestmark = pytest.mark.interop


async def test_gophernicus(gophernicus: str, tmp_path: Path) -> None:  # noqa: F811
    """gophernicus sends a text file unframed (no "." line, no dot-stuffing: docs/saving.md),
    its lines ending CR LF, and its menus with its own info lines."""
    port = int(gophernicus.rsplit(":", 1)[1])
    menu, dots = f"{gophernicus}/1/docs", f"{gophernicus}/0/dots.txt"
    saved = await through_every_path(
        tmp_path / "run",
        [menu, f"{gophernicus}/0/hello.txt", dots, f"{gophernicus}/9/docs/blob.bin"],
        Options(read_timeout=10),
        listings=frozenset({menu}),
        fsspec_urls={},
        gateway_port=port,
    )
    from test_gopher_interop import DOTS

    assert saved[dots] == DOTS.replace(b"\n", b"\r\n")  # unframed: every byte, its CR LF
    assert saved[f"{gophernicus}/9/docs/blob.bin"] == bytes(range(256)) * 400


@pytest.mark.skipif(MOLLY is None, reason="molly-brown not installed (apt-get install molly-brown)")
async def test_molly_brown(tmp_path: Path) -> None:
    from omniurl.resolvers.gemini.settings import GeminiOptions

    docs = tmp_path / "docs"
    docs.mkdir()
    index = b"# Capsule\r\n=> hello.txt Hello\r\n"
    (docs / "index.gmi").write_bytes(index)
    (docs / "hello.txt").write_bytes(b"hello\r\n")
    known = tmp_path / "known_hosts"
    async with molly_brown(docs, tmp_path / "molly") as port:
        base = f"gemini://127.0.0.1:{port}"
        saved = await through_every_path(
            tmp_path / "run",
            [f"{base}/", f"{base}/hello.txt"],
            Options().with_scheme(GeminiOptions(known_hosts=str(known))),
            fsspec_urls={},
            gateway_port=port,
            flags=("--gemini-known-hosts", str(known)),
        )
    assert saved[f"{base}/"] == index  # to a pipe too: the terminal alone renders gemtext


async def test_vsftpd_in_ascii_mode(tmp_path: Path) -> None:
    """vsftpd sending text as CR LF (``ascii_download_enable``): a name guessed ``TYPE A``
    is saved with LF by every path, ``;type=i`` as stored."""
    if not os.path.exists(VSFTPD):
        pytest.skip("vsftpd not installed (apt-get install vsftpd)")
    text = b"one\ntwo\n"
    root = write_tree(tmp_path / "root", {"pub/notes.txt": text, "pub/blob.bin": b"\r\n\x00"})
    for path in [root, *root.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)

    async def start(root: Path, scratch: Path) -> tuple[asyncio.subprocess.Process, int]:
        return await start_vsftpd(root, scratch, extra="ascii_download_enable=YES\n")

    async with running(start, root, tmp_path / "vsftpd") as netloc:
        base = f"ftp://{netloc}/pub"
        port = int(netloc.rsplit(":", 1)[1])
        saved = await through_every_path(
            tmp_path / "run",
            [f"{base}/", f"{base}/notes.txt", f"{base}/blob.bin"],
            Options(),
            listings=frozenset({f"{base}/"}),
            gateway_port=port,
        )
        raw = await through_every_path(
            tmp_path / "raw", [f"{base}/notes.txt;type=i"], Options(), gateway_port=port
        )
    assert saved[f"{base}/notes.txt"] == text
    assert saved[f"{base}/blob.bin"] == b"\r\n\x00"
    assert raw[f"{base}/notes.txt;type=i"] == text


async def test_inn(
    inn: Inn,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from omniurl.resolvers.nntp.settings import NNTPOptions

    monkeypatch.setenv("NNTPSERVER", inn.netloc)
    group, news_group = f"nntp://{inn.netloc}/{INN_GROUP}", f"news:{INN_GROUP}"
    article = "news:second@omniurl.test"
    saved = await through_every_path(
        tmp_path / "run",
        [group, f"{group}/1", news_group, article],
        Options().with_scheme(NNTPOptions(server=inn.netloc)),
        listings=frozenset({group, news_group}),
        fsspec_urls={
            news_group: f"news://{inn.netloc}/{INN_GROUP}",
            article: f"news://{inn.netloc}/second@omniurl.test",
        },
        gateway_port=inn.port,
    )
    assert saved[group] == saved[news_group]
    assert b"Message-ID: <second@omniurl.test>" in saved[article]
