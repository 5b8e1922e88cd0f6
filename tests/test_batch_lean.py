"""The batch's lean HTTP engine (resolvers/http/batch_engine.py) against the general path: the bytes
each URL sends, the rows, files and exit status of the same batch through both, what it hands
over (error statuses, redirects, malformed or cut replies, stalls, large and chunked bodies),
the policy's refusals (zero bytes) and issue 30's keep-alive rules."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from _ftphttp import NGINX, OPTS, run_cli, start_nginx, stop
from _lean import TAKEN, count_the_engines_work, files, manifest_rows, proof_of, rows
from helpers import assert_no_new_connections, connected_sockets, loopback_server

from omniurl import AsyncClient
from omniurl.batch import LEAN_VARIABLE, PROOF_VARIABLE, FetchResult
from omniurl.resolvers import Options
from omniurl.resolvers.core import plan
from omniurl.resolvers.errors import PolicyError
from omniurl.resolvers.http.planner import request_head
from omniurl.resolvers.plan import WireValue
from omniurl.resolvers.policy import BLOCKED_PORTS, Policy
from omniurl.testservers.recording import recording_of, start_recording

CHUNKED = b"5\r\nhello\r\n0\r\n\r\n"
#: A Content-Length body past the engine's bound (omniurl.batch.HELD_BODY): the general path's.
BIG = 300 * 1024


def body_of(name: bytes) -> bytes:
    return b"body of " + name + b"\n" * (len(name) % 7 + 1)


def reply(status: str, body: bytes, *fields: bytes) -> bytes:
    head = [b"HTTP/1.1 " + status.encode(), *fields, b"Content-Length: %d" % len(body)]
    return b"\r\n".join([*head, b"", body])


@dataclass
class Scripted:
    """An HTTP/1.1 server answering by path, recording each connection's requests."""

    #: Answer only the first request of each connection; close on the next (a kept
    #: connection the server dropped while idle: issue 30's stale connection).
    one_per_connection: bool = False
    connections: list[list[bytes]] = field(default_factory=list)

    @property
    def requests(self) -> list[bytes]:
        return [r for conn in self.connections for r in conn]

    def answer(self, path: bytes) -> tuple[bytes | None, bool]:
        """(what to send, whether to close after it); None: close without a reply."""
        name = path.rsplit(b"/", 1)[-1]
        if path.startswith(b"/f/"):
            return reply("200 OK", body_of(name), b"Content-Type: text/plain; charset=utf-8"), False
        if path == b"/missing":
            return reply("404 Not Found", b"no such file\n", b"Content-Type: text/plain"), False
        if path == b"/moved":
            return reply("301 Moved Permanently", b"", b"Location: /f/target.txt"), False
        if path == b"/malformed":
            return b"HTTP/1.1 2x0 OK\r\nContent-Length: 2\r\n\r\nok", True
        if path == b"/cut":
            return b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789", True
        if path == b"/silent":
            return None, True
        if path == b"/chunked":
            return b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + CHUNKED, False
        if path == b"/twice":  # framed twice: read as chunked, the connection never reused
            return (
                b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"
                + CHUNKED,
                False,
            )
        if path == b"/trailing":  # a byte behind the reply: the connection is not reused
            return reply("200 OK", b"hello") + b"XX", False
        if path == b"/big":
            return reply("200 OK", b"b" * BIG), False
        if path == b"/close":
            return reply("200 OK", b"closing\n", b"Connection: close"), True
        if path == b"/http10":
            return b"HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\nold", True
        return reply("500 Internal Server Error", b"?\n"), False

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        mine: list[bytes] = []
        self.connections.append(mine)
        try:
            while True:
                try:
                    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
                except (asyncio.IncompleteReadError, TimeoutError, ConnectionError):
                    return
                mine.append(head)
                if self.one_per_connection and len(mine) > 1:
                    return
                path = head.split(b" ", 2)[1]
                if path in (b"/slow", b"/slowhead"):  # 5 bytes every 0.15 s
                    data = reply("200 OK", b"slow but steady\n" * 4)
                    if path == b"/slow":
                        writer.write(data[: data.index(b"\r\n\r\n") + 4])
                        data = data[data.index(b"\r\n\r\n") + 4 :]
                    for at in range(0, len(data), 5):
                        writer.write(data[at : at + 5])
                        await writer.drain()
                        await asyncio.sleep(0.15)
                    continue
                if path == b"/stall":  # no reply until the client goes away (bounded)
                    with contextlib.suppress(TimeoutError, ConnectionError):
                        await asyncio.wait_for(reader.read(), 5)
                    return
                data, close = self.answer(path)
                if data is not None:
                    writer.write(data)
                    await writer.drain()
                if close or data is None:
                    return
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()


