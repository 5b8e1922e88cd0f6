"""The plugin example: install examples/omniurl-x-finger, then use x-finger: like a built-in.

The package is installed with pip into a temporary directory (``--target``, no network, no
build isolation), and that directory is put on the path: the ``omniurl.schemes`` and
``omniurl.resolvers`` entry points are then all that connects it to omniurl.
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
from omniurl.resolvers.errors import DelimiterRefused, PlanError

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
    """In this process the registries may have loaded already: register through the public
    API (what the entry points do on first use in a fresh process)."""
    from omniurl_xfinger.resolver import FingerResolver
    from omniurl_xfinger.url import FingerURL

    schemes.register("x-finger", FingerURL)
    resolvers.register("x-finger")(FingerResolver)


@pytest.fixture
async def finger(plugin_site: Path) -> Any:
    from omniurl_xfinger.server import FingerServer

    server = await FingerServer().start()
    yield server
    await server.close()


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
        ("omniurl.schemes", "x-finger", "omniurl_xfinger.url:FingerURL"),
        ("omniurl.resolvers", "x-finger", "omniurl_xfinger.resolver:FingerResolver"),
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


async def test_in_process_resolve_exact_query(registered: None, finger: Any) -> None:
    url = f"x-finger://127.0.0.1:{finger.port}/alice;w"
    async with await resolvers.resolve(url) as resource:
        assert resource.media_type == "text/plain"
        text = await resource.read()
    assert text.startswith(b"Login: alice") and text.endswith(b"Verbose: yes\r\n")
    assert finger.queries == [b"/W alice\r\n"]
    async with await resolvers.resolve(f"x-finger://127.0.0.1:{finger.port}/") as resource:
        assert await resource.read() == b"alice\r\nbob\r\n"
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
