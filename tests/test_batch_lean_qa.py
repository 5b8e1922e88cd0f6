"""A held-out pass over the batch's lean HTTP engine (resolvers/http/batch_engine.py): the same
batch through the engine and through the general path (``OMNIURL_BATCH_LEAN=0``), against hostile
scripted servers and the vendored llhttp/h11 reply corpus, must give the same rows, files,
requests on the wire, stderr and exit status, byte for byte."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from _ftphttp import OPTS
from _lean import (
    BOUND,
    TAKEN,
    Answer,
    RawServer,
    count_the_engines_work,
    files,
    manifest_rows,
    proof_of,
    raw_servers,
    rows,
)
from helpers import loopback_server
from http_reference import raw_bytes

from omniurl import AsyncClient
from omniurl.batch import LEAN_VARIABLE, PROOF_VARIABLE, FetchResult
from omniurl.resolvers import Options

CORPUS = json.loads((Path(__file__).parent / "data" / "http_replies.json").read_text())
CASES: list[dict[str, object]] = CORPUS["cases"]

#: The CLI's options for a batch (an error reply's body saved, curl's way without -f).
BATCH = OPTS.with_(error_body=True, read_timeout=2.0)


async def batch(
    urls: list[str],
    out: Path,
    *,
    lean: bool,
    options: Options = BATCH,
    concurrency: int = 4,
    per_host: int = 1,
    keepalive_expiry: float = 5.0,
) -> list[FetchResult]:
    """The batch through the engine (``lean``) or the general path; a general run is checked
    to be one (the engine took no URL), or both sides of a comparison could be the engine."""
    taken = len(TAKEN)
    os.environ[LEAN_VARIABLE] = "1" if lean else "0"
    try:
        out.mkdir()
        async with AsyncClient(options, keepalive_expiry=keepalive_expiry) as client:
            results = [
                r
                async for r in client.fetch_many(
                    urls, concurrency=concurrency, per_host=per_host, output_dir=str(out)
                )
            ]
    finally:
        os.environ.pop(LEAN_VARIABLE, None)
    assert lean or len(TAKEN) == taken, TAKEN[taken:]
    return sorted(results, key=lambda r: r.index)


def second(n: int) -> bytes:
    body = b"SECOND %d\n" % n
    return b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)


#: The hosts the corpus's GET cases redirect to (Location: http://NAME/...).
REDIRECTED = sorted(
    {
        m.group(1).decode()
        for case in CASES
        if case["method"] == "GET"
        for m in re.finditer(rb"(?im)^Location: http://([^/:\r\n]+)", raw_bytes(case["raw"]))  # type: ignore[arg-type]
    }
)


def kept_after(raw: bytes, parser: str) -> bool:
    """Whether ``parser``'s reader takes ``raw`` as one whole reply after which the
    connection may carry another request, without waiting for the close (RFC 9112 §9.3)."""
    from omniurl.resolvers.http.reply import NEED_DATA, End, ReplyReader

    reader = ReplyReader(parser=parser)
    reader.receive_data(raw)
    try:
        while (event := reader.next_event()) is not NEED_DATA:
            if isinstance(event, End):
                return event.keep_alive
    except Exception:  # (a reply refused: the client closes the connection)
        return False
    return False


def corpus_answer(parser: str) -> Answer:
    """``/c/N``: case N's raw bytes, then the connection closed unless the reply is one the
    client keeps the connection after (whole, reusable, read by ``parser``), where the
    server waits for the next request on it as a keeping server does: a body delimited by
    the close, cut short, or nothing at all ends at once by the server's close, never by a
    timer (so both runs meet the same server, however loaded the machine); ``/s/N``: a
    plain reply on a kept connection.  Whether a reply is kept decides only how each case
    ends, the same way in both runs: misjudged, it would end as a read timeout, or lose
    the second request's reuse of the connection, never differ between the runs."""
    kept = {
        i: kept_after(raw_bytes(case["raw"]), parser)  # type: ignore[arg-type]
        for i, case in enumerate(CASES)
    }

    def answer(target: bytes) -> tuple[bytes | None, bool]:
        kind, _, n = target.rpartition(b"/")
        if kind == b"/c":
            return raw_bytes(CASES[int(n)]["raw"]), not kept[int(n)]  # type: ignore[arg-type]
        return second(int(n)), False

    return answer


