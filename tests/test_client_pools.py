"""The client's shared connections never carry one call's options into another's, and stay
bounded under load.

A kept-alive HTTP connection was checked (address policy, ``--resolve`` mapping, TLS
verification) under the options of the call that opened it; a call with other options must
not ride it.  Many concurrent streams through one client must not wait on httpcore's default
of ten connections.  Kept FTP control connections are bounded in all, and one handed back
after the client closed is ended with ``QUIT``, not kept forever.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import ssl
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from _ftphttp import OPTS
from helpers import loopback_server

import omniurl
from omniurl.resolvers.policy import STRICT
from omniurl.testservers import RunningServer
from omniurl.testservers.ftp import start_ftp
from omniurl.testservers.http import start_http


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "hello.txt").write_bytes(b"hello\n")
    (tmp_path / "pub").mkdir()
    (tmp_path / "pub" / "one.txt").write_bytes(b"one\n")
    return tmp_path


@pytest_asyncio.fixture
async def web(root: Path) -> AsyncIterator[RunningServer]:
    server = await start_http(root)
    try:
        yield server
    finally:
        await server.close()


def requests_of(server: RunningServer) -> int:
    seen = server.info["requests"]
    assert isinstance(seen, list)
    return len(seen)


async def test_a_stricter_call_does_not_ride_a_connection_the_default_policy_opened(
    web: RunningServer,
) -> None:
    mapping = {("rebind.test", None): ("127.0.0.1", web.port)}
    async with omniurl.AsyncClient(OPTS.with_(resolve=mapping)) as client:
        assert await client.get("http://rebind.test/hello.txt") == b"hello\n"
        strict = OPTS.with_(policy=STRICT, resolve=mapping)
        with pytest.raises(omniurl.AddressRefused):
            await client.get("http://rebind.test/hello.txt", options=strict)
    assert requests_of(web) == 1  # the strict call sent nothing


async def test_each_calls_resolve_mapping_reaches_its_own_server(root: Path) -> None:
    first, second = await start_http(root), await start_http(root)
    try:
        async with omniurl.AsyncClient(OPTS) as client:
            for server in (first, second, first):
                options = OPTS.with_(resolve={("a.test", None): ("127.0.0.1", server.port)})
                assert await client.get("http://a.test/hello.txt", options=options) == b"hello\n"
        assert (requests_of(first), requests_of(second)) == (2, 1)
    finally:
        await first.close()
        await second.close()


async def test_one_options_object_with_its_mapping_changed_in_place_reaches_the_new_server(
    root: Path,
) -> None:
    # The pool remembers the last options' key (resolvers/http/pool.py): the same object
    # again must still be keyed by what its --resolve mapping holds now, not what it held.
    first, second = await start_http(root), await start_http(root)
    try:
        mapping = {("a.test", None): ("127.0.0.1", first.port)}
        options = OPTS.with_(resolve=mapping)
        async with omniurl.AsyncClient(options) as client:
            assert await client.get("http://a.test/hello.txt") == b"hello\n"
            mapping[("a.test", None)] = ("127.0.0.1", second.port)
            assert await client.get("http://a.test/hello.txt") == b"hello\n"
            assert await client.get("http://a.test/hello.txt") == b"hello\n"
        assert (requests_of(first), requests_of(second)) == (1, 2)
    finally:
        await first.close()
        await second.close()


@pytest.fixture
def self_signed(tmp_path: Path) -> ssl.SSLContext:
    """A server context with a fresh self-signed certificate for 127.0.0.1 (openssl CLI)."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl not installed")
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    return context


async def test_a_verifying_call_does_not_ride_an_unverified_tls_connection(
    root: Path, self_signed: ssl.SSLContext
) -> None:
    server = await start_http(root, tls=self_signed)
    try:
        url = f"https://{server.netloc}/hello.txt"
        async with omniurl.AsyncClient(OPTS) as client:
            insecure = OPTS.with_(verify_tls=False)
            assert await client.get(url, options=insecure) == b"hello\n"
            with pytest.raises(omniurl.ConnectError, match="certificate"):
                await client.get(url)
        assert requests_of(server) == 1
    finally:
        await server.close()


async def test_many_concurrent_streams_do_not_wait_for_a_pool_slot(web: RunningServer) -> None:
    """httpcore's pool holds 10 connections unless told otherwise; a client (and its
    fetch_many, 50 at once by default) must not make the eleventh wait and time out."""
    options = OPTS.with_(connect_timeout=1)
    async with omniurl.AsyncClient(options) as client, contextlib.AsyncExitStack() as stack:
        url = f"http://{web.netloc}/hello.txt"
        streams = await asyncio.gather(
            *(stack.enter_async_context(client.stream(url)) for _ in range(16))
        )
        assert [await r.read() for r in streams] == [b"hello\n"] * 16
    assert requests_of(web) == 16


