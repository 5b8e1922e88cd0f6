"""What a batch (:func:`omniurl.batch.fetch_many`) asks of a resolver's own batch engine.

Why a protocol here: the batch is a surface module and names no scheme (the issue "one
scheme spec", tests/test_spec.py); a resolver that can carry many URLs of its scheme faster
than one :meth:`~resolvers.base.Resolver.execute` each (the HTTP resolver's lean engine,
resolvers/http/batch_engine.py) offers one through
:meth:`~resolvers.base.Resolver.batch_engine`, and the batch reaches it only through the
types below.  Whatever an engine does not take whole, it hands back to the general path as
it stands (:meth:`BatchEngine.handing_over`): the batch's rows, files and exit statuses are
the general path's (tests/test_batch_lean.py runs the same batches through both).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, Protocol, TypeVar

from omniurl.schemes.base import URL

T = TypeVar("T")

#: A body up to this size is held and written with one call once complete (most files of a
#: batch): no file exists until the transfer succeeded, one ``write`` instead of one a
#: chunk.  Larger ones go to their temporary file as they arrive (memory stays bounded:
#: 50 transfers at once hold at most 50 × 256 KiB).  An engine takes whole only bodies up
#: to it; the batch (a surface module) re-exports it as ``omniurl.batch.HELD_BODY``.
HELD_BODY = 256 * 1024


class ReplyHead(Protocol):
    """The reply's head as a batch row shows it (its status, content type and lines)."""

    @property
    def status(self) -> int: ...

    @property
    def status_line(self) -> str: ...

    def get(self, name: str) -> str | None:
        """The field ``name``'s value (case-insensitive), None when absent."""
        ...

    def field_lines(self) -> list[str]:
        """Each header field as received, ``Name: value``."""
        ...


class BatchEngine(Protocol):
    """One batch's engine for one resolver's URLs: made once a batch, closed at its end."""

    #: The rows it made itself (``done`` or ``failed`` given to :meth:`fetch`'s caller): the
    #: batch's proof of which path ran (``OMNIURL_BATCH_PROOF``, omniurl/batch.py).
    made: int

    def request(self, url: URL) -> tuple[Any, bytes] | None:
        """Where ``url``'s request goes and its bytes, checked by the policy, when the
        engine may carry it out; None: the general path's (it plans, checks and refuses
        as always)."""
        ...

    async def fetch(
        self,
        origin: Any,
        data: bytes,
        done: Callable[[ReplyHead, bytes], T],
        failed: Callable[[BaseException], T],
    ) -> tuple[T | None, Any | None]:
        """Send ``data`` to ``origin``: ``(done(head, body), None)`` for a reply the engine
        takes whole, ``(failed(error), None)`` for one that broke off, else ``(None,
        handoff)``: the exchange for the general path to continue (through
        :meth:`handing_over`; ``handoff`` None: nothing was sent)."""
        ...

    def handing_over(self, handoff: Any) -> AbstractContextManager[None]:
        """A context in which the general path's resolve of the URL (in this task)
        continues ``handoff`` instead of sending its request again."""
        ...

    def close(self) -> None:
        """Close every connection the engine keeps."""
        ...
