"""gemini: against the recording test server (testservers/gemini.py) — the exact bytes of
every request, trust on first use, input, redirects and their limits, failures, client
certificates — and on the surfaces (CLI, gateway, urllib, fsspec) through the spec."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import signal
import ssl
import subprocess
import sys
import threading
import urllib.request
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT, on_a_terminal, run_omniurl

from omniurl import testservers
from omniurl.resolvers import Options, fetch, resolve
from omniurl.resolvers.errors import (
    AuthError,
    InputNeeded,
    NotFound,
    PlanError,
    RedirectRefused,
    StatusError,
    TooManyRedirects,
)
from omniurl.resolvers.gemini.machine import GeminiResult
from omniurl.resolvers.gemini.settings import GeminiOptions
from omniurl.resolvers.gemini.tofu import CertificateChanged, pin_of
from omniurl.testservers.gemini import Certificates
from omniurl.testservers.recording import recording_of, start_recording

INDEX = (
    b"# Gemini test capsule\n"
    b"\n"
    b"Some text.\n"
    b"=> /input Say hello\n"
    b"=> docs/ The docs\n"
    b"=> gemini://elsewhere.example/ Elsewhere\n"
    b"* an item\n"
    b"> a quote\n"
    b"```\n"
    b"=> preformatted\n"
    b"```\n"
)


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[testservers.RunningServer]:
    root = tmp_path / "root"
    (root / "docs").mkdir(parents=True)
    (root / "index.gmi").write_bytes(INDEX)
    (root / "docs" / "notes.txt").write_bytes(b"plain\r\nbytes\x00\xff")
    srv = await testservers.start("gemini", root)
    yield srv
    await srv.close()


def certs(server: testservers.RunningServer) -> Certificates:
    found = server.info["certificates"]
    assert isinstance(found, Certificates)
    return found


def received(server: testservers.RunningServer) -> list[bytes]:
    return list(server.info["received"])


def options(tmp_path: Path, **kw: Any) -> Options:
    return Options(**kw).with_scheme(GeminiOptions(known_hosts=str(tmp_path / "known_hosts")))


def server_der(server: testservers.RunningServer) -> bytes:
    return ssl.PEM_cert_to_DER_cert(certs(server).server_cert.read_text())


def url(server: testservers.RunningServer, path: str) -> str:
    return f"gemini://127.0.0.1:{server.port}{path}"


# -- content, byte for byte ----------------------------------------------------------------


async def test_a_document_and_the_request_byte_for_byte(
    server: testservers.RunningServer, tmp_path: Path
) -> None:
    async with resolve(url(server, "/"), options(tmp_path)) as resource:
        body = b"".join([chunk async for chunk in resource])
        assert resource.media_type == "text/gemini"
        assert resource.replies == ["20 text/gemini"]
        result = resource.result_as(GeminiResult)
        assert result == GeminiResult(20, "text/gemini", "text/gemini", "utf-8")
        assert resource.status == 20
        assert resource.metadata == {"status": 20, "meta": "text/gemini", "charset": "utf-8"}
        assert resource.charset is None  # (none declared: the mirror's pages read as UTF-8)
    assert body == INDEX
    assert received(server) == [f"gemini://127.0.0.1:{server.port}/\r\n".encode()]
    async with resolve(url(server, "/docs/"), options(tmp_path)) as resource:
        # a declared charset is Resource.charset, as HTTP's (what the mirror reads links in);
        # the media type is bare, as HTTP's (it was "text/gemini; charset=utf-8")
        assert resource.media_type == "text/gemini"
        assert resource.charset == "utf-8"
        assert resource.replies == ["20 text/gemini; charset=utf-8"]
        assert resource.result_as(GeminiResult).meta == "text/gemini; charset=utf-8"


async def test_binary_content_is_streamed_unchanged(
    server: testservers.RunningServer, tmp_path: Path
) -> None:
    data = await fetch(url(server, "/docs/notes.txt?x#frag"), options(tmp_path))
    assert data == b"plain\r\nbytes\x00\xff"
    # the fragment is never sent; the query is
    assert received(server) == [f"gemini://127.0.0.1:{server.port}/docs/notes.txt?x\r\n".encode()]


async def test_a_request_over_1024_bytes_is_refused_with_zero_bytes_sent() -> None:
    async with await start_recording() as recorder:
        head = f"gemini://127.0.0.1:{recorder.port}/"
        with pytest.raises(PlanError) as info:
            await fetch(head + "a" * (1025 - len(head)), Options(verify_tls=False))
        await asyncio.sleep(0.05)
        recording = recording_of(recorder)
    assert info.value.component == "path"
    assert recording.connections == 0 and recording.received == b""


# -- trust on first use --------------------------------------------------------------------


async def test_first_contact_is_recorded_then_trusted(
    server: testservers.RunningServer, tmp_path: Path
) -> None:
    notes: list[str] = []
    opts = options(tmp_path, transcript=lambda d, t: notes.append(f"{d} {t}"))
    await fetch(url(server, "/"), opts)
    der = server_der(server)
    pin = pin_of(der)
    assert pin.expires is not None
    expected = (
        f"127.0.0.1:{server.port} SHA256:{hashlib.sha256(der).hexdigest()} "
        f"{pin.expires:%Y-%m-%dT%H:%M:%SZ}\n"
    )
    assert (tmp_path / "known_hosts").read_text() == expected
    assert any("first contact" in n for n in notes)
    notes.clear()
    await fetch(url(server, "/"), opts)
    assert any("matches the pin" in n for n in notes)
    assert (tmp_path / "known_hosts").read_text() == expected


async def test_a_changed_certificate_is_refused_with_both_fingerprints(
    server: testservers.RunningServer, tmp_path: Path
) -> None:
    old = "ab" * 32
    line = f"127.0.0.1:{server.port} SHA256:{old} 2030-01-01T00:00:00Z\n"
    (tmp_path / "known_hosts").write_text(line)
    with pytest.raises(CertificateChanged) as info:
        await fetch(url(server, "/"), options(tmp_path))
    new = hashlib.sha256(server_der(server)).hexdigest()
    assert f"known SHA256:{old}" in info.value.message
    assert f"presented SHA256:{new}" in info.value.message
    assert (info.value.known.fingerprint, info.value.presented.fingerprint) == (old, new)
    assert b"".join(received(server)) == b""  # connections, but no request was sent
    assert (tmp_path / "known_hosts").read_text() == line  # the pin is kept


async def test_a_changed_certificate_a_ca_vouches_for_is_accepted_and_pinned(
    server: testservers.RunningServer, tmp_path: Path
) -> None:
    (tmp_path / "known_hosts").write_text(f"127.0.0.1:{server.port} SHA256:{'ab' * 32} -\n")
    opts = options(tmp_path, ca_file=str(certs(server).ca))
    assert await fetch(url(server, "/"), opts) == INDEX
    new = hashlib.sha256(server_der(server)).hexdigest()
    assert f"SHA256:{new}" in (tmp_path / "known_hosts").read_text()
    assert received(server)[-1] == f"gemini://127.0.0.1:{server.port}/\r\n".encode()


async def test_a_known_hosts_file_that_cannot_be_written_is_a_typed_error(
    server: testservers.RunningServer, tmp_path: Path
) -> None:
    from omniurl.resolvers.errors import ConfigurationError

    blocked = tmp_path / "not-a-folder"
    blocked.write_text("")
    opts = Options().with_scheme(GeminiOptions(known_hosts=str(blocked / "known_hosts")))
    with pytest.raises(ConfigurationError) as info:
        await fetch(url(server, "/"), opts)
    assert info.value.component == "known_hosts" and "--gemini-known-hosts" in info.value.message
    assert b"".join(received(server)) == b""


async def test_insecure_checks_no_pin_and_records_none(
    server: testservers.RunningServer, tmp_path: Path
) -> None:
    line = f"127.0.0.1:{server.port} SHA256:{'ab' * 32} -\n"
    (tmp_path / "known_hosts").write_text(line)
    assert await fetch(url(server, "/"), options(tmp_path, verify_tls=False)) == INDEX
    assert (tmp_path / "known_hosts").read_text() == line


# -- input ---------------------------------------------------------------------------------


async def test_input_is_asked_and_sent_as_the_query(
    server: testservers.RunningServer, tmp_path: Path
) -> None:
    asked: list[tuple[str, bool]] = []

    async def ask(prompt: str, secret: bool = False) -> str:
        asked.append((prompt, secret))
        return "Ada Lovelace & co/?"

    data = await fetch(url(server, "/input"), options(tmp_path, ask=ask))
    assert data == b"# Hello\n\nHello, Ada Lovelace & co/?!\n"
    assert asked == [("What is your name?: ", False)]
    base = f"gemini://127.0.0.1:{server.port}/input"
    assert received(server) == [
        f"{base}\r\n".encode(),
        f"{base}?Ada%20Lovelace%20%26%20co%2F%3F\r\n".encode(),
    ]


async def test_sensitive_input_is_asked_without_echo(
    server: testservers.RunningServer, tmp_path: Path
) -> None:
    asked: list[tuple[str, bool]] = []

    async def ask(prompt: str, secret: bool = False) -> str:
        asked.append((prompt, secret))
        return "hunter2"

    assert await fetch(url(server, "/secret"), options(tmp_path, ask=ask)) == b"7 characters\n"
    assert asked == [("Password: ", True)]


async def test_input_without_a_way_to_ask_is_input_needed(
    server: testservers.RunningServer, tmp_path: Path
) -> None:
    with pytest.raises(InputNeeded) as info:
        await fetch(url(server, "/input"), options(tmp_path))
    assert info.value.prompt == "What is your name?" and info.value.component == "query"


# -- redirects -----------------------------------------------------------------------------


async def test_a_redirect_is_followed(server: testservers.RunningServer, tmp_path: Path) -> None:
    async with resolve(url(server, "/redirect"), options(tmp_path)) as resource:
        assert b"".join([c async for c in resource]) == INDEX
        assert resource.chain == [url(server, "/redirect")]
        assert str(resource.url) == url(server, "/")
    assert received(server) == [
        f"{url(server, '/redirect')}\r\n".encode(),
        f"{url(server, '/')}\r\n".encode(),
    ]


async def test_at_most_five_redirects(server: testservers.RunningServer, tmp_path: Path) -> None:
    with pytest.raises(TooManyRedirects, match="more than 5 redirects"):
        await fetch(url(server, "/loop/0"), options(tmp_path))
    assert received(server) == [f"{url(server, f'/loop/{n}')}\r\n".encode() for n in range(6)]


async def test_a_redirect_to_another_scheme_is_not_followed(
    server: testservers.RunningServer, tmp_path: Path
) -> None:
    with pytest.raises(RedirectRefused) as info:
        await fetch(url(server, "/elsewhere"), options(tmp_path))
    assert "http://127.0.0.1/" in info.value.message
    assert info.value.sent  # says what was sent before the refusal
    assert received(server) == [f"{url(server, '/elsewhere')}\r\n".encode()]


async def test_not_followed_when_asked(server: testservers.RunningServer, tmp_path: Path) -> None:
    from omniurl.resolvers.errors import NotFollowed

    with pytest.raises(NotFollowed) as info:
        await fetch(url(server, "/moved"), options(tmp_path, follow=False))
    assert info.value.reason == "permanent redirect" and info.value.replies == ["31 /"]


# -- failures and certificates -------------------------------------------------------------


async def test_failures_are_typed(server: testservers.RunningServer, tmp_path: Path) -> None:
    with pytest.raises(NotFound) as nf:
        await fetch(url(server, "/no/such"), options(tmp_path))
    assert nf.value.reply == "51 Not found"
    with pytest.raises(NotFound):
        await fetch(url(server, "/gone"), options(tmp_path))
    with pytest.raises(StatusError) as slow:
        await fetch(url(server, "/slow-down"), options(tmp_path))
    assert slow.value.status == 44


async def test_a_client_certificate_when_one_is_wanted(
    server: testservers.RunningServer, tmp_path: Path
) -> None:
    with pytest.raises(AuthError, match="wants a client certificate: give one with --cert"):
        await fetch(url(server, "/private/"), options(tmp_path))
    c = certs(server)
    data = await fetch(
        url(server, "/private/"),
        options(tmp_path, client_cert=str(c.client_cert), client_key=str(c.client_key)),
    )
    der = ssl.PEM_cert_to_DER_cert(c.client_cert.read_text())
    assert data == f"# Private\n\nYour certificate: {hashlib.sha256(der).hexdigest()}\n".encode()


# -- the command line ----------------------------------------------------------------------


def cli_env(tmp_path: Path) -> dict[str, str]:
    """No proxy; a home (and known-hosts file) of the test's own."""
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env.update(PYTHONPATH=str(ROOT), HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path / "xdg"))
    return env


