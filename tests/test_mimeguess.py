"""``resolvers.mimeguess.guess_type`` is ``mimetypes.guess_type(name, strict=False)``.

The answer chooses the FTP transfer type (RFC 1738 §3.2.3: ``TYPE A`` or ``TYPE I``, bytes on
the wire), so it is compared with mimetypes' own, in a fresh interpreter each time (the
module's state is the point): every suffix of this machine's ``mime.types`` files and of
mimetypes' built-in tables, in several cases, behind compound suffixes (``.tar.gz``,
``.tgz``, ``.svgz``), with dots before them; names with no suffix, spaces, ``#``, non-ASCII
and undecodable characters; and files of the test's own that override each other as
``init()`` reads them.  Each answer is also checked to have been given without ``init()``
where it should be (no ``mimetypes``, ``urllib.parse`` or ``ipaddress`` imported), and by
mimetypes itself where a program changed it.
"""

from __future__ import annotations

import json
import mimetypes
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MODULE = ROOT / "resolvers" / "mimeguess.py"

#: Run in a fresh interpreter: the module loaded from its file (no package: nothing else is
#: imported), the names answered by it (``fast``), the state mimetypes was left in, then the
#: same names answered by mimetypes (``real``).  ``setup`` runs first (a program's doings).
SCRIPT = r"""
import importlib.util, json, sys
config = json.loads(sys.stdin.read())
spec = importlib.util.spec_from_file_location("mimeguess", config["module"])
mimeguess = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mimeguess)
mimeguess.FAST_CALLS = config.get("fast_calls", 10**9)
exec(config.get("setup", ""))

def answers(guess):
    out = []
    for name in config["names"]:
        try:
            out.append(list(guess(name)))
        except Exception as exc:
            out.append(type(exc).__name__)
    return out

fast = answers(mimeguess.guess_type)
mimetypes = sys.modules.get("mimetypes")
state = {
    "loaded": sorted(m for m in ("mimetypes", "urllib.parse", "ipaddress") if m in sys.modules),
    "inited": None if mimetypes is None else getattr(mimetypes, "inited", "absent"),
}
import mimetypes
real = answers(lambda name: mimetypes.guess_type(name, strict=False))
print(json.dumps({"fast": fast, "real": real, "state": state}))
"""


def run(
    names: list[str],
    *,
    setup: str = "",
    python: str = sys.executable,
    fast_calls: int | None = None,
) -> dict[str, object]:
    config: dict[str, object] = {"module": str(MODULE), "names": names, "setup": setup}
    if fast_calls is not None:
        config["fast_calls"] = fast_calls
    done = subprocess.run(
        [python, "-S", "-c", SCRIPT], input=json.dumps(config).encode(), capture_output=True,
        timeout=120, check=True, env={**os.environ, "PYTHONPATH": ""},
    )  # fmt: skip
    result: dict[str, object] = json.loads(done.stdout)
    return result


def mismatches(result: dict[str, object], names: list[str]) -> list[tuple[str, object, object]]:
    fast, real = result["fast"], result["real"]
    assert isinstance(fast, list) and isinstance(real, list)
    return [(n, f, r) for n, f, r in zip(names, fast, real, strict=True) if f != r]


