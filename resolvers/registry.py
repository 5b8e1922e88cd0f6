"""The resolver registry: built-ins, the ``@register`` decorator, and entry points.

Third-party packages add a scheme without touching omniurl by declaring an entry point in the
``omniurl.resolvers`` group (``x-demo = "omniurl_xdemo.resolver:XDemoResolver"``); the
registry loads them on first use, exactly like the built-ins, so a plugin scheme is a
first-class citizen.  The matching parser goes into ``schemes``' ``omniurl.schemes`` group.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from .base import Resolver
from .errors import UnsupportedScheme

if TYPE_CHECKING:
    from importlib.metadata import EntryPoints

ENTRY_POINT_GROUP = "omniurl.resolvers"

#: Built-in scheme -> the module whose import registers its resolver (a module or a package;
#: one that does not exist yet is skipped).  ``get("gopher")`` imports ``resolvers.gopher`` and
#: nothing else.
BUILTIN_SCHEMES: dict[str, str] = {
    "ftp": "omniurl.resolvers.ftp",
    "http": "omniurl.resolvers.http",
    "https": "omniurl.resolvers.http",
    "file": "omniurl.resolvers.file",
    "gopher": "omniurl.resolvers.gopher",
    "news": "omniurl.resolvers.nntp",
    "nntp": "omniurl.resolvers.nntp",
    "telnet": "omniurl.resolvers.telnet",
    "mailto": "omniurl.resolvers.mailto",
    "wais": "omniurl.resolvers.wais",
    "prospero": "omniurl.resolvers.prospero",
}

#: Modules whose import registers the built-in resolvers.
BUILTIN_MODULES: tuple[str, ...] = tuple(dict.fromkeys(BUILTIN_SCHEMES.values()))

_registry: dict[str, type[Resolver]] = {}
_loaded = False

R = TypeVar("R", bound=type[Resolver])


def register(*schemes: str) -> Callable[[R], R]:
    """Class decorator: ``@register("gopher")`` makes the class resolve ``gopher:`` URLs."""

    def decorate(cls: R) -> R:
        names = schemes or cls.schemes
        if not names:
            raise ValueError(f"{cls.__name__} names no scheme")
        cls.schemes = tuple(n.lower() for n in names)
        for name in cls.schemes:
            _registry[name] = cls
        return cls

    return decorate


def entry_points(*, group: str) -> EntryPoints:
    """``importlib.metadata.entry_points``, imported on first call (it costs ~12 ms)."""
    from importlib.metadata import entry_points as scan

    return scan(group=group)


def _import_builtin(module: str) -> None:
    """Import a built-in resolver module; a resolver registered in-process for one of its
    schemes before it was imported keeps precedence (a later ``register`` always wins).

    Every built-in exists, so any import error is a defect (a missing dependency, a broken
    module) and propagates: swallowing it would turn it into "no resolver for ftp"."""
    before = dict(_registry)
    importlib.import_module(module)
    _registry.update(before)


def _load() -> None:
    """Every resolver: all the built-ins, then the entry points (never over a built-in)."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    for module in BUILTIN_MODULES:
        _import_builtin(module)
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        cls = ep.load()
        if not (isinstance(cls, type) and issubclass(cls, Resolver)):
            raise TypeError(f"entry point {ep.name} = {ep.value} is not a Resolver class")
        if ep.name.lower() not in _registry:
            register(ep.name)(cls)


def get(scheme: str) -> Resolver:
    """A resolver instance for ``scheme``, or :class:`UnsupportedScheme`.

    Imports only what this scheme needs: its built-in module, or — for a scheme that is not
    built in — the entry points."""
    name = scheme.lower()
    cls = _registry.get(name)
    if cls is None and not _loaded:
        module = BUILTIN_SCHEMES.get(name)
        if module is not None:
            _import_builtin(module)
            cls = _registry.get(name)
        if cls is None:
            _load()
            cls = _registry.get(name)
    if cls is None:
        raise UnsupportedScheme(
            f"no resolver is registered for {scheme}: URLs (known: {', '.join(known())})",
            component="scheme",
        )
    return cls()


def known() -> list[str]:
    """Every scheme with a resolver, sorted."""
    _load()
    return sorted(_registry)


def all_classes(*, plugins: bool = True) -> list[type[Resolver]]:
    """Every resolver class, once each, for the CLI's arguments.

    ``plugins=False`` leaves the entry points unread (the built-ins, and what was registered
    in-process): ``omniurl get`` on a built-in scheme needs no plugin's options."""
    if plugins:
        _load()
    elif not _loaded:
        for module in BUILTIN_MODULES:
            _import_builtin(module)
    return list(dict.fromkeys(_registry.values()))
