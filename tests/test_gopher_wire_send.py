"""The Gopher wire's send: one non-blocking send when the kernel takes the request whole,
the remainder (if any) under the read timeout — every byte, in order, and never unbounded."""

from __future__ import annotations

import asyncio
import socket

import pytest

from omniurl.resolvers.errors import ResolveTimeout
from omniurl.resolvers.gopher.wire import Connection
from omniurl.resolvers.options import Options


def _pair() -> tuple[socket.socket, socket.socket]:
    ours, theirs = socket.socketpair()
    ours.setblocking(False)
    return ours, theirs


async def test_a_small_request_goes_out_whole_at_once() -> None:
    ours, theirs = _pair()
    with ours, theirs:
        await Connection(ours, Options()).send(b"/small/f001.txt\r\n")
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
        await Connection(ours, Options(read_timeout=5)).send(data)
        for _ in range(500):  # bounded: until the reader has caught up
            if len(received) == len(data):
                break
            await asyncio.sleep(0.005)
        assert bytes(received) == data


async def test_a_send_the_peer_never_reads_is_bounded_by_the_read_timeout() -> None:
    ours, theirs = _pair()
    timed_out = pytest.raises(ResolveTimeout, match=r"timed out after 0.2 s sending the selector")
    with ours, theirs, timed_out:
        await Connection(ours, Options(read_timeout=0.2)).send(b"x" * (16 << 20))
