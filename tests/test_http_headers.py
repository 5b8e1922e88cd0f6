"""-H, -A, -e: request header fields shown in the plan, sent exactly as planned, CR/LF/NUL
refused with nothing sent; 401/407 are refused credentials (exit 7)."""

from __future__ import annotations

import json

import pytest
from _ftphttp import OPTS, run_cli

from omniurl import resolvers
from omniurl.resolvers.errors import AuthError, DelimiterRefused, PlanError
from omniurl.resolvers.http.planner import CARRY_STEP
from omniurl.testservers.recording import recording_of, start_recording


async def test_headers_are_planned_and_sent_exactly() -> None:
    reply = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
    server = await start_recording(respond=lambda line: reply if line == b"" else b"")
    try:
        url = f"http://{server.netloc}/x"
        status, out, err = await run_cli(
            "get", "-A", "agent/1", "-e", "http://ref.example/", "-H", "Accept:",
            "-H", "X-Trace: 42", url,
        )  # fmt: skip
        assert status == 0, err
        assert out == b"ok"
        status, plan_out, _err = await run_cli(
            "plan", "-A", "agent/1", "-e", "http://ref.example/", "-H", "Accept:",
            "-H", "X-Trace: 42", url,
        )  # fmt: skip
    finally:
        await server.close()
    planned = json.loads(plan_out)
    steps = planned["steps"]
    assert steps == [
        "GET /x HTTP/1.1", f"Host: {server.netloc}", "User-Agent: agent/1",
        "Accept-Encoding: identity", "X-Trace: 42", "Referer: http://ref.example/",
        CARRY_STEP.shown,  # (conditional: a followed redirect's; nothing sent)
    ]  # fmt: skip
    sent = [s for s, when in zip(steps, planned["when"], strict=True) if when is None]
    assert recording_of(server).lines()[: len(sent) + 1] == [s.encode() for s in sent] + [b""]


@pytest.mark.parametrize("value", ["a\r\nInjected: 1", "a\nb", "a\x00b"])
async def test_a_delimiter_in_a_header_sends_nothing(value: str) -> None:
    server = await start_recording()
    try:
        options = OPTS.with_(headers=(("X-Test", value),))
        with pytest.raises(DelimiterRefused):
            await resolvers.resolve(f"http://{server.netloc}/x", options)
    finally:
        await server.close()
    assert recording_of(server).connections == 0


def test_a_field_name_that_is_no_token_or_host_is_refused() -> None:
    for name in ("Bad Name", "Host", "X:Y"):
        with pytest.raises(PlanError):
            resolvers.plan("http://h/", OPTS.with_(headers=((name, "v"),)))


@pytest.mark.parametrize("code", [401, 407])
async def test_401_and_407_are_refused_credentials(code: int) -> None:
    reply = b"HTTP/1.1 %d No\r\nContent-Length: 0\r\n\r\n" % code
    server = await start_recording(respond=lambda line: reply if line == b"" else b"")
    try:
        with pytest.raises(AuthError):
            await resolvers.resolve(f"http://{server.netloc}/secret", OPTS)
        status, _out, _err = await run_cli("get", f"http://{server.netloc}/secret")
    finally:
        await server.close()
    assert status == 7
