"""``schemes.precompiled.compile`` is ``re.compile``: the same pattern objects, from a table
written for one interpreter (schemes/_sre_table.py), and ``re``'s own work elsewhere.

``Pattern.__eq__`` compares the pattern, the flags and the engine's code, so equality here
is the very program ``re`` would run.  The table is also held to be current: it holds the
patterns a start compiles (a pattern changed without ``python tools/sre_table.py`` would be
compiled by ``re`` again, correct but slower).  The writer is the checkout's tool, not the
package's: the installed package only reads the table.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from omniurl.schemes import _code_table, _sre_table, precompiled

ROOT = Path(__file__).resolve().parent.parent
TOOL = ROOT / "tools" / "sre_table.py"


def load_tool() -> ModuleType:
    """tools/sre_table.py, the table's writer (a script of the checkout)."""
    spec = importlib.util.spec_from_file_location("sre_table_tool", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CURRENT = precompiled.key() == _sre_table.KEY
needs_table = pytest.mark.skipif(
    not CURRENT, reason=f"the table is for {_sre_table.KEY}, not {precompiled.key()}"
)


@needs_table
def test_every_entry_is_what_re_compiles() -> None:
    assert len(_sre_table.TABLE) >= 10
    for pattern, flags in _sre_table.TABLE:
        made = precompiled._sre_compile(pattern, _sre_table.TABLE[pattern, flags])
        real = re.compile(pattern, flags)
        assert made == real and made is not real, pattern
        assert (made.pattern, made.flags, made.groups, made.groupindex) == (
            real.pattern, real.flags, real.groups, real.groupindex,
        )  # fmt: skip
        # the same program: the same matches, groups and spans
        for text in ("", "%4", "%zz", "//h:21/a;type=i#f", "200 ok", "(1,2,3,4,5,6)", "a b"):
            probe: str | bytes = text if isinstance(pattern, str) else text.encode()
            m, n = made.search(probe), real.search(probe)  # type: ignore[arg-type]
            assert (m and (m.span(), m.groups())) == (n and (n.span(), n.groups()))


#: Run in a fresh interpreter: every pattern ``re`` itself compiles while the modules of the
#: table are imported and their read-time patterns asked for, then ``parse``, ``plan`` and
#: the table's own collection (what ``python tools/sre_table.py`` would write).
SCRIPT = r"""
import json, re._compiler, sys
import pathlib  # (tools/sre_table's own import: urllib.parse, which it brings, compiles a
# pattern of the standard library's; the pure build's start imports it anyway, the compiled
# build's does not, so counting it failed there only)
compiled = []
real = re._compiler.compile
def counting(p, flags=0):
    compiled.append(repr(p))
    return real(p, flags)
re._compiler.compile = counting
from omniurl.cli.main import main
for argv in (["parse", "http://a/b?c"], ["plan", "ftp://h/x"], ["plan", "gopher://h/1/"],
             ["plan", "http://h/x"], ["plan", "ftp://h/pub/f.txt"]):
    assert main(argv) == 0
sys.path.insert(0, "tools")
import sre_table
asked = [repr(a) for a in sre_table.collect()]
sys.stderr.write("\n" + json.dumps({"compiled": compiled, "asked": asked}) + "\n")
"""


@needs_table
def test_a_start_compiles_no_pattern_and_the_table_is_current() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, cwd=ROOT, timeout=120, check=True
    )
    found = json.loads(done.stderr.decode().rstrip("\n").rsplit("\n", 1)[-1])
    assert found["compiled"] == []
    assert sorted(found["asked"]) == sorted(repr(k) for k in _sre_table.TABLE)


def test_its_flags_are_res() -> None:
    """The flags a module passes without importing ``re`` (resolvers/http/reply.py) are
    ``re``'s own values, so the table's key and a fallback's ``re.compile`` are unchanged."""
    assert (int(re.DOTALL), int(re.IGNORECASE)) == (precompiled.DOTALL, precompiled.IGNORECASE)
    coding = r"(?P<name>[!#$%&'*+\-.^_`|~0-9A-Za-z]+)[ \t]*(?P<params>;.*)?"
    assert (coding, precompiled.DOTALL) in _sre_table.TABLE or not _sre_table.TABLE


def test_a_pattern_not_in_the_table_is_res(monkeypatch: pytest.MonkeyPatch) -> None:
    """Another interpreter's table, a pattern it does not hold, an entry it cannot use:
    ``re.compile``'s pattern, the same every time it is asked."""
    monkeypatch.setattr(precompiled, "_made", {})
    monkeypatch.setattr(precompiled, "_table", {("a(b)c", 0): ("not", "an", "entry")})
    for pattern in ("a(b)c", "x(?P<y>z)", b"\\d+"):
        made = precompiled.compile(pattern)
        assert made == re.compile(pattern) and precompiled.compile(pattern) is made
    assert precompiled.compile("q", re.I) == re.compile("q", re.I)
    monkeypatch.setattr(precompiled, "_table", None)
    monkeypatch.setattr(_sre_table, "KEY", ("another", "python"))
    assert precompiled._load() == {}


