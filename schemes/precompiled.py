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
names), written by ``tools/sre_table.py`` with one interpreter and kept for that
interpreter only: the table is read only where the implementation, the exact Python
version, ``_sre.MAGIC``, ``_sre.CODESIZE`` and the byte order are the ones it was written
with; a pattern it does not hold, or any error, is ``re.compile``'s.  The object is the one
``re`` would make (``Pattern.__eq__`` compares the code: tests/test_precompiled.py holds
every entry to ``re.compile``'s, and a get's, ``plan``'s and ``parse``'s patterns to the
table).  Answers are kept per (pattern, flags), as ``re``'s own cache keeps them.

    python tools/sre_table.py     # write schemes/_sre_table.py for this Python (a checkout)

(The writer is a tool of the checkout, not of the package: an installed package has no
business writing into itself, and its compiled copy (setup.py) could not run as ``-m``.)
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: ``re.DOTALL`` and ``re.IGNORECASE``'s values (``_sre``'s ``SRE_FLAG_*``), for a module that
#: compiles through this one without importing ``re`` (tests/test_precompiled.py holds them equal).
DOTALL = 16
IGNORECASE = 2

#: What :func:`compile` was asked for, in order (what tools/sre_table.py writes a table of).
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
    if made is None:  # (re itself only then: a start that finds its patterns here needs none)
        import re

        made = re.compile(pattern, flags)
    _made[asked] = made
    return made


def _sre_compile(pattern: str | bytes, args: tuple[Any, ...]) -> Any:
    """The pattern object ``_sre.compile`` makes of a table entry's arguments (what
    :func:`compile` reads a pattern with, and tools/sre_table.py checks each entry by)."""
    import _sre

    out, code, groups, groupindex, indexgroup = args
    return _sre.compile(pattern, out, memoryview(code).cast("I").tolist(), groups,
                        dict(groupindex), indexgroup)  # fmt: skip


#: The sources :func:`code` was asked for, in order (what tools/sre_table.py writes a table
#: of, with the patterns).
CODE_ASKED: dict[str, None] = {}
#: The code table for this interpreter (None: not read yet).
_codes: dict[str, bytes] | None = None


def code_key() -> tuple[object, ...]:
    """What a code table is valid for: the interpreter and its byte-code's magic number."""
    import _frozen_importlib_external  # (loaded at every start)

    return (
        sys.implementation.name, tuple(sys.version_info[:3]),
        _frozen_importlib_external.MAGIC_NUMBER,
    )  # fmt: skip


def _load_codes() -> dict[str, bytes]:
    global _codes
    if _codes is None:
        try:
            from . import _code_table

            _codes = _code_table.TABLE if code_key() == _code_table.KEY else {}
        except Exception:  # (no table, or one of another shape: compile's)
            _codes = {}
    return _codes


def code(source: str) -> Any:
    """``compile(source, "<string>", "exec")``: the same code object, from
    :mod:`schemes._code_table` where it holds it for this interpreter (``marshal``'s form of
    what ``compile`` made; written by tools/sre_table.py with the pattern table).  The
    methods ``schemes.base.tuple_backed`` gives every built-in URL class are made by
    ``exec`` (a function mypyc compiles is no method); compiling their source was ~1.2
    million instructions for ``base``'s and ~0.5 million a class at every start (callgrind,
    docs/speed.md, *Start-up*)."""
    CODE_ASKED[source] = None
    data = _load_codes().get(source)
    if data is not None:
        try:
            import marshal

            return marshal.loads(data)
        except Exception:  # (an entry it cannot use: compile's)
            pass
    import builtins

    return builtins.compile(source, "<string>", "exec")
