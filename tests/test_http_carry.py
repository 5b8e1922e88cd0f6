"""A followed redirect's connection carries the next hop (cd7a9ac: a same-server redirect
rides the connection that answered it, as curl's) as a step of the plan: the conditional
``HTTPRole.CARRY`` step, shown by ``omniurl plan``, due by the pure
``planner.carries_next_hop`` — the executor reads the redirect's body and keeps the
connection only when the plan holds that step and its decision says so.  Against a
recording server: the bytes each hop sends are the plan's, on one connection; a plan
without the step carries nothing; a redirect whose body runs to the close of a connection
the server keeps open is not waited for (before: the get hung until its read timeout)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable

import pytest
import pytest_asyncio
from helpers import run_omniurl

from omniurl import resolvers
from omniurl.resolvers.http import planner
from omniurl.resolvers.http.planner import (
    CARRY_ON_REDIRECT,
    CARRY_STEP,
    HTTPRole,
    RedirectHop,
    carries_next_hop,
    request_head,
)
from omniurl.resolvers.http.reply import framing_of, parse_head, reuse_refused
from omniurl.resolvers.options import Options
from omniurl.resolvers.plan import Step
from omniurl.testservers import RunningServer
from omniurl.testservers.recording import Recording, recording_of, start_recording

OK = b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nhi\n"
MOVED = b"<a href=/a>moved</a>\n"
#: The redirects by target: a body of known length on a kept connection; one whose body
#: runs to the close of the connection (no length), which the server never closes.
REPLIES = {
    b"/r": b"HTTP/1.1 302 Found\r\nLocation: /a\r\nContent-Length: %d\r\n\r\n%s"
    % (len(MOVED), MOVED),
    b"/r-open": b"HTTP/1.1 302 Found\r\nLocation: /a\r\n\r\n" + MOVED,
}


def _responder() -> Callable[[bytes], bytes]:
    """Answers each request head at its empty line, by the target of its request line."""
    target = b""

    def respond(line: bytes) -> bytes:
        nonlocal target
        if line.startswith(b"GET "):
            target = line.split(b" ")[1]
            return b""
        if line:
            return b""
        return REPLIES.get(target, OK)

    return respond


@pytest_asyncio.fixture
async def server() -> AsyncIterator[RunningServer]:
    running = await start_recording(respond=_responder())
    try:
        yield running
    finally:
        await running.close()


def _sent(url: str, options: Options) -> bytes:
    """The bytes the plan of ``url`` sends: its request head (the unconditional steps)."""
    return request_head(resolvers.plan(url, options))


# -- the plan ----------------------------------------------------------------------------


def test_the_plan_shows_the_carry_as_a_conditional_step() -> None:
    shown = resolvers.plan("http://h/redirecting").to_json()
    assert list(shown) == ["url", "scheme", "host", "port", "transport", "steps", "when"]
    assert shown["steps"] == [
        "GET /redirecting HTTP/1.1", "Host: h", "User-Agent: omniurl/0.1", "Accept: */*",
        "Accept-Encoding: identity",
        "(the redirect's body read, at most 1 MiB within 0.25 s, and its connection kept "
        "for the next hop; else the connection is closed)",
    ]  # fmt: skip
    assert shown["when"] == [None] * 5 + [
        "a redirect followed on a connection of this resolve's own (no client's pool) that "
        "may carry another request (RFC 9112 §9.3), its body declared at most 1 MiB if at all"
    ]
    step = resolvers.plan("http://h/redirecting").steps[-1]
    assert (step.kind, step.role, step.data, step.condition) == (
        "info", HTTPRole.CARRY, b"", CARRY_ON_REDIRECT,
    )  # fmt: skip
    # through a forwarding proxy too; not where redirects are not followed
    via = resolvers.plan("http://h/x", Options(proxy="http://127.0.0.1:3128")).to_json()
    assert via["steps"][-1] == CARRY_STEP.shown and via["when"][-1] == CARRY_ON_REDIRECT.text
    unfollowed = resolvers.plan("http://h/x", Options(follow=False)).to_json()
    assert CARRY_STEP.shown not in unfollowed["steps"]
    assert unfollowed["when"] == [None] * len(unfollowed["steps"])


async def test_omniurl_plan_prints_it() -> None:
    status, out, err = await run_omniurl("plan", "http://h/redirecting")
    assert status == 0, err
    assert json.loads(out)["steps"][-1] == CARRY_STEP.shown
    status, out, err = await run_omniurl("plan", "--no-follow", "http://h/redirecting")
    assert status == 0, err
    assert CARRY_STEP.shown not in json.loads(out)["steps"]


@pytest.mark.parametrize(
    ("raw", "own", "due"),
    [
        (b"HTTP/1.1 302 Found\r\nLocation: /a\r\nContent-Length: 5\r\n\r\n", True, True),
        (b"HTTP/1.1 301 Moved\r\nLocation: /a\r\nTransfer-Encoding: chunked\r\n\r\n", True, True),
        (b"HTTP/1.1 302 Found\r\nLocation: /a\r\nContent-Length: 5\r\n\r\n", False, False),
        (b"HTTP/1.1 302 Found\r\nLocation: /a\r\nConnection: close\r\n"
         b"Content-Length: 5\r\n\r\n", True, False),
        (b"HTTP/1.0 302 Found\r\nLocation: /a\r\nContent-Length: 5\r\n\r\n", True, False),
        (b"HTTP/1.1 302 Found\r\nLocation: /a\r\n\r\n", True, False),  # (to the close)
        (b"HTTP/1.1 302 Found\r\nLocation: /a\r\nContent-Length: 1048576\r\n\r\n", True, True),
        (b"HTTP/1.1 302 Found\r\nLocation: /a\r\nContent-Length: 1048577\r\n\r\n", True, False),
    ],
)  # fmt: skip
def test_the_decision_is_pure(raw: bytes, own: bool, due: bool) -> None:
    head = parse_head(raw)
    length = head.get("content-length")
    hop = RedirectHop(
        own,
        reuse_refused(head, framing_of(head, "GET")[0]),
        int(length) if length is not None else None,
    )
    assert carries_next_hop(hop) is due
    assert CARRY_STEP.due(hop) is due


# -- the wire ----------------------------------------------------------------------------


async def test_a_same_server_redirect_sends_the_planned_bytes_on_one_connection(
    server: RunningServer,
) -> None:
    base = f"http://127.0.0.1:{server.port}"
    status, out, err = await run_omniurl("get", "-L", "-w", "%{num_connects}", f"{base}/r")
    assert (status, out) == (0, b"hi\n1"), err
    recording: Recording = recording_of(server)
    assert [bytes(c) for c in recording.per_connection] == [
        _sent(f"{base}/r", Options()) + _sent(f"{base}/a", Options())
    ]


async def test_a_plan_without_the_step_carries_nothing(
    server: RunningServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The executor carries out the plan: its step gone (here: another note in its place),
    the redirect's connection is not kept — the same bytes, each hop on its own."""
    monkeypatch.setattr(planner, "CARRY_STEP", Step(b"", "(a note)", kind="info"))
    base = f"http://127.0.0.1:{server.port}"
    async with asyncio.timeout(20):
        assert await resolvers.fetch(f"{base}/r", Options()) == b"hi\n"
    recording = recording_of(server)
    assert [bytes(c) for c in recording.per_connection] == [
        _sent(f"{base}/r", Options()),
        _sent(f"{base}/a", Options()),
    ]
    monkeypatch.undo()
    recording.per_connection.clear()
    async with asyncio.timeout(20):
        assert await resolvers.fetch(f"{base}/r", Options()) == b"hi\n"
    assert [bytes(c) for c in recording.per_connection] == [
        _sent(f"{base}/r", Options()) + _sent(f"{base}/a", Options())
    ]


async def test_a_redirect_whose_body_runs_to_the_close_is_not_waited_for(
    server: RunningServer,
) -> None:
    """A 302 without a length on a connection the server keeps open: its body ends only
    at the close, which never comes — the next hop goes on a new connection at once, as
    curl's does (before: the drain waited for the read timeout, 30 s here)."""
    base = f"http://127.0.0.1:{server.port}"
    options = Options(read_timeout=30)
    loop = asyncio.get_running_loop()
    start = loop.time()
    async with asyncio.timeout(10):
        assert await resolvers.fetch(f"{base}/r-open", options) == b"hi\n"
    assert loop.time() - start < 5
    assert [bytes(c) for c in recording_of(server).per_connection] == [
        _sent(f"{base}/r-open", options),
        _sent(f"{base}/a", options),
    ]