@pytest.mark.parametrize("parser", ["llhttp", "h11"])
async def test_the_corpus_through_both_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parser: str
) -> None:
    """Every GET case of the vendored llhttp/h11 reply corpus (tests/data/http_replies.json),
    each followed by a second request on the same server (one at a time per server, so on
    the same connection when it is kept), through both paths, read by either parser: the
    same rows, files and requests — whatever the case hid behind its end.  The servers
    close a connection only as :func:`corpus_answer` scripts it and the client keeps an
    idle one for longer than the test takes, so a kept connection is reused in both runs
    (case 198's silence is then sent again once, on a new connection, by the stale rule):
    a server's idle timer made that depend on the load, and the requests differ."""
    from omniurl.resolvers.http import reply

    monkeypatch.setattr(reply, "_default", parser)
    hosts = 16
    async with (
        raw_servers(corpus_answer(parser), hosts) as corpus_servers,
        raw_servers(ok_answer) as [elsewhere],
    ):
        # (the redirects some cases carry are followed to a server here, not the network)
        away = ("127.0.0.1", int(elsewhere[1].rsplit(":", 1)[1]))
        options = BATCH.with_(resolve={(name, 80): away for name in REDIRECTED})
        servers = [*corpus_servers, elsewhere]
        urls = []
        for i, case in enumerate(CASES):
            if case["method"] != "GET":
                continue
            base = servers[i % hosts][1]
            urls += [f"{base}/c/{i}", f"{base}/s/{i}"]
        general = await batch(
            urls, tmp_path / "general", lean=False, options=options, concurrency=hosts,
            keepalive_expiry=BOUND,
        )  # fmt: skip
        assert TAKEN == []  # (the general path indeed: the engine took no URL)
        sent_general = [sorted(s.requests) for s, _ in servers]
        for s, _ in servers:
            s.connections.clear()
        lean = await batch(
            urls, tmp_path / "lean", lean=True, options=options, concurrency=hosts,
            keepalive_expiry=BOUND,
        )  # fmt: skip
        sent_lean = [sorted(s.requests) for s, _ in servers]
        assert [s.timed_out for s, _ in servers] == [0] * (hosts + 1)
        hosts_away = {r.split(b"\r\n")[1] for r in elsewhere[0].requests}
        assert hosts_away == {b"Host: www.google.com", b"Host: www.amazon.com"}, hosts_away
    a, b = rows(general, tmp_path / "general"), rows(lean, tmp_path / "lean")
    diff = [(urls[i], x, y) for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
    assert not diff, diff[:3]
    assert files(tmp_path / "lean") == files(tmp_path / "general")
    assert sent_lean == sent_general
    # (case 198, silent, sent twice: on its kept connection, then again on a new one)
    resent = {r.split(b"\r\n", 1)[0] for s in sent_lean for r in s if s.count(r) > 1}
    assert resent == {b"GET /c/198 HTTP/1.1"}, resent
    # (the engine took the plain replies whole and handed the others over)
    assert TAKEN.count("whole") >= 200 and TAKEN.count("handed") >= 100, Counter(TAKEN)


@pytest.fixture(autouse=True)
def _count_the_engines_work(monkeypatch: pytest.MonkeyPatch) -> None:
    count_the_engines_work(monkeypatch)


async def test_a_reply_that_comes_before_the_request_is_sent_whole_is_read_not_waited_for(
    tmp_path: Path,
) -> None:
    """A server that answers at once and reads the (large) request only later: the reply is
    whole before the request is sent whole.  The engine read it in its callback while the
    rest of the request went out, then waited for a wake-up that had already happened: the
    batch hung (until the test's bound).  Both paths: the file, once."""
    import socket

    from omniurl.schemes.http import HTTPURL

    async def answer_first(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n")
        await writer.drain()
        await asyncio.sleep(0.3)  # (the request fills the buffers meanwhile)
        with contextlib.suppress(ConnectionError, TimeoutError):
            while await asyncio.wait_for(reader.read(1 << 20), 5):
                pass
        writer.close()

    server = await asyncio.start_server(answer_first, "127.0.0.1", 0)
    # (a small receive buffer, so the client's send of the request waits for the reader)
    server.sockets[0].setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    port = server.sockets[0].getsockname()[1]
    try:
        url = HTTPURL(scheme="http", host="127.0.0.1", port=port, path="/" + "a" * 8_000_000)
        seen = []
        for lean in (False, True):
            out = tmp_path / ("lean" if lean else "general")
            results = await asyncio.wait_for(batch([url], out, lean=lean), 10)  # type: ignore[list-item]
            seen.append((rows(results, out), files(out)))
    finally:
        server.close()
    assert seen[0] == seen[1]
    assert seen[1][1] == {"a" * 200: b"ok\n"}


def ok_answer(target: bytes) -> tuple[bytes | None, bool]:
    body = target + b"\n"
    return b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body), False


async def both_under_128_files(
    tmp_path: Path, urls: list[str], *args: str
) -> list[tuple[int | None, bytes, list[dict[str, object]], dict[str, bytes]]]:
    """``get -Z --procs 1 -i LIST --output-dir OUT --manifest M ARGS`` under ``ulimit -n
    128``, through the general path and then the engine: each run's exit status, stderr,
    manifest rows (without their timing, paths relative) and files."""
    import resource
    import subprocess
    import sys

    from helpers import ROOT

    (tmp_path / "list").write_text("".join(u + "\n" for u in urls))
    seen = []
    for lean in ("0", "1"):
        out = tmp_path / f"out{lean}"
        out.mkdir()
        env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
        proof = tmp_path / f"proof{lean}"
        env.update({LEAN_VARIABLE: lean, "HOME": str(tmp_path), PROOF_VARIABLE: str(proof)})
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "omniurl", "get", "-Z", "--procs", "1", *args,
            "-i", str(tmp_path / "list"), "--output-dir", str(out),
            "--manifest", str(tmp_path / f"m{lean}"),
            cwd=ROOT, env=env, stderr=subprocess.PIPE,
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (128, 128)),
        )  # fmt: skip
        _, err = await asyncio.wait_for(proc.communicate(), 60)
        proof_of(proof, on=lean == "1")
        manifest = manifest_rows(tmp_path / f"m{lean}", out)
        seen.append((proc.returncode, err, manifest, files(out)))
    return seen


