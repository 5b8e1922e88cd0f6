"""``-x/--proxy`` and ``--noproxy``: SOCKS5 (socks5: omniurl resolves; socks5h: the proxy
does) for the line protocols, an HTTP proxy for http (absolute form) and as a CONNECT tunnel
for the others — proxies of our own that record what they were asked for."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import throwaway_pki

from omniurl import resolvers, testservers
from omniurl.resolvers.errors import AddressRefused, ConfigurationError
from omniurl.resolvers.options import Options
from omniurl.resolvers.policy import STRICT
from omniurl.resolvers.proxy import bypassed, connect_request, parse_proxy
from omniurl.testservers.proxies import HTTPProxy, Socks5Server


def _sent(plan: resolvers.Plan) -> list[str]:
    """The plan's unconditional steps as shown: the request head, line by line (a
    conditional step, the carry after a followed redirect, sends nothing here)."""
    planned = plan.to_json()
    return [s for s, when in zip(planned["steps"], planned["when"], strict=True) if when is None]


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


@pytest.mark.parametrize("kind", ["socks5", "socks5h"])
async def test_https_through_socks_verifies_the_urls_host(kind: str, tmp_path: Path) -> None:
    """TLS starts on the SOCKS tunnel and checks the certificate against the URL's host, not
    the proxy's; an untrusted certificate ends it before a request is sent."""
    server_context, ca_file = throwaway_pki(tmp_path)
    (tmp_path / "s.txt").write_text("secret over tls\n")
    web = await testservers.start("http", tmp_path, tls=server_context)
    try:
        async with Socks5Server() as socks:
            options = Options(proxy=f"{kind}://127.0.0.1:{socks.port}", ca_file=ca_file)
            url = f"https://localhost:{web.port}/s.txt"
            async with await resolvers.resolve(url, options) as res:
                assert await res.read() == b"secret over tls\n"
            expected = "localhost" if kind == "socks5h" else "127.0.0.1"
            assert socks.targets == [(expected, web.port)]
            with pytest.raises(resolvers.errors.ConnectError, match="certificate"):
                await resolvers.resolve(url, options.with_(ca_file=None))
            assert len(socks.targets) == 2
        # one request, over the trusted handshake; none over the untrusted one
        assert [(m, t) for m, t, _h in web.info["requests"]] == [(b"GET", b"/s.txt")]
    finally:
        await web.close()


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
            # the plan is the wire: the absolute form and every header, sent by omniurl
            url = f"http://127.0.0.1:{web.port}/./a.txt"
            steps = _sent(resolvers.plan(url, options))
            assert steps[:2] == [f"GET {url} HTTP/1.1", f"Host: 127.0.0.1:{web.port}"]
            async with await resolvers.resolve(url, options) as res:
                assert await res.read() == b"via proxy\n"
            assert proxy.heads[:2] == [
                f"GET {url.replace('/./', '/')} HTTP/1.1\r\nHost: 127.0.0.1:{web.port}\r\n".encode()
                + b"User-Agent: omniurl/0.1\r\nAccept: */*\r\nAccept-Encoding: identity\r\n\r\n",
                "\r\n".join([*steps, "", ""]).encode(),
            ]
            notes: list[str] = []
            noted = options.with_(transcript=lambda d, t: notes.append(f"{d} {t}"))
            async with await resolvers.resolve(
                f"gopher://127.0.0.1:{gopher.port}/0/a.txt", noted
            ) as res:
                assert await res.read() == b"via proxy\r\n"
            # -v shows the tunnel's request and the proxy's answer, as curl -v does
            assert notes[2:5] == [
                f"> CONNECT 127.0.0.1:{gopher.port} HTTP/1.1",
                f"> Host: 127.0.0.1:{gopher.port}",
                "< HTTP/1.1 200 Connection established",
            ], notes
            assert proxy.request_lines[2] == f"CONNECT 127.0.0.1:{gopher.port} HTTP/1.1".encode()
    finally:
        await web.close()
        await gopher.close()


