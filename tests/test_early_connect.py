"""``omniurl get`` begins its first connection while it is still starting (resolvers/early.py).

What must hold: the connection begun is the one the executor makes (the same address, one
connection, the request's bytes exactly as planned), it is begun only once the plan passed
the policy and only where nothing comes before the connect (a question, TLS, a proxy, a
lookup), and a connect refused early is reported as any refused connect is.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sys
from collections.abc import AsyncIterator, Iterator

import pytest
import pytest_asyncio
from helpers import bare_path, loopback_server, run, run_omniurl

from omniurl import schemes
from omniurl.cli.early import connect_early
from omniurl.cli.parser import build_parser
from omniurl.resolvers import early, net, registry
from omniurl.resolvers.base import Resolver
from omniurl.resolvers.errors import AddressRefused, ConnectError
from omniurl.resolvers.options import Options
from omniurl.resolvers.policy import STRICT

OPTS = Options(connect_timeout=5, read_timeout=5)


@pytest.fixture(autouse=True)
def nothing_left_begun() -> Iterator[None]:
    yield
    early.discard()


class CountingGopher:
    """A Gopher server that counts connections and keeps each request's bytes."""

    def __init__(self) -> None:
        self.connections = 0
        self.requests: list[bytes] = []
        self.port = 0

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            request = await asyncio.wait_for(reader.readline(), 10)
            self.requests.append(request)
            if request:
                writer.write(b"item text\r\nsecond line\r\n.\r\n")
                await writer.drain()
        except (TimeoutError, ConnectionError):
            pass
        finally:
            writer.close()


@pytest_asyncio.fixture
async def gopher() -> AsyncIterator[CountingGopher]:
    counting = CountingGopher()
    server = await asyncio.start_server(counting.serve, "127.0.0.1", 0)
    counting.port = server.sockets[0].getsockname()[1]
    try:
        yield counting
    finally:
        server.close()
        await server.wait_closed()


def _plan_first(url: str, options: Options = OPTS) -> tuple[str, int] | None:
    parsed = schemes.parse(url)
    resolver = registry.get(parsed.scheme)
    return resolver.first_connection(resolver.plan(parsed, options), options)


# -- what each resolver connects to first ---------------------------------------------------


def test_the_resolvers_name_their_first_connection_only_where_nothing_comes_before() -> None:
    assert _plan_first("gopher://127.0.0.1:7070/0/a.txt") == ("127.0.0.1", 7070)
    assert _plan_first("gopher://h/1/") == ("h", 70)

    async def ask(prompt: str, secret: bool = False) -> str:
        return "words"

    asking = OPTS.with_(ask=ask)  # a search without words: asked for before connecting
    assert _plan_first("gopher://h/7/find", asking) is None
    assert _plan_first("gopher://h/7/find%09words", asking) == ("h", 70)
    assert _plan_first("gophers://h/0/a") is None  # TLS: the context is made first
    assert _plan_first("http://h:8080/x") == ("h", 8080)
    assert _plan_first("http://h/x") == ("h", 80)
    assert _plan_first("http://h:0/x") == ("h", 0)  # (the plan's port: 0 is not "none")
    assert _plan_first("https://h/x") is None
    assert _plan_first("ftp://h/pub/x") == ("h", 21)
    assert _plan_first("ftps://h/pub/x") is None
    proxied = OPTS.with_(proxy="http://127.0.0.1:3128")
    assert _plan_first("http://h/x", proxied) is None  # GET http://… of the proxy

    class Plugin(Resolver):
        schemes = ("x-plugin",)

    plan = registry.get("gopher").plan(schemes.parse("gopher://h/0/a"), OPTS)
    assert Plugin().first_connection(plan, OPTS) is None  # the default: not known


def test_only_an_address_without_a_lookup_the_policy_allows_is_begun() -> None:
    assert early.address_of("127.0.0.1", 70, OPTS) == ("127.0.0.1", 70)
    assert early.address_of("[::1]", 70, OPTS) == ("::1", 70)
    assert early.address_of("localhost", 70, OPTS) is None  # a name: looked up as ever
    assert early.address_of("[fe80::1%25lo]", 70, OPTS) is None  # a zone id
    mapped = OPTS.with_(resolve={("example.org", 70): ("127.0.0.2", 7070)})
    assert early.address_of("example.org", 70, mapped) == ("127.0.0.2", 7070)
    assert early.address_of("127.0.0.1", 70, OPTS.with_(proxy="socks5://127.0.0.1:1")) is None
    assert early.address_of("127.0.0.1", 70, OPTS.with_(trust_env=True)) is None
    with pytest.raises(AddressRefused):
        early.address_of("127.0.0.1", 70, OPTS.with_(policy=STRICT))


# -- the socket begun is the one connected -------------------------------------------------


