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

Process-wide and a reach into the standard library's modules, so only the ``omniurl``
command does it (never a program that imports the library), only on the Pythons it was
checked against (:data:`CHECKED`), only while asyncio is not loaded, and only for the
modules not loaded yet.  ``ssl`` waits for its first import as well
(:mod:`omniurl.sslimport`); tests/test_deferred.py holds both.
"""

from __future__ import annotations

import _thread
import sys
from types import ModuleType

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
}
#: The modules whose bodies wait for their first use.
DEFERRED = tuple(GIVEN)


class Deferred(ModuleType):
    """A module whose body runs when a name it does not hold is first read from it."""

    def __getattr__(self, name: str) -> Any:
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


class _Loader:
    """The real loader, but for its module's body: the module is made :class:`Deferred`."""

    def __init__(self, real: Any) -> None:
        self.real = real

    def create_module(self, spec: Any) -> Any:
        return self.real.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        spec = module.__spec__
        assert spec is not None
        spec.loader = self.real
        module.__loader__ = self.real
        module.__dict__.update(GIVEN[module.__name__])
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
    return [name for name in waiting if type(sys.modules.get(name)) is Deferred]
