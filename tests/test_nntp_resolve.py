"""news: and nntp: URLs resolved against omniurl's own NNTP server (testservers.nntp):
exact bytes on the wire, exact content, exact listings, every fallback and the AUTHINFO dance."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from hypothesis import given, settings
from hypothesis import strategies as st

from omniurl import testservers
from omniurl.resolvers import Options, resolve
from omniurl.resolvers.errors import AuthError, NotFound, ReplyError
from omniurl.resolvers.nntp.result import NNTPResult
from omniurl.resolvers.nntp.settings import NNTPOptions
from omniurl.testservers.nntp import Newsgroup, make_article


async def _start(tmp_path: Path, **kw: Any) -> testservers.RunningServer:
    return await testservers.start("nntp", tmp_path, **kw)


@pytest_asyncio.fixture
async def server(tmp_path: Path) -> AsyncIterator[testservers.RunningServer]:
    srv = await _start(tmp_path)
    yield srv
    await srv.close()


def news_options(srv: testservers.RunningServer, **kw: Any) -> Options:
    mine = NNTPOptions(server=srv.netloc, **kw.pop("nntp", {}))
    return Options(schemes=(mine,), read_timeout=5, connect_timeout=5, **kw)


# -- articles -------------------------------------------------------------------------------


async def test_news_message_id_streams_the_article_dot_unstuffed(
    server: testservers.RunningServer,
) -> None:
    async with await resolve("news:dots@omniurl.test", news_options(server)) as res:
        assert res.kind == "content"
        assert res.media_type == "message/rfc822"
        body = await res.read()
    head, _, text = body.partition(b"\r\n\r\n")
    assert b"Message-ID: <dots@omniurl.test>" in head.split(b"\r\n")
    # The server stuffed ".", ".hidden" and "..two dots"; we get them back as written.
    assert text == b"Lines that start with a dot:\r\n.\r\n.hidden\r\n..two dots\r\nthe end\r\n"
    assert server.info["log"] == [
        b"CAPABILITIES",
        b"ARTICLE <dots@omniurl.test>",
        b"QUIT",
    ]


async def test_nntp_article_by_number(server: testservers.RunningServer) -> None:
    url = f"nntp://{server.netloc}/omniurl.announce/10"
    async with await resolve(url, Options()) as res:
        body = await res.read()
    assert body.endswith(b"\r\n\r\nArticles 1-9 have expired; the low water mark is 10.\r\n")
    assert server.info["log"] == [
        b"CAPABILITIES",
        b"GROUP omniurl.announce",
        b"ARTICLE 10",
        b"QUIT",
    ]
    assert res.replies[-2:] == ["220 10 <v0.1@omniurl.test>", "205 closing connection"]


async def test_article_is_streamed_not_buffered(tmp_path: Path) -> None:
    big = Newsgroup("big.group")
    body = "\n".join(f"line {i:06d} " + "x" * 90 for i in range(20_000))  # ~2 MB
    big.articles[1] = make_article("big.group", 1, "<big@x>", "big", body)
    srv = await _start(tmp_path, groups={"big.group": big})
    try:
        options = Options(chunk_size=16 * 1024)
        async with await resolve(f"nntp://{srv.netloc}/big.group/1", options) as res:
            sizes = []
            async for chunk in res:
                sizes.append(len(chunk))
                if len(sizes) == 3:
                    break
        assert len(sizes) == 3 and all(16 * 1024 <= s < 17 * 1024 for s in sizes)
        assert srv.info["log"][-1] == b"ARTICLE 1"  # closed early: no QUIT mid-article
    finally:
        await srv.close()


@pytest.mark.parametrize(
    ("url", "component", "code"),
    [
        ("news:nothere@omniurl.test", "message_id", 430),
        ("news:no.such.group", "newsgroup", 411),
    ],
)
async def test_not_found_names_the_component(
    server: testservers.RunningServer, url: str, component: str, code: int
) -> None:
    with pytest.raises(NotFound) as info:
        await resolve(url, news_options(server))
    assert (info.value.component, info.value.code) == (component, code)
    assert server.info["log"][-1] == b"QUIT"  # the session ended politely


async def test_missing_article_number_is_423(server: testservers.RunningServer) -> None:
    with pytest.raises(NotFound) as info:
        await resolve(f"nntp://{server.netloc}/omniurl.test/99", Options())
    assert (info.value.component, info.value.code) == ("article", 423)
    assert server.info["log"] == [
        b"CAPABILITIES",
        b"GROUP omniurl.test",
        b"ARTICLE 99",
        b"QUIT",
    ]


# -- listings -------------------------------------------------------------------------------


async def test_group_listing_has_nntp_urls_and_subjects(server: testservers.RunningServer) -> None:
    async with await resolve("news:omniurl.test", news_options(server)) as res:
        assert res.kind == "listing"
    assert [(e.kind, e.name, e.url) for e in res.entries] == [
        ("article", "Welcome to omniurl.test", f"nntp://{server.netloc}/omniurl.test/1"),
        ("article", "Dot-stuffing", f"nntp://{server.netloc}/omniurl.test/2"),
        ("article", "Grüße from the test server", f"nntp://{server.netloc}/omniurl.test/3"),
    ]
    second = res.entries[1].info
    assert second["message_id"] == "<dots@omniurl.test>"
    assert second["news_url"] == "news:dots@omniurl.test"
    assert second["references"] == "<welcome@omniurl.test>"
    assert (g := res.result_as(NNTPResult).group) is not None and g.count == 3
    assert server.info["log"] == [b"CAPABILITIES", b"GROUP omniurl.test", b"OVER 1-3", b"QUIT"]


async def test_listing_is_limited_to_the_newest_articles(server: testservers.RunningServer) -> None:
    options = news_options(server, nntp={"max_articles": 2})
    async with await resolve("news:omniurl.test", options) as res:
        assert [e.info["number"] for e in res.entries] == [2, 3]
    assert b"OVER 2-3" in server.info["log"]


async def test_empty_group_sends_no_over(server: testservers.RunningServer) -> None:
    async with await resolve(f"nntp://{server.netloc}/omniurl.empty", Options()) as res:
        assert res.entries == []
    assert server.info["log"] == [b"CAPABILITIES", b"GROUP omniurl.empty", b"QUIT"]


async def test_over_falls_back_to_xover(tmp_path: Path) -> None:
    srv = await _start(tmp_path, over=False)
    try:
        async with await resolve("news:omniurl.test", news_options(srv)) as res:
            assert [e.info["number"] for e in res.entries] == [1, 2, 3]
            assert res.entries[0].name == "Welcome to omniurl.test"
        assert srv.info["log"][2:] == [b"OVER 1-3", b"XOVER 1-3", b"QUIT"]
    finally:
        await srv.close()


async def test_xover_falls_back_to_listgroup(tmp_path: Path) -> None:
    srv = await _start(tmp_path, over=False, xover=False)
    try:
        async with await resolve("news:omniurl.test", news_options(srv)) as res:
            assert [(e.name, e.url) for e in res.entries] == [
                (f"article {n}", f"nntp://{srv.netloc}/omniurl.test/{n}") for n in (1, 2, 3)
            ]
        assert srv.info["log"][2:] == [
            b"OVER 1-3",
            b"XOVER 1-3",
            b"LISTGROUP omniurl.test 1-3",
            b"QUIT",
        ]
    finally:
        await srv.close()


async def test_news_star_lists_groups(server: testservers.RunningServer) -> None:
    async with await resolve("news:*", news_options(server)) as res:
        got = {e.name: (e.kind, e.url, e.info) for e in res.entries}
    assert got["omniurl.announce"] == (
        "group",
        "news:omniurl.announce",
        {"high": 10, "low": 10, "status": "m"},
    )
    assert set(got) == {"omniurl.test", "omniurl.announce", "omniurl.empty"}
    assert server.info["log"] == [b"CAPABILITIES", b"LIST ACTIVE", b"QUIT"]


async def test_rfc977_server_gets_mode_reader_and_plain_list(tmp_path: Path) -> None:
    srv = await _start(tmp_path, rfc977=True)
    try:
        async with await resolve("news:*", news_options(srv)) as res:
            assert len(res.entries) == 3
        assert srv.info["log"] == [
            b"CAPABILITIES",  # 500: an RFC 977 server
            b"MODE READER",  # so MODE READER, as RFC 3977 §5.3 allows
            b"LIST ACTIVE",  # 501
            b"LIST",
            b"QUIT",
        ]
    finally:
        await srv.close()


async def test_mode_switching_server_gets_mode_reader(tmp_path: Path) -> None:
    srv = await _start(tmp_path, mode_switching=True)
    try:
        async with await resolve("news:welcome@omniurl.test", news_options(srv)) as res:
            assert b"Read on!" in await res.read()
        assert srv.info["log"] == [
            b"CAPABILITIES",
            b"MODE READER",
            b"ARTICLE <welcome@omniurl.test>",
            b"QUIT",
        ]
    finally:
        await srv.close()


# -- AUTHINFO (RFC 4643) --------------------------------------------------------------------


@pytest_asyncio.fixture
async def auth_server(tmp_path: Path) -> AsyncIterator[testservers.RunningServer]:
    srv = await _start(tmp_path, credentials=("fred", "open sesame"))
    yield srv
    await srv.close()


async def test_authinfo_after_480_then_the_command_again(
    auth_server: testservers.RunningServer,
) -> None:
    options = news_options(auth_server, credentials={"127.0.0.1": ("fred", "open sesame")})
    async with await resolve("news:omniurl.test", options) as res:
        assert len(res.entries) == 3
    assert auth_server.info["log"] == [
        b"CAPABILITIES",
        b"GROUP omniurl.test",  # 480
        b"AUTHINFO USER fred",  # 381
        b"AUTHINFO PASS open sesame",  # 281
        b"GROUP omniurl.test",  # again
        b"OVER 1-3",
        b"QUIT",
    ]
    assert "480 authentication required" in res.replies


async def test_no_authinfo_when_the_server_does_not_ask(server: testservers.RunningServer) -> None:
    options = news_options(server, credentials={"127.0.0.1": ("fred", "secret")})
    async with await resolve("news:omniurl.test", options):
        pass
    assert not any(line.startswith(b"AUTHINFO") for line in server.info["log"])


async def test_480_without_credentials_is_an_auth_error(
    auth_server: testservers.RunningServer,
) -> None:
    with pytest.raises(AuthError, match="no credentials are configured") as info:
        await resolve("news:omniurl.test", news_options(auth_server))
    assert info.value.component == "host"
    assert auth_server.info["log"] == [b"CAPABILITIES", b"GROUP omniurl.test"]


async def test_refused_credentials_are_an_auth_error(
    auth_server: testservers.RunningServer,
) -> None:
    options = news_options(auth_server, credentials={"127.0.0.1": ("fred", "wrong")})
    with pytest.raises(AuthError, match="481"):
        await resolve("news:omniurl.test", options)
    assert auth_server.info["log"][-2:] == [b"AUTHINFO USER fred", b"AUTHINFO PASS wrong"]


# -- the server itself ---------------------------------------------------------------------


async def test_server_serves_articles_from_the_tree(tmp_path: Path) -> None:
    folder = tmp_path / "news" / "local.files"
    folder.mkdir(parents=True)
    (folder / "5").write_bytes(b"Subject: from a file\nMessage-ID: <f@x>\n\n.dot first\n")
    srv = await _start(tmp_path)
    try:
        async with await resolve(f"nntp://{srv.netloc}/local.files/5", Options()) as res:
            assert await res.read() == (
                b"Subject: from a file\r\nMessage-ID: <f@x>\r\n\r\n.dot first\r\n"
            )
        async with await resolve(f"nntp://{srv.netloc}/local.files", Options()) as res:
            assert [(e.name, e.info["number"]) for e in res.entries] == [("from a file", 5)]
    finally:
        await srv.close()


async def test_greeting_refusal_is_a_reply_error(tmp_path: Path) -> None:
    async def refuse(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"502 you may not read here\r\n")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(refuse, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        with pytest.raises(ReplyError, match="refused the session") as info:
            await resolve(f"nntp://127.0.0.1:{port}/a.b", Options())
        assert (info.value.code, info.value.component) == (502, "host")
    finally:
        server.close()
        await server.wait_closed()


# -- properties and addresses ----------------------------------------------------------------

_LINE = st.binary(max_size=40).map(lambda b: b.replace(b"\r", b"").replace(b"\n", b""))


@settings(max_examples=40, deadline=None)
@given(body=st.lists(st.one_of(_LINE, st.sampled_from([b".", b"..", b".x", b""])), max_size=12))
def test_any_body_survives_server_stuffing_and_client_unstuffing(body: list[bytes]) -> None:
    """Whatever the lines, the client gives back exactly what the server framed (§3.1.1)."""

    async def fetch() -> bytes:
        group = Newsgroup("prop.test")
        art = make_article("prop.test", 1, "<p@x>", "property", "")
        art.body = body
        group.articles[1] = art
        srv = await testservers.start("nntp", Path("."), groups={"prop.test": group})
        try:
            async with await resolve(f"nntp://{srv.netloc}/prop.test/1", Options()) as res:
                return await res.read()
        finally:
            await srv.close()

    article = asyncio.run(fetch())
    received = article.partition(b"\r\n\r\n")[2]
    assert received == b"".join(line + b"\r\n" for line in body)


async def test_ipv6_loopback(tmp_path: Path) -> None:
    try:
        srv = await _start(tmp_path, host="::1")
    except OSError:
        pytest.skip("no IPv6 loopback here")
    try:
        async with await resolve(f"nntp://[::1]:{srv.port}/omniurl.test", Options()) as res:
            assert res.entries[0].url == f"nntp://[::1]:{srv.port}/omniurl.test/1"
        options = Options(schemes=(NNTPOptions(server=f"[::1]:{srv.port}"),))
        async with await resolve("news:welcome@omniurl.test", options) as res:
            assert b"Read on!" in await res.read()
    finally:
        await srv.close()


@pytest.mark.parametrize(
    ("url", "behaviour"),
    [
        ("news:*", {}),
        ("news:*", {"rfc977": True}),
        ("news:omniurl.test", {"over": False, "xover": False}),
        ("news:omniurl.test", {"mode_switching": True, "credentials": ("u", "p")}),
        ("news:dots@omniurl.test", {"credentials": ("u", "p")}),
        ("nntp://{netloc}/omniurl.announce/10", {"rfc977": True}),
    ],
)
async def test_every_line_sent_is_a_plan_step_in_plan_order(
    tmp_path: Path, url: str, behaviour: dict[str, Any]
) -> None:
    """The executor never sends a step the plan does not show, nor out of order; the only
    repeat is the command a 480 refused, sent again after AUTHINFO."""
    from omniurl.resolvers import check

    srv = await _start(tmp_path, **behaviour)
    try:
        options = news_options(srv, credentials={"127.0.0.1": ("u", "p")})
        url = url.format(netloc=srv.netloc)
        plan = check(url, options)
        async with await resolve(url, options) as res:
            if res.kind == "content":
                await res.read()
        patterns = [
            re.escape(step.data).replace(re.escape(b"{range}"), rb"[0-9]+-[0-9]+")
            for step in plan.steps
        ]
        position = 0
        for line in srv.info["log"]:
            matches = [i for i, p in enumerate(patterns) if re.fullmatch(p, line)]
            assert matches, f"{line!r} is not a step of the plan"
            auth = line.startswith(b"AUTHINFO")
            index = matches[0]
            assert auth or index >= position, f"{line!r} sent out of the plan's order"
            if not auth:
                position = index
        assert srv.info["log"][-1] == b"QUIT"
    finally:
        await srv.close()