def other_pythons() -> list[str]:
    """The CPythons 3.11-3.14 on this machine beside this one, one of each version (those
    that start): on ``PATH``, and pyenv's (``$PYENV_ROOT/versions``, whose shims answer only
    for the versions selected)."""
    import glob

    pyenv = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    found: dict[str, str] = {}
    for version in ("3.11", "3.12", "3.13", "3.14"):
        if version == f"{sys.version_info[0]}.{sys.version_info[1]}":
            continue
        candidates = [shutil.which(f"python{version}")]
        candidates += sorted(glob.glob(f"{pyenv}/versions/{version}.*/bin/python{version}"))
        for path in candidates:
            if path is None or version in found:
                continue
            probe = subprocess.run(
                [path, "-S", "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                capture_output=True, timeout=30,
            )  # fmt: skip
            if probe.returncode == 0 and probe.stdout.decode().strip() == version:
                found[version] = path
    return list(found.values())


#: This interpreter and the other CPythons 3.11-3.14 found.
PYTHONS = [sys.executable, *other_pythons()]


def version_of(python: str) -> tuple[int, int]:
    done = subprocess.run(
        [python, "-S", "-c", "import sys; print('%d %d' % sys.version_info[:2])"],
        capture_output=True, timeout=30, check=True,
    )  # fmt: skip
    major, minor = done.stdout.split()
    return int(major), int(minor)


def checked(python: str) -> bool:
    """Whether mimeguess answers without mimetypes on ``python`` (its ``CHECKED``)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("mimeguess_checked", MODULE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return version_of(python) in module.CHECKED


def machine_suffixes() -> set[str]:
    """Every suffix this machine's mimetypes knows: its files' and the built-in tables'."""
    found: set[str] = set()
    for file in mimetypes.knownfiles:
        if os.path.isfile(file):
            found |= set(mimetypes.read_mime_types(file) or {})
    for table in (
        mimetypes._types_map_default,  # type: ignore[attr-defined]
        mimetypes._common_types_default,  # type: ignore[attr-defined]
        mimetypes._suffix_map_default,  # type: ignore[attr-defined]
        mimetypes._encodings_map_default,  # type: ignore[attr-defined]
    ):
        found |= set(table)
    return found


def variants(suffix: str) -> list[str]:
    """Names ending in ``suffix`` as written, lowered, upper-cased and title-cased, after a
    plain stem, a dotted one and a dot file's."""
    cases = dict.fromkeys([suffix, suffix.lower(), suffix.upper(), suffix.title()])
    return [stem + s for s in cases for stem in ("f", "a.b", ".hidden")]


COMPOUND_BASES = [".tar", ".txt", ".TXT", ".svg", ".html", ".ps", ".json", ".nosuch", ""]
ENCODINGS = [".gz", ".GZ", ".Z", ".z", ".bz2", ".BZ2", ".xz", ".br", ".Br"]
SUFFIX_MAP = [".tgz", ".TGZ", ".Tgz", ".taz", ".tz", ".tbz2", ".txz", ".svgz", ".SVGZ"]
ODD_NAMES = [
    "README", "a.", "a..", "..", ".", ".txt", "..txt", "a..txt", "a.txt.", "a. txt",
    "a.t xt", "a.txt ", " a.txt", "a.\ttxt", "a.#txt", "a.txt#", "a#.txt", "a.\u212a",
    "a.\u0130", "a.\udcff", "a.txt\udcff", "\u00e9t\u00e9.txt", "a.t\u00a0xt", "a.\u00a0",
    "x.tar.gz.txt", "x.txt.gz.gz", "x.gz.tgz", "x.tar.tgz", "x.gz", "x.tgz.Z", "x.Z.tgz",
    "archive.tar.bz2", "archive.TAR.BZ2", "a.b.c.d.json", "a.js", "a.mjs", "a.webp",
    "a.md", "a.rtf", "a.rst", "a.bin", "a.exe", "a.c", "a.h", "a.py", "a.pl", "a.sh",
]  # fmt: skip
#: What a program's ``import mimetypes`` loads.
IMPORTED = ["ipaddress", "mimetypes", "urllib.parse"]
#: Names left to mimetypes itself (a scheme, a data URL, a path: 3.13's ``urlparse``).
OUTSIDE = [
    "dir.d/file", "dir.d/file.txt", "a/b.txt", "//x.txt", "/x.txt", "//[x.txt", "\t//[x.txt",
    "data:text/x,abc", "data:,", "x:y.txt", "ab:c.txt", "c:\\x.txt",
]  # fmt: skip


@pytest.mark.parametrize("python", PYTHONS)
def test_every_suffix_of_this_machine_without_init(python: str) -> None:
    """The machine's files and tables, each suffix in four cases after three stems, the
    compound suffixes, and odd names: the same answers as mimetypes', given before
    mimetypes (with urllib.parse and ipaddress) was imported.  (3.12 and 3.13 changed
    mimetypes: ``.js``, ``.md``, ``.webp``, 3.13's ``urlparse``; each CPython 3.11-3.13
    found on ``PATH`` answers as its own.)"""
    suffixes = machine_suffixes() | {".js", ".mjs", ".md", ".markdown", ".webp", ".rtf", ".rst"}
    names = [name for suffix in sorted(suffixes) for name in variants(suffix)]
    names += [f"f{base}{enc}" for base in COMPOUND_BASES for enc in ENCODINGS]
    names += [f"f{base}{s}" for base in ("", ".tar", ".x") for s in SUFFIX_MAP]
    names += ODD_NAMES
    names += names[:40]  # (asked again: the answer kept)
    assert len(names) > 1000 and any(f"f{s}" in names for s in (".txt", ".tar", ".gz"))
    result = run(names, python=python)
    assert mismatches(result, names) == []
    if checked(python):
        assert result["state"] == {"loaded": [], "inited": None}
    else:  # (a Python whose mimetypes this does not follow: mimetypes answers)
        assert result["state"] == {"loaded": IMPORTED, "inited": True}
    # the control: the answers are mimetypes', which differ by suffix and case
    real = dict(zip(names, result["real"], strict=True))  # type: ignore[call-overload]
    assert real["f.txt"] == real["f.TXT"] == ["text/plain", None]
    assert real["f.tar.gz"] == real["f.tgz"] == ["application/x-tar", "gzip"]
    assert real["f.tar.GZ"][1] is None and real["f.svgz"] == ["image/svg+xml", "gzip"]


OVERRIDES = (
    "# a comment line\n"
    "text/x-first   foo bar   # the rest ignored: baz\n"
    "application/x-second\tBAR qux#not-a-comment  #comment qux2\n"
    "  text/x-indented   ind\r\n"
    "application/x-cr cr\rtext/x-after-cr aftercr\r\n"
    "text/plain txt tar\n"
    "application/x-nbsp n\u00a0b\n"
    "text/x-alone\n"
    "#text/x-commented cmt\n"
    "image/x-last foo\n"
    "text/x-html html\n"
    "application/x-gz gz\n"
    "text/x-unicode \u00e9t\u00e9 \u212a\n"
    "application/x-nonl last"
)
SECOND = "text/x-second-file foo cr\napplication/x-tail tail txt\n"


def file_names() -> list[str]:
    words = {w for text in (OVERRIDES, SECOND) for w in text.split() if not {"/", ":"} & set(w)}
    names = [name for w in sorted(words) for name in variants("." + w)]
    names += [f"f{b}{e}" for b in (".txt", ".html", ".tar", ".foo", ".n") for e in ENCODINGS]
    return names + ODD_NAMES


@pytest.mark.parametrize("python", PYTHONS)
def test_files_that_override_each_other(python: str, tmp_path: Path) -> None:
    """``knownfiles`` pointed at files of the test's own (a missing one and a folder among
    them): later lines and later files win, a word starting with ``#`` ends a line's words,
    CR and CRLF end lines, the built-in types are overridden; answered without ``init()``."""
    first, second = tmp_path / "first.types", tmp_path / "second.types"
    first.write_bytes(OVERRIDES.encode())
    second.write_bytes(SECOND.encode())
    known = [str(tmp_path / "missing"), str(first), str(tmp_path), str(second), str(first)]
    names = file_names()
    controls = {
        # known: the second file, then the first again (read twice, as init() reads it)
        0: {"f.foo": "image/x-last", "f.txt": "text/plain", "f.tail": "application/x-tail"},
        1: {"f.foo": "image/x-last", "f.txt": "text/plain", "f.tail": None},
        2: {"f.foo": "image/x-last", "f.txt": "text/plain", "f.tail": "application/x-tail"},
    }
    for k, files in enumerate((known, known[:3], [str(second), str(first)])):
        setup = f"import mimetypes; mimetypes.knownfiles = {files!r}"
        result = run(names, setup=setup, python=python)
        assert mismatches(result, names) == []
        assert result["state"] == {"loaded": IMPORTED, "inited": not checked(python)}
        # the control: the files did override, in order
        real = dict(zip(names, result["real"], strict=True))  # type: ignore[call-overload]
        assert {name: real[name][0] for name in controls[k]} == controls[k]
    assert real["f.html"][0] == "text/x-html" and real["f.cr"][0] == "application/x-cr"
    assert real["f.aftercr"][0] == "text/x-after-cr" and real["f.qux2"][0] is None
    assert real["f.qux#not-a-comment"][0] == "application/x-second"


def test_a_file_that_is_not_utf8_raises_as_mimetypes_does(tmp_path: Path) -> None:
    bad = tmp_path / "bad.types"
    bad.write_bytes(b"text/plain txt\napplication/x-bad b\xff\n")
    setup = f"import mimetypes; mimetypes.knownfiles = [{str(bad)!r}]"
    result = run(["a.txt", "a.bin"], setup=setup)
    assert result["fast"] == result["real"] == ["UnicodeDecodeError", "UnicodeDecodeError"]


@pytest.mark.parametrize(
    ("setup", "name", "answer", "inited"),
    [
        ("mimetypes.add_type('text/x-added', '.zzz')", "a.zzz", "text/x-added", True),
        ("mimetypes.init()", "a.txt", "text/plain", True),
        ("mimetypes.MimeTypes()", "a.txt", "text/plain", True),
        ("mimetypes.guess_type = lambda n, strict=1: ('x/patch', None)", "a.txt", "x/patch", False),
        ("mimetypes.MimeTypes.readfp = lambda *a, **k: None", "a.json", "application/json", True),
        # a built-in table changed in place: what init() would copy, read as it is
        ("mimetypes._types_map_default['.zzz'] = 'text/x-def'", "a.zzz", "text/x-def", False),
    ],
)  # fmt: skip
@pytest.mark.parametrize("python", PYTHONS)
def test_a_changed_mimetypes_answers_itself(
    setup: str, name: str, answer: str, inited: bool, python: str
) -> None:
    """A program that initialised mimetypes, added a type or replaced a function gets
    mimetypes' answer (it is asked: ``inited`` is then True, but for a replaced
    ``guess_type``), on each Python found."""
    result = run([name], setup="import mimetypes; " + setup, python=python)
    assert result["fast"] == result["real"] == [[answer, None]]
    assert result["state"] == {"loaded": IMPORTED, "inited": inited}


def test_names_outside_its_domain_and_calls_past_the_bound_are_mimetypes() -> None:
    """A name with ``:`` or ``/`` is mimetypes' own (a scheme, a data URL, 3.13's
    ``urlparse``); after :data:`FAST_CALLS` answers, mimetypes is initialised once."""
    for name in OUTSIDE:
        result = run([name])
        assert result["fast"] == result["real"]
        assert result["state"] == {"loaded": IMPORTED, "inited": True}
    names = ["a.txt", "b.html", "c.bin"]
    result = run(names, fast_calls=2)
    assert mismatches(result, names) == [] and result["state"]["inited"] is True  # type: ignore[index]


@pytest.mark.parametrize("python", PYTHONS)
@pytest.mark.parametrize(
    "setup",
    [
        # knownfiles missing: none of them there, none listed, the name gone (init() fails)
        "import mimetypes; mimetypes.knownfiles = ['/nonexistent/mime.types']",
        "import mimetypes; mimetypes.knownfiles = []",
        "import mimetypes; del mimetypes.knownfiles",
        # knownfiles an iterator: init() reads it once, so it must not be read before
        "import mimetypes; mimetypes.knownfiles = iter(['/etc/mime.types', FILE])",
        "import mimetypes; mimetypes.knownfiles = (FILE,)",
        # the private tables of another shape or gone (another Python's mimetypes)
        "import mimetypes; del mimetypes._types_map_default",
        "import mimetypes; mimetypes._suffix_map_default = None",
        "import mimetypes; mimetypes._encodings_map_default = {'.gz': 'x-gz'}",
        "import mimetypes; del mimetypes.MimeTypes.readfp",
        # a stand-in module in mimetypes' place (a program's own)
        "import sys, types; m = types.ModuleType('mimetypes'); "
        "m.guess_type = lambda n, strict=True: ('x/stand-in', None); sys.modules['mimetypes'] = m",
        # a Python whose mimetypes this does not follow (3.14 and later: not in CHECKED)
        "mimeguess.CHECKED = ()",
    ],
)
def test_every_other_mimetypes_is_asked_or_answered_alike(
    setup: str, python: str, tmp_path: Path
) -> None:
    """Whatever state mimetypes' internals are in, on each Python found, the answers (or the
    errors) are mimetypes' own: for the same names, asked first of mimeguess and then of
    mimetypes in the same process."""
    file = tmp_path / "own.types"
    file.write_text("text/x-own own txt\n")
    names = ["a.txt", "a.own", "a.tar.gz", "a.tgz", "a.json", "a.nosuch", "README"]
    result = run(names, setup=setup.replace("FILE", repr(str(file))), python=python)
    assert mismatches(result, names) == []
    if "iter(" in setup or "(FILE,)" in setup:  # (the control: the file was read)
        assert result["real"][:2] == [["text/x-own", None], ["text/x-own", None]]  # type: ignore[index]
    if "CHECKED" in setup:
        assert result["state"] == {"loaded": IMPORTED, "inited": True}
