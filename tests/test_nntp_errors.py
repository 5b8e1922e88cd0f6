"""Every way an NNTP exchange can fail comes out as a typed error, bounded in time and size:
refused connection, silence, truncated and oversized replies, broken status lines, 483 —
and a URL the policy refuses sends nothing at all."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
import pytest_asyncio

from omniurl import schemes
from omniurl.resolvers import Options, resolve
from omniurl.resolvers.errors import (
    AuthError,
    ConfigurationError,
    ConnectError,
    ConnectionClosed,
    DelimiterRefused,
    LimitExceeded,
    ProtocolError,
    ResolveTimeout,
)
from omniurl.resolvers.nntp.settings import NNTPOptions

HANG = b"<hang>"
CLOSE = b"<close>"


@dataclass
class Scripted:
    """A loopback server that answers each command line from a script and records every byte."""

    greeting: bytes = b"200 scripted server ready\r\n"
    script: dict[bytes, bytes] = field(default_factory=dict)
    received: bytearray = field(default_factory=bytearray)
    connections: int = 0
    port: int = 0
    tasks: set[asyncio.Task[None]] = field(default_factory=set)

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self.tasks.add(task)  # type: ignore[arg-type]
        self.connections += 1
        try:
            if self.greeting == HANG:
                await asyncio.sleep(30)
            writer.write(self.greeting)
            while line := await reader.readline():
                self.received += line
                answer = self.script.get(line.rstrip(b"\r\n"), b"500 unknown command\r\n")
                if answer == HANG:
                    await asyncio.sleep(30)
                writer.write(answer.removesuffix(CLOSE))
                await writer.drain()
                if answer.endswith(CLOSE):
                    break
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()


Start = Callable[..., Awaitable[Scripted]]


@pytest_asyncio.fixture
async def scripted() -> AsyncIterator[Start]:
    """``await scripted(greeting=..., script={...})`` starts one; all stop after the test."""
    running: list[tuple[asyncio.Server, Scripted]] = []

    async def start(**kw: Any) -> Scripted:
        s = Scripted(**kw)
        server = await asyncio.start_server(s.handle, "127.0.0.1", 0)
        s.port = server.sockets[0].getsockname()[1]
        running.append((server, s))
        return s

    yield start
    for server, s in running:
        server.close()
        for task in s.tasks:
            task.cancel()
        if s.tasks:
            await asyncio.wait(s.tasks, timeout=2)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(server.wait_closed(), 2)


FAST = Options(read_timeout=0.5, connect_timeout=2)
OK_CAPS = {b"CAPABILITIES": b"101 caps\r\nVERSION 2\r\nREADER\r\n.\r\n", b"QUIT": b"205 bye\r\n"}


async def test_refused_connection_is_a_connect_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(ConnectError) as info:
        await resolve(f"nntp://127.0.0.1:{port}/a.b/1", FAST)
    assert info.value.component == "host"


async def test_silent_server_times_out(scripted: Start) -> None:
    s = await scripted(greeting=HANG)
    loop = asyncio.get_running_loop()
    begun = loop.time()
    with pytest.raises(ResolveTimeout, match="greeting"):
        await resolve(f"nntp://127.0.0.1:{s.port}/a.b/1", FAST)
    assert loop.time() - begun < 3


async def test_server_that_stops_mid_article_times_out(scripted: Start) -> None:
    # The article starts, and then nothing: no "." line, no close.
    script = {**OK_CAPS, b"GROUP a.b": b"211 1 1 1 a.b\r\n", b"ARTICLE 1": b"220 1 <x@y>\r\nA\r\n"}
    s = await scripted(script=script)
    async with await resolve(f"nntp://127.0.0.1:{s.port}/a.b/1", FAST) as res:
        with pytest.raises(ResolveTimeout, match="article"):
            await res.read()


async def test_truncated_article_is_connection_closed(scripted: Start) -> None:
    script = {
        **OK_CAPS,
        b"GROUP a.b": b"211 1 1 1 a.b\r\n",
        b"ARTICLE 1": b"220 1 <x@y>\r\nSubject: x\r\n\r\nhalf a li" + CLOSE,
    }
    s = await scripted(script=script)
    async with await resolve(f"nntp://127.0.0.1:{s.port}/a.b/1", FAST) as res:
        with pytest.raises(ConnectionClosed, match="article"):
            await res.read()


async def test_truncated_listing_is_connection_closed(scripted: Start) -> None:
    script = {**OK_CAPS, b"LIST ACTIVE": b"215 list\r\na.b 2 1 y\r\n" + CLOSE}
    s = await scripted(script=script)
    options = FAST.with_(schemes=(NNTPOptions(server=f"127.0.0.1:{s.port}"),))
    with pytest.raises(ConnectionClosed, match="list of newsgroups"):
        await resolve("news:*", options)


async def test_oversized_line_is_limit_exceeded(scripted: Start) -> None:
    script = {
        **OK_CAPS,
        b"GROUP a.b": b"211 1 1 1 a.b\r\n",
        b"ARTICLE 1": b"220 1 <x@y>\r\n" + b"x" * 5000 + b"\r\n.\r\n",
    }
    s = await scripted(script=script)
    async with await resolve(f"nntp://127.0.0.1:{s.port}/a.b/1", FAST.with_(max_line=1024)) as res:
        with pytest.raises(LimitExceeded, match="1024"):
            await res.read()


async def test_oversized_reply_is_limit_exceeded(scripted: Start) -> None:
    lines = b"".join(b"group.%d 1 1 y\r\n" % i for i in range(2000))
    script = {**OK_CAPS, b"LIST ACTIVE": b"215 list\r\n" + lines + b".\r\n"}
    s = await scripted(script=script)
    options = FAST.with_(schemes=(NNTPOptions(server=f"127.0.0.1:{s.port}"),), max_buffered=10_000)
    with pytest.raises(LimitExceeded, match="10000 bytes"):
        await resolve("news:*", options)


async def test_oversized_article_is_cut_off(scripted: Start) -> None:
    body = b"".join(b"line %d\r\n" % i for i in range(5000))
    script = {
        **OK_CAPS,
        b"GROUP a.b": b"211 1 1 1 a.b\r\n",
        b"ARTICLE 1": b"220 1 <x@y>\r\n" + body + b".\r\n",
    }
    s = await scripted(script=script)
    url = f"nntp://127.0.0.1:{s.port}/a.b/1"
    async with await resolve(url, FAST.with_(max_buffered=4096, chunk_size=1024)) as res:
        with pytest.raises(LimitExceeded):
            await res.read()


@pytest.mark.parametrize(
    "greeting", [b"HTTP/1.1 400 Bad Request\r\n", b"+OK POP3 ready\r\n", b"\xff\xfb\x01\r\n"]
)
async def test_not_an_nntp_server_is_a_protocol_error(scripted: Start, greeting: bytes) -> None:
    s = await scripted(greeting=greeting)
    with pytest.raises(ProtocolError, match="greeting"):
        await resolve(f"nntp://127.0.0.1:{s.port}/a.b/1", FAST)


async def test_malformed_group_reply_is_a_protocol_error(
    scripted: Start,
) -> None:
    s = await scripted(script={**OK_CAPS, b"GROUP a.b": b"211 lots of them\r\n"})
    with pytest.raises(ProtocolError, match="GROUP answered"):
        await resolve(f"nntp://127.0.0.1:{s.port}/a.b", FAST)


async def test_malformed_overview_is_a_protocol_error(scripted: Start) -> None:
    script = {
        **OK_CAPS,
        b"GROUP a.b": b"211 1 1 1 a.b\r\n",
        b"OVER 1-1": b"224 ok\r\nnot-a-number\tsubject\r\n.\r\n",
    }
    s = await scripted(script=script)
    with pytest.raises(ProtocolError, match="article number"):
        await resolve(f"nntp://127.0.0.1:{s.port}/a.b", FAST)


async def test_tls_required_483_is_an_auth_error(scripted: Start) -> None:
    s = await scripted(script={**OK_CAPS, b"GROUP a.b": b"483 use STARTTLS\r\n"})
    with pytest.raises(AuthError, match="TLS"):
        await resolve(f"nntp://127.0.0.1:{s.port}/a.b", FAST)


async def test_480_after_authinfo_is_an_auth_error(scripted: Start) -> None:
    script = {
        **OK_CAPS,
        b"GROUP a.b": b"480 auth first\r\n",
        b"AUTHINFO USER u": b"281 ok\r\n",
    }
    s = await scripted(script=script)
    options = FAST.with_(credentials={"127.0.0.1": ("u", "p")})
    with pytest.raises(AuthError, match="still asks"):
        await resolve(f"nntp://127.0.0.1:{s.port}/a.b", options)
    # USER alone was accepted (281), so PASS was never sent.
    assert bytes(s.received) == (b"CAPABILITIES\r\nGROUP a.b\r\nAUTHINFO USER u\r\nGROUP a.b\r\n")


async def test_refused_url_sends_nothing(scripted: Start) -> None:
    s = await scripted(script=OK_CAPS)
    url = schemes.parse(f"nntp://127.0.0.1:{s.port}/a.b").replace(newsgroup="a.b\r\nQUIT")
    with pytest.raises(DelimiterRefused):
        await resolve(url, FAST)
    news = schemes.parse("news:a@b").replace(message_id="a b@c")
    with pytest.raises(DelimiterRefused):
        await resolve(news, FAST.with_(schemes=(NNTPOptions(server=f"127.0.0.1:{s.port}"),)))
    await asyncio.sleep(0.05)
    assert (s.connections, bytes(s.received)) == (0, b"")


async def test_news_without_server_sends_nothing() -> None:
    with pytest.raises(ConfigurationError):
        await resolve("news:a.b", FAST)
