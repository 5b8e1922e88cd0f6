"""10⁵ URLs through ``fetch_many``: peak RSS, file descriptors and stray warnings.

Issue targets: peak RSS under 150 MiB, no file descriptor left open afterwards, no "Task
exception was never retrieved" and no unclosed-resource warning; cancelling the batch half
way leaves no socket open.  The URLs come from a file read lazily (as ``-i`` reads it); the
server is ``omniurl serve gopher`` in a subprocess, so only the client is measured.  The peer
is the same client's resident size before the batch (the figures are "grown by").

    python benchmarks/batch_memory.py [--count 100000] [--concurrency 50]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import os
import resource
import sys
import tempfile
import time
import warnings
from pathlib import Path

from _common import ROOT, client_env, free_port, serving

sys.path.insert(0, str(ROOT))


def rss_mib() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


class Complaints(logging.Handler):
    """Counts what asyncio logs (unretrieved task exceptions, unclosed transports)."""

    def __init__(self) -> None:
        super().__init__()
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record.getMessage())


def lines(path: Path):  # type: ignore[no-untyped-def]
    with path.open() as fh:
        for line in fh:
            yield line.strip()


async def run(listing: Path, count: int, concurrency: int, stop_at: int | None) -> dict[str, float]:
    from omniurl.batch import fetch_many
    from omniurl.resolvers import Options

    done = failed = 0
    started = time.perf_counter()
    results = fetch_many(
        lines(listing), options=Options(read_timeout=30), concurrency=concurrency, per_host=50
    )
    try:
        async for result in results:
            done += 1
            failed += not result.ok
            if stop_at is not None and done >= stop_at:
                break
    finally:
        await results.aclose()  # type: ignore[attr-defined]
    return {"done": done, "failed": failed, "seconds": time.perf_counter() - started}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--concurrency", type=int, default=50)
    args = parser.parse_args()
    complaints = Complaints()
    logging.getLogger("asyncio").addHandler(complaints)
    warnings.simplefilter("always", ResourceWarning)
    with tempfile.TemporaryDirectory() as root:
        for i in range(100):
            Path(root, f"f{i}.txt").write_bytes(b"x" * (1024 + 37 * i) + b"\n")
        listing = Path(root, "urls.txt")
        port = free_port()
        with listing.open("w") as fh:
            for n in range(args.count):
                fh.write(f"gopher://127.0.0.1:{port}/0/f{n % 100}.txt\n")
        server = [sys.executable, "-m", "omniurl", "serve", "gopher", "--root", root,
                  "--port", str(port)]  # fmt: skip
        with serving(server, port, client_env()), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ResourceWarning)
            import omniurl.batch  # (imported before the baseline)
            import omniurl.resolvers.gopher.executor  # noqa: F401

            base_rss, base_fds = rss_mib(), open_fds()
            whole = asyncio.run(run(listing, args.count, args.concurrency, None))
            gc.collect()
            fds_after = open_fds()
            half = asyncio.run(run(listing, args.count, args.concurrency, args.count // 2))
            gc.collect()
            fds_after_cancel = open_fds()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{args.count} URLs at concurrency {args.concurrency}: {whole['done']:.0f} results, "
          f"{whole['failed']:.0f} failed, {whole['seconds']:.1f} s "
          f"({whole['done'] / whole['seconds']:.0f} URLs/s)")  # fmt: skip
    print(f"peak RSS {peak:.1f} MiB (before the batch: {base_rss:.1f} MiB; target < 150 MiB)")
    print(f"file descriptors: {base_fds} before, {fds_after} after, "
          f"{fds_after_cancel} after a batch stopped at {half['done']:.0f}")  # fmt: skip
    resource_warnings = [w for w in caught if issubclass(w.category, ResourceWarning)]
    print(f"asyncio complaints: {len(complaints.records)}; ResourceWarnings: "
          f"{len(resource_warnings)}")  # fmt: skip
    for text in complaints.records[:5]:
        print("  ", text)
    ok = (
        peak < 150
        and fds_after == base_fds
        and fds_after_cancel == base_fds
        and not complaints.records
        and not resource_warnings
        and whole["done"] == args.count
    )
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
