"""Local protocol servers that the demo and the tests run against.

Each server module registers a *starter*: ``async start(root, host="127.0.0.1", port=0, **kw)``
returning a :class:`RunningServer`.  They bind loopback and port 0 (a free port) by default,
so tests never collide and never reach beyond this machine.  ``omniurl serve NAME`` runs one
in the foreground.

The registry (:mod:`testservers.base`, with asyncio) is imported on first use of one of these
names: ``omniurl --help`` needs only :mod:`testservers.catalog` (PEP 562).
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .base import RunningServer, Starter, known, register, start

__all__ = ["RunningServer", "Starter", "known", "register", "start"]


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(".base", __name__), name)
    globals()[name] = value
    return value