async def cli(tmp_path: Path, *args: str) -> tuple[int, bytes, bytes]:
    return await run_omniurl(*args, timeout=60, env=cli_env(tmp_path))


def on_terminal(tmp_path: Path, *args: str) -> tuple[int, bytes]:
    """``omniurl ARGS`` with stdout alone on a pseudo-terminal (helpers.on_a_terminal,
    bounded) and ``cli``'s environment, the terminal's CR LF read as LF."""
    env = cli_env(tmp_path)
    status, out = on_a_terminal(*args, cwd=tmp_path, env=env, timeout=60, stderr_too=False)
    return status, out.replace(b"\r\n", b"\n")


async def test_cli_shows_gemtext_with_numbered_links_on_a_terminal(
    server: testservers.RunningServer, tmp_path: Path
) -> None:
    status, out = await asyncio.to_thread(on_terminal, tmp_path, "get", url(server, "/"))
    assert status == 0, out
    assert out.decode().splitlines() == [
        "Gemini test capsule",
        "===================",
        "",
        "Some text.",
        f"[1] Say hello  <gemini://127.0.0.1:{server.port}/input>",
        f"[2] The docs  <gemini://127.0.0.1:{server.port}/docs/>",
        "[3] Elsewhere  <gemini://elsewhere.example/>",
        "  • an item",
        "  │ a quote",
        "=> preformatted",
    ]
    known = (tmp_path / "xdg" / "omniurl" / "gemini_known_hosts").read_text()
    assert known.startswith(f"127.0.0.1:{server.port} SHA256:")
    # the server's control characters never reach the terminal
    (Path(server.info["server"].root) / "esc.gmi").write_bytes(b"# \x1b[2Jred\n")
    status, out = await asyncio.to_thread(on_terminal, tmp_path, "get", url(server, "/esc.gmi"))
    assert (status, out) == (0, b"\\x1b[2Jred\n=======\n")


