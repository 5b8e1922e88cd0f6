"""``-x`` against Debian's proxies, each started by the test on loopback with a private
config: squid (``GET ftp://…`` as curl sends it, and absolute-form http), tinyproxy (a
``BasicAuth`` login for absolute-form requests and CONNECT tunnels) and Dante's danted
(SOCKS5, names resolved by omniurl or by the proxy, https on the tunnel).  Each skips,
with the package to install, where its proxy is absent; ``.ci/run`` installs them.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from _ftphttp import OPTS, daemon, write_tree
from helpers import free_port, throwaway_pki

from omniurl import resolvers, testservers
from omniurl.resolvers.errors import AuthError, StatusError
from omniurl.resolvers.http.result import HTTPResult

pytestmark = pytest.mark.interop

ROOT_USER = os.geteuid() == 0
BLOB = bytes(range(256)) * 4099  # ~1 MiB, no line structure


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    files = {"pub/hello.txt": b"hello through a proxy\n", "pub/blob.bin": BLOB}
    return write_tree(tmp_path / "root", files)


@pytest_asyncio.fixture
async def scratch() -> AsyncIterator[Path]:
    """A folder the proxies' unprivileged users can write (pytest's tmp_path is 0700)."""
    folder = Path(tempfile.mkdtemp(prefix="omniurl-proxy-"))
    folder.chmod(0o777)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _executable(name: str, default: str, package: str) -> str:
    exe = shutil.which(name) or default
    if not os.path.exists(exe):
        pytest.skip(f"{name} not installed (apt-get install {package})")
    return exe


SQUID_CONF = """\
http_port 127.0.0.1:{port}
acl local src 127.0.0.1
http_access allow local
http_access deny all
cache deny all
cache_mem 8 MB
pid_filename {scratch}/squid.pid
access_log stdio:{scratch}/access.log
cache_log {scratch}/cache.log
cache_store_log none
visible_hostname omniurl-test
shutdown_lifetime 0 seconds
pinger_enable off
dns_nameservers 127.0.0.1
coredump_dir {scratch}
"""


@pytest_asyncio.fixture
async def squid(scratch: Path) -> AsyncIterator[int]:
    exe = _executable("squid", "/usr/sbin/squid", "squid")
    port = free_port()
    conf = scratch / "squid.conf"
    conf.write_text(SQUID_CONF.format(port=port, scratch=scratch))
    async with daemon([exe, "-N", "-f", str(conf)], port):
        yield port


async def test_squid_gets_ftp_urls_for_us(squid: int, tree: Path) -> None:
    """curl's FTP through an HTTP proxy: ``GET ftp://…``; squid logs in, changes directory
    and retrieves; a missing file is squid's 404, a typed StatusError."""
    ftp = await testservers.start("ftp", tree)
    base = f"ftp://127.0.0.1:{ftp.port}/pub"
    options = OPTS.with_(proxy=f"http://127.0.0.1:{squid}")
    try:
        async with await resolvers.resolve(f"{base}/blob.bin", options) as res:
            assert await res.read() == BLOB
        async with await resolvers.resolve(f"{base}/hello.txt", options) as res:
            assert await res.read() == b"hello through a proxy\n"
        async with await resolvers.resolve(f"{base}/", options) as res:
            listing = await res.read()
        assert b"blob.bin" in listing and b"hello.txt" in listing  # squid's HTML listing
        with pytest.raises(StatusError) as info:
            await resolvers.resolve(f"{base}/missing.txt", options)
        assert info.value.status == 404
        # squid spoke FTP for us: the server saw its RETR, omniurl sent no FTP itself
        assert b"RETR blob.bin" in ftp.info["commands"]
    finally:
        await ftp.close()


async def test_squid_forwards_absolute_form_http(squid: int, tree: Path) -> None:
    web = await testservers.start("http", tree)
    try:
        options = OPTS.with_(proxy=f"http://127.0.0.1:{squid}")
        async with await resolvers.resolve(
            f"http://127.0.0.1:{web.port}/pub/blob.bin", options
        ) as res:
            assert await res.read() == BLOB
            assert "squid" in res.result_as(HTTPResult).headers.get("via", "")
    finally:
        await web.close()


