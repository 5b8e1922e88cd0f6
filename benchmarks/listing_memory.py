"""Peak memory of ``omniurl get`` printing huge listings: flat, whatever the listing's size.

    python benchmarks/listing_memory.py                  # 10^4, 10^5, 10^6 entries
    python benchmarks/listing_memory.py --sizes 1000 1000000 --json

For each listing kind — a Gopher menu, an FTP ``NLST``, an NNTP ``LIST ACTIVE`` — an
``omniurl serve adversary`` process generates N entries lazily, and ``omniurl get URL``
prints them to /dev/null.  The figure is the client's peak RSS (``wait4``'s ru_maxrss), so
the server's own memory never counts.  Before issue 14 a 10^7-item menu took 3.6 GB; the
target is that the peak does not grow with N (streamed entries, a bounded window).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

from _common import ROOT, client_env, free_port, serving

KINDS = {
    "gopher menu": ("huge-gopher-menu", "gopher://127.0.0.1:{port}/1/"),
    "ftp NLST": ("huge-ftp-nlst", "ftp://127.0.0.1:{port}/dir/"),
    "nntp LIST": ("huge-nntp-list", "news://127.0.0.1:{port}/*"),
}


def peak_rss_mib(argv: list[str]) -> tuple[float, float, int]:
    """Run ``argv`` (stdout to /dev/null); its peak RSS in MiB, seconds, exit status."""
    start = time.perf_counter()
    with open(os.devnull, "wb") as devnull:
        proc = subprocess.Popen(argv, cwd=ROOT, env=client_env(), stdout=devnull, stderr=devnull)
        _pid, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_maxrss / 1024, time.perf_counter() - start, proc.returncode


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--sizes", type=int, nargs="+", default=[10**4, 10**5, 10**6])
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    figures: dict[str, dict[int, dict[str, float]]] = {}
    for kind, (mode, url) in KINDS.items():
        figures[kind] = {}
        for size in args.sizes:
            port = free_port()
            server = [
                sys.executable, "-m", "omniurl", "serve", "adversary", "--mode", mode,
                "--count", str(size), "--port", str(port),
            ]  # fmt: skip
            with serving(server, port):
                client = [sys.executable, "-m", "omniurl", "get", url.format(port=port)]
                rss, seconds, status = peak_rss_mib(client)
            figures[kind][size] = {
                "peak_rss_mib": round(rss, 1),
                "seconds": round(seconds, 2),
                "status": status,
            }
    if args.json:
        print(json.dumps(figures))
        return 0
    print("peak RSS of `omniurl get` printing a listing of N entries (MiB; seconds)")
    print(f"{'listing':<14}" + "".join(f"{'N=' + format(n, ','):>22}" for n in args.sizes))
    for kind, rows in figures.items():
        cells = "".join(
            f"{row['peak_rss_mib']:>12.1f} MiB {row['seconds']:>5.1f} s" for row in rows.values()
        )
        print(f"{kind:<14}{cells}")
    bad = [k for k, rows in figures.items() for r in rows.values() if r["status"] != 0]
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
