"""The FTP resolver against vsftpd (Debian's package), started by the test on loopback.

vsftpd runs with a private config on a free port, anonymous users chrooted into the test's
tree (tests/_daemon_conf.py: started as root; run_as_launching_user cannot chroot, and let
them read the machine's files); the test stops it.  Skips where vsftpd is not installed, or
cannot confine them here.
"""

from __future__ import annotations

import hashlib
import os
import urllib.parse
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from _ftphttp import (
    OPTS,
    VSFTPD,
    resume_cut_transfer,
    running,
    start_vsftpd,
    transcript,
    write_tree,
)
from _gateway import curl, lynx_dump, running_gateway

from omniurl import resolvers
from omniurl.resolvers.errors import NotFound
from omniurl.resolvers.ftp.planner import FTPRole

#: Passive steps a server that takes EPSV (and names allowed ports) makes unnecessary.
UNNEEDED = (FTPRole.EPSV_AGAIN, FTPRole.PASV, FTPRole.PASV_AGAIN)

pytestmark = pytest.mark.interop

BIG = os.urandom(3 * 1024 * 1024 + 17)


@pytest.fixture
def ftp_tree(tmp_path: Path) -> Path:
    files = {"pub/sub/": b"", "pub/hello.txt": b"hello from vsftpd\n", "pub/big.bin": BIG}
    return write_tree(tmp_path / "root", files)


@pytest_asyncio.fixture
async def vsftpd(ftp_tree: Path, tmp_path: Path) -> AsyncIterator[str]:
    if not os.path.exists(VSFTPD):
        pytest.skip("vsftpd not installed (apt-get install vsftpd)")
    async with running(start_vsftpd, ftp_tree, tmp_path / "vsftpd") as netloc:
        yield netloc


async def test_anonymous_users_cannot_leave_the_tree(vsftpd: str) -> None:
    """The tests' vsftpd confines anonymous users to its anon_root: the machine's files are
    out of reach, by absolute path or by "..", through omniurl and curl alike (before, as
    run_as_launching_user, ``ftp://…/%2Fetc/`` listed the machine's /etc)."""
    with pytest.raises(NotFound):
        await resolvers.fetch(f"ftp://{vsftpd}/%2Fetc/hostname", OPTS)
    with pytest.raises(NotFound):
        await resolvers.fetch(f"ftp://{vsftpd}/%2E%2E/%2E%2E/%2E%2E/etc/passwd", OPTS)
    # the server's "/" is the tree: its only entry is the test's pub
    listing = await resolvers.fetch(f"ftp://{vsftpd}/%2F/", OPTS)
    assert [e.name for e in listing] == ["pub"]
    code, out = await curl("-o", "-", f"ftp://{vsftpd}/%2Fetc/passwd")
    assert b"root:" not in out and code != 0


async def test_anonymous_binary_retrieval(vsftpd: str) -> None:
    lines, options = transcript()
    async with await resolvers.resolve(f"ftp://{vsftpd}/pub/big.bin", options) as resource:
        assert resource.size == len(BIG)  # vsftpd says "(N bytes)" in its 150 reply
        assert await resource.read() == BIG
    sent = [line[2:] for line in lines if line.startswith("> ")]
    plan = resolvers.plan(f"ftp://{vsftpd}/pub/big.bin", OPTS)
    assert sent == [s.shown for s in plan.steps if s.role not in UNNEEDED]
    assert "< 226 Transfer complete." in lines


async def test_listing_with_nlst(vsftpd: str) -> None:
    for url in (f"ftp://{vsftpd}/pub/", f"ftp://{vsftpd}/pub;type=d"):
        async with await resolvers.resolve(url, OPTS) as resource:
            assert resource.kind == "listing"
            assert sorted(e.name for e in resource.entries) == ["big.bin", "hello.txt", "sub"]
            urls = {e.name: e.url for e in resource.entries}
        assert urls["hello.txt"] == f"ftp://{vsftpd}/pub/hello.txt"


async def test_ascii_type(vsftpd: str) -> None:
    async with await resolvers.resolve(f"ftp://{vsftpd}/pub/hello.txt;type=a", OPTS) as r:
        assert await r.read() == b"hello from vsftpd\n"


async def test_percent_2f_cwd_is_one_absolute_argument(vsftpd: str) -> None:
    """§3.2.2's %2F example for real: one CWD whose argument is an absolute path (the
    anonymous session is chrooted into the tree, so "/pub" is the tree's pub)."""
    segment = urllib.parse.quote("/pub", safe="")
    lines, options = transcript()
    async with await resolvers.resolve(f"ftp://{vsftpd}/{segment}/hello.txt", options) as r:
        assert await r.read() == b"hello from vsftpd\n"
    assert "> CWD /pub" in lines


