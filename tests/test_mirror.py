"""``omniurl mirror`` against omniurl's own servers on loopback and hostile ones: trees byte
for byte, incremental re-runs, --delete, the manifest and exit status, WARC, safety."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from pathlib import Path

import pytest
from helpers import ROOT

from omniurl import testservers
from omniurl.batch import FetchResult
from omniurl.cli.mirror import summary_line
from omniurl.mirror.run import Config, Counts, mirror
from omniurl.resolvers import Options
from omniurl.testservers.recording import recording_of, start_recording

OPTS = Options(email="tester@example.org", connect_timeout=5, read_timeout=10)

TREE = {
    "a.txt": b"alpha\n",
    "b.txt": b"bravo\n",
    "sub/c.bin": bytes(range(256)) * 300,
    "sub/deep/d.txt": b"delta\n",
    "sub/deep/e.txt": b"echo\n",
    "empty/": b"",
}


def gopher_text(data: bytes) -> bytes:
    """A text file as the test gopher server sends it, less the framing: CR LF lines."""
    return data.replace(b"\n", b"\r\n")


def write_tree(root: Path, files: dict[str, bytes]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        if name.endswith("/"):
            (root / name).mkdir(parents=True, exist_ok=True)
            continue
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
        os.utime(root / name, (1_700_000_000, 1_700_000_000))
    return root


def tree_of(folder: Path, *, skip_menus: bool = False) -> dict[str, bytes]:
    """Every file and folder under ``folder`` but the mirror's state."""
    out: dict[str, bytes] = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if rel.split("/")[0] == ".omniurl-mirror":
            continue
        if skip_menus and path.name.startswith("%"):
            continue
        out[rel + "/" if path.is_dir() else rel] = b"" if path.is_dir() else path.read_bytes()
    return out


async def run_mirror(url: str, folder: Path, **kw: object) -> tuple[int, Counts, list[FetchResult]]:
    rows: list[FetchResult] = []
    config = Config(url=url, folder=folder, **kw)  # type: ignore[arg-type]
    status, counts = await asyncio.wait_for(mirror(config, OPTS, rows.append), 60)
    return status, counts, rows