async def test_the_http_pool_is_bounded_by_max_connections(web: RunningServer) -> None:
    url = f"http://{web.netloc}/hello.txt"
    client = omniurl.AsyncClient(OPTS, max_connections=2, pool_timeout=0.5)
    async with client, client.stream(url), client.stream(url):
        with pytest.raises(omniurl.PoolTimeout):  # the third waits for a slot, bounded
            async with client.stream(url):
                pass
    assert requests_of(web) == 2


# -- FTP ------------------------------------------------------------------------------------


@pytest_asyncio.fixture
async def ftp(root: Path) -> AsyncIterator[RunningServer]:
    server = await start_ftp(root)
    try:
        yield server
    finally:
        await server.close()


def commands(server: RunningServer) -> list[bytes]:
    seen = server.info["commands"]
    assert isinstance(seen, list)
    return list(seen)


async def wait_for_quits(server: RunningServer, n: int) -> None:
    async with asyncio.timeout(5):
        while commands(server).count(b"QUIT") < n:
            await asyncio.sleep(0.01)


async def test_kept_ftp_connections_are_bounded_in_all(ftp: RunningServer) -> None:
    async with omniurl.AsyncClient(OPTS, max_idle_ftp=1) as client:
        assert await client.get(f"ftp://{ftp.netloc}/hello.txt") == b"hello\n"  # kept
        # over the bound: the oldest kept one is ended, the newest kept
        assert await client.get(f"ftp://{ftp.netloc}/pub/one.txt") == b"one\n"
        assert commands(ftp)[-1] == b"QUIT"
        assert await client.get(f"ftp://{ftp.netloc}/pub/one.txt") == b"one\n"  # reused
        assert commands(ftp).count(b"USER anonymous") == 2
        assert await client.get(f"ftp://{ftp.netloc}/hello.txt") == b"hello\n"  # ended: anew
        assert commands(ftp).count(b"USER anonymous") == 3
    await wait_for_quits(ftp, 3)  # the kept one, at close


async def test_a_connection_handed_back_after_close_is_ended(ftp: RunningServer) -> None:
    client = omniurl.AsyncClient(OPTS)
    resource = await client.stream(f"ftp://{ftp.netloc}/hello.txt").__aenter__()
    await client.aclose()  # while a transfer is still open
    assert await resource.read() == b"hello\n"  # it completes, and goes back to the sessions
    await resource.aclose()
    await wait_for_quits(ftp, 1)  # ...which were closed: QUIT, not kept forever
    assert commands(ftp).count(b"QUIT") == 1


async def test_each_calls_resolve_mapping_reaches_its_own_ftp_server(root: Path) -> None:
    first, second = await start_ftp(root), await start_ftp(root)
    try:
        async with omniurl.AsyncClient(OPTS) as client:
            for server in (first, second, first):
                options = OPTS.with_(resolve={("a.test", None): ("127.0.0.1", server.port)})
                got = await client.get("ftp://a.test/hello.txt", options=options)
                assert got == b"hello\n"
        # the third reused the first server's kept connection, never the second's
        assert commands(first).count(b"RETR hello.txt") == 2
        assert commands(first).count(b"USER anonymous") == 1
        assert commands(second).count(b"RETR hello.txt") == 1
    finally:
        await first.close()
        await second.close()


async def test_a_stricter_call_does_not_ride_a_kept_ftp_connection(ftp: RunningServer) -> None:
    mapping = {("rebind.test", None): ("127.0.0.1", ftp.port)}
    async with omniurl.AsyncClient(OPTS.with_(resolve=mapping)) as client:
        assert await client.get("ftp://rebind.test/hello.txt") == b"hello\n"
        sent = len(commands(ftp))
        strict = OPTS.with_(policy=STRICT, resolve=mapping)
        with pytest.raises(omniurl.AddressRefused):
            await client.get("ftp://rebind.test/hello.txt", options=strict)
        assert len(commands(ftp)) == sent  # nothing was sent for the strict call


async def test_a_closed_clients_pool_refuses_with_a_typed_error() -> None:
    from omniurl.resolvers.http.pool import HTTPPool

    pool = HTTPPool()
    await pool.aclose()
    with pytest.raises(omniurl.ClientClosed) as info:
        pool.transport(OPTS, "http", "127.0.0.1")
    assert isinstance(info.value, omniurl.OmniurlError) and isinstance(info.value, RuntimeError)


