"""fetch_many: one record per URL whatever fails, hard per-host limits on the resolved
server, a lazily read source, collision-free output names, no transfer left running."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import pytest_asyncio

from omniurl.batch import FetchResult, fetch_many, host_key, output_name, shown
from omniurl.resolvers import Options
from omniurl.resolvers.errors import ConfigurationError
from omniurl.schemes import parse


@dataclass
class CountingGopher:
    """A Gopher server that answers every selector with ``body(selector)`` after ``delay``
    seconds and records the most connections it ever had open at once."""

    delay: float = 0.02
    open_now: int = 0
    most: int = 0
    served: list[bytes] = field(default_factory=list)
    server: asyncio.Server | None = None

    @staticmethod
    def body(selector: bytes) -> bytes:
        return b"content of " + selector + b"\r\n.\r\n"

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.open_now += 1
        self.most = max(self.most, self.open_now)
        try:
            line = await asyncio.wait_for(reader.readline(), 5)
            selector = line.rstrip(b"\r\n")
            self.served.append(selector)
            try:  # wait `delay`, noticing a client that goes away meanwhile (EOF)
                if await asyncio.wait_for(reader.read(1), self.delay) == b"":
                    return
            except TimeoutError:
                pass
            if selector.startswith(b"/missing"):
                writer.write(b"3not here\t\terror.host\t1\r\n.\r\n")
            else:
                writer.write(self.body(selector))
            await writer.drain()
        finally:
            self.open_now -= 1
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()

    @property
    def port(self) -> int:
        assert self.server is not None
        return int(self.server.sockets[0].getsockname()[1])


@pytest_asyncio.fixture
async def servers() -> AsyncIterator[list[CountingGopher]]:
    started = []
    for _ in range(4):
        s = CountingGopher()
        s.server = await asyncio.start_server(s.handle, "127.0.0.1", 0)
        started.append(s)
    try:
        yield started
    finally:
        for s in started:
            assert s.server is not None
            s.server.close()
            await s.server.wait_closed()


async def collect(it: AsyncIterator[FetchResult]) -> list[FetchResult]:
    return [r async for r in it]


async def test_per_host_limit_holds_and_every_url_has_one_record(
    servers: list[CountingGopher],
) -> None:
    urls = [f"gopher://127.0.0.1:{s.port}/0/file{n}.txt" for n in range(40) for s in servers]
    results = await collect(fetch_many(urls, options=Options(), concurrency=8, per_host=2))
    assert sorted(r.index for r in results) == list(range(len(urls)))
    assert all(r.ok for r in results), [r.error_message for r in results if not r.ok]
    for s in servers:
        assert s.most == 2  # reached, never exceeded
        assert len(s.served) == 40
    first = next(r for r in results if r.index == 0)
    assert first.url == urls[0]
    expected = CountingGopher.body(b"/file0.txt").removesuffix(b".\r\n")
    assert first.sha256 == hashlib.sha256(expected).hexdigest()
    assert first.bytes == len(expected)
    assert first.kind == "content"


async def test_two_names_mapped_to_one_server_share_its_limit(
    servers: list[CountingGopher],
) -> None:
    s = servers[0]
    opts = Options().resolving(
        f"one.example:70:127.0.0.1:{s.port}", f"two.example:70:127.0.0.1:{s.port}"
    )
    urls = [f"gopher://{name}/0/x{n}" for n in range(10) for name in ("one.example", "two.example")]
    results = await collect(fetch_many(urls, options=opts, concurrency=10, per_host=3))
    assert all(r.ok for r in results), [r.error_message for r in results if not r.ok]
    assert s.most == 3
    assert host_key(parse(urls[0]), opts) == host_key(parse(urls[1]), opts)


async def test_errors_are_records_and_the_batch_goes_on(servers: list[CountingGopher]) -> None:
    port = servers[0].port
    urls = [
        f"gopher://127.0.0.1:{port}/0/ok",
        "gopher://127.0.0.1:6379/0/redis",  # refused by the port policy: nothing sent
        "not a url",
        f"gopher://127.0.0.1:{port}/0/missing",  # a type-3 error item
        f"gopher://127.0.0.1:{port}/0/ok2",
    ]
    results = {r.index: r for r in await collect(fetch_many(urls, concurrency=2))}
    assert sorted(results) == [0, 1, 2, 3, 4]
    assert results[0].ok and results[4].ok
    assert (results[1].ok, results[1].error_type, results[1].exit_status) == (
        False,
        "PortRefused",
        2,
    )
    assert results[2].ok is False and results[2].exit_status == 2
    assert results[3].ok is False and results[3].exit_status == 5
    assert sorted(servers[0].served) == [b"/missing", b"/ok", b"/ok2"]  # 6379: nothing sent


async def test_the_source_is_read_lazily(servers: list[CountingGopher]) -> None:
    port = servers[0].port
    pulled = 0

    def source() -> Iterator[str]:
        nonlocal pulled
        for n in range(1000):
            pulled += 1
            yield f"gopher://127.0.0.1:{port}/0/{n}"

    it = fetch_many(source(), concurrency=2, per_host=2, window=8)
    first = await anext(it)
    assert first.ok
    assert pulled <= 8 + 1  # the window, plus the one being looked at
    await it.aclose()


async def test_stopping_early_cancels_the_transfers_still_running(
    servers: list[CountingGopher],
) -> None:
    s = servers[0]
    s.delay = 2.0
    urls = [f"gopher://127.0.0.1:{s.port}/0/{n}" for n in range(6)]
    it = fetch_many(urls, concurrency=6, per_host=6)
    waiter = asyncio.ensure_future(anext(it))
    for _ in range(100):
        if s.open_now == 6:
            break
        await asyncio.sleep(0.01)
    assert s.open_now == 6
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    await it.aclose()
    for _ in range(100):
        if s.open_now == 0:
            break
        await asyncio.sleep(0.01)
    assert s.open_now == 0


@pytest.mark.parametrize("files", ["nameless", "no O_TMPFILE", "no /proc"])
async def test_output_dir_gets_collision_free_names_and_no_part_files(
    servers: list[CountingGopher], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: str
) -> None:
    """Each file is written without a name (O_TMPFILE) and linked to a free name once
    complete; where the file system has no nameless files, or /proc is not there to link
    one, through a named temporary file — the same files, modes and names either way, and
    no temporary file or descriptor left."""
    import omniurl.batch
    import omniurl.nameless

    if files == "no O_TMPFILE":
        monkeypatch.setattr(omniurl.nameless, "FLAGS", 0)
    elif files == "no /proc":
        monkeypatch.setattr(omniurl.nameless, "PROC_FD", str(tmp_path / "no-proc"))
    copied: list[str] = []
    copied_out = omniurl.batch._copied_out
    monkeypatch.setattr(
        omniurl.batch, "_copied_out", lambda *a: copied.append(copied_out(*a)) or copied[-1]
    )
    descriptors = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else 0
    p1, p2 = servers[0].port, servers[1].port
    (tmp_path / "same.txt").write_bytes(b"already here")
    urls = [f"gopher://127.0.0.1:{p1}/0/a/same.txt", f"gopher://127.0.0.1:{p2}/0/b/same.txt",
            f"gopher://127.0.0.1:{p1}/0/missing.txt"]  # fmt: skip
    results = await collect(fetch_many(urls, output_dir=tmp_path))
    assert sorted(os.listdir(tmp_path)) == ["same.1.txt", "same.2.txt", "same.txt"]
    assert (tmp_path / "same.txt").read_bytes() == b"already here"
    written = {Path(r.path).read_bytes() for r in results if r.ok and r.path}
    assert written == {b"content of /a/same.txt\r\n", b"content of /b/same.txt\r\n"}
    (failed,) = [r for r in results if not r.ok]
    assert failed.path is None
    umask = os.umask(0o22)
    os.umask(umask)
    assert {os.stat(r.path).st_mode & 0o777 for r in results if r.path} == {0o666 & ~umask}
    if descriptors:
        assert len(os.listdir("/proc/self/fd")) == descriptors
    # (the file is copied out of its nameless inode only where it cannot be linked)
    assert len(copied) == (1 if files == "no /proc" else 0)


@pytest.mark.parametrize("files", ["nameless", "no O_TMPFILE"])
async def test_many_urls_of_one_name_try_each_number_once(
    servers: list[CountingGopher], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: str
) -> None:
    """60 URLs whose files are all ``same.txt``: ``same.txt``, ``same.1.txt`` …
    ``same.59.txt``, each found free at the first try after ``same.txt`` was taken (the
    batch remembers where each colliding name's search stopped).  Before, every search began
    at ``same.txt``: N files of one name cost N²/2 failed links (3,000 files: 39 s of CPU
    against 3 s)."""
    import omniurl.batch
    import omniurl.nameless

    tries: list[str] = []
    if files == "no O_TMPFILE":
        monkeypatch.setattr(omniurl.nameless, "FLAGS", 0)
        link = os.link

        def counted(src: str, dst: str, **kw: object) -> None:
            tries.append(dst)
            link(src, dst, **kw)  # type: ignore[arg-type]

        monkeypatch.setattr(omniurl.batch.os, "link", counted)
    else:
        linked = omniurl.nameless.Linker.link

        def counted_link(self: omniurl.nameless.Linker, fd: int, path: str) -> bool:
            tries.append(path)
            return linked(self, fd, path)

        monkeypatch.setattr(omniurl.nameless.Linker, "link", counted_link)
    s = servers[0]
    s.delay = 0
    urls = [f"gopher://127.0.0.1:{s.port}/0/d{n}/same.txt" for n in range(60)]
    results = await collect(fetch_many(urls, output_dir=tmp_path, concurrency=4))
    assert all(r.ok for r in results)
    names = sorted(os.listdir(tmp_path))
    assert names == sorted(["same.txt", *(f"same.{n}.txt" for n in range(1, 60))])
    assert len(tries) == 60 + 1  # (same.txt taken once: then the next number each time)


@pytest.mark.parametrize("procs", [None, 1, 2])
async def test_a_batch_hashes_its_files_only_for_its_manifest(
    servers: list[CountingGopher],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    procs: int | None,
) -> None:
    """A row's sha256 is shown only by ``--manifest``: the command's batch without one hashes
    nothing (a file of 8 KiB: ~18 µs of SHA-256, docs/speed.md, *Batches*, seventh round),
    over the general path, the lean HTTP engine and ``--procs``' split alike; with one, every
    row has the sha256 of its file.  The files, counts and status are the same either way."""
    from omniurl.cli.batch import run_batch
    from omniurl.testservers.http import start_http

    hashed: list[int] = []
    sha256 = hashlib.sha256

    def counted(data: bytes = b"", **kw: object) -> object:
        hashed.append(len(data))
        return sha256(data, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(hashlib, "sha256", counted)
    (tmp_path / "srv").mkdir()
    for i in range(4):
        (tmp_path / "srv" / f"w{i}.txt").write_bytes(b"web %d\n" % i * (i + 1))
    web = await start_http(tmp_path / "srv")
    s = servers[0]
    s.delay = 0
    urls = [f"gopher://127.0.0.1:{s.port}/0/g{i}.txt" for i in range(4)]
    urls += [f"http://{web.netloc}/w{i}.txt" for i in range(4)]
    if procs is not None:  # (--procs splits a large batch: the batch's bound, MIN_SPLIT)
        from omniurl.batch_procs import fetch_split

        monkeypatch.setattr("omniurl.batch_procs.MIN_SPLIT", 1)
    try:
        for manifest in (None, tmp_path / "m.jsonl"):
            out = tmp_path / ("with" if manifest else "without")
            out.mkdir()
            hashed.clear()
            split = None
            if procs is not None:
                split = fetch_split(
                    urls, Options(), procs=procs, concurrency=4, per_host=2,
                    output_dir=str(out), full_rows=manifest is not None,
                )  # fmt: skip
            status = await run_batch(
                urls,
                Options(),
                concurrency=4,
                per_host=2,
                output_dir=str(out),
                manifest=str(manifest) if manifest else None,
                show_progress=False,
                quiet=True,
                results=split,
            )
            assert status == 0
            assert len(os.listdir(out)) == 8
            if manifest is None:
                assert hashed == []
            else:
                import json

                rows = [json.loads(line) for line in manifest.read_text().splitlines()]
                assert len(rows) == 8
                for row in rows:
                    assert row["sha256"] == sha256(Path(row["path"]).read_bytes()).hexdigest()
        assert {p: (tmp_path / "with" / p).read_bytes() for p in os.listdir(tmp_path / "with")} == {
            p: (tmp_path / "without" / p).read_bytes() for p in os.listdir(tmp_path / "without")
        }
        if procs is not None:  # (a forked worker's hashing is not counted here: its rows)
            (tmp_path / "rows").mkdir()
            given = fetch_split(
                urls, Options(), procs=procs, concurrency=4, per_host=2,
                output_dir=str(tmp_path / "rows"), full_rows=False,
            )  # fmt: skip
            got = [r async for r in given]
            assert len(got) == 8 and all(r.ok and r.sha256 is None for r in got)
    finally:
        await web.close()


async def test_bad_arguments_are_typed_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError):
        await collect(fetch_many([], concurrency=0))
    with pytest.raises(ConfigurationError):
        await collect(fetch_many([], output_dir=tmp_path / "nope"))


@pytest.mark.parametrize(
    ("url", "name"),
    [
        ("gopher://h/0/dir/report.txt", "report.txt"),
        # A listing: its name, a hash of the URL, .tsv (omniurl.saving; issue 31 item 3).
        ("gopher://h/1/", "gophermap.0af5d3b3.tsv"),
        ("gopher://h", "gophermap.c4d6556e.tsv"),
        ("gopher://h:70/1", "gophermap.c4d6556e.tsv"),  # the same menu, the same name
        ("gopher://h/1/sub/menu", "menu.0b71f406.tsv"),
        ("http://127.0.0.1:8081/", "index.html"),
        ("http://h/a/b/", "index.html"),
        ("ftp://h/pub/", "pub.db3b0b4f.tsv"),
        ("http://h/a/.bashrc", "bashrc"),
        ("http://h/a/b%2F..%2Fc", "b_.._c"),
        ("ftp://h/pub/file.tar.gz;type=i", "file.tar.gz"),
        # a query is no part of the path: a "/" in it names nothing (curl: a.txt)
        ("http://h/a.txt?x=/../../etc", "a.txt"),
        ("https://h/dl/get.php?file=/docs/report.pdf", "get.php"),
        ("http://h/download?id=1", "download"),
        ("http://h/?next=/x/y", "index.html"),
        ("gemini://h/d/page.gmi?q=a/b", "page.gmi"),
        ("wais://h/db?words/more", "db"),
        # nor are a Gopher search and Gopher+ string after %09 (RFC 1738 §3.4): a "/" in
        # them names nothing (curl, which knows no Gopher search: bar, pdf, passwd, none)
        ("gopher://h/7/dir/search%09foo/bar", "search.51e0a20c.tsv"),
        ("gopher://h/9/doc.pdf%09%09+application/pdf", "doc.pdf"),
        ("gophers://h/9/x.pdf%09%09+image/gif", "x.pdf"),
        ("gopher://h/0/a.txt%09x/../../etc/passwd", "a.txt"),
        ("gopher://h/0/a.txt%09x/..", "a.txt"),  # (was a menu's name: gophermap.*.tsv)
        ("gopher://h/0/a/b.txt%09a%2Fb", "b.txt"),
        ("gopher://h/0/dir/a.txt%09words", "a.txt"),
        ("gopher://h/1/dir/%09w/x", "dir.20929e29.tsv"),
        # an encoded TAB ends a Gopher path only: elsewhere it is a letter of the name,
        # unprintable, so "_" (it was cut there: "a")
        ("http://h/x/a%09b.txt", "a_b.txt"),
        ("ftp://h/pub/a%09b.txt", "a_b.txt"),
        ("gemini://h/a%09b.gmi", "a_b.gmi"),
    ],
)
def test_output_names(url: str, name: str) -> None:
    assert output_name(parse(url)) == name


@pytest.mark.parametrize(
    "folder",
    ["out", "out/", "./out", "out//x/", "/tmp/x", "//srv/x", "///srv//x", ".", "./", "",
     "a/./b/.", "a/../b", "..", "/", "//", "///", "x/ y", "\udcff/z"],
)  # fmt: skip
def test_a_rows_folder_is_written_as_pathlib_writes_it(folder: str) -> None:
    """A row's ``path`` begins with the folder as ``pathlib`` wrote it before the batch's
    start went without pathlib (``--output-dir ./out/`` gives ``out/a.txt``)."""
    from omniurl.batch import folder_text

    assert folder_text(folder) == str(Path(folder))
    assert folder_text(Path(folder)) == str(Path(folder))


def test_passwords_are_masked_in_records() -> None:
    assert shown("ftp://u:SECRET@h/x") == "ftp://u:****@h/x"
    assert shown("ftp://u@h/x") == "ftp://u@h/x"
    assert shown("news:a@b") == "news:a@b"


def test_names_in_input_order_search_each_name_once() -> None:
    """``-C -``'s names (and the Dask integration's), given in input order: the same names
    as a search from ``NAME`` each time, without its N²/2 lookups (5,000 URLs of one name:
    3.9 s of CPU before)."""
    import time

    from omniurl.batch import _names_in_input_order

    taken = {"a.txt", "a.2.txt", "b"}
    numbers: dict[str, int] = {}
    given = [_names_in_input_order(taken, n, numbers) for n in ["a.txt"] * 4 + ["b", "b", "c"]]
    assert given == ["a.1.txt", "a.3.txt", "a.4.txt", "a.5.txt", "b.1", "b.2", "c"]
    started = time.process_time()
    for _ in range(20_000):
        _names_in_input_order(taken, "download", numbers)
    assert "download.19999" in taken and "download.20000" not in taken
    assert time.process_time() - started < 5  # (before: ~60 s)


@pytest.mark.parametrize(
    ("flags", "most"),
    [([], 6), (["--parallel-max-host", "6"], 6), (["--parallel-max-host", "0"], 10)],
)
async def test_the_commands_limit_per_server_is_6_and_0_is_curls_none(
    servers: list[CountingGopher], tmp_path: Path, flags: list[str], most: int
) -> None:
    """``get -Z``'s default ``--parallel-max-host`` is 6 (RFC 9112 §9.4, as browsers; curl's
    default, 8.16+, is 0: no limit), reached and never exceeded; ``0`` is curl's "no limit
    per server": ``--parallel-max`` (10) alone bounds the transfers to the one server
    (refused, exit 2, before)."""
    from _ftphttp import run_cli

    s = servers[0]
    s.delay = 1.0  # (every transfer held open a second: the batch reaches its cap)
    urls = [f"gopher://127.0.0.1:{s.port}/0/f{n}.txt" for n in range(20)]
    status, _out, err = await run_cli(
        "get", "-s", "-Z", "--parallel-max", "10", *flags, "--output-dir", str(tmp_path), *urls
    )
    assert status == 0, err
    assert len(s.served) == 20 and len(os.listdir(tmp_path)) == 20
    assert s.most == most


def test_a_failed_rows_exit_status_needs_nothing_of_the_cli() -> None:
    """The batch is a library (``fetch_many``): a failed row's exit status is the command's
    (omniurl/exitstatus.py, one mapping), read without importing ``omniurl.cli`` (it
    imported ``omniurl.cli.status``, and with it the CLI's package, output and emit: an
    import circle, cli.batch -> batch -> cli)."""
    import subprocess
    import sys

    code = (
        "import sys, omniurl.batch as b\n"
        "from omniurl.resolvers.errors import ConnectError, PolicyError\n"
        "print(b.exit_status_of(ConnectError('x')), b.exit_status_of(PolicyError('x')),"
        " b.exit_status_of(OSError(28, 'full')), b.exit_status_of(ValueError()),"
        " sorted(m for m in sys.modules if m.startswith('omniurl.cli')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout == "4 2 23 1 []\n"


def test_the_exit_statuses_old_module_still_imports() -> None:
    """``omniurl.cli.status`` (docs/cli.md named it the one mapping until the numbers moved
    to omniurl/exitstatus.py) still gives the same names, so a script or plugin that
    imported them from there keeps working."""
    import omniurl.exitstatus as now
    from omniurl.cli import status as old
    from omniurl.resolvers.errors import ConnectError

    assert old.exit_status is now.exit_status
    assert old.exit_status(ConnectError("x")) == 4
    assert (old.EXIT_REFUSED, old.EXIT_WRITE, old.EXIT_INTERRUPTED) == (2, 23, 130)
    # every public name the old module had (2360e3c^), still there, the same object, and in
    # its __all__ (so that ``from omniurl.cli.status import *`` gives each)
    missing = [n for n in OLD_STATUS_NAMES if getattr(old, n, None) is not getattr(now, n)]
    assert missing == []
    assert sorted(old.__all__) == sorted(OLD_STATUS_NAMES)
    star: dict[str, object] = {}
    exec("from omniurl.cli.status import *", star)
    assert {n: star[n] for n in OLD_STATUS_NAMES} == {n: getattr(now, n) for n in OLD_STATUS_NAMES}


#: The public names of ``omniurl.cli.status`` before its numbers moved (2360e3c^).
OLD_STATUS_NAMES = [
    "EXIT_AUTH",
    "EXIT_FAILURE",
    "EXIT_HTTP_FAIL",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_PROTOCOL",
    "EXIT_REFUSED",
    "EXIT_REPLY",
    "EXIT_STATUS_HELP",
    "EXIT_TRANSPORT",
    "EXIT_UNSUPPORTED",
    "EXIT_WRITE",
    "exit_status",
]
