"""``omniurl mirror`` beside the tools people mirror with, on the same tree (issue 33).

    python benchmarks/mirror_bench.py --scheme http --files 2000          # nginx autoindex
    python benchmarks/mirror_bench.py --scheme ftp --files 2000           # vsftpd (LIST)
    python benchmarks/mirror_bench.py --scheme ftp --peer-parallel 6      # beside lftp -P 6
    python benchmarks/mirror_bench.py --scheme gopher --files 2000        # omniurl serve gopher
    python benchmarks/mirror_bench.py --scheme gemini --files 500         # molly-brown
    python benchmarks/mirror_bench.py --scheme http --files 20000 --rounds 1 --variants 1

A tree of ``--files`` small files (0–499 random bytes — Gopher: a NUL and 0–499 —, names
``fNNNNNN.bin``) in ``--folders`` folders (and one empty folder), its times set to one date,
is served on loopback and copied, interleaved round by round, by:

- ``omniurl mirror -s URL DIR`` (and ``-Z``: ``--variants 2``) from the fresh venv
  (``benchmarks/_venv.py``: ``pip install .`` of this checkout, compiled where it builds);
  ``--baseline PYTHON`` adds another interpreter's omniurl (a venv of an older commit) as
  ``base``, for before/after in the same run;
- the peer: ``wget -m -np`` (HTTP: nginx autoindex), ``lftp mirror`` (FTP: vsftpd).  Gopher
  and Gemini have no mirroring peer: ``wget -m -np`` of the same tree over HTTP (nginx) is
  the yardstick there (the same files, one connection).

``--rerun`` adds a second run of each into its kept folder (nothing changed: HTTP's are
all conditional requests answered 304; FTP's a listing compare).

Each run is a child process: wall time, CPU (user+sys, ``wait4``'s rusage: the child's
own, not the server's) and peak RSS.  Every copy is kept until the end (on ext4 the file
creations just after a large tree is removed cost several times more CPU, for whichever
tool comes next; no ``sync`` either, which waits for every other job's writes).
After the runs every copy is compared with the source tree byte for byte (omniurl's own
state folder, its saved menus ``%gophermap.tsv`` and wget's ``index.html`` left out); HTTP
also counts nginx's connections and requests per run (keep-alive reuse).  The machine is
shared: read CPU before wall, and the ratios of the same round.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

from _common import ROOT, client_env, free_port, wait_listening
from _venv import reexec_in_venv

sys.path[:0] = [str(ROOT / "tests")]

from _daemon_conf import VSFTPD_CONF  # noqa: E402

WGET = shutil.which("wget")
LFTP = shutil.which("lftp")
NGINX = "/usr/sbin/nginx"
VSFTPD = "/usr/sbin/vsftpd"
MOLLY = shutil.which("molly-brown")
GOPHERNICUS = "/usr/sbin/gophernicus"
ACTIVATE = shutil.which("systemd-socket-activate")
#: The tree's one date (seconds since the epoch): every copy should carry it.
DATE = 1_700_000_000

NGINX_CONF = """\
daemon off;
master_process off;
worker_processes 1;
pid {scratch}/nginx.pid;
error_log {scratch}/error.log warn;
events {{ worker_connections 256; }}
http {{
  log_format conns '$connection $connection_requests $status';
  access_log {scratch}/access.log conns;
  client_body_temp_path {scratch}/body;
  proxy_temp_path {scratch}/proxy;
  fastcgi_temp_path {scratch}/fastcgi;
  uwsgi_temp_path {scratch}/uwsgi;
  scgi_temp_path {scratch}/scgi;
  types {{ }}
  default_type application/octet-stream;
  keepalive_requests 100000;
  sendfile on;
  server {{
    listen 127.0.0.1:{port};
    root {root};
    autoindex on;
  }}
}}
"""

#: Added to tests/_ftphttp.py's vsftpd configuration: the passive ports in a range the policy
#: allows (a random one can fall on the bad-port list: 6566, 9000…; omniurl then asks EPSV
#: again, docs/ftp.md) — unless ``--random-pasv`` leaves vsftpd its own choice, any port from
#: 1024 up.
PASV_RANGE = "pasv_min_port=41000\npasv_max_port=41999\n"


@dataclass
class Run:
    """One measured run."""

    tool: str
    round: int
    wall: float
    cpu: float
    rss_mib: float
    status: int
    rerun: bool = False
    connections: int | None = None
    requests: int | None = None
    folder: str = ""
    notes: list[str] = field(default_factory=list)


def make_tree(root: Path, files: int, folders: int, scheme: str) -> None:
    """``files`` files of 0–499 random bytes spread over ``folders`` folders, one empty
    folder, every time set to :data:`DATE`; readable by all (servers that serve as nobody).
    Gemini: each folder gets an ``index.gmi`` linking its files and folders."""
    rnd = random.Random(33)
    root.mkdir(parents=True)
    names: dict[str, list[str]] = {f"d{i:03d}": [] for i in range(folders)}
    for n in range(files):
        folder = f"d{n % folders:03d}"
        name = f"f{n:06d}.bin"
        names[folder].append(name)
        path = root / folder / name
        path.parent.mkdir(exist_ok=True)
        data = rnd.randbytes(rnd.randrange(500))
        if scheme == "gopher":  # (a binary item whatever its bytes: a Gopher server types
            data = b"\0" + data  # a file that reads as UTF-8 text 0, and sends it dot-stuffed)
        path.write_bytes(data)
    (root / "empty").mkdir()
    if scheme == "gemini":
        top = "# Capsule\n" + "".join(f"=> {d}/ {d}\n" for d in (*names, "empty"))
        (root / "index.gmi").write_text(top)
        (root / "empty" / "index.gmi").write_text("# Empty\n")
        for folder, items in names.items():
            body = f"# {folder}\n" + "".join(f"=> {n} {n}\n" for n in items)
            (root / folder / "index.gmi").write_text(body)
    for path in [root, *root.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
        os.utime(path, (DATE, DATE))


def tree_of(folder: Path, skip: Sequence[str] = ()) -> dict[str, bytes]:
    """Every file under ``folder`` (relative path: bytes) and every folder (``path/``),
    the mirror's state folder and the names in ``skip`` left out."""
    out: dict[str, bytes] = {}
    for dirpath, dirs, files in os.walk(folder):
        rel = os.path.relpath(dirpath, folder)
        rel = "" if rel == "." else rel + "/"
        dirs[:] = [d for d in dirs if d != ".omniurl-mirror"]
        for d in dirs:
            out[rel + d + "/"] = b""
        for name in files:
            if name in skip:
                continue
            with open(os.path.join(dirpath, name), "rb") as fh:
                out[rel + name] = fh.read()
    return out


