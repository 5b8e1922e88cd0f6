"""asyncio without the standard-library modules a plain get never runs: the ``omniurl``
command's start (issue 32).

asyncio imports, as it is imported, modules that only some of its paths run: ``inspect``
(with ``ast``, ``dis`` and ``tokenize``: whether a callable is a coroutine function, asked by
``run_in_executor``, ``add_signal_handler`` and debug mode), ``traceback`` and ``linecache``
(a stack in debug mode, an error's report), ``logging`` (asyncio's logger, which writes only
when something went wrong or in debug mode), ``subprocess`` (child processes),
``concurrent.futures`` (executors: a host name's lookup), ``asyncio.staggered`` (Happy
Eyeballs) and ``asyncio.sslproto`` (TLS).  A get of a plain URL from a numeric address runs
none of them, yet its start paid ~17-25 ms of ~100-110 ms of CPU for them (fresh venvs,
A/B, load 3.5; docs/speed.md, *Start-up*).

:func:`import_asyncio` imports asyncio while a finder makes each of :data:`DEFERRED` a
:class:`Deferred` module: the module object is made (its name, spec, file, ``__path__``),
but its body runs only when a name it does not hold is first read from it, by anyone — in
that same object, so that everything holding it holds the real module from then on
(``importlib.util.LazyLoader``'s way, with a lock: two threads never both run it, nor see it
half made).  A few names are read while asyncio is imported (``_asyncio`` keeps
``inspect.isgenerator`` and ``traceback.extract_stack``; ``asyncio.log`` asks
``logging.getLogger``, ``asyncio.futures`` reads ``logging.DEBUG``, ``asyncio.subprocess``
three of ``subprocess``' constants, ``asyncio.tasks`` three of ``concurrent.futures``'):
:data:`GIVEN` gives each, for that import only, as what it stands for — the same constant,
a function that calls the real one, a logger (:class:`_Logger`) that becomes the real one on
its first use — and takes them back once asyncio is imported, so every later read comes from
the real module.  One thing is answered without loading: a debug or info record while
logging's body has not run (no one can have configured it: its defaults drop them; every
loop logs its selector at debug level when it starts).

``typing`` waits too (~9 ms of a get's start, its import with ``contextlib``: callgrind,
docs/speed.md): ``asyncio.timeouts`` is the one module of a get that reads it — ``final``,
and ``Optional[...]``/``Type[...]`` in annotations it evaluates as it is imported — and is
given ``final``'s body and a :class:`_Hint` that keeps each subscript as written; when
typing's body runs (whoever reads a name from it first), that module is given typing's own
names and its annotations become what typing makes of them (:func:`_typing_ran`): what it
holds had typing come first.  :func:`defer_packages` keeps the bodies of httptools'
packages waiting in the same way for the whole command (:data:`PACKAGES`: they import
typing for a ``Protocol`` class), and gives its C parser ``typing.Optional`` while it is
imported (:data:`TYPING_READERS`); the HTTP reply reader takes the parser from its module.

Process-wide and a reach into the standard library's modules, so only the ``omniurl``
command does it (never a program that imports the library), only on the Pythons it was
checked against (:data:`CHECKED`), only while asyncio is not loaded, and only for the
modules not loaded yet.  ``ssl`` waits for its first import as well
(:mod:`omniurl.sslimport`); tests/test_deferred.py holds both.
"""

from __future__ import annotations

import _thread
import sys
from types import FunctionType, ModuleType

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

#: The Pythons whose asyncio (and ``_asyncio``) this was checked against.
CHECKED = ((3, 11), (3, 12), (3, 13))


def _isgenerator(object: Any) -> bool:
    return _real("inspect").isgenerator(object)


def _extract_stack(f: Any = None, limit: int | None = None) -> Any:
    if f is None:  # (the caller's frame, as the real one takes it)
        f = sys._getframe().f_back
    return _real("traceback").extract_stack(f, limit)


def _get_logger(name: str | None = None) -> Any:
    return _Logger(name)


