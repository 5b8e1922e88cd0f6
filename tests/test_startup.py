"""Start-up: each command imports only what it needs, and still behaves as if it had it all.

The ``omniurl`` command's time includes the interpreter's start and every import (the
benchmarks' "whole command" ratios against curl).  Each check here runs the real command in a
fresh interpreter and lists the modules that appeared in ``sys.modules`` while it ran (those
the interpreter's own start-up had loaded are left out, so a site hook cannot fake a failure).
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import pytest_asyncio
from helpers import bare_path, gopher_ftp_http

from omniurl import cli, resolvers, testservers
from omniurl.resolvers import registry
from omniurl.resolvers.base import Resolver
from omniurl.resolvers.options import Options
from omniurl.resolvers.plan import Plan
from omniurl.resolvers.spec import SchemeSpec, flag
from omniurl.resolvers.telnet.settings import DEFAULT_LOGIN_PROMPT
from omniurl.schemes.base import URL
from omniurl.testservers import RunningServer, catalog
from omniurl.testservers import base as testservers_base

ROOT = Path(__file__).resolve().parent.parent

#: Third-party packages (and the stdlib's email) that only some schemes need.
HEAVY = ("httpx", "httpcore", "aioftp", "telnetlib3", "aiosmtplib", "aiosmtpd", "rich", "trio")
#: Resolver packages converted to the lazy pattern (resolvers/lazy.py).  prospero joins
#: them once its __init__ imports its planner and executor on first use.
LAZY_RESOLVERS = (
    "ftp",
    "http",
    "file",
    "gopher",
    "nntp",
    "telnet",
    "mailto",
    "wais",
    "prospero",
)


def _bench_common() -> ModuleType:
    """benchmarks/_common.py, loaded by path (benchmarks/ is not a package): its PROBE is the
    one the start-up benchmark runs, so the budgets here and its figures read the same."""
    path = Path(__file__).resolve().parent.parent / "benchmarks" / "_common.py"
    spec = importlib.util.spec_from_file_location("omniurl_bench_common", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PROBE: str = _bench_common().PROBE


#: :data:`PROBE` with the modules counted before the probe imports any (PROBE's ``json``
#: brings ``re``, which the count then leaves out).
PROBE_BEFORE_ANY = """\
import sys
before = set(sys.modules)
import atexit
def report():
    sys.stdout.flush()
    new = sorted(m for m in sys.modules if m not in before and sys.modules[m] is not None)
    import json
    sys.stderr.write("\\n" + json.dumps(new) + "\\n")
atexit.register(report)
sys.argv = ["omniurl", *sys.argv[1:]]
import runpy
runpy.run_module("omniurl", run_name="__main__", alter_sys=True)
"""


def run_probe(*args: str, code: str = PROBE, bare: bool = False) -> tuple[int, bytes, list[str]]:
    """(exit status, stdout, modules imported) of ``omniurl ARGS`` in a fresh interpreter;
    ``bare``: without ``site`` (``-S``, the site-packages directories on PYTHONPATH), so that
    no ``.pth`` hook of the installation has imported a module before the command runs."""
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env["PYTHONPATH"] = str(ROOT)
    env["HOME"] = str(ROOT)  # no ~/.netrc of the person running the tests
    flags = []
    if bare:
        env["PYTHONPATH"] = bare_path()
        flags = ["-S"]
    done = subprocess.run(
        [sys.executable, *flags, "-c", code, *args],
        capture_output=True,
        cwd=ROOT,
        env=env,
        timeout=60,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    last = done.stderr.decode().rstrip("\n").rsplit("\n", 1)[-1]
    return done.returncode, done.stdout, json.loads(last)


def top(modules: list[str]) -> set[str]:
    """Top-level names, with omniurl's subpackages named as ``resolvers``, ``schemes``, …"""
    return {m.removeprefix("omniurl.").split(".")[0] for m in modules}


def scheme_modules(modules: list[str], scheme: str) -> list[str]:
    """The modules of resolvers/<scheme>/ beyond its cheap ``__init__`` and ``settings``."""
    prefix = f"omniurl.resolvers.{scheme}."
    return [m for m in modules if m.startswith(prefix) and m != prefix + "settings"]


# -- the commands that never resolve -------------------------------------------------------


def test_parse_imports_no_resolver() -> None:
    status, out, modules = run_probe("parse", "http://a/")
    assert status == 0
    assert json.loads(out)["host"] == "a"
    assert "resolvers" not in top(modules)
    assert "asyncio" not in modules  # the resolvers' event loop
    assert "importlib.metadata" not in modules  # no entry-point scan for a built-in scheme
    assert not top(modules) & set(HEAVY)


