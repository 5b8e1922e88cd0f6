"""The FTP resolver against Pure-FTPd (Debian's pure-ftpd): the MLSD server (RFC 3659) that
vsftpd is not, and a 150 reply that announces no size.

pure-ftpd runs in the foreground on a free loopback port with a virtual user (pure-pw)
chrooted to a world-readable tree; starting it needs root (it switches to nobody).  Skips
where pure-ftpd is not installed or the tests do not run as root.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from _ftphttp import (
    PURE_FTPD,
    PURE_USER,
    resume_cut_transfer,
    root_ftp_server,
    run_cli,
    start_pureftpd,
    transcript,
)

from omniurl import resolvers
from omniurl.resolvers.errors import AuthError
from omniurl.resolvers.ftp.planner import FTPRole

#: Passive steps a server that takes EPSV (and names allowed ports) makes unnecessary.
UNNEEDED = (FTPRole.EPSV_AGAIN, FTPRole.PASV, FTPRole.PASV_AGAIN)

pytestmark = pytest.mark.interop

BIG = os.urandom(2 * 1024 * 1024 + 3)


@pytest_asyncio.fixture
async def pureftpd(tmp_path: Path) -> AsyncIterator[str]:
    """``alice:s3cret@127.0.0.1:PORT``."""
    files = {"pub/hello.txt": b"hello from pure-ftpd\n", "pub/big.bin": BIG, "pub/sub/": b""}
    async with root_ftp_server("pure-ftpd", PURE_FTPD, start_pureftpd, files, tmp_path) as netloc:
        yield f"{PURE_USER[0]}:{PURE_USER[1]}@{netloc}"


async def test_a_directory_is_listed_with_mlsd_facts(pureftpd: str) -> None:
    """FEAT lists MLST, so MLSD: each entry's type, size and time; a directory's URL ends in
    "/" (so following it lists it, never RETRs it); the password is not in entry URLs."""
    lines, options = transcript()
    async with await resolvers.resolve(f"ftp://{pureftpd}/pub/", options) as listing:
        entries = {e.name: e for e in listing.entries}
    assert set(entries) == {"big.bin", "hello.txt", "sub"}
    assert (entries["big.bin"].kind, entries["big.bin"].info["size"]) == ("file", len(BIG))
    assert entries["hello.txt"].info["size"] == 21
    assert entries["sub"].kind == "directory"
    netloc = pureftpd.split(":", 1)[0] + "@" + pureftpd.rsplit("@", 1)[1]
    assert entries["sub"].url == f"ftp://{netloc}/pub/sub/"
    assert str(entries["hello.txt"].info["modify"]).endswith("Z")  # RFC 3659 §2.3: UTC
    sent = [line[2:] for line in lines if line.startswith("> ")]
    assert sent == ["USER alice", "PASS ****", "CWD pub", "FEAT", "EPSV", "MLSD", "QUIT"]
    async with await resolvers.resolve(
        entries["sub"].url.replace("alice@", pureftpd.split("@")[0] + "@"), options
    ) as sub:
        assert [e.name for e in sub.entries] == []


async def test_a_binary_without_a_size_in_the_150_reply(pureftpd: str) -> None:
    """pure-ftpd's 150 names no size: the transfer is read to the end and nothing invents a
    total; the bytes are the file's; exactly the plan's commands were sent."""
    url = f"ftp://{pureftpd}/pub/big.bin"
    lines, options = transcript()
    async with await resolvers.resolve(url, options) as resource:
        assert resource.size is None
        data = await resource.read()
    assert hashlib.sha256(data).digest() == hashlib.sha256(BIG).digest()
    sent = [line[2:] for line in lines if line.startswith("> ")]
    assert sent == [s.shown for s in resolvers.plan(url, options).steps if s.role not in UNNEEDED]
    # "150-Accepted data connection / 150 2048.0 kbytes to download": rounded, not a size
    assert any(line.startswith("< 150") for line in lines)


async def test_resume_and_head(pureftpd: str, tmp_path: Path) -> None:
    """-C -: SIZE (213) and REST K (350) continue a cut transfer into the whole file; -I is
    SIZE + MDTM, nothing transferred."""
    k = 777_777
    url = f"ftp://{pureftpd}/pub/big.bin"
    err = await resume_cut_transfer(url, BIG, k, tmp_path)
    assert f"< 213 {len(BIG)}".encode() in err and b"s3cret" not in err
    status, head, err = await run_cli("get", "-I", url)
    assert status == 0, err
    assert f"Content-Length: {len(BIG)}".encode() in head
    assert b"Last-Modified: " in head


async def test_a_wrong_password_is_auth_error(pureftpd: str) -> None:
    """pure-ftpd answers a wrong password with 530 after about 8 s (its brute-force delay):
    AuthError, exit 7, the password nowhere in what is printed."""
    netloc = pureftpd.rsplit("@", 1)[1]
    options = transcript()[1].with_(read_timeout=30)
    with pytest.raises(AuthError) as info:
        await resolvers.resolve(f"ftp://alice:WRONGPW@{netloc}/pub/hello.txt", options)
    assert "530" in str(info.value) and "WRONGPW" not in str(info.value)
