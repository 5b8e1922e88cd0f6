"""What the benchmarks that race omniurl against curl share (not a benchmark itself): sizes,
free ports, a server in a subprocess for the length of a run, the clients' environment and the
big file they fetch."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Set (by benchmarks/_venv.py) when the benchmark runs in the fresh venv holding
#: ``pip install .``: the measured commands then run the installed omniurl, never the checkout.
INSTALLED = os.environ.get("OMNIURL_BENCH_INSTALLED") == "1"

#: Runs ``omniurl ARGS`` as ``python -m omniurl`` does, then prints, as JSON on the last line
#: of stderr, the modules imported since the interpreter started (beyond its own start):
#: what startup_bench.py's heavy-import column and tests/test_startup.py's budgets read.
PROBE = """\
import atexit, json, runpy, sys
before = set(sys.modules)
def report():
    sys.stdout.flush()
    new = sorted(m for m in sys.modules if m not in before and sys.modules[m] is not None)
    sys.stderr.write("\\n" + json.dumps(new) + "\\n")
atexit.register(report)
sys.argv = ["omniurl", *sys.argv[1:]]
runpy.run_module("omniurl", run_name="__main__", alter_sys=True)
"""


def parse_size(text: str) -> int:
    """``256M``, ``1G``, ``1GiB``, ``512k`` or plain bytes -> bytes."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    text = text.strip().upper().removesuffix("B").removesuffix("I")
    if text and text[-1] in units:
        return int(float(text[:-1]) * units[text[-1]])
    return int(text)


def free_port() -> int:
    """A port free on loopback right now (the servers are told which one to bind)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_listening(port: int, timeout: float = 10) -> None:
    """Wait (bounded) until something accepts connections on 127.0.0.1:port."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise TimeoutError(f"no server on port {port}") from None
            time.sleep(0.05)


def client_env() -> dict[str, str]:
    """The environment of a measured process: no proxies (loopback goes direct, for curl and
    omniurl alike), and this checkout on PYTHONPATH unless the installed omniurl is measured."""
    out = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    if INSTALLED:
        out.pop("PYTHONPATH", None)
    else:
        out["PYTHONPATH"] = str(ROOT)
    return out


@contextlib.contextmanager
def serving(
    argv: list[str], port: int, env: Mapping[str, str] | None = None
) -> Iterator[subprocess.Popen[bytes]]:
    """Run a server (``argv``, told to listen on ``port``) for the block: wait until it
    listens, then stop it (terminate; kill after 5 s).  Yields its process (a benchmark
    measuring the server's CPU reads it)."""
    proc = subprocess.Popen(
        argv, cwd=os.getcwd() if INSTALLED else ROOT, env=env, stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        wait_listening(port)
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def write_random_file(path: Path, size: int) -> None:
    """``size`` random bytes (1 MiB blocks repeated: compression cannot help either client)."""
    block = os.urandom(1 << 20)
    with path.open("wb") as fh:
        for _ in range(size >> 20):
            fh.write(block)
        fh.write(block[: size & ((1 << 20) - 1)])
