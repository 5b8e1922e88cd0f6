"""Issue 14's smaller defects, each with a test that failed before its fix.

- ``remove_dot_segments`` was quadratic (re-slicing its input buffer): a 1 MiB reference took
  seconds to join; it now reads the path by position (RFC 3986 §5.2.4, same results).
- the mailto planner leaked the ``email`` package's ``AttributeError`` for ``a@[x``.
- running out of descriptors surfaced as a raw ``OSError: [Errno 24]`` from
  ``net.open_socket``; it is now a typed :class:`ConnectError` naming host and port.
"""

from __future__ import annotations

import asyncio
import errno
import random
import socket
import time

import pytest

from omniurl.resolvers import Options, check, net
from omniurl.resolvers.errors import ConnectError
from omniurl.schemes.errors import OmniurlError
from omniurl.schemes.join import join, remove_dot_segments


def _rfc_reference(path: str) -> str:
    """RFC 3986 §5.2.4 exactly as written (string buffers), for comparison."""
    inp, out = path, ""
    while inp:
        if inp.startswith("../"):
            inp = inp[3:]
        elif inp.startswith("./") or inp.startswith("/./"):
            inp = inp[2:]
        elif inp == "/.":
            inp = "/"
        elif inp.startswith("/../"):
            inp = inp[3:]
            out = out[: out.rfind("/")] if "/" in out else ""
        elif inp == "/..":
            inp = "/"
            out = out[: out.rfind("/")] if "/" in out else ""
        elif inp in (".", ".."):
            inp = ""
        else:
            cut = inp.find("/", 1)
            cut = len(inp) if cut < 0 else cut
            out += inp[:cut]
            inp = inp[cut:]
    return out


def test_remove_dot_segments_agrees_with_the_rfc_text() -> None:
    rng = random.Random(14)
    pieces = ["/", ".", "..", "a", "./", "../", "/.", "/..", "b/", "c"]
    for _ in range(20_000):
        path = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        assert remove_dot_segments(path) == _rfc_reference(path), path


def test_remove_dot_segments_rfc_examples() -> None:
    assert remove_dot_segments("/a/b/c/./../../g") == "/a/g"
    assert remove_dot_segments("mid/content=5/../6") == "mid/6"
    assert remove_dot_segments("a/..") == "/"
    assert remove_dot_segments("/..") == "/"


def test_join_of_a_one_mib_reference_is_linear() -> None:
    ref = "a/./b/../" * (1 << 17)  # 1.1 MiB of dot segments (took 7 s when quadratic)
    start = time.perf_counter()
    joined = join("http://h/x/y", ref)
    elapsed = time.perf_counter() - start
    assert joined == "http://h/x/" + "a/" * (1 << 17)
    assert elapsed < 2.0, elapsed


@pytest.mark.parametrize("url", ["mailto:a@%5Bx", "mailto:%5B@%5B", "mailto:a@b?cc=%5B@%5Bx"])
def test_mailto_planner_errors_are_typed(url: str) -> None:
    with pytest.raises(OmniurlError):
        check(url, Options())


def test_out_of_descriptors_is_a_typed_connect_error() -> None:
    real = socket.socket

    def no_fd(*args: object, **kwargs: object) -> socket.socket:
        if args and args[0] in (socket.AF_INET, socket.AF_INET6) and len(args) <= 2:
            raise OSError(errno.EMFILE, "Too many open files")
        return real(*args, **kwargs)  # type: ignore[arg-type]

    async def attempt() -> None:
        mp = pytest.MonkeyPatch()
        mp.setattr(net.socket, "socket", no_fd)
        try:
            await net.open_socket("127.0.0.1", 9, Options())
        finally:
            mp.undo()

    with pytest.raises(ConnectError) as info:
        asyncio.run(asyncio.wait_for(attempt(), 10))
    assert info.value.component == "host"
    assert str(info.value) == "cannot open a socket for 127.0.0.1:9: Too many open files"
