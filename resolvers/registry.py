"""The resolver registry: built-ins, the ``@register`` decorator, and entry points.

Third-party packages add a scheme without touching omniurl by declaring an entry point in the
``omniurl.resolvers`` group (``x-demo = "omniurl_xdemo.resolver:XDemoResolver"``); the
registry loads them on first use, exactly like the built-ins, so a plugin scheme is a
first-class citizen.  The matching parser goes into ``schemes``' ``omniurl.schemes`` group.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import TypeVar

from .base import Resolver
from .errors import UnsupportedScheme

ENTRY_POINT_GROUP = "omniurl.resolvers"

#: Modules whose import registers the built-in resolvers.
BUILTIN_MODULES: tuple[str, ...] = (
    "resolvers.ftp",
    "resolvers.http",
    "resolvers.file",
    "resolvers.gopher",
    "resolvers.nntp",
    "resolvers.telnet",
    "resolvers.mailto",
    "resolvers.wais",
    "resolvers.prospero",
)

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


def _load() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    for module in BUILTIN_MODULES:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:  # a built-in not written yet
            if exc.name != module:
                raise
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        cls = ep.load()
        if not (isinstance(cls, type) and issubclass(cls, Resolver)):
            raise TypeError(f"entry point {ep.name} = {ep.value} is not a Resolver class")
        if ep.name.lower() not in _registry:
            register(ep.name)(cls)


def get(scheme: str) -> Resolver:
    """A resolver instance for ``scheme``, or :class:`UnsupportedScheme`."""
    _load()
    try:
        cls = _registry[scheme.lower()]
    except KeyError:
        raise UnsupportedScheme(
            f"no resolver is registered for {scheme}: URLs (known: {', '.join(known())})",
            component="scheme",
        ) from None
    return cls()


def known() -> list[str]:
    """Every scheme with a resolver, sorted."""
    _load()
    return sorted(_registry)


def all_classes() -> list[type[Resolver]]:
    _load()
    return list(dict.fromkeys(_registry.values()))
