"""``omniurl mirror --dask``: the file transfers on a Dask cluster give the same folder
(names, bytes, times) and the same manifest rows as one process, and a second run moves
nothing (docs/mirror.md)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _ftphttp import VSFTPD, running, start_vsftpd, world_readable_tree
from helpers import StallingGopher
from test_mirror import (
    OPTS,
    TREE,
    cli_env,
    cut_off_then_continued,
    koi8_mirrored,
    tree_of,
    write_tree,
)

from omniurl import testservers
from omniurl.batch import FetchResult
from omniurl.mirror.run import Config, Counts, mirror

distributed = pytest.importorskip("distributed", reason="the [dask] extra is not installed")

#: A file large enough for ``-C``'s resumable transfer (omniurl.mirror.run.RESUMED_FROM).
BIG = bytes(range(251)) * 5000


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """Two worker threads in this process (processes=False: quick to start on a busy
    machine; the tasks still run on the workers' threads, each with its own event loop)."""
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0"
    ) as local:
        yield local.scheduler_address


async def run_mirror(
    url: str, folder: Path, dask: str | None
) -> tuple[int, Counts, list[FetchResult]]:
    rows: list[FetchResult] = []
    config = Config(url=url, folder=folder, dask=dask, concurrency=3)
    status, counts = await asyncio.wait_for(mirror(config, OPTS, rows.append), 120)
    return status, counts, rows


def comparable(rows: list[FetchResult], folder: Path) -> list[dict[str, Any]]:
    """The manifest rows by URL, less the time taken and the index (the order found, which
    three transfers at once vary run to run, one process or not), paths under the folder."""
    out = []
    for row in rows:
        data = FetchResult.to_json(row)
        data.pop("elapsed")
        data.pop("index")
        if data["path"]:
            data["path"] = Path(data["path"]).relative_to(folder).as_posix()
        out.append(data)
    return sorted(out, key=lambda d: d["url"])


def times(folder: Path) -> dict[str, float]:
    return {
        p.relative_to(folder).as_posix(): p.stat().st_mtime
        for p in folder.rglob("*")
        if p.is_file() and ".omniurl-mirror" not in p.parts
    }