async def test_a_batch_over_many_servers_keeps_no_more_idle_connections_than_the_general_path(
    tmp_path: Path,
) -> None:
    """One URL on each of 200 servers under ``ulimit -n 128``: the engine kept every idle
    connection (one a server) and ran out of descriptors — a traceback, exit 1, 69 files —
    where the general path's pool keeps at most ``max_keepalive_connections``."""
    async with contextlib.AsyncExitStack() as stack:
        urls = []
        for i in range(200):
            server = RawServer(ok_answer)
            port = await stack.enter_async_context(loopback_server(server.handle))
            urls.append(f"http://127.0.0.1:{port}/f{i}.txt")
        seen = await both_under_128_files(tmp_path, urls, "-s")
    assert seen[1] == seen[0]
    assert seen[1][0] == 0 and len(seen[1][3]) == 200


async def test_a_parallel_max_past_the_descriptor_limit_is_lowered_to_it(tmp_path: Path) -> None:
    """250 URLs at ``--parallel-max 300`` (one server, ``--parallel-max-host 300``) under
    ``ulimit -n 128``: the engine's path ran out of descriptors half way — a socket refused,
    then an import on the error's path failed: a traceback, exit 1, no file.  The batch now
    lowers ``--parallel-max`` to what the limit leaves room for (4 a transfer, 64 beside:
    16) and says so; both paths fetch every file, with the same rows."""
    async with raw_servers(ok_answer) as [(_server, base)]:
        urls = [f"{base}/f{i}.txt" for i in range(250)]
        seen = await both_under_128_files(
            tmp_path, urls, "--parallel-max", "300", "--parallel-max-host", "300"
        )
    note = (
        "omniurl: --parallel-max 300 lowered to 16: the limit of open files (ulimit -n) "
        "leaves room for that many transfers at once"
    )
    assert [(status, err.decode().splitlines()[0], len(f)) for status, err, _, f in seen] == [
        (0, note, 250),
        (0, note, 250),
    ]
    assert seen[1][2] == seen[0][2] and seen[1][3] == seen[0][3]


async def _spaced(urls: list[str], pause: float) -> AsyncIterator[str]:
    for url in urls:
        yield url
        await asyncio.sleep(pause)


async def test_an_idle_connection_past_the_keepalive_expiry_is_not_reused(tmp_path: Path) -> None:
    """The general path's pool never reuses a connection idle for ``keepalive_expiry``
    seconds (a server's idle timeout is often about that); the engine reused it whatever
    its age."""
    async with raw_servers(ok_answer) as [(server, base)]:
        urls = [f"{base}/f{i}.txt" for i in range(3)]
        seen = []
        for lean in ("0", "1"):
            os.environ[LEAN_VARIABLE] = lean
            try:
                async with AsyncClient(BATCH, keepalive_expiry=0.1) as client:
                    out = tmp_path / lean
                    out.mkdir()
                    got = [
                        r
                        async for r in client.fetch_many(
                            _spaced(urls, 0.3), concurrency=1, window=1, output_dir=str(out)
                        )
                    ]
            finally:
                os.environ.pop(LEAN_VARIABLE, None)
            seen.append(([len(c) for c in server.connections], rows(got, out), files(out)))
            server.connections.clear()
    assert seen[1] == seen[0]
    assert seen[1][0] == [1, 1, 1]


async def _trickle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """/trickle: a 200's head, then its 150 bytes 10 every 0.1 s; /stallbody: a head and 5
    of 10 bytes, then nothing; anything else at once."""
    with contextlib.suppress(ConnectionError, TimeoutError, asyncio.IncompleteReadError):
        while True:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
            target = head.split(b" ", 2)[1]
            if target == b"/trickle":
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 150\r\n\r\n")
                for _ in range(15):
                    await writer.drain()
                    await asyncio.sleep(0.1)
                    writer.write(b"x" * 10)
                continue
            if target == b"/stallbody":
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n01234")
                await writer.drain()
                await asyncio.sleep(5)
                break
            writer.write(ok_answer(target)[0] or b"")
            await writer.drain()
    writer.close()


