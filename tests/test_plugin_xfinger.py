"""The plugin example: install examples/omniurl-x-finger, then use x-finger: on every surface.

The package is installed with pip into a temporary directory (``--target``, no network, no
build isolation), and that directory is put on the path: its ``omniurl.specs`` entry point
(and fsspec's own ``fsspec.specs`` line) are then all that connects it to omniurl.  Every
surface is tried — the CLI's parse, plan, get, -O, the batch with its manifest, the
clients, urllib's ``install()``, fsspec, Dask, the gateway's page — and the policy's
refusals on each.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from importlib.metadata import distributions
from pathlib import Path
from typing import Any

import pytest
from helpers import run_omniurl

from omniurl import resolvers, schemes
from omniurl.resolvers import registry
from omniurl.resolvers.errors import DelimiterRefused, PlanError, PortRefused

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "omniurl-x-finger"


@pytest.fixture(scope="session")
def plugin_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """pip-install the example into a fresh directory and put it on sys.path."""
    base = tmp_path_factory.mktemp("xfinger")
    src, site = base / "src", base / "site"
    # Build from a copy: setuptools writes build/ and *.egg-info next to the sources.
    shutil.copytree(EXAMPLE, src, ignore=shutil.ignore_patterns("build", "*.egg-info"))
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
           "--no-build-isolation", "--disable-pip-version-check",
           "--target", str(site), str(src)]  # fmt: skip
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.skip(f"pip cannot run here: {exc}")
    if done.returncode != 0:
        pytest.skip(f"pip could not install the example: {done.stderr.strip()[-500:]}")
    with pytest.MonkeyPatch.context() as mp:
        mp.syspath_prepend(str(site))
        yield site


@pytest.fixture(scope="session")
def registered(plugin_site: Path) -> None:
    """In this process the registry may have loaded already: register through the public
    API (what the entry point does on first use in a fresh process)."""
    from omniurl_xfinger.spec import SPEC

    registry.register_spec(SPEC)


@pytest.fixture
async def finger(plugin_site: Path) -> Any:
    from omniurl_xfinger.server import FingerServer

    server = await FingerServer().start()
    yield server
    await server.close()


@pytest.fixture
def finger_thread(plugin_site: Path) -> Iterator[Any]:
    """A Finger server on a loop of its own thread, for the synchronous surfaces (urllib,
    fsspec, Dask block the test's thread while they wait for it)."""
    import threading

    from omniurl_xfinger.server import FingerServer

    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    server = asyncio.run_coroutine_threadsafe(FingerServer().start(), loop).result(10)
    try:
        yield server
    finally:
        asyncio.run_coroutine_threadsafe(server.close(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


def _env(site: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(site), str(ROOT)])
    return env


async def _omniurl(site: Path, *args: str) -> tuple[int, str, str]:
    status, out, err = await run_omniurl(*args, timeout=60, env=_env(site), cwd=site)
    return status, out.decode(), err.decode()


def test_entry_points_are_installed(plugin_site: Path) -> None:
    (dist,) = [d for d in distributions(path=[str(plugin_site)]) if d.name == "omniurl-x-finger"]
    found = {(ep.group, ep.name, ep.value) for ep in dist.entry_points}
    assert found == {
        ("omniurl.specs", "x-finger", "omniurl_xfinger.spec:SPEC"),
        ("fsspec.specs", "x-finger", "omniurl.integrations.fsspec:OmniurlFileSystem"),
    }


async def test_cli_parse_finds_the_plugin_through_its_entry_point(plugin_site: Path) -> None:
    status, out, err = await _omniurl(plugin_site, "parse", "x-finger://127.0.0.1:7979/al%69ce;w")
    assert status == 0, err
    assert json.loads(out) == {
        "scheme": "x-finger", "user": None, "password": None, "host": "127.0.0.1",
        "port": 7979, "default_port": 79, "target": "alice", "whois": True, "fragment": None,
    }  # fmt: skip


async def test_cli_plan_shows_the_query_and_applies_the_policy(plugin_site: Path) -> None:
    status, out, _err = await _omniurl(
        plugin_site, "plan", "x-finger://127.0.0.1:7979/alice;w", "x-finger://h:7979/a%0D%0AQUIT"
    )
    first, second = (json.loads(line) for line in out.splitlines())
    assert first == {
        "url": "x-finger://127.0.0.1:7979/alice;w", "scheme": "x-finger", "host": "127.0.0.1",
        "port": 7979, "transport": "tcp", "steps": ["/W alice"], "when": [None],
    }  # fmt: skip
    assert second["error"]["type"] == "DelimiterRefused"
    assert second["error"]["component"] == "target"
    assert status == 2  # refused by the policy


async def test_cli_get_resolves_through_the_plugin(plugin_site: Path, finger: Any) -> None:
    status, out, err = await _omniurl(plugin_site, "get", f"x-finger://127.0.0.1:{finger.port}/bob")
    assert status == 0, err
    assert out == "Login: bob\t\t\tName: Bob Dobbs\r\nNo plan.\r\n"
    assert finger.queries == [b"bob\r\n"]
    # --json: the plugin's typed result as "metadata", with what the command wrote.
    status, out, err = await _omniurl(
        plugin_site, "get", "--json", f"x-finger://127.0.0.1:{finger.port}/bob;w"
    )
    assert status == 0, err
    answer = "Login: bob\t\t\tName: Bob Dobbs\r\nNo plan.\r\nVerbose: yes\r\n"
    assert json.loads(out)["metadata"] == {"target": "bob", "verbose": True, "bytes": len(answer)}


async def test_in_process_resolve_exact_query(registered: None, finger: Any) -> None:
    url = f"x-finger://127.0.0.1:{finger.port}/alice;w"
    from omniurl_xfinger.resolver import FingerResult

    async with await resolvers.resolve(url) as resource:
        assert resource.media_type == "text/plain"
        assert resource.result_as(FingerResult) == FingerResult(target="alice", verbose=True)
        assert (resource.status, resource.modified, resource.total) == (None, None, None)
        text = await resource.read()
    assert text.startswith(b"Login: alice") and text.endswith(b"Verbose: yes\r\n")
    assert finger.queries == [b"/W alice\r\n"]
    async with await resolvers.resolve(f"x-finger://127.0.0.1:{finger.port}/") as resource:
        assert resource.kind == "listing"
        users = [(e.name, e.kind, e.url) async for e in resource.aiter_entries()]
    base = f"x-finger://127.0.0.1:{finger.port}"
    assert users == [("alice", "user", f"{base}/alice"), ("bob", "user", f"{base}/bob")]
    assert finger.queries[-1] == b"\r\n"


async def test_refused_urls_send_nothing(registered: None, finger: Any) -> None:
    base = f"x-finger://127.0.0.1:{finger.port}"
    with pytest.raises(DelimiterRefused) as info:
        await resolvers.resolve(base + "/alice%0D%0Abob")
    assert info.value.component == "target"
    with pytest.raises(PlanError, match="forwarding") as info2:
        await resolvers.resolve(base + "/alice%40elsewhere.example")
    assert info2.value.component == "target"
    await asyncio.sleep(0.05)
    assert finger.queries == []


@pytest.mark.parametrize(
    ("text", "component"),
    [
        ("x-finger:alice", "authority"),
        ("x-finger://u@h/alice", "user"),
        ("x-finger://h:99999/alice", "port"),
        ("x-finger://h/a/b", "target"),
        ("x-finger://h/a%zz", "target"),
    ],
)
def test_parser_errors_name_the_component(registered: None, text: str, component: str) -> None:
    with pytest.raises(schemes.URLError) as info:
        schemes.parse(text)
    assert info.value.component == component


def test_url_round_trip(registered: None) -> None:
    url = schemes.parse("x-finger://[::1]:7979/j%20doe;w#frag")
    assert (url.hostname, url.port, url.target, url.whois) == ("::1", 7979, "j doe", True)  # type: ignore[attr-defined]
    assert str(url) == "x-finger://[::1]:7979/j%20doe;w#frag"
    assert schemes.parse(str(url)) == url


# -- every surface, with the plugin installed ------------------------------------------------


async def test_cli_flag_declared_by_the_spec(plugin_site: Path) -> None:
    """The spec's options declare ``--finger-verbose``: the CLI builds FingerOptions."""
    status, out, err = await _omniurl(
        plugin_site, "plan", "--finger-verbose", "x-finger://127.0.0.1:7979/alice"
    )
    assert status == 0, err
    assert json.loads(out)["steps"] == ["/W alice"]
    status, out, _err = await _omniurl(plugin_site, "get", "--help")
    assert "--finger-verbose" in out


async def test_cli_listing_and_remote_name(plugin_site: Path, finger: Any) -> None:
    url = f"x-finger://127.0.0.1:{finger.port}/"
    status, out, err = await _omniurl(plugin_site, "get", url)
    assert status == 0, err
    assert out.splitlines() == [
        f"user\talice\t{url}alice",
        f"user\tbob\t{url}bob",
    ]
    # -O: a user's answer is saved under the user's name, the list as a listing named by
    # index_name: users.HASH.tsv (docs/saving.md)
    status, _out, err = await _omniurl(plugin_site, "get", "-O", url + "bob")
    assert status == 0, err
    assert (plugin_site / "bob").read_bytes() == b"Login: bob\t\t\tName: Bob Dobbs\r\nNo plan.\r\n"
    status, _out, err = await _omniurl(plugin_site, "get", "-O", url)
    assert status == 0, err
    (saved,) = plugin_site.glob("users.*.tsv")
    assert saved.read_text().splitlines()[0] == f"user\talice\t{url}alice"


async def test_cli_batch_with_manifest(plugin_site: Path, finger: Any, tmp_path: Path) -> None:
    base = f"x-finger://127.0.0.1:{finger.port}"
    manifest, out_dir = tmp_path / "m.jsonl", tmp_path / "out"
    out_dir.mkdir()
    status, _out, err = await _omniurl(
        plugin_site, "get", "-Z", "--output-dir", str(out_dir), "--manifest", str(manifest),
        f"{base}/alice", f"{base}/bob", "x-finger://127.0.0.1:25/bob",
    )  # fmt: skip
    assert status == 2, err  # the refused one: the policy's port rule, nothing sent
    rows = sorted((json.loads(line) for line in manifest.read_text().splitlines()),
                  key=lambda r: r["index"])  # fmt: skip
    assert [(r["ok"], r["path"] and Path(r["path"]).name) for r in rows] == [
        (True, "alice"),
        (True, "bob"),
        (False, None),
    ]
    assert rows[2]["error_type"] == "PortRefused"
    assert (out_dir / "bob").read_bytes().startswith(b"Login: bob")
    assert sorted(finger.queries) == [b"alice\r\n", b"bob\r\n"]


async def test_async_client_and_fetch_many(registered: None, finger: Any) -> None:
    import omniurl

    base = f"x-finger://127.0.0.1:{finger.port}"
    async with omniurl.AsyncClient() as client:
        assert client.plan(f"{base}/alice;w").to_json()["steps"] == ["/W alice"]
        listing = await client.get(f"{base}/")
        assert [e.name for e in listing] == ["alice", "bob"]  # type: ignore[union-attr]
        results = [r async for r in client.fetch_many([f"{base}/alice", f"{base}/x%0Ay"])]
    by_index = {r.index: r for r in results}
    assert by_index[0].ok and by_index[0].bytes > 0
    assert by_index[1].error_type == "DelimiterRefused"


def test_urllib_install(registered: None, finger_thread: Any) -> None:
    finger = finger_thread
    import urllib.error
    import urllib.request

    from omniurl.integrations import urllib as ou

    assert "x-finger" in ou.schemes()
    previous = urllib.request._opener  # type: ignore[attr-defined]
    try:
        ou.install()
        with urllib.request.urlopen(f"x-finger://127.0.0.1:{finger.port}/bob", timeout=10) as r:
            assert r.read().startswith(b"Login: bob")
        with pytest.raises(urllib.error.URLError) as caught:
            urllib.request.urlopen("x-finger://127.0.0.1:25/bob", timeout=10)
        assert isinstance(caught.value.reason, PortRefused)
    finally:
        urllib.request.install_opener(previous)


def test_fsspec(registered: None, finger_thread: Any) -> None:
    finger = finger_thread
    fsspec = pytest.importorskip("fsspec", reason="the [fsspec] extra is not installed")
    from omniurl.integrations import fsspec as ofs

    assert "x-finger" in ofs.register(clobber=True)
    base = f"x-finger://127.0.0.1:{finger.port}"
    with fsspec.open(f"{base}/alice", "rb") as f:
        assert f.read().startswith(b"Login: alice")
    fs = fsspec.filesystem("x-finger")
    assert [i["title"] for i in fs.ls(f"{base}/")] == ["alice", "bob"]
    with pytest.raises(PortRefused):
        fs.cat_file("x-finger://127.0.0.1:25/bob")
    # the scheme's own options as storage_options
    from omniurl_xfinger.spec import FingerOptions

    verbose = fsspec.filesystem("x-finger", schemes=[FingerOptions(verbose=True)])
    assert verbose.cat_file(f"{base}/bob").endswith(b"Verbose: yes\r\n")
    assert finger.queries[-1] == b"/W bob\r\n"


def test_dask(registered: None, finger_thread: Any) -> None:
    finger = finger_thread
    pytest.importorskip("dask", reason="the [dask] extra is not installed")
    pytest.importorskip("pyarrow", reason="the [dask] extra is not installed")
    import dask

    from omniurl.integrations import dask as odask

    base = f"x-finger://127.0.0.1:{finger.port}"
    with dask.config.set(scheduler="sync"):
        rows = odask.fetch([f"{base}/alice", f"{base}/bob", "x-finger://127.0.0.1:25/x"]).compute()
    by_index = {r["index"]: r for r in rows}
    assert by_index[0]["ok"] and by_index[1]["ok"]
    assert by_index[2]["error_type"] == "PortRefused"


async def test_gateway_page(registered: None, finger: Any) -> None:
    for name in ("starlette", "uvicorn", "jinja2", "httpx"):
        pytest.importorskip(name, reason="the [gateway] extra is not installed")
    import httpx

    from omniurl.gateway.app import create_app
    from omniurl.gateway.config import GatewayConfig

    config = GatewayConfig(
        allow_hosts=frozenset({"127.0.0.1"}), allow_ports=frozenset({finger.port})
    )
    transport = httpx.ASGITransport(app=create_app(config))
    async with httpx.AsyncClient(transport=transport, base_url="http://gateway.test") as web:
        index = await web.get("/")
        assert "<code>x-finger:</code>" in index.text and "<code>gopher:</code>" in index.text
        base = f"x-finger://127.0.0.1:{finger.port}"
        page = await web.get(f"/{base}/")
        assert page.status_code == 200
        assert "[USER]" in page.text  # the spec's presentation: entry_marker
        assert f'href="/{base}/alice"' in page.text
        text = await web.get(f"/{base}/bob")
        assert text.status_code == 200 and "Bob Dobbs" in text.text
        refused = await web.get(f"/{base}/a%0D%0Ab")
        assert refused.status_code == 403 and "DelimiterRefused" in refused.text
        # the strict policy: a port not opened by the operator is refused, nothing sent
        other = await web.get("/x-finger://127.0.0.1:7/bob")
        assert other.status_code == 403 and "PortRefused" in other.text
    assert b"a\r\n" not in b"".join(finger.queries)


async def test_policy_refuses_port_and_address_with_nothing_sent(
    registered: None, finger: Any
) -> None:
    """The policy's port and address rules hold for a plugin's plans as for a built-in's:
    a refusal before any connection (the server counts none, receives no byte)."""
    from omniurl.resolvers import DEFAULT, STRICT, Options
    from omniurl.resolvers.errors import AddressRefused

    url = f"x-finger://127.0.0.1:{finger.port}/bob"
    blocked = Options(policy=DEFAULT.with_(blocked_ports=frozenset({finger.port})))
    with pytest.raises(PortRefused) as port:
        await resolvers.resolve(url, blocked)
    assert port.value.port == finger.port
    strict = Options(policy=STRICT.allowing_ports([finger.port]))
    with pytest.raises(AddressRefused):
        await resolvers.resolve(url, strict)
    await asyncio.sleep(0.05)
    assert (finger.connections, finger.queries) == (0, [])


# -- omniurl serve SCHEME: the test server the spec declares ----------------------------------


async def test_serve_starts_the_test_server_the_spec_declares(plugin_site: Path) -> None:
    """``omniurl serve x-finger``: the spec's ``test_server = "module:callable"``, started
    in the foreground like a built-in server, answering on the port it prints."""
    import re
    import signal

    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "omniurl", "serve", "x-finger",
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE, cwd=str(plugin_site), env=_env(plugin_site),
    )  # fmt: skip
    try:
        assert proc.stderr is not None
        line = await asyncio.wait_for(proc.stderr.readline(), 30)
        m = re.search(
            rb"^omniurl: x-finger server on tcp 127\.0\.0\.1:(\d+) "
            rb"\(omniurl_xfinger\.server:start\); Ctrl-C stops it$",
            line.rstrip(b"\n"),
        )
        assert m is not None, line
        status, out, err = await _omniurl(
            plugin_site, "get", f"x-finger://127.0.0.1:{int(m.group(1))}/bob"
        )
        assert (status, out) == (0, "Login: bob\t\t\tName: Bob Dobbs\r\nNo plan.\r\n"), err
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            await asyncio.wait_for(proc.wait(), 10)
        except TimeoutError:
            proc.kill()
            await proc.wait()
    assert proc.returncode == 0


async def test_testservers_start_a_scheme_by_name(registered: None, tmp_path: Path) -> None:
    from omniurl import testservers

    server = await testservers.start("x-finger", tmp_path)
    try:
        assert (server.name, server.host, server.transport) == ("x-finger", "127.0.0.1", "tcp")
        body = await resolvers.fetch(f"x-finger://{server.netloc}/alice")
        assert isinstance(body, bytes) and body.startswith(b"Login: alice")
    finally:
        await server.close()


async def test_serve_a_name_that_is_neither_a_server_nor_a_scheme(plugin_site: Path) -> None:
    status, _out, err = await _omniurl(plugin_site, "serve", "x-no-such-thing")
    assert status == 2
    assert err.startswith("omniurl serve: no test server named 'x-no-such-thing', and no scheme")
    assert err.count("\n") == 1  # one line, no traceback


async def test_listing_entries_of_an_ipv6_host_keep_its_brackets(registered: None) -> None:
    """Each user's URL is the listing's URL with the user as target, written by the URL
    class: ``x-finger://[::1]:P/alice``, not the socket's ``::1`` pasted into a URL."""
    from omniurl_xfinger.server import FingerServer

    try:
        server = await FingerServer().start("::1", 0)
    except OSError as exc:
        pytest.skip(f"no IPv6 loopback here: {exc}")
    try:
        listing = await resolvers.fetch(f"x-finger://[::1]:{server.port}/;w#top")
        assert [e.url for e in listing] == [  # type: ignore[union-attr]
            f"x-finger://[::1]:{server.port}/alice",
            f"x-finger://[::1]:{server.port}/bob",
        ]
        assert server.queries == [b"/W\r\n"]
    finally:
        await server.close()