@pytest.mark.parametrize("scheme", ["ftp", "http"])
async def test_dask_mirror_equals_one_process_then_moves_nothing(
    scheme: str, tmp_path: Path, cluster: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from omniurl.mirror.dask import FileDone, FileJob, RemoteFiles

    submitted: list[str] = []
    run = RemoteFiles._run

    async def counted(self: RemoteFiles, job: FileJob) -> FileDone:
        submitted.append(Path(job.tmp).parent.parent.parent.name)
        return await run(self, job)

    monkeypatch.setattr(RemoteFiles, "_run", counted)
    root = write_tree(tmp_path / "src", {**TREE, "sub/big.bin": BIG})
    os.utime(root / "sub/big.bin", (1_700_000_100, 1_700_000_100))
    async with await testservers.start(scheme, root) as server:
        url = f"{scheme}://127.0.0.1:{server.port}/"
        one, dask = tmp_path / "one", tmp_path / "dask"
        s1, _c1, rows1 = await run_mirror(url, one, None)
        s2, c2, rows2 = await run_mirror(url, dask, cluster)
        assert (s1, s2) == (0, 0)
        assert tree_of(dask) == tree_of(one)
        assert tree_of(dask)["sub/big.bin"] == BIG
        if scheme == "ftp":  # MLSD's modify fact, set on the file (the test HTTP server
            # sends no Last-Modified: there each run's files carry their own write time)
            assert times(dask) == times(one)
            assert times(dask)["sub/big.bin"] == 1_700_000_100
        assert comparable(rows2, dask) == comparable(rows1, one)
        assert c2.fetched == len([r for r in rows1 if r.sha256]) > 0
        assert not list((dask / ".omniurl-mirror").glob("tmp/*"))
        files = [r for r in rows1 if r.kind == "content" and r.sha256]
        assert submitted == ["dask"] * len(files)  # each file a task; one process: none

        # nothing changed: nothing is written again (FTP: the listing says so, nothing is
        # transferred; the test HTTP server sends no validators: fetched, found the same)
        before = times(dask)
        s3, c3, rows3 = await run_mirror(url, dask, cluster)
        _s, _c, again = await run_mirror(url, one, None)
        assert s3 == 0
        assert c3.fetched == 0
        assert comparable(rows3, dask) == comparable(again, one)
        if scheme == "ftp":
            assert [r for r in rows3 if r.sha256 or (r.bytes and r.kind == "content")] == []
        assert all(r.ok for r in rows3)
        assert tree_of(dask) == tree_of(one)
        assert times(dask) == before

        # one changed file: only it is written
        (root / "a.txt").write_bytes(b"ALPHA, longer now\n")
        s4, c4, _rows4 = await run_mirror(url, dask, cluster)
        assert (s4, c4.fetched) == (0, 1)
        assert (dask / "a.txt").read_bytes() == b"ALPHA, longer now\n"


async def test_a_failed_transfer_is_its_row_and_status(tmp_path: Path, cluster: str) -> None:
    root = write_tree(tmp_path / "src", TREE)
    (root / "page.html").write_text('<a href="missing.txt">gone</a>')
    async with await testservers.start("http", root) as server:
        url = f"http://127.0.0.1:{server.port}/"
        s1, _c, rows1 = await run_mirror(url, tmp_path / "one", None)
        s2, _c, rows2 = await run_mirror(url, tmp_path / "dask", cluster)
    assert s1 == s2 == 5
    assert comparable(rows2, tmp_path / "dask") == comparable(rows1, tmp_path / "one")
    assert not (tmp_path / "dask/missing.txt").exists()


async def test_cli_dask_local_cluster(tmp_path: Path) -> None:
    """``--dask local:1``: a LocalCluster of one worker process, started and closed by the
    command; the manifest's rows are the one-process run's."""
    from helpers import run_omniurl

    root = write_tree(tmp_path / "src", TREE)
    async with await testservers.start("ftp", root) as server:
        url = f"ftp://127.0.0.1:{server.port}/"
        results = []
        for name, extra in (("one", []), ("dask", ["--dask", "local:1"])):
            code, _out, err = await run_omniurl(
                "mirror", url, str(tmp_path / name), "-s",
                "--manifest", str(tmp_path / f"{name}.jsonl"), *extra,
                timeout=120, env=cli_env(),
            )  # fmt: skip
            assert code == 0, err
            rows = [json.loads(x) for x in (tmp_path / f"{name}.jsonl").read_text().splitlines()]
            for row in rows:  # (the index: the order found, which transfers at once vary)
                row.pop("elapsed")
                row.pop("index")
                if row["path"]:
                    row["path"] = Path(row["path"]).relative_to(tmp_path / name).as_posix()
            results.append(sorted(rows, key=lambda r: r["url"]))
    assert results[0] == results[1]
    assert tree_of(tmp_path / "dask") == tree_of(tmp_path / "one") == tree_of(root)


#: The stalling hole's menu: ``slow`` and this many items.
ITEMS = 6


@pytest.fixture
def one_process_worker() -> Iterator[tuple[str, int]]:
    """A cluster of one worker *process* (a nanny restarts it when it is killed)."""
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as local,
        distributed.Client(local, set_as_default=False) as client,
    ):
        (pid,) = client.run(os.getpid).values()
        yield local.scheduler_address, pid


async def test_a_sigkilled_worker_leaves_the_folder_equal_to_the_manifest(
    tmp_path: Path, one_process_worker: tuple[str, int]
) -> None:
    """The worker SIGKILLed in the middle of a file: Dask runs the task again on the
    restarted worker (the same temporary name), and DIR holds exactly the manifest's files,
    whole, no temporary file left."""
    address, pid = one_process_worker
    hole = StallingGopher(menu_items=ITEMS)
    await hole.start()
    out = tmp_path / "out"
    try:
        job = asyncio.ensure_future(run_mirror(f"gopher://127.0.0.1:{hole.port}/1", out, address))
        assert await asyncio.to_thread(hole.half_sent.wait, 60)
        for _ in range(200):  # the worker's temporary file holds the first half
            parts = list((out / ".omniurl-mirror/tmp").glob("dask-*.part"))
            if parts and parts[0].stat().st_size > 0:
                break
            await asyncio.sleep(0.05)
        assert parts
        os.kill(pid, signal.SIGKILL)
        status, _counts, rows = await job
    finally:
        await hole.close()
    assert status == 0
    assert hole.slow_asked == 2  # the task ran again
    assert all(r.ok for r in rows), rows
    files = {Path(r.path).relative_to(out).as_posix() for r in rows if r.sha256 and r.path}
    got = tree_of(out, skip_menus=True)
    assert set(got) == files == {"slow"} | {f"item{i}" for i in range(ITEMS)}
    assert got["slow"] == StallingGopher.SLOW
    assert got["item3"] == b"item item3\n"
    assert not (out / ".omniurl-mirror/tmp").exists()