@pytest.mark.parametrize("path", ["trickle", "stallbody"])
async def test_a_body_slower_than_the_speed_limit_ends_as_on_the_general_path(
    tmp_path: Path, path: str
) -> None:
    """``--speed-limit 1000 --speed-time 1``: a 200 whose body comes at 100 bytes/s (or
    stops after 5 bytes) is TooSlow on the general path, its window counted from the
    head's end.  The engine handed such a body over after 1 s and the general path's window
    began again there: the 1.5 s trickle was saved as a complete file (ok, exit 0); the
    stalled one failed alike, but a second later."""
    import re

    options = BATCH.with_(speed_limit=1000, speed_time=1.0, read_timeout=1.5)
    async with loopback_server(_trickle) as port:
        base = f"http://127.0.0.1:{port}"
        urls = [f"{base}/a.txt", f"{base}/{path}", f"{base}/b.txt"]
        seen = []
        for lean in (False, True):
            out = tmp_path / str(lean)
            results = await batch(urls, out, lean=lean, options=options)
            # (how many bytes the last second saw depends on the machine's load)
            shown = [re.sub(r"\(\d+ bytes", "(N bytes", str(row)) for row in rows(results, out)]
            seen.append((shown, files(out)))
    assert seen[1] == seen[0]
    slow = results[1]
    assert slow.error_type == "TooSlow" and not slow.ok
    assert (slow.error_message or "").startswith("slower than 1000 bytes/s for 1 s (")
    assert set(seen[1][1]) == {"a.txt", "b.txt"}


