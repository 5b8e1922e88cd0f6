"""HTTP against our h11 server and scripted peers: exact request, redirects, typed errors."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import ssl
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from _ftphttp import OPTS, transcript
from helpers import (
    assert_no_new_connections,
    cancel_mid_transfer,
    connected_sockets,
    read_as_writer,
)

from omniurl import resolvers, schemes
from omniurl.resolvers.errors import (
    AddressRefused,
    ConnectionClosed,
    PortRefused,
    ProtocolError,
    RedirectRefused,
    ResolveTimeout,
    StatusError,
)
from omniurl.resolvers.http.planner import CARRY_STEP
from omniurl.resolvers.http.result import HTTPResult
from omniurl.resolvers.policy import STRICT
from omniurl.testservers import RunningServer
from omniurl.testservers.http import start_http
from omniurl.testservers.recording import recording_of, start_recording

BIG = bytes(range(256)) * 4096  # 1 MiB


@pytest.fixture
def web_root(tmp_path: Path) -> Path:
    (tmp_path / "pub").mkdir()
    (tmp_path / "pub" / "hello.txt").write_bytes(b"hello\n")
    (tmp_path / "pub" / "big.bin").write_bytes(BIG)
    return tmp_path


@pytest_asyncio.fixture
async def web(web_root: Path) -> AsyncIterator[RunningServer]:
    server = await start_http(
        web_root,
        routes={
            "/moved": (301, [("Location", "/pub/hello.txt")], b""),
            "/to-file": (302, [("Location", "file:///etc/passwd")], b""),
            "/to-redis": (302, [("Location", "http://127.0.0.1:6379/")], b""),
            "/loop": (302, [("Location", "/loop")], b""),
            "/teapot": (418, [], b"short and stout\n"),
        },
    )
    try:
        yield server
    finally:
        await server.close()


def requests(server: RunningServer) -> list[tuple[bytes, bytes]]:
    return [(m, t) for m, t, _h in server.info["requests"]]


async def test_get_streams_the_body_with_size_and_media_type(web: RunningServer) -> None:
    async with await resolvers.resolve(f"http://{web.netloc}/pub/big.bin", OPTS) as resource:
        assert resource.size == len(BIG)
        assert resource.media_type == "application/octet-stream"
        chunks = [c async for c in resource]
    assert b"".join(chunks) == BIG
    assert len(chunks) > 1  # streamed, not one buffer


async def test_a_consumer_that_writes_at_once_gets_views_of_one_buffer(web: RunningServer) -> None:
    """The bulk path (readinto): with ``views_ok`` the chunks are views of one reused buffer,
    each complete when handed out; without it, each chunk is bytes of its own to keep."""
    url = f"http://{web.netloc}/pub/big.bin"
    async with await resolvers.resolve(url, OPTS) as resource:
        written, kinds = await read_as_writer(resource)
    assert written == BIG
    assert set(kinds) == {memoryview}
    async with await resolvers.resolve(url, OPTS) as resource:
        kept = [chunk async for chunk in resource]
    assert {type(c) for c in kept} == {bytes} and b"".join(kept) == BIG


async def test_request_target_is_sent_exactly_as_the_url_wrote_it(web: RunningServer) -> None:
    url = f"http://{web.netloc}/pub/a%2Fb%20c?q=x%26y&z#fragment"
    plan = resolvers.plan(url, OPTS)
    assert plan.to_json()["steps"][0] == "GET /pub/a%2Fb%20c?q=x%26y&z HTTP/1.1"
    with pytest.raises(StatusError):
        await resolvers.resolve(url, OPTS)
    assert requests(web) == [(b"GET", b"/pub/a%2Fb%20c?q=x%26y&z")]


async def test_empty_path_is_slash(web: RunningServer) -> None:
    assert resolvers.plan(f"http://{web.netloc}", OPTS).to_json()["steps"][0] == "GET / HTTP/1.1"


async def test_wire_request_line_and_headers() -> None:
    """A recording peer sees exactly the plan's request line and no credentials."""
    rec_server = await start_recording()
    try:
        url = f"http://{rec_server.netloc}/x?y"
        with pytest.raises(ResolveTimeout):
            await resolvers.resolve(url, OPTS.with_(read_timeout=0.3))
        lines = recording_of(rec_server).lines()
        plan = resolvers.plan(url, OPTS)
        # The plan is the wire: the request line and every header field, byte for byte, in
        # order, then the empty line ending the head — nothing httpx added on its own.
        # (A conditional step is sent only once a reply makes it due: the carry, after a
        # followed redirect, sends nothing.)
        sent = [step.data for step in plan.steps if step.when is None]
        assert lines[: len(sent) + 1] == [*sent, b""]
        assert plan.to_json()["steps"] == [
            "GET /x?y HTTP/1.1", f"Host: {rec_server.netloc}", "User-Agent: omniurl/0.1",
            "Accept: */*", "Accept-Encoding: identity", CARRY_STEP.shown,
        ]  # fmt: skip
    finally:
        await rec_server.close()


