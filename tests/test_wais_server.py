"""``testservers.wais`` on its own: what it answers, and that it hangs up on what is not WAIS."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest_asyncio

from omniurl import testservers
from omniurl.resolvers.wais import tags as T
from omniurl.resolvers.wais.apdu import (
    DocObj,
    InitAPDU,
    InitResponseAPDU,
    SearchAPDU,
    SearchResponseAPDU,
    TextQuery,
    WAISSearch,
    decode_apdu,
)
from omniurl.resolvers.wais.header import frame
from omniurl.resolvers.wais.transport import read_message
from omniurl.testservers.wais import MAX_REQUEST, index_directory


@pytest_asyncio.fixture
async def server(tree: Path) -> AsyncIterator[testservers.RunningServer]:
    async with await testservers.start("wais", tree) as srv:
        yield srv


async def _talk(srv: testservers.RunningServer, *messages: bytes) -> list[object]:
    reader, writer = await asyncio.open_connection(srv.host, srv.port)
    replies: list[object] = []
    try:
        for message in messages:
            writer.write(message)
            await writer.drain()
            apdu = await read_message(reader, timeout=5, maximum=1 << 20, what="a reply")
            replies.append(decode_apdu(apdu))
    finally:
        writer.close()
        await writer.wait_closed()
    return replies


async def _hangs_up(srv: testservers.RunningServer, data: bytes) -> bool:
    reader, writer = await asyncio.open_connection(srv.host, srv.port)
    try:
        writer.write(data)
        await writer.drain()
        return await asyncio.wait_for(reader.read(100), 5) == b""
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()


def test_index_makes_one_database_per_subdirectory(tree: Path) -> None:
    dbs = index_directory(tree)
    assert list(dbs) == ["pub"]
    docs = {d.relative: d for d in dbs["pub"].documents}
    assert docs[b"README.txt"].document_id == b"187 /pub/README.txt"
    assert docs[b"README.txt"].wtype == b"TEXT"
    assert docs[b"data.bin"].wtype == b"BINARY"
    assert docs[b"data.bin"].words == {b"data": 1, b"bin": 1}  # binaries: by name only


async def test_init_then_search_on_one_connection(server: testservers.RunningServer) -> None:
    init, search = await _talk(
        server,
        frame(InitAPDU(reference_id=b"r1").encode()),
        frame(
            SearchAPDU(
                database_names=(b"pub",),
                query_type=b"3",
                reference_id=b"r2",
                query=WAISSearch(b"Hello", max_documents=5),
            ).encode()
        ),
    )
    assert isinstance(init, InitResponseAPDU) and init.result and init.reference_id == b"r1"
    assert isinstance(search, SearchResponseAPDU) and search.info is not None
    assert search.reference_id == b"r2"
    assert [h.headline for h in search.info.headers] == [b"hello.txt"]
    assert search.info.seed_words_used == b"hello"


async def test_retrieval_answers_the_byte_range(server: testservers.RunningServer) -> None:
    (reply,) = await _talk(
        server,
        frame(
            SearchAPDU(
                database_names=(b"pub",),
                query_type=b"1",
                query=TextQuery((DocObj(b"34 /pub/hello.txt", b"TEXT", T.CT_BYTE, 6, 10),)),
            ).encode()
        ),
    )
    assert isinstance(reply, SearchResponseAPDU) and reply.info is not None
    assert [t.text for t in reply.info.texts] == [b"from"]


async def test_unsupported_query_type_is_a_diagnostic(server: testservers.RunningServer) -> None:
    (reply,) = await _talk(
        server, frame(SearchAPDU(database_names=(b"pub",), query_type=b"0").encode())
    )
    assert isinstance(reply, SearchResponseAPDU) and reply.search_status == 1
    assert reply.info is not None and reply.info.diagnostics[0].code == b"S3"


async def test_hangs_up_on_what_is_not_wais(server: testservers.RunningServer) -> None:
    assert await _hangs_up(server, b"GET / HTTP/1.0\r\n\r\n" + b"x" * 20)
    assert await _hangs_up(server, b"%010dz2wais        0" % (MAX_REQUEST + 1))
    assert await _hangs_up(server, frame(b"\x00\x01\x63"))  # PDU type 99
