"""What only a ``get`` imports and runs at its start (issue 32: a 4 KiB get within 5× ``python
-c pass``), held one by one; the modules asyncio brings are tests/test_deferred.py's."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from helpers import gopher_ftp_http, modules_run

from omniurl import testservers
from omniurl.testservers import RunningServer

ROOT = Path(__file__).resolve().parent.parent


@pytest_asyncio.fixture
async def ftp(tmp_path: Path) -> AsyncIterator[RunningServer]:
    (tmp_path / "hello.txt").write_bytes(b"hello, world\r\n")
    (tmp_path / "README").write_bytes(b"no suffix\r\n")
    server = await testservers.start("ftp", tmp_path)
    try:
        yield server
    finally:
        await server.close()


async def test_an_ftp_file_without_a_suffix_guesses_no_media_type(
    ftp: RunningServer, tmp_path: Path
) -> None:
    """RFC 1738 §3.2.3's guess and the media type read a name's suffix; without one there is
    nothing to read, and mimetypes (urllib.parse, the system's mime.types) is not loaded."""
    out = tmp_path / "out"
    status, stdout, ran = await modules_run(
        "get", "--json", "-o", str(out), f"ftp://{ftp.netloc}/README"
    )
    assert status == 0 and out.read_bytes() == b"no suffix\r\n"
    assert json.loads(stdout)["media_type"] == "application/octet-stream"
    assert "omniurl.resolvers.ftp.executor" in ran  # (the control)
    assert not {"mimetypes", "urllib.parse"} & ran
    status, stdout, ran = await modules_run(
        "get", "--json", "-o", str(out), f"ftp://{ftp.netloc}/hello.txt"
    )
    assert status == 0 and out.read_bytes() == b"hello, world\n"  # (TYPE A: §3.2.3's guess)
    assert json.loads(stdout)["media_type"] == "text/plain"
    # mimetypes' answer, without importing it (urllib.parse, ipaddress) nor running its
    # init() over the whole of mime.types: resolvers/mimeguess.py, tests/test_mimeguess.py
    assert "omniurl.resolvers.mimeguess" in ran
    assert not {"mimetypes", "urllib.parse", "ipaddress"} & ran


async def test_an_ftp_media_type_is_guessed_only_when_read(
    ftp: RunningServer, tmp_path: Path
) -> None:
    """With ``;type=`` given (a ``-C N`` resume of ``;type=i`` too: REST in TYPE I), nothing
    needs §3.2.3's guess; the media type (the name's suffix, mimetypes) is guessed when
    ``--json``, ``-w %{content_type}`` or the Python API reads it, not before: a get to a
    file never loads mimetypes (urllib.parse, ipaddress, the system's mime.types)."""
    out = tmp_path / "out"
    url = f"ftp://{ftp.netloc}/hello.txt"
    status, _stdout, ran = await modules_run("get", "-o", str(out), url + ";type=i")
    assert status == 0 and out.read_bytes() == b"hello, world\r\n"
    assert "omniurl.resolvers.ftp.executor" in ran  # (the control)
    assert not {"mimetypes", "urllib.parse"} & ran
    out.write_bytes(b"hello")
    status, _stdout, ran = await modules_run("get", "-C", "5", "-o", str(out), url + ";type=i")
    assert status == 0 and out.read_bytes() == b"hello, world\r\n"
    assert "mimetypes" not in ran  # (urllib.parse is -C's own: pathlib imports it)
    # read, the same answer as before
    status, stdout, ran = await modules_run("get", "--json", "-o", str(out), url + ";type=i")
    assert status == 0 and json.loads(stdout)["media_type"] == "text/plain"
    assert "omniurl.resolvers.mimeguess" in ran
    status, stdout, _ran = await modules_run(
        "get", "-s", "-o", str(out), "-w", "%{content_type}", url + ";type=i"
    )
    assert (status, stdout) == (0, b"text/plain")


@pytest_asyncio.fixture
async def servers(tmp_path: Path) -> AsyncIterator[dict[str, RunningServer]]:
    (tmp_path / "hello.bin").write_bytes(bytes(range(256)) * 16)
    async with gopher_ftp_http(tmp_path) as started:
        yield started


@pytest.mark.parametrize(
    ("scheme", "path"), [("gopher", "/9/hello.bin"), ("ftp", "/hello.bin"), ("http", "/hello.bin")]
)
async def test_a_plain_get_to_a_file_reads_no_json_nor_ipaddress(
    servers: dict[str, RunningServer], scheme: str, path: str, tmp_path: Path
) -> None:
    """json is for ``--json``, ``-w %{json}`` and ``-C``'s sidecar (omniurl/partial.py):
    a plain get to a file runs none of it (its decoder's patterns: ~2 ms of the start)."""
    out = tmp_path / "out.bin"
    status, _stdout, ran = await modules_run(
        "get", "-o", str(out), f"{scheme}://{servers[scheme].netloc}{path}"
    )
    assert status == 0 and out.read_bytes() == bytes(range(256)) * 16
    assert f"omniurl.resolvers.{scheme}.executor" in ran and "omniurl.finished" in ran
    # nor -C's machinery: the complete file is renamed by omniurl/finished.py, not through
    # omniurl/partial.py (the part file and its sidecar) with resolvers/resume.py's outcomes,
    # whose import ran after the last byte (docs/speed.md, *The command's two ends*); FTP's
    # and HTTP's executors read those outcomes themselves
    assert "omniurl.partial" not in ran
    assert ("omniurl.resolvers.resume" in ran) == (scheme != "gopher")
    if scheme == "gopher":  # a binary item: no menu, text decoder or Gopher+ reply to read
        gopher = "omniurl.resolvers.gopher."
        unread = {f"{gopher}menu", f"{gopher}text", f"{gopher}gopherplus"}
        unread.add("omniurl.resolvers.lines")
        assert not unread & ran, sorted(unread & ran)
    assert not {"json", "json.decoder", "json.encoder"} & ran
    # nor re (its parser and compiler in Python, with copyreg: ~8.5 million instructions):
    # the URL's and the replies' patterns come from schemes/_sre_table.py through
    # _sre (schemes/precompiled.py), and no module of a get imports re for an annotation or
    # a flag (pip's console-script template imports re before run(): docs/speed.md)
    assert not {"re", "re._parser", "re._compiler", "copyreg"} & ran, sorted(
        {"re", "re._parser", "re._compiler", "copyreg"} & ran
    )
    # nor json's C string encoder (``_json``: cli/emit.py loads it for the first JSON
    # printed), nor a progress bar or a listing's saving rules (cli/output.py: a terminal's
    # stderr, a listing)
    assert not {"_json", "omniurl.cli.progress", "omniurl.saving"} & ran
    # nor argparse, gettext and locale: ``get -o FILE URL`` is read by cli/quick.py
    assert not {"argparse", "gettext", "locale"} & ran
    # nor ipaddress: the host is a dotted IPv4 address (net._is_ip_literal), and the default
    # policy checks no address (tests/test_net_literals.py); nor urllib.parse, which imports
    # it, nor mimetypes, which imports that: the FTP planner's guess from the name's suffix
    # (§3.2.3) is resolvers/mimeguess.py's
    assert not {"ipaddress", "urllib.parse", "mimetypes"} & ran
    assert ("omniurl.resolvers.mimeguess" in ran) == (scheme == "ftp")
    # nor a client's connection pool (the command's one URL has none), nor --compressed's
    # decoders (zlib)
    http = "omniurl.resolvers.http."
    assert not {f"{http}pool", "omniurl.resolvers.slots", f"{http}decoding", "zlib"} & ran


@pytest.mark.parametrize(("scheme", "path"), [("gopher", "/9/hello.bin"), ("http", "/hello.bin")])
async def test_a_get_into_dev_null_runs_no_batch_machinery(
    servers: dict[str, RunningServer], scheme: str, path: str
) -> None:
    """``get -o /dev/null URL`` (curl's way of timing a transfer) writes into the device
    through cli/fifo.py: not cli/inputs.py, whose ``omniurl.batch`` brought ``dataclasses``
    (with ``inspect``'s body), ``pathlib`` and ``hashlib`` into every such start."""
    status, stdout, ran = await modules_run(
        "get", "-o", "/dev/null", f"{scheme}://{servers[scheme].netloc}{path}"
    )
    assert (status, stdout) == (0, b"")
    assert "omniurl.cli.fifo" in ran  # (the positive control: written into the device)
    assert not {"omniurl.cli.inputs", "omniurl.batch", "dataclasses", "hashlib"} & ran


@pytest.mark.parametrize("manifest", [False, True])
async def test_a_batch_without_a_manifest_loads_no_hashes_nor_pathlib(
    servers: dict[str, RunningServer], tmp_path: Path, manifest: bool
) -> None:
    """``get -Z -i LIST --output-dir DIR``: no row's sha256 is shown without ``--manifest``,
    so OpenSSL's hashes (``hashlib``) are not loaded, and the folder is a string, not a
    ``pathlib.Path`` (with ``fnmatch`` and ``urllib.parse``: ~9 ms of a batch's start at
    load 6 with hashlib); ``pickle`` and ``base64`` are a new interpreter's worker's only.
    With a manifest, its sha256s need hashlib."""
    url = f"http://{servers['http'].netloc}/hello.bin"
    (tmp_path / "list").write_text(f"{url}\n{url}\n")
    (tmp_path / "out").mkdir()
    given = ["--manifest", str(tmp_path / "m")] if manifest else []
    status, stdout, ran = await modules_run(
        "get", "-s", "-Z", "-i", str(tmp_path / "list"), "--output-dir", str(tmp_path / "out"),
        *given,
    )  # fmt: skip
    assert (status, stdout) == (0, b"")
    assert sorted(os.listdir(tmp_path / "out")) == ["hello.1.bin", "hello.bin"]
    assert "omniurl.batch" in ran  # (the positive control: a batch ran)
    assert not {"pathlib", "fnmatch", "urllib.parse", "pickle", "base64"} & ran
    assert ("hashlib" in ran) == manifest


#: ``omniurl ARGS`` bare, reporting the modules loaded when its first ``connect()`` began (an
#: audit hook), then those of the whole run, on its last line of standard error.
CONNECT_PROBE = """\
import sys
before = set(sys.modules)
at_connect = []
def hook(event, args):
    if event == "socket.connect" and not at_connect:
        at_connect.append(sorted(m for m in sys.modules if m not in before))
sys.addaudithook(hook)
import atexit
def report():
    import json
    sys.stderr.write("\\n" + json.dumps(at_connect[0] if at_connect else None) + "\\n")
atexit.register(report)
sys.argv = ["omniurl", *sys.argv[1:]]
from omniurl.cli.main import run
run()
"""


@pytest.mark.parametrize(
    ("scheme", "path"), [("gopher", "/9/hello.bin"), ("ftp", "/hello.bin"), ("http", "/hello.bin")]
)
async def test_a_get_connects_before_its_body_and_the_core_are_imported(
    servers: dict[str, RunningServer], scheme: str, path: str, tmp_path: Path
) -> None:
    """The early connect (cli/early.py) waits only for what it needs: the URL parsed, the
    options, the registry, the scheme's planner and the policy.  The command's body
    (cli/get.py with cli/emit.py and cli/text.py), the library's front door
    (resolvers/core.py), ``contextvars`` and its extension, for HTTP and FTP ``-C``'s
    headers and outcomes, for Gopher the Gopher+ string's parser (the URL has none) are
    imported after it
    (docs/speed.md, *Connecting sooner*)."""
    import asyncio
    import subprocess
    import sys

    from helpers import bare_path

    out = tmp_path / "out.bin"
    done = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-S", "-c", CONNECT_PROBE, "get", "-o", str(out),
         f"{scheme}://{servers[scheme].netloc}{path}"],
        capture_output=True, timeout=60, cwd=ROOT, check=False, stdin=subprocess.DEVNULL,
        env={**os.environ, "HOME": str(ROOT), "PYTHONPATH": bare_path()},
    )  # fmt: skip
    assert done.returncode == 0 and out.read_bytes() == bytes(range(256)) * 16
    at_connect = set(json.loads(done.stderr.decode().rstrip("\n").rsplit("\n", 1)[-1]))
    # the early connect it is: the policy has run, asyncio and the executor have not
    assert "omniurl.resolvers.policy" in at_connect and "_socket" in at_connect
    assert f"omniurl.resolvers.{scheme}.planner" in at_connect
    assert not {"asyncio", f"omniurl.resolvers.{scheme}.executor"} & at_connect
    later = {"omniurl.cli.get", "omniurl.cli.emit", "omniurl.cli.text"}
    later.add("re")  # (nor later: a plain get imports no re at all)
    later |= {"omniurl.resolvers.core", "contextvars"}
    # nor the _contextvars extension (a shared library here) for the core's HOP_CARRY:
    # resolvers/hops.py, imported by the core and the HTTP executor
    later |= {"_contextvars", "omniurl.resolvers.hops"}
    if scheme in ("http", "ftp"):  # (-C's: the range headers, SIZE's and REST's outcomes)
        later |= {"omniurl.resolvers.http.ranges", "omniurl.resolvers.resume"}
    if scheme == "gopher":  # (a Gopher+ string's parser, for a URL without one)
        later |= {"omniurl.resolvers.gopher.gopherplus", "omniurl.resolvers.lines"}
    assert not later & at_connect, sorted(later & at_connect)
