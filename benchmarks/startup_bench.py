"""Start-up: ``omniurl parse``, ``omniurl plan`` and ``omniurl get`` of one small file, each as
a ratio to ``python -c pass`` measured in the same run (issue targets: parse and plan within
3×, get within 5×).

The commands are run interleaved, round after round, so a load change on a shared machine
hits every command alike; each figure is the median of ``--rounds`` runs.

    python benchmarks/startup_bench.py [--rounds 20]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import client_env, free_port, serving


def timed(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    env = client_env()
    py = sys.executable
    with tempfile.TemporaryDirectory() as root:
        Path(root, "small.bin").write_bytes(b"x" * 4096)
        port = free_port()
        server = [py, "-m", "omniurl", "serve", "gopher", "--root", root, "--port", str(port)]
        with serving(server, port, env):
            commands = {
                "python -c pass": [py, "-c", "pass"],
                "omniurl parse": [py, "-m", "omniurl", "parse", "http://a/b?c"],
                "omniurl plan": [py, "-m", "omniurl", "plan", "ftp://h/pub/f.txt"],
                "omniurl get (gopher, 4 KiB)": [
                    py, "-m", "omniurl", "get", "-o", str(Path(root, "out.bin")),
                    f"gopher://127.0.0.1:{port}/9/small.bin",
                ],
            }  # fmt: skip
            times: dict[str, list[float]] = {name: [] for name in commands}
            for _ in range(args.rounds):
                for name, argv in commands.items():
                    times[name].append(timed(argv, env))
    base = statistics.median(times["python -c pass"])
    print(f"{'command':32} {'median':>9} {'ratio':>7}")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:32} {median * 1000:7.1f}ms {median / base:6.2f}×")


if __name__ == "__main__":
    main()