def _final(f: Any) -> Any:
    """``typing.final`` (the same body on 3.11-3.13): ``asyncio.timeouts`` marks its
    ``Timeout`` class with it."""
    try:  # noqa: SIM105 - (contextlib is not imported for it)
        f.__final__ = True
    except (AttributeError, TypeError):
        pass
    return f


class _Hint:
    """``Optional[X]`` or ``Type[X]`` (``form``, ``arg``) in an annotation that
    ``asyncio.timeouts`` evaluates as it is imported (it has no ``from __future__ import
    annotations``) while typing's body waits: kept as it is written, and made what typing
    makes of it once typing is loaded (:func:`_typing_ran`)."""

    __slots__ = ("arg", "form")

    def __init__(self, form: str, arg: object = None) -> None:
        self.form = form
        self.arg = arg

    def __getitem__(self, arg: object) -> _Hint:
        return _Hint(self.form, arg)

    def real(self, typing: Any) -> Any:
        """What typing's ``form[arg]`` is."""
        arg = self.arg.real(typing) if isinstance(self.arg, _Hint) else self.arg
        return getattr(typing, self.form)[arg]

    def __repr__(self) -> str:
        arg = self.arg if isinstance(self.arg, _Hint) else getattr(self.arg, "__name__", self.arg)
        return f"{self.form}[{arg}]"


def _typing_ran(typing: ModuleType) -> None:
    """typing's body has run: a module imported while it waited (``asyncio.timeouts``) holds
    typing's own ``final``, ``Optional`` and ``Type`` from now on, and its functions'
    annotations what typing makes of them: what it would hold had typing been loaded first."""
    given = GIVEN["typing"]
    for name, module in list(sys.modules.items()):
        names = getattr(module, "__dict__", None)
        if type(module) is Deferred or not isinstance(names, dict):
            continue
        held = [key for key in given if names.get(key) is given[key]]
        if not held:
            continue
        for key in held:
            names[key] = getattr(typing, key)
        for value in list(names.values()):
            if not isinstance(value, (type, FunctionType)) or value.__module__ != name:
                continue  # (only the classes and functions the module itself defines)
            members = list(vars(value).values()) if isinstance(value, type) else [value]
            for member in members:
                if isinstance(member, FunctionType):
                    hints = member.__annotations__
                    for key, hint in list(hints.items()):
                        if isinstance(hint, _Hint):
                            hints[key] = hint.real(typing)


class _Names(tuple[str, ...]):
    """A waiting asyncio module's ``__all__`` while asyncio is imported (:data:`LATER`):
    empty, so that asyncio's ``from .X import *`` binds nothing, and, added to asyncio's
    ``__all__``, a mark of where its names go (:class:`_Pending`)."""

    module: str

    def __new__(cls, module: str) -> _Names:
        self = super().__new__(cls, ())
        self.module = module
        return self

    def __add__(self, other: object) -> Any:
        return _Pending((), ((0, self.module),)) + other

    def __radd__(self, other: object) -> Any:
        if not isinstance(other, tuple):
            return NotImplemented
        return _Pending(other, ((len(other), self.module),))


class _Pending(tuple[str, ...]):
    """asyncio's ``__all__`` as its ``__init__`` adds it up while :data:`LATER` wait: the
    names so far, and where each waiting module's names go (:meth:`real`)."""

    marks: tuple[tuple[int, str], ...]

    def __new__(cls, names: tuple[str, ...], marks: tuple[tuple[int, str], ...]) -> _Pending:
        self = super().__new__(cls, names)
        self.marks = marks
        return self

    def __add__(self, other: object) -> Any:
        if isinstance(other, _Names):
            return _Pending(tuple(self), (*self.marks, (len(self), other.module)))
        if isinstance(other, _Pending):
            moved = tuple((at + len(self), name) for at, name in other.marks)
            return _Pending(tuple(self) + tuple(other), (*self.marks, *moved))
        if isinstance(other, tuple):
            return _Pending(tuple(self) + other, self.marks)
        return NotImplemented

    def real(self) -> tuple[str, ...]:
        """The ``__all__`` asyncio's ``__init__`` makes: each waiting module's names where
        they were added (its real ``__all__``: its body runs)."""
        out: list[str] = []
        start = 0
        for at, name in self.marks:
            out += self[start:at]
            out += _real(name).__all__
            start = at
        out += self[start:]
        return tuple(out)