async def test_a_url_whose_connect_fails_is_connected_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A refused port, and a server whose connect takes longer than ``--speed-time``'s
    setup window: each URL is connected to once, with the general path's row.  The engine
    handed a failed connect to the general path as "nothing done", which connected again:
    two attempts (two lookups of a name), and a connect that never ends took its timeout
    twice over."""
    import time

    from helpers import free_port

    from omniurl.resolvers.errors import ResolveTimeout
    from omniurl.resolvers.http import batch_engine as batch_lean
    from omniurl.resolvers.http import connection

    real = connection.connect
    slow = free_port()
    calls: Counter[int] = Counter()

    async def counted(host: str, port: int, options: Options, **kwargs: object) -> object:
        calls[port] += 1
        if port == slow:  # (a SYN nobody answers, as a host behind a firewall)
            await asyncio.sleep(options.connect_timeout)
            raise ResolveTimeout(f"timed out after {options.connect_timeout:g} s connecting")
        return await real(host, port, options, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(connection, "connect", counted)
    monkeypatch.setattr(batch_lean, "connect", counted)
    refused = free_port()
    options = BATCH.with_(connect_timeout=2.0, speed_time=0.5)
    async with raw_servers(ok_answer) as [(_server, base)]:
        urls = [f"{base}/a.txt", f"http://127.0.0.1:{refused}/r.txt"]
        urls += [f"http://127.0.0.1:{slow}/s.txt", f"{base}/b.txt"]
        seen = []
        for lean in (False, True):
            calls.clear()
            began = time.monotonic()
            results = await batch(urls, tmp_path / str(lean), lean=lean, options=options)
            took = time.monotonic() - began
            seen.append((rows(results, tmp_path / str(lean)), dict(calls)))
    assert seen[1] == seen[0]
    assert seen[1][1][refused] == seen[1][1][slow] == 1
    assert [r.error_type for r in results] == [None, "ConnectError", "TooSlow", None]
    assert took < 1.5  # (the window, 0.5 s, once: not the 2 s connect, then the window)


async def cli_both(
    tmp_path: Path,
    urls: list[str],
    *args: str,
    env: dict[str, str] | None = None,
    engine: bool = True,
) -> list[tuple[object, ...]]:
    """``omniurl get -Z -i LIST --output-dir D --manifest M ARGS`` with the engine and
    without: each run's exit status, stderr (the summary's timing taken out), manifest rows
    (but their timing; paths relative) and files.  Each run is checked to be the path it
    says (:func:`_lean.proof_of`): the engine asked in the second run (``engine``: unless
    ARGS turn it off), never in the first."""
    import re

    from helpers import ROOT, run_omniurl

    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "list").write_text("".join(u + "\n" for u in urls))
    seen = []
    for lean in ("0", "1"):
        out = tmp_path / f"out{lean}"
        out.mkdir()
        environment = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
        proof = tmp_path / f"proof{lean}"
        environment.update({LEAN_VARIABLE: lean, "HOME": str(tmp_path), **(env or {})})
        environment[PROOF_VARIABLE] = str(proof)
        status, _stdout, stderr = await run_omniurl(
            "get", "-Z", "-i", str(tmp_path / "list"), "--output-dir", str(out),
            "--manifest", str(tmp_path / f"m{lean}"), *args,
            env=environment, cwd=ROOT, timeout=90,
        )  # fmt: skip
        proof_of(proof, on=engine and lean == "1")
        manifest = manifest_rows(tmp_path / f"m{lean}", out)
        lines = [re.sub(r" in [0-9.]+ s \(.*\)$", "", x) for x in stderr.decode().splitlines()]
        seen.append((status, sorted(lines), manifest, files(out)))
    return seen


async def test_the_environments_proxy_is_never_bypassed(tmp_path: Path) -> None:
    """``--proxy-env`` with ``http_proxy`` set: every request goes to the proxy (absolute
    form), none to the origin, through both paths; without ``--proxy-env`` the variable is
    not read (the general path's rule) and both go direct."""
    async with (
        raw_servers(ok_answer) as [(origin, base)],
        raw_servers(ok_answer) as [(proxy, proxy_base)],
    ):
        urls = [f"{base}/f{i}.txt" for i in range(5)]
        env = {"http_proxy": proxy_base, "no_proxy": ""}
        seen = await cli_both(tmp_path / "env", urls, "--proxy-env", env=env, engine=False)
        assert seen[1] == seen[0] and seen[1][0] == 0
        assert origin.requests == []
        targets = Counter(r.split(b" ", 2)[1] for r in proxy.requests)
        assert targets == Counter({f"{base}/f{i}.txt".encode(): 2 for i in range(5)})
        proxy.connections.clear()
        seen = await cli_both(tmp_path / "direct", urls, env=env)
        assert seen[1] == seen[0] and seen[1][0] == 0
        assert proxy.requests == [] and len(origin.requests) == 10


async def test_a_netrc_login_headers_and_resolve_go_out_alike(tmp_path: Path) -> None:
    """A netrc login for the host (its Authorization), -H/-A/-e fields and a --resolve'd
    name: the same request bytes through both paths, the same rows."""
    async with raw_servers(ok_answer) as [(server, base)]:
        port = base.rsplit(":", 1)[1]
        (tmp_path / "netrc").write_text("machine login.test login u password p\n")
        urls = [f"http://login.test:{port}/n{i}.txt" for i in range(3)]
        urls += [f"http://plain.test:{port}/p{i}.txt" for i in range(3)]
        args = ["--netrc-file", str(tmp_path / "netrc"), "-H", "X-Extra: 1", "-A", "agent/2"]
        args += ["-e", "http://ref.test/", "-H", "Accept:"]
        for name in ("login.test", "plain.test"):
            args += ["--resolve", f"{name}:{port}:127.0.0.1"]
        seen = await cli_both(tmp_path, urls, *args)
    assert seen[1] == seen[0] and seen[1][0] == 0
    sent = Counter(server.requests)
    assert all(n == 2 for n in sent.values()) and len(sent) == 6
    with_login = [r for r in sent if b"Authorization: Basic dTpw\r\n" in r]
    assert sorted(r.split(b" ", 2)[1] for r in with_login) == [b"/n0.txt", b"/n1.txt", b"/n2.txt"]
    assert all(b"User-Agent: agent/2\r\n" in r and b"X-Extra: 1\r\n" in r for r in sent)
    assert all(b"\r\nAccept:" not in r for r in sent)


async def test_a_refused_port_among_allowed_ones_gets_zero_bytes(tmp_path: Path) -> None:
    """A batch mixing a port the default policy refuses (6379, Redis's: --resolve'd to a
    recording server) with allowed ones: the recording server sees no connection from
    either path, and the rows are the same."""
    from omniurl.testservers.recording import recording_of, start_recording

    async with await start_recording() as recording, raw_servers(ok_answer) as [(_s, base)]:
        urls = [f"{base}/a{i}.txt" for i in range(4)]
        urls[2:2] = ["http://redis.test:6379/x", "http://127.0.0.1:6379/y"]
        args = ["--resolve", f"redis.test:6379:127.0.0.1:{recording.port}"]
        args += ["--resolve", f"127.0.0.1:6379:127.0.0.1:{recording.port}"]
        seen = await cli_both(tmp_path, urls, *args)
        await asyncio.sleep(0.1)
        assert recording_of(recording).connections == 0
    assert seen[1] == seen[0]
    refused = [row for row in seen[1][2] if not row["ok"]]  # type: ignore[union-attr]
    assert [row["error_type"] for row in refused] == ["PortRefused", "PortRefused"]


async def test_procs_2_with_the_engine(tmp_path: Path) -> None:
    """``--procs 2`` splits the batch across two processes, each with its engine: the same
    rows, files, stderr and status as without it."""
    async with raw_servers(ok_answer, 2) as servers:
        urls = [f"{servers[i % 2][1]}/dir{i % 3}/f{i}.txt" for i in range(240)]
        urls += [f"{servers[0][1]}/same.txt"] * 3  # (a name three times)
        seen = await cli_both(tmp_path, urls, "--procs", "2")
        sent = [len(s.requests) for s, _ in servers]
    assert seen[1][:2] == seen[0][:2] and seen[1][0] == 0
    # (which same.txt took which name may differ between runs: compare without the paths)
    strip = [[{**row, "path": None} for row in s[2]] for s in seen]  # type: ignore[union-attr]
    assert strip[1] == strip[0]
    assert seen[1][3] == seen[0][3]
    assert sum(sent) == 2 * len(urls)


async def _reset_second(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Answers the first request of each connection; resets the connection (RST) at the
    second, as a server does that dropped an idle connection the client still held."""
    import socket
    import struct

    with contextlib.suppress(ConnectionError, TimeoutError, asyncio.IncompleteReadError):
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        writer.write(ok_answer(head.split(b" ", 2)[1])[0] or b"")
        await writer.drain()
        await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        sock = writer.get_extra_info("socket")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        writer.transport.abort()
        return
    writer.close()


async def test_a_kept_connection_reset_before_the_reply_sends_again_as_the_general_path(
    tmp_path: Path,
) -> None:
    """Issue 30's stale connection when the server resets it (ECONNRESET) rather than
    closing it: the general path sends the (idempotent) request again on a new connection
    and gets its file; the engine made the reset the URL's error (a failed row, exit 4)."""
    async with loopback_server(_reset_second) as port:
        urls = [f"http://127.0.0.1:{port}/f{i}.txt" for i in range(4)]
        seen = []
        for lean in (False, True):
            out = tmp_path / str(lean)
            results = await batch(urls, out, lean=lean)
            seen.append((rows(results, out), files(out)))
    assert seen[1] == seen[0]
    assert all(r.ok for r in results)


def odd_answer(target: bytes) -> tuple[bytes | None, bool]:
    """Plain files, and a few replies whose framing or fields are unusual but readable."""
    special = {
        b"/empty": b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
        b"/ct": b"HTTP/1.1 200 OK\r\nContent-Type: TEXT/Plain ; charset=x\r\n"
        b"Content-Length: 2\r\n\r\nhi",
        b"/interim": b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi",
        b"/dupcl": b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nhi",
        b"/gz": b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 2\r\n\r\nhi",
        b"/204": b"HTTP/1.1 204 No Content\r\nContent-Length: 2\r\n\r\nhi",
        b"/fold": b"HTTP/1.1 200 OK\r\nX-A: a\r\n b\r\nContent-Length: 2\r\n\r\nhi",
        b"/lf": b"HTTP/1.1 200 OK\nContent-Length: 2\n\nhi",
        b"/two": b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi"
        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nho",
        b"/moved": b"HTTP/1.1 302 Found\r\nLocation: /a.txt\r\nContent-Length: 0\r\n\r\n",
    }
    if target in special:
        return special[target], False
    if target in (b"/held", b"/held1"):  # (the engine's in-memory bound, and one byte past)
        from omniurl.batch import HELD_BODY

        body = b"h" * (HELD_BODY + (target == b"/held1"))
        return b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body), False
    return ok_answer(target)


@pytest.mark.parametrize("follow", [True, False])
@pytest.mark.parametrize("saved", [True, False])
async def test_odd_urls_names_and_replies_alike(tmp_path: Path, follow: bool, saved: bool) -> None:
    """Names from IRIs, escapes, fragments, queries, dot-names, the index, colliding names;
    hosts as names, upper case, IP literals; an empty 200, a 100 before the 200, duplicate
    Content-Length, a content coding not asked for, a 204 with a body, obs-fold, bare LF,
    two replies in one segment, a redirect followed or not, a 200 of exactly the engine's
    in-memory bound and one byte past it (the general path's) — with and without an output
    folder: the same rows, files and requests."""
    async with raw_servers(odd_answer) as [(server, base)]:
        port = base.rsplit(":", 1)[1]
        names = ["a.txt#frag", "", "/", "/dir/", "/%C3%BC.txt", "/ü/ä.txt", "/a.txt", "/a.txt?x=1"]
        names += ["/a.txt;p", "/.hidden", "/%2e%2e", "/a%2Fb", "/%00nul", "/%0A", "/" + "x" * 300]
        names += ["/empty", "/ct", "/interim", "/dupcl", "/gz", "/204", "/fold", "/lf", "/two"]
        names += ["/moved", "/b.txt", "/held", "/held1"]
        urls = [base + n if not n or n[0] == "/" else f"{base}/{n}" for n in names]
        urls += [f"http://LOCALHOST:{port}/up.txt", f"http://localhost:{port}/low.txt"]
        urls += [f"http://[::1]:{port}/v6.txt", f"http://127.000.0.1:{port}/z.txt"]
        options = BATCH.with_(follow=follow)
        seen = []
        for lean in (False, True):
            out = tmp_path / str(lean)
            if saved:
                results = await batch(urls, out, lean=lean, options=options)
            else:
                os.environ[LEAN_VARIABLE] = "1" if lean else "0"
                out.mkdir()
                try:
                    async with AsyncClient(options) as client:
                        got = [r async for r in client.fetch_many(urls, concurrency=4, per_host=1)]
                finally:
                    os.environ.pop(LEAN_VARIABLE, None)
                results = sorted(got, key=lambda r: r.index)
            seen.append((rows(results, out), files(out), Counter(server.requests)))
            server.connections.clear()
    assert seen[1] == seen[0]
    assert TAKEN.count("whole") >= 20
    if saved:
        from omniurl.batch import HELD_BODY

        held = seen[1][1]
        assert len(held["held"]) == HELD_BODY and len(held["held1"]) == HELD_BODY + 1


async def test_strict_refuses_a_loopback_address_before_a_byte(tmp_path: Path) -> None:
    """``--strict`` (public addresses only) with names --resolve'd to a recording server on
    loopback: refused after the lookup, before connecting, through both paths alike."""
    from omniurl.testservers.recording import recording_of, start_recording

    async with await start_recording() as recording:
        urls = [f"http://a{i}.test/f.txt" for i in range(3)]
        args = ["--strict"]
        for i in range(3):
            args += ["--resolve", f"a{i}.test:80:127.0.0.1:{recording.port}"]
        seen = await cli_both(tmp_path, urls, *args)
        await asyncio.sleep(0.1)
        assert recording_of(recording).connections == 0
    assert seen[1] == seen[0]
    rows_ = seen[1][2]
    assert all(not row["ok"] for row in rows_) and len(rows_) == 3  # type: ignore[union-attr]


async def _stall_some(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """/stall…: a 200's head and half its body, then nothing; anything else at once."""
    with contextlib.suppress(ConnectionError, TimeoutError, asyncio.IncompleteReadError):
        while True:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
            target = head.split(b" ", 2)[1]
            if target.startswith(b"/stall"):
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n01234")
                await writer.drain()
                await asyncio.sleep(30)
            writer.write(ok_answer(target)[0] or b"")
            await writer.drain()
    writer.close()


@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM"])
async def test_a_signal_mid_batch_ends_it_alike(tmp_path: Path, signal_name: str) -> None:
    """Ctrl-C (or SIGTERM) while three transfers hang half way: the same exit status
    (130, 143), stderr, rows and files through both paths, nothing partial left."""
    import re
    import signal
    import subprocess
    import sys

    from helpers import ROOT

    async with loopback_server(_stall_some) as port:
        urls = [f"http://127.0.0.1:{port}/f{i}.txt" for i in range(30)]
        urls += [f"http://127.0.0.1:{port}/stall{i}" for i in range(3)]
        (tmp_path / "list").write_text("".join(u + "\n" for u in urls))
        seen = []
        for lean in ("0", "1"):
            out, manifest = tmp_path / f"out{lean}", tmp_path / f"m{lean}"
            out.mkdir()
            env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
            proof = tmp_path / f"proof{lean}"
            env.update({LEAN_VARIABLE: lean, "HOME": str(tmp_path), PROOF_VARIABLE: str(proof)})
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "omniurl", "get", "-Z", "--procs", "1",
                "-i", str(tmp_path / "list"), "--output-dir", str(out),
                "--manifest", str(manifest), cwd=ROOT, env=env, stderr=subprocess.PIPE,
            )  # fmt: skip
            for _ in range(300):  # (until the 30 files are done: bounded)
                await asyncio.sleep(0.05)
                if manifest.exists() and len(manifest.read_text().splitlines()) >= 30:
                    break
            await asyncio.sleep(0.2)
            proc.send_signal(getattr(signal, signal_name))
            _, err = await asyncio.wait_for(proc.communicate(), 30)
            proof_of(proof, on=lean == "1")
            rows_ = manifest_rows(manifest, out)
            lines = [re.sub(r" in [0-9.]+ s \(.*\)$", "", x) for x in err.decode().splitlines()]
            seen.append((proc.returncode, lines, rows_, files(out)))
    assert seen[1] == seen[0]
    assert seen[1][0] == (130 if signal_name == "SIGINT" else 143)
    assert sorted(seen[1][3]) == sorted(f"f{i}.txt" for i in range(30))


async def test_port_0_is_the_port_connected_to(tmp_path: Path) -> None:
    """``http://127.0.0.1:0/`` allowed with ``--allow-port 0``: the plan says port 0
    (``Host: 127.0.0.1:0``), so the connection goes to port 0 (refused by the kernel) —
    single get, the batch's engine and its general path alike.  Every path connected to
    port 80 instead (``plan.port or 80``): another server than the plan named."""
    from helpers import ROOT, run_omniurl

    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env["HOME"] = str(tmp_path)
    url = "http://127.0.0.1:0/x"
    status, _out, err = await run_omniurl(
        "get", "--allow-port", "0", "-o", str(tmp_path / "x"), url, env=env, cwd=ROOT
    )
    assert status == 4 and b"127.0.0.1:0:" in err and b":80" not in err, err
    seen = await cli_both(tmp_path / "batch", [url], "--allow-port", "0")
    assert seen[1] == seen[0] and seen[1][0] == 4
    assert "cannot connect to 127.0.0.1:0:" in str(seen[1][2])


class _Paced:
    """Answers each request after ``pause`` seconds (``/moved``: a 302 to ``/a.txt``,
    ``/missing``: a 404, the others a 200), counting the requests in flight at once."""

    def __init__(self, pause: float) -> None:
        self.pause = pause
        self.now = self.peak = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError, TimeoutError, asyncio.IncompleteReadError):
            while True:
                head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
                target = head.split(b" ", 2)[1]
                self.now += 1
                self.peak = max(self.peak, self.now)
                await asyncio.sleep(self.pause)
                self.now -= 1
                if target == b"/moved":
                    data = b"HTTP/1.1 302 Found\r\nLocation: /a.txt\r\nContent-Length: 0\r\n\r\n"
                elif target == b"/missing":
                    data = b"HTTP/1.1 404 Not Found\r\nContent-Length: 3\r\n\r\nno\n"
                else:
                    data = ok_answer(target)[0] or b""
                writer.write(data)
                await writer.drain()
        writer.close()