@pytest.mark.parametrize(
    "url",
    ["ftp://h/pub/f.txt", "http://h/x", "gopher://h/1/", "nntp://h/g/1", "mailto:a@b.example",
     "telnet://h/", "wais://h/db", "prospero://h/x", "file:///etc/hosts"],
)  # fmt: skip
def test_plan_imports_no_event_loop_no_tls_and_no_executor(url: str) -> None:
    status, out, modules = run_probe("plan", url)
    assert status == 0, out
    assert "steps" in json.loads(out)
    assert not {"asyncio", "ssl", "httpx", "aioftp", "telnetlib3"} & top(modules)
    # every scheme's planner and options are schemes/records.py's records (issue 32 item 3)
    assert not {"dataclasses", "inspect"} & set(modules)
    assert not [m for m in modules if m.endswith(".executor") or ".sessions." in m]
    # only the chosen subcommand's module (cli/parser.py's _lazy; issue 32 item 3)
    assert not {"omniurl.cli.get", "omniurl.cli.servers"} & set(modules)
    # no other scheme's package either: its flags are data (resolvers/builtin.py's FLAGS)
    own = registry.BUILTIN_SCHEMES[url.partition(":")[0]]
    assert own in modules
    assert resolver_packages(modules) == {own}


@pytest.mark.parametrize(
    "args",
    [("parse", "http://a/b?c"), ("plan", "ftp://h/pub/f.txt"), ("plan", "http://h/x"),
     ("plan", "gopher://h/1/")],
)  # fmt: skip
def test_parse_and_plan_import_no_re(args: tuple[str, str]) -> None:
    """Bare (no site hook imports ``re`` first): the patterns are schemes/precompiled.py's,
    and the modules of these schemes name ``re`` for annotations only and import it where a
    pattern is compiled at run time (~6.4 million instructions; docs/speed.md, eighth
    round).  (pip's console-script template imports ``re`` before ``run()``: the
    command as pip installs it still loads ``re``, ~4 ms; see docs/speed.md.)"""
    status, out, modules = run_probe(*args, code=PROBE_BEFORE_ANY, bare=True)
    assert status == 0, out
    assert "omniurl.schemes.precompiled" in modules  # (the control)
    assert not {"re", "re._parser", "re._compiler"} & set(modules)


def resolver_packages(modules: list[str]) -> set[str]:
    """The built-in resolver packages among ``modules``."""
    return {m for m in modules if m in registry.BUILTIN_MODULES}


def test_a_flag_or_its_environment_variable_brings_its_schemes_options() -> None:
    """A scheme's options are built for the URLs' schemes, for a flag of its given, and
    while an environment variable its command line reads is set (NNTPSERVER)."""
    nntp = registry.BUILTIN_SCHEMES["news"]
    _status, _out, modules = run_probe("plan", "gopher://h/1/")
    assert nntp not in modules
    status, out, modules = run_probe("plan", "--nntp-max-articles", "3", "gopher://h/1/")
    assert status == 0, out
    assert resolver_packages(modules) == set(registry.BUILTIN_MODULES)  # all, as --help
    code = "import os; os.environ['NNTPSERVER'] = 'news.example'\n" + PROBE
    status, out, modules = run_probe("plan", "gopher://h/1/", code=code)
    assert status == 0, out
    assert nntp in modules
    status, out, _modules = run_probe("plan", "news:comp.x", code=code)
    assert json.loads(out)["host"] == "news.example"


@pytest.mark.parametrize(
    ("args", "expected"),
    [(("parse", "http://a/"), "host"), (("plan", "ftp://h/x"), "steps"),
     (("plan", "gopher://h/1/"), "steps")],
)  # fmt: skip
def test_parse_and_plan_import_no_tls_no_bundle_and_no_terminal_query(
    args: tuple[str, ...], expected: str
) -> None:
    """Checked without ``site``: a hook that imports ssl or certifi into every start (as some
    sandboxes' CA hooks do) would hide them from the other tests.  ``shutil`` (with bz2 and
    lzma) is what argparse imports to ask the terminal's width, needed only for help;
    mimetypes reads the system's tables, needed only to guess from a file name's suffix."""
    status, out, modules = run_probe(*args, bare=True)
    assert status == 0, out
    assert expected in json.loads(out)
    assert "omniurl.schemes" in modules  # the positive control: it did import omniurl
    assert not {"ssl", "certifi", "asyncio", "shutil", "mimetypes"} & top(modules)
    assert not top(modules) & set(HEAVY)
    # nor the typing machinery: the records are schemes/records.py's, not dataclasses (which
    # imports inspect, ast, dis and tokenize), and typing's names are the type checker's
    # only (issue 32 item 3; ~15-20 ms of CPU of each of these starts)
    assert not {"dataclasses", "inspect", "typing", "ast", "dis"} & set(modules)
    if args[0] == "parse":  # (the safety policy, which plan imports, classes addresses)
        assert "ipaddress" not in modules
    # join, normalize and extract on first use: ~3 ms CPU, 29% of schemes' import
    assert not {f"omniurl.schemes.{m}" for m in ("join", "normalize", "extract")} & set(modules)