#: asyncio's modules that only some programs use, whose names asyncio's ``__init__`` binds
#: with ``from .X import *`` (queues, streams and ``open_connection``, child processes,
#: task groups, ``to_thread``): their bodies wait too (~2.6 million instructions of a get:
#: callgrind, docs/speed.md), and asyncio gets their names, and its ``__all__``, when a
#: name it does not hold is first read from it (:func:`_asyncio_getattr`).
LATER = (
    "asyncio.queues", "asyncio.streams", "asyncio.subprocess", "asyncio.taskgroups",
    "asyncio.threads",
)  # fmt: skip
#: asyncio's ``__all__`` while :data:`LATER` wait (None: asyncio has it).
_pending: _Pending | None = None


def _asyncio_getattr(name: str) -> Any:
    """asyncio's module ``__getattr__`` while :data:`LATER` wait: binds their names in
    asyncio (what ``from .X import *`` binds) and its ``__all__``, takes itself away, and
    answers as asyncio then does."""
    asyncio = _bind_later()
    try:
        return asyncio.__dict__[name]
    except KeyError:
        raise AttributeError(f"module 'asyncio' has no attribute {name!r}") from None


def _bind_later() -> ModuleType:
    """asyncio with :data:`LATER`'s names bound and its ``__all__`` (their bodies run)."""
    global _pending
    asyncio = sys.modules["asyncio"]
    with _LOCK:
        names = asyncio.__dict__
        if names.get("__getattr__") is not _asyncio_getattr:
            return asyncio
        for name in LATER:
            module = _real(name)
            for key in module.__all__:
                names.setdefault(key, getattr(module, key))
        if _pending is not None:
            names["__all__"] = _pending.real()
            _pending = None
        del names["__getattr__"]
    return asyncio


def _await_later() -> None:
    """Once asyncio is imported: asyncio's ``__getattr__`` binds :data:`LATER`'s names on
    first use, if they still wait (else now)."""
    global _pending
    asyncio = sys.modules.get("asyncio")
    if asyncio is None or "__getattr__" in asyncio.__dict__:
        return
    pending = asyncio.__dict__.get("__all__")
    if not isinstance(pending, _Pending) or any(n not in sys.modules for n in LATER):
        return  # (not asyncio as checked: nothing waits for its names)
    _pending = pending
    del asyncio.__dict__["__all__"]
    asyncio.__dict__["__getattr__"] = _asyncio_getattr
    if not all(type(sys.modules[n]) is Deferred for n in LATER):
        _bind_later()


#: What each deferred module gives while asyncio is imported: the names read then.
GIVEN: dict[str, dict[str, Any]] = {
    "inspect": {"isgenerator": _isgenerator},
    "traceback": {"extract_stack": _extract_stack},
    "linecache": {},
    "logging": {"getLogger": _get_logger, "DEBUG": 10},
    "subprocess": {"PIPE": -1, "STDOUT": -2, "DEVNULL": -3},
    "concurrent.futures": {
        "FIRST_COMPLETED": "FIRST_COMPLETED",
        "FIRST_EXCEPTION": "FIRST_EXCEPTION",
        "ALL_COMPLETED": "ALL_COMPLETED",
    },
    "asyncio.staggered": {},
    "asyncio.sslproto": {},
    "typing": {"final": _final, "Optional": _Hint("Optional"), "Type": _Hint("Type")},
    **{name: {"__all__": _Names(name)} for name in LATER},
}
#: The modules whose bodies wait for their first use.
DEFERRED = tuple(GIVEN)


class Deferred(ModuleType):
    """A module whose body runs when a name it does not hold is first read from it."""

    def __getattr__(self, name: str) -> Any:
        spec = self.__spec__
        if name == "__path__" and spec is not None and spec.submodule_search_locations is None:
            # (asked by every ``from M import x``: a module that is no package has none,
            # and its body does not make one)
            raise AttributeError(f"module {self.__name__!r} has no attribute '__path__'")
        _load(self)
        return ModuleType.__getattribute__(self, name)


