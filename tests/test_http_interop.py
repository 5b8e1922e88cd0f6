"""The HTTP resolver against nginx (Debian's nginx-light), started by the test on loopback.

nginx runs in the foreground without a master process, with a private config and prefix on
a free port; the test stops it.  Skips where nginx is not installed.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from _ftphttp import (
    APACHE,
    NGINX,
    NGINX_USER,
    OPTS,
    run_cli,
    running,
    start_apache,
    start_nginx,
    world_readable_tree,
    write_tree,
)

from omniurl import resolvers
from omniurl.resolvers.errors import AuthError, RedirectRefused, StatusError
from omniurl.resolvers.options import Options

pytestmark = pytest.mark.interop

BIG = os.urandom(3 * 1024 * 1024 + 5)


@pytest.fixture
def web_tree(tmp_path: Path) -> Path:
    files = {"pub/hello.txt": b"hello from nginx\n", "pub/big.bin": BIG}
    return write_tree(tmp_path / "root", {**files, "secret/plan.txt": b"for alice only\n"})


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


@pytest.mark.parametrize("validator", ["first", "stale", None])
async def test_resume_with_range_and_if_range(
    nginx: str, tmp_path: Path, validator: str | None
) -> None:
    """-C -: Range from byte K with If-Range on nginx's ETag (206, appended); a stale
    validator gets the whole file (200, restarted — never appended); none: Range alone."""
    k = 999_999
    url = f"http://{nginx}/pub/big.bin"
    async with await resolvers.resolve(url, OPTS) as first:
        etag = first.validator
    assert etag is not None
    assert etag.startswith('"')
    out = tmp_path / "big.bin"
    (tmp_path / ".big.bin.part").write_bytes(BIG[:k] if validator != "stale" else b"?" * k)
    if validator is not None:
        sent = etag if validator == "first" else '"stale-0"'
        record = {"url": url, "validator": sent, "total": len(BIG)}
        (tmp_path / ".big.bin.part.json").write_text(json.dumps(record))
    status, _out, err = await run_cli("get", "-v", "-C", "-", "-o", str(out), url)
    assert status == 0, err
    assert hashlib.sha256(out.read_bytes()).digest() == hashlib.sha256(BIG).digest()
    assert f"> range: bytes={k}-".encode() in err.lower()
    assert (b"206 Partial Content" in err) == (validator != "stale")


async def test_basic_auth_with_nginx(nginx: str, tmp_path: Path) -> None:
    """nginx's auth_basic: the URL's login, -u and ~/.netrc all reach /secret/; a wrong
    password is AuthError (exit 7, the password masked in what is printed)."""
    user, password = NGINX_USER
    url = f"http://{nginx}/secret/plan.txt"
    async with await resolvers.resolve(
        f"http://{user}:{password}@{nginx}/secret/plan.txt", OPTS
    ) as res:
        assert await res.read() == b"for alice only\n"
    options = Options(user=(user, password), read_timeout=OPTS.read_timeout)
    async with await resolvers.resolve(url, options) as res:
        assert await res.read() == b"for alice only\n"
    with pytest.raises(AuthError, match="401"):
        await resolvers.resolve(url, Options(user=(user, "wrong"), read_timeout=10))
    (tmp_path / ".netrc").write_text(f"machine 127.0.0.1 login {user} password {password}\n")
    (tmp_path / ".netrc").chmod(0o600)
    status, out, _err = await run_cli("get", "--netrc", url, cwd=tmp_path)
    assert (status, out) == (0, b"for alice only\n")
    status, out, err = await run_cli("get", f"http://{user}:WRONGPW@{nginx}/secret/plan.txt")
    # nginx's 401 page is shown, as curl shows it (issue 31 item 4); the status stays 7
    assert status == 7 and b"401 Authorization Required" in out and b"WRONGPW" not in err
    status, out, err = await run_cli("get", "-f", f"http://{user}:WRONGPW@{nginx}/secret/plan.txt")
    assert (status, out) == (22, b"")


@pytest_asyncio.fixture
async def apache(tmp_path: Path) -> AsyncIterator[str]:
    if not os.path.exists(APACHE):
        pytest.skip("apache2 not installed (apt-get install apache2)")
    files = {"www/basic/plan.txt": b"basic secret\n", "www/digest/plan.txt": b"digest secret\n"}
    with world_readable_tree(files) as root:
        async with running(start_apache, root, tmp_path / "apache") as netloc:
            yield netloc


async def test_basic_and_digest_with_apache(apache: str) -> None:
    """Apache's mod_auth_digest checks omniurl's Digest answer (RFC 7616, qop=auth, a query
    in the uri) and mod_auth_basic its Basic; a wrong password is AuthError; -v shows the
    Digest step once, when the 401 made it due."""
    user, password = NGINX_USER
    for mode in ("basic", "digest"):
        options = Options(user=(user, password), http_auth=mode, read_timeout=10)
        url = f"http://{apache}/{mode}/plan.txt?x=1"
        async with await resolvers.resolve(url, options) as res:
            assert await res.read() == f"{mode} secret\n".encode()
        with pytest.raises(AuthError, match="401"):
            await resolvers.resolve(url, options.with_(user=(user, "wrong")))
    status, _out, err = await run_cli(
        "get", "-v", "--digest", "-u", f"{user}:{password}", f"http://{apache}/digest/plan.txt"
    )
    assert status == 0, err
    assert err.count(b"> Authorization: Digest") == 1 and password.encode() not in err
