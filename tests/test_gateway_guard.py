"""The gateway's connection-level bounds (omniurl.gateway.guard) on a real uvicorn server on
loopback: a request head trickled line by line ends with 408 at the deadline (slowloris), and
one client address cannot hold more than its share of connections (429).  Raw sockets; every
wait bounded."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

pytest.importorskip("starlette", reason="the [gateway] extra is not installed")
uvicorn = pytest.importorskip("uvicorn", reason="the [gateway] extra is not installed")
pytest.importorskip("jinja2", reason="the [gateway] extra is not installed")

from omniurl.gateway import GatewayConfig, create_app, guard  # noqa: E402


@pytest_asyncio.fixture(params=["httptools", "h11"])
async def gateway(request: pytest.FixtureRequest) -> AsyncIterator[int]:
    """The gateway as ``omniurl serve gateway`` runs it, with short bounds for the test:
    on httptools (what the gateway extra installs) and on h11 (where httptools is absent)."""
    config = GatewayConfig(head_timeout=1.0, max_connections_per_client=4)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    if request.param == "httptools":
        pytest.importorskip("httptools", reason="httptools is not installed")
        assert guard.guarded_protocol(head_timeout=1.0, max_connections_per_client=4).__name__ == (
            "GuardedHttpToolsProtocol"
        )
        make = guard._httptools_protocol
    else:
        make = guard._h11_protocol
    http = make(config.head_timeout, config.max_connections_per_client)
    server = uvicorn.Server(
        uvicorn.Config(create_app(config), http=http, log_level="warning", lifespan="off")
    )
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        async with asyncio.timeout(10):
            while not server.started:
                await asyncio.sleep(0.02)
        yield sock.getsockname()[1]
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 10)
        sock.close()


async def _read_all(reader: asyncio.StreamReader, within: float) -> bytes:
    async with asyncio.timeout(within):
        return await reader.read()  # to EOF: the server closed


async def _index(port: int) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET / HTTP/1.1\r\nHost: gw\r\nConnection: close\r\n\r\n")
    try:
        return await _read_all(reader, 5)
    finally:
        writer.close()


async def test_a_trickled_request_head_ends_with_408_at_the_deadline(gateway: int) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", gateway)
    started = time.monotonic()
    writer.write(b"GET / HTTP/1.1\r\nHost: gw\r\n")

    async def trickle() -> None:
        for n in range(40):  # a header line every 0.2 s, never the blank line
            await asyncio.sleep(0.2)
            writer.write(b"X-Slow-%d: y\r\n" % n)

    trickling = asyncio.create_task(trickle())
    try:
        answer = await _read_all(reader, 5)
    finally:
        trickling.cancel()
        writer.close()
    elapsed = time.monotonic() - started
    assert answer.startswith(b"HTTP/1.1 408 Request Timeout\r\n")
    assert 0.9 <= elapsed < 3, elapsed
    # a connection that sends nothing at all is ended too, and the gateway still serves
    reader, writer = await asyncio.open_connection("127.0.0.1", gateway)
    assert (await _read_all(reader, 5)).startswith(b"HTTP/1.1 408")
    writer.close()
    assert (await _index(gateway)).startswith(b"HTTP/1.1 200 OK\r\n")


async def test_the_next_request_on_a_kept_connection_has_its_deadline_too(gateway: int) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", gateway)
    try:
        writer.write(b"GET /_/style.css HTTP/1.1\r\nHost: gw\r\n\r\n")
        async with asyncio.timeout(5):
            head = await reader.readuntil(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 200 OK\r\n")
            length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
            await reader.readexactly(length)
        writer.write(b"GET / HTTP/1.1\r\n")  # the next head, never finished
        assert (await _read_all(reader, 5)).startswith(b"HTTP/1.1 408")
    finally:
        writer.close()


async def test_one_address_holds_at_most_its_share_of_connections(gateway: int) -> None:
    held = [await asyncio.open_connection("127.0.0.1", gateway) for _ in range(4)]
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", gateway)
        answer = await _read_all(reader, 2)  # at once, not at the head deadline
        writer.close()
        assert answer.startswith(b"HTTP/1.1 429 Too Many Requests\r\n")
    finally:
        for _r, w in held:
            w.close()
    async with asyncio.timeout(5):  # their slots are given back as they close
        while True:
            answer = await _index(gateway)
            if not answer.startswith(b"HTTP/1.1 429"):
                break
            await asyncio.sleep(0.05)
    assert answer.startswith(b"HTTP/1.1 200 OK\r\n")


async def test_a_target_h11_refuses_is_refused_with_400_on_either_parser(gateway: int) -> None:
    """A byte outside visible ASCII in the request target (RFC 9112 §3.2): 400, nothing
    resolved — httptools alone would take it."""
    reader, writer = await asyncio.open_connection("127.0.0.1", gateway)
    writer.write(b"GET /gopher://127.0.0.1:1/0/\xe9t\xe9 HTTP/1.1\r\nHost: gw\r\n\r\n")
    try:
        answer = await _read_all(reader, 5)
    finally:
        writer.close()
    assert answer.startswith(b"HTTP/1.1 400 ")


async def test_an_absolute_form_target_reaches_the_app_whole_on_either_parser(
    gateway: int,
) -> None:
    """``GET gopher://h/1/ HTTP/1.1`` (a proxy request) is the page of that URL: the refusal
    page names the whole URL, scheme, host and query included (httptools' own parse kept
    only the path)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", gateway)
    writer.write(
        b"GET gopher://127.0.0.1:1/0/n%09x?q HTTP/1.1\r\nHost: gw\r\nConnection: close\r\n\r\n"
    )
    try:
        answer = await _read_all(reader, 30)
    finally:
        writer.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.split()[1] == b"403", head  # (loopback is refused by the default policy)
    assert b"gopher://127.0.0.1:1/0/n%09x?q" in body, body[:2000]
