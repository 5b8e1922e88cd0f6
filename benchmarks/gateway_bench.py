"""Gateway load: N concurrent clients for S seconds through ``omniurl serve gateway`` in front
of a local Gopher server, against direct fetches of the same item in the same run.

    python benchmarks/gateway_bench.py                    # 200 clients, 3 x 10 s each phase
    python benchmarks/gateway_bench.py --clients 50 --seconds 5 --repeat 1 --json

Figures: requests/s, p50/p99 latency for the gateway (HTTP GET of ``/gopher://…/0/item``,
rendered as a page) and for direct fetches (omniurl's AsyncClient, one Gopher request each,
as many at once as the gateway takes: ``max_per_host`` = clients), the phases interleaved
``--repeat`` times and each figure the median of its runs (goals: gateway >= 0.8x direct's
requests/s, its p99 < 2x direct's);
the gateway process's peak RSS (goal: under 200 MiB) and its open file descriptors before
and after the load (goal: none left open).  The load comes from this one Python process, so
on a 2-core machine the client competes with the gateway for CPU: read the ratio, not the
absolute numbers.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from _common import ROOT, free_port, serving, wait_listening


def fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process so far (/proc/PID/stat fields 14 and 15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_peak_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def load(clients: int, seconds: float, one: object) -> list[float]:
    latencies: list[float] = []
    stop = time.monotonic() + seconds

    async def worker() -> None:
        while time.monotonic() < stop:
            start = time.perf_counter()
            await one()  # type: ignore[operator]
            latencies.append(time.perf_counter() - start)

    await asyncio.gather(*(worker() for _ in range(clients)))
    return latencies


async def load_keepalive(clients: int, seconds: float, port: int, path: str) -> list[float]:
    """``clients`` keep-alive HTTP/1.1 connections, each asking for ``path`` until the time is
    up (h11 frames the replies).  Not httpx: measured here, its pool spent 4.7 ms of CPU per
    request at 100 connections (8.3 s CPU in an 8 s run), so the load generator, not the
    gateway, set the pace and the tail (p99 3.7 s with the gateway idle 77% of the time)."""
    import h11

    latencies: list[float] = []
    stop = time.monotonic() + seconds
    request = h11.Request(method="GET", target=path, headers=[("Host", f"127.0.0.1:{port}")])

    async def worker() -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        conn = h11.Connection(h11.CLIENT)
        try:
            while time.monotonic() < stop:
                start = time.perf_counter()
                writer.write(conn.send(request) + conn.send(h11.EndOfMessage()))
                status = 0
                while True:
                    event = conn.next_event()
                    if event is h11.NEED_DATA:
                        conn.receive_data(await asyncio.wait_for(reader.read(65536), 60))
                    elif isinstance(event, h11.Response):
                        status = event.status_code
                    elif isinstance(event, h11.EndOfMessage):
                        break
                    elif isinstance(event, h11.ConnectionClosed):
                        raise ConnectionError("the gateway closed a keep-alive connection")
                if status != 200:
                    raise RuntimeError(f"the gateway answered {status}")
                latencies.append(time.perf_counter() - start)
                conn.start_next_cycle()
        finally:
            writer.close()

    await asyncio.gather(*(worker() for _ in range(clients)))
    return latencies


def summary(latencies: list[float], seconds: float, cpu: float = 0.0) -> dict[str, float]:
    ordered = sorted(latencies)
    return {
        "requests": len(ordered),
        "per_s": round(len(ordered) / seconds, 1),
        "p50_ms": round(statistics.median(ordered) * 1000, 2),
        "p99_ms": round(ordered[int(len(ordered) * 0.99) - 1] * 1000, 2),
        "cpu_ms_per_request": round(cpu * 1000 / max(len(ordered), 1), 3),
    }


def medians(runs: list[dict[str, float]]) -> dict[str, float]:
    return {key: round(statistics.median(r[key] for r in runs), 2) for key in runs[0]}


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--clients", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--repeat", type=int, default=3, help="interleaved runs; medians count")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    sys.path.insert(0, str(ROOT))  # this checkout's omniurl, as the gateway process runs
    from omniurl.client import AsyncClient

    root = Path(tempfile.mkdtemp(prefix="gateway-bench-"))
    (root / "item.txt").write_text("a line of text\n" * 50)
    gport, wport = free_port(), free_port()
    gopher = [
        sys.executable,
        "-m",
        "omniurl",
        "serve",
        "gopher",
        "--root",
        str(root),
        "--port",
        str(gport),
    ]
    gateway = [
        sys.executable, "-m", "omniurl", "serve", "gateway", "--port", str(wport),
        "--allow-host", "127.0.0.1", "--allow-port", str(gport),
        # every simulated client comes from 127.0.0.1: the per-client limit would 429 them
        "--max-per-client", str(args.clients), "--max-concurrent", str(args.clients),
        "--max-connections-per-client", str(args.clients + 8),
    ]  # fmt: skip
    item = f"gopher://127.0.0.1:{gport}/0/item.txt"
    with serving(gopher, gport):
        proc = subprocess.Popen(
            gateway, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            wait_listening(wport)
            # One page first: the gateway binds its socket before its event loop starts, so
            # right after it listens its loop's descriptors are not open yet (4, then 7).
            with urllib.request.urlopen(f"http://127.0.0.1:{wport}/{item}", timeout=30) as r:
                r.read()
            fds_before = fds(proc.pid)

            async def run() -> tuple[list[dict[str, float]], list[dict[str, float]]]:
                path = f"/{item}"
                through, plain = [], []
                for _ in range(args.repeat):
                    # CPU a request: the gateway process's for a page; this process's (the
                    # direct client's) for a direct get — robust when the machine is busy.
                    cpu = cpu_seconds(proc.pid)
                    lat = await load_keepalive(args.clients, args.seconds, wport, path)
                    through.append(summary(lat, args.seconds, cpu_seconds(proc.pid) - cpu))
                    async with AsyncClient(max_per_host=args.clients) as client:

                        async def direct() -> None:
                            await client.get(item)

                        cpu = cpu_seconds(os.getpid())
                        lat = await load(args.clients, args.seconds, direct)
                        spent = cpu_seconds(os.getpid()) - cpu
                    plain.append(summary(lat, args.seconds, spent))
                return through, plain

            through, plain = asyncio.run(run())
            time.sleep(1)
            fds_after = fds(proc.pid)
            peak = rss_peak_mib(proc.pid)
        finally:
            proc.terminate()
            proc.wait(10)
    figures = {
        "clients": args.clients,
        "seconds": args.seconds,
        "repeat": args.repeat,
        "gateway": medians(through),
        "direct": medians(plain),
        "gateway_peak_rss_mib": round(peak, 1),
        "gateway_fds_before": fds_before,
        "gateway_fds_after": fds_after,
    }
    g, d = figures["gateway"], figures["direct"]
    figures["ratio_gateway_over_direct"] = round(g["per_s"] / max(d["per_s"], 1e-9), 2)
    figures["ratio_p99"] = round(g["p99_ms"] / max(d["p99_ms"], 1e-9), 2)
    if args.json:
        print(json.dumps(figures))
    else:
        print(
            f"{args.clients} clients, {args.seconds:g} s a phase, medians of {args.repeat} "
            "interleaved runs, one gopher text item"
        )
        for name, f in (("gateway", g), ("direct", d)):
            print(
                f"  {name:8} {f['per_s']:>9} req/s   p50 {f['p50_ms']:>8} ms   "
                f"p99 {f['p99_ms']:>8} ms   {f['cpu_ms_per_request']:>6} ms CPU a request"
            )
        print(
            f"  gateway / direct: {figures['ratio_gateway_over_direct']}x requests/s "
            f"(goal >= 0.8x), p99 {figures['ratio_p99']}x (goal < 2x)"
        )
        print(f"  gateway peak RSS {figures['gateway_peak_rss_mib']} MiB (goal < 200)")
        print(f"  gateway fds: {fds_before} before, {fds_after} after")
    ok = peak < 200 and fds_after <= fds_before
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
