"""IPv6 zone identifiers (RFC 6874) after any IPv6 address; which ones a connection may use.

Parsing follows the grammar (``IPv6addrz = IPv6address "%25" ZoneID``, RFC 6874 §2): any
IPv6 address may carry a zone.  A connection uses one only where RFC 4007 §6 gives the
address zones — a non-global scope: link-local, loopback (§4: link-local scope), site-local,
scoped multicast.  On a global address the policy refuses it, before anything is sent.
"""

from __future__ import annotations

import ipaddress
import socket

import pytest
from _ftphttp import OPTS

from omniurl import resolvers, schemes
from omniurl.resolvers.errors import AddressRefused
from omniurl.resolvers.policy import DEFAULT, STRICT, check_zone, zone_scope
from omniurl.testservers.recording import recording_of, start_recording

PARSED = [
    # (url, host as written, hostname for getaddrinfo)
    ("http://[::1%25lo]/", "[::1%25lo]", "::1%lo"),
    ("http://[fe80::1%25eth0]:8080/", "[fe80::1%25eth0]", "fe80::1%eth0"),
    ("http://[2001:db8::1%25eth0]/", "[2001:db8::1%25eth0]", "2001:db8::1%eth0"),
    ("http://[fd00::1%25en1]/", "[fd00::1%25en1]", "fd00::1%en1"),
    ("http://[ff02::1%25eth0]/", "[ff02::1%25eth0]", "ff02::1%eth0"),
    ("http://[::ffff:127.0.0.1%25lo]/", "[::ffff:127.0.0.1%25lo]", "::ffff:127.0.0.1%lo"),
    ("ftp://[::1%25lo]/f", "[::1%25lo]", "::1%lo"),
    ("gopher://[fe80::a%25Eth0%2E1]/", "[fe80::a%25Eth0%2E1]", "fe80::a%Eth0.1"),
    ("telnet://[::1%25lo]", "[::1%25lo]", "::1%lo"),
]


@pytest.mark.parametrize(("url", "host", "hostname"), PARSED)
def test_a_zone_after_any_ipv6_address_parses(url: str, host: str, hostname: str) -> None:
    u = schemes.parse(url)
    assert (u.host, u.hostname) == (host, hostname)  # type: ignore[attr-defined]
    assert schemes.parse(str(u)) == u


@pytest.mark.parametrize(
    ("address", "scoped"),
    [
        ("::1", True),  # RFC 4007 §4: loopback has link-local scope
        ("fe80::1", True),
        ("febf::1", True),  # the end of fe80::/10
        ("fec0::1", True),  # site-local (deprecated, RFC 3879; still scoped)
        ("ff01::1", True),  # interface-local multicast
        ("ff02::1", True),  # link-local multicast
        ("ff05::2", True),  # site-local multicast
        ("ff08::2", True),  # organization-local multicast
        ("ff0e::1", False),  # global multicast
        ("2001:db8::1", False),
        ("fd00::1", False),  # unique local: global scope (RFC 4193 §3.3)
        ("::ffff:127.0.0.1", False),
        ("::", False),
        ("fe00::1", False),  # outside fe80::/10
    ],
)
def test_which_scopes_take_a_zone(address: str, scoped: bool) -> None:
    assert (zone_scope(ipaddress.IPv6Address(address)) is not None) is scoped
    if scoped:
        check_zone(f"{address}%eth0")
    else:
        with pytest.raises(AddressRefused) as info:
            check_zone(f"{address}%eth0")
        assert info.value.component == "host"
        assert "global scope" in info.value.message and "RFC 4007" in info.value.message


@pytest.mark.parametrize(
    "url",
    [
        "http://[2001:db8::1%25eth0]/",
        "ftp://[fd00::1%25en1]/f",
        "gopher://[2001:db8::2%25x]:7070/1",
        "nntp://[2001:db8::2%25x]/a.b",
        "telnet://[ff0e::1%25x]",
    ],
)
def test_a_zone_on_a_global_address_is_refused_at_plan_time(url: str) -> None:
    plan = resolvers.plan(url)  # planning is pure: the policy decides
    for policy in (DEFAULT, STRICT):
        with pytest.raises(AddressRefused) as info:
            policy.check_plan(plan)
        assert info.value.component == "host"


def test_a_zone_on_a_link_local_or_loopback_address_passes_the_policy() -> None:
    for url in ("http://[fe80::1%25eth0]/", "http://[::1%25lo]:8081/", "ftp://[::1%25lo]/f"):
        DEFAULT.check_plan(resolvers.plan(url))


async def test_refused_zone_sends_zero_bytes() -> None:
    async with await start_recording("::1") as server:
        with pytest.raises(AddressRefused):
            await resolvers.resolve(f"http://[2001:db8::1%25lo]:{server.port}/", OPTS)
        assert recording_of(server).connections == 0


def _loopback_v6_interface() -> str | None:
    """The name of the interface that holds ::1 (``lo`` on Linux), if there is IPv6."""
    if not socket.has_ipv6:
        return None
    names = [name for _index, name in socket.if_nameindex()]
    return next((n for n in names if n.startswith("lo")), None)


async def test_a_connection_to_loopback_with_its_zone() -> None:
    """``http://[::1%25lo]:PORT/``: the zone reaches getaddrinfo, the Host header has none."""
    lo = _loopback_v6_interface()
    if lo is None:
        pytest.skip("no IPv6 loopback interface here")
    answer = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
    try:
        server = await start_recording("::1", respond=lambda line: answer if not line else None)
    except OSError as exc:
        pytest.skip(f"cannot listen on ::1: {exc}")
    async with server:
        body = await resolvers.fetch(f"http://[::1%25{lo}]:{server.port}/z", OPTS)
        assert body == b"ok"
        lines = recording_of(server).lines()
        assert lines[0] == b"GET /z HTTP/1.1"
        assert f"Host: [::1]:{server.port}".encode() in lines


async def test_a_zone_naming_no_interface_is_a_connect_error() -> None:
    from omniurl.resolvers.errors import ConnectError

    with pytest.raises(ConnectError) as info:
        await resolvers.fetch("http://[fe80::1%25no-such-if0]:8081/", OPTS)
    assert info.value.component == "host" and "no-such-if0" in info.value.message
