"""Dask benchmark: the same 2,000-URL batch on a 2-worker LocalCluster and in one process.

    python benchmarks/dask_bench.py                       # 2,000 URLs over 4 servers
    python benchmarks/dask_bench.py --urls 500 --json

Four ``omniurl serve gopher`` processes (one core of work each, so the servers are not the
bottleneck of one client process) serve small text items; the URL list spreads over them.
Figures, measured in the same run:

- ``fetch_many``: ``omniurl.batch.fetch_many`` in this process (one event loop);
- ``dask``: ``omniurl.integrations.dask.fetch`` on a ``LocalCluster`` of 2 worker processes
  (cluster start-up not counted: a real cluster is already running), URLs partitioned by
  server so ``per_host`` still holds.

The point is that the job scales out across workers (and machines), not that two cores of
one small machine beat one: the printed ratio is dask / fetch_many throughput.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

from _common import ROOT, free_port, serving

sys.path[:0] = [str(ROOT)]


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--urls", type=int, default=2000)
    ap.add_argument("--servers", type=int, default=4)
    ap.add_argument("--per-host", type=int, default=6)
    ap.add_argument("--concurrency", type=int, default=50)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    from distributed import Client, LocalCluster

    from omniurl.batch import fetch_many
    from omniurl.integrations import dask as odask

    root = Path(tempfile.mkdtemp(prefix="dask-bench-"))
    for i in range(50):
        (root / f"item{i}.txt").write_text(f"item {i}\n" * 40)
    with ExitStack() as stack:
        ports = []
        for _ in range(args.servers):
            port = free_port()
            argv = [
                sys.executable,
                "-m",
                "omniurl",
                "serve",
                "gopher",
                "--root",
                str(root),
                "--port",
                str(port),
            ]
            stack.enter_context(serving(argv, port))
            ports.append(port)
        urls = [
            f"gopher://127.0.0.1:{ports[i % len(ports)]}/0/item{i % 50}.txt"
            for i in range(args.urls)
        ]

        async def single() -> int:
            ok = 0
            async for result in fetch_many(
                urls, concurrency=args.concurrency, per_host=args.per_host
            ):
                ok += result.ok
            return ok

        t0 = time.perf_counter()
        ok_single = asyncio.run(single())
        single_s = time.perf_counter() - t0

        with (
            LocalCluster(
                n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
            ) as cluster,
            Client(cluster),
        ):
            odask.fetch(urls[:10]).compute()  # warm the workers (imports), not counted
            t0 = time.perf_counter()
            rows = odask.fetch(urls, per_host=args.per_host, concurrency=args.concurrency).compute()
            dask_s = time.perf_counter() - t0
        ok_dask = sum(r["ok"] for r in rows)

    figures = {
        "urls": args.urls,
        "servers": args.servers,
        "fetch_many_s": round(single_s, 3),
        "dask_s": round(dask_s, 3),
        "fetch_many_urls_per_s": round(args.urls / single_s, 1),
        "dask_urls_per_s": round(args.urls / dask_s, 1),
        "ratio_dask_over_fetch_many": round(single_s / dask_s, 2),
        "ok": [ok_single, ok_dask],
    }
    if args.json:
        print(json.dumps(figures))
    else:
        print(f"{args.urls} URLs over {args.servers} gopher servers, per_host {args.per_host}")
        print(f"  fetch_many (1 process)        {figures['fetch_many_urls_per_s']:>9} URLs/s")
        print(f"  dask (2 worker processes)     {figures['dask_urls_per_s']:>9} URLs/s")
        print(f"  dask / fetch_many             {figures['ratio_dask_over_fetch_many']:>9}x")
        print(f"  all fetched: {ok_single == args.urls and ok_dask == args.urls}")
    return 0 if ok_single == ok_dask == args.urls else 1


if __name__ == "__main__":
    raise SystemExit(main())