def test_compile_reads_an_entry_with_the_helper_main_checks_it_by(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One reader of a table entry (``_sre_compile``) for :func:`precompiled.compile` and for
    tools/sre_table.py's check: what the writer held equal to ``re.compile`` is the program
    a start runs."""
    pattern = r"(\d+)-(?P<n>[a-z])"
    args = load_tool().entry(pattern, 0)
    seen: list[tuple[object, ...]] = []
    real = precompiled._sre_compile

    def spy(p: str | bytes, a: tuple[object, ...]) -> object:
        seen.append((p, a))
        return real(p, a)

    monkeypatch.setattr(precompiled, "_sre_compile", spy)
    monkeypatch.setattr(precompiled, "_made", {})
    monkeypatch.setattr(precompiled, "_table", {(pattern, 0): args})
    made = precompiled.compile(pattern)
    assert seen == [(pattern, args)]
    assert made == re.compile(pattern) and made is not re.compile(pattern)
    assert made.match("12-x").groups() == ("12", "x")


def test_the_package_reads_the_table_and_the_checkout_writes_it(tmp_path: Path) -> None:
    """The writer is not in the installed package (which has no business writing into
    itself): ``schemes.precompiled`` has no ``main``/``collect``/``entry``, and no module of
    schemes/ is the writer (tools/ is no package of the wheel).  The tool, run
    as a script from anywhere, writes exactly the checkout's table when that is current."""
    assert not {"main", "collect", "entry", "MODULES"} & set(vars(precompiled))
    assert "sre_table" not in {p.stem for p in (ROOT / "schemes").glob("*.py")}
    if not CURRENT:
        pytest.skip(f"the table is for {_sre_table.KEY}, not {precompiled.key()}")
    out = tmp_path / "table.py"
    done = subprocess.run(
        [sys.executable, str(TOOL), "--out", str(out)],
        capture_output=True,
        cwd=tmp_path,
        timeout=120,
        check=True,
    )
    assert done.stdout.decode().startswith(f"{out}: {len(_sre_table.TABLE)} patterns for ")
    assert out.read_bytes() == (ROOT / "schemes" / "_sre_table.py").read_bytes()


# -- the code table: compile's code objects for schemes.base.tuple_backed's sources ----------


CODE_CURRENT = precompiled.code_key() == _code_table.KEY
needs_code_table = pytest.mark.skipif(
    not CODE_CURRENT, reason=f"the code table is for {_code_table.KEY}, not this Python"
)


@needs_code_table
def test_every_code_entry_is_what_compile_makes() -> None:
    import marshal

    assert len(_code_table.TABLE) >= 10
    for source, data in _code_table.TABLE.items():
        made = marshal.loads(data)
        real = compile(source, "<string>", "exec")
        assert made == real and made is not real, source
        assert (made.co_filename, made.co_consts[0]) == (real.co_filename, real.co_consts[0])


#: Run in a fresh interpreter: the sources asked for by every built-in class's import and
#: by ``parse`` and ``plan``, and those the code table would be written with.
CODE_SCRIPT = r"""
import builtins, json, sys
compiled = []
real = builtins.compile
def counting(source, *args, **kwargs):
    if isinstance(source, str) and source.startswith("def "):
        compiled.append(source)
    return real(source, *args, **kwargs)
builtins.compile = counting
from omniurl.cli.main import main
for argv in (["parse", "http://a/b?c"], ["plan", "ftp://h/x"], ["plan", "gopher://h/1/"]):
    assert main(argv) == 0
sys.path.insert(0, "tools")
import sre_table
asked = sre_table.collect_code()
sys.stderr.write("\n" + json.dumps({"compiled": compiled, "asked": asked}) + "\n")
"""


@needs_code_table
def test_a_start_compiles_no_method_source_and_the_code_table_is_current() -> None:
    done = subprocess.run(
        [sys.executable, "-c", CODE_SCRIPT], capture_output=True, cwd=ROOT, timeout=120,
        check=True,
    )  # fmt: skip
    found = json.loads(done.stderr.decode().rstrip("\n").rsplit("\n", 1)[-1])
    assert found["compiled"] == []
    assert sorted(found["asked"]) == sorted(_code_table.TABLE)


def test_a_source_not_in_the_code_table_is_compiles(monkeypatch: pytest.MonkeyPatch) -> None:
    """Another interpreter's table, a source it does not hold, an entry it cannot read:
    ``compile``'s code."""
    monkeypatch.setattr(precompiled, "_codes", {"x = 1\n": b"not marshal"})
    for source in ("x = 1\n", "def f(a, *, b=2):\n    return a + b\n"):
        assert precompiled.code(source) == compile(source, "<string>", "exec")
    monkeypatch.setattr(precompiled, "_codes", None)
    monkeypatch.setattr(_code_table, "KEY", ("another", "python"))
    assert precompiled._load_codes() == {}