async def test_gemtext_to_a_pipe_or_a_file_is_the_bytes_received(
    server: testservers.RunningServer, tmp_path: Path
) -> None:
    """The terminal's view is the terminal's: a pipe gets what ``-o`` saves (docs/saving.md;
    before, ``get gemini://h/ | cat`` wrote the rendered lines, 141 bytes for 52)."""
    status, out, err = await cli(tmp_path, "get", url(server, "/"))
    assert (status, out) == (0, INDEX), err
    status, _, err = await cli(tmp_path, "get", "-o", str(tmp_path / "saved"), url(server, "/"))
    assert status == 0, err
    assert (tmp_path / "saved").read_bytes() == INDEX


async def test_cli_json_gives_the_parsed_lines(
    server: testservers.RunningServer, tmp_path: Path
) -> None:
    status, out, err = await cli(tmp_path, "get", "--json", url(server, "/"))
    assert status == 0, err
    doc = json.loads(out)
    assert doc["media_type"] == "text/gemini" and doc["url"] == url(server, "/")
    assert doc["gemtext"][0] == {"kind": "heading", "text": "Gemini test capsule", "level": 1}
    assert doc["gemtext"][3] == {
        "kind": "link",
        "text": "Say hello",
        "url": url(server, "/input"),
        "number": 1,
    }


