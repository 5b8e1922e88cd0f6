"""The field's own HTTP reply suites, served raw to omniurl (issue 30 item 5).

tests/data/http_replies.json holds 200+ replies: llhttp's ``test/response/*.md``, the
response cases of h11's tests, issue 30's checklist of framing tricks and cases of our own
(tests/data/build_http_replies.py built it; each case names its source).  For each case the
file records how llhttp and h11 read it — computed by the parsers themselves
(tests/http_reference.py), and recomputed here, so a parser upgrade that reads a case
differently shows up as a failure, never as a silently stale expectation.

The rule: omniurl agrees with at least one of the two hardened parsers — the same body,
or a refusal — on every case but the few where it departs on purpose (:data:`DEPARTURES`,
each with its reason), which keeps it above the issue's 97 %.  Checked on the pure reply
machine with both parsers behind the seam, end to end through ``python -m omniurl get``
(exit status and the bytes written) and through one ``AsyncClient`` doing two gets, on http
and https: the second get must return the second reply, never a byte the server sent
behind the first.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import ssl
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio
from http_reference import Reading, h11_reading, llhttp_reading, raw_bytes
from hypothesis import given, settings
from hypothesis import strategies as st

from omniurl.resolvers.errors import ResolveError
from omniurl.resolvers.http import reply
from omniurl.resolvers.http.reply import NEED_DATA, PARSERS, Data, End, ReplyReader

CORPUS = json.loads((Path(__file__).parent / "data" / "http_replies.json").read_text())
CASES: list[dict[str, object]] = CORPUS["cases"]
ROOT = Path(__file__).resolve().parents[1]

#: Where omniurl reads a reply differently from both parsers, on purpose (the brief of
#: issue 30 item 2, RFC 9112 / RFC 9110): the case's name and why.
DEPARTURES = {
    "ours: HTTP/2.0 on an HTTP/1.1 connection": "HTTP/1.x only (RFC 9112 §2.3)",
    "ours: HTTP/0.9 status line": "HTTP/1.x only (RFC 9112 §2.3)",
    "issue30: a head over 100 KiB, complete": "the head bound holds whether or not its end "
    "has arrived (neither parser bounds a complete head)",
    "ours: a 600": "status 100-599 (RFC 9110 §15: values outside are invalid)",
}
#: The issue's bar: agreement with at least one hardened parser on this share of cases.
AGREEMENT = 0.97


def _case_id(case: dict[str, object]) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", str(case["name"]))[:60]


def _raw(case: dict[str, object]) -> bytes:
    raw = case["raw"]
    assert isinstance(raw, str | list)
    return raw_bytes(raw)


def _readings(case: dict[str, object]) -> list[dict[str, object]]:
    out = []
    for parser in ("llhttp", "h11"):
        reading = case[parser]
        assert isinstance(reading, dict)
        # llhttp's "upgrade" (the connection handed over after a 101) is, to a client
        # that asked for no upgrade, no reply: the same as a refusal.
        out.append({"outcome": "error"} if reading["outcome"] == "upgrade" else reading)
    return out


def agrees(ours: Reading, case: dict[str, object]) -> bool:
    return ours.to_json() in _readings(case)


def test_the_corpus_is_large_and_names_its_sources() -> None:
    sources = {str(c["source"]) for c in CASES}
    assert sources == {"llhttp", "h11", "ours"}
    assert len(CASES) >= 150
    assert all(re.search(r"@ [0-9a-f]{40}", CORPUS["sources"][s]) for s in ("llhttp", "h11"))
    assert set(DEPARTURES) <= {str(c["name"]) for c in CASES}


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_the_recorded_readings_are_the_parsers_own(case: dict[str, object]) -> None:
    raw, method = _raw(case), str(case["method"])
    assert llhttp_reading(raw, method).to_json() == case["llhttp"]
    assert h11_reading(raw, method).to_json() == case["h11"]


def machine_reading(raw: bytes, method: str, parser: str, step: int = 0) -> Reading:
    reader = ReplyReader(method, parser=parser)
    pieces = [raw[i : i + step] for i in range(0, len(raw), step)] if step else [raw]
    body: list[bytes] = []
    try:
        for piece in [*pieces, b""]:
            reader.receive_data(piece)
            while (event := reader.next_event()) is not NEED_DATA:
                if isinstance(event, Data):
                    body.append(event.data)
                elif isinstance(event, End):
                    return Reading("ok", b"".join(body))
    except ResolveError:
        return Reading("error")
    return Reading("error")


def _check_agreement(results: dict[str, bool]) -> None:
    """Every case agrees but the departures, which do not (else the list is stale)."""
    disagree = {name for name, ok in results.items() if not ok}
    assert disagree == set(DEPARTURES)
    assert sum(results.values()) / len(results) >= AGREEMENT


@pytest.mark.parametrize("parser", PARSERS)
@pytest.mark.parametrize("step", [0, 7])
def test_the_reply_machine_agrees_with_a_hardened_parser(parser: str, step: int) -> None:
    """Whole, and fed 7 bytes at a time (every boundary the socket could cut at)."""
    results = {
        str(c["name"]): agrees(machine_reading(_raw(c), str(c["method"]), parser, step), c)
        for c in CASES
    }
    _check_agreement(results)


# -- end to end: a loopback server that sends each case's bytes as they are ---------------

SECOND = b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nSECOND"
#: How long the server waits for another request before it closes (a reply read until
#: the close ends then).
LINGER = 0.25


@dataclass
class RawServer:
    port: int
    #: Connections accepted, and requests read on each.
    connections: int = 0


async def _serve(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, server: RawServer
) -> None:
    server.connections += 1
    try:
        while True:
            try:
                head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), LINGER)
            except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
                return
            target = head.split(b" ", 2)[1].decode()
            if target.startswith("/c/"):
                writer.write(_raw(CASES[int(target[3:])]))
            else:
                writer.write(SECOND)
            await writer.drain()
    except (ConnectionError, ssl.SSLError):
        return
    finally:
        writer.close()


@pytest_asyncio.fixture(params=["http", "https"])
async def origin(
    request: pytest.FixtureRequest, pki: tuple[ssl.SSLContext, str]
) -> AsyncIterator[tuple[str, str | None]]:
    """``(base URL, CA file or None)`` of a raw server over http or https."""
    tls, ca = pki if request.param == "https" else (None, None)
    state = RawServer(0)
    server = await asyncio.start_server(lambda r, w: _serve(r, w, state), "127.0.0.1", 0, ssl=tls)
    state.port = server.sockets[0].getsockname()[1]
    try:
        yield f"{request.param}://127.0.0.1:{state.port}", ca
    finally:
        server.close()
        await server.wait_closed()


async def _cli(url: str, ca: str | None, out: Path) -> tuple[int, bytes | None]:
    args = [sys.executable, "-m", "omniurl", "get", "--no-follow", "-o", str(out), url]
    if ca:
        args[4:4] = ["--cacert", ca]
    proc = await asyncio.create_subprocess_exec(
        *args,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "NO_COLOR": "1"},
    )
    code = await asyncio.wait_for(proc.wait(), 60)
    return code, out.read_bytes() if out.exists() else None


def cli_agrees(code: int, written: bytes | None, case: dict[str, object]) -> bool:
    """``omniurl get``'s exit status and file against the parsers' readings: 0 and the
    body; 5 (an HTTP error status), 7 (401/407) or 1 (a redirect not followed) for a reply
    a parser reads; 4 (cut short) or 6 (broken) for one they refuse."""
    if code == 0:
        return agrees(Reading("ok", written or b""), case)
    if code in (1, 5, 7):
        return any(r["outcome"] == "ok" for r in _readings(case))
    return code in (4, 6) and agrees(Reading("error"), case)


#: The cases each run as their own ``omniurl get URL`` (the rest run in one batch below):
#: issue 30's checklist and the replies that hide bytes behind their end.
SINGLE = [
    (i, c)
    for i, c in enumerate(CASES)
    if str(c["name"]).startswith("issue30:") or "after" in str(c["name"])
]


@pytest.mark.timeout(600)
async def test_omniurl_get_agrees_end_to_end(
    origin: tuple[str, str | None], tmp_path: Path
) -> None:
    """Issue 30's checklist, each case one ``python -m omniurl get URL``: its exit status
    and the file it wrote."""
    base, ca = origin
    gate = asyncio.Semaphore(4)
    results: dict[str, bool] = {}
    seen: dict[str, int] = {}

    async def one(index: int, case: dict[str, object]) -> None:
        async with gate:
            code, written = await _cli(f"{base}/c/{index}", ca, tmp_path / f"{index}.out")
        seen[str(case["name"])] = code
        results[str(case["name"])] = cli_agrees(code, written, case)

    await asyncio.gather(*(one(i, c) for i, c in SINGLE))
    assert len(results) >= 20
    disagree = {n: seen[n] for n, ok in results.items() if not ok}
    assert set(disagree) == set(DEPARTURES) & set(results), disagree


@pytest.mark.timeout(600)
@pytest.mark.parametrize("cli_parser", PARSERS)
async def test_omniurl_get_batch_agrees_end_to_end(
    origin: tuple[str, str | None], tmp_path: Path, cli_parser: str
) -> None:
    """Every GET case through one ``python -m omniurl get --output-dir D URL1 URL2 …`` (its
    client shares connections): each URL's exit status (``--manifest``) and file — with
    llhttp, and with h11 chosen by ``OMNIURL_HTTP_PARSER``."""
    base, ca = origin
    cases = [(i, c) for i, c in enumerate(CASES) if c["method"] == "GET"]
    manifest, folder = tmp_path / "manifest.jsonl", tmp_path / "out"
    args = [sys.executable, "-m", "omniurl", "get", "--no-follow", "--manifest", str(manifest)]
    args += ["--output-dir", str(folder), "--create-dirs"]
    if ca:
        args += ["--cacert", ca]
    args += [f"{base}/c/{index}" for index, _ in cases]
    proc = await asyncio.create_subprocess_exec(
        *args,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "OMNIURL_HTTP_PARSER": cli_parser},
    )
    await asyncio.wait_for(proc.wait(), 500)
    rows = [json.loads(line) for line in manifest.read_text().splitlines()]
    assert len(rows) == len(cases)
    results: dict[str, bool] = {}
    by_name: dict[str, dict[str, object]] = {}
    for row in rows:
        _, case = cases[row["index"]]
        by_name[str(case["name"])] = row
        written = Path(row["path"]).read_bytes() if row["ok"] and row["path"] else None
        if row["ok"] and row["path"] is None:  # (a 304: no content, so no file, as curl's)
            assert "304" in str(case["name"]), case["name"]
            written = b""
        results[str(case["name"])] = cli_agrees(row["exit_status"], written, case)
    # the variable chose the parser: a bare-LF head is read by h11 only
    assert by_name["h11 io: every line ends in a bare LF"]["ok"] is (cli_parser == "h11")
    disagree = {n for n, ok in results.items() if not ok}
    assert disagree == set(DEPARTURES), disagree
    assert sum(results.values()) / len(results) >= AGREEMENT


@pytest.fixture(params=PARSERS)
def parser(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The parser the executor's replies are read with, for an in-process client."""
    monkeypatch.setattr(reply, "_default", request.param)
    yield str(request.param)