def stale_times(folder: Path) -> int:
    """Files under ``folder`` whose time is not the source's (:data:`DATE`)."""
    return sum(
        1
        for dirpath, dirs, files in os.walk(folder)
        if ".omniurl-mirror" not in dirpath
        for name in files
        if name not in ("index.html", "%gophermap.tsv")
        and int(os.lstat(os.path.join(dirpath, name)).st_mtime) != DATE
    )


@contextmanager
def daemon(argv: list[str], port: int, cwd: Path | None = None) -> Iterator[None]:
    """A server for the block (its output discarded), waited for, then stopped."""
    proc = subprocess.Popen(
        argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, env=client_env(),
    )  # fmt: skip
    try:
        wait_listening(port, timeout=30)
        yield
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def nginx(stack: ExitStack, root: Path, scratch: Path) -> tuple[int, Path]:
    """nginx autoindex over ``root``; returns its port and access log (one line a request:
    connection number, requests on it, status)."""
    port = free_port()
    scratch.mkdir(parents=True, exist_ok=True)
    conf = scratch / "nginx.conf"
    conf.write_text(NGINX_CONF.format(port=port, root=root, scratch=scratch))
    argv = [NGINX, "-c", str(conf), "-p", str(scratch), "-e", str(scratch / "error.log")]
    stack.enter_context(daemon(argv, port))
    return port, scratch / "access.log"