def is_deferred(module: object) -> bool:
    """Whether ``module``'s body has yet to run (reading a name from it would run it)."""
    return type(module) is Deferred


#: Held while a body runs: the first thread to read a name runs it, the others wait.
_LOCK = _thread.RLock()
#: The modules whose bodies are running (a name their own body reads before setting it is
#: missing, as in any module being imported).
_LOADING: set[str] = set()


def _load(module: ModuleType) -> None:
    """Run ``module``'s body in it (once, whichever thread asks first)."""
    with _LOCK:
        if type(module) is not Deferred or module.__name__ in _LOADING:
            return  # (loaded; or its own body reads a name it has not set yet)
        _LOADING.add(module.__name__)
        try:
            spec = module.__spec__
            assert spec is not None and spec.loader is not None
            spec.loader.exec_module(module)
            module.__class__ = ModuleType  # type: ignore[assignment]  # (plain from now on)
            if module.__name__ == "typing":
                _typing_ran(module)
        finally:
            _LOADING.discard(module.__name__)


def _real(name: str) -> Any:
    """The module ``name``, its body run."""
    module = sys.modules.get(name)
    if module is None:
        __import__(name)
        module = sys.modules[name]
    if type(module) is Deferred:
        _load(module)
    return module


def _ran(name: str) -> bool:
    """Whether the module ``name`` is loaded and its body has run."""
    module = sys.modules.get(name)
    return module is not None and type(module) is not Deferred


class _Logger:
    """``logging.getLogger(name)`` until logging is used: the first name read from it loads
    logging, and from then on the real logger answers, here and in every module that holds
    this one (``asyncio.log.logger`` and the asyncio modules that imported it are given the
    real logger: only asyncio's import, while :data:`GIVEN` was given, can have made one)."""

    __slots__ = ("_name",)

    def __init__(self, name: str | None) -> None:
        object.__setattr__(self, "_name", name)

    def _logger(self) -> Any:
        logger = _real("logging").getLogger(self._name)
        for name, module in list(sys.modules.items()):
            if name == "asyncio" or name.startswith("asyncio."):
                names = getattr(module, "__dict__", {})
                for key, value in list(names.items()):
                    if value is self:
                        names[key] = logger
        return logger

    def debug(self, *args: Any, **kwargs: Any) -> None:
        """Nothing while logging's body has not run: no one can have configured it, and its
        defaults (the root logger's level, WARNING) drop a debug message.  (asyncio logs the
        selector it uses at every loop's start.)"""
        if _ran("logging"):
            self._logger().debug(*args, **kwargs)

    def info(self, *args: Any, **kwargs: Any) -> None:
        """As :meth:`debug`: dropped by logging's defaults until logging is loaded."""
        if _ran("logging"):
            self._logger().info(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._logger(), name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._logger(), name, value)

    def __repr__(self) -> str:
        return repr(self._logger())


def _unwrap(module: ModuleType, real: Any) -> None:
    """The module's spec and ``__loader__`` name the real loader again, not the wrapper that
    is running it (:class:`_Loader`, :class:`_GivingLoader`): :func:`_load` runs a deferred
    body with the spec's loader (the wrapper would defer it again), and what else reads them
    (``importlib.reload``, ``importlib.resources``) meets the module as the other finders
    made it."""
    spec = module.__spec__
    assert spec is not None
    spec.loader = real
    module.__loader__ = real


class _Loader:
    """The real loader, but for its module's body: the module is made :class:`Deferred`."""

    def __init__(self, real: Any) -> None:
        self.real = real

    def create_module(self, spec: Any) -> Any:
        return self.real.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        _unwrap(module, self.real)
        module.__dict__.update(GIVEN.get(module.__name__, {}))
        module.__class__ = Deferred