async def test_cli_exit_statuses_and_the_plan(
    server: testservers.RunningServer, tmp_path: Path
) -> None:
    assert (await cli(tmp_path, "get", url(server, "/nothing")))[0] == 5
    status, _, err = await cli(tmp_path, "get", url(server, "/private/"))
    assert status == 7 and b"--cert" in err
    status, out, _ = await cli(tmp_path, "plan", url(server, "/x"))
    assert status == 0
    plan = json.loads(out)
    assert plan["steps"][1] == url(server, "/x")
    assert "the certificate must match the pin SHA256:" in plan["steps"][0]
    (tmp_path / "xdg" / "omniurl" / "gemini_known_hosts").write_text(
        f"127.0.0.1:{server.port} SHA256:{'ab' * 32} -\n"
    )
    status, _, err = await cli(tmp_path, "get", url(server, "/"))
    assert status == 2 and f"known SHA256:{'ab' * 32}".encode() in err
    status, out, _ = await cli(tmp_path, "get", "-k", url(server, "/docs/notes.txt"))
    assert (status, out) == (0, b"plain\r\nbytes\x00\xff")


async def test_a_pin_made_is_said_once_and_a_changed_one_is_replaced_on_request(
    server: testservers.RunningServer, tmp_path: Path
) -> None:
    """Issue 31 item 17: first contact was silent; now one line says what was pinned where
    (the API's ``notice``, the command's stderr).  A changed certificate is refused — its
    message names ``--gemini-repin`` — and ``--gemini-repin`` pins the new one and sends the
    request."""
    said: list[str] = []
    known_hosts = tmp_path / "known_hosts"
    new = hashlib.sha256(server_der(server)).hexdigest()
    await fetch(url(server, "/"), options(tmp_path, notice=said.append))
    assert said == [f"pinned 127.0.0.1:{server.port} sha256:{new} in {known_hosts}"]
    said.clear()
    await fetch(url(server, "/"), options(tmp_path, notice=said.append))
    assert said == []  # (the pinned certificate again: nothing to say)
    old = "ab" * 32
    known_hosts.write_text(f"127.0.0.1:{server.port} SHA256:{old} -\n")
    with pytest.raises(CertificateChanged) as info:
        await fetch(url(server, "/"), options(tmp_path, notice=said.append))
    assert "--gemini-repin" in info.value.message and said == []
    before = len(received(server))
    repin = Options(notice=said.append).with_scheme(
        GeminiOptions(known_hosts=str(known_hosts), repin=True)
    )
    assert "replaces the pin SHA256:" + old in resolvers_plan(url(server, "/"), repin)
    assert await fetch(url(server, "/"), repin) == INDEX
    assert said == [
        f"re-pinned 127.0.0.1:{server.port} sha256:{new} in {known_hosts} "
        f"(was sha256:{old}; --gemini-repin)"
    ]
    assert known_hosts.read_text().startswith(f"127.0.0.1:{server.port} SHA256:{new} ")
    sent = [r for r in received(server)[before:] if r]  # (the refused connection sent b"")
    assert sent == [f"gemini://127.0.0.1:{server.port}/\r\n".encode()]
    said.clear()
    await fetch(url(server, "/"), options(tmp_path, notice=said.append))  # trusted again
    assert said == []