@contextlib.asynccontextmanager
async def scripted(**kwargs: bool) -> AsyncIterator[tuple[Scripted, str]]:
    server = Scripted(**kwargs)
    async with loopback_server(server.handle) as port:
        yield server, f"http://127.0.0.1:{port}"


#: The CLI's options for a batch (an error reply's body saved, curl's way without -f).
BATCH = OPTS.with_(error_body=True, read_timeout=1.0)


async def batch(
    urls: list[str],
    out: Path,
    monkeypatch: pytest.MonkeyPatch,
    *,
    lean: bool,
    options: Options = BATCH,
    per_host: int = 2,
) -> list[FetchResult]:
    monkeypatch.setenv(LEAN_VARIABLE, "1" if lean else "0")
    out.mkdir()
    TAKEN.clear()
    async with AsyncClient(options) as client:
        results = [
            r
            async for r in client.fetch_many(
                urls, concurrency=4, per_host=per_host, output_dir=str(out)
            )
        ]
    # a general run is one (the engine took no URL), or both sides of a comparison could be
    # the engine
    assert lean or TAKEN == [], TAKEN
    return sorted(results, key=lambda r: r.index)


@pytest.fixture(autouse=True)
def _count_the_engines_work(monkeypatch: pytest.MonkeyPatch) -> None:
    count_the_engines_work(monkeypatch)


async def both(
    urls: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    server: Scripted,
    **kwargs: object,
) -> tuple[list[FetchResult], list[bytes]]:
    """The batch through the general path, then the engine: the rows, files and the requests
    the server received must be the same; returns the engine's results and requests."""
    general = await batch(urls, tmp_path / "general", monkeypatch, lean=False, **kwargs)  # type: ignore[arg-type]
    sent_general = server.requests
    server.connections.clear()
    lean = await batch(urls, tmp_path / "lean", monkeypatch, lean=True, **kwargs)  # type: ignore[arg-type]
    sent_lean = server.requests
    assert rows(lean, tmp_path / "lean") == rows(general, tmp_path / "general")
    assert files(tmp_path / "lean") == files(tmp_path / "general")
    assert Counter(sent_lean) == Counter(sent_general)
    return lean, sent_lean