class _Finder:
    """A ``sys.meta_path`` finder of :data:`DEFERRED`: the spec the other finders give, its
    loader wrapped in :class:`_Loader`."""

    def __init__(self, names: list[str]) -> None:
        self.names = names

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: Any = None) -> Any:
        if fullname not in self.names:
            return None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec = find(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec  # (not a module this knows how to defer: loaded as ever)
        spec.loader = _Loader(spec.loader)
        return spec


def import_asyncio(defer_ssl: Callable[[], bool]) -> list[str]:
    """Import asyncio (by ``defer_ssl``) with those of :data:`DEFERRED` not loaded yet
    waiting for their first use; the names of those that wait.  Nothing is deferred on an
    unchecked Python or once asyncio is loaded."""
    waiting = [name for name in DEFERRED if name not in sys.modules]
    if sys.version_info[:2] not in CHECKED or "asyncio" in sys.modules or not waiting:
        defer_ssl()
        return []
    finder = _Finder(waiting)
    sys.meta_path.insert(0, finder)
    try:
        defer_ssl()
    finally:
        sys.meta_path.remove(finder)
        for name in waiting:  # the names given for asyncio's import are taken back
            module = sys.modules.get(name)
            if type(module) is Deferred:
                for key in GIVEN[name]:
                    module.__dict__.pop(key, None)
        _await_later()
    return [name for name in waiting if type(sys.modules.get(name)) is Deferred]


#: Packages whose ``__init__`` waits as well, for the whole of the command (not only while
#: asyncio is imported): httptools' re-exports its parser's names and imports
#: ``httptools.parser.protocol``, a ``typing.Protocol`` class — typing's import, ~9 ms of a
#: get's start (docs/speed.md, *Start-up*) — for type checkers.  The HTTP reply reader takes
#: the parser and its errors from the modules that define them (``httptools.parser.parser``,
#: ``httptools.parser.errors``), which importing does not read a name from these packages.
PACKAGES = ("httptools", "httptools.parser")
#: Modules imported later with typing's names they read as they are imported given, as
#: asyncio's are (:data:`GIVEN`), while typing's body waits: httptools' C parser keeps its
#: annotations as text and reads ``typing.Optional`` only to hold it.
TYPING_READERS = {"httptools.parser.parser": ("Optional",)}


class _given:
    """typing's ``names`` (from :data:`GIVEN`) given while the block runs, if its body
    waits."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = names

    def __enter__(self) -> None:
        typing = sys.modules.get("typing")
        if type(typing) is Deferred:
            for key in self.names:
                typing.__dict__.setdefault(key, GIVEN["typing"][key])

    def __exit__(self, *_exc: object) -> None:
        typing = sys.modules.get("typing")
        if type(typing) is Deferred:
            for key in self.names:
                if typing.__dict__.get(key) is GIVEN["typing"][key]:
                    del typing.__dict__[key]


class _GivingLoader:
    """The real loader, run with typing's names given (:data:`TYPING_READERS`)."""

    def __init__(self, real: Any, names: Sequence[str]) -> None:
        self.real = real
        self.names = names

    def create_module(self, spec: Any) -> Any:
        with _given(self.names):  # (an extension module's init runs here)
            return self.real.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        _unwrap(module, self.real)
        with _given(self.names):
            self.real.exec_module(module)


class _PackageFinder(_Finder):
    """:class:`_Finder` of :data:`PACKAGES` and :data:`TYPING_READERS`, which steps aside
    once it has found them all."""

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: Any = None) -> Any:
        if fullname not in self.names:
            return None
        spec = super().find_spec(fullname, path, target)
        self.names = [name for name in self.names if name != fullname]
        if not self.names and self in sys.meta_path:
            sys.meta_path.remove(self)  # (the import system stops at the spec found)
        if fullname in TYPING_READERS and spec is not None and spec.loader is not None:
            real = spec.loader.real if isinstance(spec.loader, _Loader) else spec.loader
            spec.loader = _GivingLoader(real, TYPING_READERS[fullname])
        return spec


def defer_packages() -> list[str]:
    """Have :data:`PACKAGES` not imported yet wait for their first use, in this process from
    now on (the ``omniurl`` command's, on a checked Python), and :data:`TYPING_READERS`
    imported with typing's names given while its body waits; the packages that will wait."""
    waiting = [name for name in PACKAGES if name not in sys.modules]
    if sys.version_info[:2] not in CHECKED or not waiting:
        return []
    readers = [name for name in TYPING_READERS if name not in sys.modules]
    sys.meta_path.insert(0, _PackageFinder([*waiting, *readers]))
    return waiting
