"""The lean engine's pipelining (``OMNIURL_BATCH_PIPELINE``, RFC 9112 §9.3.2): several GETs
in flight on one connection, their replies read in order — and every request a connection
leaves unanswered (the server closes after one reply, says ``Connection: close``, or its
reply is handed to the general path) sent again on another connection, each file its own
URL's bytes, each row the general path's."""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from _ftphttp import OPTS
from _lean import TAKEN, count_the_engines_work, files, rows
from helpers import loopback_server

from omniurl import AsyncClient
from omniurl.batch import LEAN_VARIABLE, PIPELINE_VARIABLE, FetchResult, pipeline_depth
from omniurl.resolvers import Options

BATCH = OPTS.with_(error_body=True, read_timeout=5.0)


def body_of(path: bytes) -> bytes:
    return b"the bytes of " + path + b"\n" * (len(path) % 5 + 1)


def reply(status: bytes, body: bytes, *fields: bytes) -> bytes:
    head = [b"HTTP/1.1 " + status, *fields, b"Content-Length: %d" % len(body)]
    return b"\r\n".join([*head, b"", body])


@dataclass
class Server:
    """Reads requests as they come (several in one read when pipelined) and answers them in
    order.  ``answers``: replies a connection gives before it closes (0: no end);
    ``close_header``: the last of them says ``Connection: close``."""

    answers: int = 0
    close_header: bool = False
    #: Of the requests one read brings it answers the first and drops the others (a server
    #: that ignores pipelined requests; one at a time it answers them all).  What no client
    #: can tell from a late reply: see :func:`test_a_server_that_drops_pipelined_requests`.
    drops: bool = False
    #: After its last answer, bytes that are no reply (then silence until the client goes).
    garbage: bytes = b""
    #: Each connection's requests (their request lines), in order.
    connections: list[list[bytes]] = field(default_factory=list)
    #: Reads that brought more than one whole request: pipelining seen from the server.
    pipelined_reads: int = 0
    #: Each path answered, how often.
    answered: Counter[bytes] = field(default_factory=Counter)
    #: Connections open now, and the most at once.
    open: int = 0
    most: int = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        mine: list[bytes] = []
        self.connections.append(mine)
        buffer = b""
        self.open += 1
        self.most = max(self.most, self.open)
        try:
            while True:
                try:
                    data = await asyncio.wait_for(reader.read(65536), 10)
                except (TimeoutError, ConnectionError):
                    return
                if not data:
                    return
                buffer += data
                heads = buffer.split(b"\r\n\r\n")
                buffer = heads.pop()
                if len(heads) > 1:
                    self.pipelined_reads += 1
                    if self.drops:
                        del heads[1:]
                mine.extend(head.split(b"\r\n", 1)[0] for head in heads)
                for n, head in enumerate(heads, len(mine) - len(heads) + 1):
                    path = head.split(b" ")[1]
                    last = self.answers and n == self.answers
                    if path.startswith(b"/missing"):
                        data = reply(b"404 Not Found", b"no such file\n")
                    else:
                        fields = (b"Connection: close",) if last and self.close_header else ()
                        data = reply(b"200 OK", body_of(path), *fields)
                    writer.write(data)
                    self.answered[path] += 1
                    if last:
                        writer.write(self.garbage)
                        await writer.drain()
                        if self.garbage:
                            with contextlib.suppress(TimeoutError, ConnectionError):
                                await asyncio.wait_for(reader.read(), 5)
                        return
                await writer.drain()
        finally:
            self.open -= 1
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()


@contextlib.asynccontextmanager
async def serving(server: Server) -> AsyncIterator[str]:
    async with loopback_server(server.handle) as port:
        yield f"http://127.0.0.1:{port}"


#: Requests the engine left unanswered on a connection that ended, to be sent again.
ABANDONED: list[int] = []


