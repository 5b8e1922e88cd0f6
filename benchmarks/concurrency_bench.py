"""Many gets at once through one ``AsyncClient`` against a raw asyncio client, same run.

    python benchmarks/concurrency_bench.py                  # N=2,000, HTTP and Gopher, 3 runs
    python benchmarks/concurrency_bench.py -n 10000 --repeat 1 --json

Each client is a fresh process that starts N gets of one 4 KiB file with ``asyncio.gather``
and waits for all of them, against ``omniurl serve http`` / ``omniurl serve gopher`` in
another process:

- omniurl: ``AsyncClient()`` with its defaults (6 per server, the rest queued; keep-alive
  for HTTP), ``await client.get(url)`` each;
- raw:     ``asyncio.open_connection`` per get, the request written by hand
  (``Connection: close`` for HTTP), read to the end — no parsing, no policy, no pool.

Figures: wall time of the N gets (medians of ``--repeat`` interleaved runs), how many
succeeded, the process's peak RSS and its open descriptors before and after.  Goals (issue
21): every omniurl get succeeds at N=10,000, descriptors back where they were, and N=2,000
in under 2x the raw client's time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, client_env, free_port, serving

TARGET = 2.0
SIZE = 4096


def fds() -> int:
    return len(os.listdir("/proc/self/fd"))


async def omniurl_gets(url: str, n: int) -> list[bool]:
    sys.path.insert(0, str(ROOT))
    from omniurl.client import AsyncClient

    async with AsyncClient() as client:

        async def one() -> bool:
            try:
                got = await client.get(url)
            except Exception:
                return False
            return isinstance(got, bytes) and len(got) == SIZE

        return await asyncio.gather(*(one() for _ in range(n)))


async def raw_gets(url: str, n: int) -> list[bool]:
    scheme, rest = url.split("://", 1)
    netloc, path = rest.split("/", 1)
    host, port = netloc.rsplit(":", 1)
    if scheme == "http":
        request = f"GET /{path} HTTP/1.1\r\nHost: {netloc}\r\nConnection: close\r\n\r\n"
    else:
        request = path.split("/", 1)[1] + "\r\n"  # the selector after the item type

    async def one() -> bool:
        try:
            reader, writer = await asyncio.open_connection(host, int(port))
            writer.write(request.encode())
            data = await reader.read()
            writer.close()
        except OSError:
            return False
        return len(data) >= SIZE

    return await asyncio.gather(*(one() for _ in range(n)))


def one_run(client: str, url: str, n: int) -> dict[str, float]:
    """In the child process: N gets, timed."""
    before = fds()
    start = time.perf_counter()
    gets = omniurl_gets if client == "omniurl" else raw_gets
    results = asyncio.run(gets(url, n))
    seconds = time.perf_counter() - start
    time.sleep(0.2)  # the last sockets' close reaches the kernel
    return {
        "seconds": seconds,
        "ok": sum(results),
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "fds_before": before,
        "fds_after": fds(),
    }


def measure(client: str, url: str, n: int) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", client, url, str(n)],
        cwd=ROOT, env=client_env(), capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    if out.returncode != 0:
        raise RuntimeError(f"{client}: {out.stderr[-800:]}")
    figures: dict[str, float] = json.loads(out.stdout)
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("-n", type=int, default=2000, help="gets at once (2000)")
    parser.add_argument("--repeat", type=int, default=3, help="interleaved runs; medians count")
    parser.add_argument("--only", choices=("http", "gopher"), help="one protocol only")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        client, url, n = args.child
        print(json.dumps(one_run(client, url, int(n))))
        return 0
    results: dict[str, dict[str, object]] = {}
    with tempfile.TemporaryDirectory(prefix="omniurl-concurrency-") as tmp:
        (Path(tmp) / "f.bin").write_bytes(os.urandom(SIZE))
        for proto in ("http", "gopher"):
            if args.only and proto != args.only:
                continue
            port = free_port()
            argv_ = [sys.executable, "-m", "omniurl", "serve", proto, "--root", tmp,
                     "--port", str(port)]  # fmt: skip
            item = "/f.bin" if proto == "http" else "/9/f.bin"
            url = f"{proto}://127.0.0.1:{port}{item}"
            runs: dict[str, list[dict[str, float]]] = {"raw": [], "omniurl": []}
            with serving(argv_, port, env=client_env()):
                for _ in range(args.repeat):
                    for client in ("raw", "omniurl"):
                        runs[client].append(measure(client, url, args.n))
            row: dict[str, object] = {"n": args.n, "server": f"omniurl serve {proto}"}
            for client, rs in runs.items():
                row[client] = {
                    "seconds": round(statistics.median(r["seconds"] for r in rs), 3),
                    "ok": min(int(r["ok"]) for r in rs),
                    "peak_rss_mib": round(max(r["peak_rss_mib"] for r in rs), 1),
                    "fds_left": max(int(r["fds_after"] - r["fds_before"]) for r in rs),
                }
            o, r = row["omniurl"], row["raw"]
            assert isinstance(o, dict) and isinstance(r, dict)
            row["ratio"] = round(o["seconds"] / max(r["seconds"], 1e-9), 2)
            row["target"] = TARGET
            results[proto] = row
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    ok = True
    for proto, row in results.items():
        print(f"{proto}: {row['n']} gets at once of one 4 KiB file from {row['server']}, "
              f"medians of {args.repeat}")  # fmt: skip
        for client in ("raw", "omniurl"):
            c = row[client]
            assert isinstance(c, dict)
            print(f"  {client:8} {c['seconds']:7.3f} s  {c['ok']:>6} ok  "
                  f"{c['peak_rss_mib']:6.1f} MiB peak  {c['fds_left']} fds left")  # fmt: skip
        o = row["omniurl"]
        assert isinstance(o, dict)
        print(f"  time omniurl/raw: {row['ratio']}x (target < {TARGET}x)")
        ok = ok and o["ok"] == row["n"] and o["fds_left"] <= 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
