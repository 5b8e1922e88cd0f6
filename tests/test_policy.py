"""The safety policy (resolvers.policy): ports, delimiters, addresses, schemes, redirects.

Every refusal is checked two ways: the typed error names the component, and a recording
server proves that nothing was sent (zero connections, zero bytes).
"""

from __future__ import annotations

import pytest
from _ftphttp import OPTS, ROOT

from omniurl import resolvers, schemes
from omniurl.resolvers.errors import (
    AddressRefused,
    DelimiterRefused,
    PortRefused,
    RedirectRefused,
    SchemeRefused,
)
from omniurl.resolvers.policy import DEFAULT, DELIMITERS, STRICT, check_value
from omniurl.resolvers.ports import (
    BLOCKED_PORTS,
    CROSS_PROTOCOL_TARGETS,
    FETCH_BAD_PORTS,
    why_blocked,
)
from omniurl.testservers.recording import recording_of, start_recording


def test_fetch_bad_ports_are_the_83_of_the_standard() -> None:
    assert len(FETCH_BAD_PORTS) == 83
    assert {0, 1, 21, 25, 110, 143, 6000, 6697, 10080} <= FETCH_BAD_PORTS
    assert 80 not in FETCH_BAD_PORTS and 443 not in FETCH_BAD_PORTS


def test_cross_protocol_targets_are_blocked_with_their_names() -> None:
    assert {6379, 11211, 3306, 5432, 27017} <= BLOCKED_PORTS
    assert why_blocked(6379) == "a cross-protocol target (Redis)"
    assert why_blocked(11211) == f"a cross-protocol target ({CROSS_PROTOCOL_TARGETS[11211]})"


@pytest.mark.parametrize(
    "url", ["ftp://h/f", "ftp://h:21/f", "http://h/", "http://h:80/", "https://h:443/"]
)
def test_default_port_is_always_allowed(url: str) -> None:
    resolvers.check(url, OPTS)
    resolvers.check(url, OPTS.with_(policy=STRICT))


@pytest.mark.parametrize(
    ("url", "port", "reason"),
    [
        ("http://h:25/", 25, "Fetch"),  # SMTP, on Fetch's list
        ("http://h:21/", 21, "Fetch"),  # FTP's port is bad for http:
        ("ftp://h:80/f", 80, "reserved"),  # below 1024, not on the list
        ("http://h:6379/", 6379, "Redis"),
        ("ftp://h:11211/f", 11211, "memcached"),
        ("http://h:10080/", 10080, "Fetch"),
    ],
)
def test_explicit_port_refused_names_port_and_reason(url: str, port: int, reason: str) -> None:
    with pytest.raises(PortRefused) as info:
        resolvers.check(url, OPTS)
    assert info.value.port == port
    assert reason in info.value.reason
    assert info.value.component == "port"
    assert f"--allow-port {port}" in str(info.value)


def test_allow_ports_lets_a_refused_port_through() -> None:
    resolvers.check("http://h:6379/", OPTS.with_(policy=DEFAULT.allowing_ports([6379])))
    resolvers.check("ftp://h:80/f", OPTS.with_(policy=DEFAULT.allowing_ports([80])))


def test_a_port_the_caller_adds_to_blocked_ports_is_refused() -> None:
    """``blocked_ports`` is the caller's to extend: a port added there is refused although
    neither list of resolvers.ports gives a reason for it (it once passed silently)."""
    policy = DEFAULT.with_(blocked_ports=BLOCKED_PORTS | {8081})
    with pytest.raises(PortRefused) as info:
        resolvers.check("http://h:8081/", OPTS.with_(policy=policy))
    assert info.value.reason == "on the default policy's list of blocked ports"
    with pytest.raises(PortRefused, match="data port 8081 refused"):
        policy.check_data_port(8081)
    resolvers.check("http://h:8082/", OPTS.with_(policy=policy))


def test_unlisted_high_port_is_allowed_by_default_and_refused_by_strict() -> None:
    resolvers.check("http://h:8080/", OPTS)
    with pytest.raises(PortRefused) as info:
        resolvers.check("http://h:8080/", OPTS.with_(policy=STRICT))
    assert info.value.reason == "not the default port"


@pytest.mark.parametrize(
    ("context", "octet", "refused"),
    [
        ("line", 0x0D, True),
        ("line", 0x0A, True),
        ("line", 0x00, True),
        ("line", 0x09, False),
        ("ftp", 0xFF, True),
        ("ftp", 0x09, False),
        ("gopher", 0x09, True),
        ("nntp", 0x20, True),
        ("telnet", 0x80, True),
        ("http-target", 0x20, True),
        ("http-target", 0x7F, True),
        ("binary", 0x00, False),
    ],
)
def test_delimiters_by_context(context: str, octet: int, refused: bool) -> None:
    value = b"ab" + bytes([octet]) + b"cd"
    if refused:
        with pytest.raises(DelimiterRefused) as info:
            check_value("selector", value, context)
        assert info.value.octet == octet
        assert info.value.component == "selector"
        assert "octet 2" in str(info.value)
    else:
        check_value("selector", value, context)


