"""telnet against the local telnetlib3 server: exact lines received, the session object,
login refusals, typed errors, and zero bytes for refused URLs (recording server)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from omniurl import testservers
from omniurl.resolvers import Options, resolve
from omniurl.resolvers.errors import (
    AuthError,
    ConnectError,
    ConnectionClosed,
    DelimiterRefused,
    ResolveTimeout,
)
from omniurl.resolvers.telnet import TelnetSession, parse_script
from omniurl.resolvers.telnet.result import TelnetResult
from omniurl.resolvers.telnet.settings import TelnetOptions
from omniurl.testservers.recording import recording_of, start_recording

LOGIN = Options(schemes=(TelnetOptions(login=True),), read_timeout=5, connect_timeout=5)


@pytest_asyncio.fixture
async def server(tree: Path) -> AsyncIterator[testservers.RunningServer]:
    async with await testservers.start("telnet", tree) as srv:
        yield srv


def lines_of(server: testservers.RunningServer) -> list[list[bytes]]:
    return server.info["lines"]


async def wait_lines(server: testservers.RunningServer, count: int) -> list[bytes]:
    """The lines of the last connection once ``count`` arrived (bounded)."""
    for _ in range(200):
        if lines_of(server) and len(lines_of(server)[-1]) >= count:
            return lines_of(server)[-1]
        await asyncio.sleep(0.01)
    raise AssertionError(f"server saw {lines_of(server)}")


async def test_auto_login_sends_exactly_user_and_password_lines(server) -> None:
    url = f"telnet://demo:demo@{server.netloc}/"
    async with await resolve(url, LOGIN) as resource:
        assert resource.kind == "session"
        session = resource.session
        assert isinstance(session, TelnetSession)
        result = resource.result_as(TelnetResult)
        assert result is not None and result.logged_in and result.user == "demo"
        await session.expect("$ ")
        await session.send("whoami")
        match = await session.expect(re.compile(rb"whoami\r\n(\w+)\r\n\$ "))
        assert match.group(1) == b"demo"
    # NVT end of line is CR LF (RFC 854); nothing but the two answers and the command.
    assert lines_of(server)[-1] == [b"demo\r\n", b"demo\r\n", b"whoami\r\n"]
    assert session.sent == ["demo", "****", "whoami"]
    assert session.closed


async def test_without_login_the_advisory_credentials_are_not_sent(server) -> None:
    async with await resolve(f"telnet://demo:demo@{server.netloc}/", LOGIN.with_(schemes=())) as r:
        assert not r.result_as(TelnetResult).logged_in
        await r.session.expect("login: ")
        assert b"omniurl test telnet server" in r.session.history
    await asyncio.sleep(0.05)
    assert lines_of(server)[-1] == []


async def test_wrong_password_is_an_auth_error(server) -> None:
    with pytest.raises(AuthError) as info:
        await resolve(f"telnet://demo:wrong@{server.netloc}/", LOGIN)
    assert "Login incorrect" in str(info.value)
    assert info.value.component == "user"


async def test_script_runs_in_order_after_login(server) -> None:
    script = parse_script("expect $ \nsend echo hello omniurl\nexpect-re hello omniurl\\r\\n\\$ \n")
    options = Options(schemes=(TelnetOptions(login=True, script=script),), read_timeout=5)
    async with await resolve(f"telnet://demo:demo@{server.netloc}", options) as r:
        assert bytes(r.session.history).endswith(b"$ echo hello omniurl\r\nhello omniurl\r\n$ ")
    assert lines_of(server)[-1] == [b"demo\r\n", b"demo\r\n", b"echo hello omniurl\r\n"]


async def test_expect_timeout_is_typed_and_names_the_component(server) -> None:
    options = Options(
        schemes=(TelnetOptions(login=True, login_prompt=r"Benutzer:"),), read_timeout=0.3
    )
    with pytest.raises(ResolveTimeout) as info:
        await resolve(f"telnet://demo:demo@{server.netloc}", options)
    assert info.value.component == "user"
    assert "last received" in str(info.value) and "login: " in str(info.value)


async def test_session_read_and_close(server) -> None:
    async with await resolve(f"telnet://{server.netloc}", LOGIN) as r:
        s = r.session
        await s.expect("login: ")
        await s.send("demo")
        await s.expect("Password: ")
        await s.send("demo")
        await s.expect("$ ")
        await s.send("exit")
        rest = b""
        while not rest.endswith(b"logout\r\n"):
            chunk = await s.read()
            assert chunk, f"closed early after {rest!r}"
            rest += chunk
        # The server closes after "logout": read() gives b"" and expect() a typed error.
        with pytest.raises(ConnectionClosed):
            await s.expect("never")
        assert await s.read() == b""
    await s.close()  # idempotent


async def test_connection_refused_is_a_connect_error(tree: Path) -> None:
    srv = await testservers.start("telnet", tree)
    port = srv.port
    await srv.close()
    with pytest.raises(ConnectError) as info:
        await resolve(f"telnet://127.0.0.1:{port}/", LOGIN)
    assert info.value.component == "host"


async def test_silent_server_times_out_on_the_login_prompt() -> None:
    async with await start_recording() as rec:
        options = LOGIN.with_(read_timeout=0.3)
        with pytest.raises(ResolveTimeout):
            await resolve(f"telnet://demo:demo@127.0.0.1:{rec.port}/", options)
        # It connected, but never sent the user: no prompt came.
        assert b"demo" not in recording_of(rec).received


@pytest.mark.parametrize("user", ["us%FFer", "a%0D%0Awhoami", "%C3%A9t%C3%A9", "a%1B"])
async def test_refused_user_sends_zero_bytes(user: str) -> None:
    async with await start_recording() as rec:
        with pytest.raises(DelimiterRefused) as info:
            await resolve(f"telnet://{user}:pw@127.0.0.1:{rec.port}/", LOGIN)
        assert info.value.component == "user"
        await asyncio.sleep(0.05)
        assert recording_of(rec).connections == 0
        assert recording_of(rec).received == b""


async def test_ipv6_literal(tree: Path) -> None:
    try:
        srv = await testservers.start("telnet", tree, host="::1")
    except OSError:
        pytest.skip("no IPv6 loopback")
    async with srv:
        async with await resolve(f"telnet://demo:demo@[::1]:{srv.port}/", LOGIN) as r:
            assert r.result_as(TelnetResult).logged_in
            await r.session.expect("$ ")
        assert srv.info["lines"][-1] == [b"demo\r\n", b"demo\r\n"]


async def test_login_prompt_again_is_an_auth_error_with_a_plain_tcp_server() -> None:
    """A server that negotiates nothing (plain TCP) and answers a bad login with a new
    ``login:`` prompt and no words: still refused, and the lines sent were exactly two."""
    answers = {b"root": b"Password: ", b"toor": b"\r\nlogin: "}
    async with await start_recording(
        greeting=b"router\r\nlogin: ", respond=lambda line: answers.get(line)
    ) as rec:
        with pytest.raises(AuthError) as info:
            await resolve(f"telnet://root:toor@127.0.0.1:{rec.port}/", LOGIN)
        assert "asked for the login again" in str(info.value)
        assert recording_of(rec).lines() == [b"root", b"toor"]
        assert recording_of(rec).received == b"root\r\ntoor\r\n"


async def test_refusal_after_a_pam_style_delay_is_still_an_auth_error() -> None:
    """login(1) under PAM waits (pam_faildelay: Debian's /etc/pam.d/login says 3 s) before it
    says "Login incorrect": a quiet second after the password is no proof of success."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            writer.write(b"login: ")
            await reader.readline()
            writer.write(b"Password: ")
            await reader.readline()
            await asyncio.sleep(2.5)
            writer.write(b"\r\nLogin incorrect\r\nlogin: ")
            await writer.drain()
            await reader.read()  # until the client hangs up
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        with pytest.raises(AuthError) as info:
            await resolve(f"telnet://demo:nope@127.0.0.1:{port}/", LOGIN)
        assert "Login incorrect" in str(info.value)
    finally:
        server.close()
        await server.wait_closed()
