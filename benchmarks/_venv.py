"""A fresh virtual environment with omniurl installed as a user installs it (issue 32 item 1).

    python benchmarks/_venv.py            # build (or reuse) it and print its interpreter

Every benchmark and tests/test_startup.py's budgets run in it: ``python3 -m venv`` and
``pip install .`` of this checkout (not an editable install, not the checkout on
``PYTHONPATH``), plus the peers the benchmarks compare against (``ada-url``, ``yarl``).
Measuring with the interpreter that runs the tests instead flatters or slows omniurl by what
that installation's ``site`` hooks happen to import (some import ``re``, ``typing`` and a CA
bundle into every start, ~130 ms).  The baseline is ``python -c pass`` of the same venv.

The venv is cached by a hash of the sources that go into the wheel (``pyproject.toml``,
``setup.py``, ``omniurl/``, ``schemes/``, ``resolvers/``,
``testservers/``): a change to any of them builds
a new one (~1 min); otherwise it is reused.  Builds are serialised by a lock file, so two
benchmarks started together build it once.  ``OMNIURL_BENCH_VENVS`` moves the cache
(default: ``$TMPDIR/omniurl-bench-venvs``).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: What ``pip install .`` puts into the wheel (the three subpackages through omniurl's links).
SOURCES = ("pyproject.toml", "setup.py", "omniurl", "schemes", "resolvers", "testservers")
#: The peers the benchmarks measure in the same venv (the parse race).
PEERS = ("ada-url", "yarl")
#: Environment variable naming the cache directory.
CACHE_ENV = "OMNIURL_BENCH_VENVS"


def source_hash(root: Path = ROOT) -> str:
    """A hash of every file that goes into the installed package (paths and contents)."""
    digest = hashlib.sha256()
    for top in SOURCES:
        path = root / top
        if not path.exists():  # (setup.py: only with the compiled core)
            continue
        files = [path] if path.is_file() else sorted(path.rglob("*"))
        for f in files:
            if "__pycache__" in f.parts or f.suffix in (".pyc", ".so") or not f.is_file():
                continue
            digest.update(str(f.relative_to(root)).encode() + b"\0")
            digest.update(f.read_bytes() + b"\0")
    digest.update(f"{sys.version_info[:2]}".encode())
    return digest.hexdigest()[:16]


def cache_dir() -> Path:
    return Path(os.environ.get(CACHE_ENV) or Path(tempfile.gettempdir(), "omniurl-bench-venvs"))


#: Venvs kept besides the newest ones only while younger than this (a run may still use one).
KEEP = 4
KEEP_SECONDS = 6 * 3600


def _prune(base: Path) -> None:
    """Remove the cache's old venvs (~90 MB each): all but the :data:`KEEP` newest, once
    older than :data:`KEEP_SECONDS`.  Called under the lock, after a build."""
    import time

    built = sorted(
        (d for d in base.iterdir() if (d / ".complete").exists()),
        key=lambda d: (d / ".complete").stat().st_mtime,
        reverse=True,
    )
    for old in built[KEEP:]:
        if time.time() - (old / ".complete").stat().st_mtime > KEEP_SECONDS:
            shutil.rmtree(old, ignore_errors=True)


def venv_python(*, peers: bool = True, quiet: bool = True, timeout: float = 900) -> Path:
    """The interpreter of the fresh venv for this checkout's sources (built now if needed).

    Raises :class:`RuntimeError` (with pip's last lines) when the venv cannot be built, so a
    caller can skip with that reason.
    """
    base = cache_dir()
    base.mkdir(parents=True, exist_ok=True)
    target = base / f"{source_hash()}{'-peers' if peers else ''}"
    python = target / "bin" / "python"
    done = target / ".complete"
    with open(base / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if done.exists():
            return python
        shutil.rmtree(target, ignore_errors=True)
        build = Path(tempfile.mkdtemp(prefix="build-", dir=base))
        try:
            # A copy of the sources: pip builds in the tree (build/, *.egg-info), which must
            # not appear in the checkout, and a copy is what the hash describes.
            src = build / "src"
            for top in (*SOURCES, "README.md"):
                if not (ROOT / top).exists():
                    continue
                if (ROOT / top).is_dir():
                    shutil.copytree(
                        ROOT / top, src / top, symlinks=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.so", "build"),
                    )  # fmt: skip
                else:
                    src.mkdir(exist_ok=True)
                    shutil.copy2(ROOT / top, src / top)
            steps = [
                [sys.executable, "-m", "venv", str(target)],
                [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                 str(src), *(PEERS if peers else ())],
            ]  # fmt: skip
            for argv in steps:
                out = subprocess.run(
                    argv, cwd=build, capture_output=True, text=True, timeout=timeout,
                    stdin=subprocess.DEVNULL, check=False,
                )  # fmt: skip
                if out.returncode != 0:
                    tail = "\n".join((out.stdout + out.stderr).splitlines()[-5:])
                    raise RuntimeError(f"{' '.join(argv[:4])}… failed: {tail}")
                if not quiet:
                    print(f"built: {' '.join(argv[:4])}…", file=sys.stderr)
            # Byte-code caches written once, as an installed package has them.
            subprocess.run(
                [str(python), "-m", "compileall", "-q", str(target / "lib")],
                capture_output=True, timeout=timeout, check=False,
            )  # fmt: skip
            done.write_text(str(ROOT) + "\n")
            _prune(base)
        except subprocess.TimeoutExpired as exc:
            raise RuntimeError(f"building the venv timed out: {exc}") from None
        finally:
            shutil.rmtree(build, ignore_errors=True)
    return python


def in_venv(python: Path) -> bool:
    """Whether this process runs ``python``'s venv."""
    return Path(sys.prefix).resolve() == python.parent.parent.resolve()


def reexec_in_venv(script: str, argv: list[str]) -> None:
    """Run ``script`` again with the venv's interpreter (never returns) unless this process
    already is it; ``--here`` in ``argv`` keeps the current interpreter (development)."""
    if "--here" in argv:
        return
    python = venv_python(quiet=False)
    if in_venv(python):
        return
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["OMNIURL_BENCH_INSTALLED"] = "1"
    os.chdir(tempfile.gettempdir())  # (not the checkout: its omniurl/ would shadow the wheel)
    os.execve(str(python), [str(python), script, *argv], env)


if __name__ == "__main__":
    print(venv_python(quiet=False))
