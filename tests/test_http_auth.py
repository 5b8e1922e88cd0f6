"""HTTP authentication: Basic (RFC 7617) from the URL, -u or ~/.netrc; Digest (RFC 7616)
answered to the 401; credentials never sent to another host after a redirect; the URL's
credentials accepted with a warning (RFC 9110 §4.2.4); passwords masked."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from omniurl import resolvers, testservers
from omniurl.resolvers.errors import AuthError
from omniurl.resolvers.http.planner import CARRY_STEP
from omniurl.resolvers.options import Options


@pytest_asyncio.fixture(params=["basic", "digest"])
async def server(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[testservers.RunningServer]:
    srv = await testservers.start(
        "http", tmp_path, credentials=("alice", "s3cret"), auth=request.param
    )
    srv.info["auth"] = request.param
    yield srv
    await srv.close()


def authorization(server: testservers.RunningServer) -> list[str]:
    return [
        dict(headers).get(b"authorization", b"").decode()
        for _method, _target, headers in server.info["requests"]
    ]


async def _get(url: str, options: Options) -> bytes:
    async with await resolvers.resolve(url, options) as res:
        return await res.read()


async def test_credentials_in_the_url(server: testservers.RunningServer) -> None:
    digest = server.info["auth"] == "digest"
    options = Options(http_auth="digest" if digest else "basic")
    body = await _get(f"http://alice:s3cret@127.0.0.1:{server.port}/secret/", options)
    assert body == b"secret for alice\n"
    sent = authorization(server)
    if digest:  # nothing first; the 401's challenge answered once
        assert sent[0] == "" and sent[1].startswith('Digest username="alice"') and len(sent) == 2
    else:  # Basic with the request, as curl does
        assert sent == ["Basic " + base64.b64encode(b"alice:s3cret").decode()]


async def test_u_and_netrc_credentials(server: testservers.RunningServer) -> None:
    mode = server.info["auth"]
    url = f"http://127.0.0.1:{server.port}/secret/"
    assert (
        await _get(url, Options(user=("alice", "s3cret"), http_auth=mode)) == b"secret for alice\n"
    )
    netrc = Options(credentials={"127.0.0.1": ("alice", "s3cret")}, http_auth=mode)
    assert await _get(url, netrc) == b"secret for alice\n"


async def test_wrong_or_missing_credentials_are_an_auth_error(
    server: testservers.RunningServer,
) -> None:
    mode = server.info["auth"]
    url = f"http://127.0.0.1:{server.port}/secret/"
    for options in (Options(http_auth=mode), Options(user=("alice", "wrong"), http_auth=mode)):
        with pytest.raises(AuthError) as info:
            await _get(url, options)
        assert info.value.component == "user"


def test_the_plan_masks_the_password() -> None:
    plan = resolvers.plan("http://alice:s3cret@h.example/secret/").to_json()
    assert plan["url"] == "http://alice:****@h.example/secret/"
    assert "Authorization: Basic ****" in plan["steps"]
    assert "s3cret" not in str(plan) and base64.b64encode(b"alice:s3cret").decode() not in str(plan)
    digest = resolvers.plan("http://h.example/x", Options(user=("bob", "pw"), http_auth="digest"))
    assert digest.to_json()["steps"][-2:] == [
        'Authorization: Digest username="bob", response=****',
        CARRY_STEP.shown,
    ]


async def test_no_credentials_after_a_redirect_to_another_host(tmp_path: Path) -> None:
    other = await testservers.start("http", tmp_path, credentials=("alice", "s3cret"))
    first = await testservers.start(
        "http",
        tmp_path,
        routes={"/go": (302, [("Location", f"http://localhost:{other.port}/secret/")], b"")},
    )
    try:
        with pytest.raises(AuthError):
            await _get(f"http://127.0.0.1:{first.port}/go", Options(user=("alice", "s3cret")))
        assert authorization(first)[0].startswith("Basic ")  # the URL given got them
        assert authorization(other) == [""]  # the other host never did
    finally:
        await first.close()
        await other.close()


async def test_the_cli_warns_about_url_credentials(tmp_path: Path) -> None:
    from _ftphttp import run_cli

    srv = await testservers.start("http", tmp_path, credentials=("alice", "s3cret"))
    try:
        status, out, err = await run_cli("get", f"http://alice:s3cret@127.0.0.1:{srv.port}/secret/")
        assert status == 0 and out == b"secret for alice\n"
        assert err.count(b"warning") == 1 and b"RFC 9110" in err and b"s3cret" not in err
        netrc = tmp_path / "netrc"
        netrc.write_text("machine 127.0.0.1 login alice password s3cret\n")
        status, out, _ = await run_cli(
            "get", "--netrc-file", str(netrc), f"http://127.0.0.1:{srv.port}/secret/"
        )
        assert status == 0 and out == b"secret for alice\n"
        status, _, err = await run_cli("get", f"http://127.0.0.1:{srv.port}/secret/")
        assert status == 7, err
    finally:
        await srv.close()


@pytest.mark.parametrize("trusted", [False, True])
async def test_no_credentials_after_a_redirect_to_another_port(
    tmp_path: Path, trusted: bool
) -> None:
    """curl CVE-2022-27776: a login belongs to its origin — scheme, host *and port*.  A
    redirect from 127.0.0.1:A to 127.0.0.1:B reaches another server: B's bytes must hold no
    Authorization, unless --location-trusted."""
    from omniurl.testservers.recording import recording_of, start_recording

    ok = b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nok\n"
    other = await start_recording(respond=lambda line: ok if line == b"" else None)
    first = await testservers.start(
        "http",
        tmp_path,
        routes={"/x": (302, [("Location", f"http://127.0.0.1:{other.port}/y")], b"")},
    )
    try:
        options = Options(user=("alice", "pw"), location_trusted=trusted)
        assert await _get(f"http://127.0.0.1:{first.port}/x", options) == b"ok\n"
        basic = "Basic " + base64.b64encode(b"alice:pw").decode()
        assert authorization(first) == [basic]  # the URL given got them
        received = recording_of(other).received
        assert received.startswith(b"GET /y HTTP/1.1\r\n")
        if trusted:
            assert f"\r\nAuthorization: {basic}\r\n".encode() in received
        else:
            assert b"authorization" not in received.lower()
    finally:
        await first.close()
        await other.close()


async def test_the_cli_keeps_credentials_to_their_port_unless_location_trusted(
    tmp_path: Path,
) -> None:
    from _ftphttp import run_cli

    target = await testservers.start("http", tmp_path, credentials=("alice", "s3cret"))
    first = await testservers.start(
        "http",
        tmp_path,
        routes={"/x": (302, [("Location", f"http://127.0.0.1:{target.port}/secret/")], b"")},
    )
    try:
        url = f"http://127.0.0.1:{first.port}/x"
        status, _, err = await run_cli("get", "-u", "alice:s3cret", url)
        assert status == 7, err
        assert authorization(target) == [""]
        status, out, err = await run_cli("get", "-u", "alice:s3cret", "--location-trusted", url)
        assert (status, out) == (0, b"secret for alice\n"), err
    finally:
        await first.close()
        await target.close()
