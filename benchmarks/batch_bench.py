"""Batch benchmark: ``omniurl get -Z`` vs ``curl --parallel`` on the same URL list, same run.

    python benchmarks/batch_bench.py                 # 2,000 files of 1-16 KiB, at 50
    python benchmarks/batch_bench.py --files 500 --repeat 1 --json
    python benchmarks/batch_bench.py --only http --procs 1,2   # also with --procs 1 and 2
    python benchmarks/batch_bench.py --only http --against /tmp/VENV/bin/python  # before/after
    python benchmarks/batch_bench.py --only http --pipeline 4,8  # also OMNIURL_BATCH_PIPELINE=N

omniurl runs from a fresh venv holding ``pip install .`` (benchmarks/_venv.py; ``--here``:
the checkout instead).  ``--against PYTHON`` adds another install's omniurl (another tree's
venv, e.g. ``python benchmarks/_venv.py`` run in a checkout of the commit before) as one
more client, interleaved with the others: a before/after in the same run.

Both tools get the same list of small files (1-16 KiB) and write them into an empty folder:

- omniurl: ``omniurl get -Z --parallel-max 50 -i LIST --output-dir DIR``
- curl:    ``curl --parallel --parallel-max 50 --output-dir DIR -K CONFIG`` (one
  ``url``/``remote-name`` pair per file: curl has no URL-list input of its own)

over HTTP (nginx when installed, else ``omniurl serve http``) and over Gopher (gophernicus
when installed, else ``omniurl serve gopher``).  Figures: wall time of the whole command,
files per second, the ratio omniurl / curl (throughput; issue 21's target is >= 1.0x), and
each client's CPU time per request (user + system, from wait4: robust when the machine is
busy) — each the median of ``--repeat`` runs, the two clients interleaved.  Every file is
checked to have arrived whole, and kept until the end of the whole run: on an ext4 without a
journal (this machine's root) a new inode skips every inode freed in the last 5-10 s, so the
files of one run deleted just before the next cost that run 0.5-1 ms of system time a file,
whichever client it is (``--churn`` measures that way; docs/speed.md, *Batches*).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from _common import ROOT, client_env, free_port, serving

sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from _ftphttp import NGINX, NGINX_CONF  # noqa: E402

TARGET = 1.0
GOPHERNICUS = "/usr/sbin/gophernicus"


@contextlib.contextmanager
def server(proto: str, root: Path, scratch: Path, own: bool) -> Iterator[tuple[str, str]]:
    """The HTTP or Gopher server for the run; yields (base URL, server name)."""
    port = free_port()
    scratch.mkdir(parents=True, exist_ok=True)
    if proto == "http" and not own and os.path.exists(NGINX):
        conf = scratch / "nginx.conf"
        conf.write_text(NGINX_CONF.format(port=port, root=root, scratch=scratch))
        argv = [NGINX, "-c", str(conf), "-p", str(scratch), "-e", str(scratch / "error.log")]
        name = "nginx"
    elif proto == "gopher" and not own and os.path.exists(GOPHERNICUS):
        socket_activate = shutil.which("systemd-socket-activate")
        if socket_activate is None:
            raise SystemExit("gophernicus needs systemd-socket-activate (package systemd)")
        argv = [socket_activate, "-l", f"127.0.0.1:{port}", "--inetd", "-a", GOPHERNICUS,
                "-h", "127.0.0.1", "-p", str(port), "-r", str(root),
                "-nu", "-nm", "-ns"]  # fmt: skip
        name = "gophernicus"
    else:
        argv = [sys.executable, "-m", "omniurl", "serve", proto, "--root", str(root),
                "--port", str(port)]  # fmt: skip
        name = f"omniurl serve {proto}"
    with serving(argv, port, env=client_env()):
        yield f"{proto}://127.0.0.1:{port}", name


def run(
    argv: list[str], installed: bool, extra: dict[str, str] | None = None
) -> tuple[float, float]:
    """One client process: (wall seconds, CPU seconds: its own and its children's)."""
    start = time.perf_counter()
    env = {**client_env(), **(extra or {})}
    if installed:  # the venv's omniurl, never the checkout's (not on the path, not the cwd)
        env.pop("PYTHONPATH", None)
    proc = subprocess.Popen(
        argv, cwd=tempfile.gettempdir() if installed else ROOT, env=env,
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert proc.stderr is not None
    _pid, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    err = proc.stderr.read()
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{argv[:6]} failed: {err.decode(errors='replace')[-800:]}")
    return seconds, usage.ru_utime + usage.ru_stime


def make_files(root: Path, n: int) -> list[str]:
    """``n`` files of 1-16 KiB under root/batch/ (a fixed seed: the same sizes every run)."""
    rng = random.Random(1738)
    (root / "batch").mkdir(parents=True)
    names = []
    for i in range(n):
        name = f"f{i:05}.txt"
        (root / "batch" / name).write_bytes(
            rng.randbytes(rng.randint(1, 16) * 1024 // 2).hex().encode()
        )
        names.append(name)
    return names


def bench(proto: str, base: str, names: list[str], root: Path, tmp: Path, concurrency: int,
          repeat: int, procs: tuple[int, ...] = (), python: str = sys.executable,
          against: tuple[str, ...] = (), churn: bool = False,
          pipeline: tuple[int, ...] = ()) -> dict[str, object]:  # fmt: skip
    prefix = "/0/batch/" if proto == "gopher" else "/batch/"
    urls = [f"{base}{prefix}{name}" for name in names]
    url_file = tmp / f"{proto}.list"
    url_file.write_text("".join(u + "\n" for u in urls))
    config = tmp / f"{proto}.curlrc"
    config.write_text("".join(f'url = "{u}"\nremote-name\n' for u in urls))
    row: dict[str, object] = {"files": len(urls), "concurrency": concurrency}
    others = {f"omniurl@{Path(other).parent.parent.name}": other for other in against}
    clients = (
        "curl",
        *(
            name
            for omniurl in ("omniurl", *others)
            for name in (omniurl, *(f"{omniurl} --procs {n}" for n in procs))
        ),
        # (the lean engine's pipelining, off by default: docs/speed.md, Batches, 7th round)
        *(f"omniurl pipeline={n}" for n in pipeline),
        *(f"omniurl pipeline={n} --procs {p}" for n in pipeline for p in procs),
    )
    runs: dict[str, list[tuple[float, float]]] = {client: [] for client in clients}
    for attempt in range(repeat):
        for client in clients:
            out = tmp / f"{proto}-{client.replace(' ', '')}-{attempt}"
            out.mkdir()
            if client == "curl":
                argv = ["curl", "-s", "--fail", "--parallel", "--parallel-max", str(concurrency),
                        "--output-dir", str(out), "-K", str(config)]  # fmt: skip
            else:
                interpreter = others.get(client.split()[0], python)
                flags = [w for w in client.split()[1:] if not w.startswith("pipeline=")]
                argv = [interpreter, "-m", "omniurl", "get", "-s", "-Z",
                        "--parallel-max", str(concurrency), "-i", str(url_file),
                        "--output-dir", str(out), *flags]  # fmt: skip
            depth = [w.split("=")[1] for w in client.split() if w.startswith("pipeline=")]
            extra = {"OMNIURL_BATCH_PIPELINE": depth[0]} if depth else None
            figures = run(argv, installed=argv[0] != sys.executable, extra=extra)
            got = sorted(os.listdir(out))
            if got != sorted(names):
                raise RuntimeError(f"{client}: {len(got)} files arrived of {len(names)}")
            for name in names[:: max(1, len(names) // 50)]:
                if (out / name).read_bytes() != (root / "batch" / name).read_bytes():
                    raise RuntimeError(f"{client}: {name} differs from the server's")
            # Kept until the whole run ends: on an ext4 without a journal (this machine's)
            # the kernel skips inodes freed in the last 5-10 s when it makes a new one, one
            # buffer lookup each, so 2,000 files deleted here just before the next client's
            # run cost that client 0.5-1 ms of system time a file (docs/speed.md, Batches).
            if churn:
                shutil.rmtree(out)
            runs[client].append(figures)
    for client, figures_of in runs.items():
        seconds = statistics.median(f[0] for f in figures_of)
        cpu = statistics.median(f[1] for f in figures_of)
        row[client] = {
            "seconds": round(seconds, 3),
            "files_s": round(len(urls) / seconds, 1),
            "cpu_ms_per_request": round(cpu * 1000 / len(urls), 3),
        }
    o, c = row["omniurl"], row["curl"]
    assert isinstance(o, dict) and isinstance(c, dict)
    row["ratio"] = round(o["files_s"] / c["files_s"], 2)
    row["cpu_ratio"] = round(c["cpu_ms_per_request"] / max(o["cpu_ms_per_request"], 1e-9), 2)
    row["target"] = TARGET
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--files", type=int, default=2000, help="how many files (2000)")
    parser.add_argument("--concurrency", type=int, default=50, help="--parallel-max (50)")
    parser.add_argument(
        "--repeat", type=int, default=3, help="interleaved runs per client; medians count"
    )
    parser.add_argument(
        "--own-servers",
        action="store_true",
        help="use omniurl's servers even when nginx/gophernicus are installed",
    )
    parser.add_argument("--only", choices=("http", "gopher"), help="one protocol only")
    parser.add_argument(
        "--procs",
        default="",
        help="also run omniurl with --procs N for each N of this list (1,2), interleaved",
    )
    parser.add_argument(
        "--pipeline",
        default="",
        help="also run omniurl with OMNIURL_BATCH_PIPELINE=N for each N of this list (4,8; "
        "with each --procs too), interleaved",
    )
    parser.add_argument(
        "--here", action="store_true", help="measure the checkout, not a fresh venv's install"
    )
    parser.add_argument(
        "--against",
        action="append",
        default=[],
        metavar="PYTHON",
        help="also run the omniurl installed for this interpreter (another tree's venv; with "
        "each --procs too), "
        "interleaved: a before/after in one run (repeatable)",
    )
    parser.add_argument(
        "--churn",
        action="store_true",
        help="delete each run's files before the next run (the way before 2026-11-28 19:50: "
        "on an ext4 without a journal the next run then pays for the deleted inodes)",
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args(argv)
    if shutil.which("curl") is None:
        print("curl is not installed: nothing to compare with", file=sys.stderr)
        return 2
    python = sys.executable
    if not args.here:
        from _venv import venv_python

        python = str(venv_python(peers=False, quiet=False))
    results: dict[str, object] = {}
    with tempfile.TemporaryDirectory(prefix="omniurl-batch-bench-") as tmp:
        root = Path(tmp) / "root"
        names = make_files(root, args.files)
        os.chmod(tmp, 0o755)  # gophernicus serves world-readable files only
        for proto in ("http", "gopher"):
            if args.only and proto != args.only:
                continue
            with server(proto, root, Path(tmp) / f"{proto}-server", args.own_servers) as (
                base,
                name,
            ):
                row = bench(
                    proto, base, names, root, Path(tmp), args.concurrency, args.repeat,
                    tuple(int(n) for n in args.procs.split(",") if n), python,
                    tuple(args.against), args.churn,
                    tuple(int(n) for n in args.pipeline.split(",") if n),
                )  # fmt: skip
                row["server"] = name
                results[proto] = row
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    for proto, row in results.items():
        assert isinstance(row, dict)
        print(f"{proto}: {row['files']} files of 1-16 KiB from {row['server']}, "
              f"--parallel-max {row['concurrency']}, medians of {args.repeat}")  # fmt: skip
        for client in [key for key in row if key == "curl" or key.startswith("omniurl")]:
            r = row[client]
            print(f"  {client:24} {r['seconds']:7.3f} s  {r['files_s']:8.0f} files/s  "
                  f"{r['cpu_ms_per_request']:6.3f} ms CPU a request")  # fmt: skip
        print(f"  ratio omniurl/curl: {row['ratio']}x files/s (target >= {TARGET}x), "
              f"{row['cpu_ratio']}x CPU a request")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
