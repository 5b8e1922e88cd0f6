"""Build omniurl with its hot modules compiled by mypyc, or pure Python when that cannot be.

pyproject.toml holds the project's metadata; this file only adds the compiled core (issue 32
item 2).  mypyc (part of mypy, a build requirement) turns the typed modules listed in
``COMPILED`` into C extensions; the wheel holds both, the ``.py`` sources and the ``.so``
modules beside them (the interpreter imports an extension module before a source file of
the same name).  What is compiled, and why each module, is docs/speed.md.

The pure package is the fallback, never an error: with ``OMNIURL_PURE=1`` in the
environment, without mypy at build time, without a working C compiler (the probe below
compiles a few lines against Python.h first, so a machine without one says so at once), or
when compilation fails, the build prints one note and installs the same modules as Python.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent

#: The compiled modules, as paths under omniurl/ (schemes/ and resolvers/ are reached through
#: the package's links, so each compiles under its installed name, omniurl.schemes.X).
#: Measured and chosen in docs/speed.md (*The compiled core*).  Left out: schemes/registry.py
#: (its ``parse`` takes any object and answers a non-text with a URLError, where a compiled
#: ``text: str`` raises TypeError at the call; a plugin's bug must stay a URLError, which the
#: compiled ``except`` refused; and its entry-point scan is the tests' seam),
#: schemes/__init__.py (a module class and PEP 562 lazy names) and schemes/errors.py (a
#: compiled exception class has a layout of its own: ``class X(NotFound, FileNotFoundError)``,
#: as omniurl.integrations.fsspec and callers write, would be a TypeError; and errors are
#: not the hot path).
COMPILED: tuple[str, ...] = (
    "schemes/authority.py",
    "schemes/base.py",
    "schemes/extract.py",
    "schemes/fastparse.py",
    "schemes/file.py",
    "schemes/ftp.py",
    "schemes/gemini.py",
    "schemes/generic.py",
    "schemes/gopher.py",
    "schemes/grammar.py",
    "schemes/http.py",
    "schemes/join.py",
    "schemes/mailto.py",
    "schemes/news.py",
    "schemes/nntp.py",
    "schemes/normalize.py",
    "schemes/percent.py",
    "schemes/prospero.py",
    "schemes/rfc1630.py",
    "schemes/rfc3986.py",
    "schemes/secrets.py",
    "schemes/telnet.py",
    "schemes/urlsafe.py",
    "schemes/uts46.py",
    "schemes/wais.py",
)

#: The commands that build modules (pip's PEP 517 hooks run this file once for the metadata,
#: once for the wheel: the translation and the note belong to the second).  Not an editable
#: install (``pip install -e .``, ``develop``): its extensions would be built into the checkout,
#: beside the sources they were built from, and an edited ``.py`` would go unseen behind them.
BUILDING = {"build", "build_ext", "bdist_wheel", "install"}

NOTE = (
    "omniurl: {why}; installing the pure-Python package (the same modules, uncompiled: "
    "correct, only slower). Set OMNIURL_PURE=1 to choose this without the note."
)


def note(why: str) -> None:
    """The one clear note of a pure build (stderr: pip shows it with -v, and on failure)."""
    print(NOTE.format(why=why), file=sys.stderr, flush=True)


def compiler_works() -> str | None:
    """None when the C compiler Python was built with (or $CC) compiles a file including
    Python.h; else why not.  Asked before mypyc runs, so a machine without a compiler falls
    back in a second rather than after the whole translation."""
    cc = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    include = sysconfig.get_paths()["include"]
    with tempfile.TemporaryDirectory(prefix="omniurl-cc-") as tmp:
        source = Path(tmp) / "probe.c"
        source.write_text("#include <Python.h>\nint omniurl_probe(void) { return 0; }\n")
        argv = [*shlex.split(cc), "-I", include, "-c", str(source), "-o", str(Path(tmp) / "p.o")]
        try:
            done = subprocess.run(argv, capture_output=True, timeout=120, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"no working C compiler ({cc}: {exc})"
        if done.returncode != 0:
            return f"no working C compiler with Python's headers ({cc} exited {done.returncode})"
    return None


def compiled_extensions() -> list[object]:
    """mypyc's extension modules for ``COMPILED``, or [] (with the note) for a pure build."""
    if os.environ.get("OMNIURL_PURE", "") not in ("", "0"):
        return []
    if not COMPILED or not BUILDING.intersection(sys.argv[1:]):
        return []  # (metadata, an sdist: nothing is compiled, nothing said)
    try:
        from mypyc.build import mypycify
    except ImportError:
        note("mypy (mypyc) is not installed at build time")
        return []
    why = compiler_works()
    if why is not None:
        note(why)
        return []
    cwd = os.getcwd()
    os.chdir(HERE)  # mypyc names modules by the paths it is given, relative to the checkout
    try:
        return list(
            mypycify(
                # (pip builds in an environment without omniurl's dependencies: their types are
                # Any here, and the modules not compiled are read for their types only)
                ["--ignore-missing-imports", "--follow-imports=silent", "--no-warn-unused-ignores"]
                + [f"omniurl/{m}" for m in COMPILED],
                # (the shared library inside the package: omniurl/compiled__mypyc.*.so, so the
                # wheel still installs one top-level name, tests/test_packaging.py)
                group_name="omniurl.compiled",
                opt_level=os.environ.get("OMNIURL_MYPYC_OPT", "3"),
                debug_level="0",
            )
        )
    except (Exception, SystemExit) as exc:  # mypyc refused a module (it exits on an error)
        note(f"mypyc could not translate the core ({type(exc).__name__}: {exc})")
        return []
    finally:
        os.chdir(cwd)


class BuildExt(build_ext):
    """build_ext that falls back to the pure package when the C compilation fails."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # CompileError, LinkError, a missing header...
            note(f"compiling the core failed ({type(exc).__name__}: {exc})")
            self.extensions = []
            self.distribution.ext_modules = []


setup(ext_modules=compiled_extensions(), cmdclass={"build_ext": BuildExt})
