"""Local protocol servers that the demo and the tests run against.

Each server module registers a *starter*: ``async start(root, host="127.0.0.1", port=0, **kw)``
returning a :class:`RunningServer`.  They bind loopback and port 0 (a free port) by default,
so tests never collide and never reach beyond this machine.  ``omniurl serve NAME`` runs one
in the foreground.
"""

from __future__ import annotations

from .base import RunningServer, Starter, known, register, start

__all__ = ["RunningServer", "Starter", "known", "register", "start"]
