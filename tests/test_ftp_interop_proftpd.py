"""The FTP resolver against ProFTPD 1.3 (Debian's proftpd-core): MLSD with its own facts, a
session that starts in ASCII and refuses SIZE there, and 150 replies that announce the
bytes still to come.

ProFTPD runs in the foreground on a free loopback port, anonymous only, serving a
world-readable tree; it switches to nobody, so starting it needs root.  Debian's package
conflicts with vsftpd, so .ci/run unpacks it into /opt/omniurl-ci/proftpd-core.  Skips where
it is not found or the tests do not run as root.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from _ftphttp import (
    PROFTPD,
    resume_cut_transfer,
    root_ftp_server,
    run_cli,
    start_proftpd,
    transcript,
)

from omniurl import resolvers
from omniurl.resolvers.errors import NotFound
from omniurl.resolvers.ftp.planner import FTPRole

#: Passive steps a server that takes EPSV (and names allowed ports) makes unnecessary.
UNNEEDED = (FTPRole.EPSV_AGAIN, FTPRole.PASV, FTPRole.PASV_AGAIN)

pytestmark = pytest.mark.interop

BIG = os.urandom(1024 * 1024 + 11)


@pytest_asyncio.fixture
async def proftpd(tmp_path: Path) -> AsyncIterator[str]:
    files = {"pub/hello.txt": b"hello from proftpd\n", "pub/big.bin": BIG, "pub/sub/x": b"x"}
    async with root_ftp_server("proftpd-core", PROFTPD, start_proftpd, files, tmp_path) as netloc:
        yield netloc


async def test_mlsd_listing_and_nlst(proftpd: str) -> None:
    """FEAT lists MLST: MLSD gives type, size and time; a directory's URL ends in "/";
    ``;type=d`` stays the names-only NLST (§3.2.2)."""
    lines, options = transcript()
    async with await resolvers.resolve(f"ftp://{proftpd}/pub/", options) as listing:
        entries = {e.name: e for e in listing.entries}
    assert (entries["big.bin"].kind, entries["big.bin"].info["size"]) == ("file", len(BIG))
    assert entries["sub"].kind == "directory"
    assert entries["sub"].url == f"ftp://{proftpd}/pub/sub/"
    sent = [line[2:] for line in lines if line.startswith("> ")]
    assert sent[2:] == ["CWD pub", "FEAT", "EPSV", "MLSD", "QUIT"]
    async with await resolvers.resolve(f"ftp://{proftpd}/pub;type=d", options) as names:
        assert sorted(e.name for e in names.entries) == ["big.bin", "hello.txt", "sub"]
    assert "> NLST pub" in lines


async def test_binary_with_the_size_the_150_reply_announces(proftpd: str) -> None:
    url = f"ftp://{proftpd}/pub/big.bin"
    lines, options = transcript()
    async with await resolvers.resolve(url, options) as resource:
        assert resource.size == len(BIG)  # "150 Opening BINARY mode … (N bytes)"
        data = await resource.read()
    assert hashlib.sha256(data).digest() == hashlib.sha256(BIG).digest()
    sent = [line[2:] for line in lines if line.startswith("> ")]
    assert sent == [s.shown for s in resolvers.plan(url, options).steps if s.role not in UNNEEDED]


async def test_head_asks_size_in_type_i(proftpd: str) -> None:
    """ProFTPD answers "550 SIZE not allowed in ASCII mode" in the type a session starts in:
    -I sends TYPE I first, as curl does."""
    status, out, err = await run_cli("get", "-I", "-v", f"ftp://{proftpd}/pub/big.bin")
    assert status == 0, err
    assert f"Content-Length: {len(BIG)}\r\n".encode() in out
    assert b"Last-Modified: " in out
    assert b"> TYPE I\n" in err and f"< 213 {len(BIG)}".encode() in err


async def test_resume_where_150_announces_the_rest(proftpd: str, tmp_path: Path) -> None:
    """After REST K, ProFTPD's 150 announces the bytes still to come (N - K): the short-transfer
    check counts from K, and the file is whole."""
    k = 300_001
    err = await resume_cut_transfer(f"ftp://{proftpd}/pub/big.bin", BIG, k, tmp_path)
    assert f"({len(BIG) - k} bytes)".encode() in err


async def test_a_missing_file_is_not_found(proftpd: str) -> None:
    with pytest.raises(NotFound) as info:
        await resolvers.resolve(f"ftp://{proftpd}/pub/nope.bin", transcript()[1])
    assert info.value.component == "name"