async def test_null_cwd_is_sent_and_vsftpd_refuses_it(vsftpd: str) -> None:
    """§3.2.2: "//pub" is a null-argument CWD; vsftpd answers 550 to it (curl would have
    sent "CWD /" instead — docs/ftp.md)."""
    lines, options = transcript()
    with pytest.raises(NotFound) as info:
        await resolvers.resolve(f"ftp://{vsftpd}//pub/hello.txt", options)
    assert info.value.component == "cwd[0]"
    assert "> CWD " in lines


async def test_missing_file_is_not_found(vsftpd: str) -> None:
    with pytest.raises(NotFound) as info:
        await resolvers.resolve(f"ftp://{vsftpd}/pub/nope.bin", OPTS)
    assert info.value.component == "name"


async def test_kept_connection_reused_with_vsftpd(vsftpd: str) -> None:
    from omniurl.resolvers.ftp import FTPSessions
    from omniurl.resolvers.options import Shared

    lines, options = transcript()
    async with FTPSessions() as sessions:
        kept = options.with_(shared=Shared(sessions))
        for name in ("hello.txt", "big.bin", "hello.txt"):
            async with await resolvers.resolve(f"ftp://{vsftpd}/pub/{name}", kept) as r:
                await r.read()
        assert sessions.reused == 2
    assert lines.count("> USER anonymous") == 1
    assert lines.count("> CWD pub") == 1
    assert lines[-2:] == ["> QUIT", "< 221 Goodbye."]


async def test_resume_with_rest_yields_the_whole_file(vsftpd: str, tmp_path: Path) -> None:
    """-C -: what a transfer cut at byte K left in .big.bin.part is continued with REST K
    (vsftpd's 350), and the file is vsftpd's, byte for byte."""
    k = 1_234_567
    err = await resume_cut_transfer(f"ftp://{vsftpd}/pub/big.bin", BIG, k, tmp_path)
    assert b"< 350 " in err and f"< 213 {len(BIG)}".encode() in err


async def test_vsftpd_through_the_gateway(vsftpd: str) -> None:
    """Issue 13: vsftpd's directory (sizes, dates, directories ending in /) and a file through
    ``serve gateway``, read by lynx (ftp_proxy) and curl -x (absolute-form GET ftp://)."""
    port = int(vsftpd.rsplit(":", 1)[1])
    async with running_gateway(port) as gateway:
        listing = await lynx_dump(f"ftp://{vsftpd}/pub/", {"ftp_proxy": f"http://{gateway}/"})
        _status, text = await curl("-x", f"http://{gateway}", f"ftp://{vsftpd}/pub/hello.txt")
        _status, big = await curl(f"http://{gateway}/ftp://{vsftpd}/pub/big.bin")
    assert "[FILE] [2]hello.txt size 18; modify " in listing  # LIST's size and date
    assert "[DIR] [3]sub size 4096; modify " in listing
    assert f"3. ftp://{vsftpd}/pub/sub/" in listing  # a directory's URL ends in /
    assert "<pre>hello from vsftpd\n</pre>" in text.decode()
    assert hashlib.sha256(big).hexdigest() == hashlib.sha256(BIG).hexdigest()


async def test_a_listing_has_the_dotfiles(tmp_path: Path) -> None:
    """vsftpd has no MLSD and leaves dotfiles out of a plain LIST: ``LIST -a`` (the plan's
    step where FEAT lists no MLST) lists them, as MLSD would."""
    if not os.path.exists(VSFTPD):
        pytest.skip("vsftpd not installed (apt-get install vsftpd)")
    root = write_tree(tmp_path / "root", {"pub/.hidden": b"h\n", "pub/.d/x": b"x", "pub/a": b"a"})
    async with running(start_vsftpd, root, tmp_path / "vsftpd") as netloc:
        lines, options = transcript()
        listing = await resolvers.fetch(f"ftp://{netloc}/pub/", options)
        assert sorted((e.name, e.kind) for e in listing) == [
            (".d", "directory"), (".hidden", "file"), ("a", "file")
        ]  # fmt: skip
        assert "> LIST -a" in lines and "> LIST" not in lines


async def test_an_empty_folder_is_listed_in_one_round_trip(tmp_path: Path) -> None:
    """vsftpd lists ``.`` and ``..`` for ``LIST -a`` even in an empty folder, so the plan's
    re-list (plain ``LIST`` where ``LIST -a`` named nothing, 487f736) is never paid there:
    one ``LIST -a``, one data connection, an empty listing."""
    if not os.path.exists(VSFTPD):
        pytest.skip("vsftpd not installed (apt-get install vsftpd)")
    root = write_tree(tmp_path / "root", {"pub/x": b"x"})
    (root / "empty").mkdir()
    async with running(start_vsftpd, root, tmp_path / "vsftpd") as netloc:
        lines, options = transcript()
        listing = await resolvers.fetch(f"ftp://{netloc}/empty/", options)
        assert [e.name for e in listing] == []
        sent = [line for line in lines if line.startswith("> ")]
        assert "> LIST -a" in sent and "> LIST" not in sent
        assert sum(line.startswith(("> EPSV", "> PASV")) for line in sent) == 1
