"""The HTTP resolver against nginx (Debian's nginx-light), started by the test on loopback.

nginx runs in the foreground without a master process, with a private config and prefix on
a free port; the test stops it.  Skips where nginx is not installed.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from _ftphttp import NGINX, OPTS, running, start_nginx

from omniurl import resolvers
from omniurl.resolvers.errors import RedirectRefused, StatusError

pytestmark = pytest.mark.interop

BIG = os.urandom(3 * 1024 * 1024 + 5)


@pytest.fixture
def web_tree(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    (root / "pub").mkdir(parents=True)
    (root / "pub" / "hello.txt").write_bytes(b"hello from nginx\n")
    (root / "pub" / "big.bin").write_bytes(BIG)
    return root


@pytest_asyncio.fixture
async def nginx(web_tree: Path, tmp_path: Path) -> AsyncIterator[str]:
    if not os.path.exists(NGINX):
        pytest.skip("nginx not installed (apt-get install nginx-light)")
    async with running(start_nginx, web_tree, tmp_path / "nginx") as netloc:
        yield netloc


async def test_get_streams_exact_bytes(nginx: str) -> None:
    async with await resolvers.resolve(f"http://{nginx}/pub/big.bin", OPTS) as resource:
        assert resource.size == len(BIG)
        assert resource.media_type == "application/octet-stream"
        assert await resource.read() == BIG


async def test_text_media_type_and_headers(nginx: str) -> None:
    async with await resolvers.resolve(f"http://{nginx}/pub/hello.txt", OPTS) as resource:
        assert resource.media_type == "text/plain"
        assert resource.replies[0] == "HTTP/1.1 200 OK"
        assert await resource.read() == b"hello from nginx\n"


async def test_directory_redirect_is_followed(nginx: str) -> None:
    async with await resolvers.resolve(f"http://{nginx}/pub", OPTS) as resource:
        body = await resource.read()
        assert resource.chain == [f"http://{nginx}/pub"]
    assert b"hello.txt" in body  # nginx's autoindex of /pub/


async def test_redirect_route_and_refused_redirect_to_file(nginx: str) -> None:
    async with await resolvers.resolve(f"http://{nginx}/moved", OPTS) as resource:
        assert await resource.read() == b"hello from nginx\n"
    with pytest.raises(RedirectRefused):
        await resolvers.resolve(f"http://{nginx}/to-file", OPTS)


async def test_404_is_status_error(nginx: str) -> None:
    with pytest.raises(StatusError) as info:
        await resolvers.resolve(f"http://{nginx}/nope", OPTS)
    assert info.value.status == 404
