"""Terminal manners (issue 11): binary content is not written to a terminal (``-o -``
forces it), a Gopher text item gets this system's line ends (``--raw`` keeps the wire), -J
takes a sanitised Content-Disposition name, a summary line after a transfer to a file."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from _ftphttp import run_cli
from helpers import on_a_terminal

from omniurl import testservers


@pytest.fixture
def site(tmp_path: Path) -> Path:
    (tmp_path / "bin.dat").write_bytes(b"\x00\x01\x02binary\x00")
    (tmp_path / "text.txt").write_bytes(b"line one\nline two\n..dotted\n")
    return tmp_path


async def test_binary_is_not_written_to_a_terminal(site: Path, tmp_path: Path) -> None:
    srv = await testservers.start("http", site)
    try:
        url = f"http://127.0.0.1:{srv.port}/bin.dat"
        status, out = await asyncio.to_thread(on_a_terminal, "get", url, cwd=tmp_path)
        assert status == 23 and b"binary output" in out and b"-o -" in out  # curl: 23
        status, out = await asyncio.to_thread(on_a_terminal, "get", "-o", "-", url, cwd=tmp_path)
        assert status == 0 and b"binary" in out
    finally:
        await srv.close()


async def test_gopher_text_loses_only_its_framing_and_raw_keeps_the_wire(
    site: Path, tmp_path: Path
) -> None:
    # docs/saving.md: the "." line removed, the dot-stuffing undone, the server's line ends
    # kept — on every path (tests/test_save_paths.py compares them all).
    srv = await testservers.start("gopher", site)
    try:
        url = f"gopher://127.0.0.1:{srv.port}/0/text.txt"
        status, out, err = await run_cli("get", "-o", str(tmp_path / "t.txt"), url)
        assert status == 0, err
        assert (tmp_path / "t.txt").read_bytes() == b"line one\r\nline two\r\n..dotted\r\n"
        status, out, err = await run_cli("get", "--raw", url)
        assert status == 0, err
        assert out == b"line one\r\nline two\r\n...dotted\r\n.\r\n"
    finally:
        await srv.close()


async def test_remote_header_name_is_sanitised(tmp_path: Path) -> None:
    routes = {
        "/dl": (200, [("Content-Disposition", 'attachment; filename="../../.bashrc"')], b"x"),
        "/ok": (
            200,
            [("Content-Disposition", "attachment; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf")],
            b"y",
        ),
    }
    srv = await testservers.start("http", tmp_path, routes=routes)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    try:
        status, _o, err = await run_cli(
            "get", "-O", "-J", f"http://127.0.0.1:{srv.port}/dl", cwd=out_dir
        )
        assert status == 0, err
        status, _o, err = await run_cli(
            "get", "-O", "-J", f"http://127.0.0.1:{srv.port}/ok", cwd=out_dir
        )
        assert status == 0, err
        assert sorted(p.name for p in out_dir.iterdir()) == ["bashrc", "résumé.pdf"]
    finally:
        await srv.close()


async def test_a_summary_line_after_a_transfer_to_a_file(site: Path, tmp_path: Path) -> None:
    srv = await testservers.start("http", site)
    try:
        target = tmp_path / "copy.txt"
        status, out = await asyncio.to_thread(
            on_a_terminal,
            "get",
            "-o",
            str(target),
            f"http://127.0.0.1:{srv.port}/text.txt",
            cwd=tmp_path,
        )
        assert status == 0, out
        assert b"27 B in " in out and f"-> {target}".encode() in out
        status, out = await asyncio.to_thread(
            on_a_terminal,
            "get",
            "-s",
            "-o",
            str(target),
            f"http://127.0.0.1:{srv.port}/text.txt",
            cwd=tmp_path,
        )
        assert status == 0 and b"-> " not in out
    finally:
        await srv.close()