@pytest.fixture(autouse=True)
def _count_the_engines_work(monkeypatch: pytest.MonkeyPatch) -> None:
    count_the_engines_work(monkeypatch)
    from omniurl.resolvers.http import batch_engine

    abandon = batch_engine._Conn._abandon

    def counted(self: batch_engine._Conn) -> None:
        ABANDONED.append(sum(not x.outcome for x in self.queue))
        abandon(self)

    monkeypatch.setattr(batch_engine._Conn, "_abandon", counted)
    ABANDONED.clear()


async def batch(
    urls: list[str],
    out: Path,
    monkeypatch: pytest.MonkeyPatch,
    *,
    depth: int | None,
    lean: bool = True,
    options: Options = BATCH,
) -> list[FetchResult]:
    monkeypatch.setenv(LEAN_VARIABLE, "1" if lean else "0")
    if depth is None:  # (the default: the variable unset)
        monkeypatch.delenv(PIPELINE_VARIABLE, raising=False)
    else:
        monkeypatch.setenv(PIPELINE_VARIABLE, str(depth))
    out.mkdir()
    async with AsyncClient(options) as client:
        results = [
            r
            async for r in client.fetch_many(urls, concurrency=16, per_host=2, output_dir=str(out))
        ]
    return sorted(results, key=lambda r: r.index)


def paths(urls: list[str]) -> list[bytes]:
    return [u.split("/", 3)[3].encode() for u in urls]


def assert_each_file_its_own(results: list[FetchResult], urls: list[str]) -> None:
    for row, url in zip(results, urls, strict=True):
        assert row.ok, row
        assert row.path is not None
        assert Path(row.path).read_bytes() == body_of(b"/" + url.split("/", 3)[3].encode())


def test_the_depth_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for text, depth in (("", 1), ("4", 4), ("1", 1), ("0", 1), ("x", 1), ("-3", 1), (" 8 ", 8)):
        monkeypatch.setenv(PIPELINE_VARIABLE, text)
        assert pipeline_depth() == depth, text


async def test_pipelined_gets_share_the_connections_and_each_file_is_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = Server()
    async with serving(server) as base:
        urls = [f"{base}/f/n{i}.txt" for i in range(60)]
        results = await batch(urls, tmp_path / "out", monkeypatch, depth=4)
    assert_each_file_its_own(results, urls)
    assert len(server.connections) <= 2  # (per_host: the engine's connections)
    assert server.pipelined_reads > 0  # (requests went out behind others, unanswered yet)
    assert server.answered == Counter(b"/" + p for p in paths(urls))  # (each once)
    assert TAKEN.count("whole") == 60


async def test_off_by_default_one_request_a_connection_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = Server()
    async with serving(server) as base:
        urls = [f"{base}/f/n{i}.txt" for i in range(30)]
        results = await batch(urls, tmp_path / "out", monkeypatch, depth=None)
    assert_each_file_its_own(results, urls)
    assert server.pipelined_reads == 0


@pytest.mark.parametrize("close_header", [False, True], ids=["silent-close", "connection-close"])
@pytest.mark.parametrize("answers", [1, 3])
async def test_requests_a_closing_server_left_unanswered_are_sent_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, answers: int, close_header: bool
) -> None:
    """A server that answers only ``answers`` requests a connection and then closes it
    (saying ``Connection: close`` in the last reply, or not): the pipelined requests behind
    are sent again on new connections (RFC 9112 §9.3.2), every file arrives whole and is its
    own URL's, every path is answered exactly once, and no request is sent more often than
    it went unanswered."""
    server = Server(answers=answers, close_header=close_header)
    async with serving(server) as base:
        urls = [f"{base}/f/c{i}.txt" for i in range(40)]
        results = await batch(urls, tmp_path / "out", monkeypatch, depth=4)
    assert_each_file_its_own(results, urls)
    assert server.answered == Counter(b"/" + p for p in paths(urls))
    # (per_host connections at most, also once the server is pipelined no more and 8
    # transfers to it run at once: the others wait for one of its connections)
    assert server.most <= 2, server.most
    sent = Counter(line.split(b" ")[1] for conn in server.connections for line in conn)
    unanswered = sum(sent.values()) - sum(server.answered.values())
    # (requests did go out behind the one answered, and were sent again: each of them one
    # the engine gave up on a connection that ended — at most depth - 1 a connection)
    assert sum(ABANDONED) > 0
    assert unanswered <= sum(ABANDONED) <= 3 * len(server.connections), (unanswered, ABANDONED)
    assert TAKEN.count("whole") == 40


