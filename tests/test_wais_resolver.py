"""The WAIS resolver end to end against ``testservers.wais`` (loopback, port 0).

What is asserted: the plan's exact messages and their summaries; that the bytes the server
received are exactly the plan's steps; search listings; chunked, streamed retrieval; DocIDs
that round-trip octet for octet through ``wpath``; typed errors naming the component to blame;
and zero bytes sent for URLs the policy refuses or that still need search words.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from helpers import run_omniurl

from omniurl import schemes, testservers
from omniurl.resolvers import Options, check, plan, resolve
from omniurl.resolvers.errors import (
    ConnectionClosed,
    DelimiterRefused,
    InputNeeded,
    LimitExceeded,
    NotFound,
    PlanError,
    ProtocolError,
    ResolveTimeout,
)
from omniurl.resolvers.wais import tags as T
from omniurl.resolvers.wais.apdu import (
    InitAPDU,
    InitResponseAPDU,
    SearchAPDU,
    TextQuery,
    WAISSearch,
    decode_apdu,
)
from omniurl.resolvers.wais.header import HEADER_LENGTH, frame
from omniurl.resolvers.wais.result import WAISResult
from omniurl.resolvers.wais.settings import WAISOptions
from omniurl.testservers.wais import WAISServer

BIG = b"".join(b"line %05d of a big omniurl document\n" % i for i in range(3000))
ODD_NAME = b"caf\xe9 menu.txt"  # not UTF-8, and a space: must round-trip through wpath


@pytest_asyncio.fixture
async def wais(tree: Path) -> AsyncIterator[testservers.RunningServer]:
    (tree / "pub" / "big.txt").write_bytes(BIG)
    (tree / "pub" / os.fsdecode(ODD_NAME)).write_bytes(b"croissant omniurl\n")
    (tree / "pub" / "exact.txt").write_bytes(b"x" * 8192)
    async with await testservers.start("wais", tree) as server:
        yield server


def server_of(srv: testservers.RunningServer) -> WAISServer:
    server = srv.info["server"]
    assert isinstance(server, WAISServer)
    return server


def url_of(srv: testservers.RunningServer, rest: str) -> str:
    return f"wais://127.0.0.1:{srv.port}/{rest}"


def docid(srv: testservers.RunningServer, name: bytes) -> bytes:
    value = srv.info["document_ids"][("pub", name)]
    assert isinstance(value, bytes)
    return value


def escaped(value: bytes) -> str:
    from omniurl.resolvers.wais.planner import escape

    return escape(value)


# -- planning (pure) --------------------------------------------------------------------------


def test_search_plan_is_init_then_a_type_3_search() -> None:
    p = plan("wais://wais.example.org/pub?omniurl%20demo")
    assert (p.host, p.port, p.transport, p.explicit_port) == ("wais.example.org", 210, "tcp", False)
    assert p.to_json()["steps"] == [
        "Init (WAIS protocol 2, max 65536)",
        'Search db="pub" query-type 3 seed "omniurl demo" max 40',
    ]
    init, search = (decode_apdu(s.data[HEADER_LENGTH:]) for s in p.steps)
    assert all(s.kind == "message" for s in p.steps)
    assert p.steps[0].data[:HEADER_LENGTH] == b"%010dz2wais        0" % (
        len(p.steps[0].data) - HEADER_LENGTH
    )
    assert isinstance(init, InitAPDU) and init.preferred_message_size == 65536
    assert isinstance(search, SearchAPDU)
    assert search.database_names == (b"pub",)
    assert search.query_type == b"3"
    assert search.query == WAISSearch(b"omniurl demo", date_factor=1, max_documents=40)
    assert [(v.component, v.value, v.context) for v in p.steps[1].values] == [
        ("database", b"pub", "wais"),
        ("search", b"omniurl demo", "wais"),
    ]


def test_document_plan_shows_the_first_chunk_and_the_repetition() -> None:
    p = plan(
        "wais://h:2100/pub/TEXT/12%20%2Fpub%2F%FFx", Options(schemes=(WAISOptions(chunk_size=100),))
    )
    assert p.explicit_port and p.port == 2100
    assert p.to_json()["steps"] == [
        "Init (WAIS protocol 2, max 65536)",
        'Search db="pub" query-type 1 docid 12%20%2Fpub%2F%FFx type TEXT bytes [0, 100)',
        'Search db="pub" query-type 1 docid 12%20%2Fpub%2F%FFx type TEXT bytes [100, 200), '
        "then [200, 300), … (repeated)",
    ]
    assert p.to_json()["when"] == [None, None, "while the previous reply filled its 100-byte chunk"]
    for step, (start, end) in zip(p.steps[1:], [(0, 100), (100, 200)], strict=True):
        apdu = decode_apdu(step.data[HEADER_LENGTH:])
        assert isinstance(apdu, SearchAPDU) and isinstance(apdu.query, TextQuery)
        assert apdu.query_type == b"1"
        assert apdu.element_set_names == b" \x1fDocument Text"
        (doc,) = apdu.query.documents
        assert (doc.document_id, doc.type, doc.chunk_code, doc.start, doc.end) == (
            b"12 /pub/\xffx",  # the DocID's octets exactly, %FF included
            b"TEXT",
            T.CT_BYTE,
            start,
            end,
        )


def test_database_plan_sends_nothing() -> None:
    p = plan("wais://h/pub")
    assert [s.kind for s in p.steps] == ["info"]
    assert p.steps[0].data == b""
    assert "searchable" in p.steps[0].shown


def test_empty_wpath_is_a_plan_error() -> None:
    with pytest.raises(PlanError) as info:
        plan("wais://h/pub/TEXT/")
    assert info.value.component == "wpath"


@pytest.mark.parametrize(
    ("url", "component", "octet"),
    [
        ("wais://h/pu%1Fb?words", "database", 0x1F),
        ("wais://h/pub?two%00words", "search", 0x00),
        ("wais://h/p%00b/TEXT/x", "database", 0x00),
    ],
)
def test_delimiters_are_refused_by_the_policy(url: str, component: str, octet: int) -> None:
    with pytest.raises(DelimiterRefused) as info:
        check(url)
    assert (info.value.component, info.value.octet) == (component, octet)


def test_docid_may_hold_any_octet() -> None:
    # wpath is checked in the "binary" context: a DocID is opaque (doc-ids.txt)
    p = check("wais://h/pub/TEXT/%00%1F%0D%0A%FF")
    apdu = decode_apdu(p.steps[1].data[HEADER_LENGTH:])
    assert isinstance(apdu, SearchAPDU) and isinstance(apdu.query, TextQuery)
    assert apdu.query.documents[0].document_id == b"\x00\x1f\r\n\xff"


# -- against the test server ------------------------------------------------------------------


async def test_search_returns_a_listing_and_sends_exactly_the_plan(
    wais: testservers.RunningServer,
) -> None:
    url = url_of(wais, "pub?omniurl%20document")
    p = plan(url)
    async with await resolve(url) as resource:
        assert resource.kind == "listing"
        entries = resource.entries
    server = server_of(wais)
    assert bytes(server.received) == p.steps[0].data + p.steps[1].data
    assert [e.name for e in entries][:2] == ["big.txt", "README.txt"]
    top = entries[0]
    assert top.kind == "document"
    assert top.url == url_of(wais, "pub/TEXT/" + escaped(docid(wais, b"big.txt")))
    assert top.info["score"] == 1000
    assert top.info["size"] == len(BIG)
    assert top.info["types"] == ["TEXT"]
    assert resource.result_as(WAISResult) == WAISResult(len(entries), "omniurl document")
    assert resource.replies[0].startswith("Init-Response (accept")


async def test_retrieval_streams_the_document_chunk_by_chunk(
    wais: testservers.RunningServer,
) -> None:
    url = url_of(wais, "pub/TEXT/" + escaped(docid(wais, b"big.txt")))
    options = Options(schemes=(WAISOptions(chunk_size=4096),))
    p = plan(url, options)
    server = server_of(wais)
    async with await resolve(url, options) as resource:
        assert resource.media_type == "text/plain"
        chunks = aiter(resource)
        first = await anext(chunks)
        assert first == BIG[:4096]
        # streamed: only the first chunk has been asked for so far
        assert len(server.requests) == 2
        rest = b"".join([c async for c in chunks])
    assert first + rest == BIG
    ranges = [
        (r.query.documents[0].start, r.query.documents[0].end)
        for r in server.requests[1:]
        if isinstance(r, SearchAPDU) and isinstance(r.query, TextQuery)
    ]
    expected = [(s, s + 4096) for s in range(0, len(BIG), 4096)]
    assert ranges == expected
    # the bytes on the wire: the plan's Init, its first request, its repeated step, and the
    # repetition it describes (same request, the range moved on)
    assert bytes(server.received).startswith(p.steps[0].data + p.steps[1].data + p.steps[2].data)


async def test_a_document_the_size_of_whole_chunks_ends_on_an_empty_chunk(
    wais: testservers.RunningServer,
) -> None:
    url = url_of(wais, "pub/TEXT/" + escaped(docid(wais, b"exact.txt")))
    options = Options(schemes=(WAISOptions(chunk_size=4096),))
    async with await resolve(url, options) as resource:
        assert await resource.read() == b"x" * 8192
    assert len(server_of(wais).requests) == 4  # Init, [0,4096), [4096,8192), [8192,12288)


async def test_docid_round_trips_octet_for_octet(wais: testservers.RunningServer) -> None:
    async with await resolve(url_of(wais, "pub?croissant")) as resource:
        (hit,) = resource.entries
    original = docid(wais, ODD_NAME)
    assert hit.url is not None and hit.url.endswith("/pub/TEXT/" + escaped(original))
    assert "caf%E9%20menu.txt" in hit.url
    parsed: Any = schemes.parse(hit.url)
    assert parsed.wpath.encode("utf-8", "surrogateescape") == original
    async with await resolve(hit.url) as doc:
        assert await doc.read() == b"croissant omniurl\n"
    retrieval = server_of(wais).requests[-1]
    assert isinstance(retrieval, SearchAPDU) and isinstance(retrieval.query, TextQuery)
    assert retrieval.query.documents[0].document_id == original


async def test_unknown_database_is_not_found(wais: testservers.RunningServer) -> None:
    with pytest.raises(NotFound) as info:
        await resolve(url_of(wais, "nosuchdb?anything"))
    assert info.value.component == "database"
    assert info.value.code == "S1"
    assert "database not found" in str(info.value)


async def test_unknown_document_is_not_found(wais: testservers.RunningServer) -> None:
    with pytest.raises(NotFound) as info:
        await resolve(url_of(wais, "pub/TEXT/999%20%2Fpub%2Fnothing"))
    assert info.value.component == "wpath"


async def test_wrong_type_is_not_found(wais: testservers.RunningServer) -> None:
    with pytest.raises(NotFound, match="type not available"):
        await resolve(url_of(wais, "pub/GIF/" + escaped(docid(wais, b"big.txt"))))


async def test_database_url_needs_words_and_sends_nothing(
    wais: testservers.RunningServer,
) -> None:
    with pytest.raises(InputNeeded) as info:
        await resolve(url_of(wais, "pub"))
    assert info.value.component == "search"
    assert "pub" in info.value.prompt
    assert server_of(wais).connections == 0


async def test_database_url_asks_for_words_then_searches(
    wais: testservers.RunningServer,
) -> None:
    prompts: list[str] = []

    async def ask(prompt: str, secret: bool = False) -> str:
        prompts.append(prompt)
        return "croissant"

    async with await resolve(url_of(wais, "pub"), Options(ask=ask)) as resource:
        assert [e.name for e in resource.entries] == [ODD_NAME.decode("latin-1")]
        assert resource.chain == [url_of(wais, "pub")]
    assert prompts == ["Search words for WAIS database 'pub': "]
    search = server_of(wais).requests[-1]
    assert isinstance(search, SearchAPDU) and isinstance(search.query, WAISSearch)
    assert search.query.seed_words == b"croissant"


async def test_refused_url_sends_zero_bytes(wais: testservers.RunningServer) -> None:
    with pytest.raises(DelimiterRefused):
        await resolve(url_of(wais, "pub?a%00b"))
    assert server_of(wais).connections == 0
    assert server_of(wais).received == b""


# -- servers that break the protocol ----------------------------------------------------------

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


@contextlib.asynccontextmanager
async def scripted(handler: Handler) -> AsyncIterator[int]:
    """A loopback server running ``handler`` per connection; yields its port.  On exit every
    connection is closed and every handler cancelled, so none outlives the test."""
    tasks: set[asyncio.Task[None]] = set()
    writers: list[asyncio.StreamWriter] = []

    async def wrapped(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        tasks.add(task)
        writers.append(writer)
        with contextlib.suppress(ConnectionError, asyncio.IncompleteReadError):
            await handler(reader, writer)
        writer.close()  # a handler that returns hangs up

    server = await asyncio.start_server(wrapped, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for writer in writers:
            writer.close()
            with contextlib.suppress(ConnectionError, OSError):
                await writer.wait_closed()
        await server.wait_closed()


async def _against(handler: Handler, options: Options) -> Exception:
    async with scripted(handler) as port:
        with pytest.raises(Exception) as info:
            await asyncio.wait_for(resolve(f"wais://127.0.0.1:{port}/db?x", options), 10)
        return info.value


async def _init_reply(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await reader.readexactly(HEADER_LENGTH)
    writer.write(frame(InitResponseAPDU(result=True).encode()))


async def test_oversized_message_is_refused_before_reading_it() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"9999999999z2wais        0")
        await asyncio.sleep(1)

    error = await _against(handler, Options(read_timeout=5))
    assert isinstance(error, LimitExceeded)
    assert "9999999999" in str(error)


async def test_a_chunk_reply_is_bounded_by_the_chunk_not_just_the_buffer_limit() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _init_reply(reader, writer)
        await reader.read(1)
        writer.write(b"%010dz2wais        0" % (4096 + 65536 + 1))
        await asyncio.sleep(1)

    async with scripted(handler) as port:
        with pytest.raises(LimitExceeded, match="69633"):
            await resolve(
                f"wais://127.0.0.1:{port}/db/TEXT/id",
                Options(schemes=(WAISOptions(chunk_size=4096),)),
            )


async def test_garbage_is_a_protocol_error() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"HTTP/1.0 400 Bad Request\r\n\r\n")
        await asyncio.sleep(1)

    assert isinstance(await _against(handler, Options(read_timeout=5)), ProtocolError)


async def test_silent_server_times_out() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(3)

    error = await _against(handler, Options(read_timeout=0.2))
    assert isinstance(error, ResolveTimeout)


async def test_truncated_reply_is_connection_closed() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readexactly(HEADER_LENGTH)
        writer.write(b"0000000100z2wais        0" + b"\x00" * 10)

    assert isinstance(await _against(handler, Options(read_timeout=5)), ConnectionClosed)


async def test_rejected_init_is_a_reply_error() -> None:
    from omniurl.resolvers.errors import ReplyError

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readexactly(HEADER_LENGTH)
        writer.write(frame(InitResponseAPDU(result=False).encode()))
        await asyncio.sleep(1)

    error = await _against(handler, Options(read_timeout=5))
    assert isinstance(error, ReplyError) and "rejected" in str(error)


async def test_wrong_reply_type_is_a_protocol_error() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _init_reply(reader, writer)
        await reader.read(1)
        writer.write(frame(InitResponseAPDU(result=True).encode()))  # not a Search-Response
        await asyncio.sleep(1)

    error = await _against(handler, Options(read_timeout=5))
    assert isinstance(error, ProtocolError) and "answered a Search" in str(error)


# -- registration -----------------------------------------------------------------------------


def test_wais_server_is_registered_for_omniurl_serve() -> None:
    assert "wais" in testservers.known()


async def test_demo_runs_the_wais_cases() -> None:
    import io

    from omniurl.demo import run_demo

    out = io.StringIO()
    assert await run_demo(only=["wais"], out=out) == 0
    text = out.getvalue()
    assert "=== wais ===" in text
    assert "listing: README.txt" in text
    assert "error (NotFound)" in text


async def test_cli_presents_score_size_type_headline_and_url_on_a_terminal_only(
    wais: testservers.RunningServer,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A terminal gets the hits' table; anything else the listing as saved (docs/saving.md:
    the hook leaves it to the command line, which writes ``kind TAB name TAB url``)."""
    import argparse
    import sys

    from omniurl.resolvers.wais import WAISPresentation

    args = argparse.Namespace(json=False)
    async with await resolve(url_of(wais, "pub?croissant")) as resource:
        assert await WAISPresentation().present(resource, args) is None  # not a terminal
        monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
        status = await WAISPresentation().present(resource, args)
    assert status == 0
    shown = capsys.readouterr().out
    hit = resource.entries[0]
    for cell in ("score", "headline", "1000", "18", "TEXT", hit.name):
        assert cell in shown