async def test_a_task_the_cluster_loses_is_a_typed_row_not_a_traceback(
    tmp_path: Path, cluster: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A task that fails on the cluster itself (here: raises what no transfer raises; in
    life KilledWorker after its retries) is the file's failed row, TransportError (exit 4),
    and nothing is left under a final name."""
    import omniurl.mirror.dask as mdask

    def broken(job: mdask.FileJob) -> mdask.FileDone:
        raise RuntimeError("the worker is gone")

    monkeypatch.setattr(mdask, "fetch_file", broken)
    root = write_tree(tmp_path / "src", {"a.txt": b"alpha\n"})
    async with await testservers.start("ftp", root) as server:
        url = f"ftp://127.0.0.1:{server.port}/"
        status, _counts, rows = await run_mirror(url, tmp_path / "out", cluster)
    (row,) = [r for r in rows if not r.ok]
    assert status == row.exit_status == 4  # (a transport failure's, as get's)
    assert row.error_type == "TransportError"
    assert row.url == url + "a.txt"
    assert "the cluster did not run the transfer (RuntimeError: the worker is gone)" in str(
        row.error_message
    )
    assert tree_of(tmp_path / "out") == {}


def test_an_unexpected_error_on_a_worker_is_the_row_one_process_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A defect in a worker's transfer is that file's row — the error's type, status 1,
    "unexpected …" — as in one process (Mirror._visit), not the cluster's loss of the task
    (a TransportError, status 4)."""
    from omniurl.mirror import dask as dask_module

    async def broken(job: object) -> object:
        raise ValueError("a defect")

    monkeypatch.setattr(dask_module, "_fetch_file", broken)
    job = dask_module.FileJob(0, "http://127.0.0.1:9/a.txt", OPTS, str(tmp_path / "t.part"))
    done = dask_module.fetch_file(job)
    assert done.failed is not None
    assert (done.failed.error_type, done.failed.exit_status) == ("ValueError", 1)
    assert done.failed.error_message == "http://127.0.0.1:9/a.txt: unexpected ValueError: a defect"


async def test_a_large_linked_file_cut_off_continues_on_the_cluster(
    tmp_path: Path, cluster: str
) -> None:
    """A file found through a link (its size known from its response only), 2 MiB, cut off
    half way: the worker kept its part (``-C``'s, in ``parts``), the next run's worker
    continues it with ``Range`` and ``If-Range``, and the run after asks with the continued
    response's ETag (a 304) — as one process does.  It was fetched whole into a temporary
    file every run, and a continued file's validators were not kept."""

    async def run(url: str, folder: Path) -> tuple[int, Counts, list[FetchResult]]:
        return await run_mirror(url, folder, cluster)

    await cut_off_then_continued(tmp_path, run)


async def test_a_page_a_worker_fetched_is_read_in_its_content_types_charset(
    tmp_path: Path, cluster: str
) -> None:
    """A page fetched on a worker carries the charset its Content-Type declared back to the
    client, which reads its links in it and keeps it in the state for the 304 re-run (as
    one process does: test_mirror's koi8_mirrored)."""

    async def run(url: str, folder: Path, delete: bool = False) -> tuple[int, Counts, list]:
        rows: list[FetchResult] = []
        config = Config(url=url, folder=folder, dask=cluster, concurrency=3, delete=delete)
        status, counts = await asyncio.wait_for(mirror(config, OPTS, rows.append), 120)
        return status, counts, rows

    await koi8_mirrored(tmp_path, run)


@pytest.mark.skipif(not os.path.exists(VSFTPD), reason="vsftpd not installed")
async def test_a_list_servers_exact_times_ride_the_workers_transfers(
    tmp_path: Path, cluster: str
) -> None:
    """vsftpd lists with LIST (minutes): each file's exact time is its MDTM, which the worker
    asks in the transfer's own conversation, as one process does (FTPOptions.mdtm) — the
    client asked it again, in a second resolve a file (TYPE I, SIZE, MDTM), after each
    worker's transfer."""
    files = {name: data for name, data in TREE.items() if not name.endswith("/")}
    with world_readable_tree(files) as root:
        for path in root.rglob("*"):
            if path.is_file():
                os.utime(path, (1_700_000_000, 1_700_000_000))
        async with running(start_vsftpd, root, tmp_path / "scratch") as netloc:
            sent: list[str] = []
            opts = OPTS.with_(transcript=lambda d, t: sent.append(f"{d} {t}"))
            rows: list[FetchResult] = []
            config = Config(url=f"ftp://{netloc}/", folder=tmp_path / "out", dask=cluster)
            status, counts = await asyncio.wait_for(mirror(config, opts, rows.append), 120)
        assert status == 0, [r.error_message for r in rows if not r.ok]
        assert counts.fetched == len(files)
        assert tree_of(tmp_path / "out") == tree_of(root)
    assert set(times(tmp_path / "out").values()) == {1_700_000_000}  # MDTM's, not LIST's
    asked = [line[2:].split(" ")[0] for line in sent if line.startswith("> ")]
    assert "LIST" in asked and "SIZE" not in asked and "MDTM" not in asked  # (the client's)