async def test_a_reply_handed_over_sends_the_ones_behind_it_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 404 among pipelined GETs goes to the general path with its connection; the GETs
    pipelined behind it are sent again elsewhere.  Rows and files are the general path's."""
    server = Server()
    async with serving(server) as base:
        urls = [f"{base}/f/h{i}.txt" if i % 7 != 3 else f"{base}/missing{i}" for i in range(42)]
        general = await batch(urls, tmp_path / "general", monkeypatch, depth=1, lean=False)
        server.answered.clear()
        lean = await batch(urls, tmp_path / "lean", monkeypatch, depth=4)
    assert rows(lean, tmp_path / "lean") == rows(general, tmp_path / "general")
    assert files(tmp_path / "lean") == files(tmp_path / "general")
    assert set(server.answered) == {b"/" + p for p in paths(urls)}
    assert TAKEN.count("handed") == 6 and TAKEN.count("whole") == 36
    assert sum(ABANDONED) > 0  # (GETs were pipelined behind a 404, and sent again)


async def test_bytes_that_are_no_reply_behind_a_reply_send_the_pipelined_ones_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A connection that sends bytes that are no reply after its one answer: the requests
    pipelined behind are sent again, one a connection (the server pipelined no more) —
    every file whole and its own, each row the general path's (which never reuses a
    connection with bytes behind its reply, issue 30)."""
    options = BATCH.with_(read_timeout=0.5)
    server = Server(answers=1, garbage=b"XX\r\n\r\n")
    async with serving(server) as base:
        urls = [f"{base}/f/m{i}.txt" for i in range(12)]
        general = await batch(
            urls, tmp_path / "general", monkeypatch, depth=1, lean=False, options=options
        )
        server.answered.clear()
        lean = await batch(urls, tmp_path / "lean", monkeypatch, depth=4, options=options)
    assert rows(lean, tmp_path / "lean") == rows(general, tmp_path / "general")
    assert files(tmp_path / "lean") == files(tmp_path / "general")
    assert_each_file_its_own(lean, urls)
    assert server.answered == Counter(b"/" + p for p in paths(urls))
    assert sum(ABANDONED) > 0  # (requests pipelined behind the bytes were sent again)
    assert TAKEN.count("whole") == 12


async def test_a_server_that_drops_pipelined_requests_is_why_it_is_off_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hazard that made curl drop pipelining, held here so that nobody turns it on by
    default without facing it: a server that reads several requests at once, answers the
    first and drops the others, and answers a request sent later — HTTP/1.1 replies do not
    name their request, so a reply is taken for a request the server dropped, and a file
    gets another URL's bytes (RFC 9112 §9.3.2 leaves this to the client's choice).  Off
    (the default), every file is its own."""
    options = BATCH.with_(read_timeout=0.5)
    server = Server(drops=True)
    async with serving(server) as base:
        urls = [f"{base}/f/d{i}.txt" for i in range(24)]
        serial = await batch(urls, tmp_path / "serial", monkeypatch, depth=1, options=options)
        assert_each_file_its_own(serial, urls)
        piped = await batch(urls, tmp_path / "piped", monkeypatch, depth=4, options=options)
    assert server.pipelined_reads  # (requests did arrive together: the server dropped some)
    wrong = [
        r.url
        for r, u in zip(piped, urls, strict=True)
        if r.ok and r.path is not None
        and Path(r.path).read_bytes() != body_of(b"/" + u.split("/", 3)[3].encode())
    ]  # fmt: skip
    failed = [r.url for r in piped if not r.ok]
    assert wrong or failed, "pipelining survived a server that drops requests"