# -- the command line -------------------------------------------------------------------------


async def _cli(*args: str) -> tuple[int, str, str]:
    status, out, err = await run_omniurl(*args, timeout=60)
    return status, out.decode(), err.decode()


async def test_cli_search_fetch_and_exit_statuses(wais: testservers.RunningServer) -> None:
    status, out, _ = await _cli("get", url_of(wais, "pub?croissant"))
    assert status == 0
    hit_url = url_of(wais, "pub/TEXT/" + escaped(docid(wais, ODD_NAME)))
    # a pipe: the listing as -o, -O and a batch save it (docs/saving.md; before: the five
    # columns of the terminal's table)
    assert out.splitlines() == ["\t".join(["document", "caf\xe9 menu.txt", hit_url])]
    status, out, _ = await _cli("get", hit_url)
    assert (status, out) == (0, "croissant omniurl\n")
    status, _, err = await _cli("get", url_of(wais, "pub"))  # no terminal to ask
    assert status == 3 and "searchable WAIS database" in err
    status, _, err = await _cli("get", url_of(wais, "nosuchdb?x"))
    assert status == 5 and "database not found" in err


async def test_cli_options_reach_the_plan() -> None:
    status, out, _ = await _cli(
        "plan", "--wais-max-docs", "7", "--wais-chunk", "1000", "wais://h/db?x", "wais://h/db/T/i"
    )
    assert status == 0
    assert '"Search db=\\"db\\" query-type 3 seed \\"x\\" max 7"' in out
    assert "bytes [0, 1000)" in out


async def test_cli_search_with_output_file_writes_the_listing_there(
    wais: testservers.RunningServer, tmp_path: Path
) -> None:
    target = tmp_path / "hits.txt"
    status, out, _ = await _cli("get", "-o", str(target), url_of(wais, "pub?croissant"))
    assert (status, out) == (0, "")
    hit_url = url_of(wais, "pub/TEXT/" + escaped(docid(wais, ODD_NAME)))
    assert target.read_text().splitlines() == [f"document\tcaf\xe9 menu.txt\t{hit_url}"]
