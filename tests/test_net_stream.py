"""resolvers.net.Stream, the one stream seam: a write is one non-blocking send when the kernel
takes it whole, the remainder (if any) under the read timeout — every byte, in order, and never
unbounded; reads hand back what the kernel holds, lines are bounded, unread bytes come first."""

from __future__ import annotations

import asyncio
import os
import socket
import threading
import time
import unittest.mock

import pytest
from helpers import tcp_pair

from omniurl.resolvers import net
from omniurl.resolvers.errors import ConnectionClosed, LimitExceeded, ResolveTimeout
from omniurl.resolvers.net import BULK_MARK, BULK_READ, Stream
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


# -- the bulk path: fill_into ---------------------------------------------------------------


async def test_fill_into_takes_what_has_arrived_until_the_buffer_is_full() -> None:
    ours, theirs = _pair()
    with ours, theirs:
        stream = Stream(ours, Options())
        for part in (b"abc", b"defg", b"hijkl"):
            theirs.sendall(part)
        buffer = memoryview(bytearray(8))
        assert await stream.fill_into(buffer, "the item") == 8
        assert bytes(buffer) == b"abcdefgh"
        assert await stream.fill_into(buffer, "the item") == 4  # (what there is: no wait)
        assert bytes(buffer[:4]) == b"ijkl"
        theirs.shutdown(socket.SHUT_WR)
        assert await stream.fill_into(buffer, "the item") == 0


async def test_fill_into_waits_are_bounded_by_the_read_timeout() -> None:
    ours, theirs = tcp_pair()
    with ours, theirs:
        stream = Stream(ours, Options(read_timeout=0.2))
        stream.bulk()
        with pytest.raises(ResolveTimeout, match=r"timed out after 0\.2 s waiting for the item"):
            await stream.fill_into(memoryview(bytearray(1 << 20)), "the item")


async def test_a_bulk_wait_takes_fewer_bytes_than_the_mark_when_the_peer_pauses() -> None:
    """The low-water mark wakes the loop once a large read's worth has arrived; a peer that
    sends less and stops (a slow server, the end of a reply on a kept connection) is not
    held up for the read timeout: the wait takes what came."""
    ours, theirs = tcp_pair()
    with ours, theirs:
        stream = Stream(ours, Options(read_timeout=2))
        stream.bulk()
        asyncio.get_running_loop().call_later(0.05, theirs.sendall, b"ten bytes!")
        buffer = memoryview(bytearray(BULK_READ))
        assert await stream.fill_into(buffer, "the item") == 10
        assert bytes(buffer[:10]) == b"ten bytes!"
        assert ours.getsockopt(socket.SOL_SOCKET, socket.SO_RCVLOWAT) == 1


async def test_the_mark_is_never_above_the_bytes_still_expected() -> None:
    ours, theirs = tcp_pair()
    with ours, theirs:
        stream = Stream(ours, Options(read_timeout=2))
        stream.bulk()
        marks: list[int] = []
        setsockopt = ours.setsockopt

        def spy(level: int, option: int, value: int) -> None:
            if option == socket.SO_RCVLOWAT:
                marks.append(value)
            setsockopt(level, option, value)

        stream.sock = unittest.mock.Mock(wraps=ours, setsockopt=spy)
        asyncio.get_running_loop().call_later(0.05, theirs.sendall, b"0123456789")
        buffer = memoryview(bytearray(BULK_READ))
        assert await stream.fill_into(buffer[:10], "the body") == 10
        assert marks[0] == 10 and max(marks) == 10  # (the last 10 bytes of a reply)
        theirs.sendall(b"next")  # a plain read after it takes what comes: no mark
        assert await stream.read("the next reply") == b"next"
        assert ours.getsockopt(socket.SOL_SOCKET, socket.SO_RCVLOWAT) == 1


