"""No pooled connection is reused while a byte the server sent is still unread (issue 30).

Through one ``AsyncClient`` over https, a server that sent a few bytes behind its first reply
(or hid them with a framing trick) made the *second* ``get`` return them: the idle check
peeked the socket, but over TLS the bytes were already decrypted into asyncio's buffers.
Now every buffer between the socket and the reader is looked at — the kernel's, the
StreamReader's, the TLS object's (each layer of a tunnel), the Stream's own and the reply
reader's past the reply's end — and a connection holding any byte is closed.

Each case: a loopback server answers ``/first`` with a trick (the unasked bytes are a whole
fake reply, ``EVIL!``) and every other request with what it is owed, naming the connection
it came on; the client gets ``/first`` then ``/second`` and must see exactly the second
answer, on a connection of its own (the server counts them).  Ten repetitions each, plain
and TLS, direct and through proxies; the bytes come in the reply's own write ("together")
or a moment after it, while the connection is idle ("between").
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest
from _ftphttp import OPTS

import omniurl
from omniurl.resolvers.http import reply as http_reply
from omniurl.resolvers.options import Options
from omniurl.testservers.proxies import HTTPProxy

#: What a desync would hand the second get: a whole reply nobody asked for.
FAKE = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nEVIL!"

#: name: (the first request's method, the first reply, the bytes behind it, its body)
TRICKS: dict[str, tuple[str, bytes, bytes, bytes]] = {
    "after-length": ("GET", b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst", FAKE, b"first"),
    "after-chunked": (
        "GET",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nfirst\r\n0\r\n\r\n",
        FAKE,
        b"first",
    ),
    # RFC 9112 §6.1: both framings — closed after the reply even with nothing behind it
    "length-and-chunked": (
        "GET",
        b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"5\r\nfirst\r\n0\r\n\r\n",
        b"",
        b"first",
    ),
    "204-with-body": ("GET", b"HTTP/1.1 204 No Content\r\n\r\n", FAKE, b""),
    "head-with-body": ("HEAD", b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", FAKE, b""),
}


@pytest.fixture(params=http_reply.PARSERS, autouse=True)
def parser(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every case on both reply parsers (llhttp, h11): the connection's checks hold
    whichever reads the reply."""
    monkeypatch.setattr(http_reply, "_default", request.param)
    return str(request.param)


@dataclass
class Trickster:
    """The loopback server; ``connections`` counts the connections it accepted."""

    first: bytes
    behind: bytes
    between: bool
    port: int = 0
    connections: int = 0
    requests: list[tuple[int, bytes]] = field(default_factory=list)

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        number = self.connections
        try:
            while True:
                head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
                target = head.split(b" ", 2)[1]
                self.requests.append((number, target))
                if target.endswith(b"/first"):
                    if self.between:
                        writer.write(self.first)
                        await writer.drain()
                        await asyncio.sleep(0.01)
                        writer.write(self.behind)
                    else:
                        writer.write(self.first + self.behind)
                else:
                    body = b"%s on connection %d" % (target, number)
                    writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body))
                    writer.write(body)
                await writer.drain()
        except (OSError, asyncio.IncompleteReadError, TimeoutError):
            pass
        finally:
            writer.close()


@contextlib.asynccontextmanager
async def serving(
    first: bytes, behind: bytes, between: bool, context: ssl.SSLContext | None
) -> AsyncIterator[Trickster]:
    trickster = Trickster(first, behind, between)
    server = await asyncio.start_server(trickster.serve, "127.0.0.1", 0, ssl=context)
    trickster.port = server.sockets[0].getsockname()[1]
    try:
        yield trickster
    finally:
        server.close()


async def two_gets(
    client: omniurl.AsyncClient, base: str, method: str, between: bool
) -> tuple[bytes, bytes]:
    first_options = client.options.with_(head=True) if method == "HEAD" else None
    first = await client.get(f"{base}/first", options=first_options)
    if between:
        await asyncio.sleep(0.1)  # the unasked bytes arrive while the connection is idle
    second = await client.get(f"{base}/second")
    assert isinstance(first, bytes) and isinstance(second, bytes)
    return first, second


async def check(
    trick: str, between: bool, options: Options, context: ssl.SSLContext | None
) -> None:
    """Ten rounds of two gets on one client: the second always gets its own answer, on a
    second connection."""
    method, first_reply, behind, body = TRICKS[trick]
    scheme = "https" if context is not None else "http"
    async with serving(first_reply, behind, between, context) as trickster:
        base = f"{scheme}://127.0.0.1:{trickster.port}"
        for round_ in range(10):
            before = trickster.connections
            async with omniurl.AsyncClient(options) as client:
                first, second = await two_gets(client, base, method, between)
            assert first == body
            # exactly the answer to /second, on a connection of its own (the first closed)
            assert second == b"/second on connection %d" % (before + 2), round_
            assert trickster.connections == before + 2


CASES = [
    pytest.param(trick, between, id=f"{trick}-{'between' if between else 'together'}")
    for trick in TRICKS
    for between in (False, True)
]


@pytest.mark.parametrize(("trick", "between"), CASES)
async def test_plain_http_never_reads_unasked_bytes_as_the_next_reply(
    trick: str, between: bool
) -> None:
    await check(trick, between, OPTS, None)


@pytest.mark.parametrize(("trick", "between"), CASES)
async def test_https_never_reads_unasked_bytes_as_the_next_reply(
    trick: str, between: bool, pki: tuple[ssl.SSLContext, str]
) -> None:
    """The issue's case: bytes already decrypted into the TLS buffers count."""
    await check(trick, between, OPTS.with_(ca_file=pki[1]), pki[0])


@pytest.mark.parametrize("trick", ["after-length", "204-with-body"])
@pytest.mark.parametrize("origin_tls", [False, True], ids=["http-url", "https-url"])
@pytest.mark.parametrize("proxy_tls", [False, True], ids=["http-proxy", "https-proxy"])
async def test_a_proxy_never_reads_unasked_bytes_as_the_next_reply(
    trick: str, origin_tls: bool, proxy_tls: bool, pki: tuple[ssl.SSLContext, str]
) -> None:
    """Through a proxy, the same: an ``http:`` URL forwarded (absolute form, the kept
    connection is the proxy's), an ``https:`` one through a CONNECT tunnel — inside an
    ``https://`` proxy's TLS, two TLS layers with buffers each."""
    async with HTTPProxy(tls=pki[0] if proxy_tls else None) as proxy:
        scheme = "https" if proxy_tls else "http"
        options = OPTS.with_(ca_file=pki[1], proxy=f"{scheme}://127.0.0.1:{proxy.port}")
        for between in (False, True):
            await check(trick, between, options, pki[0] if origin_tls else None)


@pytest.mark.parametrize("tls", [False, True], ids=["http", "https"])
async def test_an_honest_server_keeps_its_connection(
    tls: bool, pki: tuple[ssl.SSLContext, str], parser: str
) -> None:
    """The checks cost no reuse where nothing was sent unasked: two gets, one connection."""
    assert http_reply.ReplyReader().parser == parser
    context = pki[0] if tls else None
    options = OPTS.with_(ca_file=pki[1])
    reply = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst"
    async with serving(reply, b"", False, context) as honest:
        base = f"{'https' if tls else 'http'}://127.0.0.1:{honest.port}"
        async with omniurl.AsyncClient(options) as client:
            assert await client.get(f"{base}/first") == b"first"
            await asyncio.sleep(0.05)
            assert await client.get(f"{base}/second") == b"/second on connection 1"
        assert honest.connections == 1