async def test_ftp_through_an_http_proxy_is_get_ftp_and_p_tunnels_it(tmp_path: Path) -> None:
    """curl's way: ``-x http://`` asks the proxy for ``GET ftp://…`` (the proxy speaks FTP);
    ``-p``/``--proxytunnel`` keeps FTP end to end through CONNECT (data connection too)."""
    (tmp_path / "pub").mkdir()
    (tmp_path / "pub" / "f.bin").write_bytes(bytes(range(256)) * 8)
    ftp = await testservers.start("ftp", tmp_path)
    url = f"ftp://127.0.0.1:{ftp.port}/pub/f.bin"
    try:
        async with HTTPProxy() as proxy:
            options = Options(proxy=f"http://127.0.0.1:{proxy.port}")
            plan = resolvers.plan(url, options)
            assert plan.to_json()["steps"][:2] == [
                f"GET {url} HTTP/1.1",
                f"Host: 127.0.0.1:{ftp.port}",
            ]
            async with await resolvers.resolve(url, options) as res:
                assert await res.read() == bytes(range(256)) * 8
            assert proxy.heads == [
                f"GET {url} HTTP/1.1\r\nHost: 127.0.0.1:{ftp.port}\r\n".encode()
                + b"User-Agent: omniurl/0.1\r\nAccept: */*\r\nAccept-Encoding: identity\r\n\r\n"
            ]
            async with await resolvers.resolve(url, options.with_(proxy_tunnel=True)) as res:
                assert await res.read() == bytes(range(256)) * 8
            assert proxy.request_lines[1] == f"CONNECT 127.0.0.1:{ftp.port} HTTP/1.1".encode()
            assert len(proxy.request_lines) == 3  # the data connection's CONNECT
            # CR LF in a CWD segment: refused by the FTP rules before the proxy sees a byte
            with pytest.raises(resolvers.errors.DelimiterRefused):
                await resolvers.resolve(f"ftp://127.0.0.1:{ftp.port}/a%0D%0ADELE%20x/f", options)
            assert len(proxy.heads) == 3
    finally:
        await ftp.close()


async def test_proxy_logins_http_connect_get_ftp_and_socks(tmp_path: Path) -> None:
    """A login in the proxy URL: ``Proxy-Authorization: Basic`` for absolute-form requests,
    CONNECT and ``GET ftp://``; RFC 1929 for SOCKS5; none or a wrong one is AuthError
    (exit 7); the plan masks it."""
    (tmp_path / "a.txt").write_text("for members\n")
    web = await testservers.start("http", tmp_path)
    gopher = await testservers.start("gopher", tmp_path)
    ftp = await testservers.start("ftp", tmp_path)
    urls = {
        f"http://127.0.0.1:{web.port}/a.txt": b"for members\n",
        f"gopher://127.0.0.1:{gopher.port}/0/a.txt": b"for members\r\n",
        f"ftp://127.0.0.1:{ftp.port}/a.txt": b"for members\n",
    }
    token = "Proxy-Authorization: Basic dTpwJTo="  # base64("u:p%:")
    try:
        async with HTTPProxy(login=("u", "p%:")) as proxy:
            good = Options(proxy=f"http://u:p%25%3A@127.0.0.1:{proxy.port}")
            for url, body in urls.items():
                async with await resolvers.resolve(url, good) as res:
                    assert await res.read() == body
            assert len(proxy.heads) == len(urls)  # (so that all() below is not vacuous)
            assert all(token.encode() + b"\r\n" in head for head in proxy.heads)
            for url in urls:
                if not url.startswith("gopher"):  # (gopher: a CONNECT tunnel, not planned)
                    steps = resolvers.plan(url, good).to_json()["steps"]
                    assert "Proxy-Authorization: Basic ****" in steps
            for url in urls:
                with pytest.raises(resolvers.errors.AuthError):
                    await resolvers.resolve(url, Options(proxy=f"http://127.0.0.1:{proxy.port}"))
        async with Socks5Server(login=("sock", "s3")) as socks:
            url = f"gopher://127.0.0.1:{gopher.port}/0/a.txt"
            async with await resolvers.resolve(
                url, Options(proxy=f"socks5://sock:s3@127.0.0.1:{socks.port}")
            ) as res:
                assert await res.read() == b"for members\r\n"
            with pytest.raises(resolvers.errors.AuthError, match="refused the login"):
                await resolvers.resolve(
                    url, Options(proxy=f"socks5://sock:no@127.0.0.1:{socks.port}")
                )
            with pytest.raises(resolvers.errors.AuthError, match="wants a login"):
                await resolvers.resolve(url, Options(proxy=f"socks5://127.0.0.1:{socks.port}"))
            assert socks.logins == [("sock", "s3"), ("sock", "no")]
            assert socks.targets == [("127.0.0.1", gopher.port)]
    finally:
        await web.close()
        await gopher.close()
        await ftp.close()


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


async def test_digest_through_an_http_proxy_names_the_origin_path(tmp_path: Path) -> None:
    """Through a proxy the 401's Digest challenge is answered on the kept connection, the
    answer's uri the path the origin server receives (RFC 7616 §3.4), not the proxy's "/"."""
    web = await testservers.start("http", tmp_path, credentials=("alice", "s3cret"), auth="digest")
    try:
        async with HTTPProxy() as proxy:
            options = Options(
                proxy=f"http://127.0.0.1:{proxy.port}", user=("alice", "s3cret"), http_auth="digest"
            )
            url = f"http://127.0.0.1:{web.port}/secret/"
            async with await resolvers.resolve(url, options) as res:
                assert await res.read() == b"secret for alice\n"
            assert proxy.request_lines == [f"GET {url} HTTP/1.1".encode()] * 2
            assert b'Digest username="alice", realm="omniurl"' in proxy.heads[1]
            assert b'uri="/secret/"' in proxy.heads[1]
            assert len(proxy.targets) == 1  # one connection: the answer went on the kept one
    finally:
        await web.close()


