"""file: URLs (§3.10): this machine only, streamed reads, listings with child URLs."""

from __future__ import annotations

import asyncio
import os
import socket
from pathlib import Path

import pytest
from _ftphttp import OPTS

from omniurl import resolvers
from omniurl.resolvers.errors import (
    DelimiterRefused,
    NotFound,
    PlanError,
    ReplyError,
    SchemeRefused,
)
from omniurl.resolvers.policy import STRICT


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "a b.txt").write_bytes(b"spaced\n")
    (tmp_path / "dir" / "sub").mkdir()
    (tmp_path / "big.bin").write_bytes(b"x" * 300_000)
    return tmp_path


@pytest.mark.parametrize("host", ["", "localhost", "LOCALHOST", socket.gethostname()])
async def test_local_hosts_read_the_file(files: Path, host: str) -> None:
    async with await resolvers.resolve(f"file://{host}{files}/big.bin", OPTS) as resource:
        assert resource.size == 300_000
        chunks = [c async for c in resource]
    assert b"".join(chunks) == b"x" * 300_000
    assert len(chunks) > 1


async def test_percent_encoded_path_is_decoded(files: Path) -> None:
    async with await resolvers.resolve(f"file://{files}/dir/a%20b.txt", OPTS) as resource:
        assert resource.media_type == "text/plain"
        assert await resource.read() == b"spaced\n"


async def test_directory_is_a_listing_with_child_urls(files: Path) -> None:
    async with await resolvers.resolve(f"file://{files}/dir/", OPTS) as resource:
        assert resource.kind == "listing"
        got = [(e.name, e.kind, e.url) for e in resource.entries]
    assert got == [
        ("a b.txt", "file", f"file://{files}/dir/a%20b.txt"),
        ("sub", "directory", f"file://{files}/dir/sub/"),
    ]


def test_another_host_is_a_clear_plan_error() -> None:
    with pytest.raises(PlanError) as info:
        resolvers.plan("file://elsewhere.example/etc/passwd", OPTS)
    assert info.value.component == "host"
    assert "elsewhere.example" in str(info.value)


async def test_missing_file_is_not_found(files: Path) -> None:
    with pytest.raises(NotFound) as info:
        await resolvers.resolve(f"file://{files}/nope", OPTS)
    assert info.value.component == "path"


def test_strict_policy_refuses_file_urls(files: Path) -> None:
    with pytest.raises(SchemeRefused):
        resolvers.check(f"file://{files}/big.bin", OPTS.with_(policy=STRICT))


def test_plan_has_no_transport() -> None:
    out = resolvers.plan("file:///etc/hosts", OPTS).to_json()
    assert out == {
        "url": "file:///etc/hosts",
        "scheme": "file",
        "host": None,
        "port": None,
        "transport": None,
        "steps": ["open /etc/hosts"],
        "when": [None],
    }


def test_nul_in_the_path_is_refused_before_anything_is_opened() -> None:
    """A path name cannot hold NUL (the system call would cut it there); %00 used to reach
    os.stat and come out as a bare ValueError."""
    with pytest.raises(DelimiterRefused) as info:
        resolvers.check("file:///etc/hosts%00.txt", OPTS)
    assert info.value.component == "path"
    assert info.value.octet == 0


@pytest.mark.skipif(not os.path.exists("/proc/self/mem"), reason="needs Linux /proc")
async def test_a_read_error_is_a_typed_error_naming_the_path() -> None:
    """/proc/self/mem opens but its first read fails with EIO: a typed error, not OSError."""
    async with await resolvers.resolve("file:///proc/self/mem", OPTS) as resource:
        with pytest.raises(ReplyError) as info:
            await resource.read()
    assert info.value.component == "path"


async def test_a_named_pipe_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    """Opening a FIFO blocks (in a thread nobody can cancel) until a writer comes: refused."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(ReplyError) as info:
        await asyncio.wait_for(resolvers.resolve(f"file://{fifo}", OPTS), 5)
    assert info.value.component == "path"
    assert "pipe" in info.value.message


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pty")
async def test_a_terminal_device_is_refused_without_blocking() -> None:
    """file:///dev/pts/N would block on a read nobody can cancel (and keep Ctrl-C from
    ending the process): only regular files are read."""
    master, slave = os.openpty()
    try:
        with pytest.raises(ReplyError) as info:
            await asyncio.wait_for(resolvers.resolve(f"file://{os.ttyname(slave)}", OPTS), 5)
    finally:
        os.close(master)
        os.close(slave)
    assert info.value.component == "path"
    assert "a character device, not a regular file" in info.value.message