async def test_each_request_is_exactly_its_plans_head(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with scripted() as (server, base):
        urls = [f"{base}/f/n{i}.txt" for i in range(40)]
        urls += [f"{base}/f/q.txt?a=1&b=%41", f"{base}/f/sp%20ace.txt#frag"]
        results = await batch(urls, tmp_path / "out", monkeypatch, lean=True)
    assert all(r.ok for r in results)
    assert ["whole"] * len(urls) == TAKEN
    expected = Counter(request_head(plan(u, BATCH)) for u in urls)
    assert Counter(server.requests) == expected
    # kept alive: a handful of connections (per_host 2), never one a URL
    assert len(server.connections) <= 2
    assert (tmp_path / "out" / "q.txt").read_bytes() == body_of(b"q.txt?a=1&b=%41")
    assert (tmp_path / "out" / "sp ace.txt").read_bytes() == body_of(b"sp%20ace.txt")


@pytest.mark.parametrize(
    "options",
    [BATCH, BATCH.with_(headers=(("User-Agent", "x/1"), ("X-Extra", "yes"), ("Accept", "")))],
)
async def test_a_servers_template_gives_each_url_its_plans_head(options: Options) -> None:
    """The engine plans the first URL of each server whole and the next ones from its
    template: every head equals the planner's, for paths, queries, escapes, ports written
    or not, IPv6 literals and -H fields."""
    from omniurl.resolvers.http.batch_engine import Engine
    from omniurl.schemes import parse

    engine = Engine(options)
    servers = ["127.0.0.1", "127.0.0.1:80", "127.0.0.1:8080", "[::1]:8081", "LocalHost", "[::1]"]
    targets = ["", "/", "/a/b.txt", "/x?y=1&z=%41", "/%7Euser/", "/a;b=c/d.txt?", "/ü/%C3%BC"]
    try:
        for _round in range(2):  # (the second round from the templates)
            for server in servers:
                for target in targets:
                    url = parse(f"http://{server}{target}")
                    made = plan(url, options)
                    origin = (made.scheme, made.host, made.port)
                    assert engine.request(url) == (origin, request_head(made)), url
        assert len(engine._templates) == len(servers)
    finally:
        engine.close()


async def test_a_target_the_policy_refuses_sends_nothing_from_a_template_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A URL object whose target carries a space (no parser makes one; a program can): the
    policy refuses it as the first URL of its server and from the server's template alike."""
    from omniurl.schemes.http import HTTPURL

    async with await start_recording() as recording:
        port = recording.port
        ok = HTTPURL(scheme="http", host="127.0.0.1", port=port, path="/fine")
        bad = HTTPURL(scheme="http", host="127.0.0.1", port=port, path="/a b")
        from omniurl.resolvers.http.batch_engine import Engine

        engine = Engine(BATCH)
        try:
            assert engine.request(bad) is None  # (first of its server: the whole plan)
            assert engine.request(ok) is not None
            assert engine.request(bad) is None  # (from the template)
        finally:
            engine.close()
        monkeypatch.setenv(LEAN_VARIABLE, "1")
        async with AsyncClient(BATCH) as client:
            results = [r async for r in client.fetch_many([bad], output_dir=str(tmp_path))]
        await asyncio.sleep(0.1)
        assert recording_of(recording).connections == 0
    assert results[0].error_type == "DelimiterRefused"
    assert list(tmp_path.iterdir()) == []


async def test_a_batch_of_every_kind_of_reply_is_the_general_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """404 (its body saved, exit status 5…), 301 (followed), a malformed head, a body cut
    short, a close without a reply, chunked, framed twice, a byte behind the reply, a large
    body, Connection: close and HTTP/1.0, among plain files: identical rows, files and
    requests (nothing sent twice), whichever path."""
    odd = ["missing", "moved", "malformed", "cut", "silent", "chunked", "twice", "trailing"]
    odd += ["big", "close", "http10", "teapot"]
    async with scripted() as (server, base):
        urls = []
        for i in range(36):
            urls.append(f"{base}/f/a{i}.txt")
            if i % 3 == 0:
                urls.append(f"{base}/{odd[i // 3]}")
        results, _sent = await both(urls, tmp_path, monkeypatch, server)
    # whole: the 36 plain files, the cut body (its row: the engine's, in the general path's
    # words), Connection: close, HTTP/1.0 and the trailing byte (each a 200 with a length,
    # its connection then closed); handed over: the other eight
    assert Counter(TAKEN) == {"whole": 40, "handed": 8}
    failed = {r.url.rsplit("/", 1)[-1]: r for r in results if not r.ok}
    assert set(failed) == {"missing", "malformed", "cut", "silent", "teapot"}
    assert failed["missing"].exit_status == 5 and failed["missing"].path is not None
    assert failed["cut"].error_type == "ConnectionClosed"
    assert "90 bytes of the body still to come" in (failed["cut"].error_message or "")
    # nothing under a final name for what failed before its end
    names = set(files(tmp_path / "lean"))
    assert not {"cut", "silent", "malformed"} & names
    assert not [n for n in names if n.startswith(".")]
    moved = next(r for r in results if r.url.endswith("/moved"))
    assert moved.ok and moved.chain == (f"{base}/moved",) and moved.path is not None
    assert Path(moved.path).read_bytes() == body_of(b"target.txt")


async def test_a_stall_ends_as_the_general_paths_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with scripted() as (server, base):
        urls = [f"{base}/f/s{i}.txt" for i in range(4)] + [f"{base}/stall"]
        results, _sent = await both(urls, tmp_path, monkeypatch, server)
    assert TAKEN.count("handed") == 1
    stalled = results[-1]
    assert stalled.error_type == "ResolveTimeout"
    assert stalled.error_message == "timed out after 1 s waiting for the reply"


async def test_a_stall_on_a_kept_connection_waits_its_own_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A connection keeps one timer from request to request (batch_engine._Conn.timer):
    the one set for the first request (due 1 s after it) fires while the second, sent 0.6 s
    after the first's row on the same connection, waits; it is set again for the second's
    own deadline, so that request still waits its whole --timeout (1 s), not the 0.4 s
    left of the first's."""
    monkeypatch.setenv(LEAN_VARIABLE, "1")
    first = asyncio.Event()

    async def later(base: str) -> AsyncIterator[str]:
        yield f"{base}/f/first.txt"
        await asyncio.wait_for(first.wait(), 10)  # (window 1: read once the first is done)
        await asyncio.sleep(0.6)
        yield f"{base}/stall"

    results: list[FetchResult] = []
    async with scripted() as (server, base), AsyncClient(BATCH) as client:
        async for r in client.fetch_many(
            later(base), concurrency=1, per_host=1, window=1, output_dir=str(tmp_path)
        ):
            results.append(r)
            first.set()
    assert len(server.connections) == 1  # (the stall was the kept connection's)
    assert [r.ok for r in results] == [True, False]
    stalled = results[1]
    assert TAKEN == ["whole", "handed"]
    assert stalled.error_message == "timed out after 1 s waiting for the reply"
    assert 0.95 <= stalled.elapsed < 3.0


async def test_a_slow_reply_goes_on_through_the_general_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A head still incomplete after the low-speed window (here 0.5 s) is handed over as it
    stands and the general path goes on with it under its own limits, the time already
    spent counted: a head slower than the window ends as the general path's TooSlow; a slow
    body is judged by the engine as the general path's resource judges it (the window
    from the head's end) and arrives whole; nothing is sent twice."""
    options = BATCH.with_(speed_time=0.5)
    async with scripted() as (server, base):
        urls = [f"{base}/f/w{i}.txt" for i in range(4)] + [f"{base}/slow", f"{base}/slowhead"]
        results, _sent = await both(urls, tmp_path, monkeypatch, server, options=options)
    assert Counter(TAKEN) == {"whole": 5, "handed": 1}
    assert (tmp_path / "lean" / "slow").read_bytes() == b"slow but steady\n" * 4
    assert results[-1].error_type == "TooSlow"
    assert (results[-1].error_message or "").startswith("no content after 0.5 s")


async def test_a_batch_stopped_half_way_leaves_no_connection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(LEAN_VARIABLE, "1")
    before = connected_sockets()
    async with scripted() as (_server, base):
        urls = [f"{base}/f/h{i}.txt" for i in range(50)] + [f"{base}/stall"] * 4
        async with AsyncClient(BATCH) as client:
            results = client.fetch_many(urls, concurrency=8, per_host=4, output_dir=str(tmp_path))
            seen = 0
            async for _result in results:
                seen += 1
                if seen == 20:
                    break
            await results.aclose()  # type: ignore[attr-defined]
        await assert_no_new_connections(before, "a lean batch stopped half way")
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


async def test_a_connection_handed_over_after_a_head_framed_twice_is_never_reused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """RFC 9112 §6.1: a reply with both Transfer-Encoding and Content-Length forbids reuse.
    The engine hands such a reply over with its head already read; the general path's
    connection carries no request after it (the reader's ``reuse_refused`` says so at its
    End: the engine's copy of the head's check onto the connection was not needed)."""
    async with scripted() as (server, base):
        urls = [f"{base}/f/a0.txt", f"{base}/twice", f"{base}/f/a1.txt", f"{base}/f/a2.txt"]
        await both(urls, tmp_path, monkeypatch, server, per_host=1)
        lean = [conn for conn in server.connections if any(b"/twice" in r for r in conn)]
    assert len(lean) == 1 and b"/twice" in lean[0][-1], lean


async def test_a_kept_connection_closed_while_idle_sends_again_only_as_the_general_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 30: a kept connection that ends before a byte of its reply has its request sent
    again, once, on a new connection — the same requests through both paths."""
    async with scripted(one_per_connection=True) as (server, base):
        urls = [f"{base}/f/k{i}.txt" for i in range(12)]
        results, sent = await both(urls, tmp_path, monkeypatch, server, per_host=1)
    assert all(r.ok for r in results)
    assert ["whole"] * len(urls) == TAKEN
    assert len(sent) <= 2 * len(urls)


async def test_a_url_the_policy_refuses_sends_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with await start_recording() as recording, scripted() as (server, base):
        refused = f"http://127.0.0.1:{recording.port}/f/secret.txt"
        policy = Policy(blocked_ports=BLOCKED_PORTS | {recording.port})
        urls = [f"{base}/f/p{i}.txt" for i in range(6)]
        urls.insert(3, refused)
        results, _sent = await both(
            urls, tmp_path, monkeypatch, server, options=BATCH.with_(policy=policy)
        )
        await asyncio.sleep(0.1)
        assert recording_of(recording).connections == 0  # not even a connection
        assert recording_of(recording).received == b""
    assert Counter(TAKEN) == {"whole": 6}  # (the refused URL never reached the engine)
    row = next(r for r in results if r.url == refused)
    assert row.error_type == "PortRefused" and not row.ok


class _NoSecrets(Policy):
    """A policy refusing a request target with "secret" in it, by its value check only."""

    def check_wire_value(self, value: WireValue) -> None:
        super().check_wire_value(value)
        if value.context == "http-target" and b"secret" in value.value:
            raise PolicyError("no secrets", component=value.component)


async def test_a_servers_next_targets_are_checked_by_the_policys_value_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server's next URLs are sent from its first one's template, their target checked by
    the policy's own :meth:`Policy.check_wire_value` (as ``check_plan`` checks it), not a
    copy of its rules: a policy refusing a target there refuses it in a batch too, before a
    byte (the engine sent it when it checked only the delimiters itself)."""
    async with scripted() as (server, base):
        urls = [f"{base}/f/p{i}.txt" for i in range(4)]
        urls.insert(2, f"{base}/f/secret.txt")
        policy = _NoSecrets()
        results, sent = await both(
            urls, tmp_path, monkeypatch, server, options=BATCH.with_(policy=policy)
        )
    assert not any(b"secret" in request for request in sent)
    row = next(r for r in results if "secret" in r.url)
    assert row.error_type == "PolicyError" and not row.ok
    assert Counter(TAKEN) == {"whole": 4}


def test_a_row_made_fast_is_the_dataclasss() -> None:
    from dataclasses import MISSING, fields

    from omniurl.batch import _row

    assert all(
        f.default is not MISSING
        for f in fields(FetchResult)
        if f.name not in ("index", "url", "ok")
    )
    given = dict(index=3, url="http://h/x", ok=True, bytes=5, sha256="ab", path="/p", status=200)
    made, plain = _row(**given), FetchResult(**given)  # type: ignore[arg-type]
    assert made == plain and repr(made) == repr(plain) and hash(made) == hash(plain)
    assert made.to_json() == plain.to_json() and vars(made) == vars(plain)


async def test_the_engine_is_only_for_plain_gets(monkeypatch: pytest.MonkeyPatch) -> None:
    from omniurl.resolvers.http.batch_engine import eligible
    from omniurl.resolvers.trace import Trace

    async def ask(prompt: str, secret: bool = False) -> str:
        return ""

    assert eligible(BATCH)
    for changed in (
        {"head": True},
        {"compressed": True},
        {"resume_from": 5},
        {"max_time": 3.0},
        {"user": ("u", "p")},
        {"transcript": lambda d, t: None},
        {"proxy": "http://127.0.0.1:3128"},
        {"trust_env": True},
        {"trace": Trace()},
        {"resume_validator": '"etag"'},
        {"ask": ask},
    ):
        assert not eligible(BATCH.with_(**changed)), changed  # type: ignore[arg-type]


async def test_the_commands_rows_stderr_and_status_are_the_same(tmp_path: Path) -> None:
    """``omniurl get -Z`` with the engine and without (``OMNIURL_BATCH_LEAN=0``): the same
    manifest rows (but their timing), stderr, exit status and files."""
    async with scripted() as (_server, base):
        urls = [f"{base}/f/c{i}.txt" for i in range(30)]
        urls[5:5] = [f"{base}/missing", f"{base}/moved", f"{base}/cut"]
        (tmp_path / "list").write_text("".join(u + "\n" for u in urls))
        seen = []
        for lean in ("0", "1"):
            out = tmp_path / f"out{lean}"
            out.mkdir()
            os.environ[LEAN_VARIABLE] = lean
            os.environ[PROOF_VARIABLE] = str(tmp_path / f"proof{lean}")
            try:
                status, _stdout, stderr = await run_cli(
                    "get", "-Z", "--procs", "1", "-i", str(tmp_path / "list"),
                    "--output-dir", str(out), "--manifest", str(tmp_path / f"m{lean}"),
                    "--timeout", "2",
                )  # fmt: skip
            finally:
                os.environ.pop(LEAN_VARIABLE, None)
                os.environ.pop(PROOF_VARIABLE, None)
            proof_of(tmp_path / f"proof{lean}", on=lean == "1")
            manifest = manifest_rows(tmp_path / f"m{lean}", out)
            # (the summary's timing aside: "… 565 B in 0.2 s (2.5 KiB/s)")
            lines = [re.sub(r" in [0-9.]+ s \(.*\)$", "", x) for x in stderr.decode().splitlines()]
            seen.append((status, sorted(lines), manifest, files(out)))
    assert seen[0] == seen[1]
    assert seen[1][0] == 5  # the first failure's in input order (the 404)
    assert len(seen[1][1]) == 3  # the two failures and the summary


async def test_200_files_from_omniurls_own_server_are_the_general_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The differential against omniurl's own HTTP server (h11): 200 files, a name three
    times, a 404 and a directory (its listing page), the same rows, files and requests."""
    from omniurl.testservers.http import start_http

    root = tmp_path / "root"
    (root / "batch").mkdir(parents=True)
    for i in range(200):
        (root / "batch" / f"f{i:03}.txt").write_bytes(os.urandom(i * 37 % 9000).hex().encode())
    (root / "batch" / "dup.txt").write_bytes(b"dup\n")
    web = await start_http(root)
    try:
        base = f"http://{web.netloc}/batch"
        urls = [f"{base}/f{i:03}.txt" for i in range(200)]
        urls += [f"{base}/dup.txt"] * 3 + [f"{base}/missing.txt", f"{base}/"]
        general = await batch(urls, tmp_path / "general", monkeypatch, lean=False, per_host=6)
        sent_general = Counter(r[1] for r in web.info["requests"])
        web.info["requests"].clear()
        lean = await batch(urls, tmp_path / "lean", monkeypatch, lean=True, per_host=6)
        sent_lean = Counter(r[1] for r in web.info["requests"])
    finally:
        await web.close()
    assert sum(r.ok for r in lean) == 204 and TAKEN.count("whole") >= 203
    assert sent_lean == sent_general  # (each target requested as often: nothing twice)
    assert files(tmp_path / "lean") == files(tmp_path / "general")
    assert _same_but_dup_order(lean, general, tmp_path)


@pytest.mark.skipif(not os.path.exists(NGINX), reason="nginx is not installed")
async def test_200_files_from_nginx_are_the_general_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "root"
    (root / "batch").mkdir(parents=True)
    for i in range(200):
        (root / "batch" / f"f{i:03}.txt").write_bytes(os.urandom(i * 37 % 9000).hex().encode())
    (root / "batch" / "dup.txt").write_bytes(b"dup\n")
    proc, port = await start_nginx(root, tmp_path / "nginx")
    try:
        urls = [f"http://127.0.0.1:{port}/batch/f{i:03}.txt" for i in range(200)]
        urls += [f"http://127.0.0.1:{port}/batch/dup.txt"] * 3  # a.txt, a.1.txt, a.2.txt
        urls += [f"http://127.0.0.1:{port}/batch/missing.txt", f"http://127.0.0.1:{port}/batch"]
        general = await batch(urls, tmp_path / "general", monkeypatch, lean=False, per_host=6)
        lean = await batch(urls, tmp_path / "lean", monkeypatch, lean=True, per_host=6)
        assert Counter(TAKEN) == {"whole": 203, "handed": 2}  # (the 404 and the 301)
    finally:
        await stop(proc)
        shutil.rmtree(tmp_path / "nginx", ignore_errors=True)
    # (the three dup.txt rows may take the three names in another order)
    assert _same_but_dup_order(lean, general, tmp_path)
    assert files(tmp_path / "lean") == files(tmp_path / "general")
    assert sum(r.ok for r in lean) == 204


def _same_but_dup_order(lean: list[FetchResult], general: list[FetchResult], tmp: Path) -> bool:
    """The rows agree, but for which of the three dup.txt rows took which of its names
    (dup.txt, dup.1.txt, dup.2.txt: the order they finished in)."""
    seen = []
    for results, out in ((lean, tmp / "lean"), (general, tmp / "general")):
        shown = []
        for row in rows(results, out):
            fields = json.loads(str(row[0]))
            if fields["url"].endswith("/dup.txt"):
                assert fields["path"] in ("dup.txt", "dup.1.txt", "dup.2.txt")
                fields["path"] = "dup"
            # (a server's Date differs between the two runs: not the same reply)
            heads = tuple(tuple(x for x in h if not x.startswith("Date:")) for h in row[3])
            shown.append((fields, row[1], row[2], heads))
        seen.append(shown)
    return seen[0] == seen[1]
