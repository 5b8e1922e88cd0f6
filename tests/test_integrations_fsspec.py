"""The fsspec filesystem end to end against the local Gopher server (port 0, loopback)."""

from __future__ import annotations

import asyncio
import threading
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

fsspec = pytest.importorskip("fsspec", reason="the [fsspec] extra is not installed")

from omniurl import testservers  # noqa: E402
from omniurl.integrations.fsspec import PROTOCOLS, OmniurlFileSystem  # noqa: E402
from omniurl.resolvers.errors import PortRefused  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BIG = bytes(range(256)) * 4096  # 1 MiB
#: What a type-0 (text) item of a.csv brings: the server sends CR LF lines (RFC 1436 §3.8).
CSV = b"x,y\r\n1,2\r\n3,4\r\n"


@pytest.fixture(scope="module")
def gopher(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Gopher server on its own loop in a thread (fsspec runs its own loop too)."""
    root = tmp_path_factory.mktemp("gopher")
    (root / "pub").mkdir()
    (root / "pub" / "a.csv").write_text("x,y\n1,2\n3,4\n")
    (root / "pub" / "big.bin").write_bytes(BIG)
    (root / "pub" / "a::b.txt").write_text("colons\n")
    (root / "pub" / "q?.txt").write_text("question\n")
    (root / "pub" / "star*.txt").write_text("star\n")
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    server: Any = asyncio.run_coroutine_threadsafe(testservers.start("gopher", root), loop).result(
        10
    )
    yield f"gopher://127.0.0.1:{server.port}"
    asyncio.run_coroutine_threadsafe(server.close(), loop).result(10)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(10)
    loop.close()


@pytest.fixture(autouse=True)
def registered() -> None:
    # The shared editable install may predate the entry points; register as they would.
    for name in PROTOCOLS:
        fsspec.register_implementation(name, OmniurlFileSystem, clobber=True)
    fsspec.AbstractFileSystem.clear_instance_cache()


def test_entry_points_register_only_protocols_fsspec_lacks() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    specs = project["project"]["entry-points"]["fsspec.specs"]
    assert sorted(specs) == sorted(
        ["gopher", "gophers", "wais", "nntp", "news", "prospero", "gemini"]
    )
    assert set(specs.values()) == {"omniurl.integrations.fsspec:OmniurlFileSystem"}
    assert not {"ftp", "http", "https", "file"} & set(specs)


def test_open_read_and_cat(gopher: str) -> None:
    url = f"{gopher}/0/pub/a.csv"
    with fsspec.open(url) as f:
        assert f.read() == CSV
    fs = fsspec.filesystem("gopher")
    assert fs.cat(url) == CSV
    assert fs.cat_file(url, start=2, end=6) == b"y\r\n1"
    with fsspec.open(url, "rt") as t:
        assert t.readline() == "x,y\n"


def test_strip_protocol_keeps_the_url_whole(gopher: str) -> None:
    url = f"{gopher}/0/pub/a.csv"
    assert OmniurlFileSystem._strip_protocol(url) == url
    fs, path = fsspec.core.url_to_fs(url)
    assert isinstance(fs, OmniurlFileSystem) and path == url


def test_ls_and_info(gopher: str) -> None:
    fs = fsspec.filesystem("gopher")
    names = {e["name"]: e for e in fs.ls(f"{gopher}/1/pub")}
    assert names[f"{gopher}/0/pub/a.csv"]["type"] == "file"
    assert names[f"{gopher}/9/pub/big.bin"]["title"] == "big.bin"
    assert fs.ls(f"{gopher}/1/pub", detail=False) == list(names)
    assert fs.info(f"{gopher}/1/pub")["type"] == "directory"
    info = fs.info(f"{gopher}/0/pub/a.csv")
    assert info["type"] == "file" and info["name"] == f"{gopher}/0/pub/a.csv"


def test_open_streams_partial_reads(gopher: str) -> None:
    fs = fsspec.filesystem("gopher", options=None)
    with fs.open(f"{gopher}/9/pub/big.bin") as f:
        assert f.read(10) == BIG[:10]
        assert f.read(300) == BIG[10:310]
        raw = f.raw
        # Not the whole MiB: only what a chunk or two brought.
        assert raw._resource.bytes_read < len(BIG)
    assert raw._resource._closed


def test_open_async(gopher: str) -> None:
    async def go() -> bytes:
        fs = OmniurlFileSystem(asynchronous=True)
        f = await fs.open_async(f"{gopher}/9/pub/big.bin")
        async with f:
            head = await f.read(5)
            rest = await f.read()
        return head + rest

    assert asyncio.run(go()) == BIG


def test_simplecache_uses_get_file(gopher: str, tmp_path: Path) -> None:
    url = f"simplecache::{gopher}/0/pub/a.csv"
    with fsspec.open(url, simplecache={"cache_storage": str(tmp_path)}) as f:
        assert f.read() == CSV
    cached = [p for p in tmp_path.iterdir() if not p.name.startswith(".")]
    assert len(cached) == 1 and cached[0].read_bytes() == CSV
    assert not list(tmp_path.glob("*.part"))


def test_refusal_is_the_typed_error() -> None:
    # Port 25 (SMTP) from a gopher URL is refused by the default policy: nothing is sent.
    with pytest.raises(PortRefused):
        fsspec.open("gopher://127.0.0.1:25/0/x").open()
    fs = fsspec.filesystem("gopher", skip_instance_cache=True, allow_port=25)
    assert 25 in fs.options.policy.allow_ports


def test_double_colon_hazard_and_percent_escape(gopher: str) -> None:
    # fsspec cuts on '::' before we see the URL; '%3A%3A' survives and decodes to '::'.
    _fs, path = fsspec.core.url_to_fs(f"{gopher}/0/pub/a::b.txt")
    assert path == f"{gopher}/0/pub/a"
    with fsspec.open(f"{gopher}/0/pub/a%3A%3Ab.txt") as f:
        assert f.read() == b"colons\r\n"


def test_news_without_slashes_is_not_ours() -> None:
    fs, _ = fsspec.core.url_to_fs("news:comp.x")
    assert not isinstance(fs, OmniurlFileSystem)


def test_a_missing_item_is_omniurls_not_found_and_a_file_not_found(gopher: str) -> None:
    """A Gopher type-3 answer: omniurl's NotFound (typed, with the server's words), which
    fsspec's exists() must read as "absent" rather than let through."""
    from omniurl.integrations.fsspec import ResourceNotFound
    from omniurl.resolvers.errors import NotFound

    with pytest.raises(NotFound) as info:
        fsspec.open(f"{gopher}/0/pub/missing.txt").open()
    assert isinstance(info.value, FileNotFoundError)
    assert isinstance(info.value, ResourceNotFound)
    fs, path = fsspec.core.url_to_fs(f"{gopher}/0/pub/missing.txt")
    assert fs.exists(path) is False
    assert fs.exists(f"{gopher}/0/pub/a.csv") is True


