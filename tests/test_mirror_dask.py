"""``omniurl mirror --dask``: the file transfers on a Dask cluster give the same folder
(names, bytes, times) and the same manifest rows as one process, and a second run moves
nothing (docs/mirror.md)."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_mirror import OPTS, TREE, cli_env, tree_of, write_tree

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
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
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