def source_url(
    stack: ExitStack, scheme: str, root: Path, scratch: Path, args: argparse.Namespace
) -> str:
    """Start the server of ``scheme`` over ``root``; the URL of the tree's top."""
    if scheme == "http":
        port, _log = nginx(stack, root, scratch / "nginx")
        return f"http://127.0.0.1:{port}/"
    if scheme == "ftp":
        port = free_port()
        (scratch / "vsftpd" / "empty").mkdir(parents=True)
        conf = scratch / "vsftpd" / "vsftpd.conf"
        conf.write_text(
            VSFTPD_CONF.format(
                port=port, root=root, empty=scratch / "vsftpd" / "empty", scratch=scratch / "vsftpd"
            )
            + ("" if args.random_pasv else PASV_RANGE)
        )
        stack.enter_context(daemon([VSFTPD, str(conf)], port))
        return f"ftp://127.0.0.1:{port}/"
    if scheme == "gopher":
        port = free_port()
        if args.gopher_server == "gophernicus":
            command = [GOPHERNICUS, "-h", "127.0.0.1", "-p", str(port), "-r", str(root)]
            command += ["-nu", "-nm", "-ns"]
            if os.geteuid() == 0:
                command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *command]
            argv = [str(ACTIVATE), "-l", f"127.0.0.1:{port}", "--inetd", "-a", *command]
        else:
            argv = [sys.executable, "-m", "omniurl", "serve", "gopher", "--root", str(root)]
            argv += ["--host", "127.0.0.1", "--port", str(port)]
        stack.enter_context(daemon(argv, port))
        return f"gopher://127.0.0.1:{port}/1/"
    if scheme == "gemini":
        from omniurl.testservers.gemini import make_certificates

        port = free_port()
        (scratch / "molly").mkdir(parents=True)
        certs = make_certificates(scratch / "molly" / "certs")
        config = scratch / "molly" / "molly.conf"
        config.write_text(
            f'Port = {port}\nHostname = "127.0.0.1"\nCertPath = "{certs.server_cert}"\n'
            f'KeyPath = "{certs.server_key}"\nDocBase = "{root}/"\n'
            f'AccessLog = "{scratch / "molly" / "access.log"}"\n'
            f'ErrorLog = "{scratch / "molly" / "error.log"}"\n'
        )
        stack.enter_context(daemon([str(MOLLY), "-c", str(config)], port, cwd=scratch / "molly"))
        return f"gemini://127.0.0.1:{port}/"
    raise SystemExit(f"unknown scheme {scheme}")


