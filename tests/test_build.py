"""The compiled core (setup.py, issue 32): which modules run compiled, and the pure fallback.

``OMNIURL_EXPECT_BUILD=compiled`` (CI's first run, after ``.ci/compiled.py in``) asserts that
every module setup.py compiles is imported as an extension module; ``=pure`` (its second run)
that none is.  The fallback is built for real: pip builds a wheel of a copy of this checkout
with no working C compiler (``CC=/bin/false``) and with ``OMNIURL_PURE=1``, and the wheel must
hold every module as Python and no extension module, the build having said why in one note.
"""

from __future__ import annotations

import ast
import importlib
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def compiled_modules() -> list[str]:
    """setup.py's ``COMPILED``, as module names (read, not imported: importing builds)."""
    tree = ast.parse((ROOT / "setup.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "COMPILED":
            assert node.value is not None
            paths: tuple[str, ...] = ast.literal_eval(node.value)
            return ["omniurl." + p.removesuffix(".py").replace("/", ".") for p in paths]
    raise AssertionError("setup.py has no COMPILED")


def test_compiled_list_names_real_modules() -> None:
    names = compiled_modules()
    assert "omniurl.schemes.http" in names
    for name in names:
        relative = Path(*name.split(".")[1:]).with_suffix(".py")
        assert (ROOT / relative).is_file(), name


@pytest.mark.skipif(
    os.environ.get("OMNIURL_EXPECT_BUILD") not in ("compiled", "pure"),
    reason="OMNIURL_EXPECT_BUILD (compiled|pure) is set by .ci/run",
)
def test_build_in_use_is_the_expected_one() -> None:
    want = os.environ["OMNIURL_EXPECT_BUILD"]
    for name in compiled_modules():
        origin = importlib.import_module(name).__file__ or ""
        compiled = origin.endswith(".so") or origin.endswith(".pyd")
        assert compiled == (want == "compiled"), (name, origin)
    # mypyc's shared library lives inside the package (one installed top-level name); other
    # compiled distributions bring their own (mypy's is a hash-named top-level module)
    shared = sorted(m for m in sys.modules if m.endswith("__mypyc") and m.startswith("omniurl"))
    assert shared == (["omniurl.compiled__mypyc"] if want == "compiled" else [])


def _build_wheel(tmp_path: Path, **env: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    """pip wheel of a copy of the checkout (setuptools writes build/ beside the sources), no
    network, no build isolation (this environment's setuptools and mypy)."""
    src, out = tmp_path / "src", tmp_path / "out"
    skip = shutil.ignore_patterns(
        ".git", "build", "*.egg-info", "__pycache__", "*.so", ".mypy_cache", ".hypothesis",
        ".pytest_cache", ".ruff_cache", "tests", "docs", "benchmarks", "examples",
    )  # fmt: skip
    shutil.copytree(ROOT, src, symlinks=True, ignore=skip)
    cmd = [sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "--no-index",
           "--no-build-isolation", "--disable-pip-version-check",
           "-w", str(out), str(src)]  # fmt: skip
    environ = {k: v for k, v in os.environ.items() if not k.startswith("OMNIURL_")}
    try:
        done = subprocess.run(
            cmd, capture_output=True, text=True, timeout=300, env=environ | env, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.skip(f"pip cannot build here: {exc}")
    if "No module named pip" in done.stderr or "No module named setuptools" in done.stderr:
        pytest.skip("pip or setuptools missing in this environment")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    (wheel,) = out.glob("omniurl-*.whl")
    return done, wheel


@pytest.mark.parametrize(
    ("env", "note"),
    [
        ({"CC": "/bin/false"}, "omniurl: no working C compiler"),
        ({"OMNIURL_PURE": "1"}, None),
    ],
    ids=["no-compiler", "OMNIURL_PURE"],
)
def test_pure_fallback_wheel(tmp_path: Path, env: dict[str, str], note: str | None) -> None:
    done, wheel = _build_wheel(tmp_path, **env)
    said = done.stdout + done.stderr
    if note is None:
        assert "installing the pure-Python package" not in said
    else:
        assert said.count(note) == 1, said[-3000:]
        assert "installing the pure-Python package" in said
    names = zipfile.ZipFile(wheel).namelist()
    assert not [n for n in names if n.endswith(".so")]
    for module in compiled_modules():
        assert "/".join(module.split(".")) + ".py" in names, module
