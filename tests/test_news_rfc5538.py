"""RFC 5538: news://server/…, wildmats, snews: (NNTP over TLS) and STARTTLS (RFC 4642).

Against omniurl's NNTP server: the exact commands it receives, what a listing holds, and
the TLS handshake (a throw-away CA from trustme) — certificate checked, --insecure, failure
typed.
"""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from omniurl import resolvers, schemes, testservers
from omniurl.resolvers.errors import AuthError, ConnectError
from omniurl.resolvers.nntp.grammar import wildmat_matches
from omniurl.resolvers.nntp.result import NNTPResult
from omniurl.resolvers.nntp.settings import NNTPOptions
from omniurl.resolvers.options import Options
from omniurl.schemes import SchemeSyntaxError, URLError

# -- parsing ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "newsgroup", "message_id", "host", "port"),
    [
        # RFC 5538 §2.2's and §2.3's examples, and the forms every newsreader writes
        ("news:comp.infosystems.www.misc", "comp.infosystems.www.misc", None, None, None),
        (
            "news://news.server.example/example.group.this",
            "example.group.this",
            None,
            "news.server.example",
            None,
        ),
        ("news://news.server.example/*", "*", None, "news.server.example", None),
        ("news://news.server.example/", "*", None, "news.server.example", None),
        ("news://news.server.example:1190/comp.*", "comp.*", None, "news.server.example", 1190),
        ("news:*", "*", None, None, None),
        ("news:comp.*", "comp.*", None, None, None),
        (
            "news:example.group.*,!example.group.bin*",
            "example.group.*,!example.group.bin*",
            None,
            None,
            None,
        ),
        ("news:abc@def.example", None, "abc@def.example", None, None),
        (
            "news://news.server.example/abc@def.example",
            None,
            "abc@def.example",
            "news.server.example",
            None,
        ),
        ("news://h/%3Cabc@def.example%3E", None, "abc@def.example", "h", None),
        (
            "snews://secure.example/comp.lang.python",
            "comp.lang.python",
            None,
            "secure.example",
            None,
        ),
        ("news:1comp.odd-but+legal", "1comp.odd-but+legal", None, None, None),  # RFC 3977 §4.1
    ],
)
def test_rfc5538_components(
    text: str, newsgroup: str | None, message_id: str | None, host: str | None, port: int | None
) -> None:
    u = schemes.parse(text)
    out = u.to_json()
    assert (out["newsgroup"], out["message_id"]) == (newsgroup, message_id)
    assert (out.get("host"), out.get("port")) == (host, port)
    assert schemes.parse(str(u)) == u
    if host is None:  # RFC 1738's form keeps its keys exactly
        assert set(out) == {"scheme", "newsgroup", "message_id", "fragment"}


@pytest.mark.parametrize(
    ("text", "message_id"),
    [
        ("news:%3C%3Ca@h.example%3E%3E", "<a@h.example>"),
        ("news://s.example/%3C%3Ca@h.example%3E%3E", "<a@h.example>"),
        ("news:%3C%3C%3Ca@h%3E%3E%3E", "<<a@h>>"),
        ("news:%3Ca@h.example", "<a@h.example"),  # (one bracket: not a pair, kept)
        ("news:a@h.example%3E", "a@h.example>"),
    ],
)
def test_a_message_id_in_brackets_is_written_back_in_brackets(text: str, message_id: str) -> None:
    """The default reading takes one enclosing "<>" off a message-id (RFC 5538 §2.2 writes it
    without); an id that still starts with "<" and ends with ">" after that is written back
    inside one more pair, so that ``parse(str(url)) == url`` (it was written bare, and read
    back one pair shorter)."""
    url = schemes.parse(text)
    assert url.message_id == message_id  # type: ignore[attr-defined]
    assert schemes.parse(str(url)) == url


def test_the_lenient_reading_no_longer_misparses_a_server() -> None:
    """It read news://server/group as a group named "//server/group"."""
    for syntax in ("rfc3986", "lenient"):
        u = schemes.parse("news://news.server.example/example.group.this", syntax=syntax)
        assert (u.host, u.newsgroup) == ("news.server.example", "example.group.this")  # type: ignore[attr-defined]