def test_every_line_protocol_context_refuses_cr_lf_nul() -> None:
    # Contexts whose values end up inside a command line; payload contexts (a mail body,
    # length-prefixed binary fields) have their own rules.
    line_contexts = ["line", "ftp", "gopher", "nntp", "telnet", "http-target", "header",
                     "smtp-address"]  # fmt: skip
    for context in line_contexts:
        assert {0x0D, 0x0A, 0x00} <= DELIMITERS[context], context


def test_strict_refuses_loopback_private_and_link_local() -> None:
    for address in ["127.0.0.1", "::1", "10.1.2.3", "192.168.0.1", "169.254.1.1", "fe80::1",
                    "::ffff:127.0.0.1", "0.0.0.0"]:  # fmt: skip
        with pytest.raises(AddressRefused):
            STRICT.check_address(address, host="h")
    STRICT.check_address("93.184.216.34", host="h")
    DEFAULT.check_address("127.0.0.1", host="h")


def test_strict_refuses_file_and_scheme_change_on_redirect() -> None:
    with pytest.raises(SchemeRefused):
        STRICT.check_scheme("file")
    src = schemes.parse("http://example.com/")
    with pytest.raises(RedirectRefused):
        STRICT.check_redirect(src, schemes.parse("https://example.com/"))
    DEFAULT.check_redirect(src, schemes.parse("https://example.com/"))
    DEFAULT.check_redirect(src, schemes.parse("ftp://example.com/f"))


def test_redirect_to_file_is_refused_by_every_preset() -> None:
    src = schemes.parse("http://example.com/")
    for policy in (DEFAULT, STRICT):
        with pytest.raises(RedirectRefused):
            policy.check_redirect(src, schemes.parse("file:///etc/passwd"))


# -- zero bytes: a refused URL sends nothing ----------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/a%0D%0ADELE%20x/f",  # CR LF smuggled into a CWD
        "/pub/f%0A",  # LF in the name
        "/pub/%FF%F4%FF%FD/f",  # Telnet IAC IP IAC DO in a CWD
        "/pub/f%00",
    ],
)
async def test_ftp_delimiter_refusal_sends_zero_bytes(path: str) -> None:
    async with await start_recording(greeting=b"220 hi\r\n") as server:
        with pytest.raises(DelimiterRefused):
            await resolvers.resolve(f"ftp://{server.netloc}{path}", OPTS)
        rec = recording_of(server)
        assert rec.connections == 0
        assert rec.received == b""


async def test_ftp_user_with_crlf_sends_zero_bytes() -> None:
    async with await start_recording(greeting=b"220 hi\r\n") as server:
        with pytest.raises(DelimiterRefused) as info:
            await resolvers.resolve(f"ftp://a%0D%0ASITE%20x@{server.netloc}/f", OPTS)
        assert info.value.component == "user"
        assert recording_of(server).connections == 0


async def test_port_refusal_sends_zero_bytes() -> None:
    async with await start_recording() as server:
        strict = OPTS.with_(policy=STRICT)
        for url in (f"http://{server.netloc}/", f"ftp://{server.netloc}/f"):
            with pytest.raises(PortRefused):
                await resolvers.resolve(url, strict)
        assert recording_of(server).connections == 0


async def test_strict_loopback_refusal_sends_zero_bytes() -> None:
    async with await start_recording() as server:
        options = OPTS.with_(
            policy=STRICT.allowing_ports([server.port]),
        )
        for url in (f"http://127.0.0.1:{server.port}/", f"ftp://127.0.0.1:{server.port}/f"):
            with pytest.raises(AddressRefused):
                await resolvers.resolve(url, options)
        assert recording_of(server).connections == 0
        assert recording_of(server).received == b""


async def test_recording_server_records_tcp_and_udp() -> None:
    """The witness itself: it does see bytes when bytes are sent."""
    import asyncio

    async with await start_recording() as tcp:
        _reader, writer = await asyncio.open_connection("127.0.0.1", tcp.port)
        writer.write(b"one\r\ntwo\n")
        await writer.drain()
        await recording_of(tcp).wait_for(lambda r: len(r.received) == 9)
        writer.close()
        await writer.wait_closed()
        assert recording_of(tcp).lines() == [b"one", b"two"]
        assert recording_of(tcp).connections == 1
    async with await start_recording(transport="udp", reply_datagram=b"pong") as udp:
        loop = asyncio.get_running_loop()
        got: asyncio.Future[bytes] = loop.create_future()

        class Client(asyncio.DatagramProtocol):
            def datagram_received(self, data: bytes, addr: object) -> None:
                if not got.done():
                    got.set_result(data)

        transport, _ = await loop.create_datagram_endpoint(
            Client, remote_addr=("127.0.0.1", udp.port)
        )
        try:
            transport.sendto(b"ping")
            assert await asyncio.wait_for(got, 5) == b"pong"
        finally:
            transport.close()
        assert recording_of(udp).datagrams == [b"ping"]