async def test_an_https_proxy_gets_the_planned_bytes_inside_its_tls(tmp_path: Path) -> None:
    """``-x https://``: TLS to the proxy (its certificate checked), then the plan's own bytes
    inside it — an ``http:`` URL's absolute-form head exactly as planned, an ``https:``
    URL's origin TLS inside the proxy's (the proxy relays ciphertext), gopher through
    CONNECT.  Before, httpx sent its own head for http and every other scheme sent its
    CONNECT in the clear to the TLS port."""
    server_context, ca_file = throwaway_pki(tmp_path)
    (tmp_path / "a.txt").write_text("via tls proxy\n")
    web = await testservers.start("http", tmp_path)
    secure = await testservers.start("http", tmp_path, tls=server_context)
    gopher = await testservers.start("gopher", tmp_path)
    try:
        async with HTTPProxy(tls=server_context) as proxy:
            options = Options(proxy=f"https://localhost:{proxy.port}", ca_file=ca_file)
            url = f"http://127.0.0.1:{web.port}/a.txt"
            plan = resolvers.plan(url, options)
            assert plan.to_json()["steps"][0] == f"GET {url} HTTP/1.1"
            async with await resolvers.resolve(url, options) as res:
                assert await res.read() == b"via tls proxy\n"
            assert proxy.heads == ["\r\n".join([*_sent(plan), "", ""]).encode()]

            secure_url = f"https://localhost:{secure.port}/a.txt"
            assert resolvers.plan(secure_url, options).to_json()["steps"][0] == (
                "GET /a.txt HTTP/1.1"
            )
            async with await resolvers.resolve(secure_url, options) as res:
                assert await res.read() == b"via tls proxy\n"
            assert proxy.request_lines[1] == f"CONNECT localhost:{secure.port} HTTP/1.1".encode()
            assert [(m, t) for m, t, _h in secure.info["requests"]] == [(b"GET", b"/a.txt")]

            async with await resolvers.resolve(
                f"gopher://127.0.0.1:{gopher.port}/0/a.txt", options
            ) as res:
                assert await res.read() == b"via tls proxy\r\n"
            assert proxy.request_lines[2] == f"CONNECT 127.0.0.1:{gopher.port} HTTP/1.1".encode()

            # an untrusted proxy certificate ends it before the proxy is asked anything
            with pytest.raises(resolvers.errors.ConnectError, match="certificate"):
                await resolvers.resolve(url, options.with_(ca_file=None))
            assert len(proxy.request_lines) == 3
    finally:
        await web.close()
        await secure.close()
        await gopher.close()


async def test_the_environment_proxy_is_planned_and_sent_as_minus_x(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--proxy-env``: ``http_proxy`` is planned as ``-x`` is (the absolute form in the
    plan, sent byte for byte), ``no_proxy`` goes direct, ``https_proxy`` tunnels."""
    (tmp_path / "a.txt").write_text("via env proxy\n")
    web = await testservers.start("http", tmp_path)
    try:
        async with HTTPProxy() as proxy:
            monkeypatch.setenv("http_proxy", f"http://127.0.0.1:{proxy.port}")
            monkeypatch.setenv("no_proxy", "")
            options = Options(trust_env=True)
            url = f"http://127.0.0.1:{web.port}/a.txt"
            steps = _sent(resolvers.plan(url, options))
            assert steps[0] == f"GET {url} HTTP/1.1"
            assert resolvers.plan(url, Options()).to_json()["steps"][0] == "GET /a.txt HTTP/1.1"
            async with await resolvers.resolve(url, options) as res:
                assert await res.read() == b"via env proxy\n"
            assert proxy.heads == ["\r\n".join([*steps, "", ""]).encode()]

            monkeypatch.setenv("no_proxy", "127.0.0.1")
            assert resolvers.plan(url, options).to_json()["steps"][0] == "GET /a.txt HTTP/1.1"
            async with await resolvers.resolve(url, options) as res:
                assert await res.read() == b"via env proxy\n"
            assert len(proxy.heads) == 1  # direct

            # -x wins over the environment
            async with HTTPProxy() as other:
                monkeypatch.setenv("no_proxy", "")
                chosen = options.with_(proxy=f"http://127.0.0.1:{other.port}")
                async with await resolvers.resolve(url, chosen) as res:
                    assert await res.read() == b"via env proxy\n"
                assert len(other.heads) == 1 and len(proxy.heads) == 1
    finally:
        await web.close()