@pytest.fixture
async def served(tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[tuple[str, Path]]:
    name = request.param
    root = write_tree(tmp_path / "src", TREE)
    server = await testservers.start(name, root)
    try:
        yield f"{name}://127.0.0.1:{server.port}/", root
    finally:
        await server.close()


@pytest.mark.parametrize("served", ["ftp", "http"], indirect=True)
async def test_tree_byte_for_byte_then_only_the_changes(
    served: tuple[str, Path], tmp_path: Path
) -> None:
    url, root = served
    out = tmp_path / "out"
    status, counts, rows = await run_mirror(url, out)
    assert status == 0
    got = tree_of(out)
    if url.startswith("http"):  # (omniurl's own server's index pages are documents)
        got = {k: v for k, v in got.items() if not k.endswith("index.html")}
    assert got == tree_of(root)
    assert all(row.ok for row in rows)
    if url.startswith("ftp"):  # MLSD's modify fact is the local file's time
        assert (out / "sub/c.bin").stat().st_mtime == 1_700_000_000
    names = {".omniurl-mirror", "a.txt", "b.txt", "empty", "sub"}
    assert {p.name for p in out.iterdir()} - {"index.html"} == names

    # two changed, one added, one removed
    (root / "a.txt").write_bytes(b"ALPHA, longer now\n")
    (root / "sub/deep/d.txt").write_bytes(b"DELTA\n")
    os.utime(root / "sub/deep/d.txt", (1_700_000_500, 1_700_000_500))
    (root / "sub/new.txt").write_bytes(b"new\n")
    (root / "b.txt").unlink()
    status, counts, rows = await run_mirror(url, out, delete=True)
    assert status == 0
    written = sorted(
        Path(r.path or "").relative_to(out).as_posix()
        for r in rows
        if r.bytes and r.kind == "content" and r.sha256
    )
    if url.startswith("ftp"):
        assert written == ["a.txt", "sub/deep/d.txt", "sub/new.txt"]
        assert counts.fetched == 3
    assert counts.deleted == 1
    got = tree_of(out)
    got = {k: v for k, v in got.items() if not k.endswith("index.html")}
    assert got == tree_of(root)
    assert not (out / "b.txt").exists()


async def test_without_delete_a_removed_file_stays(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "src", TREE)
    async with await testservers.start("ftp", root) as server:
        url = f"ftp://127.0.0.1:{server.port}/"
        await run_mirror(url, tmp_path / "out")
        (root / "b.txt").unlink()
        status, counts, _rows = await run_mirror(url, tmp_path / "out")
    assert status == 0 and counts.deleted == 0 and counts.fetched == 0
    assert (tmp_path / "out/b.txt").read_bytes() == b"bravo\n"


async def test_gopher_hole(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "src", {k: v for k, v in TREE.items()})
    async with await testservers.start("gopher", root) as server:
        url = f"gopher://127.0.0.1:{server.port}/1/"
        status, counts, rows = await run_mirror(url, tmp_path / "out")
        assert status == 0, [r.error_message for r in rows if not r.ok]
        out = tree_of(tmp_path / "out", skip_menus=True)
        for name, data in tree_of(root).items():
            # A text item is the server's bytes less the framing (docs/saving.md): this
            # server sends its files' lines with RFC 1436's CR LF.
            assert out[name] == (gopher_text(data) if name.endswith(".txt") else data)
        # each menu saved under a name no item can take, as get -o writes it
        menu = (tmp_path / "out" / "sub" / "%gophermap.tsv").read_text()
        assert "\tc.bin\t" in menu and menu.count("\n") >= 2
        # a second run fetches again, writes nothing that did not change
        (root / "a.txt").write_bytes(b"changed\n")
        status, counts, rows = await run_mirror(url, tmp_path / "out")
    assert status == 0
    assert counts.fetched == 1
    assert (tmp_path / "out/a.txt").read_bytes() == b"changed\r\n"


async def test_file_tree(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "src", TREE)
    status, _counts, _rows = await run_mirror(root.as_uri() + "/", tmp_path / "out")
    assert status == 0
    assert tree_of(tmp_path / "out") == tree_of(root)


async def test_include_exclude_and_depth(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "src", TREE)
    url = root.as_uri() + "/"
    await run_mirror(url, tmp_path / "o1", exclude=("sub/deep/",))
    assert "sub/deep/" not in tree_of(tmp_path / "o1") and "sub/c.bin" in tree_of(tmp_path / "o1")
    await run_mirror(url, tmp_path / "o2", include=("*.bin",))
    assert [k for k in tree_of(tmp_path / "o2") if not k.endswith("/")] == ["sub/c.bin"]
    await run_mirror(url, tmp_path / "o3", max_depth=1)
    assert "sub/c.bin" not in tree_of(tmp_path / "o3") and "a.txt" in tree_of(tmp_path / "o3")
    await run_mirror(url, tmp_path / "o4", max_filesize=1000)
    assert "sub/c.bin" not in tree_of(tmp_path / "o4") and "a.txt" in tree_of(tmp_path / "o4")


async def hostile_gopher(menu: bytes) -> tuple[asyncio.Server, int, list[bytes]]:
    """A Gopher server answering every selector with ``menu`` ({port} filled in), except
    selectors starting with "f", which get a file."""
    seen: list[bytes] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        line = await asyncio.wait_for(reader.readline(), 5)
        seen.append(line)
        selector = line.rstrip(b"\r\n")
        if selector.rsplit(b"/", 1)[-1].startswith(b"f"):
            writer.write(b"pwned " + selector + b"\n")
        else:
            writer.write(menu.replace(b"{port}", str(port).encode()) + b".\r\n")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    return server, port, seen


async def test_hostile_names_and_links_write_nothing_outside_and_send_nothing_elsewhere(
    tmp_path: Path,
) -> None:
    async with await start_recording() as elsewhere:
        other = elsewhere.port
        menu = (
            b"0up\t../../f-up\t127.0.0.1\t{port}\r\n"
            b"0up2\t/d/../../f-up2\t127.0.0.1\t{port}\r\n"
            b"9abs\t/etc/f-passwd\t127.0.0.1\t{port}\r\n"
            b"0bs\t..\\..\\f-bs\t127.0.0.1\t{port}\r\n"
            b"0state\t/.omniurl-mirror/f-state\t127.0.0.1\t{port}\r\n"
            b"0menu\t/%gophermap.tsv/f\t127.0.0.1\t{port}\r\n"
            b"1loop\t/\t127.0.0.1\t{port}\r\n"
            b"1deeper loop\t/d/\t127.0.0.1\t{port}\r\n"
            b"0redis\t/f-x\t127.0.0.1\t" + str(other).encode() + b"\r\n"
            b"0redis2\tSET x y\t127.0.0.1\t6379\r\n"
            b"0elsewhere\t/f-y\texample.org\t{port}\r\n"
        )
        server, _port, seen = await hostile_gopher(menu)
        port = server.sockets[0].getsockname()[1]
        try:
            out = tmp_path / "box" / "out"
            status, _counts, rows = await run_mirror(f"gopher://127.0.0.1:{port}/1/", out)
        finally:
            server.close()
            await server.wait_closed()
        assert recording_of(elsewhere).connections == 0
    assert status == 0, [r.error_message for r in rows if not r.ok]
    # nothing beside the folder
    assert sorted(p.name for p in (tmp_path / "box").iterdir()) == ["out"]
    files = {k for k in tree_of(out) if not k.endswith("/")}
    assert files == {
        "%gophermap.tsv",
        "d/%gophermap.tsv",
        "etc/f-passwd",
        "..%5C..%5Cf-bs",
        "%2Eomniurl-mirror/f-state",
        "%25gophermap.tsv/f",
    }
    assert (out / "etc/f-passwd").read_bytes() == b"pwned /etc/f-passwd\n"
    # the loops ended: the root and /d/ each asked for once
    assert sorted(seen).count(b"/\r\n") == 1 and sorted(seen).count(b"/d/\r\n") == 1


async def test_warc_records_match_the_files(tmp_path: Path) -> None:
    from warcio.archiveiterator import ArchiveIterator

    root = write_tree(tmp_path / "src", TREE)
    warc = tmp_path / "m.warc.gz"
    async with await testservers.start("http", root) as http:
        await run_mirror(f"http://127.0.0.1:{http.port}/", tmp_path / "h", warc=str(warc))
    async with await testservers.start("gopher", root) as gopher:
        await run_mirror(f"gopher://127.0.0.1:{gopher.port}/1/", tmp_path / "g", warc=str(warc))
    kinds: dict[str, int] = {}
    with open(warc, "rb") as fh:
        # (every block and payload digest checked as it is read: a mismatch raises)
        for record in ArchiveIterator(fh, check_digests="raise"):
            kinds[record.rec_type] = kinds.get(record.rec_type, 0) + 1
            uri = record.rec_headers.get_header("WARC-Target-URI")
            if record.rec_type == "response":
                assert record.http_headers.get_statuscode() == "200"
                if uri.endswith("/sub/c.bin"):
                    assert record.content_stream().read() == TREE["sub/c.bin"]
                    assert record.rec_headers.get_header("WARC-Payload-Digest")
            if record.rec_type == "request":
                assert record.rec_headers.get_header("WARC-Concurrent-To")
                assert record.http_headers.protocol == "GET"
            if record.rec_type == "resource" and uri.endswith("/sub/deep/d.txt"):
                assert record.content_stream().read() == gopher_text(TREE["sub/deep/d.txt"])
                assert record.rec_headers.get_header("WARC-Date")
                assert record.rec_headers.get_header("WARC-Payload-Digest")
            if record.rec_type == "metadata":
                assert record.rec_headers.get_header("WARC-Concurrent-To")
                assert record.rec_headers.get_header("Content-Type") == "text/anvl"
                assert b"plan: " in record.content_stream().read()
    assert kinds["warcinfo"] == 1  # (the second run appends to the same file)
    assert kinds["request"] == kinds["response"] >= 6
    assert kinds["resource"] == kinds["metadata"] >= 8


def cli_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env["PYTHONPATH"] = str(ROOT)
    return env


async def test_cli_exit_status_and_manifest(tmp_path: Path) -> None:
    import json

    from helpers import run_omniurl

    root = write_tree(tmp_path / "src", TREE)
    (root / "page.html").write_text('<a href="missing.txt">gone</a>')
    async with await testservers.start("http", root) as http:
        url = f"http://127.0.0.1:{http.port}/"
        code, _out, err = await run_omniurl(
            "mirror", url, str(tmp_path / "out"), "--manifest", str(tmp_path / "m.jsonl"),
            "-Z", timeout=60, env=cli_env(),
        )  # fmt: skip
    rows = [json.loads(line) for line in (tmp_path / "m.jsonl").read_text().splitlines()]
    failed = [r for r in rows if not r["ok"]]
    assert code == 5, err
    assert [(r["url"], r["error_type"]) for r in failed] == [(url + "missing.txt", "StatusError")]
    assert len({r["url"] for r in rows}) == len(rows)  # one row per URL
    assert (tmp_path / "out/sub/c.bin").read_bytes() == TREE["sub/c.bin"]


async def test_sigkill_at_any_moment_then_a_rerun_completes(tmp_path: Path) -> None:
    files = {f"d{i % 7}/f{i}.bin": os.urandom(20_000 + i) for i in range(150)}
    files["big.bin"] = os.urandom(6_000_000)
    root = write_tree(tmp_path / "src", files)
    out = tmp_path / "out"
    async with await testservers.start("http", root) as http:
        url = f"http://127.0.0.1:{http.port}/"
        argv = [sys.executable, "-m", "omniurl", "mirror", url, str(out), "-s"]
        for delay in (0.8, 1.5):
            proc = await asyncio.create_subprocess_exec(*argv, cwd=ROOT, env=cli_env())
            await asyncio.sleep(delay)
            if proc.returncode is None:
                proc.send_signal(signal.SIGKILL)
            await asyncio.wait_for(proc.wait(), 30)
            # every file under its final name is complete
            for name, data in tree_of(out).items():
                if not name.endswith("/") and not name.endswith("index.html"):
                    assert data == files[name], name
        proc = await asyncio.create_subprocess_exec(*argv, cwd=ROOT, env=cli_env())
        assert await asyncio.wait_for(proc.wait(), 60) == 0
    got = {k: v for k, v in tree_of(out).items() if not k.endswith("/") and "index.html" not in k}
    assert got == files
    assert list((out / ".omniurl-mirror").glob("tmp/*")) == []


async def test_a_large_file_continues_from_its_kept_part(tmp_path: Path) -> None:
    import hashlib as _hashlib

    big = os.urandom(3 << 20)
    root = write_tree(tmp_path / "src", {"big.bin": big, "small.txt": b"s\n"})
    out = tmp_path / "out"
    parts = out / ".omniurl-mirror" / "parts"
    parts.mkdir(parents=True)
    # what a run killed in the middle of big.bin left: its first MiB, under the path's digest
    name = _hashlib.sha256(b"big.bin").hexdigest()[:32]
    (parts / f".{name}.part").write_bytes(big[: 1 << 20])
    async with await testservers.start("ftp", root) as server:
        sent: list[str] = []
        opts = OPTS.with_(transcript=lambda d, t: sent.append(f"{d} {t}"))
        rows: list[FetchResult] = []
        config = Config(url=f"ftp://127.0.0.1:{server.port}/", folder=out)
        status, _counts = await asyncio.wait_for(mirror(config, opts, rows.append), 60)
    assert status == 0
    assert f"> REST {1 << 20}" in sent  # -C's continuation, not the whole file again
    assert (out / "big.bin").read_bytes() == big
    assert list(parts.iterdir()) == []  # the part became the file


async def test_a_huge_menu_is_walked_in_bounded_memory(tmp_path: Path) -> None:
    """15,000 menu lines (a hostile hole): read as they arrive, saved as they arrive,
    followed through the state file; the mirror's memory stays flat."""
    import tracemalloc

    lines = 15_000

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await asyncio.wait_for(reader.readline(), 5)
        for start in range(0, lines, 1000):
            block = b"".join(
                b"0item %d\t/elsewhere/%d\texample.org\t70\r\n" % (n, n)
                for n in range(start, start + 1000)
            )
            writer.write(block)
            await writer.drain()
        writer.write(b".\r\n")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    tracemalloc.start()
    try:
        status, _counts, _rows = await run_mirror(f"gopher://127.0.0.1:{port}/1/", tmp_path / "o")
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        server.close()
        await server.wait_closed()
    assert status == 0
    menu = (tmp_path / "o" / "%gophermap.tsv").read_bytes()
    assert menu.count(b"\n") == lines
    assert peak < 3 << 20, peak  # (15,000 entries held would take 7 MB and more)


def test_progress_and_summary_lines() -> None:
    from omniurl.cli.mirror import progress_line, summary_line

    counts = Counts(files_done=3, files_known=10, bytes_done=2048, bytes_known=4096)
    assert progress_line(counts) == "3/10 URLs, 2.0 KiB/4.0 KiB"
    counts.fetched, counts.unchanged, counts.deleted, counts.failed = 2, 1, 4, 0
    assert summary_line(counts).startswith(
        "mirrored 3 URLs: 2 written, 1 unchanged, 4 deleted, 0 failed, 2.0 KiB in "
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--dask", "local:2", "--warc", "w.warc.gz"], "mirror --dask with --warc"),
        (["--max-depth", "-1"], "--max-depth must be 0 or more"),
        (["-Z", "--parallel-max", "0"], "--parallel-max must be at least 1 and"),
        (["-Z", "--parallel-max-host", "-1"], "--parallel-max-host at least 0 (0: no limit"),
    ],
)
async def test_cli_usage_errors_exit_2_before_anything_is_sent(
    tmp_path: Path, args: list[str], message: str
) -> None:
    from helpers import run_omniurl

    async with await start_recording() as server:
        code, _out, err = await run_omniurl(
            "mirror", f"gopher://127.0.0.1:{server.port}/", str(tmp_path / "o"), *args,
            timeout=60, env=cli_env(),
        )  # fmt: skip
        assert recording_of(server).connections == 0
    assert code == 2
    assert message in err.decode()
    assert not (tmp_path / "o").exists()


