"""Redirects that lead nowhere new, and a redirect whose body never arrives.

- ``Location:`` empty or white space alone (RFC 9110 §10.2.2: a URI-reference, and the
  empty one resolves to the request's own URI, RFC 3986 §5.2.2): not followed, the 3xx is
  the result — its body shown, exit 0, as curl's ``-L`` (before: the request sent 11 times,
  "more than 10 redirects", exit 6; wget follows it 20 times, exit 8).
- A ``Location`` naming the same request again (itself, or an earlier URL of the chain):
  followed, as curl follows it (a server may answer differently later: "302 to itself" once,
  then 200); at the bound the error is :class:`RedirectLoop` naming the first repeat
  (exit 6; curl follows to its ``--max-redirs``, 50, exit 47).
- A redirect declaring ``Content-Length: 1000`` and sending 10 bytes then nothing: the
  next hop goes on a new connection within the CARRY step's bound (0.25 s), the first
  connection closed (before: the read timeout, 30 s, was waited out; curl 7.88 hangs).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable

import pytest
from helpers import run_omniurl

from omniurl import resolvers
from omniurl.resolvers.errors import RedirectLoop, TooManyRedirects
from omniurl.resolvers.http.planner import CARRY_BOUND, CARRY_STEP, CarryBound, HTTPRole
from omniurl.resolvers.options import Options


class Peer:
    """A scripted HTTP server on loopback: ``answer(target, n)`` gives the bytes sent for
    the n-th request (from 1); what each connection received, and whether the client
    closed it, are recorded."""

    def __init__(self, answer: Callable[[bytes, int], bytes]) -> None:
        self.answer = answer
        self.requests: list[bytes] = []  # request lines, in order
        self.per_connection: list[list[bytes]] = []
        self.closed_by_client: list[asyncio.Event] = []
        self.port = 0
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        mine: list[bytes] = []
        closed = asyncio.Event()
        self.per_connection.append(mine)
        self.closed_by_client.append(closed)
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                line = head.split(b"\r\n", 1)[0]
                self.requests.append(line)
                mine.append(line)
                writer.write(self.answer(line.split(b" ")[1], len(self.requests)))
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            closed.set()  # (the client closed its end)
        except asyncio.CancelledError:
            pass
        finally:
            writer.close()
            self._tasks.discard(task)

    async def close(self) -> None:
        assert self._server is not None
        self._server.close()
        for task in list(self._tasks):
            task.cancel()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._server.wait_closed(), 2)


@contextlib.asynccontextmanager
async def peer(answer: Callable[[bytes, int], bytes]) -> AsyncIterator[Peer]:
    running = Peer(answer)
    await running.start()
    try:
        yield running
    finally:
        await running.close()


def _reply(status: str, fields: str, body: bytes) -> bytes:
    return f"HTTP/1.1 {status}\r\n{fields}Content-Length: {len(body)}\r\n\r\n".encode() + body


# -- an empty Location ---------------------------------------------------------------------


@pytest.mark.parametrize("value", ["", "   ", " \t "])
async def test_an_empty_location_is_not_followed_the_3xx_is_the_result(value: str) -> None:
    raw = f"Location:{value}\r\n"
    async with peer(lambda target, n: _reply("302 Found", raw, b"moved page\n")) as server:
        url = f"http://127.0.0.1:{server.port}/a"
        status, out, err = await run_omniurl("get", "-w", "\n%{http_code} [%{redirect_url}]", url)
        # curl -L's outcome: the 302's body, exit 0, nothing followed (one request)
        assert (status, out) == (0, b"moved page\n\n302 []"), err
        assert server.requests == [b"GET /a HTTP/1.1"]
        assert err == (
            b"omniurl: HTTP 302 redirect with an empty Location (RFC 9110 \xc2\xa710.2.2: it "
            b"names this same URL): not followed; the reply is the result\n"
        )
        status, out, err = await run_omniurl("get", "-s", url)  # -s: not a word
        assert (status, out, err) == (0, b"moved page\n", b"")
        async with asyncio.timeout(20), resolvers.resolve(url, Options()) as resource:
            assert (resource.status, await resource.read()) == (302, b"moved page\n")
        assert server.requests == [b"GET /a HTTP/1.1"] * 3


async def test_a_missing_location_is_still_the_result() -> None:
    """(the case the empty one now joins: a 3xx without Location is no redirect to follow)"""
    async with peer(lambda target, n: _reply("301 Moved", "", b"x")) as server:
        status, out, err = await run_omniurl("get", f"http://127.0.0.1:{server.port}/a")
        assert (status, out, err) == (0, b"x", b"")


# -- a Location that asks the same again ---------------------------------------------------


async def test_a_redirect_to_itself_is_followed_to_the_bound_and_named_a_loop() -> None:
    async with peer(lambda target, n: _reply("302 Found", "Location: /a#top\r\n", b"")) as server:
        url = f"http://127.0.0.1:{server.port}/a"
        status, out, err = await run_omniurl("get", "--max-redirs", "3", url)
        assert (status, out) == (6, b""), err
        assert (
            err
            == (
                f"omniurl: more than 3 redirects or referrals; stopped at {url}#top: a redirect "
                f"loop, {url} redirects back to itself (HTTP 302 redirect)\n"
            ).encode()
        )
        assert server.requests == [b"GET /a HTTP/1.1"] * 4  # (curl -L --max-redirs 3: 4 too)
        with pytest.raises(RedirectLoop) as info:
            async with asyncio.timeout(20):
                await resolvers.fetch(url, Options())
        assert isinstance(info.value, TooManyRedirects) and info.value.component == "location"


async def test_a_redirect_to_itself_once_then_an_answer_is_followed() -> None:
    """A repeat alone is no loop: a server that redirects a URL to itself once (a resource
    being made, ``Retry-After: 0``) and then answers it gives the answer, as ``curl -L``
    does (before: stopped at the repeat, exit 6)."""

    def answer(target: bytes, n: int) -> bytes:
        if n == 1:
            return _reply("302 Found", "Location: /a\r\nRetry-After: 0\r\n", b"")
        return _reply("200 OK", "", b"ready\n")

    async with peer(answer) as server:
        status, out, err = await run_omniurl("get", f"http://127.0.0.1:{server.port}/a")
        assert (status, out) == (0, b"ready\n"), err
        assert server.requests == [b"GET /a HTTP/1.1"] * 2


async def test_a_chain_back_to_an_earlier_url_is_named_a_loop_at_the_bound() -> None:
    def answer(target: bytes, n: int) -> bytes:
        to = {"/a": "/b", "/b": "/c", "/c": "/b?"}.get(target.decode(), "/a")
        return _reply("301 Moved", f"Location: {to}\r\n", b"")

    async with peer(answer) as server:
        base = f"http://127.0.0.1:{server.port}"
        status, _out, err = await run_omniurl("get", "--max-redirs", "5", f"{base}/a")
        # /b? is another request target than /b: followed; it leads to /a, asked already
        assert status == 6, err
        assert err.endswith(
            (
                f": a redirect loop, {base}/b? redirects back to {base}/a, requested already "
                "(HTTP 301 redirect)\n"
            ).encode()
        ), err
        assert server.requests == [
            b"GET /a HTTP/1.1", b"GET /b HTTP/1.1", b"GET /c HTTP/1.1", b"GET /b? HTTP/1.1",
            b"GET /a HTTP/1.1", b"GET /b HTTP/1.1",
        ]  # fmt: skip


async def test_redirects_that_are_not_a_loop_still_end_at_the_bound() -> None:
    """A chain of ever new URLs is bounded by --max-redirs as before (exit 6)."""
    answer = lambda target, n: _reply("302 Found", f"Location: /p{n}\r\n", b"")  # noqa: E731
    async with peer(answer) as server:
        status, _out, err = await run_omniurl(
            "get", "--max-redirs", "3", f"http://127.0.0.1:{server.port}/a"
        )
        assert status == 6 and b"more than 3 redirects" in err, err
        assert len(server.requests) == 4


# -- a redirect whose body never arrives ---------------------------------------------------


def test_the_bound_is_the_plans_step() -> None:
    step = resolvers.plan("http://h/r").steps[-1]
    assert step.role is HTTPRole.CARRY and step.detail_as(CarryBound) == CARRY_BOUND
    assert (CARRY_BOUND.limit, CARRY_BOUND.within) == (1 << 20, 0.25)
    assert step.shown == CARRY_STEP.shown
    assert "1 MiB within 0.25 s" in step.shown and step.data == b""


async def test_a_redirect_body_that_never_arrives_is_not_waited_for() -> None:
    def answer(target: bytes, n: int) -> bytes:
        if target == b"/t":
            return _reply("200 OK", "", b"target\n")
        head = b"HTTP/1.1 302 Found\r\nLocation: /t\r\nContent-Length: 1000\r\n\r\n"
        return head + b"0123456789"  # (and then silence, the connection left open)

    async with peer(answer) as server:
        url = f"http://127.0.0.1:{server.port}/r"
        loop = asyncio.get_running_loop()
        start = loop.time()
        async with asyncio.timeout(20):
            data = await resolvers.fetch(url, Options(read_timeout=30))
        took = loop.time() - start
        assert data == b"target\n"  # (nothing of the redirect's body)
        # (before: 30 s, the read timeout; the bound is 0.25 s: 5 s leaves room for a
        # machine at load 8 without letting the read timeout pass)
        assert took < 5.0, took
        assert server.per_connection == [[b"GET /r HTTP/1.1"], [b"GET /t HTTP/1.1"]]
        # the first connection was given up: closed by the client, not kept
        async with asyncio.timeout(5):
            await server.closed_by_client[0].wait()

        server.requests.clear()
        server.per_connection.clear()
        status, out, err = await run_omniurl("get", "-w", "|%{num_connects}", url)
        assert (status, out) == (0, b"target\n|2"), err
        assert len(server.per_connection) == 2


async def test_a_redirect_body_declared_past_the_bound_is_not_read() -> None:
    """A body declared longer than 1 MiB is not read at all (the step is not due): the
    next hop goes on a new connection at once, the first closed."""

    def answer(target: bytes, n: int) -> bytes:
        if target == b"/t":
            return _reply("200 OK", "", b"t")
        return b"HTTP/1.1 302 Found\r\nLocation: /t\r\nContent-Length: 1048577\r\n\r\nxx"

    async with peer(answer) as server:
        async with asyncio.timeout(20):
            data = await resolvers.fetch(
                f"http://127.0.0.1:{server.port}/r", Options(read_timeout=30)
            )
        assert data == b"t" and len(server.per_connection) == 2
        async with asyncio.timeout(5):
            await server.closed_by_client[0].wait()


async def test_a_complete_redirect_body_still_carries_the_next_hop() -> None:
    def answer(target: bytes, n: int) -> bytes:
        if target == b"/t":
            return _reply("200 OK", "", b"t")
        return _reply("302 Found", "Location: /t\r\n", b"0123456789")

    async with peer(answer) as server:
        async with asyncio.timeout(20):
            assert await resolvers.fetch(f"http://127.0.0.1:{server.port}/r") == b"t"
        assert server.per_connection == [[b"GET /r HTTP/1.1", b"GET /t HTTP/1.1"]]