async def _paced_batch(
    urls: list[str], out: Path, lean: bool, **limits: float
) -> list[FetchResult]:
    os.environ[LEAN_VARIABLE] = "1" if lean else "0"
    try:
        out.mkdir()
        async with AsyncClient(BATCH, **limits) as client:  # type: ignore[arg-type]
            got = [
                r
                async for r in client.fetch_many(
                    urls, concurrency=6, per_host=6, output_dir=str(out)
                )
            ]
    finally:
        os.environ.pop(LEAN_VARIABLE, None)
    return sorted(got, key=lambda r: r.index)


@pytest.mark.parametrize("max_connections", [1, 2])
async def test_the_clients_max_connections_bounds_the_engine_too(
    tmp_path: Path, max_connections: int
) -> None:
    """``AsyncClient(max_connections=N)`` with 6 transfers at once: the general path has at
    most N requests in flight (its pool's slots); the engine took no slot and had 6 — now
    it holds one of the same slots per exchange, a handed-over one (the redirect, the 404)
    until the general path releases its connection, so a redirect followed under N=1
    waits for no slot its own URL holds."""
    urls = [f"/f{i}.txt" for i in range(10)]
    urls[3:3] = ["/moved", "/missing"]
    seen = []
    server = _Paced(0.1)
    async with loopback_server(server.handle) as port:
        for lean in (False, True):
            out, server.peak = tmp_path / str(lean), 0
            got = await asyncio.wait_for(
                _paced_batch(
                    [f"http://127.0.0.1:{port}{u}" for u in urls],
                    out,
                    lean,
                    max_connections=max_connections,
                ),
                30,
            )
            seen.append((server.peak, rows(got, out), files(out)))
    assert seen[1] == seen[0]
    assert seen[1][0] == max_connections
    assert TAKEN.count("whole") == 10 and TAKEN.count("handed") == 2, TAKEN