def measure(argv: list[str], cwd: Path, timeout: float) -> tuple[float, float, float, int]:
    """Run ``argv``: wall seconds, CPU seconds (user+sys of the child), peak RSS (MiB) and
    exit status."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        argv, cwd=cwd, env=client_env(), stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    deadline = started + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            proc.kill()
            pid, status, usage = os.wait4(proc.pid, 0)
            break
        time.sleep(0.01)
    wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if proc.returncode not in (0, 8) and err:  # (wget: 8, a server error response)
        print(f"  {argv[0]}… exit {proc.returncode}: {err.strip()[-300:]}", file=sys.stderr)
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, proc.returncode


def connections(log: Path | None, mark: int) -> tuple[int | None, int | None, int]:
    """nginx's connections and requests since ``mark`` (an offset in its access log)."""
    if log is None or not log.exists():
        return None, None, mark
    with log.open("rb") as fh:
        fh.seek(mark)
        lines = fh.read().splitlines()
        end = fh.tell()
    ids = {line.split()[0] for line in lines if line}
    return len(ids), len(lines), end


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--scheme", choices=("http", "ftp", "gopher", "gemini"), default="http")
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--folders", type=int, default=0, help="default: files / 100 (at least 1)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--variants", type=int, choices=(1, 2), default=2,
                    help="1: omniurl mirror; 2: also with -Z")  # fmt: skip
    ap.add_argument("--baseline", metavar="PYTHON", help="another venv's interpreter, as 'base'")
    ap.add_argument("--no-peer", action="store_true", help="omniurl alone")
    ap.add_argument("--rerun", action="store_true", help="also a second run, nothing changed")
    ap.add_argument("--gopher-server", choices=("omniurl", "gophernicus"), default="omniurl")
    ap.add_argument(
        "--random-pasv",
        action="store_true",
        help="FTP: vsftpd picks any passive port (some are on the blocked list)",
    )
    ap.add_argument("--peer-parallel", type=int, default=0, metavar="N",
                    help="FTP: lftp mirror -P N (N at once; lftp's default: 1)")  # fmt: skip
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--here", action="store_true", help="this interpreter, not the fresh venv")
    args = ap.parse_args()
    folders = args.folders or max(1, args.files // 100)

    work = Path(tempfile.mkdtemp(prefix="mirror-bench-"))
    root = work / "tree"
    make_tree(root, args.files, folders, args.scheme)
    expected = tree_of(root)
    runs: list[Run] = []
    with ExitStack() as stack:
        stack.callback(shutil.rmtree, work, True)
        url = source_url(stack, args.scheme, root, work / "scratch", args)
        log: Path | None = None
        peer_url = url
        if args.scheme in ("gopher", "gemini"):
            port, _ = nginx(stack, root, work / "scratch" / "nginx-peer")
            peer_url = f"http://127.0.0.1:{port}/"
        if args.scheme == "http":
            log = work / "scratch" / "nginx" / "access.log"
        known = work / "known_hosts"
        tools: list[tuple[str, list[str]]] = []
        pythons = [("omniurl", sys.executable)]
        if args.baseline:
            pythons.insert(0, ("base", args.baseline))
        for label, python in pythons:
            command = [python, "-m", "omniurl", "mirror", "-s"]
            if args.scheme == "gemini":
                command += ["--gemini-known-hosts", str(known)]
            tools.append((label, command))
            if args.variants == 2:
                tools.append((label + " -Z", [*command, "-Z"]))
        peer = "lftp" if args.scheme == "ftp" else "wget"
        if not args.no_peer and (LFTP if peer == "lftp" else WGET) is None:
            print(f"{peer} not installed: omniurl alone", file=sys.stderr)
            args.no_peer = True
        mark = 0
        for rnd in range(1, args.rounds + 1):
            order = list(tools) if args.no_peer else [(peer, []), *tools]
            if rnd % 2 == 0:
                order.reverse()
            for label, command in order:
                out = work / f"{label.replace(' ', '')}-{rnd}"
                out.mkdir()
                if label == "lftp":
                    parallel = f"-P {args.peer_parallel} " if args.peer_parallel else ""
                    argv = [str(LFTP), "-e", f"mirror {parallel}. tree; quit", peer_url]
                elif label == "wget":
                    argv = [str(WGET), "-q", "-m", "-np", "-nH", "-P", "tree", peer_url]
                else:
                    argv = [*command, url, str(out / "tree")]
                for again in (False, True) if args.rerun else (False,):
                    wall, cpu, rss, status = measure(argv, out, args.timeout)
                    conns, reqs, mark = connections(log, mark)
                    runs.append(
                        Run(label, rnd, wall, cpu, rss, status, again, conns, reqs, str(out))
                    )
                    if not args.json:
                        r = runs[-1]
                        extra = f", {conns} connections, {reqs} requests" if conns else ""
                        print(
                            f"round {rnd} {label:<12}{' re-run' if again else ''}: "
                            f"{wall:7.2f} s wall, {cpu:6.2f} s CPU, {rss:5.1f} MiB, "
                            f"exit {status}{extra}",
                            flush=True,
                        )
        # the copies, byte for byte
        skip = ("index.html",) if peer == "wget" else ()
        for r in runs:
            if r.rerun:
                continue
            tree = Path(r.folder) / "tree"
            if r.tool in ("wget", "lftp"):
                got = tree_of(tree, skip)
            else:
                # (omniurl serve gopher's top menu has an +ASK demo item, "form")
                got = tree_of(tree, ("%gophermap.tsv", "form"))
            target = expected
            if got != target:
                missing = sorted(set(target) - set(got))[:3]
                extra = sorted(set(got) - set(target))[:3]
                differ = sorted(k for k in set(got) & set(target) if got[k] != target[k])[:3]
                r.notes.append(
                    f"NOT the source tree: missing {missing} extra {extra} differ {differ}"
                )
            stale = stale_times(tree)
            if stale and args.scheme in ("http", "ftp"):
                r.notes.append(f"{stale} files without the source's time")
    # (the folder is gone now: only the figures remain)
    if args.json:
        print(json.dumps([asdict(r) for r in runs], indent=1))
        return 0
    print()
    print(f"{args.files} files in {folders} folders over {args.scheme}; "
          f"load average {os.getloadavg()[0]:.1f} at the end")  # fmt: skip
    for r in runs:
        for note in r.notes:
            print(f"round {r.round} {r.tool}: {note}")
    if args.no_peer:
        return 0
    print("ratios to the peer of the same round (wall / CPU):")
    for label, _ in tools:
        for again in (False, True) if args.rerun else (False,):
            ratios = []
            for rnd in range(1, args.rounds + 1):
                mine = [r for r in runs if (r.tool, r.round, r.rerun) == (label, rnd, again)]
                theirs = [r for r in runs if (r.tool, r.round, r.rerun) == (peer, rnd, again)]
                if mine and theirs:
                    ratios.append(
                        (mine[0].wall / theirs[0].wall, mine[0].cpu / max(theirs[0].cpu, 1e-3))
                    )
            if ratios:
                walls = ", ".join(f"{w:.2f}" for w, _ in ratios)
                cpus = ", ".join(f"{c:.2f}" for _, c in ratios)
                print(
                    f"  {label:<12}{' re-run' if again else '       '} wall {walls} "
                    f"(median {statistics.median(w for w, _ in ratios):.2f}); "
                    f"CPU {cpus} (median {statistics.median(c for _, c in ratios):.2f})"
                )
    return 0


if __name__ == "__main__":
    reexec_in_venv(__file__, sys.argv[1:])
    sys.path[:0] = [str(ROOT)] if "--here" in sys.argv else []
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    raise SystemExit(main())