def test_schemes_functions_stay_functions_however_their_modules_are_imported() -> None:
    """``schemes.join`` (and normalize, equivalent, extract, Found) are imported on first use
    from modules of the same name; importing such a module first must not make the
    package's name the module (schemes/__init__.py's _Package)."""
    code = (
        "import sys, json; import omniurl.schemes.join, omniurl.schemes.normalize\n"
        "from omniurl.schemes.extract import extract as direct\n"
        "from omniurl import schemes\n"
        "print(json.dumps([schemes.join('http://a/b/c', '../d'), callable(schemes.normalize),"
        " schemes.extract is direct, schemes.Found.__module__, callable(schemes.equivalent),"
        " type(sys.modules['omniurl.schemes']).__name__]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True,
    )  # fmt: skip
    assert json.loads(done.stdout) == [
        "http://a/d",
        True,
        True,
        "omniurl.schemes.extract",
        True,
        "_Package",
    ]


def test_help_is_complete_and_imports_no_server_and_no_resolver() -> None:
    status, out, modules = run_probe("--help")
    assert status == 0
    text = out.decode()
    for command in ("parse", "join", "extract", "plan", "get", "serve", "demo"):
        assert f"    {command} " in text
    # serve's one-line help lists every server (from testservers' table, no server imported)
    names = sorted([*testservers.known(), "gateway"])  # (the gateway is not a test server)
    servers = "run a local test server (" + ", ".join(names) + ")"
    assert servers in " ".join(text.split())
    assert "resolvers" not in top(modules)
    assert [m for m in modules if m.startswith("omniurl.testservers")] == [
        "omniurl.testservers",
        "omniurl.testservers.catalog",
    ]
    assert "asyncio" not in modules
    assert not top(modules) & set(HEAVY)


def test_build_parser_imports_nothing_heavy() -> None:
    code = (
        "import sys, json, omniurl.cli as c; before = set(sys.modules); c.build_parser(); "
        "import sys; sys.stderr.write(json.dumps(sorted(set(sys.modules) - before)))"
    )
    _status, _out, modules = run_probe(code=code)
    assert not top(modules) & {*HEAVY, "resolvers"}


def test_get_help_lists_every_resolvers_options_but_imports_no_planner() -> None:
    status, out, modules = run_probe("get", "--help")
    assert status == 0
    text = out.decode()
    for option in (
        "--strict",  # ours
        "--nntp-server",  # news/nntp
        "--login-prompt",  # telnet
        "--smtp",  # mailto
        "--wais-max-docs",  # wais
        "--access-methods",  # prospero
    ):
        assert option in text
    assert f"(default {DEFAULT_LOGIN_PROMPT!r})" in " ".join(text.split())
    for scheme in LAZY_RESOLVERS:
        assert scheme_modules(modules, scheme) == [], scheme
    assert not top(modules) & set(HEAVY)


# -- get: only the scheme's own planner and executor ----------------------------------------


@pytest_asyncio.fixture
async def local_servers(tmp_path: Path) -> AsyncIterator[dict[str, RunningServer]]:
    (tmp_path / "hello.txt").write_bytes(b"hello, world\r\n")
    async with gopher_ftp_http(tmp_path) as started:
        yield started