async def test_redirect_is_followed_through_the_core(web: RunningServer) -> None:
    lines, options = transcript()
    async with await resolvers.resolve(f"http://{web.netloc}/moved", options) as resource:
        assert await resource.read() == b"hello\n"
        assert resource.chain == [f"http://{web.netloc}/moved"]
    assert requests(web) == [(b"GET", b"/moved"), (b"GET", b"/pub/hello.txt")]
    assert any("HTTP 301 redirect" in line for line in lines)


async def test_no_follow_returns_the_redirect_itself(web: RunningServer) -> None:
    async with await resolvers.resolve(
        f"http://{web.netloc}/moved", OPTS.with_(follow=False)
    ) as resource:
        result = resource.result_as(HTTPResult)
        assert resource.status == result.status == 301
        assert result.location == "/pub/hello.txt"
    assert requests(web) == [(b"GET", b"/moved")]


async def test_redirect_to_file_is_never_followed(web: RunningServer) -> None:
    with pytest.raises(RedirectRefused) as info:
        await resolvers.resolve(f"http://{web.netloc}/to-file", OPTS)
    assert info.value.component == "location"


async def test_redirect_to_a_blocked_port_is_refused_before_connecting(
    web: RunningServer,
) -> None:
    with pytest.raises(PortRefused) as info:
        await resolvers.resolve(f"http://{web.netloc}/to-redis", OPTS)
    assert info.value.port == 6379


async def test_redirect_loop_is_bounded(web: RunningServer) -> None:
    """/loop redirects to itself: followed to the bound (max_redirects + 1 requests, as
    curl), then RedirectLoop names the repeat."""
    with pytest.raises(resolvers.errors.RedirectLoop, match="redirects back to itself"):
        await resolvers.resolve(f"http://{web.netloc}/loop", OPTS)
    assert len(requests(web)) == OPTS.policy.max_redirects + 1


async def test_error_status_is_status_error_carrying_the_status(web: RunningServer) -> None:
    with pytest.raises(StatusError) as info:
        await resolvers.resolve(f"http://{web.netloc}/teapot", OPTS)
    assert info.value.status == 418
    with pytest.raises(StatusError) as info:
        await resolvers.resolve(f"http://{web.netloc}/missing", OPTS)
    assert info.value.status == 404
    assert info.value.reply == "HTTP/1.1 404 Not Found"


async def test_body_cut_short_is_connection_closed(web_root: Path) -> None:
    server = await start_http(web_root, truncate_after=300_000)
    try:
        async with await resolvers.resolve(f"http://{server.netloc}/pub/big.bin", OPTS) as r:
            with pytest.raises(ConnectionClosed):
                await r.read()
    finally:
        await server.close()


async def test_resolve_mapping_applies_to_httpx_connections(web: RunningServer) -> None:
    """`--resolve` reaches httpx's own connections (our network backend)."""
    options = OPTS.with_(resolve={("omniurl.test", None): ("127.0.0.1", web.port)})
    async with await resolvers.resolve("http://omniurl.test/pub/hello.txt", options) as r:
        assert await r.read() == b"hello\n"
    _m, _t, headers = web.info["requests"][0]
    assert (b"host", b"omniurl.test") in headers


async def test_strict_address_check_holds_for_httpx_connections(web: RunningServer) -> None:
    """A public-looking name mapped (like DNS rebinding would) to loopback is refused by the
    strict policy after resolution, before any connection is made."""
    rec_server = await start_recording()
    try:
        options = OPTS.with_(
            policy=STRICT, resolve={("rebind.test", None): ("127.0.0.1", rec_server.port)}
        )
        with pytest.raises(AddressRefused) as info:
            await resolvers.resolve("http://rebind.test/", options)
        assert info.value.component == "host"
        assert recording_of(rec_server).connections == 0
    finally:
        await rec_server.close()


async def test_connection_refused_is_connect_error() -> None:
    rec_server = await start_recording()
    port = rec_server.port
    await rec_server.close()
    with pytest.raises(resolvers.errors.ConnectError) as info:
        await resolvers.resolve(f"http://127.0.0.1:{port}/", OPTS)
    assert info.value.component == "host"


async def test_https_to_a_plain_server_is_a_typed_error(web: RunningServer) -> None:
    with pytest.raises(resolvers.errors.TransportError):
        await resolvers.resolve(f"https://{web.netloc}/", OPTS)


