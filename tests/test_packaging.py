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
    info = top_level.split("/")[0]
    data = info.replace(".dist-info", ".data")  # (the command's script: bin/omniurl, POSIX)
    assert {n.split("/")[0] for n in names} - {data} == {"omniurl", info}
    assert [n for n in names if n.startswith(data + "/")] in ([], [f"{data}/scripts/omniurl"])
    # the root folders arrive inside the one name, with their subpackages and the type marker
    for member in (
        "omniurl/py.typed",
        "omniurl/schemes/__init__.py",
        "omniurl/resolvers/ftp/planner.py",
        "omniurl/testservers/gopher.py",
    ):
        assert member in names


@pytest.mark.skipif(os.name == "nt", reason="Windows keeps the entry point's .exe launcher")
def test_the_command_is_a_script_that_imports_no_re(wheel: Path, tmp_path: Path) -> None:
    """pip's console-script template imports ``re`` before the entry point runs (~8.5 million
    instructions of ``re`` itself, a get using none): on POSIX the command is bin/omniurl, a
    script the installer gives the environment's interpreter, and the entry point is not
    declared twice (setup.py; docs/speed.md, *Start-up and small files*)."""
    import ast

    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        (script,) = [n for n in names if n.endswith(".data/scripts/omniurl")]
        text = archive.read(script).decode()
        (points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
        declared = archive.read(points).decode()
    assert text.startswith("#!python\n")  # (rewritten by the installer, PEP 427)
    assert "[console_scripts]" not in declared and "[omniurl.specs]" in declared
    imported = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            imported |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add(node.module or "")
    assert imported == {"sys", "omniurl.cli.main"}
    # installed, it is the command: the interpreter it names, its exit status and output
    target = tmp_path / "site"
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
           "--disable-pip-version-check", "--target", str(target), str(wheel)]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    installed = target / "bin" / "omniurl"
    assert installed.read_text().splitlines()[0] == f"#!{sys.executable}"
    assert os.access(installed, os.X_OK)
    env = {**_clean_env(), "PYTHONPATH": str(target)}
    for url in ("gopher://127.0.0.1:7070/0/a", "gopher://127.0.0.1:25/0/a"):  # (25: refused)
        ran = [
            subprocess.run(
                [*command, "plan", url], cwd=tmp_path, env=env, capture_output=True,
                timeout=60, check=False,
            )
            for command in ([str(installed)], [sys.executable, "-m", "omniurl"])
        ]  # fmt: skip
        # the same output, errors and exit status as ``python -m omniurl``
        assert [(r.returncode, r.stdout, r.stderr) for r in ran] == [
            (ran[1].returncode, ran[1].stdout, ran[1].stderr)
        ] * 2
        assert ran[0].returncode == (0 if ":7070/" in url else 2), ran[0].stderr


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