@pytest.mark.parametrize(
    ("scheme", "path", "needs"),
    [
        ("gopher", "/0/hello.txt", set()),
        ("ftp", "/hello.txt", set()),
        ("http", "/hello.txt", set()),
    ],
)
async def test_get_imports_only_its_schemes_resolver(
    local_servers: dict[str, RunningServer], scheme: str, path: str, needs: set[str]
) -> None:
    import asyncio

    url = f"{scheme}://{local_servers[scheme].netloc}{path}"
    # bare (no site hook that has imported pathlib, ssl... before the command runs)
    status, out, modules = await asyncio.to_thread(run_probe, "get", url, bare=True)
    assert status == 0
    assert out.replace(b"\r\n", b"\n") == b"hello, world\n"
    assert scheme_modules(modules, scheme)  # the positive control: its own executor
    assert f"omniurl.resolvers.{scheme}.executor" in modules
    for other in LAZY_RESOLVERS:
        if other != scheme:
            assert scheme_modules(modules, other) == [], other
    assert top(modules) & set(HEAVY) == needs
    # httpx's own command line (click, rich, pygments) and trio are not imported at all
    assert "httpx._main" not in modules
    assert "importlib.metadata" not in modules
    assert "email" not in top(modules)  # (httpx imports urllib.request, and with it email)
    # No other scheme's package (its flags are data), no batch machinery for one URL, no
    # ctypes for a small file (memory.bulk), tempfile/shutil (output.make_part) or netrc
    # without a ~/.netrc.  Each was 1-6 ms CPU of the command (README, Start-up).
    assert resolver_packages(modules) == {registry.BUILTIN_SCHEMES[scheme]}
    assert not {"omniurl.cli.batch", "omniurl.batch", "omniurl.cli.inputs"} & set(modules)
    assert not {"ctypes", "tempfile", "shutil", "netrc", "hashlib"} & set(modules)
    # nor -w's record (cli.writeout) without -w, nor pathlib (the output's paths are
    # strings: cli/output.py's shown())
    assert not {"omniurl.cli.writeout", "omniurl.resolvers.trace", "pathlib"} & set(modules)
    # nor dataclasses (with inspect's ast, dis, tokenize): the get path's records are
    # schemes/records.py's; nor urllib.parse (with ipaddress) nor mimetypes, even where
    # §3.2.3's type is guessed from the name (ftp: resolvers/mimeguess.py)
    assert "dataclasses" not in modules
    assert not {"urllib.parse", "ipaddress", "mimetypes"} & set(modules)
    # nor a listing's readers (ftp.listing, datetime) for a file
    assert not {"datetime", "omniurl.resolvers.ftp.listing"} & set(modules)
    # nor OpenSSL: asyncio imported without ssl, loaded on a TLS connection's first use
    assert "ssl" not in modules and "omniurl.sslimport" in modules


async def test_get_loads_openssl_only_when_a_connection_speaks_tls(
    tmp_path: Path, pki: tuple[Any, str]
) -> None:
    """The ``omniurl`` command imports asyncio without ssl (omniurl/sslimport.py): a plain
    get never loads it (the get test above), and TLS still works when it is used — from the
    first byte (gophers:, asyncio's create_connection), upgraded in place (NNTP's STARTTLS,
    asyncio's start_tls), and a refused certificate is still the typed error."""
    import asyncio

    context, ca = pki
    (tmp_path / "hello.txt").write_bytes(b"hello over TLS\r\n")
    gophers = await testservers.start("gopher", tmp_path, tls=context)
    nntp = await testservers.start("nntp", tmp_path, tls=context)
    try:
        url = f"gophers://{gophers.netloc}/0/hello.txt"
        status, out, modules = await asyncio.to_thread(run_probe, "get", "--cacert", ca, url)
        assert (status, out.replace(b"\r\n", b"\n")) == (0, b"hello over TLS\n")
        assert "ssl" in modules and "omniurl.sslimport" in modules
        news = f"news://{nntp.netloc}/omniurl.test"
        args = ("get", "--cacert", ca, "--nntp-starttls", "require", news)
        status, out, _modules = await asyncio.to_thread(run_probe, *args)
        assert status == 0 and f"nntp://{nntp.netloc}/omniurl.test/".encode() in out
        assert b"<TLS started>" in list(nntp.info["log"])
        env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(ROOT)}
        done = await asyncio.to_thread(
            subprocess.run, [sys.executable, "-m", "omniurl", "get", url],  # no --cacert
            capture_output=True, cwd=ROOT, env=env, timeout=60, check=False,
            stdin=subprocess.DEVNULL,
        )  # fmt: skip
        assert (done.returncode, done.stdout) == (4, b"")  # a transport error, nothing out
        assert b"TLS certificate verification failed for 127.0.0.1:" in done.stderr
    finally:
        await gophers.close()
        await nntp.close()


def test_ssl_deferral_gives_asyncio_the_module_on_first_import() -> None:
    """In a fresh interpreter: asyncio imported without ssl, then the first ``import ssl``
    (anyone's) hands it to asyncio's modules before the import returns."""
    code = (
        "import sys, json; from omniurl.sslimport import defer_ssl, ASYNCIO_SSL_MODULES\n"
        "done = defer_ssl(); before = 'ssl' in sys.modules\n"
        "held = [sys.modules[m].ssl for m in ASYNCIO_SSL_MODULES]\n"
        "import ssl, asyncio.sslproto as p\n"
        "after = [sys.modules[m].ssl is ssl for m in ASYNCIO_SSL_MODULES]\n"
        "again = defer_ssl()\n"
        "print(json.dumps([done, before, held, after, again,"
        " p.SSLAgainErrors == (ssl.SSLWantReadError, ssl.SSLSyscallError)]))"
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", code], capture_output=True, text=True, timeout=60,
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True,
    )  # fmt: skip
    assert json.loads(done.stdout) == [True, False, [None, None, None], [True] * 3, False, True]