def test_userinfo_becomes_basic_credentials_masked_in_the_plan() -> None:
    """Issue 11: RFC 9110 §4.2.4 deprecates credentials in an http URL, and curl accepts
    them: so does omniurl (``get`` warns); the plan never shows the password."""
    plan = resolvers.plan("http://user:pw@example.com/", OPTS).to_json()
    assert plan["steps"][-2:] == ["Authorization: Basic ****", CARRY_STEP.shown]
    assert "pw" not in plan["url"]


# -- TLS and proxies ------------------------------------------------------------------------


@pytest.fixture
def self_signed(tmp_path: Path) -> ssl.SSLContext:
    """A server context with a fresh self-signed certificate for 127.0.0.1 (openssl CLI)."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl not installed")
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    return context


async def test_tls_is_verified_by_default(web_root: Path, self_signed: ssl.SSLContext) -> None:
    server = await start_http(web_root, tls=self_signed)
    try:
        with pytest.raises(resolvers.errors.ConnectError, match="certificate") as info:
            await resolvers.resolve(f"https://{server.netloc}/pub/hello.txt", OPTS)
        assert info.value.component == "host"
        assert server.info["requests"] == []  # no request was sent over the untrusted TLS
        insecure = OPTS.with_(verify_tls=False)
        async with await resolvers.resolve(
            f"https://{server.netloc}/pub/hello.txt", insecure
        ) as resource:
            assert await resource.read() == b"hello\n"
    finally:
        await server.close()


async def test_environment_proxy_is_ignored_unless_trusted(
    web: RunningServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with await start_recording() as proxy:
        monkeypatch.setenv("http_proxy", f"http://{proxy.netloc}")
        monkeypatch.setenv("no_proxy", "")
        async with await resolvers.resolve(f"http://{web.netloc}/pub/hello.txt", OPTS) as r:
            assert await r.read() == b"hello\n"
        assert recording_of(proxy).connections == 0
        with pytest.raises(ResolveTimeout):
            await resolvers.resolve(
                f"http://{web.netloc}/pub/hello.txt",
                OPTS.with_(trust_env=True, read_timeout=0.5),
            )
        assert recording_of(proxy).lines()[0] == (
            f"GET http://{web.netloc}/pub/hello.txt HTTP/1.1".encode()
        )


# -- cleanup ----------------------------------------------------------------------------------


async def test_leaving_early_closes_the_connection(web: RunningServer) -> None:
    before = connected_sockets()
    async with await resolvers.resolve(f"http://{web.netloc}/pub/big.bin", OPTS) as resource:
        async for _chunk in resource:
            break
    # `resource` is still referenced: only our close, not the garbage collector, ends it
    await assert_no_new_connections(before, "leaving the transfer early")
    assert resource.kind == "content"


async def test_cancelling_a_transfer_cleans_up(web: RunningServer) -> None:
    await cancel_mid_transfer(f"http://{web.netloc}/pub/big.bin", OPTS)


def test_synchronous_facade_for_scripts(web_root: Path) -> None:
    """`omniurl.get(url)` from plain synchronous code (the server runs in another process)."""
    import os
    import re
    import select
    import sys

    from _ftphttp import ROOT

    import omniurl

    for name, path in (("http", "/pub/hello.txt"), ("ftp", "/pub/hello.txt"), ("ftp", "/pub/")):
        proc = subprocess.Popen(
            [sys.executable, "-m", "omniurl", "serve", name, "--root", str(web_root)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
        )  # fmt: skip
        try:
            assert proc.stderr is not None
            ready, _w, _x = select.select([proc.stderr], [], [], 30)  # bounded wait
            assert ready, "omniurl serve did not start"
            line = proc.stderr.readline()  # the announcement, printed once it listens
            m = re.search(rb"127\.0\.0\.1:\d+", line)
            assert m is not None, line
            data = omniurl.get(f"{name}://{m.group(0).decode()}{path}", OPTS)
        finally:
            proc.terminate()
            proc.wait(10)
            proc.stderr.close()  # type: ignore[union-attr]
        if path.endswith("/"):
            assert isinstance(data, omniurl.Listing)
            # a directory URL lists types (MLSD): in the server's order
            assert sorted((e.kind, e.name) for e in data)[0] == ("file", "big.bin")
            assert data.url == f"ftp://{m.group(0).decode()}/pub/"
        else:
            assert data == b"hello\n"


@pytest.mark.parametrize("location", ["http://[::1/", "//[x/y", "foo:bar"])
async def test_redirect_to_a_malformed_location_is_a_protocol_error(location: str) -> None:
    """urljoin raises a bare ValueError on an unclosed IPv6 bracket: it must come out as the
    typed error naming the Location, like any other invalid redirect target."""
    reply = f"HTTP/1.1 302 Found\r\nLocation: {location}\r\nContent-Length: 0\r\n\r\n".encode()
    server = await start_recording(respond=lambda line: reply if line == b"" else b"")
    try:
        with pytest.raises(ProtocolError) as info:
            await resolvers.resolve(f"http://127.0.0.1:{server.port}/", OPTS)
        assert info.value.component == "location"
    finally:
        await server.close()


async def test_a_host_idna_refuses_is_a_typed_error() -> None:
    """ "☃.example" is no IDNA 2008 name (UTS #46 processing refuses U+2603): the parser says
    so, naming the host and its offset, before httpx could raise a bare InvalidURL."""
    for syntax in ("rfc3986", "lenient"):
        with pytest.raises(schemes.HostError) as info:
            await resolvers.resolve("http://\u2603.example/", OPTS.with_(syntax=syntax))
        assert (info.value.component, info.value.offset) == ("host", 7)
        assert "internationalized domain name" in info.value.message


@pytest.mark.parametrize(
    "proxy", ["http://[x", "garbage://h", "http://127.0.0.1:99999", "ftp://127.0.0.1:21"]
)
async def test_a_malformed_environment_proxy_is_a_configuration_error(
    proxy: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With --proxy-env, a broken http_proxy came out as ValueError/KeyError from deep inside
    httpcore (or, for socks5://, as HTTP proxy requests sent to a SOCKS port)."""
    monkeypatch.setenv("http_proxy", proxy)
    monkeypatch.setenv("no_proxy", "")
    with pytest.raises(resolvers.errors.ConfigurationError) as info:
        await resolvers.resolve("http://example.test/", OPTS.with_(trust_env=True))
    assert proxy in info.value.message


@pytest.mark.parametrize("sent", [b"", b"HTTP/1.1 200 OK\r\nContent-Le"])
async def test_a_server_that_closes_before_its_response_is_connection_closed(sent: bytes) -> None:
    """httpx says "Server disconnected without sending a response": a connection closed
    early (a TransportError, as for every other scheme), not a broken protocol."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
            writer.write(sent)
            await writer.drain()
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        with pytest.raises(ConnectionClosed):
            await resolvers.resolve(f"http://127.0.0.1:{port}/", OPTS)
    finally:
        server.close()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(server.wait_closed(), 2)


async def test_dot_segments_are_sent_as_planned() -> None:
    """The plan is the wire: httpx.URL removes dot segments ("/a/./b/../c" became "/a/c"
    on the wire while the plan showed "/a/./b/../c"); the request target is sent as planned."""
    reply = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
    server = await start_recording(respond=lambda line: reply if line == b"" else b"")
    try:
        url = f"http://127.0.0.1:{server.port}/a/./b/../c?x"
        async with resolvers.resolve(url, OPTS) as resource:
            assert await resource.read() == b"ok"
        assert recording_of(server).lines()[0] == resolvers.plan(url, OPTS).steps[0].data
        assert recording_of(server).lines()[0] == b"GET /a/./b/../c?x HTTP/1.1"
    finally:
        await server.close()


@pytest.mark.parametrize(
    ("path", "target"),
    [
        ("/~user/", b"/~user/"),  # RFC 3986 unreserved: as written
        ("/hello.txt?next=/a/b?c", b"/hello.txt?next=/a/b?c"),  # RFC 3986 §3.4
        ("/D\u00fcrst?q=\u00e9", b"/D%C3%BCrst?q=%C3%A9"),  # RFC 3987 §3.1: UTF-8 escapes
        ("/a:b@c!$&'()*+,;=", b"/a:b@c!$&'()*+,;="),
    ],
)
async def test_request_target_is_the_planned_one_byte_for_byte(path: str, target: bytes) -> None:
    """The default reading's characters reach the server exactly as planned."""
    reply = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
    server = await start_recording(respond=lambda line: reply if line == b"" else b"")
    try:
        url = f"http://127.0.0.1:{server.port}{path}"
        async with resolvers.resolve(url, OPTS) as resource:
            assert await resource.read() == b"ok"
        sent = recording_of(server).lines()
        assert sent[0] == resolvers.plan(url, OPTS).steps[0].data == b"GET " + target + b" HTTP/1.1"
    finally:
        await server.close()


async def test_a_redirect_to_a_tilde_path_is_followed() -> None:
    """``Location: /~user/`` used to end ``get`` with exit 6 (RFC 1738 calls "~" unsafe)."""
    answers = [
        b"HTTP/1.1 302 Found\r\nLocation: /~user/?next=/a\r\nContent-Length: 0\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nhome",
    ]
    server = await start_recording(
        respond=lambda line: answers.pop(0) if line == b"" and answers else b""
    )
    try:
        url = f"http://127.0.0.1:{server.port}/home"
        async with resolvers.resolve(url, OPTS) as resource:
            assert await resource.read() == b"home"
        requests = [ln for ln in recording_of(server).lines() if ln.startswith(b"GET ")]
        assert requests == [b"GET /home HTTP/1.1", b"GET /~user/?next=/a HTTP/1.1"]
    finally:
        await server.close()
