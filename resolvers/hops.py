"""What one hop of a redirect chain leaves for the next (:data:`HOP_CARRY`).

Its own module, read by the core and the HTTP executor only: a ``ContextVar`` needs the
``_contextvars`` extension, a shared library loaded (``dlopen``) on this machine's CPython,
~0.3 ms of a get's start before its early connect (``-X importtime``, fresh venv,
2026-11-29); asyncio loads it anyway, after the connect (docs/speed.md, *The command's two
ends*).
"""

from __future__ import annotations

from contextvars import ContextVar

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: What one hop of a redirect chain leaves for the next, by the executor's key: the HTTP
#: executor's own kept connections (no client's pool), so that a redirect to the same
#: server rides the connection that answered it, as curl's (``%{num_connects}`` 1, not 2).
#: Set by the core for the chain; whatever no hop took is closed (``aclose``) at its end.
HOP_CARRY: ContextVar[dict[str, Any] | None] = ContextVar("omniurl_hop_carry", default=None)

__all__ = ["HOP_CARRY"]
