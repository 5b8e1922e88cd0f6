"""``mimetypes.guess_type(name, strict=False)`` for one file name, without ``init()``.

RFC 1738 §3.2.3 lets an FTP client guess the transfer type: the FTP planner sends ``TYPE A``
when the name's media type is textual (``resolvers/ftp/planner.py`` ``guess_type``).  Asked
of :mod:`mimetypes`, that answer cost a start ~6-10 ms of CPU (fresh venv, CPython 3.11,
``python -X importtime``; docs/speed.md *Start-up and small files*): ``import mimetypes``
imports ``urllib.parse`` (with ``ipaddress``, ~3 ms) for ``guess_type``'s ``_splittype``, and
its first guess runs ``init()``, which reads every file of ``mimetypes.knownfiles`` (Debian's
``/etc/mime.types``: 2,286 lines, ~1,700 ``add_type`` calls, ~3 ms) into tables of which one
entry is read.  The answer is on the wire, so it must stay exactly mimetypes' answer, on
this machine and any other: :func:`guess_type` computes it as mimetypes does, from the same
tables and files, reading only what the one name needs:

- the built-in tables (``_types_map_default``, ``_common_types_default``,
  ``_suffix_map_default``, ``_encodings_map_default``) and ``knownfiles`` are those of the
  ``mimetypes`` module when it is imported and still pristine (not initialised, nothing
  patched), and otherwise (not imported) those of its code run privately — the module's own
  body, from the interpreter's byte-code cache, with ``import urllib.parse`` answered by a
  placeholder, never put in ``sys.modules``;
- the name is reduced as ``MimeTypes.guess_type`` reduces it (``suffix_map`` followed while
  the lowered suffix is in it, an ``encodings_map`` suffix matched case-sensitively, then the
  type suffix lowered);
- the type is the last line of the last existing file of ``knownfiles`` naming that suffix
  (``MimeTypes.readfp``'s rules: the file read as UTF-8 with universal newlines, a line's
  words split on whitespace, a word starting with ``#`` ending them, the first word the
  type), else the built-in strict table's, else (``strict=False``) the common types';
  the files are read at each call, as ``init()`` would read them then (a name asked again
  while ``mimetypes`` is not imported gets the answer it got: ``init()`` reads them once).

Anything else is :mod:`mimetypes` itself: a Python other than 3.11-3.13 (:data:`CHECKED`:
3.14's is not followed), Windows (its registry), a name with ``:`` (a scheme, ``data:``
URLs) or ``/`` (3.13's ``urlparse``: a ``//`` authority, raising on a bad one),
``mimetypes`` initialised, replaced in ``sys.modules`` or any of its functions replaced, a
table of its own missing or not a ``dict``, ``knownfiles`` missing or not a list or tuple
(an iterator is read once, by ``init()``), any error while reading (the real call raises
it), and every call after :data:`FAST_CALLS` (a process guessing many names pays ``init()``
once and then looks up tables, as before).  tests/test_mimeguess.py compares the two on
every suffix of the machine's files, their case variants and compound suffixes, on files of
its own, and with mimetypes' internals changed each way, on every CPython 3.11-3.14 found
(``PATH`` and pyenv's).
"""

from __future__ import annotations

import os
import sys
from types import ModuleType

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: The Pythons whose ``mimetypes`` this follows (its ``guess_type``, ``init`` and ``readfp``).
CHECKED = ((3, 11), (3, 12), (3, 13))
#: Calls answered without ``init()``; later ones are ``mimetypes.guess_type``'s.
FAST_CALLS = 16

#: The functions of ``mimetypes`` whose code the answer follows: a module whose copies are
#: not its own (patched by a program) is asked instead.
_FOLLOWED = ("guess_type", "init")
_FOLLOWED_METHODS = ("__init__", "guess_type", "add_type", "read", "readfp",
                     "read_windows_registry")  # fmt: skip

#: Calls answered so far (a bound, not a count: two threads may both add one).
_calls = 0
#: ``mimetypes``' body run privately (None: not yet; False: it could not be).
_private: Any = None
#: The answers given from it, by name (at most :data:`FAST_CALLS`).
_answers: dict[str, tuple[str | None, str | None]] = {}


def guess_type(name: str) -> tuple[str | None, str | None]:
    """``mimetypes.guess_type(name, strict=False)``: the media type and the encoding."""
    global _calls
    tables = None
    if (
        sys.version_info[:2] in CHECKED
        and sys.platform != "win32"
        and ":" not in name
        and "/" not in name
        and _calls < FAST_CALLS
    ):
        _calls += 1
        try:
            tables = _tables()
            if tables is _private and tables is not None:
                # (mimetypes not imported: nothing can change the tables, and init() would
                # read the files once; the FTP planner asks twice in a get, ~0.3 ms each)
                answer = _answers.get(name)
                if answer is None:
                    answer = _answers[name] = _guess(name, tables)
                return answer
            if tables is not None:
                return _guess(name, tables)
        except Exception:  # (anything unusual: mimetypes' own answer, or its error)
            pass
    import mimetypes

    return mimetypes.guess_type(name, strict=False)


