"""Whole-transfer deadlines and the low-speed guard, shared by every protocol's reader.

The per-read timeout (``Options.read_timeout``) bounds one wait; a server that sends one byte
every second never trips it.  Two guards bound the whole transfer (issue 10, issue 14 item 2),
as curl's ``-m`` and ``-y``/``-Y`` do:

- ``Options.max_time`` — seconds for the whole resolution, redirects and referrals included
  (the guard is installed once per :func:`resolvers.core.resolve` call), and the reading of
  its content;
- ``Options.speed_limit`` bytes/s over ``Options.speed_time`` seconds — a transfer slower than
  that for that long ends.  The defaults (1 byte/s over 60 s) stop a trickling server.

The guard lives in a :class:`contextvars.ContextVar`, so the readers in
:mod:`resolvers.net` and the protocol transports consult it without every executor passing it
along; a reader calls :func:`bound` before a wait and :func:`received` after it.
"""

from __future__ import annotations

import contextvars
import time
from dataclasses import dataclass, field

from .errors import ResolveTimeout
from .options import Options

__all__ = [
    "MaxTimeExceeded",
    "TooSlow",
    "TransferGuard",
    "bound",
    "current",
    "received",
    "start",
]


class MaxTimeExceeded(ResolveTimeout):
    """The whole transfer took longer than ``--max-time`` (``Options.max_time``)."""


class TooSlow(ResolveTimeout):
    """The transfer stayed below ``--speed-limit`` bytes/s for ``--speed-time`` seconds."""


@dataclass
class TransferGuard:
    """The clock of one transfer: when it started and what arrived in the current window."""

    max_time: float | None
    speed_limit: float
    speed_time: float
    started: float = field(default_factory=time.monotonic)
    window_start: float = 0.0
    window_bytes: int = 0

    def __post_init__(self) -> None:
        self.window_start = self.started

    def remaining(self, now: float | None = None) -> float | None:
        """Seconds left before ``max_time`` (None when there is no whole-transfer bound)."""
        if self.max_time is None:
            return None
        return self.max_time - ((time.monotonic() if now is None else now) - self.started)

    def check(self, what: str, now: float | None = None, *, speed: bool = True) -> None:
        """Raise if the whole-transfer deadline passed or (``speed``) the speed window was
        too slow."""
        now = time.monotonic() if now is None else now
        left = self.remaining(now)
        if left is not None and left <= 0:
            raise MaxTimeExceeded(
                f"the whole transfer took longer than --max-time {self.max_time:g} s ({what})"
            )
        if speed and self.speed_limit > 0 and self.speed_time > 0:
            span = now - self.window_start
            if span >= self.speed_time:
                rate = self.window_bytes / span
                if rate < self.speed_limit:
                    raise TooSlow(
                        f"slower than {self.speed_limit:g} bytes/s for {self.speed_time:g} s "
                        f"({self.window_bytes} bytes in {span:.1f} s) {what}"
                    )
                self.window_start, self.window_bytes = now, 0

    def bound(self, timeout: float) -> float:
        """``timeout`` shortened so that no wait outlives the whole-transfer deadline."""
        left = self.remaining()
        return timeout if left is None else max(0.0, min(timeout, left))


_current: contextvars.ContextVar[TransferGuard | None] = contextvars.ContextVar(
    "omniurl_transfer_guard", default=None
)


def start(options: Options) -> TransferGuard:
    """Install a fresh guard for a transfer about to begin (one per ``resolve`` call)."""
    guard = TransferGuard(options.max_time, options.speed_limit, options.speed_time)
    _current.set(guard)
    return guard


def current() -> TransferGuard | None:
    return _current.get()


def bound(timeout: float, what: str) -> float:
    """The wait to allow a reader about to block (after checking the whole-transfer deadline).

    Only ``max_time`` is checked here: the speed is judged on bytes that arrive
    (:func:`received`), so a wait that is not a read (connect, DNS, a user at a telnet
    prompt) never counts as a slow transfer; a stalled read is the read timeout's.
    """
    guard = _current.get()
    if guard is None:
        return timeout
    guard.check(what, speed=False)
    return guard.bound(timeout)


def received(count: int, what: str) -> None:
    """Count ``count`` bytes that arrived and check the guard."""
    guard = _current.get()
    if guard is not None:
        guard.window_bytes += count
        guard.check(what)


def timed_out(timeout: float, what: str) -> ResolveTimeout:
    """The error for a wait of ``timeout`` that expired: the guard's, if it was the cause."""
    guard = _current.get()
    if guard is not None:
        try:
            guard.check(what, speed=False)
        except ResolveTimeout as exc:
            return exc
    return ResolveTimeout(f"timed out after {timeout:g} s {what}")
