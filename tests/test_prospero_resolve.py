"""prospero: URLs end to end: the plan, the policy, the executor, and the chain onwards."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest
import pytest_asyncio
from helpers import ROOT, run_omniurl

from omniurl import resolvers, schemes, testservers
from omniurl.resolvers import Follow, Options
from omniurl.resolvers.errors import (
    DelimiterRefused,
    NotFound,
    PlanError,
    RedirectRefused,
    ReplyError,
)
from omniurl.resolvers.prospero import protocol
from omniurl.resolvers.prospero.result import ProsperoResult
from omniurl.resolvers.prospero.settings import ProsperoOptions
from omniurl.testservers.recording import recording_of, start_recording

FAST = Options(
    connect_timeout=5,
    read_timeout=5,
    email="tester@example.org",
    schemes=(ProsperoOptions(retry_timeout=0.05, retries=4),),
)
V5_HEAD = "VERSION 5 omniurl\nAUTHENTICATE '' UNAUTHENTICATED omniurl\n"


@pytest_asyncio.fixture
async def ftp(tree: Path) -> AsyncIterator[testservers.RunningServer]:
    async with await testservers.start("ftp", tree) as server:
        yield server


@pytest_asyncio.fixture
async def pros(
    tree: Path, ftp: testservers.RunningServer
) -> AsyncIterator[testservers.RunningServer]:
    async with await testservers.start("prospero", tree, ftp=(ftp.host, ftp.port)) as server:
        yield server


def url_of(server: testservers.RunningServer, hsoname: str, tail: str = "") -> str:
    return f"prospero://{server.netloc}/{hsoname}{tail}"


async def execute(url: str, options: Options = FAST) -> resolvers.Resource:
    """Run the prospero executor alone (the core would follow a Follow)."""
    plan = resolvers.check(url, options)
    return await resolvers.registry.get("prospero").execute(plan, options)


async def run_cli(*args: str) -> tuple[int, bytes, bytes]:
    """``python -m omniurl ARGS`` in a subprocess (bounded); our servers keep serving."""
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env.update(PYTHONPATH=str(ROOT), HOME=str(ROOT), EMAIL="tester@example.org")
    return await run_omniurl(*args, timeout=60, env=env)


# -- the plan ----------------------------------------------------------------------------------


def test_plan_is_the_v5_request_then_the_conditional_v1_request() -> None:
    plan = resolvers.check("prospero://host.dom//pub/hello.txt", FAST)
    assert plan.to_json() == {
        "url": "prospero://host.dom//pub/hello.txt",
        "scheme": "prospero",
        "host": "host.dom",
        "port": 1525,
        "transport": "udp",
        "steps": [
            V5_HEAD + "GET-OBJECT-INFO ACCESS-METHOD ASCII /pub/hello.txt 0",
            "VERSION 1\nAUTHENTICATOR UNAUTHENTICATED omniurl\n"
            "DIRECTORY ASCII /pub\nLIST ATTRIBUTES COMPONENTS hello.txt",
        ],
        "when": [None, "reply VERSION-NOT-SUPPORTED"],
    }
    assert [s.kind for s in plan.steps] == ["datagram", "datagram"]
    assert plan.steps[1].when == "reply VERSION-NOT-SUPPORTED"
    assert plan.steps[0].data == protocol.v5_request(b"/pub/hello.txt")
    assert not plan.explicit_port


@pytest.mark.parametrize(
    "url",
    ["prospero://h//pub/notes;OBJECT-VERSION=1", "prospero://h//pub/notes%001"],
)
def test_object_version_from_field_or_rfc1630(url: str) -> None:
    plan = resolvers.check(url, FAST)
    assert plan.steps[0].data.endswith(b"GET-OBJECT-INFO ACCESS-METHOD ASCII /pub/notes 1\n")
    assert (
        plan.to_json()["steps"][1]
        == "(no version-1 fallback: version 1 cannot ask for an object version)"
    )
    assert plan.details.version == "1"


def test_conflicting_versions_are_a_plan_error() -> None:
    with pytest.raises(PlanError) as info:
        resolvers.plan("prospero://h//pub/notes%001;OBJECT-VERSION=2", FAST)
    assert info.value.component == "version"


def test_other_fields_become_select_lines_and_spaces_are_quoted() -> None:
    plan = resolvers.check("prospero://h//pub/with%20space;COLOR=blue", FAST)
    assert plan.steps[0].data == (
        V5_HEAD.encode()
        + b"GET-OBJECT-INFO ACCESS-METHOD ASCII '/pub/with space' 0\n"
        + b"SELECT LINK FIELD COLOR ASCII blue\n"
    )
    assert [v.component for v in plan.wire_values()] == ["hsoname", "field[COLOR]", "field[COLOR]"]
    assert {v.context for v in plan.wire_values()} == {"prospero"}


@pytest.mark.parametrize(
    ("tail", "component", "octet"),
    [
        ("/pub/a%0D%0AFAILURE", "hsoname", 0x0D),
        ("/pub/a%0Ab", "hsoname", 0x0A),
        ("/pub/a;K=v%00w", "field[K]", 0x00),
    ],
)
async def test_delimiters_refused_and_nothing_sent(
    tree: Path, tail: str, component: str, octet: int
) -> None:
    async with await testservers.start("prospero", tree) as server:
        url = f"prospero://{server.netloc}/{tail}"
        with pytest.raises(DelimiterRefused) as info:
            await resolvers.resolve(url, FAST)
        assert (info.value.component, info.value.octet) == (component, octet)
        assert server.info["datagrams"] == []


async def test_refused_url_sends_zero_bytes_to_a_recording_server() -> None:
    async with await start_recording(transport="udp") as rec:
        url = f"prospero://127.0.0.1:{rec.port}//pub/x%0D%0Ay"
        with pytest.raises(DelimiterRefused):
            await resolvers.resolve(url, FAST)
        strict = FAST.with_(policy=resolvers.STRICT)
        with pytest.raises(resolvers.errors.PolicyError):
            await resolvers.resolve(f"prospero://127.0.0.1:{rec.port}//pub/x", strict)
        assert recording_of(rec).received == b""


# -- the executor ------------------------------------------------------------------------------


async def test_access_methods_listing(
    pros: testservers.RunningServer, ftp: testservers.RunningServer
) -> None:
    async with await execute(url_of(pros, "/pub/hello.txt"), FAST.with_(follow=False)) as res:
        assert res.kind == "listing"
        assert [(e.kind, e.url) for e in res.entries] == [
            ("access-method", f"ftp://127.0.0.1:{ftp.port}/pub/hello.txt;type=a"),
            # LOCAL with '' host: the link's host, the directory server itself
            ("access-method", "file://127.0.0.1/srv/prospero/pub/hello.txt"),
        ]
        assert res.entries[0].name == (
            f"AFTP INTERNET-D 127.0.0.1({ftp.port}) ASCII /pub/hello.txt TEXT"
        )
        assert res.result_as(ProsperoResult) == ProsperoResult(5)
        assert res.metadata == {"prospero_protocol_version": 5}
    # --access-methods (ProsperoOptions.list_methods) lists too, with following still on
    async with await execute(
        url_of(pros, "/pub/hello.txt"),
        FAST.with_scheme(replace(FAST.of(ProsperoOptions), list_methods=True)),
    ) as res:
        assert len(res.entries) == 2


async def test_executor_raises_follow_for_the_first_access_method(
    pros: testservers.RunningServer, ftp: testservers.RunningServer
) -> None:
    with pytest.raises(Follow) as info:
        await execute(url_of(pros, "/pub/data.bin"))
    assert str(info.value.target) == f"ftp://127.0.0.1:{ftp.port}/pub/data.bin;type=i"
    assert info.value.reason == "prospero access method"


async def test_chain_to_the_local_ftp_server(
    pros: testservers.RunningServer, ftp: testservers.RunningServer, tree: Path
) -> None:
    notes: list[str] = []
    options = FAST.with_(transcript=lambda d, t: notes.append(f"{d} {t}"))
    url = url_of(pros, "/pub/hello.txt")
    async with await resolvers.resolve(url, options) as res:
        assert await res.read() == (tree / "pub" / "hello.txt").read_bytes()
        assert res.chain == [url]
        assert str(res.url) == f"ftp://127.0.0.1:{ftp.port}/pub/hello.txt;type=a"
    assert f"* prospero access method: ftp://127.0.0.1:{ftp.port}/pub/hello.txt;type=a" in notes
    assert "> GET-OBJECT-INFO ACCESS-METHOD ASCII /pub/hello.txt 0" in notes


async def test_forwarded_is_followed_bounded(
    pros: testservers.RunningServer, ftp: testservers.RunningServer, tree: Path
) -> None:
    url = url_of(pros, "/moved/hello.txt")
    async with await resolvers.resolve(url, FAST) as res:
        assert await res.read() == (tree / "pub" / "hello.txt").read_bytes()
        assert res.chain == [url, f"prospero://{pros.netloc}//pub/hello.txt"]
    # --access-methods follows the move and lists what is found there
    listing = FAST.with_scheme(replace(FAST.of(ProsperoOptions), list_methods=True))
    async with await resolvers.resolve(url, listing) as res:
        assert res.kind == "listing" and res.entries[0].info["method"] == "AFTP"
        assert res.chain == [url]
    # without following, the forward is the listing
    async with await execute(url, FAST.with_(follow=False)) as res:
        assert [(e.kind, e.url) for e in res.entries] == [
            ("forwarded", f"prospero://{pros.netloc}//pub/hello.txt")
        ]


async def test_forwarding_loop_stops(tree: Path) -> None:
    async with await testservers.start("prospero", tree, table={}) as server:
        from omniurl.testservers.prospero import ObjectEntry

        server.info["table"]["/loop"] = ObjectEntry(forward=(server.info["self_host"], "/loop"))
        options = FAST.with_(policy=FAST.policy.with_(max_redirects=3))
        # forwarded to itself: followed to the bound, then named a loop (docs/http.md)
        with pytest.raises(resolvers.errors.RedirectLoop, match=r"more than 3 .* back to itself"):
            await resolvers.resolve(url_of(server, "/loop"), options)
        assert len(server.info["requests"]) == 4


async def test_local_method_is_skipped_for_the_next_allowed_one(tree: Path) -> None:
    async with await testservers.start(
        "prospero", tree, gopher=("127.0.0.1", 7070, "/pub/README.txt")
    ) as server:
        notes: list[str] = []
        options = FAST.with_(transcript=lambda d, t: notes.append(t))
        with pytest.raises(Follow) as info:
            await execute(url_of(server, "/pub/README.txt"), options)
        assert str(info.value.target) == "gopher://127.0.0.1:7070/0/pub/README.txt"
        assert any(n.startswith("access method LOCAL skipped: RedirectRefused") for n in notes)


async def test_no_allowed_method_is_a_redirect_refusal(tree: Path) -> None:
    async with await testservers.start("prospero", tree) as server:
        from omniurl.testservers.prospero import ObjectEntry

        server.info["table"]["/only-local"] = ObjectEntry(
            {"0": [("LOCAL", "INTERNET-D", "", "ASCII", "/etc/passwd")]}
        )
        with pytest.raises(RedirectRefused, match="list them with --no-follow") as info:
            await execute(url_of(server, "/only-local"))
        assert info.value.component == "location"


async def test_strict_policy_takes_no_scheme_change(
    pros: testservers.RunningServer, ftp: testservers.RunningServer
) -> None:
    # strict, except that loopback and our random ports are allowed for the test
    policy = resolvers.STRICT.with_(allow_private_addresses=True, default_ports_only=False)
    with pytest.raises(RedirectRefused) as info:
        await resolvers.resolve(url_of(pros, "/pub/hello.txt"), FAST.with_(policy=policy))
    assert "prospero: to ftp: refused by the strict policy" in info.value.message
    assert "file: is never followed" in info.value.message


async def test_object_version_reaches_the_server(
    pros: testservers.RunningServer, ftp: testservers.RunningServer
) -> None:
    current = await execute(url_of(pros, "/pub/notes"), FAST.with_(follow=False))
    old = await execute(url_of(pros, "/pub/notes%001"), FAST.with_(follow=False))
    assert current.entries[0].info["hsoname"] == "/pub/README.txt"
    assert old.entries[0].info["hsoname"] == "/pub/hello.txt"
    assert pros.info["requests"][-1].endswith(b"ASCII /pub/notes 1\n")
    with pytest.raises(NotFound) as info:
        await execute(url_of(pros, "/pub/notes;OBJECT-VERSION=7"))
    assert info.value.component == "version"


async def test_unknown_object_is_not_found(pros: testservers.RunningServer) -> None:
    with pytest.raises(NotFound) as info:
        await execute(url_of(pros, "/no/such"))
    assert info.value.component == "hsoname"
    assert info.value.code == "FAILURE"
    assert "NOT-FOUND OBJECT" in info.value.reply


async def test_server_error_is_a_reply_error(tree: Path) -> None:
    async with await testservers.start("prospero", tree) as server:
        # a request the server does not understand: it answers ERROR
        url = f"prospero://{server.netloc}//x"
        plan = resolvers.check(url, FAST)
        broken = plan.steps[0].data.replace(b"GET-OBJECT-INFO", b"FROB")
        steps = (replace(plan.steps[0], data=broken, shown=""),)

        with pytest.raises(ReplyError) as info:
            await resolvers.registry.get("prospero").execute(replace(plan, steps=steps), FAST)
        assert info.value.code == "ERROR"


async def test_version_one_fallback(tree: Path, ftp: testservers.RunningServer) -> None:
    async with await testservers.start(
        "prospero", tree, versions=(1,), ftp=(ftp.host, ftp.port)
    ) as server:
        res = await execute(url_of(server, "/pub/hello.txt"), FAST.with_(follow=False))
        assert res.result_as(ProsperoResult) == ProsperoResult(1)
        assert res.metadata == {"prospero_protocol_version": 1}
        assert res.entries[0].url == f"ftp://127.0.0.1:{ftp.port}/pub/hello.txt;type=a"
        assert [r.split(b"\n")[0] for r in server.info["requests"]] == [
            b"VERSION 5 omniurl",
            b"VERSION 1",
        ]
        # a URL with a version cannot fall back: the server's refusal is the answer
        with pytest.raises(ReplyError, match="neither protocol version 5"):
            await execute(url_of(server, "/pub/hello.txt%001"))
        assert len(server.info["requests"]) == 3


async def test_three_packets_with_a_drop_end_to_end(tree: Path) -> None:
    async with await testservers.start("prospero", tree, drop={2}) as server:
        res = await execute(url_of(server, "/mirrors/hello.txt"), FAST.with_(follow=False))
        assert len(res.entries) == 25


async def test_cli_plan_and_get_no_follow(
    pros: testservers.RunningServer, ftp: testservers.RunningServer
) -> None:
    status, out, _err = await run_cli("plan", url_of(pros, "/pub/hello.txt"))
    assert status == 0
    assert json.loads(out)["transport"] == "udp"
    status, out, err = await run_cli("get", "--no-follow", url_of(pros, "/pub/hello.txt"))
    assert status == 0, err
    assert out.decode().splitlines()[0] == (
        f"access-method\tAFTP INTERNET-D 127.0.0.1({ftp.port}) ASCII /pub/hello.txt TEXT\t"
        f"ftp://127.0.0.1:{ftp.port}/pub/hello.txt;type=a"
    )
    status, out, err = await run_cli("get", url_of(pros, "/pub/hello.txt"))
    assert status == 0, err
    assert out == b"Hello from the omniurl demo tree.\n"


def test_parse_round_trip_of_a_forward_target() -> None:
    url = schemes.parse("prospero://h:1600//pub/x")
    assert str(url) == "prospero://h:1600//pub/x"


async def test_ipv6_loopback_and_forward(tree: Path) -> None:
    try:
        server = await testservers.start("prospero", tree, host="::1")
    except OSError:
        pytest.skip("no IPv6 loopback here")
    async with server:
        assert server.netloc.startswith("[::1]:")
        url = f"prospero://{server.netloc}//moved/hello.txt"
        async with await execute(url, FAST.with_(follow=False)) as res:
            assert res.entries[0].url == f"prospero://{server.netloc}//pub/hello.txt"


async def test_chain_to_the_local_gopher_server(tree: Path) -> None:
    async with await testservers.start("gopher", tree) as gopher:
        sel = "/pub/README.txt"
        async with await testservers.start(
            "prospero", tree, gopher=(gopher.host, gopher.port, sel)
        ) as server:
            url = url_of(server, "/pub/README.txt")
            async with await resolvers.resolve(url, FAST) as res:
                assert str(res.url) == f"gopher://{gopher.netloc}/0/pub/README.txt"
                assert res.chain == [url]
                text = (tree / "pub" / "README.txt").read_bytes()
                assert (await res.read()).replace(b"\r\n", b"\n") == text  # Gopher text is CRLF
