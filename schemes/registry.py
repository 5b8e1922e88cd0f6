"""Scheme name -> URL class, with built-ins, ``register()`` and the ``omniurl.schemes`` group.

(Placeholder written by the core; the schemes work replaces the body of ``parse``.)
"""

from __future__ import annotations

from importlib.metadata import entry_points

from .base import URL
from .errors import SchemeError, URLError

ENTRY_POINT_GROUP = "omniurl.schemes"

_classes: dict[str, type[URL]] = {}
_loaded = False


def register(name: str, cls: type[URL]) -> None:
    """Make ``cls`` parse URLs of scheme ``name`` (case-insensitive)."""
    _classes[name.lower()] = cls


def _load() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name.lower() not in _classes:
            register(ep.name, ep.load())


def scheme_class(name: str) -> type[URL] | None:
    _load()
    return _classes.get(name.lower())


def parse(text: str, strict: bool = True) -> URL:
    """Parse ``text`` into an instance of its scheme's URL class."""
    colon = text.find(":")
    if colon <= 0:
        raise SchemeError("a URL starts with a scheme name and ':'", component="scheme", offset=0)
    scheme = text[:colon].lower()
    cls = scheme_class(scheme)
    if cls is None:
        raise URLError(f"no parser for {scheme}:", component="scheme", offset=0)
    return cls.from_text(text, scheme=scheme, rest=text[colon + 1 :], strict=strict)
