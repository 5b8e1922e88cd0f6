"""``re.compile(pattern, flags)`` without parsing and compiling the pattern in the process.

Python compiles a regular expression in Python code (``re._parser``, ``re._compiler``) on
its first use in every process; the result, a list of integers for the ``_sre`` engine, is
never kept across runs.  A command that parses one URL pays for its scheme's default
pattern every time: ~5 million instructions (callgrind) of ``omniurl plan ftp://h/x``'s ~85
million and ``omniurl get``'s ~195 million, ~2-3 ms of CPU on this machine (issue 32,
docs/speed.md *Start-up and small files*), and the few patterns a get's protocol reads
with (HTTP's token and reason, FTP's replies, Gopher's selector) ~0.3 million each.

:func:`compile` gives the same pattern object from :mod:`schemes._sre_table`, which holds
what ``re._compiler.compile`` made of each pattern (its flags, code, groups and group
names), written by this module's :func:`main` with one interpreter and kept for that
interpreter only: the table is read only where the implementation, the exact Python
version, ``_sre.MAGIC``, ``_sre.CODESIZE`` and the byte order are the ones it was written
with; a pattern it does not hold, or any error, is ``re.compile``'s.  The object is the one
``re`` would make (``Pattern.__eq__`` compares the code: tests/test_precompiled.py holds
every entry to ``re.compile``'s, and a get's, ``plan``'s and ``parse``'s patterns to the
table).  Answers are kept per (pattern, flags), as ``re``'s own cache keeps them.

    python -m omniurl.schemes.precompiled     # write schemes/_sre_table.py for this Python
"""

from __future__ import annotations

import re
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: What :func:`compile` was asked for, in order (what :func:`main` writes a table of).
ASKED: dict[tuple[str | bytes, int], None] = {}
#: The patterns made, by (pattern, flags).
_made: dict[tuple[str | bytes, int], Any] = {}
#: The table for this interpreter (None: not read yet).
_table: dict[Any, Any] | None = None


def key() -> tuple[object, ...]:
    """What a table is valid for: the engine's code and the interpreter that made it."""
    import _sre  # type: ignore[import-not-found]

    return (
        sys.implementation.name, tuple(sys.version_info[:3]), _sre.MAGIC, _sre.CODESIZE,
        sys.byteorder,
    )  # fmt: skip


def _load() -> dict[Any, Any]:
    global _table
    if _table is None:
        try:
            from . import _sre_table

            _table = _sre_table.TABLE if key() == _sre_table.KEY else {}
        except Exception:  # (no table, or one of another shape: re.compile's)
            _table = {}
    return _table


def compile(pattern: Any, flags: int = 0) -> Any:
    """``re.compile(pattern, flags)``: the same pattern object, from the table where it
    holds it for this interpreter (``pattern`` a ``str`` or ``bytes``, ``flags`` an int)."""
    asked = (pattern, int(flags))  # (a RegexFlag is its int: re's cache reads it so too)
    made = _made.get(asked)
    if made is not None:
        return made
    ASKED[asked] = None
    entry = _load().get(asked)
    if entry is not None:
        try:
            made = _sre_compile(pattern, entry)
        except Exception:
            made = None
    if made is None:
        made = re.compile(pattern, flags)
    _made[asked] = made
    return made


#: The modules whose patterns the table holds: their module-level patterns (made by
#: :func:`compile` as they are imported) and those each names in ``PRECOMPILED`` (used
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
            compile(pattern)
    return list(ASKED)


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
    assert words.itemsize == key()[3]
    return (int(flags | parsed.state.flags), words.tobytes(), parsed.state.groups - 1, groupindex,
            tuple(indexgroup))  # fmt: skip


def main() -> None:
    """Write ``schemes/_sre_table.py`` for this interpreter."""
    from pathlib import Path

    from omniurl.schemes import precompiled  # (this module as imported, not __main__)

    entries = {asked: entry(*asked) for asked in precompiled.collect()}
    for (pattern, flags), args in entries.items():
        made = _sre_compile(pattern, args)
        assert made == re.compile(pattern, flags), pattern
    lines = [
        "# ruff: noqa: E501",
        "# fmt: off",
        '"""What ``re._compiler`` made of the patterns of :mod:`schemes.precompiled` (its',
        "``MODULES``), for the interpreter ``KEY`` names only.  Written by ``python -m",
        'omniurl.schemes.precompiled``: do not edit."""',
        "",
        f"KEY: tuple[object, ...] = {key()!r}",
        "TABLE: dict[tuple[str | bytes, int], tuple[object, ...]] = {",
        *(f"    {asked!r}: {args!r}," for asked, args in entries.items()),
        "}",
        "",
    ]
    target = Path(__file__).with_name("_sre_table.py")
    target.write_text("\n".join(lines), encoding="utf-8")
    print(f"{target}: {len(entries)} patterns for {key()}")


def _sre_compile(pattern: str | bytes, args: tuple[Any, ...]) -> Any:
    """The pattern object ``_sre.compile`` makes of a table entry's arguments (what
    :func:`compile` reads a pattern with, and :func:`main` checks each entry by)."""
    import _sre

    out, code, groups, groupindex, indexgroup = args
    return _sre.compile(pattern, out, memoryview(code).cast("I").tolist(), groups,
                        dict(groupindex), indexgroup)  # fmt: skip


if __name__ == "__main__":
    main()
