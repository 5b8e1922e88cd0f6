"""Transfer benchmark: omniurl vs curl, FTP, HTTP and Gopher, same server, same file, same run.

    python benchmarks/transfer_bench.py                 # quick: a 256 MiB file
    python benchmarks/transfer_bench.py --size 512M     # the performance issue's figure
    python benchmarks/transfer_bench.py --size 1G --json --protocols ftp,gopher
    python benchmarks/transfer_bench.py --size 512M --to-file   # -o FILE instead of stdout
    python benchmarks/transfer_bench.py --size 512M --rounds 5 --python /tmp/V/bin/python \
        --against /tmp/BEFORE/bin/python       # interleaved rounds, medians; a before/after

The servers are vsftpd, nginx and gophernicus when installed (so the server is not the
bottleneck; each started here on loopback with a private config, as the test suite does),
else omniurl's own (``omniurl serve ftp|http|gopher`` in a subprocess);
``--gopher-server pygopherd|omniurl`` measures Gopher against another peer.  gophernicus
is the exception to "not the bottleneck" (4 KiB writes, a process and ``lsb_release`` per
connection): it is started per connection here (:class:`Inetd`), and with ``--rounds``
each client's row says when it connected and the server's CPU for its connection; for a
server that runs throughout (pygopherd, nginx, vsftpd, omniurl's own) the row gives the CPU
its processes spent while each client ran (:func:`tree_cpu`).  Each client is a
separate process writing the content to /dev/null (curl: ``curl -s URL``; omniurl: ``omniurl
get URL``), or with ``--to-file`` into a file (``-o FILE``); wall time is measured around
the process and peak RSS comes from ``wait4()``'s rusage of that process.

Two ratios are printed for each protocol (omniurl throughput / curl throughput):

- ``whole``: bytes / wall time of the whole command, interpreter start-up included;
- ``transfer``: bytes / (wall time - the same command's time for a 1-byte file from the same
  server), i.e. with start-up, connect and login taken out for both tools.

CPU time (user + system, from rusage) is printed too: on a busy machine wall times swing
widely, CPU time much less.  Each client is run once before timing (warm-up); omniurl's
processes may write compiled modules (to a temporary PYTHONPYCACHEPREFIX), as an installed
package has them.

With ``--rounds N`` the clients take turns instead (curl, omniurl, each ``--against``
install's omniurl, then again, N rounds after one warm-up each, the order rotated each
round) and the figures are medians
of the big file's runs, with their min-max: what the machine's load does to one run it does
to its neighbours.  ``--python`` names the interpreter whose omniurl is measured (a fresh
venv holding ``pip install .``, as a user has it: ``python benchmarks/_venv.py`` builds
one; the ``omniurl`` script beside it is what runs, as a user types it); ``--against
PYTHON`` adds another install's omniurl (the tree before a change).

Targets: >= 1.0x curl for the whole command, peak RSS < 50 MiB at any size.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import queue
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from _common import ROOT, client_env, free_port, parse_size, serving, write_random_file

sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from _ftphttp import NGINX, NGINX_CONF, VSFTPD, VSFTPD_CONF  # noqa: E402

TARGETS = {"ftp": 1.0, "http": 1.0, "gopher": 1.0}
RSS_LIMIT_MIB = 50
PROTOCOLS = tuple(TARGETS)
GOPHERNICUS = "/usr/sbin/gophernicus"
#: GNU time: the client's own peak RSS (see run()).
GNU_TIME = "/usr/bin/time"


#: The Gopher servers ``--gopher-server`` chooses from (gophernicus unless ``--own-servers``).
GOPHER_SERVERS = ("gophernicus", "pygopherd", "omniurl")
PYGOPHERD = "/usr/sbin/pygopherd"


@contextlib.contextmanager
def server(
    proto: str, root: Path, scratch: Path, own: bool, gopher: str = "gophernicus"
) -> Iterator[tuple[str, str]]:
    """Start the FTP, HTTP or Gopher server; yields (base URL, server name)."""
    global INETD
    port = free_port()
    scratch.mkdir(parents=True, exist_ok=True)
    if proto == "gopher" and own:
        gopher = "omniurl"
    if proto == "ftp" and not own and os.path.exists(VSFTPD):
        (scratch / "empty").mkdir(exist_ok=True)
        conf = scratch / "vsftpd.conf"
        conf.write_text(
            VSFTPD_CONF.format(port=port, root=root, empty=scratch / "empty", scratch=scratch)
        )
        argv, name = [VSFTPD, str(conf)], "vsftpd"
    elif proto == "http" and not own and os.path.exists(NGINX):
        conf = scratch / "nginx.conf"
        conf.write_text(NGINX_CONF.format(port=port, root=root, scratch=scratch))
        argv = [NGINX, "-c", str(conf), "-p", str(scratch), "-e", str(scratch / "error.log")]
        name = "nginx"
    elif proto == "gopher" and gopher == "gophernicus" and os.path.exists(GOPHERNICUS):
        INETD = Inetd(port, _gophernicus_argv(port, root))
        try:
            yield f"gopher://127.0.0.1:{port}", "gophernicus"
        finally:
            INETD.close()
            INETD = None
        return
    elif proto == "gopher" and gopher == "pygopherd" and os.path.exists(PYGOPHERD):
        argv, name = [PYGOPHERD, str(_pygopherd_conf(port, root, scratch))], "pygopherd"
    else:
        argv = [sys.executable, "-m", "omniurl", "serve", proto, "--root", str(root),
                "--port", str(port)]  # fmt: skip
        name = f"omniurl serve {proto}"
    with serving(argv, port) as proc:
        SERVER[:] = [proc.pid]
        try:
            yield f"{proto}://127.0.0.1:{port}", name
        finally:
            SERVER.clear()


#: The process of the server that runs throughout (not :class:`Inetd`'s), while it serves.
SERVER: list[int] = []


def tree_cpu(pid: int) -> float | None:
    """CPU seconds (user + system) spent so far by process ``pid``, its threads and its
    descendants, the ended ones its processes have reaped included (Linux ``/proc``; None
    elsewhere): around a client's run, what the server spent for it (nginx's workers,
    vsftpd's session processes, pygopherd's threads)."""
    stats: dict[int, tuple[int, int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return None
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
        except OSError:  # (ended meanwhile)
            continue
        # after the name: state, ppid, ...; utime, stime, cutime, cstime are 11-14
        stats[int(entry)] = (int(fields[1]), sum(int(f) for f in fields[11:15]))
    if pid not in stats:
        return None
    ticks, tree = 0, [pid]
    while tree:
        parent = tree.pop()
        ticks += stats[parent][1]
        tree += [child for child, (ppid, _t) in stats.items() if ppid == parent]
    return ticks / os.sysconf("SC_CLK_TCK")


def _gophernicus_argv(port: int, root: Path) -> list[str]:
    """gophernicus as inetd starts it (the connection its standard input and output);
    ``-nm``: no shared memory between its processes, so each connection starts afresh
    (with it, the first connection's platform string, two ``lsb_release`` runs, is kept for
    the next ones: ~5-9 ms to the first byte instead of ~80-100 ms, 2026-11-28)."""
    command = [GOPHERNICUS, "-h", "127.0.0.1", "-p", str(port), "-r", str(root), "-nu", "-nm"]
    command += ["-ns"]
    setpriv = shutil.which("setpriv")
    if os.geteuid() == 0 and setpriv is not None:  # gophernicus refuses to run as root
        command = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", *command]
    return command


class Inetd:
    """One server process per connection, as inetd (or ``systemd-socket-activate --inetd
    -a``) runs gophernicus, started from here so that each connection's server is measured
    too: the moment it was accepted (after the client's start: when the client connected)
    and the server process's CPU time (``wait4``: its ``lsb_release`` children included).
    gophernicus writes 4 KiB at a time and is the bottleneck of a Gopher transfer from it
    (docs/speed.md, *Bulk transfers*): its CPU beside each client's says whether a client
    made it slower."""

    def __init__(self, port: int, command: list[str]) -> None:
        self.command = command
        self.listener = socket.create_server(("127.0.0.1", port), backlog=16)
        #: (accepted at, server CPU seconds) of each connection whose server has ended
        self.ended: queue.Queue[tuple[float, float]] = queue.Queue()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _peer = self.listener.accept()
            except OSError:  # (closed)
                return
            accepted = time.perf_counter()
            with conn:
                proc = subprocess.Popen(self.command, stdin=conn, stdout=conn,
                                        stderr=subprocess.DEVNULL)  # fmt: skip
            threading.Thread(target=self._reap, args=(proc, accepted), daemon=True).start()

    def _reap(self, proc: subprocess.Popen[bytes], accepted: float) -> None:
        _pid, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        self.ended.put((accepted, usage.ru_utime + usage.ru_stime))

    def take(self, started: float, timeout: float = 10) -> tuple[float, float] | None:
        """(seconds from ``started`` to the accept, server CPU) of the connection accepted
        after ``started`` (the client's one), once its server has ended; None if none did."""
        deadline = time.perf_counter() + timeout
        while (left := deadline - time.perf_counter()) > 0:
            try:
                accepted, cpu = self.ended.get(timeout=left)
            except queue.Empty:
                return None
            if accepted >= started:
                return accepted - started, cpu
        return None

    def close(self) -> None:
        self.listener.close()


#: The per-connection server while gophernicus serves (set in :func:`server`).
INETD: Inetd | None = None


def _pygopherd_conf(port: int, root: Path, scratch: Path) -> Path:
    """A private pygopherd configuration (Debian's, on ``port`` over ``root``, threads, in
    the foreground, no log): as tests/test_gopher_interop.py runs it."""
    import configparser

    config = configparser.ConfigParser(interpolation=None)
    config.read("/etc/pygopherd/pygopherd.conf")
    settings = {"port": str(port), "root": str(root), "usechroot": "no", "detach": "no",
                "interface": "127.0.0.1", "servername": "127.0.0.1",
                "pidfile": str(scratch / "pid"), "servertype": "ThreadingTCPServer"}  # fmt: skip
    for key, value in settings.items():
        config.set("pygopherd", key, value)
    config.set("logger", "logmethod", "none")
    conf = scratch / "pygopherd.conf"
    with conf.open("w") as fh:
        config.write(fh)
    return conf


def _path(proto: str, name: str) -> str:
    """The URL path of a file under pub/ (Gopher: item type 9, binary)."""
    return f"/9/pub/{name}" if proto == "gopher" else f"/pub/{name}"


@dataclass
class Run:
    seconds: float
    rss_kib: int
    #: user + system CPU time of the process (robust when the machine is busy)
    cpu: float
    #: gophernicus (:class:`Inetd`): seconds from the client's start to the server's accept,
    #: and the server's CPU for the connection
    connected: float | None = None
    server_cpu: float | None = None


#: Where the omniurl processes keep their compiled modules (set in main): an installed
#: package has its .pyc files, so the benchmark lets Python write them even where
#: PYTHONDONTWRITEBYTECODE is set, outside the source tree.
PYCACHE: str | None = None


def run(argv: list[str], output: Path | None = None, *, installed: bool = False) -> Run:
    """One client process: wall time, CPU time (wait4) and its own peak RSS.  Linux carries
    the forking process's high-water RSS into the child's ru_maxrss across exec, so a client
    forked from this script showed at least this script's RSS (34 MiB, for curl too): where
    GNU time is installed, it runs the client and reports the client's own peak.
    ``installed``: an interpreter with omniurl installed (not this checkout on its path)."""
    env = client_env()
    if installed:
        env.pop("PYTHONPATH", None)
    if PYCACHE is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = PYCACHE
    server_before = tree_cpu(SERVER[0]) if SERVER else None
    rss_file = None
    if os.path.exists(GNU_TIME):
        fd, rss_file = tempfile.mkstemp(prefix="omniurl-bench-rss-")
        os.close(fd)
        argv = [GNU_TIME, "-f", "%M", "-o", rss_file, *argv]
    start = time.perf_counter()
    # ``python -m omniurl`` puts its working directory first on sys.path: run from the
    # checkout, an installed interpreter would import the checkout's omniurl (pure Python,
    # this tree), not the install measured
    cwd = tempfile.gettempdir() if installed else ROOT
    proc = subprocess.Popen(
        argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )  # fmt: skip
    assert proc.stderr is not None
    _pid, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    err = proc.stderr.read()
    proc.stderr.close()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{argv} exited {proc.returncode}: {err.decode(errors='replace')}")
    rss_kib = usage.ru_maxrss
    if rss_file is not None:
        with contextlib.suppress(OSError, ValueError):
            rss_kib = int(Path(rss_file).read_text().split()[-1])
        os.unlink(rss_file)
    if output is not None:
        output.unlink()  # (it must be there: the transfer completed)
    connected = server_cpu = None
    if INETD is not None and (ended := INETD.take(start)) is not None:
        connected, server_cpu = ended
    elif server_before is not None and (server_after := tree_cpu(SERVER[0])) is not None:
        server_cpu = server_after - server_before
    return Run(seconds, rss_kib, usage.ru_utime + usage.ru_stime, connected, server_cpu)


def clients(
    url: str,
    output: Path | None = None,
    python: str = sys.executable,
    against: tuple[str, ...] = (),
) -> dict[str, list[str]]:
    """Each client's command: the content to stdout (/dev/null), or with ``output`` into
    that file (``-o``: omniurl writes a temporary file and renames it when complete);
    ``against``: other installs' interpreters, each one more omniurl client."""
    to = ["-o", str(output)] if output is not None else []
    commands = {
        "curl": ["curl", "-s", "--fail", *to, url],
        "omniurl": [*_command(python), "get", *to, url],
    }
    for other in against:
        commands[f"omniurl@{Path(other).parent.parent.name}"] = [
            *_command(other), "get", *to, url,
        ]  # fmt: skip
    return commands


def _command(python: str) -> list[str]:
    """How a user runs that install's omniurl: the ``omniurl`` script ``pip install .`` put
    beside the venv's interpreter (what the README tells a user to type), else ``python -m
    omniurl`` (this checkout, or an install without the script).  ``-m`` costs ``runpy``'s
    imports before the connect, which the script does not pay (~4.4 million of the 112
    million instructions before a Gopher get's connect, docs/speed.md)."""
    script = Path(python).parent / "omniurl"
    if python != sys.executable and script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [python, "-m", "omniurl"]


def interleaved(
    big: dict[str, list[str]], output: Path | None, rounds: int, size: int
) -> dict[str, object]:
    """``rounds`` rounds in which each client fetches the big file once, in turn (after one
    warm-up run each): medians and min-max of wall and CPU, the peak RSS of all runs."""
    runs: dict[str, list[Run]] = {client: [] for client in big}
    for argv in big.values():
        run(argv, output, installed=_installed(argv))  # warm-up
    order = list(big.items())
    for _round in range(rounds):
        for client, argv in order:
            runs[client].append(run(argv, output, installed=_installed(argv)))
        # Each client takes each place in turn: with --to-file the run right after another
        # one's 512 MiB file was written and removed measured up to 2x the CPU of the next
        # (2026-11-28, load 4-7, whichever omniurl came right after curl)
        order = order[1:] + order[:1]
    row: dict[str, object] = {}
    for client, got in runs.items():
        walls = [r.seconds for r in got]
        cpus = [r.cpu for r in got]
        wall = statistics.median(walls)
        row[client] = {
            "seconds": round(wall, 3),
            "seconds_min_max": [round(min(walls), 3), round(max(walls), 3)],
            "whole_mib_s": round(size / wall / (1 << 20), 1),
            "cpu_seconds": round(statistics.median(cpus), 3),
            "cpu_min_max": [round(min(cpus), 3), round(max(cpus), 3)],
            "peak_rss_mib": round(max(r.rss_kib for r in got) / 1024, 1),
        }
        if client != "curl" and "curl" in runs:
            # Each round's runs are neighbours in time: curl's wall over this client's in
            # the same round, the median of those, swings less with the machine's load
            # than the ratio of the two medians (a busy minute hits both of a round)
            paired = [c.seconds / r.seconds for c, r in zip(runs["curl"], got, strict=True)]
            row[client]["paired_ratio"] = round(statistics.median(paired), 2)  # type: ignore[index]
        connected = [r.connected for r in got if r.connected is not None]
        server_cpu = [r.server_cpu for r in got if r.server_cpu is not None]
        figures = row[client]
        assert isinstance(figures, dict)
        if connected:
            figures["connected_ms"] = round(1000 * statistics.median(connected), 1)
        if server_cpu:
            figures["server_cpu_seconds"] = round(statistics.median(server_cpu), 3)
    return row


def _installed(argv: list[str]) -> bool:
    """Whether ``argv`` runs an omniurl other than this checkout's (another interpreter, or
    an install's script)."""
    return argv[0] not in ("curl", sys.executable)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--size", default="256M", help="file size (256M default; 1G is the "
                        "issue's figure)")  # fmt: skip
    parser.add_argument("--repeat", type=int, default=3, help="runs per client; best counts")
    parser.add_argument("--own-servers", action="store_true", help="use omniurl's servers")
    parser.add_argument("--gopher-server", choices=GOPHER_SERVERS, default="gophernicus",
                        help="the Gopher server (default gophernicus, per connection as "
                        "from inetd; pygopherd: one threaded process)")  # fmt: skip
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--protocols", default=",".join(PROTOCOLS), help="which to race "
                        "(comma-separated; default: all)")  # fmt: skip
    parser.add_argument("--to-file", action="store_true", help="write the content to a file "
                        "(-o FILE, removed after each run) instead of stdout")  # fmt: skip
    parser.add_argument("--rounds", type=int, default=0, help="interleaved rounds of the big "
                        "file, medians reported (0: best of --repeat per client)")  # fmt: skip
    parser.add_argument("--python", default=sys.executable, help="the interpreter whose "
                        "omniurl is measured (default: this one, with the checkout)")  # fmt: skip
    parser.add_argument("--against", action="append", default=[], metavar="PYTHON",
                        help="another install's interpreter: one more omniurl client "
                        "(with --rounds)")  # fmt: skip
    args = parser.parse_args(argv)
    if shutil.which("curl") is None:
        print("curl is not installed: nothing to compare with", file=sys.stderr)
        return 2
    size = parse_size(args.size)
    results: dict[str, dict[str, object]] = {}
    global PYCACHE
    with tempfile.TemporaryDirectory(prefix="omniurl-bench-") as tmp:
        PYCACHE = str(Path(tmp) / "pycache")
        root = Path(tmp) / "root"
        (root / "pub").mkdir(parents=True)
        write_random_file(root / "pub" / "big.bin", size)
        (root / "pub" / "tiny.bin").write_bytes(b"x")
        os.chmod(Path(tmp), 0o755)
        for proto in args.protocols.split(","):
            scratch = Path(tmp) / f"{proto}-scratch"
            with server(proto, root, scratch, args.own_servers, args.gopher_server) as (
                base,
                name,
            ):
                row: dict[str, object] = {"server": name}
                output = Path(tmp) / "out" / "content" if args.to_file else None
                if output is not None:
                    output.parent.mkdir(exist_ok=True)
                if args.rounds:
                    loaded = os.getloadavg()[0]
                    big = clients(base + _path(proto, "big.bin"), output, args.python,
                                  tuple(args.against))  # fmt: skip
                    row.update(interleaved(big, output, args.rounds, size))
                    o, c = row["omniurl"], row["curl"]
                    assert isinstance(o, dict) and isinstance(c, dict)
                    row["ratio_whole"] = round(o["whole_mib_s"] / c["whole_mib_s"], 2)
                    row["target"] = TARGETS[proto]
                    row["rss_ok"] = o["peak_rss_mib"] < RSS_LIMIT_MIB
                    row["load"] = os.getloadavg()[0]
                    row["load_start"] = loaded
                    results[proto] = row
                    continue
                for client, big_argv in clients(base + _path(proto, "big.bin"), output).items():
                    tiny_argv = clients(base + _path(proto, "tiny.bin"), output)[client]
                    run(tiny_argv, output)  # warm-up (and, for omniurl, compiled modules written)
                    tiny = min((run(tiny_argv, output) for _ in range(args.repeat)),
                               key=lambda r: r.seconds)  # fmt: skip
                    runs = [run(big_argv, output) for _ in range(args.repeat)]
                    best = min(runs, key=lambda r: r.seconds)
                    row[client] = {
                        "seconds": round(best.seconds, 3),
                        "startup_seconds": round(tiny.seconds, 3),
                        "whole_mib_s": round(size / best.seconds / (1 << 20), 1),
                        "transfer_mib_s": round(
                            size / max(best.seconds - tiny.seconds, 1e-6) / (1 << 20), 1
                        ),
                        "peak_rss_mib": round(max(r.rss_kib for r in runs) / 1024, 1),
                        "cpu_seconds": round(min(r.cpu for r in runs), 3),
                        "startup_cpu_seconds": round(tiny.cpu, 3),
                    }
                o, c = row["omniurl"], row["curl"]
                assert isinstance(o, dict) and isinstance(c, dict)
                row["ratio_whole"] = round(o["whole_mib_s"] / c["whole_mib_s"], 2)
                row["ratio_transfer"] = round(o["transfer_mib_s"] / c["transfer_mib_s"], 2)
                row["target"] = TARGETS[proto]
                row["rss_ok"] = o["peak_rss_mib"] < RSS_LIMIT_MIB
                results[proto] = row
    if args.json:
        print(json.dumps({"size": size, "to_file": args.to_file, "results": results}, indent=2))
        return 0
    if args.rounds:
        _print_rounds(results, size, args.to_file, args.rounds)
        return 0
    where = "to a file (-o)" if args.to_file else "to stdout (/dev/null)"
    print(f"file size {size} bytes ({size / (1 << 20):.0f} MiB), {where}, best of {args.repeat}")
    for proto, row in results.items():
        print(f"\n{proto.upper()} from {row['server']}:")
        for client in ("curl", "omniurl"):
            r = row[client]
            assert isinstance(r, dict)
            print(
                f"  {client:8} {r['seconds']:7.3f} s  whole {r['whole_mib_s']:8.1f} MiB/s  "
                f"transfer {r['transfer_mib_s']:8.1f} MiB/s  "
                f"(start-up {r['startup_seconds']:.3f} s)  peak RSS {r['peak_rss_mib']:6.1f} MiB"
                f"  CPU {r['cpu_seconds']:.3f} s (start-up {r['startup_cpu_seconds']:.3f} s)"
            )
        print(f"  ratio omniurl/curl: whole {row['ratio_whole']}x, transfer "
              f"{row['ratio_transfer']}x (target >= {row['target']}x); "
              f"RSS < {RSS_LIMIT_MIB} MiB: {row['rss_ok']}")  # fmt: skip
    return 0


def _print_rounds(results: dict[str, dict[str, object]], size: int, to_file: bool,
                  rounds: int) -> None:  # fmt: skip
    where = "to a file (-o)" if to_file else "to stdout (/dev/null)"
    print(f"file size {size} bytes ({size / (1 << 20):.0f} MiB), {where}, {rounds} "
          "interleaved rounds, medians [min-max]")  # fmt: skip
    for proto, row in results.items():
        print(f"\n{proto.upper()} from {row['server']} (load {row['load_start']:.1f} at the "
              f"start, {row['load']:.1f} at the end):")  # fmt: skip
        for client, r in row.items():
            if not isinstance(r, dict):
                continue
            low, high = r["seconds_min_max"]
            served = f"  {r['paired_ratio']}x curl by round" if "paired_ratio" in r else ""
            if "connected_ms" in r:
                served += f"  connected at {r['connected_ms']:.1f} ms,"
            if "server_cpu_seconds" in r:
                served += f"  server CPU {r['server_cpu_seconds']:.3f} s"
            print(
                f"  {client:20} wall {r['seconds']:7.3f} s [{low:.3f}-{high:.3f}]  "
                f"CPU {r['cpu_seconds']:.3f} s  peak RSS {r['peak_rss_mib']:6.1f} MiB{served}"
            )
        omniurl = row["omniurl"]
        assert isinstance(omniurl, dict)
        print(
            f"  ratio omniurl/curl, whole command: {row['ratio_whole']}x (medians; by round "
            f"{omniurl['paired_ratio']}x) (target >= {row['target']}x); "
            f"RSS < {RSS_LIMIT_MIB} MiB: {row['rss_ok']}"
        )


if __name__ == "__main__":
    raise SystemExit(main())