TINYPROXY_CONF = """\
Port {port}
Listen 127.0.0.1
Timeout 30
MaxClients 20
Allow 127.0.0.1
LogLevel Warning
BasicAuth omni s3cret
"""


@pytest_asyncio.fixture
async def tinyproxy(scratch: Path) -> AsyncIterator[int]:
    exe = _executable("tinyproxy", "/usr/bin/tinyproxy", "tinyproxy")
    port = free_port()
    conf = scratch / "tinyproxy.conf"
    text = TINYPROXY_CONF.format(port=port)
    if ROOT_USER:
        text += "User nobody\nGroup nogroup\n"
    conf.write_text(text)
    async with daemon([exe, "-d", "-c", str(conf)], port):
        yield port


async def test_tinyproxy_with_a_login(tinyproxy: int, tree: Path) -> None:
    """``-x http://user:password@…``: Proxy-Authorization for an absolute-form http request
    and for a CONNECT tunnel (gopher); a wrong login is AuthError (exit 7)."""
    web = await testservers.start("http", tree)
    gopher = await testservers.start("gopher", tree)
    good = OPTS.with_(proxy=f"http://omni:s3cret@127.0.0.1:{tinyproxy}")
    bad = OPTS.with_(proxy=f"http://omni:wrong@127.0.0.1:{tinyproxy}")
    try:
        async with await resolvers.resolve(
            f"http://127.0.0.1:{web.port}/pub/hello.txt", good
        ) as res:
            assert await res.read() == b"hello through a proxy\n"
        async with await resolvers.resolve(
            f"gopher://127.0.0.1:{gopher.port}/9/pub/blob.bin", good
        ) as res:
            assert await res.read() == BLOB
        for url in (
            f"http://127.0.0.1:{web.port}/pub/hello.txt",
            f"gopher://127.0.0.1:{gopher.port}/0/pub/hello.txt",
        ):
            with pytest.raises(AuthError):
                await resolvers.resolve(url, bad)
    finally:
        await web.close()
        await gopher.close()


DANTED_CONF = """\
logoutput: {scratch}/danted.log
internal: 127.0.0.1 port = {port}
external: 127.0.0.1
socksmethod: none
clientmethod: none
{users}client pass {{ from: 127.0.0.0/8 to: 0.0.0.0/0 }}
socks pass {{ from: 127.0.0.0/8 to: 0.0.0.0/0 command: connect }}
"""


@pytest_asyncio.fixture
async def danted(scratch: Path) -> AsyncIterator[int]:
    exe = _executable("danted", "/usr/sbin/danted", "dante-server")
    port = free_port()
    conf = scratch / "danted.conf"
    # (Dante wants its users before the rules.)
    users = "user.privileged: root\nuser.unprivileged: nobody\n" if ROOT_USER else ""
    conf.write_text(DANTED_CONF.format(port=port, scratch=scratch, users=users))
    async with daemon([exe, "-f", str(conf)], port):
        yield port


@pytest.mark.parametrize("kind", ["socks5", "socks5h"])
async def test_dante_socks5_for_gopher_ftp_and_https(
    danted: int, tree: Path, tmp_path: Path, kind: str
) -> None:
    context, ca_file = throwaway_pki(tmp_path)
    gopher = await testservers.start("gopher", tree)
    ftp = await testservers.start("ftp", tree)
    web = await testservers.start("http", tree, tls=context)
    options = OPTS.with_(proxy=f"{kind}://127.0.0.1:{danted}", ca_file=ca_file)
    try:
        async with await resolvers.resolve(
            f"gopher://localhost:{gopher.port}/9/pub/blob.bin", options
        ) as res:
            assert await res.read() == BLOB
        async with await resolvers.resolve(
            f"ftp://localhost:{ftp.port}/pub/blob.bin", options
        ) as res:
            assert await res.read() == BLOB  # the data connection through Dante too
        async with await resolvers.resolve(
            f"https://localhost:{web.port}/pub/hello.txt", options
        ) as res:
            assert await res.read() == b"hello through a proxy\n"
    finally:
        await gopher.close()
        await ftp.close()
        await web.close()