async def test_the_socket_begun_is_the_connection_the_executor_makes(
    gopher: CountingGopher,
) -> None:
    assert early.begin("127.0.0.1", gopher.port)
    begun = early._begun[("127.0.0.1", gopher.port)].fileno()
    stream = await net.connect("127.0.0.1", gopher.port, OPTS)
    try:
        assert stream.sock.fileno() == begun and not early._begun
        await stream.write(b"/a\r\n", "the selector")
        got = b""
        while chunk := await stream.read("the reply"):
            got += chunk
    finally:
        stream.close()
    assert got == b"item text\r\nsecond line\r\n.\r\n"
    assert gopher.connections == 1 and gopher.requests == [b"/a\r\n"]


async def test_a_socket_connected_already_is_not_connected_again(
    gopher: CountingGopher, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second ``connect()`` of a connected socket is EISCONN on the BSDs and Windows
    (Linux answers 0): one whose connect has ended is taken as it is."""
    assert early.begin("127.0.0.1", gopher.port)
    begun = early._begun[("127.0.0.1", gopher.port)]
    for _ in range(200):  # (loopback: at once, but bounded)
        if early.connected(begun):
            break
        await asyncio.sleep(0.01)
    assert early.connected(begun)
    loop = asyncio.get_running_loop()

    async def refuse(*args: object) -> None:
        raise OSError(106, "connected again")

    monkeypatch.setattr(loop, "sock_connect", refuse)
    descriptor = begun.fileno()
    stream = await net.connect("127.0.0.1", gopher.port, OPTS)
    assert stream.sock.fileno() == descriptor
    stream.close()


async def test_a_connection_the_server_ended_meanwhile_is_made_again() -> None:
    """A server that waits only so long for the request (or closes at once) has closed the
    connection begun early by the time the command sends it (at load, its start takes
    longer than such a wait): the command connects again, as the usual path connects only
    then, instead of sending the request into a closed connection ("the server closed the
    connection without a reply": tests/test_http_corpus.py's 0.25 s server at load 7)."""
    accepted = 0

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal accepted
        accepted += 1
        try:
            if accepted == 1:  # (the first connection's wait for a request runs out)
                return
            if await asyncio.wait_for(reader.readline(), 10) == b"/a\r\n":
                writer.write(b"served\r\n")
                await writer.drain()
        finally:
            writer.close()

    async with loopback_server(serve) as port:
        assert early.begin("127.0.0.1", port)
        begun = early._begun[("127.0.0.1", port)]
        for _ in range(500):  # (until its close has come back: bounded)
            try:
                if begun.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b"":
                    break
            except BlockingIOError:
                pass
            await asyncio.sleep(0.01)
        stream = await net.connect("127.0.0.1", port, OPTS)
        try:
            await stream.write(b"/a\r\n", "the selector")
            got = b""
            while chunk := await stream.read("the reply"):
                got += chunk
        finally:
            stream.close()
        assert got == b"served\r\n" and accepted == 2 and not early._begun


async def test_a_greeting_waiting_is_no_end() -> None:
    """A server that speaks first (FTP's 220) has its greeting waiting when the socket is
    taken: that connection is the one used (one connection accepted, not a second one
    made after the first was taken for ended: its descriptor's number may come again)."""
    accepted = 0

    async def greet(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal accepted
        accepted += 1
        writer.write(b"220 hello\r\n")
        await writer.drain()
        try:
            await asyncio.wait_for(reader.read(1), 10)
        finally:
            writer.close()

    async with loopback_server(greet) as port:
        assert early.begin("127.0.0.1", port)
        begun = early._begun[("127.0.0.1", port)].fileno()
        await asyncio.sleep(0.2)  # (the greeting has come)
        stream = await net.connect("127.0.0.1", port, OPTS)
        try:
            assert stream.sock.fileno() == begun
            assert await stream.read_line("the greeting") == b"220 hello"
        finally:
            stream.close()
        assert accepted == 1


async def test_a_connect_refused_early_is_reported_as_any_refused_connect() -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(ConnectError) as usual:
        await net.connect("127.0.0.1", port, OPTS)
    early.begin("127.0.0.1", port)
    with pytest.raises(ConnectError) as begun:
        await net.connect("127.0.0.1", port, OPTS)
    assert str(begun.value) == str(usual.value)
    assert not early._begun


# -- the command ---------------------------------------------------------------------------


def _args(*words: str) -> object:
    return build_parser("get").parse_args(["get", *words])


def test_the_command_begins_the_connection_of_a_single_plain_get(gopher: CountingGopher) -> None:
    url = f"gopher://127.0.0.1:{gopher.port}/0/a"
    args = _args(url)
    connect_early(args)  # type: ignore[arg-type]
    assert set(early._begun) == {("127.0.0.1", gopher.port)}
    assert isinstance(getattr(args, "early_options", None), Options)


@pytest.mark.parametrize(
    "words",
    [
        ["-I", "http://127.0.0.1:{port}/x"],  # -I: refused before sending for some schemes
        ["-C", "-", "-o", "out", "gopher://127.0.0.1:{port}/0/a"],  # -C reads the part first
        ["-u", "me:pw", "ftp://127.0.0.1:{port}/x"],  # -u: may ask for a password
        ["gopher://127.0.0.1:{port}/0/a", "gopher://127.0.0.1:{port}/0/b"],  # a batch
        ["gopher://127.0.0.1:{port}/7/find"],  # asks for search words first
        ["gopher://localhost:{port}/0/a"],  # a name: looked up when connecting
        ["-x", "socks5://127.0.0.1:1", "gopher://127.0.0.1:{port}/0/a"],  # a proxy first
        ["--strict", "gopher://127.0.0.1:{port}/0/a"],  # the policy refuses the address
        ["gopher://127.0.0.1:25/0/a"],  # the policy refuses the port: nothing sent
        ["-w", "@/nonexistent/format", "gopher://127.0.0.1:{port}/0/a"],  # -w reads it first
        ["-w", "%{{time_connect}}", "gopher://127.0.0.1:{port}/0/a"],  # the connect's own time
        ["--connect-timeout", "0", "gopher://127.0.0.1:{port}/0/a"],  # times out at once
        ["--connect-timeout", "-1", "gopher://127.0.0.1:{port}/0/a"],
    ],
)
def test_the_command_begins_nothing_where_something_comes_before_the_connect(
    words: list[str],
) -> None:
    args = _args(*(w.format(port=7070) for w in words))
    connect_early(args)  # type: ignore[arg-type]
    assert not early._begun


async def test_the_command_makes_one_connection_and_sends_the_planned_bytes(
    gopher: CountingGopher,
) -> None:
    status, out, err = await run_omniurl("get", f"gopher://127.0.0.1:{gopher.port}/0/a%20b")
    assert (status, err) == (0, b"")
    assert out == b"item text\r\nsecond line\r\n"  # (the server's line ends, kept)
    assert gopher.connections == 1
    assert gopher.requests == [b"/a b\r\n"]


#: Run under ``-S`` (no site hook imports anything first): the command, with the modules
#: that had run when its connection was begun written on stderr's last line.
AT_CONNECT = """\
import json, sys
before = set(sys.modules)
from omniurl.resolvers import early
begin = early.begin
def begin_noted(address, port):
    ran = sorted(m for m, mod in sys.modules.items() if m not in before and mod is not None)
    sys.stderr.write(json.dumps(ran) + "\\n")
    return begin(address, port)
early.begin = begin_noted
sys.argv = ["omniurl", *sys.argv[1:]]
from omniurl.cli.main import run
run()
"""


async def test_the_command_connects_before_importing_what_the_connect_does_not_need(
    gopher: CountingGopher,
) -> None:
    """The connect is begun once the plan passed the policy and before the rest of the
    start: asyncio, the executor, the writer, and ``socket`` (resolvers/early.py connects
    with ``_socket``), ``typing``, ``omniurl.deferred``, ``omniurl.memory``,
    ``omniurl.sslimport`` (~5-9 ms of CPU that stood before it at idle; the server starts
    while they are imported: docs/speed.md, *Bulk transfers*)."""
    env = {**os.environ, "PYTHONPATH": bare_path()}
    url = f"gopher://127.0.0.1:{gopher.port}/0/a"
    status, out, err = await run(
        [sys.executable, "-S", "-c", AT_CONNECT, "get", url], timeout=30, env=env
    )
    assert (status, out) == (0, b"item text\r\nsecond line\r\n"), err
    ran = set(json.loads(err.decode().splitlines()[-1]))
    assert "omniurl.resolvers.gopher.planner" in ran  # (the positive control: it planned)
    late = {"asyncio", "typing", "ssl", "socket", "selectors", "omniurl.deferred",
            "omniurl.memory", "omniurl.sslimport", "omniurl.resolvers.gopher.executor",
            "omniurl.cli.output"}  # fmt: skip
    assert not late & ran
    assert gopher.connections == 1


async def test_an_unreadable_write_out_file_is_refused_before_any_connection(
    gopher: CountingGopher,
) -> None:
    """``-w @FILE`` that cannot be read: exit 3 and no connection at all, as without the
    early connect (it connected, then refused)."""
    url = f"gopher://127.0.0.1:{gopher.port}/0/a"
    status, out, err = await run_omniurl("get", "-w", "@/nonexistent/format", url)
    assert (status, out) == (3, b"")
    assert err == b"omniurl: -w @/nonexistent/format: cannot read it: No such file or directory\n"
    await asyncio.sleep(0.2)  # (a connection begun would be accepted by now)
    assert gopher.connections == 0


@pytest.mark.parametrize("timeout", ["0", "-1"])
async def test_a_connect_timeout_of_zero_or_less_times_out_as_without_the_early_connect(
    gopher: CountingGopher, timeout: str
) -> None:
    """``--connect-timeout 0`` (or less) bounds the connect at once: the usual path times
    out, so must the command (it fetched the item over the socket begun early)."""
    url = f"gopher://127.0.0.1:{gopher.port}/0/a"
    status, out, err = await run_omniurl("get", "--connect-timeout", timeout, url)
    assert (status, out) == (4, b"")
    shown = f"{float(timeout):g}"
    assert (
        err
        == f"omniurl: timed out after {shown} s connecting to 127.0.0.1:{gopher.port}\n".encode()
    )
    assert b"".join(gopher.requests) == b""  # (nothing sent)