@pytest.mark.parametrize("url", ["news:", "NEWS:", "news:<a b>"])
def test_open_routes_news_without_slashes_to_omniurl(url: str) -> None:
    """fsspec.open sends 'news:' to the local filesystem (FileNotFoundError of a local path);
    omniurl's open routes it here and the error is omniurl's, naming the component."""
    from omniurl.integrations.fsspec import open as omniurl_open
    from omniurl.schemes.errors import URLError

    with pytest.raises(URLError) as info:
        omniurl_open(url).open()
    assert not isinstance(info.value, FileNotFoundError)
    assert info.value.component is not None


def test_open_tells_and_seeks(gopher: str) -> None:
    """``tell``/``seek`` as on any fsspec file (pandas, ``zipfile``, sniffers call them):
    forward by reading, back by asking again; before, ``tell()`` itself raised
    ``io.UnsupportedOperation``."""
    import io

    fs = fsspec.filesystem("gopher")
    with fs.open(f"{gopher}/9/pub/big.bin") as f:
        assert f.tell() == 0
        assert f.read(10) == BIG[:10]
        assert f.tell() == 10
        assert f.seek(300_000) == 300_000
        assert f.read(5) == BIG[300_000:300_005]
        first = f.raw._resource
        assert f.seek(3) == 3 and f.read(4) == BIG[3:7]
        assert first._closed and f.raw._resource is not first  # asked again from the start
        assert f.seek(2, io.SEEK_CUR) == 9 and f.read(2) == BIG[9:11]
        with pytest.raises(io.UnsupportedOperation, match="no size"):
            f.seek(-1, io.SEEK_END)  # a Gopher server tells no size
        with pytest.raises(ValueError):
            f.seek(-1)
        assert f.seek(len(BIG) + 10) == len(BIG) and f.read(1) == b""
    with fs.open(f"{gopher}/0/pub/a.csv") as t:
        assert t.read() == CSV and t.tell() == len(CSV)
        t.seek(0)
        assert t.read() == CSV


