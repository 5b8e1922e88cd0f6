"""Kept FTP control connections (RFC 1738 §3.2.5), for callers resolving many ftp: URLs.

§3.2.5: keeping the control connection open between URLs "may be reasonable", but "if a
directory change command has been given, it is impossible in general to deduce what sequence
should be given to navigate to another directory ... The only reliable algorithm is to
disconnect and reestablish the control connection."  So a kept connection is reused only
where that is provably safe: the same server (host and port), the same login (user and
password) and the *same* ``CWD`` sequence — the connection is then in exactly the state a
fresh one would reach, and the login and ``CWD`` steps (marked ``when`` "a new connection" in
the plan) are skipped.  Any other URL gets a new connection.

Reuse is opt-in (``omniurl.AsyncClient`` opts in); without it every URL gets its own
connection, closed with ``QUIT``::

    async with FTPSessions() as sessions:
        options = Options(shared=Shared(sessions))
        for url in urls:
            async with await resolvers.resolve(url, options) as resource: ...
"""

from __future__ import annotations

from collections.abc import Hashable
from types import TracebackType

from ..errors import ResolveError, suppress
from .keys import SessionKey

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..options import Options
    from .executor import Control


#: A kept connection's full key: the §3.2.5 state, then what its opening was checked under.
_Kept = tuple[SessionKey, tuple[Hashable, ...]]


def _opened_under(options: Options) -> tuple[Hashable, ...] | None:
    """What a control connection's opening depended on beyond the URL: the policy (its
    address check) and the ``--resolve`` mapping (which server the host name reached).  A
    resolve with other ones must not ride it — a strict call would skip the address check,
    another mapping would talk to the wrong server.  ``None`` when they cannot be compared
    (an unhashable custom policy): such a connection is not kept."""
    key = (options.policy, frozenset(options.resolve.items()))
    try:
        hash(key)
    except TypeError:
        return None
    return key


class FTPSessions:
    """Idle control connections by :data:`SessionKey` (and the options they were opened
    under); ``aclose()`` ends them with QUIT."""

    def __init__(self, *, max_idle: int = 4, max_total: int = 32) -> None:
        self.max_idle = max_idle
        #: Kept connections over all keys: a client resolving many servers stays bounded.
        self.max_total = max_total
        self._idle: dict[_Kept, list[Control]] = {}
        self._closed = False
        self.reused = 0

    @property
    def idle(self) -> int:
        """How many connections are kept now."""
        return sum(len(kept) for kept in self._idle.values())

    def take(self, key: SessionKey, options: Options) -> Control | None:
        """An idle connection in exactly the state ``key`` describes, opened under the same
        policy and mapping as ``options``, or ``None``."""
        under = _opened_under(options)
        if under is None:
            return None
        full = (key, under)
        kept = self._idle.get(full, [])
        while kept:
            control = kept.pop()
            if not kept:
                del self._idle[full]
            if control.idle_ended():
                control.close()
                continue  # the server hung up (or spoke) meanwhile: not reusable
            control.options = options
            # this resolve's timeouts, bounds and trace from here on, as a kept HTTP
            # connection's (resolvers/http/connection.py)
            control.stream.options = options
            control.replies = []
            self.reused += 1
            return control
        return None

    async def give(self, key: SessionKey, control: Control) -> None:
        """Keep a connection whose transfer completed; beyond ``max_idle`` for its key, or
        once the sessions are closed (a transfer that ends after its client closed), end it
        with QUIT.  Beyond ``max_total`` in all the *oldest* kept connection is ended: the
        newest is the likeliest to serve the next URL (a mirror lists directory after
        directory and fetches each one's files on its connection; keeping the first
        ``max_total`` instead logged in once a file past them — 2,000 files over 20
        directories of vsftpd: 1,900 logins)."""
        if control.idle_ended():
            control.close()  # (it said something unasked, or hung up: QUIT would misread it)
            return
        under = _opened_under(control.options)
        full = (key, under) if under is not None else None
        kept = self._idle.get(full, []) if full is not None else []
        if full is None or self._closed or len(kept) >= self.max_idle or self.max_total < 1:
            await _quit(control)
            return
        while self.idle >= self.max_total:
            oldest = next(iter(self._idle))  # (dicts keep the order keys were first kept)
            ended = self._idle[oldest].pop(0)
            if not self._idle[oldest]:
                del self._idle[oldest]
            await _quit(ended)
        self._idle.setdefault(full, kept).append(control)

    async def aclose(self) -> None:
        self._closed = True
        idle, self._idle = self._idle, {}
        for kept in idle.values():
            for control in kept:
                await _quit(control)

    async def __aenter__(self) -> FTPSessions:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()


async def _quit(control: Control) -> None:
    """The plan's final step, sent when a kept connection is let go (bounded, best effort);
    one that can no longer be used (the server hung up, or it was made on an event loop
    that has ended) is closed without it."""
    if control.idle_ended():
        control.close()
        return
    with suppress(ResolveError):
        await control.quit()
    control.close()


__all__ = ["FTPSessions", "SessionKey"]
