"""The splice path (resolvers.net.Stream.splice_into, Resource.sink): a bulk body moved from
the socket to the consumer's file descriptor in the kernel — every byte, in order, counted;
an output that refuses spliced bytes still gets them all; the CLI's writers use it for a file
(``-o``) and for a redirected standard output, and the content is exact either way."""

from __future__ import annotations

import asyncio
import os
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from _ftphttp import ROOT
from helpers import run_omniurl

from omniurl import resolvers
from omniurl.resolvers.net import Stream, is_moved, moved, sink_usable
from omniurl.resolvers.options import Options
from omniurl.testservers import RunningServer
from omniurl.testservers.ftp import start_ftp
from omniurl.testservers.gopher import start as start_gopher
from omniurl.testservers.http import start_http

pytestmark = pytest.mark.skipif(not hasattr(os, "splice"), reason="splice(2) is Linux's")

DATA = os.urandom(3 << 20)  # 3 MiB: several bulk reads


async def _tcp_pair() -> tuple[socket.socket, socket.socket]:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        theirs = socket.create_connection(listener.getsockname())
        ours, _ = listener.accept()
    ours.setblocking(False)
    return ours, theirs


async def _send_all_then_close(sock: socket.socket, data: bytes) -> None:
    await asyncio.get_running_loop().sock_sendall(sock, data)
    sock.close()


async def _splice_all(stream: Stream, fd: int) -> list[int]:
    counts = []
    while stream.can_splice:
        n = await stream.splice_into(fd, 1 << 20, "the body")
        counts.append(n)
        if not n:
            break
    return counts


async def test_splice_into_moves_every_byte_to_a_file_in_order(tmp_path: Path) -> None:
    ours, theirs = await _tcp_pair()
    theirs.setblocking(False)
    target = tmp_path / "out.bin"
    stream = Stream(ours, Options(read_timeout=10))
    with target.open("wb") as out:
        sender = asyncio.ensure_future(_send_all_then_close(theirs, DATA))
        counts = await _splice_all(stream, out.fileno())
        await sender
    stream.close()
    assert target.read_bytes() == DATA
    assert counts[-1] == 0 and sum(counts) == len(DATA)
    assert all(0 < n <= 1 << 20 for n in counts[:-1])
    assert not stream.can_splice  # (at the end of the stream)


async def test_the_pipe_grows_to_a_bulk_read_only_once_a_splice_fills_it(tmp_path: Path) -> None:
    """A small body goes through the system's default pipe (no ``fcntl`` loaded for it); a
    bulk one fills it, and the pipe is then made one bulk read large (F_SETPIPE_SZ)."""
    import fcntl

    from omniurl.resolvers.net import BULK_READ

    sizes = {}
    for name, data in (("small", DATA[:4096]), ("bulk", DATA)):
        ours, theirs = await _tcp_pair()
        theirs.setblocking(False)
        target = tmp_path / f"{name}.bin"
        stream = Stream(ours, Options(read_timeout=10))
        with target.open("wb") as out:
            sender = asyncio.ensure_future(_send_all_then_close(theirs, data))
            await _splice_all(stream, out.fileno())
            await sender
        assert stream._pipe is not None
        sizes[name] = fcntl.fcntl(stream._pipe[1], fcntl.F_GETPIPE_SZ)
        stream.close()
        assert target.read_bytes() == data
    max_size = int(Path("/proc/sys/fs/pipe-max-size").read_text())
    assert sizes == {"small": 1 << 16, "bulk": min(BULK_READ, max_size)}


async def test_an_output_that_refuses_splice_gets_the_bytes_written(tmp_path: Path) -> None:
    """splice(2) refuses a file opened for appending (EINVAL): the bytes already in the pipe
    are written to it, and from then on the stream is read (``can_splice`` false)."""
    ours, theirs = await _tcp_pair()
    theirs.setblocking(False)
    target = tmp_path / "append.bin"
    target.write_bytes(b"kept:")
    stream = Stream(ours, Options(read_timeout=10))
    fd = os.open(target, os.O_WRONLY | os.O_APPEND)
    try:
        sender = asyncio.ensure_future(_send_all_then_close(theirs, DATA))
        first = await stream.splice_into(fd, 1 << 20, "the body")
        assert first > 0 and not stream.can_splice
        buffer = memoryview(bytearray(1 << 20))
        while n := await stream.fill_into(buffer, "the body"):
            os.write(fd, buffer[:n])
        await sender
    finally:
        os.close(fd)
        stream.close()
    assert target.read_bytes() == b"kept:" + DATA


def test_moved_chunks_stand_for_a_length_and_are_told_apart() -> None:
    chunk = moved(4096)
    assert len(chunk) == 4096 and is_moved(chunk)
    assert not is_moved(memoryview(bytes(4096))) and not is_moved(bytes(4096))