def resolvers_plan(target: str, opts: Options) -> str:
    from omniurl.resolvers import check

    return str(check(target, opts).to_json()["steps"][0])


async def test_cli_says_what_it_pinned_and_repins_on_request(
    server: testservers.RunningServer, tmp_path: Path
) -> None:
    known = tmp_path / "xdg" / "omniurl" / "gemini_known_hosts"
    new = hashlib.sha256(server_der(server)).hexdigest()
    status, out, err = await cli(tmp_path, "get", url(server, "/docs/notes.txt"))
    assert (status, out) == (0, b"plain\r\nbytes\x00\xff")
    assert err.decode().splitlines() == [
        f"omniurl: pinned 127.0.0.1:{server.port} sha256:{new} in {known}"
    ]
    status, _, err = await cli(tmp_path, "get", url(server, "/docs/notes.txt"))
    assert (status, err) == (0, b"")  # (trusted: nothing said)
    old = "cd" * 32
    known.write_text(f"127.0.0.1:{server.port} SHA256:{old} -\n")
    status, out, err = await cli(tmp_path, "get", url(server, "/docs/notes.txt"))
    assert (status, out) == (2, b"") and b"--gemini-repin" in err
    assert known.read_text() == f"127.0.0.1:{server.port} SHA256:{old} -\n"
    status, out, err = await cli(tmp_path, "get", "--gemini-repin", url(server, "/docs/notes.txt"))
    assert (status, out) == (0, b"plain\r\nbytes\x00\xff")
    assert err.decode().splitlines() == [
        f"omniurl: re-pinned 127.0.0.1:{server.port} sha256:{new} in {known} "
        f"(was sha256:{old}; --gemini-repin)"
    ]
    assert known.read_text().startswith(f"127.0.0.1:{server.port} SHA256:{new} ")
    known.unlink()
    status, _, err = await cli(tmp_path, "get", "-s", url(server, "/docs/notes.txt"))
    assert (status, err) == (0, b"")  # (-s: silent, as curl's)
    status, out, _ = await cli(tmp_path, "get", "--help")
    assert b"--gemini-repin" in out


