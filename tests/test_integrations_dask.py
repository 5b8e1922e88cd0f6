"""Dask: gopher URLs read by dask.bag / dask.dataframe on a 2-worker LocalCluster, and the
batch partitioned by host (omniurl.integrations.dask) — per-host limits proven by the
servers' own counters, the Parquet manifest one row per URL, the CLI's --dask."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

dask = pytest.importorskip("dask", reason="the [dask] extra is not installed")
distributed = pytest.importorskip("distributed", reason="the [dask] extra is not installed")
pytest.importorskip("pyarrow", reason="the [dask] extra is not installed")
pytest.importorskip("fsspec", reason="the [dask] extra is not installed")

import dask.bag as db  # noqa: E402
import dask.dataframe as dd  # noqa: E402
import pandas as pd  # noqa: E402
from helpers import ROOT, StallingGopher  # noqa: E402

from omniurl import testservers  # noqa: E402
from omniurl.integrations import dask as odask  # noqa: E402


class Counting:
    """A Gopher server that counts the connections open at once (the per-host proof)."""

    def __init__(self) -> None:
        self.now = 0
        self.peak = 0
        self.served = 0
        self.port = 0
        self.server: asyncio.Server | None = None

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.now += 1
        self.peak = max(self.peak, self.now)
        try:
            selector = (await reader.readline()).rstrip(b"\r\n")
            await asyncio.sleep(0.004)  # long enough for requests to overlap
            writer.write(b"item " + selector + b"\r\n.\r\n")
            await writer.drain()
            self.served += 1
        finally:
            self.now -= 1
            writer.close()

    async def start(self) -> None:
        self.server = await asyncio.start_server(self.handle, "127.0.0.1", 0, backlog=512)
        self.port = self.server.sockets[0].getsockname()[1]


@pytest.fixture(scope="module")
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    """Servers run on their own loop in a thread: Dask computes block the test's thread."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    yield loop
    loop.call_soon_threadsafe(loop.stop)
    thread.join(10)
    loop.close()


@pytest.fixture(scope="module")
def gopher(
    loop: asyncio.AbstractEventLoop, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    root = tmp_path_factory.mktemp("gopher")
    (root / "a.txt").write_text("line one\nline two\n")
    (root / "a.csv").write_text("x,y\n1,2\n3,4\n")
    (root / "b.csv").write_text("x,y\n5,6\n")
    server: Any = asyncio.run_coroutine_threadsafe(testservers.start("gopher", root), loop).result(
        10
    )
    yield f"gopher://127.0.0.1:{server.port}"
    asyncio.run_coroutine_threadsafe(server.close(), loop).result(10)


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """Two worker *processes*: what they import (omniurl's fsspec entry points, the
    resolvers' registry) they find on their own, as on a real cluster."""
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as local,
        distributed.Client(local) as client,
    ):
        yield client


def test_bag_read_text_of_gopher_urls(cluster: Any, gopher: str) -> None:
    lines = db.read_text([f"{gopher}/0/a.txt", f"{gopher}/0/a.txt"]).compute()
    assert [line.rstrip("\r\n") for line in lines] == ["line one", "line two"] * 2


def test_dataframe_read_csv_of_gopher_urls(cluster: Any, gopher: str) -> None:
    frame = dd.read_csv([f"{gopher}/0/a.csv", f"{gopher}/0/b.csv"], blocksize=None).compute()
    assert frame.to_dict("list") == {"x": [1, 3, 5], "y": [2, 4, 6]}


def test_partitions_never_split_a_host() -> None:
    urls = [f"gopher://127.0.0.1:{7000 + i % 5}/0/{i}" for i in range(50)] + ["no scheme"]
    parts = odask.partition_by_host(urls, npartitions=3)
    assert len(parts) == 3
    ports = [{u.split(":")[2].split("/")[0] for _, u in part if "://" in u} for part in parts]
    assert sum(len(p) for p in ports) == 5  # each port in exactly one partition
    assert sorted(i for part in parts for i, _ in part) == list(range(51))


