"""Gopher benchmark: omniurl vs curl against the same local server, in the same run.

    python benchmarks/gopher_bench.py                  # 256 MiB file, 2,000 requests at 50
    python benchmarks/gopher_bench.py --size 1G --json

The server is omniurl's own (``omniurl serve gopher``, a separate process; it sends files with
``sendfile``), serving a large binary (type 9) and small text files (type 0).

- Large file: ``curl -s -o /dev/null URL`` against ``omniurl get URL > /dev/null``, each a
  separate process.  Two ratios (omniurl throughput / curl throughput): ``whole`` (bytes /
  wall time, interpreter start-up included) and ``transfer`` (the same with each command's
  time for a 1-byte file taken out: start-up and connect removed for both tools).
- Many small requests: 2,000 requests for small text files, at most 50 at a time.  curl:
  one ``curl --parallel --parallel-max 50`` process given every URL; omniurl: one process
  resolving them with ``omniurl.resolve`` under a semaphore of 50 (the library's async API,
  which is what concurrency means for it).  Ratios of requests per second, omniurl / curl:
  ``whole`` (process wall time) and ``net`` (each tool's time for one request taken out).

``OMNIURL_BENCH_INSTALLED=1 VENV/bin/python benchmarks/gopher_bench.py`` measures that
venv's install (``pip install .``: what a user runs) instead of this checkout.

The machine's load shows in every figure: run it on a quiet machine, and read the two tools'
numbers side by side (they are measured in the same run, against the same server).

Targets (issue 4): >= 0.9x on the large file, >= 1.0x on the many small requests.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import (
    INSTALLED,
    ROOT,
    client_env,
    free_port,
    parse_size,
    serving,
    write_random_file,
)

if not INSTALLED:  # (OMNIURL_BENCH_INSTALLED=1: the install of the interpreter running this)
    sys.path.insert(0, str(ROOT))
TARGETS = {"large": 0.9, "small": 1.0}


def timed(argv: list[str]) -> float:
    """Wall time of one client process (output to /dev/null); raise if it fails."""
    start = time.perf_counter()
    # ``python -m omniurl`` puts its working directory first on sys.path: from the checkout,
    # an installed interpreter would run the checkout's omniurl, not its install
    proc = subprocess.run(
        argv, cwd=tempfile.gettempdir() if INSTALLED else ROOT, env=client_env(),
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        timeout=600, check=False,
    )  # fmt: skip
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"{argv[:4]} exited {proc.returncode}: {proc.stderr.decode()[-500:]}")
    return seconds


# -- the omniurl side of the many-small-requests run (a subprocess of this script) -----------


async def _many(urls: list[str], concurrency: int) -> int:
    from omniurl.resolvers import Options, resolve

    options = Options()
    gate = asyncio.Semaphore(concurrency)
    total = 0

    async def one(url: str) -> None:
        nonlocal total
        async with gate, await resolve(url, options) as resource:
            async for chunk in resource:
                total += len(chunk)

    await asyncio.gather(*(one(u) for u in urls))
    return total


def client_many(url_file: str, concurrency: int) -> int:
    urls = Path(url_file).read_text().split()
    total = asyncio.run(_many(urls, concurrency))
    if total == 0:
        return 1
    return 0


# -- the benchmark --------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--size", default="256M", help="large file size (256M)")
    parser.add_argument("--requests", type=int, default=2000, help="small requests (2000)")
    parser.add_argument("--concurrency", type=int, default=50, help="at a time (50)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per client; best counts")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--client-many", nargs=2, metavar=("URLFILE", "N"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.client_many:
        return client_many(args.client_many[0], int(args.client_many[1]))
    if shutil.which("curl") is None:
        print("curl is not installed: nothing to compare with", file=sys.stderr)
        return 2
    size = parse_size(args.size)
    with tempfile.TemporaryDirectory(prefix="omniurl-gopher-bench-") as tmp:
        root = Path(tmp) / "root"
        (root / "small").mkdir(parents=True)
        write_random_file(root / "big.bin", size)
        (root / "tiny.bin").write_bytes(b"x")
        for i in range(100):
            (root / "small" / f"f{i:03}.txt").write_text(f"small file {i}\n" * 20)
        port = free_port()
        argv = [sys.executable, "-m", "omniurl", "serve", "gopher", "--root", str(root),
                "--port", str(port)]  # fmt: skip
        with serving(argv, port, env=client_env()):
            base = f"gopher://127.0.0.1:{port}"
            results = {
                "large": bench_large(base, size, args.repeat),
                "small": bench_small(base, Path(tmp), args.requests, args.concurrency,
                                     args.repeat),
            }  # fmt: skip
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    large, small = results["large"], results["small"]
    print(f"large file: {size / (1 << 20):.0f} MiB type 9, best of {args.repeat}")
    for client in ("curl", "omniurl"):
        r = large[client]
        print(f"  {client:8} {r['seconds']:7.3f} s  {r['whole_mib_s']:8.1f} MiB/s whole  "
              f"{r['transfer_mib_s']:8.1f} MiB/s transfer")  # fmt: skip
    print(f"  ratio: whole {large['ratio_whole']}x, transfer {large['ratio_transfer']}x "
          f"(target >= {TARGETS['large']}x)")  # fmt: skip
    print(f"small requests: {args.requests} at concurrency {args.concurrency}, best of "
          f"{args.repeat}")  # fmt: skip
    for client in ("curl", "omniurl"):
        r = small[client]
        print(f"  {client:8} {r['seconds']:7.3f} s  {r['requests_s']:8.0f} requests/s whole  "
              f"{r['net_requests_s']:8.0f} requests/s net")  # fmt: skip
    print(f"  ratio: whole {small['ratio_whole']}x, net {small['ratio_net']}x "
          f"(target >= {TARGETS['small']}x)")  # fmt: skip
    return 0


def bench_large(base: str, size: int, repeat: int) -> dict[str, object]:
    omniurl = [sys.executable, "-m", "omniurl", "get"]
    clients = {"curl": ["curl", "-s", "-o", "/dev/null"], "omniurl": omniurl}
    row: dict[str, object] = {"bytes": size}
    for client, argv in clients.items():
        tiny = min(timed([*argv, f"{base}/9/tiny.bin"]) for _ in range(repeat))
        best = min(timed([*argv, f"{base}/9/big.bin"]) for _ in range(repeat))
        row[client] = {
            "seconds": round(best, 3),
            "startup_seconds": round(tiny, 3),
            "whole_mib_s": round(size / best / (1 << 20), 1),
            "transfer_mib_s": round(size / max(best - tiny, 1e-6) / (1 << 20), 1),
        }
    o, c = row["omniurl"], row["curl"]
    assert isinstance(o, dict) and isinstance(c, dict)
    row["ratio_whole"] = round(o["whole_mib_s"] / c["whole_mib_s"], 2)
    row["ratio_transfer"] = round(o["transfer_mib_s"] / c["transfer_mib_s"], 2)
    row["target"] = TARGETS["large"]
    return row


def bench_small(base: str, tmp: Path, n: int, concurrency: int, repeat: int) -> dict[str, object]:
    urls = [f"{base}/0/small/f{i % 100:03}.txt" for i in range(n)]

    def argv(client: str, some: list[str], name: str) -> list[str]:
        if client == "curl":
            config = tmp / f"{name}.cfg"
            config.write_text("".join(f'url = "{u}"\noutput = "/dev/null"\n' for u in some))
            return ["curl", "-s", "--parallel", "--parallel-max", str(concurrency), "-K",
                    str(config)]  # fmt: skip
        url_file = tmp / f"{name}.txt"
        url_file.write_text("\n".join(some) + "\n")
        return [sys.executable, str(Path(__file__).resolve()), "--client-many", str(url_file),
                str(concurrency)]  # fmt: skip

    row: dict[str, object] = {"requests": n, "concurrency": concurrency}
    for client in ("curl", "omniurl"):
        one = min(timed(argv(client, urls[:1], f"{client}-one")) for _ in range(repeat))
        best = min(timed(argv(client, urls, f"{client}-all")) for _ in range(repeat))
        row[client] = {
            "seconds": round(best, 3),
            "startup_seconds": round(one, 3),
            "requests_s": round(n / best, 1),
            "net_requests_s": round((n - 1) / max(best - one, 1e-6), 1),
        }
    o, c = row["omniurl"], row["curl"]
    assert isinstance(o, dict) and isinstance(c, dict)
    row["ratio_whole"] = round(o["requests_s"] / c["requests_s"], 2)
    row["ratio_net"] = round(o["net_requests_s"] / c["net_requests_s"], 2)
    row["target"] = TARGETS["small"]
    return row


if __name__ == "__main__":
    sys.exit(main())
