"""resolvers.net.Stream, the one stream seam: a write is one non-blocking send when the kernel
takes it whole, the remainder (if any) under the read timeout — every byte, in order, and never
unbounded; reads hand back what the kernel holds, lines are bounded, unread bytes come first."""

from __future__ import annotations

import asyncio
import socket

import pytest

from omniurl.resolvers.errors import ConnectionClosed, LimitExceeded, ResolveTimeout
from omniurl.resolvers.net import Stream
from omniurl.resolvers.options import Options


def _pair() -> tuple[socket.socket, socket.socket]:
    ours, theirs = socket.socketpair()
    ours.setblocking(False)
    return ours, theirs


async def test_a_small_request_goes_out_whole_at_once() -> None:
    ours, theirs = _pair()
    with ours, theirs:
        await Stream(ours, Options()).write(b"/small/f001.txt\r\n", "the selector")
        assert theirs.recv(100) == b"/small/f001.txt\r\n"


async def test_a_request_larger_than_the_send_buffer_arrives_entire_and_in_order() -> None:
    ours, theirs = _pair()
    ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    data = bytes(range(256)) * 8192  # 2 MiB: the first send cannot take it all
    received = bytearray()

    def drain() -> None:
        theirs.setblocking(False)
        try:
            while True:
                chunk = theirs.recv(1 << 16)
                if not chunk:
                    return
                received.extend(chunk)
        except BlockingIOError:
            asyncio.get_running_loop().call_later(0.001, drain)

    with ours, theirs:
        asyncio.get_running_loop().call_soon(drain)
        await Stream(ours, Options(read_timeout=5)).write(data, "the selector")
        for _ in range(500):  # bounded: until the reader has caught up
            if len(received) == len(data):
                break
            await asyncio.sleep(0.005)
        assert bytes(received) == data


async def test_a_send_the_peer_never_reads_is_bounded_by_the_read_timeout() -> None:
    ours, theirs = _pair()
    timed_out = pytest.raises(ResolveTimeout, match=r"timed out after 0.2 s sending the selector")
    with ours, theirs, timed_out:
        await Stream(ours, Options(read_timeout=0.2)).write(b"x" * (16 << 20), "the selector")


async def test_lines_chunks_and_unread() -> None:
    ours, theirs = _pair()
    with ours, theirs:
        stream = Stream(ours, Options(max_line=10))
        theirs.sendall(b"one\r\ntwo\nrest of it")
        assert await stream.read_line("a line") == b"one"
        assert await stream.read_line("a line") == b"two"
        stream.unread(b">")
        theirs.shutdown(socket.SHUT_WR)
        assert b"".join([c async for c in stream.chunks("the rest")]) == b">rest of it"
        assert await stream.read("more") == b""


async def test_a_long_line_and_a_short_body_are_typed_errors() -> None:
    ours, theirs = _pair()
    with ours, theirs:
        theirs.sendall(b"x" * 20 + b"\n")
        with pytest.raises(LimitExceeded, match="a line: line longer than 10 bytes"):
            await Stream(ours, Options(max_line=10)).read_line("a line")
    ours, theirs = _pair()
    with ours, theirs:
        theirs.sendall(b"abc")
        theirs.shutdown(socket.SHUT_WR)
        with pytest.raises(ConnectionClosed, match="7 bytes of the item still to come"):
            async for _ in Stream(ours, Options()).chunks("the item", size=10):
                pass
