"""gophers: — Gopher over TLS, as curl and phetch speak it, against omniurl's server in TLS
mode (a throw-away CA from trustme): the plan's handshake step, the certificate checked,
menus whose own items stay on TLS, typed failures."""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from omniurl import resolvers, schemes, testservers
from omniurl.resolvers.errors import ConnectError
from omniurl.resolvers.options import Options


@pytest_asyncio.fixture
async def server(
    tmp_path: Path, pki: tuple[ssl.SSLContext, str]
) -> AsyncIterator[testservers.RunningServer]:
    (tmp_path / "pub").mkdir()
    (tmp_path / "pub" / "hello.txt").write_text("Hello over TLS.\n")
    srv = await testservers.start("gopher", tmp_path, tls=pki[0])
    yield srv
    await srv.close()


def test_gophers_parses_like_gopher() -> None:
    u = schemes.parse("gophers://h.example/0/a?b%09c")
    assert isinstance(u, schemes.GopherURL) and u.scheme == "gophers"
    assert (u.gtype, u.selector, u.search, u.effective_port) == ("0", "/a?b", "c", 70)
    assert schemes.parse(str(u)) == u


def test_the_plan_shows_the_handshake() -> None:
    plan = resolvers.plan("gophers://127.0.0.1:7443/0/hello.txt").to_json()
    assert plan["steps"] == [
        "TLS handshake with 127.0.0.1 (its certificate verified)",
        "/hello.txt",
    ]
    assert (plan["scheme"], plan["port"]) == ("gophers", 7443)


async def test_text_over_tls(
    server: testservers.RunningServer, pki: tuple[ssl.SSLContext, str]
) -> None:
    url = f"gophers://127.0.0.1:{server.port}/0/pub/hello.txt"
    async with await resolvers.resolve(url, Options(ca_file=pki[1])) as res:
        assert await res.read() == b"Hello over TLS.\r\n"  # text as on the wire (CRLF)
    assert server.info["server"].requests[-1] == b"/pub/hello.txt"


async def test_a_menu_keeps_its_own_items_on_tls(
    server: testservers.RunningServer, pki: tuple[ssl.SSLContext, str]
) -> None:
    url = f"gophers://127.0.0.1:{server.port}/1/pub"
    async with await resolvers.resolve(url, Options(ca_file=pki[1])) as res:
        urls = [e.url for e in res.entries if e.url]
    assert f"gophers://127.0.0.1:{server.port}/0/pub/hello.txt" in urls


async def test_an_untrusted_certificate_is_a_typed_error_and_nothing_is_asked(
    server: testservers.RunningServer,
) -> None:
    url = f"gophers://127.0.0.1:{server.port}/0/pub/hello.txt"
    before = len(server.info["server"].requests)
    with pytest.raises(ConnectError) as info:
        await resolvers.resolve(url, Options(connect_timeout=5))
    assert "certificate verification failed" in info.value.message
    assert len(server.info["server"].requests) == before
    async with await resolvers.resolve(url, Options(verify_tls=False)) as res:  # --insecure
        assert await res.read() == b"Hello over TLS.\r\n"