async def test_an_unexpected_error_in_one_file_is_its_row_and_the_mirror_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A defect while visiting one file (here: looking at its local copy) fails that URL —
    a manifest row naming the error, exit status 1 ("any other failure") — and every other
    file is still mirrored; it used to end the whole run with a traceback."""
    from omniurl.mirror import run as run_module

    real = run_module._local

    def broken(target: str | Path) -> object:
        if os.path.basename(target) == "b.txt":
            raise ValueError("a defect")
        return real(target)

    monkeypatch.setattr(run_module, "_local", broken)
    root = write_tree(tmp_path / "src", TREE)
    async with await testservers.start("ftp", root) as server:
        url = f"ftp://127.0.0.1:{server.port}/"
        status, counts, rows = await run_mirror(url, tmp_path / "out", delete=True)
    failed = [r for r in rows if not r.ok]
    assert [(r.url, r.error_type, r.exit_status) for r in failed] == [
        (url + "b.txt", "ValueError", 1)
    ]
    assert failed[0].error_message == f"{url}b.txt: unexpected ValueError: a defect"
    assert status == 1 and counts.failed == 1
    got = tree_of(tmp_path / "out")
    assert got == {k: v for k, v in tree_of(root).items() if k != "b.txt"}


HOSTILE_LIST = (
    b"-rw-r--r-- 1 u g 6 Jan 01 2020 ../up.txt\r\n"
    b"-rw-r--r-- 1 u g 6 Jan 01 2020 ../../up2.txt\r\n"
    b"-rw-r--r-- 1 u g 6 Jan 01 2020 /etc/abs.txt\r\n"
    b"-rw-r--r-- 1 u g 6 Jan 01 2020 back\\slash.txt\r\n"
    b"-rw-r--r-- 1 u g 6 Jan 01 2020 nul\x00x.txt\r\n"
    b"lrwxrwxrwx 1 u g 4 Jan 01 2020 link -> /etc\r\n"
    b"lrwxrwxrwx 1 u g 4 Jan 01 2020 up -> ../../..\r\n"
    b"lrwxrwxrwx 1 u g 4 Jan 01 2020 passwd.txt -> /etc/passwd\r\n"
    b"drwxr-xr-x 1 u g 0 Jan 01 2020 .\r\n"
    b"drwxr-xr-x 1 u g 0 Jan 01 2020 ..\r\n"
    b"drwxr-xr-x 1 u g 0 Jan 01 2020 ../../escape\r\n"
    b"-rw-r--r-- 1 u g 6 Jan 01 2020 .omniurl-mirror\r\n"
    b"-rw-r--r-- 1 u g 6 Jan 01 2020 good.txt\r\n"
)


async def hostile_ftp(listing: bytes) -> tuple[asyncio.Server, list[bytes]]:
    """An FTP server (RFC 959: a control connection, EPSV data connections) that lists
    ``listing`` for its first LIST (an empty folder after) and sends "pwned NAME" for every
    RETR; its commands recorded."""
    seen: list[bytes] = []
    listed: list[bool] = []

    async def control(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        data: asyncio.Queue[asyncio.StreamWriter] = asyncio.Queue()
        listeners: list[asyncio.Server] = []

        async def accepted(_r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            await data.put(w)

        async def send(payload: bytes) -> None:
            w = await asyncio.wait_for(data.get(), 5)
            listeners.pop().close()
            writer.write(b"150 here\r\n")
            w.write(payload)
            await w.drain()
            w.close()
            writer.write(b"226 done\r\n")

        writer.write(b"220 hostile\r\n")
        try:
            while line := await asyncio.wait_for(reader.readline(), 10):
                seen.append(line.rstrip(b"\r\n"))
                verb, _, arg = line.rstrip(b"\r\n").partition(b" ")
                verb = verb.upper()
                if verb == b"EPSV":
                    listeners.append(await asyncio.start_server(accepted, "127.0.0.1", 0))
                    port = listeners[-1].sockets[0].getsockname()[1]
                    writer.write(b"229 Entering Extended Passive Mode (|||%d|)\r\n" % port)
                elif verb in (b"LIST", b"NLST", b"MLSD"):
                    if verb == b"MLSD":
                        writer.write(b"500 no\r\n")
                    else:
                        await send(b"" if listed else listing)
                        listed.append(True)
                elif verb == b"RETR":
                    await send(b"pwned " + arg + b"\n")
                elif verb == b"MDTM":
                    writer.write(b"213 20200101000000\r\n")
                elif verb == b"SIZE":
                    writer.write(b"213 %d\r\n" % (len(arg) + 7))
                elif verb == b"PWD":
                    writer.write(b'257 "/"\r\n')
                elif verb == b"QUIT":
                    writer.write(b"221 bye\r\n")
                    await writer.drain()
                    break
                elif verb in (b"USER", b"PASS"):
                    writer.write(b"230 in\r\n")
                elif verb in (b"CWD", b"TYPE"):
                    writer.write(b"250 ok\r\n" if verb == b"CWD" else b"200 ok\r\n")
                else:
                    writer.write(b"502 no\r\n")
                await writer.drain()
        except (TimeoutError, ConnectionError):
            pass
        finally:
            for listener in listeners:
                listener.close()
            writer.close()

    server = await asyncio.start_server(control, "127.0.0.1", 0)
    return server, seen


async def test_hostile_ftp_listing_writes_nothing_outside_the_folder(tmp_path: Path) -> None:
    """A LIST naming "../up.txt", "/etc/abs.txt", a backslash, a NUL, symbolic links out of
    the tree, "." and "..": nothing lands beside DIR, no link is followed or made, every
    name that is written is one name inside DIR."""
    server, seen = await hostile_ftp(HOSTILE_LIST)
    port = server.sockets[0].getsockname()[1]
    box = tmp_path / "box"
    out = box / "in" / "out"
    out.mkdir(parents=True)
    # links left in DIR where the server has a file and a folder: replaced, never followed
    (box / "outside.txt").write_bytes(b"keep me\n")
    (box / "elsewhere").mkdir()
    (out / "good.txt").symlink_to(box / "outside.txt")
    (out / "..%2F..%2Fescape").symlink_to(box / "elsewhere")
    try:
        status, _counts, rows = await run_mirror(f"ftp://127.0.0.1:{port}/pub/", out)
    finally:
        server.close()
        await server.wait_closed()
    inside = {
        p.relative_to(box).as_posix(): p.read_bytes() if p.is_file() else None
        for p in box.rglob("*")
        if ".omniurl-mirror" not in p.relative_to(out if out in p.parents else box).parts
    }
    assert inside == {
        "outside.txt": b"keep me\n",
        "elsewhere": None,
        "in": None,
        "in/out": None,
        "in/out/..%2Fup.txt": b"pwned ../up.txt\n",
        "in/out/..%2F..%2Fup2.txt": b"pwned ../../up2.txt\n",
        "in/out/%2Fetc%2Fabs.txt": b"pwned /etc/abs.txt\n",
        "in/out/back%5Cslash.txt": b"pwned back\\slash.txt\n",
        "in/out/%2Eomniurl-mirror": b"pwned .omniurl-mirror\n",
        "in/out/good.txt": b"pwned good.txt\n",
        "in/out/..%2F..%2Fescape": None,
    }
    assert not any(p.is_symlink() for p in box.rglob("*"))
    # no link was followed: nothing asked of "link", "up" or "passwd.txt", nor of "." or ".."
    asked = {line.partition(b" ")[2] for line in seen if line.startswith((b"RETR", b"CWD"))}
    assert asked.isdisjoint({b"link", b"up", b"passwd.txt", b".", b".."}), asked
    # a NUL cannot be sent (a delimiter on the control connection): that URL's typed error
    failed = [(r.url.rsplit("/", 1)[1], r.error_type) for r in rows if not r.ok]
    assert failed == [("nul%00x.txt", "DelimiterRefused")] and status == 2


#: A folder listed as a file (``x``) and as a link (``y``), beside the link's target.
IN_THE_WAY = (
    b"-rw-r--r-- 1 u g 6 Jan 01 2020 a.txt\r\n"
    b"-rw-r--r-- 1 u g 6 Jan 01 2020 x\r\n"
    b"lrwxrwxrwx 1 u g 5 Jan 01 2020 y -> a.txt\r\n"
)


@pytest.mark.parametrize("delete", [False, True])
async def test_a_local_folder_where_the_server_now_has_a_file_or_a_link(
    tmp_path: Path, delete: bool
) -> None:
    """A folder in DIR (a person's files in it) where the server now lists a file, or a
    symbolic link: without ``--delete`` both stay, each with a note, and the run goes on
    (exit 0) — as ``lftp mirror`` 4.9.2 keeps both folders and ``wget -m`` 1.21.3 keeps
    them too ("x: Is a directory"), measured against vsftpd; before, the folder was
    removed whole in both cases.  With ``--delete`` each is replaced by what the server
    has (lftp's ``mirror --delete`` does the same)."""
    server, _seen = await hostile_ftp(IN_THE_WAY)
    port = server.sockets[0].getsockname()[1]
    out = tmp_path / "out"
    for name in ("x", "y"):
        (out / name).mkdir(parents=True)
        (out / name / "mine.txt").write_bytes(b"a person's file\n")
    notes: list[str] = []
    config = Config(url=f"ftp://127.0.0.1:{port}/pub/", folder=out, delete=delete)
    try:
        status, counts = await asyncio.wait_for(
            mirror(config, OPTS.with_(notice=notes.append), lambda _row: None), 60
        )
    finally:
        server.close()
        await server.wait_closed()
    assert status == 0
    if delete:
        assert tree_of(out) == {"a.txt": b"pwned a.txt\n", "x": b"pwned x\n", "y": b"pwned a.txt\n"}
        assert os.readlink(out / "y") == "a.txt"
        assert counts.kept_in_the_way == 0 and notes == []
        return
    assert tree_of(out) == {
        "a.txt": b"pwned a.txt\n",
        "x/": b"",
        "x/mine.txt": b"a person's file\n",
        "y/": b"",
        "y/mine.txt": b"a person's file\n",
    }
    assert not (out / "y").is_symlink()
    assert counts.kept_in_the_way == 2
    assert sorted(notes) == [
        f"{out / 'x'}: a folder here, where the server now has a file: kept (--delete replaces it)",
        f"{out / 'y'}: a folder here, where the server now has a symbolic link: kept "
        "(--delete replaces it)",
    ]
    assert "2 folders kept in the way, " in summary_line(counts)


async def test_an_html_page_linking_elsewhere_sends_nothing_there(tmp_path: Path) -> None:
    """Links off the host or port, to other schemes, above the start or encoded to climb:
    nothing reaches the recording server, nothing is written outside DIR."""
    async with await start_recording() as elsewhere:
        other = elsewhere.port
        links = [
            f"http://127.0.0.1:{other}/x.txt",
            f"//127.0.0.1:{other}/y.txt",
            f"gopher://127.0.0.1:{other}/0/z",
            f"ftp://127.0.0.1:{other}/w",
            "file:///etc/passwd",
            "../../etc/passwd",
            "/%2e%2e/%2e%2e/etc/passwd",
            "..%2F..%2Fup.txt",
            "ok.txt",
        ]
        page = "".join(f'<a href="{link}">x</a>' for link in links)
        root = write_tree(tmp_path / "src", {"d/page.html": page.encode(), "d/ok.txt": b"ok\n"})
        async with await testservers.start("http", root) as http:
            box = tmp_path / "box"
            status, _counts, rows = await run_mirror(
                f"http://127.0.0.1:{http.port}/d/page.html", box / "out"
            )
        assert recording_of(elsewhere).connections == 0
    # ("..%2F..%2Fup.txt" is one name below d/ on the same server: asked, 404, not written)
    failed = [(r.url.rsplit("/", 1)[1], r.status) for r in rows if not r.ok]
    assert failed == [("..%2F..%2Fup.txt", 404)] and status == 5
    assert {k for k in tree_of(box / "out") if not k.endswith("/")} == {"page.html", "ok.txt"}
    assert sorted(p.name for p in box.iterdir()) == ["out"]


def request_of(head: bytes) -> tuple[bytes, dict[bytes, bytes]]:
    """A request head's target and its fields (names in lower case), for the scripted
    HTTP servers below."""
    fields = {
        k.strip().lower(): v.strip()
        for k, _, v in (line.partition(b":") for line in head.split(b"\r\n")[1:])
    }
    return head.split(b" ", 2)[1], fields


async def cut_off_http(big: bytes, heads: list[bytes]) -> asyncio.Server:
    """An HTTP server of one page, ``/d/``, linking to ``big.bin``: ``big`` (ETag "v1"),
    cut off half way the first time (as a killed run leaves it), continued from a
    ``Range`` with ``If-Range: "v1"``, 304 to ``If-None-Match: "v1"``; each request's head
    recorded in ``heads``."""
    cut = [True]

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
                heads.append(head)
                path, fields = request_of(head)
                if path == b"/d/":
                    body = b'<html><a href="big.bin">big</a></html>'
                    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
                                 b"Content-Length: %d\r\n\r\n%s" % (len(body), body))  # fmt: skip
                    await writer.drain()
                    continue
                start = 0
                if fields.get(b"if-none-match") == b'"v1"':
                    writer.write(b'HTTP/1.1 304 Not Modified\r\nETag: "v1"\r\n\r\n')
                    await writer.drain()
                    continue
                if b"range" in fields and fields.get(b"if-range") == b'"v1"':
                    start = int(fields[b"range"].removeprefix(b"bytes=").rstrip(b"-"))
                    writer.write(b"HTTP/1.1 206 Partial Content\r\nContent-Range: bytes "
                                 b"%d-%d/%d\r\n" % (start, len(big) - 1, len(big)))  # fmt: skip
                else:
                    writer.write(b"HTTP/1.1 200 OK\r\n")
                writer.write(b'ETag: "v1"\r\nContent-Type: application/octet-stream\r\n'
                             b"Content-Length: %d\r\n\r\n" % (len(big) - start))  # fmt: skip
                if cut[0]:
                    cut[0] = False
                    writer.write(big[: 1 << 20])  # half, then the connection ends
                    await writer.drain()
                    break
                writer.write(big[start:])
                await writer.drain()
        except (asyncio.IncompleteReadError, TimeoutError, ConnectionError):
            pass
        finally:
            writer.close()

    return await asyncio.start_server(handle, "127.0.0.1", 0)


async def cut_off_then_continued(
    tmp_path: Path, run: Callable[[str, Path], Awaitable[tuple[int, Counts, list[FetchResult]]]]
) -> None:
    """``run`` (a mirror, in one process or not) against :func:`cut_off_http`: the first
    run fails with the part kept, the second continues it from byte 1,048,576 (``Range``,
    ``If-Range``), the third asks with the continued response's ETag and gets a 304."""
    big = os.urandom(2 << 20)
    heads: list[bytes] = []
    server = await cut_off_http(big, heads)
    port = server.sockets[0].getsockname()[1]
    out = tmp_path / "out"
    try:
        status, _counts, rows = await run(f"http://127.0.0.1:{port}/d/", out)
        assert status == 4 and [r.error_type for r in rows if not r.ok] == ["ConnectionClosed"]
        assert not (out / "big.bin").exists()  # never a partial file under the final name
        status, _counts, rows = await run(f"http://127.0.0.1:{port}/d/", out)
        assert status == 0, [r.error_message for r in rows if not r.ok]
        assert (out / "big.bin").read_bytes() == big
        assert list((out / ".omniurl-mirror" / "parts").iterdir()) == []
        # the next run asks conditionally with the continued response's ETag: 304
        status, counts, rows = await run(f"http://127.0.0.1:{port}/d/", out)
    finally:
        server.close()
        await server.wait_closed()
    assert status == 0 and counts.unchanged == 1 and counts.fetched == 0
    asked = [h for h in heads if h.startswith(b"GET /d/big.bin ")]
    assert len(asked) == 3
    assert b"\r\nRange: bytes=1048576-\r\n" in asked[1] and b'\r\nIf-Range: "v1"\r\n' in asked[1]
    assert b'\r\nIf-None-Match: "v1"\r\n' in asked[2] and b"Range" not in asked[2]


async def test_a_large_http_file_cut_off_continues_where_it_stopped(tmp_path: Path) -> None:
    """An HTTP link's size is known only from its response: a 2 MiB file cut off half way
    (as a killed run leaves it) is continued by the next run with ``Range`` and
    ``If-Range`` (RFC 9110 §14.2, §13.1.5) — it was fetched whole again, every run."""
    await cut_off_then_continued(tmp_path, run_mirror)


async def test_names_differing_only_in_case_on_a_case_insensitive_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file "Case" and a folder "case/" on a disk that cannot hold both (as the probe at
    start finds on macOS, Windows): the first found is mirrored, the other is a failed row
    naming both — exit 23, the output's — where it was left out silently with exit 0."""
    from omniurl.mirror.run import Mirror

    monkeypatch.setattr(Mirror, "_case_insensitive", lambda self: True)
    root = write_tree(tmp_path / "src", {"Case": b"a file\n", "case/inside.txt": b"in\n"})
    async with await testservers.start("ftp", root) as server:
        url = f"ftp://127.0.0.1:{server.port}/"
        status, counts, rows = await run_mirror(url, tmp_path / "out")
    (row,) = [r for r in rows if not r.ok]  # (which is found first is the listing's order)
    kept, lost = ("case", "Case") if row.url == url + "Case" else ("Case", "case")
    assert row.url == url + ("Case" if lost == "Case" else "case/")
    assert (row.exit_status, row.error_type) == (23, "FileExistsError")
    assert row.error_message == (
        f"cannot write the output: {lost!r} and {kept!r} differ only in case on this disk"
    )
    assert status == 23 and counts.failed == 1
    expected = (
        {"case/": b"", "case/inside.txt": b"in\n"} if kept == "case" else {"Case": b"a file\n"}
    )
    assert tree_of(tmp_path / "out") == expected


async def test_a_warc_record_torn_by_a_killed_run_is_cut_before_the_next_run_appends(
    tmp_path: Path,
) -> None:
    """A run SIGKILLed while writing a record (a large one takes seconds to compress) leaves
    it torn at the WARC's end: the next run appends after the last whole record, so every
    record reads back — it appended after the torn one, and warcio read nothing past it."""
    import gzip

    from warcio.archiveiterator import ArchiveIterator

    root = write_tree(tmp_path / "src", TREE)
    warc = tmp_path / "m.warc.gz"
    async with await testservers.start("gopher", root) as gopher:
        url = f"gopher://127.0.0.1:{gopher.port}/1/"
        await run_mirror(url, tmp_path / "g", warc=str(warc))
        whole = warc.stat().st_size
        torn = gzip.compress(b"WARC/1.1\r\nWARC-Type: resource\r\n\r\n" + os.urandom(200_000))
        with open(warc, "ab") as fh:
            fh.write(torn[: len(torn) // 2])  # what SIGKILL leaves mid-record
        (root / "a.txt").write_bytes(b"changed\n")
        status, counts, _rows = await run_mirror(url, tmp_path / "g", warc=str(warc))
    assert status == 0 and counts.fetched == 1
    uris: list[str] = []
    with open(warc, "rb") as fh:
        for record in ArchiveIterator(fh, check_digests="raise"):
            if record.rec_type == "resource":
                uris.append(record.rec_headers.get_header("WARC-Target-URI"))
    assert uris.count(url.replace("/1/", "/0/a.txt")) == 2  # both runs' a.txt
    assert warc.stat().st_size > whole


async def test_a_second_run_in_the_same_folder_waits_for_none_and_touches_nothing(
    tmp_path: Path,
) -> None:
    """A run still going (its lock held, its temporary file being written) when another
    starts in the same DIR: the second is a clear error, exit 3, before anything is sent
    or cleared — it removed the first's temporary files and died on the locked state file
    with a traceback."""
    import fcntl

    from helpers import run_omniurl

    out = tmp_path / "out"
    (out / ".omniurl-mirror" / "tmp").mkdir(parents=True)
    busy = out / ".omniurl-mirror" / "tmp" / "1.part"
    busy.write_bytes(b"the first run's bytes")
    fd = os.open(out / ".omniurl-mirror" / "lock", os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        async with await start_recording() as server:
            code, _out, err = await run_omniurl(
                "mirror", f"gopher://127.0.0.1:{server.port}/1/", str(out),
                timeout=60, env=cli_env(),
            )  # fmt: skip
            assert recording_of(server).connections == 0
    finally:
        os.close(fd)
    assert code == 3, err
    assert b"is being mirrored by another run" in err and b"Traceback" not in err
    assert busy.read_bytes() == b"the first run's bytes"


async def test_a_file_delete_cannot_remove_is_its_row_and_the_run_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--delete meeting a local file it cannot remove (a read-only disk, another owner's
    file): that file's failed row, exit 23, the other removals done — it was a traceback."""
    import errno

    from omniurl.mirror import run as run_module

    root = write_tree(tmp_path / "src", TREE)
    out = tmp_path / "out"
    async with await testservers.start("ftp", root) as server:
        url = f"ftp://127.0.0.1:{server.port}/"
        await run_mirror(url, out)
        (root / "a.txt").unlink()
        (root / "b.txt").unlink()
        real = os.unlink

        def unlink(path: str | os.PathLike[str], *a: object, **kw: object) -> None:
            if str(path).endswith("a.txt"):
                raise PermissionError(errno.EACCES, "Permission denied", str(path))
            real(path)

        monkeypatch.setattr(run_module.os, "unlink", unlink)
        status, counts, rows = await run_mirror(url, out, delete=True)
    failed = [(r.url, r.exit_status, r.error_message) for r in rows if not r.ok]
    assert failed == [(str(out / "a.txt"), 23, "cannot write the output: Permission denied")]
    assert status == 23 and counts.deleted == 1
    assert (out / "a.txt").exists() and not (out / "b.txt").exists()


@pytest.mark.parametrize("way", ["nameless", "named", "no-proc"])
async def test_files_written_with_no_name_until_complete_and_the_fallbacks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, way: str
) -> None:
    """A file's bytes go to a file with no name (O_TMPFILE) linked to its final name once
    complete; where the disk has none (``named``) the named temporary file, and where /proc
    cannot link it (``no-proc``) its bytes are copied out to one.  The same tree, a new
    file's usual mode, a replaced file keeping its mode, no descriptor left open."""
    from omniurl import nameless
    from omniurl.mirror import run as run_module

    if way == "nameless" and not nameless.FLAGS:
        pytest.skip("no O_TMPFILE here")
    if way == "named":
        monkeypatch.setattr(nameless, "FLAGS", 0)
    if way == "no-proc":
        monkeypatch.setattr(nameless, "PROC_FD", str(tmp_path / "no-proc"))
    linked: list[str] = []
    real_link = run_module.Mirror._link

    def link(self: run_module.Mirror, fd: int, target: str) -> None:
        linked.append(os.path.basename(target))
        real_link(self, fd, target)

    monkeypatch.setattr(run_module.Mirror, "_link", link)
    umask = os.umask(0o022)
    os.umask(umask)
    fds = set(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else set()
    root = write_tree(tmp_path / "src", TREE)
    out = tmp_path / "out"
    async with await testservers.start("http", root) as server:
        url = f"http://127.0.0.1:{server.port}/"
        status, counts, _rows = await run_mirror(url, out)
        assert status == 0 and counts.fetched >= 5
        got = {k: v for k, v in tree_of(out).items() if not k.endswith("index.html")}
        assert got == tree_of(root)
        assert (out / "sub/c.bin").stat().st_mode & 0o777 == 0o666 & ~umask
        # every file of the tree was given its name by a link; none when named; with no
        # /proc the first one only (copied out), named ones after it
        if way == "nameless":
            assert sorted(linked) == ["a.txt", "b.txt", "c.bin", "d.txt", "e.txt"]
        else:
            assert len(linked) == (1 if way == "no-proc" else 0)
        (out / "a.txt").chmod(0o600)
        (root / "a.txt").write_bytes(b"ALPHA, longer now\n")
        status, counts, _rows = await run_mirror(url, out)
    assert status == 0 and counts.fetched == 1
    assert (out / "a.txt").read_bytes() == b"ALPHA, longer now\n"
    assert (out / "a.txt").stat().st_mode & 0o777 == 0o600
    assert not (out / ".omniurl-mirror" / "tmp").exists()
    if fds:
        assert set(os.listdir("/proc/self/fd")) <= fds | {"0", "1", "2"}


def _other_disk(tmp_path: Path) -> Path:
    """A folder on another file system than ``tmp_path`` (/dev/shm's tmpfs), or a skip."""
    shm = Path("/dev/shm")
    if not shm.is_dir() or not os.access(shm, os.W_OK):
        pytest.skip("no writable /dev/shm here")
    if shm.stat().st_dev == tmp_path.stat().st_dev:
        pytest.skip("/dev/shm is on the same file system as the test's folder here")
    import tempfile

    return Path(tempfile.mkdtemp(prefix="omniurl-mirror-", dir=shm))


@pytest.mark.parametrize("way", ["nameless", "named"])
async def test_a_tree_on_another_disk_than_the_temporary_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, way: str
) -> None:
    """The state folder (its ``tmp`` and ``parts``) on one file system, the tree on another
    (a symbolic link to a tmpfs here; a disk mounted inside DIR is the same): a rename or
    a link between them is EXDEV, so each file is copied beside its target and renamed
    there — new files, a replaced file (keeping its mode) and a large file from ``parts``
    alike, and nothing is left beside them."""
    import shutil

    from omniurl import nameless

    if way == "named":
        monkeypatch.setattr(nameless, "FLAGS", 0)
    elif not nameless.FLAGS:
        pytest.skip("no O_TMPFILE here")
    state = _other_disk(tmp_path)
    try:
        files = {**{k: v for k, v in TREE.items() if k != "empty/"}, "big.bin": os.urandom(3 << 20)}
        root = write_tree(tmp_path / "src", files)
        out = tmp_path / "out"
        out.mkdir()
        (out / ".omniurl-mirror").symlink_to(state)
        async with await testservers.start("ftp", root) as server:
            url = f"ftp://127.0.0.1:{server.port}/"
            status, counts, rows = await run_mirror(url, out)
            assert [r.error_message for r in rows if not r.ok] == []
            assert status == 0 and counts.fetched == len(files)
            assert tree_of(out) == tree_of(root)
            (out / "a.txt").chmod(0o600)
            (root / "a.txt").write_bytes(b"ALPHA, longer now\n")
            status, counts, rows = await run_mirror(url, out)
        assert [r.error_message for r in rows if not r.ok] == []
        assert status == 0 and counts.fetched == 1
        assert (out / "a.txt").read_bytes() == b"ALPHA, longer now\n"
        assert (out / "a.txt").stat().st_mode & 0o777 == 0o600
        assert tree_of(out) == tree_of(root)  # (no temporary file left beside the files)
        assert list((state / "parts").iterdir()) == []
    finally:
        shutil.rmtree(state, ignore_errors=True)


#: Cyrillic names a KOI8-R page links to (no <meta>: only its Content-Type says KOI8-R).
KOI8_NAMES = ("жар.txt", "лес.txt")


async def koi8_site(asked: list[bytes]) -> asyncio.Server:
    """An HTTP server whose pages are served as ``text/html; charset=koi8-r`` with no
    ``<meta>``: ``/d/`` links (in KOI8-R bytes) to ``жар.txt`` and ``page.html``, which links
    to ``лес.txt``; the files answer only at their UTF-8 ``%XX`` names (as a browser asks),
    404 at any other.  Every reply has an ETag; ``If-None-Match`` with it gets a 304.  Each
    request line is recorded in ``asked``, with `` 304`` after it when that was the answer."""
    from urllib.parse import quote

    koi8 = "text/html; charset=koi8-r"
    pages = {
        b"/d/": (koi8, f'<a href="{KOI8_NAMES[0]}">1</a> <a href="page.html">p</a>'),
        b"/d/page.html": (koi8, f'<html><a href="{KOI8_NAMES[1]}">2</a></html>'),
    }
    served = {p: (t, s.encode("koi8-r")) for p, (t, s) in pages.items()}
    for name in KOI8_NAMES:
        served[b"/d/" + quote(name.encode()).encode()] = ("text/plain", name.encode() + b"\n")

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
                asked.append(head.split(b"\r\n", 1)[0])
                path, fields = request_of(head)
                if path not in served:
                    writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
                    await writer.drain()
                    continue
                media, body = served[path]
                etag = b'"%d"' % len(body)
                if fields.get(b"if-none-match") == etag:
                    asked[-1] += b" 304"
                    writer.write(b"HTTP/1.1 304 Not Modified\r\nETag: %s\r\n\r\n" % etag)
                else:
                    writer.write(b"HTTP/1.1 200 OK\r\nETag: %s\r\nContent-Type: %s\r\n"
                                 b"Content-Length: %d\r\n\r\n%s"
                                 % (etag, media.encode(), len(body), body))  # fmt: skip
                await writer.drain()
        except (asyncio.IncompleteReadError, TimeoutError, ConnectionError):
            pass
        finally:
            writer.close()

    return await asyncio.start_server(handle, "127.0.0.1", 0)


async def koi8_mirrored(
    tmp_path: Path, run: Callable[..., Awaitable[tuple[int, Counts, list[FetchResult]]]]
) -> None:
    """``run`` (a mirror, in one process or not) against :func:`koi8_site`: the pages are
    read in the charset their Content-Type declares (docs/mirror.md), so the Cyrillic files
    are asked for at their UTF-8 names and saved, exit 0 (before: read as windows-1252, the
    names mojibake, 404, exit 5).  A re-run with --delete gets 304 for every page and reads
    the kept copies in the charset kept in the state: it finds the same links and deletes
    nothing.  A state from before the charset was kept (records with no "charset"): its
    pages are fetched whole once, not read in a guess, and again nothing is deleted."""
    asked: list[bytes] = []
    server = await koi8_site(asked)
    port = server.sockets[0].getsockname()[1]
    out = tmp_path / "out"
    want = {"index.html", "page.html", *KOI8_NAMES}
    try:
        status, counts, rows = await run(f"http://127.0.0.1:{port}/d/", out)
        assert status == 0, [(r.url, r.status) for r in rows if not r.ok]
        assert {k for k in tree_of(out) if not k.endswith("/")} == want
        for name in KOI8_NAMES:
            assert (out / name).read_bytes() == name.encode() + b"\n"
        assert not [line for line in asked if b" 404 " in line]
        first = len(asked)
        status, counts, rows = await run(f"http://127.0.0.1:{port}/d/", out, delete=True)
        assert status == 0, [(r.url, r.status) for r in rows if not r.ok]
        assert counts.deleted == 0 and counts.fetched == 0
        assert {k for k in tree_of(out) if not k.endswith("/")} == want
        # every page and file of the first run asked again, each answered 304, nothing else
        assert sorted(asked[first:]) == sorted(line + b" 304" for line in asked[:first])
        # an older omniurl's state: the same records but for the "charset" key
        import json
        import sqlite3

        db = sqlite3.connect(out / ".omniurl-mirror" / "state.sqlite")
        with db:
            for path, text in db.execute("SELECT path, record FROM files").fetchall():
                record = json.loads(text)
                assert "charset" in record
                del record["charset"]
                db.execute("UPDATE files SET record = ? WHERE path = ?", (json.dumps(record), path))
        db.close()
        second = len(asked)
        status, counts, rows = await run(f"http://127.0.0.1:{port}/d/", out, delete=True)
    finally:
        server.close()
        await server.wait_closed()
    assert status == 0, [(r.url, r.status) for r in rows if not r.ok]
    assert counts.deleted == 0 and counts.fetched == 0
    assert {k for k in tree_of(out) if not k.endswith("/")} == want
    # the pages fetched whole (200), the plain files still asked conditionally (304)
    assert sorted(asked[second:]) == sorted(
        line + (b"" if line.split()[1] in (b"/d/", b"/d/page.html") else b" 304")
        for line in asked[:first]
    )


async def test_a_page_is_read_in_its_content_types_charset_and_so_is_its_kept_copy(
    tmp_path: Path,
) -> None:
    await koi8_mirrored(tmp_path, run_mirror)


async def test_a_plugins_page_links_written_before_charset_still_mirrors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plugin's ``page_links(self, url, media_type, data)`` (the hook before it took
    ``charset=``, 56a0ace): the mirror still follows its links, handing it the media type
    with the declared charset as a parameter, as it did then (``resolvers.spec.page_links_of``;
    before, every mirror of such a scheme ended in a TypeError)."""
    from omniurl.resolvers.http import HTTPPresentation

    new_style = HTTPPresentation.page_links
    seen: list[str | None] = []

    def old_style(
        self: HTTPPresentation, url: str, media_type: str | None, data: bytes
    ) -> Iterable[str] | None:
        seen.append(media_type)
        return new_style(self, url, media_type, data)

    monkeypatch.setattr(HTTPPresentation, "page_links", old_style)
    root = write_tree(tmp_path / "src", TREE)
    server = await testservers.start("http", root)
    try:
        status, _counts, rows = await run_mirror(
            f"http://127.0.0.1:{server.port}/", tmp_path / "out"
        )
    finally:
        await server.close()
    assert status == 0, [r.error_message for r in rows if not r.ok]
    got = {k: v for k, v in tree_of(tmp_path / "out").items() if not k.endswith("index.html")}
    assert got == tree_of(root)
    assert "text/html; charset=utf-8" in seen