def _pythons() -> list[str]:
    """This interpreter, and each other one of the Pythons :mod:`omniurl.sslimport` was
    checked against that is installed here (``python3.12``, ``python3.13``)."""
    import shutil

    from omniurl.sslimport import CHECKED

    found = [sys.executable]
    for version in CHECKED:
        if version == sys.version_info[:2]:
            continue
        name = f"python{version[0]}.{version[1]}"
        # (pyenv's shims are on PATH for every version but run only the selected ones)
        pyenv = Path.home() / ".pyenv" / "versions"
        candidates = [
            shutil.which(name),
            *sorted(pyenv.glob(f"{version[0]}.{version[1]}.*/bin/python")),
        ]
        for other in candidates:
            if other is not None and _runs(str(other)):
                found.append(str(other))
                break
    return found


def _runs(python: str) -> bool:
    try:
        done = subprocess.run([python, "-c", "pass"], capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


@pytest.mark.parametrize("python", _pythons())
def test_a_probe_for_ssl_before_its_import_still_gives_asyncio_the_module(python: str) -> None:
    """``importlib.util.find_spec("ssl")`` (a program asking whether TLS is there) before
    the first ``import ssl``: the import that follows still hands the module to asyncio's
    modules.  Before, the finder stepped aside on the probe, and every TLS connection
    raised asyncio's "stdlib ssl module not available"."""
    code = (
        "import sys, json, importlib.util\n"
        "from omniurl.sslimport import defer_ssl, ASYNCIO_SSL_MODULES\n"
        "done = defer_ssl(); found = importlib.util.find_spec('ssl') is not None\n"
        "import ssl\n"
        "print(json.dumps([sys.version_info[:2], done, found,"
        " [sys.modules[m].ssl is ssl for m in ASYNCIO_SSL_MODULES]]))"
    )
    done = subprocess.run(
        [python, "-S", "-c", code], capture_output=True, text=True, timeout=60,
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False,
    )  # fmt: skip
    if done.returncode != 0 and "ModuleNotFoundError" in done.stderr:
        pytest.skip(f"{python} cannot import omniurl's pure modules: {done.stderr[-200:]}")
    assert done.returncode == 0, done.stderr
    version, deferred, found, given = json.loads(done.stdout)
    assert (deferred, found, given) == (True, True, [True] * 3), version


# -- the registries ------------------------------------------------------------------------


def test_registry_get_imports_only_that_scheme() -> None:
    code = (
        "import sys, json; from omniurl import resolvers; before = set(sys.modules); "
        "resolvers.registry.get('gopher'); resolvers.registry.get('news'); "
        "sys.stderr.write(json.dumps(sorted(set(sys.modules) - before)))"
    )
    _status, _out, modules = run_probe(code=code)
    assert "omniurl.resolvers.gopher" in modules and "omniurl.resolvers.nntp" in modules
    assert not [
        m for m in modules if m.startswith(("omniurl.resolvers.ftp", "omniurl.resolvers.http"))
    ]
    assert "importlib.metadata" not in modules


def test_known_servers_match_what_each_module_registers() -> None:
    """The catalog repeats each server's help so that listing them imports none: the text
    must be what the module itself registers, and no built-in server may be missing."""
    for name, (module, help_text) in catalog.BUILTIN_SERVERS.items():
        __import__(module)
        assert testservers_base._servers[name].help == help_text, name
    modules = {module for module, _help in catalog.BUILTIN_SERVERS.values()}
    assert modules == set(testservers_base.BUILTIN_MODULES)
    assert testservers.known() == catalog.builtin()


def test_lazy_reexports_still_work() -> None:
    from omniurl.resolvers.ftp import FTPSessions, execute_ftp, plan_ftp
    from omniurl.resolvers.mailto import build, split_addresses
    from omniurl.resolvers.telnet import ScriptStep, TelnetSession, parse_script
    from omniurl.resolvers.wais import tags

    assert FTPSessions.__module__ == "omniurl.resolvers.ftp.sessions"
    assert execute_ftp.__module__ == "omniurl.resolvers.ftp.executor"
    assert plan_ftp.__module__ == "omniurl.resolvers.ftp.planner"
    assert split_addresses("a@b, c@d") == ["a@b", "c@d"]
    assert callable(build)
    assert parse_script("send x") == (ScriptStep("send", "x"),)
    assert TelnetSession.__module__ == "omniurl.resolvers.telnet.session"
    assert tags.__name__ == "omniurl.resolvers.wais.tags"
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        resolvers.telnet.nothing  # noqa: B018
    for package in (resolvers.ftp, resolvers.mailto, resolvers.telnet):
        for name in package.__all__:
            assert getattr(package, name) is not None


def test_omniurl_package_names_come_from_resolvers_on_first_use() -> None:
    import omniurl

    assert omniurl.Options is Options
    assert omniurl.resolve is resolvers.resolve
    assert omniurl.STRICT is resolvers.STRICT
    with pytest.raises(AttributeError):
        omniurl.nothing  # noqa: B018


def test_in_process_main_leaves_optional_imports_alone() -> None:
    """``main([...])`` inside another program must not hide trio or httpx's CLI from it."""
    assert cli.main(["parse", "http://a/"]) == 0
    assert sys.modules.get("trio", 0) is not None
    assert sys.modules.get("httpx._main", 0) is not None


# -- plugins' options: read only when they can matter --------------------------------------


class XStartupResolver(Resolver):
    """A plugin resolver, found through a (fake) entry point with its spec."""

    def plan(self, url: URL, options: Options) -> Plan:
        raise NotImplementedError


@dataclass(frozen=True)
class XStartupOptions:
    """The plugin's typed options: one flag."""

    level: int = flag("--x-startup-level", default=7, type=int, metavar="N", help="a level")


X_SPEC = SchemeSpec(names=("x-startup",), resolver=XStartupResolver, options=XStartupOptions)


class FakeEntryPoint:
    name = "x-startup"
    value = "tests:X_SPEC"

    def load(self) -> SchemeSpec:
        return X_SPEC


@pytest.fixture
def plugin(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """A fresh spec registry whose ``omniurl.specs`` entry points hold X_SPEC; yields the
    list of entry-point groups read."""
    reads: list[str] = []

    def entry_points(*, group: str) -> list[FakeEntryPoint]:
        reads.append(group)
        return [FakeEntryPoint()] if group == registry.ENTRY_POINT_GROUP else []

    saved = dict(registry._specs)
    monkeypatch.setattr(registry, "entry_points", entry_points)
    monkeypatch.setattr(registry, "_loaded", False)
    registry._specs.pop("x-startup", None)
    try:
        yield reads
    finally:
        # Keep the built-ins the test imported (a module imports once: it would never
        # register again), drop the plugin.
        imported = {k: v for k, v in registry._specs.items() if k != "x-startup"}
        registry._specs.clear()
        registry._specs.update(imported)
        registry._specs.update(saved)


GROUPS = [registry.ENTRY_POINT_GROUP, registry.LEGACY_GROUP]


def test_a_builtin_scheme_reads_no_entry_point(plugin: list[str]) -> None:
    args = cli.build_parser().parse_args(["get", "--timeout", "3", "gopher://h/"])
    assert plugin == []
    assert not hasattr(args, "x_startup_level")
    assert X_SPEC not in args.scheme_specs
    options = cli.options_from_args(args)
    assert XStartupOptions not in options.schemes
    assert plugin == []


def test_a_plugins_option_is_accepted(plugin: list[str]) -> None:
    args = cli.build_parser().parse_args(["get", "--x-startup-level", "3", "gopher://h/"])
    assert plugin == GROUPS
    assert (args.urls, args.timeout) == (["gopher://h/"], 30.0)
    assert cli.options_from_args(args).of(XStartupOptions).level == 3


def test_a_plugins_scheme_gets_the_plugins_defaults(plugin: list[str]) -> None:
    args = cli.build_parser().parse_args(["plan", "gopher://h/", "X-Startup:abc"])
    assert plugin == GROUPS
    assert cli.options_from_args(args).of(XStartupOptions).level == 7


def test_help_and_errors_show_the_plugins_options(
    plugin: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.build_parser().parse_args(["get", "--help"])
    assert exc.value.code == 0
    assert "--x-startup-level N" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exc:
        cli.build_parser().parse_args(["get", "--no-such-option", "gopher://h/"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--no-such-option is not an option of omniurl get" in err
    with pytest.raises(SystemExit) as exc:
        # the usage of an error is complete too
        cli.build_parser().parse_args(["get", "--parallel-max", "many", "gopher://h/"])
    assert "[--x-startup-level N]" in capsys.readouterr().err


# -- the budgets, measured as a user meets them (issue 32 items 1 and 3) ---------------------
#
# In a fresh venv holding ``pip install .`` of this checkout (benchmarks/_venv.py: built once
# per state of the sources, ~1-2 min, then reused), each command run as a user runs it (the
# console script pip wrote), beside that venv's ``python -c pass``: interleaved, CPU time
# (user + system, from wait4: a busy machine moves it far less than the wall clock), the
# median of a few rounds.  The goals (issue 32) are plan <= 3x and a 4 KiB get <= 5x; the
# budgets below hold the line ~40% above where the commands stand now (parse 2.05x, plan ftp
# 2.50x, plan gopher 2.52x, plan ftp name 2.68x: this test at 02:48 UTC 2026-11-29, load
# 6.6, after schemes/_code_table.py, budgets 3.0x / 3.6x; 2.12x / 2.73x / 2.63x / 2.81x at
# 23:24 UTC 2026-11-28, load 4.8, after schemes/precompiled.py and resolvers/mimeguess.py,
# budgets 3.0x / 3.8x; 2.11x / 2.77x / 2.73x at
# 20:22 UTC, load ~6, after cli/quick.py, cli/emit.dumps and the patterns compiled on first
# use, budgets 3.1x / 4.0x / 4.0x; 3.1x / 4.0x / 3.6x at 17:36 UTC;
# 4.9-5.1x / 7.2-7.6x at 15:07 UTC; docs/speed.md has the figures), so that no change makes
# a start slower unnoticed; tighten them as imports are cut.  (~20% was too tight: with a
# second pytest run beside it, plan ftp measured 9.1x against a 9.0x budget, 15:44 UTC.)

#: (arguments, budget: CPU ratio to ``python -c pass``)
BUDGETS: dict[str, tuple[list[str], float]] = {
    "parse": (["parse", "http://a/b?c"], 3.0),
    "plan ftp": (["plan", "ftp://h/x"], 3.6),
    "plan gopher": (["plan", "gopher://h/1/"], 3.6),
    # §3.2.3's guess from the name's suffix: mimetypes' answer without mimetypes' init()
    # (resolvers/mimeguess.py; it was ~30 million more instructions than ftp://h/x's plan)
    "plan ftp name": (["plan", "ftp://h/pub/f.txt"], 3.6),
}
#: Modules the fresh venv's ``plan`` and ``parse`` must not import: each cost its share of a
#: start and none is used by them (a site hook cannot hide one here: the venv has none).
NOT_AT_START = (
    "asyncio", "ssl", "importlib.metadata", "email", "shutil", "socket", "ipaddress",
    "dataclasses", "inspect", "typing",
    # argparse with gettext and locale (cli/quick.py reads an option-less command line),
    # json (cli/emit.dumps): ~6 ms of the commands' ~30 (2026-11-28)
    "argparse", "gettext", "locale", "json",
    # mimetypes (with urllib.parse and ipaddress) for an FTP name's §3.2.3 guess
    "mimetypes", "urllib.parse",
)  # fmt: skip


def _bench_venv() -> ModuleType:
    path = ROOT / "benchmarks" / "_venv.py"
    spec = importlib.util.spec_from_file_location("omniurl_bench_venv", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def fresh_venv() -> Path:
    """The interpreter of the fresh venv (built now if the sources changed); skipped, with
    pip's reason, where no venv can be built (no network for the dependencies, no venv
    module)."""
    try:
        return Path(_bench_venv().venv_python(timeout=600))
    except (RuntimeError, OSError) as exc:
        pytest.skip(f"no fresh venv for the start-up budgets: {exc}")


def _installed_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    for name in ("PYTHONPATH", "PYTHONHOME", "PYTHONDONTWRITEBYTECODE"):
        env.pop(name, None)
    env["HOME"] = str(ROOT)  # no ~/.netrc of the person running the tests
    return env


def _cpu(argv: list[str], cwd: Path, env: dict[str, str]) -> float:
    """CPU seconds (user + system) of one run of ``argv``, which must succeed."""
    proc = subprocess.Popen(
        argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        _pid, status, usage = os.wait4(proc.pid, 0)
    except BaseException:
        proc.kill()
        raise
    proc.returncode = os.waitstatus_to_exitcode(status)  # (reaped: Popen must not wait again)
    assert proc.returncode == 0, argv
    return usage.ru_utime + usage.ru_stime


@pytest.mark.timeout(900)
def test_plan_and_parse_import_nothing_they_do_not_use_in_a_fresh_venv(
    fresh_venv: Path, tmp_path: Path
) -> None:
    where = subprocess.run(
        [str(fresh_venv), "-c", "import omniurl; print(omniurl.__file__)"], capture_output=True,
        cwd=tmp_path, env=_installed_env(), timeout=60, check=True, text=True,
    )  # fmt: skip
    assert Path(where.stdout.strip()).is_relative_to(fresh_venv.parent.parent)  # the wheel's
    for args, _budget in BUDGETS.values():
        done = subprocess.run(
            [str(fresh_venv), "-c", PROBE, *args], capture_output=True, cwd=tmp_path,
            env=_installed_env(), timeout=60, check=False, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        modules = json.loads(done.stderr.decode().rstrip("\n").rsplit("\n", 1)[-1])
        assert not set(NOT_AT_START) & set(modules), args
        assert not top(modules) & set(HEAVY), args


#: ``omniurl get -o FILE`` of 4 KiB from omniurl's own server on loopback (the fresh venv's
#: ``omniurl serve``), by scheme: the budget, a CPU ratio to ``python -c pass``, ~35-40%
#: above what this test measured at 02:47 UTC 2026-11-29, load 6.6 (http 4.44-4.55x, ftp
#: 4.73-4.84x, gopher 4.31-4.41x, two runs, with no typing, contextlib, fcntl or five of
#: asyncio's modules in a get's start: budgets were 7.0x / 7.0x / 6.5x; at 23:23 UTC
#: 2026-11-28, load 4.8: http 4.98x, ftp 5.12x,
#: gopher 4.72x, after resolvers/mimeguess.py and schemes/precompiled.py; at 20:09-20:17
#: UTC, load 3.5-4.7: 5.1-6.2x, 6.0-7.1x, 5.9-6.0x, budgets 8.5x / 9.5x / 8.5x;
#: docs/speed.md, *Start-up*).  Issue 32's goal is 5x: tighten them as imports leave.
GET_BUDGETS: dict[str, float] = {"http": 6.2, "ftp": 6.6, "gopher": 6.0}


@pytest.mark.timeout(900)
def test_get_budgets_in_a_fresh_venv(fresh_venv: Path, tmp_path: Path) -> None:
    bench = _bench_common()
    script = fresh_venv.parent / "omniurl"
    root = tmp_path / "srv"
    root.mkdir()
    (root / "small.bin").write_bytes(bytes(range(256)) * 16)
    env = _installed_env()
    ports = {scheme: bench.free_port() for scheme in GET_BUDGETS}
    paths = {"http": "/small.bin", "ftp": "/small.bin", "gopher": "/9/small.bin"}
    out = tmp_path / "out.bin"
    commands = {"python -c pass": [str(fresh_venv), "-c", "pass"]}
    commands |= {
        scheme: [str(script), "get", "-o", str(out), f"{scheme}://127.0.0.1:{port}{paths[scheme]}"]
        for scheme, port in ports.items()
    }
    with contextlib.ExitStack() as servers:
        for scheme, port in ports.items():
            argv = [str(script), "serve", scheme, "--root", str(root), "--port", str(port)]
            servers.enter_context(bench.serving(argv, port, env))
        for argv in commands.values():
            out.unlink(missing_ok=True)
            _cpu(argv, tmp_path, env)  # warm-up (and the check that each get works)
            assert argv[0] == str(fresh_venv) or out.read_bytes() == bytes(range(256)) * 16
        cpu: dict[str, list[float]] = {name: [] for name in commands}
        names = list(commands)
        for r in range(9):
            for k in range(len(names)):
                name = names[(r + k) % len(names)]
                cpu[name].append(_cpu(commands[name], tmp_path, env))
    base = sorted(cpu["python -c pass"])[4]  # (medians of 9)
    ratios = {name: sorted(cpu[name])[4] / base for name in GET_BUDGETS}
    over = {n: round(x, 2) for n, x in ratios.items() if x > GET_BUDGETS[n]}
    assert not over, f"get's CPU over budget (x python -c pass): {over}; all: {ratios}"
    print({n: round(x, 2) for n, x in ratios.items()})


@pytest.mark.timeout(900)
def test_start_up_budgets_in_a_fresh_venv(fresh_venv: Path, tmp_path: Path) -> None:
    script = fresh_venv.parent / "omniurl"
    assert script.exists()
    env = _installed_env()
    commands = {"python -c pass": [str(fresh_venv), "-c", "pass"]}
    commands |= {name: [str(script), *args] for name, (args, _b) in BUDGETS.items()}
    for argv in commands.values():
        _cpu(argv, tmp_path, env)  # warm-up: the page cache, as a user's second run
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    names = list(commands)
    for r in range(9):
        for k in range(len(names)):
            name = names[(r + k) % len(names)]
            cpu[name].append(_cpu(commands[name], tmp_path, env))
    base = sorted(cpu["python -c pass"])[4]  # (medians of 9)
    ratios = {name: sorted(cpu[name])[4] / base for name in BUDGETS}
    over = {n: round(x, 2) for n, x in ratios.items() if x > BUDGETS[n][1]}
    assert not over, f"CPU over budget (x python -c pass): {over}; all: {ratios}"
    print({n: round(x, 2) for n, x in ratios.items()})