@pytest.mark.parametrize(
    ("name", "body"), [("q?.txt", b"question\r\n"), ("star*.txt", b"star\r\n")]
)
def test_a_url_with_glob_characters_is_one_file(
    gopher: str, tmp_path: Path, name: str, body: bytes
) -> None:
    """``?`` and ``*`` are URL characters (a query, news:*), not glob patterns: ``cat`` and
    ``get`` read the URL itself; before, fsspec globbed it against the menu (a bare
    ``FileNotFoundError`` of the URL) and ``get`` took ``lpath`` for a directory."""
    fs = fsspec.filesystem("gopher")
    url = f"{gopher}/0/pub/{name}"
    assert fs.cat(url) == body
    fs.get(url, str(tmp_path / "out.txt"))
    assert (tmp_path / "out.txt").read_bytes() == body
    (tmp_path / "dir").mkdir()
    fs.get(url, str(tmp_path / "dir"))
    assert (tmp_path / "dir" / name).read_bytes() == body
    assert not [p.name for p in (tmp_path / "dir").iterdir() if p.name != name]


_INTERRUPTED_READ = r"""
import asyncio, os, signal, socket, threading, time
import fsspec
from omniurl.integrations import fsspec as of

for name in of.PROTOCOLS:
    fsspec.register_implementation(name, of.OmniurlFileSystem, clobber=True)
listener = socket.create_server(("127.0.0.1", 0))

def serve():  # 1000 bytes of a binary, then silence
    while True:
        conn, _ = listener.accept()
        conn.recv(1000)
        conn.sendall(b"s" * 1000)

threading.Thread(target=serve, daemon=True).start()
fs = fsspec.filesystem("gopher")
threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
f = fs.open("gopher://127.0.0.1:%d/9/slow" % listener.getsockname()[1])
try:
    f.read()
except KeyboardInterrupt:
    print("interrupted")
print("running", len(asyncio.all_tasks(fs.loop)))
try:
    f.read()
except Exception as exc:
    print("again", type(exc).__name__)
f.close()
print("closed")
"""


def test_ctrl_c_in_a_read_cancels_the_transfer() -> None:
    """Ctrl-C in ``f.read()`` cancels the transfer on fsspec's loop before the
    KeyboardInterrupt goes on; a later read is omniurl's ``ConnectionClosed`` (never an end
    that looks complete) and ``close()`` is clean.  Before (fsspec's ``sync``), the read
    went on in the background and both raised a bare ``RuntimeError`` ("asynchronous
    generator is already running")."""
    from helpers import run_script

    proc = run_script(_INTERRUPTED_READ)
    assert proc.stdout.splitlines() == [
        "interrupted",
        "running 0",
        "again ConnectionClosed",
        "closed",
    ]
    assert "Traceback" not in proc.stderr


def test_a_cancelled_async_read_never_ends_as_complete() -> None:
    """``asyncio.wait_for`` around ``await f.read()`` of ``open_async``: the next read is
    omniurl's ``ConnectionClosed``; before, it returned ``b""`` — an end, 1,000 bytes of a
    longer content looking whole."""
    from omniurl.resolvers.errors import ConnectionClosed

    async def go() -> None:
        stop = asyncio.Event()

        async def stalls(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await reader.readline()
            writer.write(b"s" * 1000)
            await writer.drain()
            await stop.wait()
            writer.close()

        server = await asyncio.start_server(stalls, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        try:
            fs = OmniurlFileSystem(asynchronous=True)
            f = await fs.open_async(f"gopher://127.0.0.1:{port}/9/slow")
            async with f:
                assert await f.read(1000) == b"s" * 1000
                with pytest.raises(TimeoutError):
                    await asyncio.wait_for(f.read(10), 0.3)
                with pytest.raises(ConnectionClosed, match="cancelled"):
                    await f.read()
        finally:
            stop.set()
            server.close()

    asyncio.run(go())