async def test_a_folder_without_its_slash_is_redirected_to_it(
    server: testservers.RunningServer, tmp_path: Path
) -> None:
    """Issue 31 item 18: ``gemini://h/sub`` answered with the folder's page, whose relative
    links then resolved to ``/x.txt`` (51); the server now answers ``31 /sub/`` as
    molly-brown does, and the client's links land under the folder."""
    root = Path(server.info["server"].root)
    (root / "sub").mkdir()
    (root / "sub" / "x.txt").write_bytes(b"in sub\n")
    assert server.info["server"].respond(url(server, "/sub"), None) == b"31 /sub/\r\n"
    assert server.info["server"].respond(url(server, "/docs"), None) == b"31 /docs/\r\n"
    async with await resolve(url(server, "/sub"), options(tmp_path, verify_tls=False)) as res:
        page = b"".join([chunk async for chunk in res])
        assert str(res.url) == url(server, "/sub/")
    assert page == b"# /sub/\n\n=> x.txt x.txt\n"
    assert received(server)[-2:] == [
        f"gemini://127.0.0.1:{server.port}/sub\r\n".encode(),
        f"gemini://127.0.0.1:{server.port}/sub/\r\n".encode(),
    ]
    from omniurl.schemes import join

    assert await fetch(join(str(res.url), "x.txt"), options(tmp_path, verify_tls=False)) == (
        b"in sub\n"
    )


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_serve_gemini_removes_its_keys_when_ended(tmp_path: Path, signum: int) -> None:
    """Issue 31 item 18: SIGTERM left /tmp/omniurl-gemini-* (its CA and keys) behind; it now
    ends the server as Ctrl-C does, its temporary folder removed."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp_path)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "omniurl", "serve", "gemini", "--root", str(tmp_path)],
        cwd=ROOT,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        lines = [proc.stderr.readline(), proc.stderr.readline()]  # the server, its keys
        match = re.search(r"--cacert (\S+)/ca\.pem", lines[1])
        assert match, lines
        folder = Path(match.group(1))
        assert folder.parent == tmp_path and folder.name.startswith("omniurl-gemini-")
        assert (folder / "server.key").is_file()
        proc.send_signal(signum)
        status = proc.wait(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        if proc.stderr is not None:
            proc.stderr.close()
    assert status == (143 if signum == signal.SIGTERM else 0)
    assert not folder.exists()
    assert list(tmp_path.glob("omniurl-gemini-*")) == []


# -- the gateway, urllib and fsspec --------------------------------------------------------


async def test_the_gateway_renders_gemtext_as_html(
    server: testservers.RunningServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("starlette")
    import httpx

    from omniurl.gateway import GatewayConfig, create_app
    from omniurl.gateway.render import CSP

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    (Path(server.info["server"].root) / "evil.gmi").write_text(
        "# <script>alert(1)</script>\n=> javascript:alert(1) click\n=> /docs/ Docs\n"
    )
    config = GatewayConfig(
        allow_hosts=frozenset({"127.0.0.1"}), allow_ports=frozenset({server.port})
    )
    transport = httpx.ASGITransport(app=create_app(config))
    async with httpx.AsyncClient(transport=transport, base_url="http://gw.test") as client:
        reply = await client.get("/" + url(server, "/evil.gmi"))
    assert reply.status_code == 200
    assert reply.headers["content-security-policy"] == CSP
    page = reply.text
    assert "<h2>&lt;script&gt;alert(1)&lt;/script&gt;</h2>" in page
    assert "<script>" not in page
    assert f'<a href="/gemini://127.0.0.1:{server.port}/docs/">Docs</a>' in page
    assert 'href="javascript:' not in page
    # a 1x input: the gateway's search form, answered through the spec's search_url
    async with httpx.AsyncClient(transport=transport, base_url="http://gw.test") as client:
        form = await client.get("/" + url(server, "/input"))
        assert form.status_code == 200 and "What is your name?" in form.text
        answered = await client.get(
            "/_/search", params={"url": url(server, "/input"), "q": "Ada L"}
        )
        assert answered.status_code == 303
        assert answered.headers["location"] == "/" + url(server, "/input?Ada%20L")
        greeting = await client.get(answered.headers["location"])
    assert "Hello, Ada L!" in greeting.text


@pytest.fixture
def threaded_server(tmp_path: Path) -> Iterator[str]:
    root = tmp_path / "root"
    root.mkdir()
    (root / "index.gmi").write_bytes(INDEX)
    (root / "a.csv").write_text("x,y\n1,2\n")
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    srv: Any = asyncio.run_coroutine_threadsafe(testservers.start("gemini", root), loop).result(10)
    yield f"gemini://127.0.0.1:{srv.port}"
    asyncio.run_coroutine_threadsafe(srv.close(), loop).result(10)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(10)
    loop.close()


def test_urllib_and_fsspec_read_gemini_through_the_spec(
    threaded_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fsspec = pytest.importorskip("fsspec")
    from omniurl.integrations import urllib as ou
    from omniurl.integrations.fsspec import PROTOCOLS, OmniurlFileSystem

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert "gemini" in PROTOCOLS and "gemini" in ou.schemes()
    opener = ou.install()
    try:
        with urllib.request.urlopen(f"{threaded_server}/a.csv") as response:
            assert response.read() == b"x,y\n1,2\n"
    finally:
        urllib.request.install_opener(None)
    assert opener is not None
    fsspec.register_implementation("gemini", OmniurlFileSystem, clobber=True)
    with fsspec.open(f"{threaded_server}/index.gmi") as f:
        assert f.read() == INDEX


async def test_the_batch_saves_gemini_content_under_its_names(
    server: testservers.RunningServer, tmp_path: Path
) -> None:
    from omniurl.batch import fetch_many

    urls = [url(server, "/"), url(server, "/docs/notes.txt"), url(server, "/missing")]
    out = tmp_path / "out"
    out.mkdir()
    results = {
        r.index: r
        async for r in fetch_many(urls, options=options(tmp_path), output_dir=out, per_host=2)
    }
    assert [results[i].ok for i in range(3)] == [True, True, False]
    assert (results[2].error_type, results[2].exit_status) == ("NotFound", 5)
    assert (out / "index.gmi").read_bytes() == INDEX  # the spec's index_name
    assert (out / "notes.txt").read_bytes() == b"plain\r\nbytes\x00\xff"
    assert results[0].sha256 == hashlib.sha256(INDEX).hexdigest()
