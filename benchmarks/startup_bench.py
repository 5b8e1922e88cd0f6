"""Start-up: whole ``omniurl`` commands beside ``python -c pass`` on the same interpreter.

    python benchmarks/startup_bench.py [--rounds 20] [--json] [--here]

Measured as a user would meet it (issue 32 item 1): the script re-runs itself in a fresh venv
holding ``pip install .`` of this checkout (benchmarks/_venv.py, cached by a hash of the
sources), and every command, the peer ``python -c pass`` included, is that venv's
interpreter; ``--here`` keeps the current interpreter and the checkout (development only).

Issue 21's goals: ``omniurl parse`` and ``omniurl plan`` within 3× ``python -c pass``; one
small file fetched (``omniurl get`` of 4 KiB from omniurl's own Gopher, FTP and HTTP test
servers on loopback), whole command, within 5×.  A Python tool's floor is its interpreter's
start, so that is the peer.

Two interpreters' starts are measured, each against its own ``python -c pass``: as installed
(``site`` runs, with whatever ``.pth`` hooks the installation has: some sandboxes' hooks import
``re``, ``typing``, ``pathlib`` and a certificate bundle into every start, which both flatters
omniurl, whose imports they pay for, and slows the peer), and bare (``python -S``, with the
site-packages directories on ``PYTHONPATH`` instead, so no hook runs): the second is the
honest one for what omniurl itself costs.

The commands run interleaved, round after round (the order rotating), so a load change on a
shared machine hits every command alike.  Each figure is the median of ``--rounds`` runs,
twice over: the wall clock, and the CPU time the process used (user + system, from
``wait4``), which other processes on a busy machine barely move.  The ratios are each
command's median over ``python -c pass``'s.  Byte-code caches are written first (one warm-up
run of each command, ``PYTHONDONTWRITEBYTECODE`` unset), as an installed package has them.

``--against PYTHON`` (another install's interpreter, e.g. a fresh venv of the tree before a
change) runs every command a second time with that install, in the same rounds, beside its
own ``python -c pass``: an A/B on one machine at one load (rows marked ``[against]``; the
servers are this install's).

The last column lists what each command imported that the goals say it must not: ``ssl``,
``certifi`` or ``httpx`` for a URL that is not ``https://`` (a site hook that already loaded
one, as some sandboxes' CA hooks do, is left out: the check is against ``python -c pass``'s
own modules).  The exit status is 1 when a goal is missed as installed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if __name__ == "__main__":
    from _venv import reexec_in_venv

    reexec_in_venv(__file__, sys.argv[1:])

from _common import INSTALLED, PROBE, client_env, free_port, serving

#: Issue 21's ratios to ``python -c pass``.
PARSE_PLAN_GOAL = 3.0
GET_GOAL = 5.0
#: Modules a command must not import unless its URL is https:// (or it lists them itself).
HEAVY = ("ssl", "certifi", "httpx", "httpcore")


def run(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run of ``argv``."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {proc.returncode}")
    return wall, usage.ru_utime + usage.ru_stime


def imported(py: list[str], args: list[str], env: dict[str, str]) -> list[str]:
    """The modules ``omniurl ARGS`` imports beyond the interpreter's start."""
    done = subprocess.run(
        [*py, "-c", PROBE, *args], env=env, capture_output=True, check=True, timeout=60,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    return list(json.loads(done.stderr.decode().rstrip("\n").rsplit("\n", 1)[-1]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument(
        "--start", choices=("site", "bare", "both"), default="both",
        help="the interpreter's start: as installed, without site (-S), or both (both)",
    )  # fmt: skip
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--here", action="store_true", help="this interpreter and checkout")
    parser.add_argument(
        "--against", metavar="PYTHON",
        help="another install's interpreter (the tree before a change): each command run "
        "with it too, in the same rounds (an A/B)",
    )  # fmt: skip
    args = parser.parse_args()
    env = client_env()
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its .pyc files
    results = {}
    for start in ("site", "bare") if args.start == "both" else (args.start,):
        results[start] = measure(start, args.rounds, env, args.against)
    missed = False
    for start, rows in results.items():
        missed |= start == "site" and any(r["missed"] for r in rows)
        if not args.json:
            print_table(start, rows, args.rounds)
    where = {
        "python": sys.version.split()[0],
        "prefix": sys.prefix,
        "installed": INSTALLED,
        "load_1min": round(os.getloadavg()[0], 2),
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
    }
    if args.json:
        print(json.dumps({**where, "rounds": args.rounds, **results}))
    else:
        print(
            f"{where['prefix']} ({'pip install . in a fresh venv' if INSTALLED else 'checkout'}), "
            f"load {where['load_1min']}, {where['date']}"
        )
    return 1 if missed else 0


def interpreter(python: str, start: str, env: dict[str, str]) -> tuple[list[str], list[str]]:
    """(``python``'s command line, its ``omniurl`` command) for ``start``: the console script
    pip installed beside it as installed (no runpy, no importlib.util: what a user types),
    ``-S -m omniurl`` bare (``env``'s ``PYTHONPATH`` names its site-packages)."""
    py = [python, "-S"] if start == "bare" else [python]
    script = Path(python).parent / "omniurl"
    if INSTALLED and start == "site" and script.exists():
        return py, [str(script)]
    return py, [*py, "-m", "omniurl"]


def site_packages(python: str) -> list[str]:
    """``python``'s site-packages directories."""
    code = (
        "import json, site; "
        "print(json.dumps(site.getsitepackages() + [site.getusersitepackages()]))"
    )
    done = subprocess.run([python, "-c", code], capture_output=True, check=True, timeout=60)
    return [p for p in json.loads(done.stdout) if os.path.isdir(p)]


def measure(
    start: str, rounds: int, env: dict[str, str], against: str | None = None
) -> list[dict[str, object]]:
    """The rows of one table: every command, ``rounds`` interleaved runs each (and each
    again with ``against``'s install)."""
    envs = {"": env}
    if start == "bare":
        for key, python in (("", sys.executable), (" [against]", against)):
            if python is None:
                continue
            envs[key] = dict(env)
            paths = [env.get("PYTHONPATH", ""), *site_packages(python)]
            envs[key]["PYTHONPATH"] = os.pathsep.join(p for p in paths if p)
        env = envs[""]
    py, omniurl = interpreter(sys.executable, start, env)
    with tempfile.TemporaryDirectory() as root:
        Path(root, "small.bin").write_bytes(b"x" * 4096)
        out = str(Path(root, "out.bin"))
        ports = {name: free_port() for name in ("gopher", "ftp", "http")}
        servers = [
            [*omniurl, "serve", name, "--root", root, "--port", str(port)]
            for name, port in ports.items()
        ]
        commands = {
            "python -c pass": ([*py, "-c", "pass"], None),
            "omniurl parse http://a/b?c": ([*omniurl, "parse", "http://a/b?c"], PARSE_PLAN_GOAL),
            "omniurl plan ftp://h/x": ([*omniurl, "plan", "ftp://h/x"], PARSE_PLAN_GOAL),
            "omniurl plan gopher://h/1/": ([*omniurl, "plan", "gopher://h/1/"], PARSE_PLAN_GOAL),
            "omniurl get gopher (4 KiB)": (
                [*omniurl, "get", "-o", out, f"gopher://127.0.0.1:{ports['gopher']}/9/small.bin"],
                GET_GOAL,
            ),
            "omniurl get ftp (4 KiB)": (
                [*omniurl, "get", "-o", out, f"ftp://127.0.0.1:{ports['ftp']}/small.bin"],
                GET_GOAL,
            ),
            "omniurl get http (4 KiB)": (
                [*omniurl, "get", "-o", out, f"http://127.0.0.1:{ports['http']}/small.bin"],
                GET_GOAL,
            ),
        }
        bases = {"": "python -c pass"}
        if against is not None:
            other_py, other = interpreter(against, start, env)
            bases[" [against]"] = "python -c pass [against]"
            for name, (argv, goal) in list(commands.items()):
                same = [*other_py, *argv[len(py) :]] if argv[: len(py)] == py else None
                other_argv = [*other, *argv[len(omniurl) :]] if same is None else same
                commands[name + " [against]"] = (other_argv, goal)
        with (
            serving(servers[0], ports["gopher"], env),
            serving(servers[1], ports["ftp"], env),
            serving(servers[2], ports["http"], env),
        ):
            heavy: dict[str, list[str]] = {}
            for name, (argv, _goal) in commands.items():
                key = " [against]" if name.endswith(" [against]") else ""
                run(argv, envs.get(key, env))  # warm-up: byte-code caches written
                if argv[: len(omniurl)] == omniurl:
                    mods = imported(py, argv[len(omniurl) :], env)
                    heavy[name] = sorted(m for m in mods if m in HEAVY)
            wall: dict[str, list[float]] = {name: [] for name in commands}
            cpu: dict[str, list[float]] = {name: [] for name in commands}
            names = list(commands)
            for r in range(rounds):
                for k in range(len(names)):
                    name = names[(r + k) % len(names)]
                    key = " [against]" if name.endswith(" [against]") else ""
                    w, c = run(commands[name][0], envs.get(key, env))
                    wall[name].append(w)
                    cpu[name].append(c)
    rows: list[dict[str, object]] = []
    for name, (_argv, goal) in commands.items():
        base = bases[" [against]" if name.endswith(" [against]") else ""]
        base_wall = statistics.median(wall[base])
        base_cpu = statistics.median(cpu[base])
        w = statistics.median(wall[name])
        c = statistics.median(cpu[name])
        ratio_wall, ratio_cpu = w / base_wall, c / base_cpu
        rows.append(
            {
                "command": name,
                "wall_ms": round(w * 1000, 1),
                "cpu_ms": round(c * 1000, 1),
                "ratio_wall": round(ratio_wall, 2),
                "ratio_cpu": round(ratio_cpu, 2),
                "goal": goal,
                "missed": goal is not None and min(ratio_wall, ratio_cpu) > goal,
                "heavy_imports": heavy.get(name, []),
            }
        )
    return rows


def print_table(start: str, rows: list[dict[str, object]], rounds: int) -> None:
    how = "as installed (site)" if start == "site" else "bare (python -S)"
    print(
        f"python {sys.version.split()[0]} ({platform.machine()}, {os.cpu_count()} cores), "
        f"{how}, median of {rounds} interleaved runs"
    )
    print(f"{'command':40} {'wall':>8} {'ratio':>6} {'CPU':>8} {'ratio':>6} {'goal':>5}  heavy")
    for row in rows:
        goal = "" if row["goal"] is None else f"≤{row['goal']:g}×"
        heavy = row["heavy_imports"]
        assert isinstance(heavy, list)
        print(
            f"{row['command']:40} {row['wall_ms']:6.1f}ms {row['ratio_wall']:5.2f}× "
            f"{row['cpu_ms']:6.1f}ms {row['ratio_cpu']:5.2f}× {goal:>5}  "
            f"{', '.join(heavy) or '-'}"
        )
    print()


if __name__ == "__main__":
    raise SystemExit(main())
