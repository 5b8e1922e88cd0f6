"""``-x/--proxy`` and ``--noproxy``: SOCKS5 (socks5: omniurl resolves; socks5h: the proxy
does) for the line protocols, an HTTP proxy for http (absolute form) and as a CONNECT tunnel
for the others — proxies of our own that record what they were asked for."""

from __future__ import annotations

from pathlib import Path

import pytest

from omniurl import resolvers, testservers
from omniurl.resolvers.errors import AddressRefused, ConfigurationError
from omniurl.resolvers.options import Options
from omniurl.resolvers.policy import STRICT
from omniurl.resolvers.proxy import bypassed, connect_request, parse_proxy
from omniurl.testservers.proxies import HTTPProxy, Socks5Server


def test_pure_pieces() -> None:
    assert str(parse_proxy("socks5h://p.example")) == "socks5h://p.example:1080"
    assert str(parse_proxy("p.example:8080")) == "http://p.example:8080"
    with pytest.raises(ConfigurationError):
        parse_proxy("ftp://p.example")
    assert connect_request("127.0.0.1", 70) == b"\x05\x01\x00\x01\x7f\x00\x00\x01\x00\x46"
    assert connect_request("h.example", 70) == b"\x05\x01\x00\x03\x09h.example\x00\x46"
    assert bypassed("www.example.org", ("example.org",)) and bypassed("x", ("*",))
    assert not bypassed("example.org.evil", ("example.org",))


@pytest.mark.parametrize("kind", ["socks5", "socks5h"])
async def test_gopher_and_ftp_through_socks(kind: str, tmp_path: Path) -> None:
    (tmp_path / "hello.txt").write_text("hello\n")
    gopher = await testservers.start("gopher", tmp_path)
    ftp = await testservers.start("ftp", tmp_path)
    try:
        async with Socks5Server() as socks:
            options = Options(proxy=f"{kind}://127.0.0.1:{socks.port}")
            async with await resolvers.resolve(
                f"gopher://localhost:{gopher.port}/0/hello.txt", options
            ) as res:
                assert await res.read() == b"hello\r\n"
            async with await resolvers.resolve(
                f"ftp://localhost:{ftp.port}/hello.txt", options
            ) as res:
                assert await res.read() == b"hello\n"
            # socks5h: the proxy got the name; socks5: the address omniurl resolved
            expected = "localhost" if kind == "socks5h" else "127.0.0.1"
            assert socks.targets[0] == (expected, gopher.port)
            assert socks.targets[1] == (expected, ftp.port)
            assert len(socks.targets) == 3  # the FTP data connection went through it too
    finally:
        await gopher.close()
        await ftp.close()


async def test_http_through_an_http_proxy_and_other_schemes_through_connect(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("via proxy\n")
    web = await testservers.start("http", tmp_path)
    gopher = await testservers.start("gopher", tmp_path)
    try:
        async with HTTPProxy() as proxy:
            options = Options(proxy=f"http://127.0.0.1:{proxy.port}")
            async with await resolvers.resolve(
                f"http://127.0.0.1:{web.port}/a.txt", options
            ) as res:
                assert await res.read() == b"via proxy\n"
            assert (
                proxy.request_lines[0] == f"GET http://127.0.0.1:{web.port}/a.txt HTTP/1.1".encode()
            )
            async with await resolvers.resolve(
                f"gopher://127.0.0.1:{gopher.port}/0/a.txt", options
            ) as res:
                assert await res.read() == b"via proxy\r\n"
            assert proxy.request_lines[1] == f"CONNECT 127.0.0.1:{gopher.port} HTTP/1.1".encode()
    finally:
        await web.close()
        await gopher.close()


async def test_noproxy_goes_direct(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("direct\n")
    gopher = await testservers.start("gopher", tmp_path)
    try:
        async with Socks5Server() as socks:
            options = Options(proxy=f"socks5://127.0.0.1:{socks.port}", noproxy=("127.0.0.1",))
            async with await resolvers.resolve(
                f"gopher://127.0.0.1:{gopher.port}/0/a.txt", options
            ) as res:
                assert await res.read() == b"direct\r\n"
            assert socks.targets == []
    finally:
        await gopher.close()


async def test_the_policy_applies_to_the_proxy_and_to_the_host() -> None:
    async with Socks5Server() as socks:
        strict = Options(proxy=f"socks5h://127.0.0.1:{socks.port}", policy=STRICT)
        with pytest.raises(AddressRefused):  # the proxy itself is on loopback
            await resolvers.resolve("gopher://gopher.example/1/", strict)
        assert socks.targets == []
        allowed_proxy = Options(
            proxy=f"socks5://127.0.0.1:{socks.port}",
            policy=STRICT.allowing_hosts(["127.0.0.1"]),
            resolve={("gopher.example", 70): ("10.0.0.1", 70)},
        )
        with pytest.raises(AddressRefused):  # the URL's host resolves to a private address
            await resolvers.resolve("gopher://gopher.example/1/", allowed_proxy)
        assert socks.targets == []