def test_rfc1738_still_reads_the_letter() -> None:
    with pytest.raises(URLError) as e:
        schemes.parse("news://news.server.example/example.group.this", syntax="rfc1738")
    assert "the default reading (RFC 3986) accepts it" in e.value.message
    # to the letter, "//h/a@b" is a message-id (article = 1*[... "/" ...] "@" host)
    assert schemes.parse("news://h/a@b.example", syntax="rfc1738").message_id == "//h/a@b.example"  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("text", "component"),
    [
        ("news://u:p@h/g", "user"),  # NNTP authenticates with AUTHINFO (~/.netrc)
        ("news://h/a/b@c", "message_id"),
        ("news://h:x/g", "port"),
    ],
)
def test_rfc5538_errors(text: str, component: str) -> None:
    with pytest.raises(URLError) as e:
        schemes.parse(text)
    assert e.value.component == component


def test_nntp_percent_2f_is_a_valid_escape() -> None:
    """``nntp://h/n%2Fa/1`` was refused with "'%' must start an escape"."""
    u = schemes.parse("nntp://h/n%2Fa/1")
    assert (u.newsgroup, u.article) == ("n/a", 1)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("pattern", "name", "expected"),
    [
        (b"comp.*", b"comp.lang.python", True),
        (b"comp.*", b"alt.comp", False),
        (b"comp.*,!comp.os.*", b"comp.os.linux", False),
        (b"comp.*,!comp.os.*,comp.os.linux", b"comp.os.linux", True),
        (b"c?mp.*", b"camp.x", True),
        (b"*", b"anything", True),
        (b"a.b", b"a.b", True),
        (b"a.b", b"a.bc", False),
    ],
)
def test_wildmat_matches_rfc3977_section_4_2(pattern: bytes, name: bytes, expected: bool) -> None:
    assert wildmat_matches(pattern, name) is expected


# -- plans ------------------------------------------------------------------------------------


def steps(url: str, **kw: Any) -> list[str]:
    return [str(s) for s in resolvers.plan(url, Options(**kw)).to_json()["steps"]]


def test_the_urls_server_wins_over_configuration() -> None:
    plan = resolvers.plan(
        "news://127.0.0.1:1190/omniurl.test",
        Options(schemes=(NNTPOptions(server="other.example"),)),
    )
    assert (plan.host, plan.port, plan.explicit_port) == ("127.0.0.1", 1190, True)
    plan = resolvers.plan("news://127.0.0.1/omniurl.test")
    assert (plan.host, plan.port) == ("127.0.0.1", 119)
    assert resolvers.plan("snews://127.0.0.1/g").port == 563


def test_wildmat_plan() -> None:
    assert steps("news://h/comp.*,!comp.os.*") == [
        "CAPABILITIES",
        "MODE READER",
        "LIST ACTIVE comp.*,!comp.os.*",
        "LIST",
        "QUIT",
    ]
    with pytest.raises(SchemeSyntaxError):
        resolvers.plan("news://h/comp.%5Bab%5D")  # "[" is reserved in a wildmat


def test_tls_steps_are_planned() -> None:
    assert steps("snews://h/g")[:2] == [
        "TLS handshake with h (its certificate verified)",
        "CAPABILITIES",
    ]
    auto = steps("news://h/g", schemes=(NNTPOptions(starttls="auto"),))
    assert auto[:4] == ["CAPABILITIES", "STARTTLS", "CAPABILITIES", "MODE READER"]
    assert steps("news://h/g")[:2] == ["CAPABILITIES", "MODE READER"]  # never, as curl
    plan = resolvers.plan("nntp://h/g", Options(schemes=(NNTPOptions(starttls="auto"),)))
    assert plan.to_json()["when"][1] == "CAPABILITIES lists STARTTLS (RFC 4642)"


# -- against omniurl's NNTP server -----------------------------------------------------------


@pytest_asyncio.fixture
async def plain(tmp_path: Path) -> AsyncIterator[testservers.RunningServer]:
    srv = await testservers.start("nntp", tmp_path)
    yield srv
    await srv.close()