def test_2000_urls_over_4_servers_keep_per_host_limits(
    cluster: Any, loop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    servers = [Counting() for _ in range(4)]
    for server in servers:
        asyncio.run_coroutine_threadsafe(server.start(), loop).result(10)
    urls = [f"gopher://127.0.0.1:{servers[i % 4].port}/0/item{i}" for i in range(2000)]
    manifest = tmp_path / "manifest.parquet"
    frame = odask.fetch(urls, per_host=3, concurrency=20, manifest=manifest)
    rows = frame.compute()
    assert len(rows) == 2000 and sorted(rows["index"]) == list(range(2000))
    assert rows["ok"].all()
    table = pd.read_parquet(manifest)
    assert len(table) == 2000 and table["index"].is_unique
    assert list(table.columns) == [f.name for f in odask.MANIFEST_SCHEMA]
    for server in servers:
        assert server.served == 500
        assert 1 <= server.peak <= 3  # the per-host limit held across both workers
    for server in servers:
        assert server.server is not None
        loop.call_soon_threadsafe(server.server.close)


def test_cli_dask_local_writes_the_batch_manifest(gopher: str, tmp_path: Path) -> None:
    urls = tmp_path / "urls.txt"
    urls.write_text("".join(f"{gopher}/0/a.txt\n" for _ in range(6)) + "gopher://h:99999/\n")
    manifest = tmp_path / "m.jsonl"
    (tmp_path / "out").mkdir()  # (a missing --output-dir is refused before anything is fetched)
    proc = subprocess.run(
        [
            sys.executable, "-m", "omniurl", "get", "-i", str(urls), "--dask", "local:2",
            "--manifest", str(manifest), "--output-dir", str(tmp_path / "out"),
        ],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=tmp_path,
        # this checkout's omniurl, in the command and in the workers it starts, whatever
        # copy is installed
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    rows = [json.loads(line) for line in manifest.read_text().splitlines()]
    assert [r["index"] for r in rows] == list(range(7))
    assert [r["ok"] for r in rows] == [True] * 6 + [False]
    assert rows[6]["error_type"] == "PortError"
    assert set(rows[0]) == {
        "index", "url", "ok", "error_type", "error_message", "exit_status", "bytes",
        "sha256", "media_type", "kind", "elapsed", "chain", "path",
    }  # fmt: skip
    assert len(list((tmp_path / "out").iterdir())) == 6
    assert proc.returncode == 2, proc.stderr  # the batch's status: one URL was refused


def test_names_are_decided_before_scheduling_and_a_rerun_replaces_its_own_files(
    gopher: str, tmp_path: Path
) -> None:
    """A retried partition (run twice here, after a killed attempt left a partial file and
    a file it finished) writes the same names again: one file per URL, nothing else."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "a.csv").write_text("not ours\n")  # a file already there is never replaced
    urls = [f"{gopher}/0/a.txt"] * 3 + [f"{gopher}/0/a.csv", "gopher://h:99999/"]
    parts = odask.assign_names(odask.partition_by_host(urls), str(out))
    names = {index: name for part in parts for index, _, name in part}
    assert names == {0: "a.txt", 1: "a.1.txt", 2: "a.2.txt", 3: "a.1.csv", 4: None}
    # what a worker killed mid-partition leaves: one file finished, one half written
    (out / "a.txt").write_text("line one\n")
    (out / ".a.1.txt.fixed.part").write_text("line")
    runs = []
    for _attempt in range(2):
        rows = [
            row
            for part in parts
            for row in odask._run_partition(
                part, options=odask.Options(), concurrency=4, per_host=2, output=str(out)
            )
        ]
        runs.append(sorted((r["index"], r["path"]) for r in rows))
    assert runs[0] == runs[1]
    listed = {Path(p).name for _, p in runs[0] if p}
    assert sorted(p.name for p in out.iterdir()) == sorted(listed | {"a.csv"})
    assert (out / "a.txt").read_bytes() == (out / "a.2.txt").read_bytes() != b"line one\n"
    assert (out / "a.csv").read_text() == "not ours\n"


def test_a_killed_worker_leaves_no_orphan(loop: asyncio.AbstractEventLoop, tmp_path: Path) -> None:
    """A worker killed (SIGKILL) in the middle of a partition: Dask retries the task on the
    restarted worker, and the folder holds exactly the manifest's files."""
    import os
    import signal
    import time

    server = StallingGopher()
    asyncio.run_coroutine_threadsafe(server.start(), loop).result(10)
    urls = [f"gopher://127.0.0.1:{server.port}/9/item{i}" for i in range(12)]
    urls.insert(6, f"gopher://127.0.0.1:{server.port}/9slow")
    out = tmp_path / "out"
    with (
        # its own cluster (the module's keeps its workers); ":0": the module's holds 8787
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as local,
        distributed.Client(local, set_as_default=False) as client,
    ):
        pids = list(client.run(os.getpid).values())
        future = client.compute(odask.fetch(urls, output=out, concurrency=1))
        assert server.half_sent.wait(60)
        deadline = time.monotonic() + 10
        while not list(out.glob(".*.part")) and time.monotonic() < deadline:
            time.sleep(0.05)
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        rows = future.result(timeout=120)
    assert server.slow_asked == 2  # the task ran again
    assert sorted(r["index"] for r in rows) == list(range(13))
    assert all(r["ok"] for r in rows), rows
    listed = sorted(Path(r["path"]).name for r in rows)
    assert sorted(p.name for p in out.iterdir()) == listed  # no orphan, no .part
    slow = next(r["path"] for r in rows if r["url"].endswith("slow"))
    assert Path(slow).read_bytes() == StallingGopher.SLOW
    asyncio.run_coroutine_threadsafe(server.close(), loop).result(10)


def test_a_relative_output_dir_is_the_callers(
    cluster: Any, gopher: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The workers were started in another working directory: "out" is the caller's."""
    monkeypatch.chdir(tmp_path)
    rows = odask.fetch([f"{gopher}/0/a.txt"], output="out").compute()
    assert rows[0]["ok"] and rows[0]["path"] == str(tmp_path / "out" / "a.txt")
    assert (tmp_path / "out" / "a.txt").read_bytes() == b"line one\r\nline two\r\n"


def test_a_relative_output_dir_is_refused_for_a_remote_scheduler() -> None:
    from omniurl.resolvers.errors import ConfigurationError

    with pytest.raises(ConfigurationError) as info:
        list(
            odask.run_cli(
                ["gopher://h.example/0/a"], odask.Options(), scheduler="tcp://127.0.0.1:9",
                concurrency=1, per_host=1, output_dir="out",
            )
        )  # fmt: skip
    assert info.value.component == "output" and "fsspec URL" in str(info.value)
