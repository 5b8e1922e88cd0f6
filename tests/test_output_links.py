"""``-o PATH`` where PATH is a symbolic link: curl and wget write through it (the link stays
a link, the file it points to gets the content); omniurl's atomic rename replaced the link
itself with a regular file — and ``-o /dev/stdout > FILE`` as root replaced /dev/stdout
(a link to /proc/self/fd/1) with a file in /dev.  A link to an open descriptor is written
into, as a device is (docs/saving.md).  Never /dev/stdout itself here: a link of the test's
own to /proc/self/fd/1 stands for it."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from _ftphttp import NGINX, run_cli, running, start_nginx, write_tree

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "pyproject.toml"
URL = f"file://{SOURCE}"


def get(*args: str, cwd: Path, **kw: object) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env["PYTHONPATH"] = str(ROOT)
    kw.setdefault("stdout", subprocess.PIPE)
    return subprocess.run(  # type: ignore[call-overload,no-any-return]
        [sys.executable, "-m", "omniurl", "get", "-s", "-S", *args], stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL, cwd=cwd, env=env, timeout=60, check=False, **kw,
    )  # fmt: skip


def test_a_link_stays_a_link_and_its_file_gets_the_content(tmp_path: Path) -> None:
    (tmp_path / "target.txt").write_bytes(b"old")
    (tmp_path / "target.txt").chmod(0o640)
    (tmp_path / "link").symlink_to("target.txt")
    done = get("-o", "link", URL, cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, b"")
    assert os.readlink(tmp_path / "link") == "target.txt"
    assert (tmp_path / "target.txt").read_bytes() == SOURCE.read_bytes()
    assert stat.S_IMODE((tmp_path / "target.txt").stat().st_mode) == 0o640  # (its own)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "target.txt"]


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_as_curl_writes_through_a_link(tmp_path: Path) -> None:
    for tool in ("omniurl", "curl"):
        folder = tmp_path / tool
        (folder / "sub").mkdir(parents=True)
        (folder / "link").symlink_to("sub/new.txt")  # dangling: the file is made
        if tool == "curl":
            subprocess.run(["curl", "-s", "-o", "link", URL], cwd=folder, check=True, timeout=60)
        else:
            assert get("-o", "link", URL, cwd=folder).returncode == 0
    for tool in ("omniurl", "curl"):
        folder = tmp_path / tool
        assert (folder / "link").is_symlink(), tool
        assert (folder / "sub" / "new.txt").read_bytes() == SOURCE.read_bytes(), tool


def test_a_link_loop_is_a_write_error_and_stays(tmp_path: Path) -> None:
    (tmp_path / "loop").symlink_to("loop")
    done = get("-o", "loop", URL, cwd=tmp_path)
    assert (done.returncode, done.stderr) == (
        23,
        b"omniurl: cannot write loop: Too many levels of symbolic links\n",
    )
    assert os.readlink(tmp_path / "loop") == "loop"


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="no /proc here")
def test_a_link_to_standard_output_is_written_into_not_replaced(tmp_path: Path) -> None:
    """What ``/dev/stdout`` is: a link to ``/proc/self/fd/1`` — here on a file."""
    (tmp_path / "stdout").symlink_to("/proc/self/fd/1")
    with open(tmp_path / "captured", "wb") as captured:
        done = get("-o", "stdout", URL, cwd=tmp_path, stdout=captured)
    assert (done.returncode, done.stderr) == (0, b"")
    assert os.readlink(tmp_path / "stdout") == "/proc/self/fd/1"
    assert (tmp_path / "captured").read_bytes() == SOURCE.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["captured", "stdout"]


async def test_continue_at_through_a_link_continues_its_file(tmp_path: Path) -> None:
    """``-C - -o LINK`` against nginx: the link's file is continued (a Range from its
    size) and replaced; the link stays."""
    if not os.path.exists(NGINX):
        pytest.skip("nginx not installed (apt-get install nginx-light)")
    whole = os.urandom(300_000)
    root = write_tree(tmp_path / "root", {"big.bin": whole})
    out = tmp_path / "out"
    out.mkdir()
    (out / "target.bin").write_bytes(whole[:100_000])
    (out / "link").symlink_to("target.bin")
    async with running(start_nginx, root, tmp_path / "nginx") as netloc:
        status, _out, err = await run_cli(
            "get", "-v", "-C", "-", "-o", "link", f"http://{netloc}/big.bin", cwd=out
        )
    assert status == 0, err
    assert b"Range: bytes=100000-" in err
    assert os.readlink(out / "link") == "target.bin"
    assert (out / "target.bin").read_bytes() == whole
    assert sorted(p.name for p in out.iterdir()) == ["link", "target.bin"]


async def test_continue_at_into_a_fifo_a_device_or_a_descriptor_writes_into_it(
    tmp_path: Path,
) -> None:
    """``-C`` whose ``-o`` is a FIFO, a device or a link to an open descriptor: there is no
    file to continue, nor to replace — the content is written into it (``-C -``: whole;
    ``-C N``: from N, curl's reading).  Before, the part file was renamed over it: as root,
    ``-C - -o /dev/null`` made /dev/null a regular file.  (A device node of the test's own
    stands for /dev/null.)"""
    import asyncio
    import stat

    if not os.path.exists(NGINX):
        pytest.skip("nginx not installed (apt-get install nginx-light)")
    whole = os.urandom(50_000)
    root = write_tree(tmp_path / "root", {"big.bin": whole})
    out = tmp_path / "out"
    out.mkdir()
    (out / "stdout").symlink_to("/proc/self/fd/1")
    os.mkfifo(out / "fifo")
    device = os.geteuid() == 0
    if device:
        os.mknod(out / "null", 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # (/dev/null's)
    async with running(start_nginx, root, tmp_path / "nginx") as netloc:
        url = f"http://{netloc}/big.bin"
        for at, expected in (("-", whole), ("1000", whole[1000:])):
            with open(out / "captured", "wb") as captured:
                done = await asyncio.to_thread(
                    get, "-C", at, "-o", "stdout", url, cwd=out, stdout=captured
                )
            assert (done.returncode, done.stderr) == (0, b"")
            assert (out / "captured").read_bytes() == expected
        reader = await asyncio.to_thread(os.open, out / "fifo", os.O_RDONLY | os.O_NONBLOCK)
        try:
            done = await asyncio.to_thread(get, "-C", "-", "-o", "fifo", url, cwd=out)
            got = bytearray()
            while chunk := os.read(reader, 1 << 16):
                got += chunk
        finally:
            os.close(reader)
        assert (done.returncode, bytes(got)) == (0, whole)
        if device:
            done = await asyncio.to_thread(get, "-C", "-", "-o", "null", url, cwd=out)
            assert (done.returncode, done.stderr) == (0, b"")
    assert os.readlink(out / "stdout") == "/proc/self/fd/1"
    assert stat.S_ISFIFO((out / "fifo").stat().st_mode)
    if device:
        assert stat.S_ISCHR((out / "null").stat().st_mode)
    assert not [p.name for p in out.iterdir() if p.name.startswith(".")]  # no part left


def test_a_remote_name_replaces_a_link_never_writes_through_it(tmp_path: Path) -> None:
    """``-O``: the name is the URL's, not the user's; a link of that name is replaced by
    the file (a server, with ``-J``, must not reach where a link in the folder points)."""
    (tmp_path / "elsewhere.txt").write_bytes(b"keep")
    (tmp_path / "pyproject.toml").symlink_to("elsewhere.txt")
    done = get("-O", URL, cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, b"")
    assert not (tmp_path / "pyproject.toml").is_symlink()
    assert (tmp_path / "pyproject.toml").read_bytes() == SOURCE.read_bytes()
    assert (tmp_path / "elsewhere.txt").read_bytes() == b"keep"
