"""Standard output that cannot be written, for every command that prints (not only a
content's bytes): curl's write error, 23, with the operating system's reason on standard
error, never a traceback (docs/cli.md, *Exit statuses*).  Held with output unbuffered
(``PYTHONUNBUFFERED``: each write fails at once) and buffered (the failure comes at the
last flush, in ``cli.main.end``), to ``/dev/full`` and to a closed descriptor."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FULL = b"omniurl: cannot write standard output: No space left on device\n"

pytestmark = pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full here")


def _env(unbuffered: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env.pop("PYTHONUNBUFFERED", None)
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    env["HOME"] = str(ROOT)
    return env


def to_full(*args: str, unbuffered: bool) -> subprocess.CompletedProcess[bytes]:
    """``python -m omniurl ARGS > /dev/full``."""
    with open("/dev/full", "wb") as full:
        return subprocess.run(
            [sys.executable, "-m", "omniurl", *args], stdout=full, stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL, cwd=ROOT, env=_env(unbuffered), timeout=60, check=False,
        )  # fmt: skip


COMMANDS = {
    "parse": ["parse", "http://a/b"],
    "plan": ["plan", "ftp://h/x"],
    "join": ["join", "http://a/b", "c"],
    "get -I": ["get", "-I", f"file://{ROOT}/pyproject.toml"],
    "get a listing": ["get", f"file://{ROOT}/docs/"],
    "get --json": ["get", "--json", f"file://{ROOT}/pyproject.toml"],
    "get -w": ["get", "-w", "%{size_download}\\n", "-o", os.devnull, f"file://{ROOT}/README.md"],
    "get content": ["get", f"file://{ROOT}/pyproject.toml"],
}


@pytest.mark.parametrize("unbuffered", [True, False], ids=["unbuffered", "buffered"])
@pytest.mark.parametrize("command", list(COMMANDS))
def test_standard_output_full_is_23_with_the_reason(command: str, unbuffered: bool) -> None:
    done = to_full(*COMMANDS[command], unbuffered=unbuffered)
    assert (done.returncode, done.stderr) == (23, FULL)


def test_a_closed_standard_output_is_23_as_curls() -> None:
    """``>&-``: curl exits 23 (its write fails with EBADF); the interpreter gives the
    program no ``sys.stdout`` at all, and every print was an AttributeError."""
    for args in (["parse", "http://a/b"], ["get", f"file://{ROOT}/pyproject.toml"]):
        done = subprocess.run(
            [sys.executable, "-m", "omniurl", *args], stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, cwd=ROOT, env=_env(False),
            timeout=60, check=False, pass_fds=(), close_fds=True,
            preexec_fn=lambda: os.close(1),
        )  # fmt: skip
        assert (done.returncode, done.stderr) == (
            23,
            b"omniurl: cannot write standard output: Bad file descriptor\n",
        ), args


@pytest.mark.parametrize("how", ["full", "closed"])
def test_standard_error_unwritable_keeps_the_exit_status(how: str, tmp_path: Path) -> None:
    """A message that cannot be shown is lost, as curl's are; the exit status still says
    what happened (5: the file is not there; 0 for a good get), never 1 for a traceback
    nobody sees."""
    missing = f"file://{tmp_path}/missing.txt"
    good = f"file://{ROOT}/pyproject.toml"
    for url, status in ((missing, 5), (good, 0)):
        out = tmp_path / "out"
        with open("/dev/full", "wb") as full:
            done = subprocess.run(
                [sys.executable, "-m", "omniurl", "get", "-o", str(out), url],
                stdout=subprocess.PIPE, stderr=full, stdin=subprocess.DEVNULL, cwd=ROOT,
                env=_env(False), timeout=60, check=False,
                preexec_fn=(lambda: os.close(2)) if how == "closed" else None,
            )  # fmt: skip
        assert (done.returncode, done.stdout) == (status, b""), url
        assert out.exists() == (status == 0)


def test_a_manifest_on_a_full_disk_is_23_not_a_traceback(tmp_path: Path) -> None:
    """``--manifest`` opened, then its first row cannot be written (before: the flush's
    OSError as a traceback, twice, exit 1)."""
    url = f"file://{ROOT}/pyproject.toml"
    done = subprocess.run(
        [sys.executable, "-m", "omniurl", "get", "-sS", "-O", "--output-dir", str(tmp_path),
         "--manifest", "/dev/full", url, url],
        capture_output=True, stdin=subprocess.DEVNULL, cwd=ROOT, env=_env(False), timeout=60,
        check=False,
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (23, b"")
    assert done.stderr == b"omniurl: cannot write the manifest /dev/full: No space left on device\n"


def test_a_batchs_write_out_on_a_full_disk_is_23(tmp_path: Path) -> None:
    url = f"file://{ROOT}/pyproject.toml"
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            [sys.executable, "-m", "omniurl", "get", "-sS", "-O", "--output-dir", str(tmp_path),
             "-w", "%{size_download}\\n", url, url],
            stdout=full, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, cwd=ROOT,
            env=_env(False), timeout=60, check=False,
        )  # fmt: skip
    assert (done.returncode, done.stderr) == (23, FULL)


def test_a_closed_standard_input_reads_as_empty() -> None:
    """``parse - <&-``: no URL to read (before: ``sys.stdin`` was None, a TypeError)."""
    done = subprocess.run(
        [sys.executable, "-m", "omniurl", "parse", "-"], capture_output=True, cwd=ROOT,
        env=_env(False), timeout=60, check=False, preexec_fn=lambda: os.close(0),
    )  # fmt: skip
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