async def test_a_concurrent_batch_through_one_client_shares_bounded_connections(
    web: RunningServer, ftp: RunningServer
) -> None:
    urls = [f"http://{web.netloc}/hello.txt", f"ftp://{ftp.netloc}/pub/one.txt"] * 30
    async with omniurl.AsyncClient(OPTS, max_idle_ftp=3) as client:
        results = [r async for r in client.fetch_many(urls, concurrency=20, per_host=8)]
    assert sorted(r.index for r in results) == list(range(60))
    assert all(r.ok for r in results), [r.error_message for r in results if not r.ok]
    assert requests_of(web) == 30
    assert 1 <= web.info["connections"]["opened"] <= 8  # per_host: kept-alive and reused
    users = commands(ftp).count(b"USER anonymous")
    assert 1 <= users < 30  # control connections were reused (§3.2.5: same directory)
    assert commands(ftp).count(b"RETR one.txt") == 30


async def test_gets_to_one_ftp_server_keep_to_a_per_host_limit(root: Path) -> None:
    """100 concurrent gets to an FTP server that takes 10 connections at once (421 past
    them, as vsftpd's max_per_ip): the client's per-host limit (6) keeps every one within."""
    server = await start_ftp(root, max_connections=10)
    try:
        async with omniurl.AsyncClient(OPTS) as client:
            url = f"ftp://{server.netloc}/hello.txt"
            results = await asyncio.gather(
                *(client.get(url) for _ in range(100)), return_exceptions=True
            )
        assert [r for r in results if r != b"hello\n"] == []
        assert commands(server).count(b"RETR hello.txt") == 100
    finally:
        await server.close()


async def test_the_per_host_limit_is_the_clients_to_choose(web: RunningServer) -> None:
    async with omniurl.AsyncClient(OPTS, max_per_host=2) as client:
        url = f"http://{web.netloc}/hello.txt"
        gets = [asyncio.create_task(client.get(url)) for _ in range(5)]
        await asyncio.sleep(0)  # every get has asked for its turn
        key = ("127.0.0.1", web.port)
        assert client._hosts.busy(key) == 5  # two hold a slot, three wait
        assert await asyncio.gather(*gets) == [b"hello\n"] * 5
        assert client._hosts._slots == {}  # the table holds only the hosts in flight
    with pytest.raises(ValueError):
        omniurl.AsyncClient(OPTS, max_per_host=0)


async def test_a_304_or_204_left_unread_hands_its_connection_back() -> None:
    """A 304 or 204 has no content (RFC 9110 §15.3.5, §15.4.5): its reply ends with its head,
    so a caller that closes it without reading the (empty) body does not cost a connection.
    Six such replies on one kept connection; the server sees one."""
    connections: list[int] = []
    statuses = [b"304 Not Modified", b"204 No Content"] * 3

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(1)
        try:
            while statuses:
                await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
                writer.write(b"HTTP/1.1 " + statuses.pop(0) + b'\r\nETag: "x"\r\n\r\n')
                await writer.drain()
        except (OSError, asyncio.IncompleteReadError, TimeoutError):
            pass
        finally:
            writer.close()

    async with loopback_server(serve) as port, omniurl.AsyncClient(OPTS) as client:
        seen = []
        for name in "abcdef":
            async with client.stream(f"http://127.0.0.1:{port}/{name}") as resource:
                seen.append(resource.status)  # (the body never read)
    assert seen == [304, 204] * 3
    assert len(connections) == 1


_TWO_LOOPS = r"""
import asyncio, sys, threading
from pathlib import Path
import omniurl
from omniurl.testservers.ftp import start_ftp
from omniurl.testservers.http import start_http

root = Path(sys.argv[1])
servers = asyncio.new_event_loop()
threading.Thread(target=servers.run_forever, daemon=True).start()
ftp = asyncio.run_coroutine_threadsafe(start_ftp(root), servers).result(10)
web = asyncio.run_coroutine_threadsafe(start_http(root), servers).result(10)
urls = [f"ftp://127.0.0.1:{ftp.port}/pub/one.txt", f"http://127.0.0.1:{web.port}/hello.txt"]
client = omniurl.AsyncClient()

async def gets():
    return [await asyncio.wait_for(client.get(url), 10) for url in urls]

for turn in range(3):  # each asyncio.run a new loop; the kept connections are the last one's
    print(turn, asyncio.run(gets()))

async def close():
    await client.aclose()

asyncio.run(close())
print("closed")
"""


def test_a_client_used_by_one_asyncio_run_after_another(root: Path) -> None:
    """A client kept across ``asyncio.run`` calls: a connection kept by an ended loop is not
    reused (its waits belong to that loop) but closed, and ``aclose`` in yet another loop
    is clean.  Before, the next run's FTP get (or ``aclose``'s QUIT) failed with a bare
    ``RuntimeError: Event loop is closed``."""
    from helpers import run_script

    proc = run_script(_TWO_LOOPS, str(root))
    assert proc.stdout.splitlines() == [
        *(f"{turn} [b'one\\n', b'hello\\n']" for turn in range(3)),
        "closed",
    ]
    assert "Traceback" not in proc.stderr and "Event loop is closed" not in proc.stderr
