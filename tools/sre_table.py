"""Write ``schemes/_sre_table.py``: what ``re._compiler`` makes of the patterns a start
compiles, for this interpreter (read by ``schemes/precompiled.py``, docs/speed.md *No
pattern compiled at start*); and ``schemes/_code_table.py``, what ``compile`` makes of the
sources ``schemes.base.tuple_backed`` runs (``precompiled.code``).

    python tools/sre_table.py [--out FILE]    # with the interpreter the table is for

A tool of the checkout, not of the package (an installed omniurl never writes into itself).
tests/test_precompiled.py imports :func:`collect` to hold the table current: a pattern
changed or added without the table written again fails it.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # (the checkout's omniurl, run as a script from anywhere)
    sys.path.insert(0, str(ROOT))

from omniurl.schemes import precompiled  # noqa: E402

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


#: The modules whose patterns the table holds: their module-level patterns (made by
#: ``precompiled.compile`` as they are imported) and those each names in ``PRECOMPILED`` (used
#: where they are read).
MODULES = (
    "omniurl.schemes", "omniurl.schemes.grammar", "omniurl.schemes.rfc3986",
    "omniurl.schemes.ftp", "omniurl.schemes.http", "omniurl.schemes.gopher",
    "omniurl.resolvers.http.planner", "omniurl.resolvers.http.reply",
    "omniurl.resolvers.ftp.replies", "omniurl.resolvers.gopher.menu",
)  # fmt: skip


def collect() -> list[tuple[str | bytes, int]]:
    """The patterns of :data:`MODULES` a start compiles: those made as they are imported,
    and those each names in ``PRECOMPILED`` (not the ``grammar.Lazy`` ones of the slow
    paths and the strict reading: ~30 more, ~0.2 ms to load the table with them)."""
    import importlib

    for name in MODULES:
        module = importlib.import_module(name)
        for pattern in getattr(module, "PRECOMPILED", ()):
            precompiled.compile(pattern)
    return list(precompiled.ASKED)


def entry(pattern: str | bytes, flags: int) -> tuple[Any, ...]:
    """What ``re._compiler.compile`` makes of ``pattern``: (flags, code as bytes, groups,
    group names, names by group), the arguments ``_sre.compile`` takes."""
    from array import array
    from re import _compiler, _parser  # type: ignore[attr-defined]

    parsed = _parser.parse(pattern, flags)
    code = _compiler._code(parsed, flags)
    groupindex = dict(parsed.state.groupdict)
    indexgroup: list[Any] = [None] * parsed.state.groups
    for name, i in groupindex.items():
        indexgroup[i] = name
    words = array("I", code)
    assert words.itemsize == precompiled.key()[3]
    return (int(flags | parsed.state.flags), words.tobytes(), parsed.state.groups - 1, groupindex,
            tuple(indexgroup))  # fmt: skip


def main(argv: list[str]) -> None:
    """Write ``schemes/_sre_table.py`` (or ``--out FILE``) for this interpreter."""
    entries = {asked: entry(*asked) for asked in collect()}
    for (pattern, flags), args in entries.items():
        made = precompiled._sre_compile(pattern, args)
        assert made == re.compile(pattern, flags), pattern
    lines = [
        "# ruff: noqa: E501",
        "# fmt: off",
        '"""What ``re._compiler`` made of the patterns of tools/sre_table.py\'s ``MODULES``',
        "(read by :mod:`schemes.precompiled`), for the interpreter ``KEY`` names only.",
        'Written by ``python tools/sre_table.py``: do not edit."""',
        "",
        f"KEY: tuple[object, ...] = {precompiled.key()!r}",
        "TABLE: dict[tuple[str | bytes, int], tuple[object, ...]] = {",
        *(f"    {asked!r}: {args!r}," for asked, args in entries.items()),
        "}",
        "",
    ]
    target = Path(argv[1]) if argv[:1] == ["--out"] else ROOT / "schemes" / "_sre_table.py"
    target.write_text("\n".join(lines), encoding="utf-8")
    print(f"{target}: {len(entries)} patterns for {precompiled.key()}")
    if argv[:1] != ["--out"]:
        write_codes(ROOT / "schemes" / "_code_table.py")


def collect_code() -> list[str]:
    """The sources a start asks ``precompiled.code`` for: ``schemes.base``'s methods and
    every built-in URL class's ``__new__`` (each made as its module is imported)."""
    from omniurl.schemes.registry import builtin_classes

    builtin_classes()
    return list(precompiled.CODE_ASKED)


def write_codes(target: Path) -> None:
    """Write ``schemes/_code_table.py``: ``marshal``'s form of what ``compile`` makes of
    :func:`collect_code`'s sources, for this interpreter."""
    import builtins
    import marshal

    codes = {}
    for source in collect_code():
        made = builtins.compile(source, "<string>", "exec")
        codes[source] = marshal.dumps(made)
        assert marshal.loads(codes[source]) == made, source
    lines = [
        "# ruff: noqa: E501",
        "# fmt: off",
        '"""What ``compile`` made of the sources ``schemes.precompiled.code`` is asked for',
        "at a start (``schemes.base.tuple_backed``'s methods), as ``marshal`` writes code,",
        "for the interpreter ``KEY`` names only.  Written by ``python tools/sre_table.py``:",
        'do not edit."""',
        "",
        f"KEY: tuple[object, ...] = {precompiled.code_key()!r}",
        "TABLE: dict[str, bytes] = {",
        *(f"    {source!r}: {data!r}," for source, data in codes.items()),
        "}",
        "",
    ]
    target.write_text("\n".join(lines), encoding="utf-8")
    print(f"{target}: {len(codes)} sources for {precompiled.code_key()}")


if __name__ == "__main__":
    main(sys.argv[1:])
