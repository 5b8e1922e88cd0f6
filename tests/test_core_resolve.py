"""The resolver core: registry, plan/check/resolve, Follow through the policy, net helpers."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest

from omniurl import resolvers, schemes
from omniurl.resolvers import errors, registry
from omniurl.resolvers.base import Follow, Resolver
from omniurl.resolvers.errors import (
    ConnectionClosed,
    LimitExceeded,
    NotFollowed,
    PolicyError,
    RedirectRefused,
    ResolveTimeout,
    TooManyRedirects,
    UnsupportedScheme,
)
from omniurl.resolvers.lines import dot_stuff, dot_unstuff
from omniurl.resolvers.net import open_tcp, read_chunks, read_line
from omniurl.resolvers.options import Options
from omniurl.resolvers.plan import Plan, Step, WireValue
from omniurl.resolvers.resource import Resource
from omniurl.schemes.base import URL


@dataclass(frozen=True, kw_only=True)
class CoreTestURL(URL):
    """``x-coretest:<target>`` — a URL class for exercising the core alone."""

    target: str = ""
    schemes: ClassVar[tuple[str, ...]] = ("x-coretest",)

    @classmethod
    def from_text(cls, text: str, *, scheme: str, rest: str, strict: bool = True) -> URL:
        return cls(scheme=scheme, target=rest)

    def __str__(self) -> str:
        return f"{self.scheme}:{self.target}"

    def components(self) -> dict[str, Any]:
        return {"target": self.target}


@registry.register("x-coretest")
class CoreTestResolver(Resolver):
    """Redirects ``hop:N`` to ``hop:N-1``, serves ``hop:0``, refers ``file`` to ``file:``."""

    sent: ClassVar[list[bytes]] = []

    def plan(self, url: URL, options: Options) -> Plan:
        assert isinstance(url, CoreTestURL)
        value = url.target.encode()
        step = Step.line(b"GET " + value, values=[WireValue("target", value, "line")])
        return Plan(url, url.scheme, None, None, None, (step,))

    async def execute(self, plan: Plan, options: Options) -> Resource:
        target = plan.url.target  # type: ignore[attr-defined]
        self.sent.append(plan.steps[0].data)
        if target.startswith("hop:") and int(target[4:]) > 0:
            nxt = f"x-coretest:hop:{int(target[4:]) - 1}"
            raise Follow(schemes.parse(nxt), reason="redirect")
        if target == "file":
            raise Follow(CoreTestURL(scheme="file", target="///etc/passwd"), reason="redirect")

        async def body() -> AsyncIterator[bytes]:
            yield b"hello "
            yield target.encode()

        return Resource(plan, body=body(), media_type="text/plain")


schemes.register("x-coretest", CoreTestURL)


@pytest.fixture(autouse=True)
def _clear_sent() -> None:
    CoreTestResolver.sent.clear()


def test_unknown_scheme_is_a_typed_error() -> None:
    with pytest.raises(UnsupportedScheme) as info:
        registry.get("x-nosuchscheme")
    assert info.value.component == "scheme"
    assert "x-nosuchscheme" in str(info.value)


def test_a_broken_builtin_resolver_is_an_import_error_not_a_missing_scheme(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A built-in whose module fails to import (a missing dependency, say) must say so, not
    turn into "no resolver is registered for gopher:"."""
    name = "omniurl.resolvers.x_missing_builtin"
    monkeypatch.setitem(registry.BUILTIN_SCHEMES, "x-broken", name)
    monkeypatch.setattr(registry, "_loaded", False)
    with pytest.raises(ModuleNotFoundError) as info:
        registry.get("x-broken")
    assert info.value.name == name


def test_plan_json_is_the_contract() -> None:
    plan = resolvers.plan("x-coretest:abc")
    assert plan.to_json() == {
        "url": "x-coretest:abc",
        "scheme": "x-coretest",
        "host": None,
        "port": None,
        "transport": None,
        "steps": ["GET abc"],
        "when": [None],
        # Added by the typed plan contract (a plugin's step without a role shows null).
    }


