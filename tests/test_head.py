"""``-I/--head``: HTTP HEAD prints the response's header fields; FTP SIZE and MDTM print as
Content-Length and Last-Modified (curl's -I on ftp:); nothing is transferred."""

from __future__ import annotations

import os
import time
from pathlib import Path

from _ftphttp import run_cli

from omniurl import resolvers, testservers
from omniurl.resolvers.options import Options


def test_plans() -> None:
    http = resolvers.plan("http://h.example/a.txt", Options(head=True)).to_json()["steps"]
    assert http[0] == "HEAD /a.txt HTTP/1.1"
    ftp = resolvers.plan("ftp://h.example/pub/a.txt", Options(head=True)).to_json()["steps"]
    assert ftp == [
        "USER anonymous", "PASS ****", "CWD pub", "TYPE I", "SIZE a.txt", "MDTM a.txt", "QUIT"
    ]  # fmt: skip


async def test_http_head(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"x" * 1234)
    srv = await testservers.start("http", tmp_path)
    try:
        status, out, err = await run_cli("get", "-I", f"http://127.0.0.1:{srv.port}/a.txt")
        assert status == 0, err
        lines = out.decode().split("\r\n")
        assert lines[0] == "HTTP/1.1 200 OK"
        assert "content-length: 1234" in [line.lower() for line in lines]
        assert out.endswith(b"\r\n\r\n") and b"xxxx" not in out
        assert srv.info["requests"][-1][0] == b"HEAD"
    finally:
        await srv.close()


async def test_ftp_size_and_mdtm(tmp_path: Path) -> None:
    (tmp_path / "pub").mkdir()
    path = tmp_path / "pub" / "a.bin"
    path.write_bytes(b"y" * 4321)
    stamp = time.mktime((2024, 3, 5, 6, 7, 8, 0, 0, 0)) - time.timezone
    os.utime(path, (stamp, stamp))
    srv = await testservers.start("ftp", tmp_path)
    try:
        status, out, err = await run_cli("get", "-I", f"ftp://127.0.0.1:{srv.port}/pub/a.bin")
        assert status == 0, err
        text = out.decode()
        assert "Content-Length: 4321\r\n" in text
        assert b"RETR" not in b" ".join(srv.info["commands"])
        # TYPE I first: the server, like ProFTPD and vsftpd, refuses SIZE in ASCII mode
        assert srv.info["commands"][-4:] == [b"TYPE I", b"SIZE a.bin", b"MDTM a.bin", b"QUIT"]
        assert "Last-Modified: Tue, 05 Mar 2024 06:07:08 GMT\r\n" in text
        # -C continues this file (REST): -I offers ranges, as curl's -I on ftp: prints
        # (the head plan said not resumable, so the line was never printed for FTP)
        # (no blank line after it: that ends an HTTP head; curl's -I on ftp: has none)
        assert text.endswith("\r\nAccept-ranges: bytes\r\n")
        assert not text.endswith("\r\n\r\n")
        # ;type=a: -C fetches it whole again in TYPE A (no REST), so no ranges are offered
        status, out, err = await run_cli(
            "get", "-I", f"ftp://127.0.0.1:{srv.port}/pub/a.bin;type=a"
        )
        assert status == 0, err
        assert "Content-Length: 4321\r\n" in out.decode()
        assert b"Accept-ranges" not in out
    finally:
        await srv.close()


def test_ftp_head_plan_is_as_resumable_as_its_transfer() -> None:
    for url, resumable in (
        ("ftp://h.example/pub/a.bin", True),
        ("ftp://h.example/pub/a.txt", False),  # (-C: TYPE A, the whole file again)
        ("ftp://h.example/pub/a.txt;type=i", True),
        ("ftp://h.example/pub/a.txt;type=a", False),
    ):
        head = resolvers.plan(url, Options(head=True))
        assert head.resumable is resumable, url
        assert resolvers.plan(url, Options()).resumable is True
        if resumable:  # (and -C does plan it)
            assert resolvers.plan(url, Options(resume_from=5)).resumable