async def test_two_gets_on_one_client_never_see_the_first_replys_leftovers(
    origin: tuple[str, str | None], parser: str
) -> None:
    """Each case, then ``/second`` through the same client (its pool): the first get agrees
    with a parser, and the second returns exactly the second reply — whatever the first
    hid behind its end (a smuggled reply, garbage, a body longer than announced)."""
    from omniurl import AsyncClient
    from omniurl.resolvers.options import Options

    base, ca = origin
    results: dict[str, bool] = {}
    leaked: list[str] = []
    for index, case in enumerate(CASES):
        if case["method"] != "GET":
            continue
        async with AsyncClient(Options(ca_file=ca, follow=False, max_time=20)) as client:
            try:
                first = await client.get(f"{base}/c/{index}")
                ours = Reading("ok", first if isinstance(first, bytes) else b"")
                results[str(case["name"])] = agrees(ours, case)
            except ResolveError as exc:
                status = getattr(exc, "status", None)
                if status is not None or type(exc).__name__ in ("NotFollowed", "AuthError"):
                    results[str(case["name"])] = any(r["outcome"] == "ok" for r in _readings(case))
                else:
                    results[str(case["name"])] = agrees(Reading("error"), case)
            second = await client.get(f"{base}/second")
            if second != b"SECOND":
                leaked.append(f"{case['name']}: {second!r:.80}")
    assert leaked == []
    _check_agreement(results)


