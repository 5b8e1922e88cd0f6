"""HTTP's connection-reuse check works on descriptors numbered 1024 and above (issue 14 item 4).

``select.select`` raised a raw ``ValueError: filedescriptor out of range`` there, so a program
with more than 1,024 files open could not fetch http at all.
"""

from __future__ import annotations

import os
import resource
import socket

import pytest

from omniurl.resolvers.net import Stream
from omniurl.resolvers.options import Options

HIGH = 1500


def _high_pair() -> tuple[socket.socket, socket.socket]:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard <= HIGH:
        pytest.skip(f"the hard descriptor limit {hard} is below {HIGH}")
    if soft != resource.RLIM_INFINITY and soft <= HIGH:
        resource.setrlimit(resource.RLIMIT_NOFILE, (HIGH + 10, hard))
    ours, theirs = socket.socketpair()
    fd = os.dup2(ours.fileno(), HIGH)
    ours.close()
    high = socket.socket(fileno=fd)
    high.setblocking(False)
    return high, theirs


async def test_the_idle_check_works_on_a_descriptor_above_1024() -> None:
    """A kept connection is checked before reuse (:meth:`Stream.idle_ended`: a
    non-blocking peek, no ``select``), whatever its descriptor's number."""
    ours, theirs = _high_pair()
    with ours, theirs:
        assert ours.fileno() >= 1024
        stream = Stream(ours, Options())
        assert stream.idle_ended() is False
        theirs.sendall(b"x")
        assert stream.idle_ended() is True  # said something unasked
        assert ours.recv(1) == b"x"  # the check only peeked
        assert stream.idle_ended() is False
        theirs.close()
        assert stream.idle_ended() is True  # EOF: the server closed