async def test_resolve_streams_the_body() -> None:
    async with await resolvers.resolve("x-coretest:abc") as resource:
        assert resource.media_type == "text/plain"
        assert await resource.read() == b"hello abc"
        assert resource.bytes_read == 9


async def test_redirects_are_followed_and_chained() -> None:
    async with await resolvers.resolve("x-coretest:hop:2") as resource:
        assert await resource.read() == b"hello hop:0"
        assert resource.chain == ["x-coretest:hop:2", "x-coretest:hop:1"]
    assert CoreTestResolver.sent == [b"GET hop:2", b"GET hop:1", b"GET hop:0"]


async def test_redirects_are_bounded() -> None:
    options = Options(policy=resolvers.DEFAULT.with_(max_redirects=3))
    with pytest.raises(TooManyRedirects, match="more than 3 redirects"):
        await resolvers.resolve("x-coretest:hop:9", options)
    assert len(CoreTestResolver.sent) == 4


async def test_redirect_to_file_is_never_followed() -> None:
    with pytest.raises(RedirectRefused) as info:
        await resolvers.resolve("x-coretest:file")
    assert info.value.component == "location"


async def test_no_follow_hands_the_follow_to_the_caller() -> None:
    with pytest.raises(NotFollowed) as info:
        await resolvers.resolve("x-coretest:hop:1", Options(follow=False))
    assert str(info.value.target) == "x-coretest:hop:0"
    assert (info.value.reason, info.value.component) == ("redirect", "location")


def test_follow_is_control_flow_not_an_error() -> None:
    """``except ResolveError`` (or OmniurlError) in an executor must never swallow a
    redirect: Follow is outside the error tree."""
    assert not issubclass(Follow, errors.OmniurlError)
    assert issubclass(NotFollowed, errors.ResolveError)


async def test_refused_value_is_never_executed() -> None:
    url = CoreTestURL(scheme="x-coretest", target="a\r\nQUIT")
    with pytest.raises(PolicyError) as info:
        await resolvers.resolve(url)
    assert info.value.component == "target"
    assert CoreTestResolver.sent == []


def test_sync_facade() -> None:
    # The sync facade runs its own loop; run it from a worker thread as a script would.
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        assert pool.submit(resolvers.get, "x-coretest:zz").result(timeout=10) == b"hello zz"


def test_resolve_mapping_like_curl() -> None:
    options = Options(resolve={("example.org", 21): ("127.0.0.1", 2121)})
    assert options.map_address("EXAMPLE.org", 21) == ("127.0.0.1", 2121)
    assert options.map_address("example.org", 80) == ("example.org", 80)
    anyport = Options(resolve={("example.org", None): ("127.0.0.2", None)})
    assert anyport.map_address("example.org", 70) == ("127.0.0.2", 70)


def test_dot_stuffing_round_trip() -> None:
    lines = [b"first", b".hidden", b"..", b"."]
    framed = dot_stuff(lines)
    assert framed == b"first\r\n..hidden\r\n...\r\n..\r\n.\r\n"
    back = [dot_unstuff(x) for x in framed.split(b"\r\n")[:-1]]
    assert back == [*lines, None]


# -- net helpers against a server this test starts ---------------------------------------


async def _serve(payload: bytes, *, close: bool = True) -> tuple[asyncio.Server, int]:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(payload)
        await writer.drain()
        if close:
            writer.close()
        else:
            await asyncio.sleep(5)
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


async def test_read_line_and_chunks() -> None:
    server, port = await _serve(b"200 hello\r\nbody bytes")
    async with server:
        options = Options(read_timeout=5)
        reader, writer = await open_tcp("127.0.0.1", port, options)
        assert await read_line(reader, options, what="greeting") == b"200 hello"
        rest = b"".join([c async for c in read_chunks(reader, options, what="body")])
        assert rest == b"body bytes"
        writer.close()


