"""When each phase of a transfer ended, and between which addresses: what curl's ``-w``
reports as ``time_namelookup`` … ``time_starttransfer``, ``remote_ip``, ``local_port`` and
``num_connects``.

A :class:`Trace` rides in ``Options.trace`` (None: nothing is recorded, and the hooks cost
one attribute test).  The I/O layer marks it (:mod:`resolvers.net`: the name looked up, the
TCP connection made, the TLS handshake done, the first byte sent and the first byte of the
reply); the core starts a new hop at each redirect followed.  Times are seconds since the
trace began (the first name lookup), as curl's are since the transfer began: within a hop,
each phase is marked once, by the first connection that reaches it (an FTP data connection,
opened after the control connection, changes nothing), so the figures describe the
conversation's start.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

#: The phases, in the order a transfer passes them.
PHASES = ("namelookup", "connect", "appconnect", "pretransfer", "starttransfer")


@dataclass(eq=False)  # (compared and hashed by identity: Options holding one stay hashable)
class Trace:
    """What one transfer (with its redirects) went through; see the module doc."""

    started: float = field(default_factory=time.monotonic)
    #: Seconds from the start to the end of each phase of the current hop (None: not
    #: reached — ``appconnect`` stays None on a connection without TLS).
    namelookup: float | None = None
    connect: float | None = None
    appconnect: float | None = None
    pretransfer: float | None = None
    starttransfer: float | None = None
    #: When the last hop began (``time_redirect``); 0 without redirects.
    redirect: float = 0.0
    #: New connections made (a reused keep-alive connection adds none): ``num_connects``.
    connects: int = 0
    #: Bytes sent, every hop's (``size_request``: HTTP's request heads; FTP's commands).
    sent: int = 0
    #: The interim (1xx) reply heads' bytes, every hop's: ``size_header`` counts them, as
    #: curl's (the final heads are counted from the resource's replies).
    interim: int = 0
    #: The addresses of the first connection of the current hop.
    remote: tuple[str, int] | None = None
    local: tuple[str, int] | None = None
    _begun: bool = field(default=False, repr=False)

    def begin(self) -> None:
        """The first name is about to be looked up: the clock starts here (not at the
        process's start, nor while the modules a scheme needs are imported), as curl's
        starts with the transfer.  Later calls change nothing."""
        if not self._begun:
            self._begun = True
            self.started = time.monotonic()

    def elapsed(self) -> float:
        """Seconds since :meth:`begin` (``time_total``)."""
        return time.monotonic() - self.started

    def mark(self, phase: str) -> None:
        """``phase`` ended now, unless it ended already in this hop."""
        if getattr(self, phase) is None:
            setattr(self, phase, time.monotonic() - self.started)

    def connected(self, remote: tuple[str, int] | None, local: tuple[str, int] | None) -> None:
        """A new connection was made: counted, and the hop's addresses if it is its first."""
        self.connects += 1
        if self.connect is None:
            self.remote, self.local = remote, local
        self.mark("connect")

    def new_hop(self) -> None:
        """A redirect is followed: the phases are the next request's from here on."""
        self.redirect = time.monotonic() - self.started
        for phase in PHASES:
            setattr(self, phase, None)
        self.remote = self.local = None

    def seconds(self, phase: str) -> float:
        """``phase``'s time as curl prints it: a phase not reached reads as the one
        before it (curl's ``time_appconnect`` is 0 without TLS; the others are cumulative)."""
        last = 0.0
        for name in PHASES:
            value = getattr(self, name)
            if name == phase:
                if value is None:
                    return 0.0 if name == "appconnect" else last
                return float(value)
            if value is not None:
                last = value
        raise KeyError(phase)


__all__ = ["PHASES", "Trace"]