async def test_http_target_with_raw_space_or_control_sends_zero_bytes() -> None:
    """The parser always encodes them; a URL object built by hand cannot smuggle them."""
    from omniurl.schemes.http import HTTPURL

    async with await start_recording() as server:
        for path in ("/a b", "/a\r\nX-Injected: 1", "/a\x00"):
            url = HTTPURL(scheme="http", host="127.0.0.1", port=server.port, path=path)
            with pytest.raises(DelimiterRefused) as info:
                await resolvers.resolve(url, OPTS)
            assert info.value.component == "path"
        assert recording_of(server).connections == 0


async def test_refused_redirect_sends_zero_bytes_to_its_target() -> None:
    """A redirect to another scheme under a policy that forbids scheme changes: the
    redirect's target never sees a connection."""
    from omniurl.testservers.http import start_http

    async with await start_recording(greeting=b"220 hi\r\n") as target:
        web = await start_http(
            ROOT, routes={"/go": (302, [("Location", f"ftp://{target.netloc}/f")], b"")}
        )
        try:
            options = OPTS.with_(policy=DEFAULT.with_(redirect_scheme_change=False))
            with pytest.raises(RedirectRefused):
                await resolvers.resolve(f"http://{web.netloc}/go", options)
            # the default policy would follow it (and reach the target)
            with pytest.raises(resolvers.errors.ResolveError):
                await resolvers.resolve(f"http://{web.netloc}/go", OPTS.with_(read_timeout=0.3))
        finally:
            await web.close()
        assert recording_of(target).connections == 1  # only the allowed attempt


@pytest.mark.parametrize(
    ("address", "carried", "kind"),
    [
        ("2002:7f00:1::", "127.0.0.1", "loopback"),  # 6to4 (RFC 3056)
        ("2002:a00:1:5::1", "10.0.0.1", "private"),
        ("64:ff9b::7f00:1", "127.0.0.1", "loopback"),  # NAT64 (RFC 6052)
        ("64:ff9b::a9fe:a9fe", "169.254.169.254", "link-local"),  # a cloud metadata address
        ("64:ff9b:1::c0a8:1", "192.168.0.1", "private"),  # local-use NAT64 (RFC 8215)
        ("2001:0:4136:e378:8000:63bf:80ff:fffe", "127.0.0.1", "loopback"),  # Teredo
        ("::ffff:127.0.0.1", "127.0.0.1", "loopback"),  # IPv4-mapped
        ("::127.0.0.1", "127.0.0.1", "loopback"),  # IPv4-compatible
    ],
)
def test_ipv6_forms_carrying_ipv4_are_classed_by_it(address: str, carried: str, kind: str) -> None:
    with pytest.raises(AddressRefused) as info:
        STRICT.check_address(address, host=f"[{address}]")
    assert f"carrying {carried}, {kind}" in str(info.value)
    DEFAULT.check_address(address, host=f"[{address}]")


@pytest.mark.parametrize(
    "address",
    [
        "2002:808:808::1",
        "64:ff9b::808:808",
        "2001:0:4136:e378:8000:63bf:f7f7:f7f7",
        "::ffff:8.8.8.8",
    ],
)
def test_ipv6_forms_carrying_a_public_ipv4_are_public(address: str) -> None:
    # 64:ff9b::/96 lies inside the reserved ::/8, Teredo inside 2001::/23; the IPv4 decides.
    STRICT.check_address(address, host=f"[{address}]")


async def test_strict_refuses_6to4_loopback_url_before_connecting() -> None:
    with pytest.raises(AddressRefused) as info:
        await resolvers.resolve("http://[2002:7f00:1::]/", OPTS.with_(policy=STRICT))
    assert "6to4 address carrying 127.0.0.1, loopback" in str(info.value)


async def test_a_refused_redirect_says_which_request_was_sent(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The first request went out and was answered 302 to file:: the refusal names it."""
    from omniurl import testservers

    srv = await testservers.start(
        "http", tmp_path, routes={"/go": (302, [("Location", "file:///etc/passwd")], b"")}
    )
    try:
        url = f"http://127.0.0.1:{srv.port}/go"
        with pytest.raises(RedirectRefused) as info:
            await resolvers.resolve(url, OPTS)
    finally:
        await srv.close()
    assert info.value.sent == (f"the request for {url}",)
    assert str(info.value).endswith(f"(refused after sending: the request for {url})")