def test_which_outputs_take_spliced_bytes(tmp_path: Path) -> None:
    with (tmp_path / "f").open("wb") as f:
        assert sink_usable(f.fileno())
    r, w = os.pipe()
    try:
        assert sink_usable(w)
    finally:
        os.close(r)
        os.close(w)
    with open(os.devnull, "wb") as null:
        assert sink_usable(null.fileno())
    primary, secondary = os.openpty()
    try:
        assert not sink_usable(secondary)  # (a terminal: written, never spliced)
    finally:
        os.close(primary)
        os.close(secondary)


@pytest_asyncio.fixture
async def servers(tmp_path: Path) -> AsyncIterator[dict[str, str]]:
    srv = tmp_path / "srv"
    (srv / "pub").mkdir(parents=True)
    (srv / "pub" / "big.bin").write_bytes(DATA)
    ftp = await start_ftp(srv)
    web = await start_http(srv)
    gopher: RunningServer = await start_gopher(srv)
    try:
        yield {
            "ftp": f"ftp://{ftp.netloc}/pub/big.bin",
            "http": f"http://{web.netloc}/pub/big.bin",
            "gopher": f"gopher://{gopher.netloc}/9/pub/big.bin",
        }
    finally:
        for server in (gopher, web, ftp):
            await server.close()


@pytest.mark.parametrize("scheme", ["ftp", "http", "gopher"])
async def test_each_executor_splices_into_the_sink(
    servers: dict[str, str], scheme: str, tmp_path: Path
) -> None:
    """A consumer that set ``sink`` gets chunks standing for the bytes moved (after any
    bytes that came with the reply's head), and the descriptor holds the exact content."""
    target = tmp_path / "sink.bin"
    with target.open("wb") as out:
        async with await resolvers.resolve(servers[scheme], Options()) as resource:
            resource.views_ok = True
            resource.sink = out.fileno()
            kinds = []
            async for chunk in resource:
                kinds.append(is_moved(chunk))
                if not is_moved(chunk):
                    out.write(chunk)
                    out.flush()
            assert resource.bytes_read == len(DATA)
    assert target.read_bytes() == DATA
    assert kinds.count(True) >= 2 and kinds[-1] is True


@pytest.mark.parametrize("scheme", ["ftp", "http", "gopher"])
@pytest.mark.parametrize("splice", [True, False], ids=["spliced", "read"])
async def test_get_writes_the_exact_content_to_a_file_and_to_stdout(
    servers: dict[str, str], scheme: str, splice: bool, tmp_path: Path
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env.pop("OMNIURL_NO_SPLICE", None)
    env["HOME"] = str(tmp_path)
    if not splice:
        env["OMNIURL_NO_SPLICE"] = "1"
    target = tmp_path / "o.bin"
    status, out, err = await run_omniurl("get", "-o", str(target), servers[scheme], env=env)
    assert (status, out, err) == (0, b"", b"")
    assert target.read_bytes() == DATA
    # standard output redirected to a file (what `omniurl get URL > file` gives the command)
    redirected = tmp_path / "stdout.bin"
    with redirected.open("wb") as stdout:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "omniurl", "get", servers[scheme],
            stdin=asyncio.subprocess.DEVNULL, stdout=stdout, stderr=asyncio.subprocess.PIPE,
            env=env, cwd=ROOT,
        )  # fmt: skip
        _, err = await asyncio.wait_for(proc.communicate(), 60)
    assert (proc.returncode, err) == (0, b"")
    assert redirected.read_bytes() == DATA


async def test_an_ftp_file_spliced_to_its_end_makes_no_read_buffer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once a splice met the end of the data connection, nothing is left to read: the FTP
    data channel ends there, without the 1 MiB buffer of the read path (zeroed for a read
    of ``b""``: a small file's get paid for it)."""
    from omniurl.resolvers.ftp import executor

    made: list[int] = []

    def tracked(size: int) -> bytearray:
        made.append(size)
        return bytearray(size)

    monkeypatch.setattr(executor, "bytearray", tracked, raising=False)
    ours, theirs = await _tcp_pair()
    theirs.setblocking(False)
    target = tmp_path / "out.bin"
    channel = executor.DataChannel(Stream(ours, Options(read_timeout=10)))
    with target.open("wb") as out:
        sender = asyncio.ensure_future(_send_all_then_close(theirs, DATA[:4096]))
        chunks = [c async for c in channel.content("the file", lambda: True, out.fileno)]
        await sender
    channel.close()
    assert target.read_bytes() == DATA[:4096] and all(is_moved(c) for c in chunks)
    assert sum(len(c) for c in chunks) == 4096
    assert made == []
    # the read path, where no splice can be made, still reads every byte
    ours, theirs = await _tcp_pair()
    theirs.setblocking(False)
    channel = executor.DataChannel(Stream(ours, Options(read_timeout=10)))
    sender = asyncio.ensure_future(_send_all_then_close(theirs, DATA[:4096]))
    got = b"".join([bytes(c) async for c in channel.content("the file", lambda: True)])
    await sender
    channel.close()
    assert got == DATA[:4096] and made == [executor.net.BULK_READ]
