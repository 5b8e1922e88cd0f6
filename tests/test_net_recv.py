"""omniurl.resolvers.net's bulk reads: data already received is taken at once, a wait is bounded."""

from __future__ import annotations

import asyncio
import socket

import pytest

from omniurl.resolvers.errors import ConnectionClosed, ResolveTimeout
from omniurl.resolvers.net import recv_chunks, recv_ready
from omniurl.resolvers.options import Options


def _pair() -> tuple[socket.socket, socket.socket]:
    ours, theirs = socket.socketpair()
    ours.setblocking(False)
    return ours, theirs


def test_recv_ready_says_none_when_a_read_would_wait() -> None:
    ours, theirs = _pair()
    with ours, theirs:
        assert recv_ready(ours, 10) is None
        theirs.sendall(b"abcdef")
        assert recv_ready(ours, 4) == b"abcd"
        assert recv_ready(ours, 10) == b"ef"
        theirs.shutdown(socket.SHUT_WR)
        assert recv_ready(ours, 10) == b""


async def test_recv_chunks_takes_buffered_data_then_waits_for_the_rest() -> None:
    ours, theirs = _pair()
    with ours, theirs:
        theirs.sendall(b"x" * 10)
        loop = asyncio.get_running_loop()
        loop.call_later(0.05, theirs.sendall, b"y" * 5)
        loop.call_later(0.1, theirs.shutdown, socket.SHUT_WR)
        chunks = [c async for c in recv_chunks(ours, Options(chunk_size=8), what="the file")]
        assert chunks == [b"x" * 8, b"xx", b"yyyyy"]


async def test_recv_chunks_wait_is_bounded_by_the_read_timeout() -> None:
    ours, theirs = _pair()
    with ours, theirs:
        theirs.sendall(b"abc")
        got = []
        with pytest.raises(ResolveTimeout, match=r"timed out after 0.2 s reading the file"):
            async for chunk in recv_chunks(ours, Options(read_timeout=0.2), what="the file"):
                got.append(chunk)
        assert got == [b"abc"]


async def test_recv_chunks_eof_before_size_is_connection_closed() -> None:
    ours, theirs = _pair()
    with ours, theirs:
        theirs.sendall(b"abc")
        theirs.shutdown(socket.SHUT_WR)
        with pytest.raises(ConnectionClosed, match="with 7 bytes of the file still to come"):
            async for _chunk in recv_chunks(ours, Options(), what="the file", size=10):
                pass


async def test_open_socket_connect_is_bounded_by_the_connect_timeout() -> None:
    """A listener whose accept queue is full drops new SYNs: the connect would wait forever."""
    from omniurl.resolvers.net import open_socket

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    port = listener.getsockname()[1]
    fillers: list[socket.socket] = []
    try:
        for _ in range(8):  # fill the accept queue (its length is the kernel's business)
            s = socket.socket()
            s.setblocking(False)
            s.connect_ex(("127.0.0.1", port))
            fillers.append(s)
        await asyncio.sleep(0.05)
        with pytest.raises(
            ResolveTimeout, match=rf"timed out after 0.3 s connecting to 127.0.0.1:{port}"
        ):
            await open_socket("127.0.0.1", port, Options(connect_timeout=0.3))
    finally:
        for s in fillers:
            s.close()
        listener.close()