def sent(server: testservers.RunningServer) -> list[bytes]:
    return list(server.info["log"])


async def test_a_group_read_through_news_server_url(plain: testservers.RunningServer) -> None:
    url = f"news://127.0.0.1:{plain.port}/omniurl.test"
    async with await resolvers.resolve(url, Options()) as res:
        entries = res.entries
    assert entries and all(
        e.url.startswith(f"nntp://127.0.0.1:{plain.port}/omniurl.test/") for e in entries
    )
    assert sent(plain)[:2] == [b"CAPABILITIES", b"GROUP omniurl.test"]


async def test_a_wildmat_lists_the_matching_groups(plain: testservers.RunningServer) -> None:
    url = f"news://127.0.0.1:{plain.port}/omniurl.*,!omniurl.empty"
    async with await resolvers.resolve(url, Options()) as res:
        names = {e.name: e.url for e in res.entries}
    assert sent(plain) == [b"CAPABILITIES", b"LIST ACTIVE omniurl.*,!omniurl.empty", b"QUIT"]
    assert "omniurl.empty" not in names and "omniurl.test" in names
    assert names["omniurl.test"] == f"news://127.0.0.1:{plain.port}/omniurl.test"


async def test_an_rfc977_server_lists_everything_and_the_wildmat_filters(tmp_path: Path) -> None:
    srv = await testservers.start("nntp", tmp_path, rfc977=True)
    try:
        url = f"news://127.0.0.1:{srv.port}/omniurl.t*"
        async with await resolvers.resolve(url, Options()) as res:
            names = [e.name for e in res.entries]
        assert names == ["omniurl.test"]
        assert b"LIST" in sent(srv) and b"LIST ACTIVE omniurl.t*" in sent(srv)
    finally:
        await srv.close()


async def test_snews_is_tls_from_the_first_byte(
    tmp_path: Path, pki: tuple[ssl.SSLContext, str]
) -> None:
    context, ca = pki
    srv = await testservers.start("nntp", tmp_path, tls=context, implicit_tls=True)
    try:
        url = f"snews://127.0.0.1:{srv.port}/omniurl.test"
        async with await resolvers.resolve(url, Options(ca_file=ca)) as res:
            assert res.entries
        async with await resolvers.resolve(url, Options(verify_tls=False)) as res:
            assert res.entries  # --insecure
        before = len(sent(srv))
        with pytest.raises(ConnectError) as info:
            await resolvers.resolve(url, Options(connect_timeout=5))
        assert "certificate verification failed" in info.value.message
        assert len(sent(srv)) == before  # not one command over an unverified connection
    finally:
        await srv.close()


async def test_starttls_when_offered(tmp_path: Path, pki: tuple[ssl.SSLContext, str]) -> None:
    context, ca = pki
    srv = await testservers.start("nntp", tmp_path, tls=context)
    try:
        url = f"news://127.0.0.1:{srv.port}/omniurl.test"
        options = Options(ca_file=ca, schemes=(NNTPOptions(starttls="auto"),))
        async with await resolvers.resolve(url, options) as res:
            assert res.entries
            assert res.result_as(NNTPResult).starttls
        assert sent(srv)[:4] == [b"CAPABILITIES", b"STARTTLS", b"<TLS started>", b"CAPABILITIES"]
    finally:
        await srv.close()


async def test_starttls_required_but_not_offered_sends_nothing_more(
    plain: testservers.RunningServer,
) -> None:
    url = f"news://127.0.0.1:{plain.port}/omniurl.test"
    with pytest.raises(AuthError) as info:
        await resolvers.resolve(url, Options(schemes=(NNTPOptions(starttls="require"),)))
    assert "STARTTLS" in info.value.message
    assert sent(plain) == [b"CAPABILITIES"]


async def test_starttls_auto_stays_plain_where_not_offered(
    plain: testservers.RunningServer,
) -> None:
    url = f"news://127.0.0.1:{plain.port}/omniurl.test"
    async with await resolvers.resolve(
        url, Options(schemes=(NNTPOptions(starttls="auto"),))
    ) as res:
        assert res.entries
    assert b"STARTTLS" not in sent(plain)