async def test_a_cancelled_bulk_wait_loses_no_bytes() -> None:
    """A wait is cancelled (``--max-time``, Ctrl-C) before any byte is read: what comes
    afterwards is all there for the next read."""
    ours, theirs = tcp_pair()
    with ours, theirs:
        stream = Stream(ours, Options(read_timeout=2))
        stream.bulk()
        buffer = memoryview(bytearray(BULK_READ))
        waiting = asyncio.ensure_future(stream.fill_into(buffer, "the item"))
        await asyncio.sleep(0.01)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        theirs.sendall(b"all of it")
        assert await stream.fill_into(buffer, "the item") == 9
        assert bytes(buffer[:9]) == b"all of it"


def _send_in_marks(sock: socket.socket, parts: int, pause: float) -> threading.Thread:
    """Send ``parts`` pieces of :data:`BULK_MARK` bytes (each filled with its index), one
    every ``pause`` seconds, from a thread (the loop under test stays free)."""

    def send() -> None:
        for i in range(parts):
            sock.sendall(bytes([i]) * BULK_MARK)
            time.sleep(pause)

    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    return sender


async def test_a_bulk_read_goes_on_while_the_peer_keeps_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The mark is :data:`BULK_MARK` (the sender's memory is not held for a whole
    :data:`BULK_READ`), yet a peer that keeps meeting it fills a whole buffer in one call:
    a chunk is not cut at every wake.  (The linger is lengthened so that a loaded machine's
    scheduling cannot end the read early.)"""
    monkeypatch.setattr(net, "BULK_LINGER", 2.0)
    parts = BULK_READ // BULK_MARK
    assert parts >= 2
    ours, theirs = tcp_pair()
    with ours, theirs:
        stream = Stream(ours, Options(read_timeout=5))
        stream.bulk()
        sender = _send_in_marks(theirs, parts, 0.005)
        buffer = memoryview(bytearray(BULK_READ))
        assert await stream.fill_into(buffer, "the item") == BULK_READ
        assert bytes(buffer) == b"".join(bytes([i]) * BULK_MARK for i in range(parts))
        sender.join(5)


async def test_a_bulk_splice_goes_on_while_the_peer_keeps_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if not hasattr(os, "splice"):
        pytest.skip("splice(2) is Linux's")
    monkeypatch.setattr(net, "BULK_LINGER", 2.0)
    parts = BULK_READ // BULK_MARK
    ours, theirs = tcp_pair()
    with ours, theirs:
        stream = Stream(ours, Options(read_timeout=5))
        stream.bulk()
        sender = _send_in_marks(theirs, parts, 0.005)
        sink = os.open(os.devnull, os.O_WRONLY)
        try:
            assert await stream.splice_into(sink, BULK_READ, "the item") == BULK_READ
        finally:
            os.close(sink)
            stream.close()
        sender.join(5)


async def test_a_bulk_call_leaves_the_socket_unwatched() -> None:
    """The loop watches the socket only during a bulk call (the waits of one call share the
    watch): after the call — returned, timed out or cancelled — nothing is registered for
    its descriptor, so a later ``sock_recv`` (or a new socket given the same number) is not
    woken by a callback of this stream."""
    loop = asyncio.get_running_loop()
    ours, theirs = tcp_pair()
    with ours, theirs:
        stream = Stream(ours, Options(read_timeout=0.3))
        stream.bulk()
        buffer = memoryview(bytearray(BULK_READ))
        theirs.sendall(b"some")
        assert await stream.fill_into(buffer, "the item") == 4
        assert not loop.remove_reader(ours.fileno())
        with pytest.raises(ResolveTimeout):
            await stream.fill_into(buffer, "the item")
        assert not loop.remove_reader(ours.fileno())
        waiting = asyncio.ensure_future(stream.fill_into(buffer, "the item"))
        await asyncio.sleep(0.05)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        assert not loop.remove_reader(ours.fileno())
        theirs.sendall(b"more")
        assert await stream.read("the next reply") == b"more"
