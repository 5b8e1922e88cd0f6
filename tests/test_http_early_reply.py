"""A reply that comes before its request: the connection is used no further.

A hostile (or broken) server answers as soon as a connection opens, before any request,
then answers the request too, a moment later.  The first reply is read as the request's —
curl 7.88 reads it so too — but the request's own reply is still to come: a client that
sends its next request on that connection reads it as the next URL's content.  Before,
``omniurl get URL`` following a redirect printed ``/first``'s reply as ``/next``'s, and a
batch or one ``AsyncClient`` gave every URL after the first the reply owed to the one
before it (curl does the same with several URLs).  Now a connection whose server sent a
byte before the first request went out (:meth:`resolvers.net.Stream.spoke_first`) is never
reused: each later URL gets a connection of its own.

RFC 9112 §9.3: a client reads the replies on a connection in the order of its requests; a
reply before any request breaks that order for the connection's whole life.

Whether the unasked reply has arrived when the request is written is a race on loopback;
the tests make it certain the way ``omniurl get``'s early connect makes it in real use (the
socket connects while the command still starts, the request goes out tens of milliseconds
later): the command's own early connect, or, in process, a connect that waits until the
server's bytes are in.  A reply that arrives after the request was written cannot be told
from the request's own by any HTTP/1.1 client (no request ids; docs/http.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import ssl
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from _ftphttp import OPTS
from helpers import run_omniurl, throwaway_pki

import omniurl
from omniurl.batch import LEAN_VARIABLE, fetch_many
from omniurl.resolvers import net
from omniurl.resolvers.http import batch_engine, connection

#: The reply sent the moment a connection opens, before any request.
EARLY = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nearly"


@dataclass
class Early:
    """Loopback server: ``early`` on the connections numbered in ``early_on`` as soon as
    they open, then each request's own reply 50 ms after it (``TARGET on connection N``)."""

    early_on: set[int] | None = None  # (None: every connection)
    first: bytes = EARLY
    port: int = 0
    connections: int = 0
    requests: list[tuple[int, bytes]] = field(default_factory=list)

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        number = self.connections
        try:
            if self.early_on is None or number in self.early_on:
                writer.write(self.first)
                await writer.drain()
            while True:
                head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
                target = head.split(b" ", 2)[1]
                self.requests.append((number, target))
                await asyncio.sleep(0.05)
                body = b"%s on connection %d" % (target, number)
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
                await writer.drain()
        except (OSError, asyncio.IncompleteReadError, TimeoutError):
            pass
        finally:
            writer.close()


@contextlib.asynccontextmanager
async def serving(server: Early, context: ssl.SSLContext | None = None) -> AsyncIterator[Early]:
    listening = await asyncio.start_server(server.serve, "127.0.0.1", 0, ssl=context)
    server.port = listening.sockets[0].getsockname()[1]
    try:
        yield server
    finally:
        listening.close()


@pytest.fixture
def slow_first_write(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every new HTTP connection (the general path's and the batch engine's) waits 0.2 s
    after it is made, so the server's unasked bytes are in before the request is written."""
    real = net.connect

    async def connect(*args: Any, **kwargs: Any) -> net.Stream:
        stream = await real(*args, **kwargs)
        await asyncio.sleep(0.2)
        return stream

    monkeypatch.setattr(connection, "connect", connect)
    monkeypatch.setattr(batch_engine, "connect", connect)


async def test_a_redirect_never_takes_the_first_requests_reply_as_its_own() -> None:
    """``omniurl get`` connects while it starts: the server's 302 is in before ``GET
    /first`` goes out.  The 302 is followed (curl follows it too), but on a new connection:
    ``/next``'s content is ``/next``'s reply, never the reply owed to ``/first`` (before:
    ``/first on connection 1``, exit 0; curl 7.88 -L prints that as well)."""
    redirect = b"HTTP/1.1 302 Found\r\nLocation: /next\r\nContent-Length: 0\r\n\r\n"
    async with serving(Early(early_on={1}, first=redirect)) as server:
        status, out, err = await run_omniurl(
            "get", f"http://127.0.0.1:{server.port}/first", "--max-time", "20"
        )
    assert (status, err) == (0, b"")
    assert out == b"/next on connection 2"
    assert server.requests == [(1, b"/first"), (2, b"/next")]


@pytest.mark.parametrize("tls", [False, True], ids=["http", "https"])
async def test_one_client_never_reads_the_reply_owed_to_the_get_before(
    tls: bool, tmp_path: Path, slow_first_write: None
) -> None:
    """Three gets on one ``AsyncClient``: the first is answered early (its content is the
    early reply, as curl's), the next two each on a connection of their own with exactly
    their own reply (before: ``/a on connection 1`` for ``/b``, ``/b …`` for ``/c``)."""
    context = None
    options = OPTS
    if tls:
        context, ca = throwaway_pki(tmp_path, "127.0.0.1")
        options = OPTS.with_(ca_file=ca)
    scheme = "https" if tls else "http"
    async with serving(Early(early_on={1}), context) as server:
        base = f"{scheme}://127.0.0.1:{server.port}"
        async with omniurl.AsyncClient(options) as client:
            got = [await client.get(f"{base}/{name}") for name in ("a", "b", "c")]
    assert got == [b"early", b"/b on connection 2", b"/c on connection 2"]
    assert server.requests == [(1, b"/a"), (2, b"/b"), (2, b"/c")]


@pytest.mark.parametrize("lean", [True, False], ids=["lean", "general"])
async def test_a_batch_never_reads_the_reply_owed_to_the_url_before(
    lean: bool, monkeypatch: pytest.MonkeyPatch, slow_first_write: None
) -> None:
    """Four URLs, one at a time, to a server that answers every connection early: each
    URL's content is the early reply of its own connection, none the reply owed to the URL
    before it (before: ``/u0 on connection 1`` for ``/u1``, and so on), on the batch's lean
    engine and on the general path alike."""
    monkeypatch.setenv(LEAN_VARIABLE, "1" if lean else "0")
    async with serving(Early()) as server:
        urls = [f"http://127.0.0.1:{server.port}/u{i}" for i in range(4)]
        rows = [row async for row in fetch_many(urls, options=OPTS, concurrency=1, per_host=1)]
        async with asyncio.timeout(5):  # (the last request may be read after its reply came)
            while len(server.requests) < 4:
                await asyncio.sleep(0.01)
    assert all(row.ok for row in rows), rows
    early = hashlib.sha256(b"early").hexdigest()
    assert {row.index: row.sha256 for row in rows} == dict.fromkeys(range(4), early)
    assert server.connections == 4
    assert sorted(server.requests) == [(n + 1, b"/u%d" % n) for n in range(4)]


@pytest.mark.parametrize("tls", [False, True], ids=["http", "https"])
async def test_an_honest_server_still_keeps_its_connection(tls: bool, tmp_path: Path) -> None:
    """The check costs nothing to a server that speaks when spoken to: three gets, one
    connection — over TLS too, where a TLS 1.3 server's session tickets arrive after the
    handshake, before the first request (ciphertext that decrypts to no byte of a reply)."""
    context = None
    options = OPTS
    if tls:
        context, ca = throwaway_pki(tmp_path, "127.0.0.1")
        options = OPTS.with_(ca_file=ca)
    async with serving(Early(early_on=set()), context) as server:
        base = f"{'https' if tls else 'http'}://127.0.0.1:{server.port}"
        async with omniurl.AsyncClient(options) as client:
            got = [await client.get(f"{base}/{name}") for name in ("a", "b", "c")]
    assert got == [b"/a on connection 1", b"/b on connection 1", b"/c on connection 1"]