async def test_read_line_limit_and_truncation() -> None:
    server, port = await _serve(b"x" * 200 + b"\r\n")
    async with server:
        options = Options(max_line=64)
        reader, writer = await open_tcp("127.0.0.1", port, options)
        with pytest.raises(LimitExceeded):
            await read_line(reader, options, what="reply")
        writer.close()
    server, port = await _serve(b"partial")
    async with server:
        options = Options()
        reader, writer = await open_tcp("127.0.0.1", port, options)
        with pytest.raises(ConnectionClosed, match="after 7 bytes"):
            await read_line(reader, options, what="reply")
        writer.close()


async def test_sized_read_reports_missing_bytes() -> None:
    server, port = await _serve(b"12345")
    async with server:
        options = Options()
        reader, writer = await open_tcp("127.0.0.1", port, options)
        with pytest.raises(ConnectionClosed, match="5 bytes of body still to come"):
            async for _ in read_chunks(reader, options, what="body", size=10):
                pass
        writer.close()


async def test_read_timeout_is_typed() -> None:
    server, port = await _serve(b"", close=False)
    async with server:
        options = Options(read_timeout=0.2)
        reader, writer = await open_tcp("127.0.0.1", port, options)
        with pytest.raises(ResolveTimeout, match=r"0\.2 s waiting for greeting"):
            await read_line(reader, options, what="greeting")
        writer.close()


async def test_strict_policy_refuses_loopback_before_connecting() -> None:
    from omniurl.resolvers.errors import AddressRefused

    with pytest.raises(AddressRefused) as info:
        await open_tcp("localhost", 9, Options(policy=resolvers.STRICT))
    assert info.value.component == "host"


async def test_connect_refused_is_typed() -> None:
    from omniurl.resolvers.errors import ConnectError

    server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    server.close()
    await server.wait_closed()
    with pytest.raises(ConnectError) as info:
        await open_tcp("127.0.0.1", port, Options(connect_timeout=2))
    assert info.value.component == "host"


def test_resolve_specs_in_the_api_like_curl() -> None:
    from omniurl.resolvers.errors import ConfigurationError
    from omniurl.resolvers.options import parse_resolve

    assert parse_resolve("Example.org:21:127.0.0.1:2121") == (
        ("example.org", 21),
        ("127.0.0.1", 2121),
    )
    assert parse_resolve("example.org:70:[::1]") == (("example.org", 70), ("::1", None))
    assert parse_resolve("example.org:127.0.0.2") == (("example.org", None), ("127.0.0.2", None))
    options = Options().resolving("a.example:21:127.0.0.1:2121", "b.example:127.0.0.3")
    assert options.map_address("a.example", 21) == ("127.0.0.1", 2121)
    assert options.map_address("b.example", 80) == ("127.0.0.3", 80)
    for bad in (
        "example.org",
        "example.org:99999:127.0.0.1",
        ":21:127.0.0.1",
        "a:1:b:2:c",
        "example.org:\u00b2:127.0.0.1",  # isdigit() says yes, int() raises ValueError
    ):
        with pytest.raises(ConfigurationError):
            parse_resolve(bad)


@pytest.mark.parametrize("scheme", ["gopher", "ftp", "http", "nntp"])
async def test_a_host_label_longer_than_63_octets_is_a_connect_error(scheme: str) -> None:
    """getaddrinfo raises a bare UnicodeError (the IDNA codec: "label empty or too long")
    before any DNS query; it is the host's fault, said as a typed error."""
    from omniurl.resolvers.errors import ConnectError

    host = "a" * 64 + ".example"
    with pytest.raises(ConnectError) as info:
        await resolvers.resolve(f"{scheme}://{host}/x", Options(connect_timeout=2))
    assert info.value.component == "host"
    assert "label empty or too long" in info.value.message
