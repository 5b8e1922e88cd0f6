"""One installed name: the wheel's only top-level package is ``omniurl``, and modules called
``resolvers`` or ``schemes`` in the caller's working directory do no harm (issue 8 §1)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env.pop("PYTHONPATH", None)
    return env


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project's wheel, built offline from a copy of the checkout."""
    work = tmp_path_factory.mktemp("wheel")
    source = work / "src"
    shutil.copytree(
        ROOT,
        source,
        symlinks=True,
        ignore=shutil.ignore_patterns(
            ".git", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", "*.so"
        ),
    )
    cmd = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-index",
           "--no-build-isolation", "--disable-pip-version-check", "-w", str(work / "out"),
           str(source)]  # fmt: skip
    # (the layout is the same compiled or pure: the pure build takes seconds, mypyc minutes;
    # tests/test_build.py checks the compiled modules)
    env = {**os.environ, "OMNIURL_PURE": "1"}
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False, env=env)
    if done.returncode != 0:
        pytest.skip(f"pip could not build the wheel offline here: {done.stderr.strip()[-500:]}")
    (built,) = (work / "out").glob("omniurl-*.whl")
    return built


def test_the_wheel_installs_exactly_one_top_level_name(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        (top_level,) = [n for n in names if n.endswith(".dist-info/top_level.txt")]
        assert archive.read(top_level).decode().split() == ["omniurl"]
    assert {n.split("/")[0] for n in names} == {"omniurl", top_level.split("/")[0]}
    # the root folders arrive inside the one name, with their subpackages and the type marker
    for member in (
        "omniurl/py.typed",
        "omniurl/schemes/__init__.py",
        "omniurl/resolvers/ftp/planner.py",
        "omniurl/testservers/gopher.py",
    ):
        assert member in names


@pytest.mark.skipif(os.name == "nt", reason="a POSIX shebang line")
@pytest.mark.timeout(300)
def test_the_command_runs_from_a_venv_whose_path_holds_a_space(wheel: Path, tmp_path: Path) -> None:
    """The installed ``omniurl`` command runs in a virtual environment under a folder whose
    name holds a space: pip gives an entry point's script a ``/bin/sh`` wrapper there, where a
    script of our own (``#!python``, tried in the eighth round to skip the template's ``import
    re``) got a bare ``#!`` line with the space in it, and did not run at all."""
    venv = tmp_path / "a space" / "v"
    # (the dependencies from this interpreter's site-packages: nothing is downloaded)
    made = subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                          capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    if made.returncode != 0:
        pytest.skip(f"no venv here: {made.stderr.strip()[-300:]}")
    python = venv / "bin" / "python"
    cmd = [str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
           "--force-reinstall", "--disable-pip-version-check", str(wheel)]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=240, check=False)
    assert done.returncode == 0, done.stderr
    url = "gopher://127.0.0.1:7070/0/a"
    ran = subprocess.run([str(venv / "bin" / "omniurl"), "plan", url], cwd=tmp_path,
                         env=_clean_env(), capture_output=True, text=True, timeout=60,
                         check=False)  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert '"steps": ["/a"]' in ran.stdout, ran.stdout


def test_the_installed_wheel_works_without_the_checkout(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
           "--disable-pip-version-check", "--target", str(target), str(wheel)]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    probe = (
        "import json, sys, omniurl; "
        "print(json.dumps([omniurl.__file__, omniurl.parse('gopher://h/0/a').selector, "
        "sorted(m for m in sys.modules "
        "if m.split('.')[0] in ('schemes', 'resolvers', 'testservers'))]))"
    )
    env = _clean_env()
    env["PYTHONPATH"] = str(target)
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    file, selector, stray = __import__("json").loads(done.stdout)
    assert file.startswith(str(target))
    assert selector == "/a"
    assert stray == []


def test_modules_named_resolvers_and_schemes_in_the_working_directory_do_no_harm(
    tmp_path: Path,
) -> None:
    # the usual GraphQL layout has a resolvers.py; a schemes.py is as likely
    (tmp_path / "resolvers.py").write_text("raise SystemExit('the wrong resolvers was imported')\n")
    (tmp_path / "schemes.py").write_text("raise SystemExit('the wrong schemes was imported')\n")
    (tmp_path / "testservers.py").write_text("raise SystemExit('the wrong testservers')\n")
    probe = (
        "import sys; sys.path.insert(0, ''); import omniurl; "
        "p = omniurl.plan('gopher://127.0.0.1:7070/0/a'); print(p.to_json()['steps'][0])"
    )
    env = _clean_env()
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == "/a\n"
    cli = subprocess.run(
        [sys.executable, "-m", "omniurl", "plan", "gopher://127.0.0.1:7070/0/a"], cwd=tmp_path,
        env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert cli.returncode == 0, cli.stderr
    assert '"steps": ["/a"' in cli.stdout