# -- the same bytes, cut anywhere: the same reading -------------------------------------------

_SMALL = [_raw(c) for c in CASES if len(_raw(c)) < 4096]


@pytest.mark.parametrize("parser", PARSERS)
@settings(max_examples=150, deadline=None)
@given(
    index=st.integers(0, len(_SMALL) - 1),
    edits=st.lists(
        st.tuples(
            st.floats(0, 1),
            st.sampled_from(
                [b"", b"\r", b"\n", b"\r\n", b"\x00", b" ", b":", b"0", b";", b",", b"\x0b"]
            ),
            st.integers(0, 3),
        ),
        max_size=4,
    ),
    step=st.integers(1, 19),
    method=st.sampled_from(["GET", "HEAD"]),
)
def test_a_mutated_reply_reads_the_same_however_it_is_cut(
    parser: str, index: int, edits: list[tuple[float, bytes, int]], step: int, method: str
) -> None:
    """Corpus replies with bytes inserted or removed, fed whole and ``step`` bytes at a
    time: the same body or the same typed error (a reader whose verdict depends on how
    the socket cut the bytes is a desync waiting to happen), never an untyped exception."""
    raw = bytearray(_SMALL[index])
    for where, insert, drop in edits:
        at = int(where * len(raw))
        raw[at : at + drop] = insert
    whole = machine_outcome(bytes(raw), method, parser, 0)
    assert machine_outcome(bytes(raw), method, parser, step) == whole


def machine_outcome(raw: bytes, method: str, parser: str, step: int) -> tuple[object, ...]:
    reader = ReplyReader(method, parser=parser)
    pieces = [raw[i : i + step] for i in range(0, len(raw), step)] if step else [raw]
    body: list[bytes] = []
    try:
        for piece in [*pieces, b""]:
            reader.receive_data(piece)
            while (event := reader.next_event()) is not NEED_DATA:
                if isinstance(event, Data):
                    body.append(event.data)
                elif isinstance(event, End):
                    return ("ok", b"".join(body))
    except ResolveError as exc:
        return ("error", type(exc).__name__)
    return ("incomplete",)