def _tables() -> ModuleType | None:
    """The module whose tables and ``knownfiles`` ``mimetypes.guess_type`` would read now,
    or None where this cannot answer as it would."""
    global _private
    loaded = sys.modules.get("mimetypes")
    if loaded is not None:
        return loaded if _pristine(loaded) else None
    if _private is None:
        _private = _run_privately() or False
    return _private or None


def _pristine(module: ModuleType) -> bool:
    """Whether ``module`` (the imported ``mimetypes``) is as its import left it: not
    initialised, no registry, its functions its own (a program may patch them)."""
    if module.__dict__.get("inited") is not False or module.__dict__.get("_db") is not None:
        return False
    if module.__dict__.get("_winreg") is not None:
        return False
    if module.__dict__.get("_mimetypes_read_windows_registry") is not None:
        return False
    source = module.__dict__.get("__file__")
    classes = module.__dict__.get("MimeTypes")
    functions = [module.__dict__.get(name) for name in _FOLLOWED]
    functions += [getattr(classes, name, None) for name in _FOLLOWED_METHODS]
    return source is not None and all(
        getattr(getattr(f, "__code__", None), "co_filename", None) == source for f in functions
    )


#: What mimetypes' body tries to import for the Windows registry (3.11-3.13).
_WINDOWS_ONLY = ("_winapi", "winreg")


def _run_privately() -> ModuleType | None:
    """``mimetypes``' body run in a module of its own (not in ``sys.modules``), with
    ``import urllib.parse`` given a placeholder (the body only names it)."""
    from importlib.machinery import PathFinder

    spec = PathFinder.find_spec("mimetypes")
    if spec is None or spec.loader is None or spec.origin is None:
        return None
    code = spec.loader.get_code("mimetypes")  # type: ignore[attr-defined]
    if code is None:
        return None
    module = ModuleType("mimetypes")
    module.__file__ = spec.origin
    builtins = dict(__builtins__ if isinstance(__builtins__, dict) else vars(__builtins__))
    real_import = builtins["__import__"]
    placeholder = ModuleType("urllib")
    placeholder.parse = ModuleType("urllib.parse")  # type: ignore[attr-defined]

    def import_(
        name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0
    ) -> Any:
        if name == "urllib.parse" and not fromlist and level == 0:
            return placeholder  # (``import urllib.parse``: binds the name ``urllib``)
        if name in _WINDOWS_ONLY and level == 0 and sys.platform != "win32":
            # (the Windows registry's modules, built into CPython on Windows only: their
            # search through every sys.path entry was ~1 million instructions of a get)
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return real_import(name, globals, locals, fromlist, level)

    builtins["__import__"] = import_
    module.__dict__["__builtins__"] = builtins
    exec(code, module.__dict__)
    if not _pristine(module):
        return None
    return module


def _guess(name: str, tables: ModuleType) -> tuple[str | None, str | None]:
    """``MimeTypes.guess_type(name, strict=False)`` of a database ``init()`` would make now
    (``name``: no ``:``, no ``/``)."""
    from posixpath import splitext

    suffix_map: dict[str, str] = tables._suffix_map_default
    encodings_map: dict[str, str] = tables._encodings_map_default
    types_map: dict[str, str] = tables._types_map_default
    common_types: dict[str, str] = tables._common_types_default
    files: list[str] = tables.knownfiles
    # (each read before any is used: one missing or of another shape, a Python's or a
    # program's, is mimetypes' to answer, or to fail on; and knownfiles a list or tuple, as
    # mimetypes' own: an iterator read here would be empty when init() reads it)
    if not (
        type(suffix_map) is dict
        and type(encodings_map) is dict
        and type(types_map) is dict
        and type(common_types) is dict
        and type(files) in (list, tuple)
    ):
        raise TypeError("mimetypes' tables are not as its import makes them")
    base, ext = splitext(name)
    while (ext_lower := ext.lower()) in suffix_map:
        base, ext = splitext(base + suffix_map[ext_lower])
    if ext in encodings_map:  # (case-sensitive, as mimetypes')
        encoding: str | None = encodings_map[ext]
        base, ext = splitext(base)
    else:
        encoding = None
    ext = ext.lower()
    found = _from_files(ext, files)
    if found is None:
        found = types_map.get(ext)
    if found is None:
        found = common_types.get(ext)
    return found, encoding


def _from_files(ext: str, files: list[str] | tuple[str, ...]) -> str | None:
    """The type the files give ``ext`` (``init()`` reads them in order, later lines
    overriding earlier ones: the last mention wins), or None."""
    word = ext[1:]
    if not ext.startswith(".") or word.split() != [word]:
        return None  # (no word of a file is empty or holds a space: "." + word never matches)
    found = None
    for file in files:
        if not os.path.isfile(file):
            continue
        with open(file, encoding="utf-8") as f:  # (as MimeTypes.read opens it)
            text = f.read()
        # Only the lines holding the word are split (readline's lines: universal newlines
        # made every line end "\n"; the word holds none, so a match is within one line).
        at = text.find(word)
        while at >= 0:
            begin = text.rfind("\n", 0, at) + 1
            end = text.find("\n", at)
            if end < 0:
                end = len(text)
            words = text[begin:end].split()
            for i, w in enumerate(words):
                if w[0] == "#":
                    del words[i:]
                    break
            if word in words[1:]:
                found = words[0]
            at = text.find(word, end)
    return found