async def test_a_wait_for_a_connection_slot_past_pool_timeout_is_the_general_paths(
    tmp_path: Path,
) -> None:
    """``max_connections=1, pool_timeout=0.3`` and two transfers at once, each reply 1 s
    away: one URL gets the slot and its file, the other waits 0.3 s and fails with the
    general path's PoolTimeout (its words, exit status), through both paths."""
    outcomes = []
    server = _Paced(1.0)
    async with loopback_server(server.handle) as port:
        for lean in (False, True):
            got = await asyncio.wait_for(
                _paced_batch(
                    [f"http://127.0.0.1:{port}/a{i}.txt" for i in range(2)],
                    tmp_path / str(lean),
                    lean,
                    max_connections=1,
                    pool_timeout=0.3,
                ),
                30,
            )
            outcomes.append(
                sorted((r.ok, r.error_type or "", r.error_message, r.exit_status) for r in got)
            )
    assert outcomes[1] == outcomes[0]
    assert outcomes[1][0][:2] == (False, "PoolTimeout") and outcomes[1][1][0], outcomes


@pytest.mark.parametrize(
    "option",
    [
        [],
        ["-v"],
        ["-w", "%{http_code}\n"],
        ["-I"],
        ["-u", "u:p"],
        ["--compressed"],
        ["-C", "-"],
        ["-m", "30"],
        ["-x", "PROXY"],
        ["--proxy-env"],
    ],
    ids=lambda option: " ".join(option) or "plain",
)
async def test_every_option_that_changes_the_exchange_turns_the_engine_off(
    tmp_path: Path, option: list[str]
) -> None:
    """``get -Z`` with the engine allowed (``OMNIURL_BATCH_LEAN=1``) under each option
    that changes the exchange beyond a plain GET and its reply: no engine is asked about a
    URL (the batch's proof, ``OMNIURL_BATCH_PROOF``); without one (``plain``) it is."""
    from helpers import ROOT, run_omniurl

    async with raw_servers(ok_answer) as [(server, base)]:
        (tmp_path / "list").write_text(f"{base}/a.txt\n{base}/b.txt\n")
        (tmp_path / "out").mkdir()
        env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
        env.update({LEAN_VARIABLE: "1", "HOME": str(tmp_path)})
        env[PROOF_VARIABLE] = str(tmp_path / "proof")
        env["http_proxy"] = base  # (read only under --proxy-env)
        args = [base if a == "PROXY" else a for a in option]
        status, _out, err = await run_omniurl(
            "get", "-Z", "-i", str(tmp_path / "list"), "--output-dir", str(tmp_path / "out"),
            *args, env=env, cwd=ROOT, timeout=60,
        )  # fmt: skip
        assert status == 0, err
        assert len(server.requests) == 2
    proof_of(tmp_path / "proof", on=not option)
