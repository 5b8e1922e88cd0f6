"""The public surface and the clients: ``__all__`` kept complete, ``async with resolve(url)``,
shared HTTP and FTP connections (counted on the servers), closing closes, the synchronous
facade inside a running loop, and ``get`` of a large file in about its own size of memory.
"""

from __future__ import annotations

import asyncio
import gc
import inspect
import os
import re
import subprocess
import sys
import types
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import ROOT, run_script

import omniurl
from omniurl.resolvers import errors as resolver_errors
from omniurl.schemes import errors as scheme_errors
from omniurl.testservers.ftp_server import start_ftp
from omniurl.testservers.http import start_http

OPTS = omniurl.Options(email="tester@example.org", connect_timeout=5, read_timeout=5)


def test_all_lists_every_public_name_and_nothing_else() -> None:
    """As httpx's exported-members test: what ``dir(omniurl)`` shows publicly is exactly
    ``__all__`` (modules and the version aside), and every name resolves."""
    public = {
        name
        for name in dir(omniurl)
        if not name.startswith("_")
        and not isinstance(getattr(omniurl, name), types.ModuleType)
        and name != "annotations"  # ``from __future__ import annotations``, a directive
    }
    assert public == set(omniurl.__all__)
    assert omniurl.__all__ == sorted(omniurl.__all__, key=lambda n: (not n.isupper(), n))


def test_every_error_class_is_exported() -> None:
    for module in (scheme_errors, resolver_errors):
        for name, value in vars(module).items():
            if inspect.isclass(value) and issubclass(value, omniurl.OmniurlError):
                assert name in omniurl.__all__, name
                assert getattr(omniurl, name) is value


def test_the_everyday_names_are_there() -> None:
    for name in ("parse", "plan", "resolve", "get", "Options", "Resource", "Entry", "Plan",
                 "AsyncClient", "Client", "fetch_many", "FetchResult", "Listing"):  # fmt: skip
        assert name in omniurl.__all__


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "pub").mkdir()
    for i in range(3):
        (tmp_path / "pub" / f"f{i}.bin").write_bytes(bytes([i]) * (1000 + i))
    return tmp_path


async def test_resolve_is_an_async_context_manager_and_an_awaitable(tree: Path) -> None:
    web = await start_http(tree)
    try:
        url = f"http://{web.netloc}/pub/f1.bin"
        async with omniurl.resolve(url, OPTS) as resource:
            assert await resource.read() == b"\x01" * 1001
        async with await omniurl.resolve(url, OPTS) as resource:
            assert resource.size == 1001
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            omniurl.resolve(url, OPTS)  # never awaited: nothing started, nothing to warn
            gc.collect()
    finally:
        await web.close()


async def test_one_http_connection_serves_a_clients_sequential_gets(tree: Path) -> None:
    web = await start_http(tree)
    try:
        async with omniurl.AsyncClient(OPTS) as client:
            for i in range(3):
                assert await client.get(f"http://{web.netloc}/pub/f{i}.bin") == bytes([i]) * (
                    1000 + i
                )
            async with client.stream(f"http://{web.netloc}/pub/f0.bin") as resource:
                assert len(await resource.read()) == 1000
            assert web.info["connections"] == {"opened": 1, "closed": 0}
        for _ in range(100):  # closing the client closes the connection (bounded wait)
            if web.info["connections"]["closed"] == 1:
                break
            await asyncio.sleep(0.01)
        assert web.info["connections"] == {"opened": 1, "closed": 1}
        # Without a client every resolve opens (and closes) its own.
        await omniurl.fetch(f"http://{web.netloc}/pub/f0.bin", OPTS)
        assert web.info["connections"]["opened"] == 2
    finally:
        await web.close()


async def test_ftp_control_connection_is_reused_for_the_same_directory(tree: Path) -> None:
    ftp = await start_ftp(tree)
    try:
        async with omniurl.AsyncClient(OPTS) as client:
            for i in range(2):
                data = await client.get(f"ftp://{ftp.netloc}/pub/f{i}.bin")
                assert data == bytes([i]) * (1000 + i)
            commands = list(ftp.info["commands"])
        after_close = list(ftp.info["commands"])
    finally:
        await ftp.close()
    # §3.2.5: same server, login and CWD sequence — one login, one CWD, two transfers.
    assert [c for c in commands if c.startswith((b"USER", b"CWD", b"RETR"))] == [
        b"USER anonymous", b"CWD pub", b"RETR f0.bin", b"RETR f1.bin",
    ]  # fmt: skip
    assert after_close[-1] == b"QUIT"  # the kept connection is let go on close


async def test_a_closed_client_refuses_work(tree: Path) -> None:
    client = omniurl.AsyncClient(OPTS)
    await client.aclose()
    await client.aclose()  # twice is fine
    with pytest.raises(omniurl.ClientClosed):
        await client.get("http://127.0.0.1:9/x")


async def test_client_fetch_many_shares_the_connection(tree: Path) -> None:
    web = await start_http(tree)
    try:
        urls = [f"http://{web.netloc}/pub/f{i % 3}.bin" for i in range(9)]
        async with omniurl.AsyncClient(OPTS) as client:
            results = [r async for r in client.fetch_many(urls, concurrency=1)]
        assert sorted(r.index for r in results) == list(range(9))
        assert all(r.ok for r in results)
        assert web.info["connections"]["opened"] == 1
    finally:
        await web.close()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """``omniurl serve http`` in another process (a synchronous call blocks this thread's
    loop, so the server must not run on it); yields its netloc and root."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "omniurl", "serve", "http", "--root", str(tmp_path)],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    try:
        assert proc.stderr is not None
        import select

        ready, _w, _x = select.select([proc.stderr], [], [], 30)  # bounded wait
        assert ready, "omniurl serve did not start"
        m = re.search(rb"127\.0\.0\.1:\d+", proc.stderr.readline())
        assert m is not None
        yield m.group(0).decode(), tmp_path
    finally:
        proc.terminate()
        proc.wait(10)
        if proc.stderr is not None:
            proc.stderr.close()


async def test_sync_get_and_client_work_inside_a_running_loop(
    served: tuple[str, Path],
) -> None:
    netloc, root = served
    (root / "x.txt").write_bytes(b"from a sync helper\n")
    asyncio.get_running_loop()  # this test runs inside a loop, as a notebook cell does
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert omniurl.get(f"http://{netloc}/x.txt", OPTS) == b"from a sync helper\n"
        with omniurl.Client(OPTS) as client:
            assert client.get(f"http://{netloc}/x.txt") == b"from a sync helper\n"
            assert client.plan(f"http://{netloc}/x.txt").host == "127.0.0.1"
        gc.collect()


def test_sync_client_outside_a_loop(served: tuple[str, Path]) -> None:
    netloc, root = served
    (root / "y.txt").write_bytes(b"plain script\n")
    client = omniurl.Client(OPTS)
    try:
        assert client.get(f"http://{netloc}/y.txt") == b"plain script\n"
        results = client.fetch_many([f"http://{netloc}/y.txt"] * 3)
        assert [r.ok for r in results] == [True, True, True]
    finally:
        client.close()
    client.close()
    with pytest.raises(omniurl.ClientClosed):
        client.get(f"http://{netloc}/y.txt")


MEASURE = """
import sys, tracemalloc
import omniurl
options = omniurl.Options(read_timeout=30)
tracemalloc.start()
data = omniurl.get(sys.argv[1], options)
print(len(data), tracemalloc.get_traced_memory()[1])
"""


def test_get_of_a_large_file_needs_about_its_own_size(served: tuple[str, Path]) -> None:
    netloc, root = served
    size = 256 * 1024 * 1024
    with open(root / "big.bin", "wb") as fh:
        fh.truncate(size)  # sparse: cheap to make, 256 MiB on the wire
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, f"http://{netloc}/big.bin"],
        capture_output=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    length, peak = map(int, done.stdout.split())
    assert length == size
    assert peak / size <= 1.5, f"peak {peak / size:.2f}× the file's size"


_INTERRUPTED_CLIENT = r"""
import asyncio, os, signal, socket, threading, time
from omniurl.client import Client

listener = socket.create_server(("127.0.0.1", 0))
served = []

def serve():
    while True:
        conn, _ = listener.accept()
        served.append(conn)
        head = conn.recv(65536)
        if b" /slow " in head:  # a body that stalls after 1000 of its 100000 bytes
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + b"s" * 1000)
        else:
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello")
            conn.close()

threading.Thread(target=serve, daemon=True).start()
base = "http://127.0.0.1:%d" % listener.getsockname()[1]
client = Client()
threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
try:
    client.get(base + "/slow")
except KeyboardInterrupt:
    print("interrupted")
print("running", len(asyncio.all_tasks(client._loop)))
print("after", client.get(base + "/x"))
client.close()
"""


def test_ctrl_c_in_the_sync_client_cancels_its_get() -> None:
    """A KeyboardInterrupt in ``Client.get`` cancels the get on the client's loop and waits
    for it to close its connection; before, the get went on downloading with nobody to read
    it, and ``close()`` then printed "Task was destroyed but it is pending!"."""
    proc = run_script(_INTERRUPTED_CLIENT)
    assert proc.stdout.splitlines() == ["interrupted", "running 0", "after b'hello'"]
    assert "Task was destroyed" not in proc.stderr
    assert "already running" not in proc.stderr


async def test_a_cancelled_read_of_a_stream_never_ends_as_complete() -> None:
    """``asyncio.wait_for`` around one read of ``client.stream``'s body: a later iteration
    (or ``read()``) is a typed ``ConnectionClosed``; before, it ended at once, 1,000 of
    100,000 bytes looking like the whole content."""
    from helpers import loopback_server

    stop = asyncio.Event()

    async def stalls(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + b"s" * 1000)
        await writer.drain()
        await stop.wait()
        writer.close()

    async with loopback_server(stalls) as port, omniurl.AsyncClient() as client:
        try:
            async with client.stream(f"http://127.0.0.1:{port}/slow") as resource:
                chunks = resource.__aiter__()
                assert await chunks.__anext__() == b"s" * 1000
                with pytest.raises(TimeoutError):
                    await asyncio.wait_for(chunks.__anext__(), 0.3)
                with pytest.raises(resolver_errors.ConnectionClosed, match="after 1000 bytes"):
                    async for _chunk in resource:
                        pass
                with pytest.raises(resolver_errors.ConnectionClosed, match="cancelled"):
                    await resource.read()
        finally:
            stop.set()
