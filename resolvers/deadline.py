"""Deadlines for a whole transfer: ``--max-time`` and the low-speed limit.

The per-read timeout (``Options.read_timeout``) only bounds one wait: a server that sends one
byte every 1.5 s never trips it and holds a transfer forever.  A :class:`Guard` bounds the
transfer as a whole, for every scheme alike, from the first connection to the last byte of
the content, redirects and referrals included:

- ``max_time`` (curl's ``-m``): the whole transfer ends with :class:`DeadlineExceeded` once
  that many seconds have passed.
- ``speed_limit`` bytes/s over ``speed_time`` seconds (curl's ``-Y``/``-y``): once the
  transfer has run ``speed_time`` seconds, the bytes of the content received in the last
  ``speed_time`` seconds must average at least ``speed_limit`` a second, else
  :class:`TooSlow`.  The default (1 byte/s over 60 s) stops a trickle and nothing else.
  Before the content starts (connect, login, headers, menus, referrals) nothing is counted,
  so that phase must end within ``speed_time`` seconds.

Everything here is arithmetic on a clock; :mod:`resolvers.core` and :class:`Resource` ask
:meth:`Guard.wait_limit` how long the next wait may last and tell :meth:`Guard.observe`
what arrived.

A wait in a queue — for one of a client's connections or per-host slots
(:mod:`resolvers.slots`), or for a person's answer — is not the server being slow: inside
:func:`queued` the clock of every limit stands still (the limits count from when the
resolve has its connection), and only the queue's own ``pool_timeout`` bounds the wait.
Without that, 1,000 concurrent gets through 100 connections failed with ``TooSlow`` ("no
content after 60 s") and ``ResolveTimeout`` while the server answered each at once.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Generator
from contextvars import ContextVar

from omniurl.schemes.records import field, record

from .errors import DeadlineExceeded, TooSlow

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing's import: ~9 ms of a get's start, docs/speed.md)
    import asyncio
    from contextlib import AbstractAsyncContextManager
    from typing import Any, NoReturn, TypeVar

    T = TypeVar("T")

#: A listing's entries are counted with :meth:`Guard.add` and judged (``observe``: the
#: clock, ``--max-time``, the speed window) every this many; the loop gets a turn as often
#: (timers, signals: a server that is never waited for never lets it run otherwise).
#: 256 entries of a fast menu take well under a millisecond, so a limit is judged late by
#: no more than that.
OBSERVE_EVERY = 256


@record()
class Guard:
    """The whole-transfer limits of one resolve (see module doc)."""

    max_time: float | None = None
    speed_limit: int = 1
    speed_time: float = 60.0
    clock: Callable[[], float] = time.monotonic
    started: float = field(default=0.0)
    _samples: deque[tuple[float, int]] = field(default_factory=deque, repr=False)
    _window: int = 0
    _content_started: float | None = None
    _pending: int = 0

    def __post_init__(self) -> None:
        self.started = self.clock()

    @property
    def speed_guarded(self) -> bool:
        return self.speed_limit > 0 and self.speed_time > 0

    def setup_limit(self) -> float | None:
        """How long the phase before the content (connect … first byte) may still last."""
        limits = []
        if self.max_time is not None:
            limits.append(self.started + self.max_time - self.clock())
        if self.speed_guarded:
            limits.append(self.started + self.speed_time - self.clock())
        return max(min(limits), 0.0) if limits else None

    def start_content(self) -> None:
        """The content begins: the low-speed window counts from here."""
        if self._content_started is None:
            self._content_started = self.clock()

    @property
    def _slot(self) -> float:
        """The window is kept in 60 slots (a slot's bytes expire together): observing and
        asking cost O(60) at most, however many chunks or entries arrive."""
        return self.speed_time / 60

    def add(self, nbytes: int) -> None:
        """``nbytes`` of content arrived, counted at the next :meth:`observe`,
        :meth:`check` or :meth:`wait_limit` (a listing's entries: one attribute update an
        entry instead of a clock read, a window update and a check; see
        ``Resource.aiter_entries``, which observes every :data:`OBSERVE_EVERY` entries)."""
        self._pending += nbytes

    def observe(self, nbytes: int) -> None:
        """``nbytes`` of content arrived; raise if a limit is now broken."""
        now = self.clock()
        self.start_content()
        if self._pending:
            nbytes += self._pending
            self._pending = 0
        end = (int(now / self._slot) + 1) * self._slot if self.speed_guarded else now
        if self._samples and self._samples[-1][0] == end:
            self._samples[-1] = (end, self._samples[-1][1] + nbytes)
        else:
            self._samples.append((end, nbytes))
        self._window += nbytes
        self._expire(now)
        self.check(now)

    def _expire(self, now: float) -> None:
        """Drop the slots that ended more than ``speed_time`` ago."""
        while self._samples and self._samples[0][0] <= now - self.speed_time:
            self._window -= self._samples.popleft()[1]

    def time_left(self, now: float | None = None) -> float | None:
        """The seconds ``max_time`` leaves (0 once passed; None: no ``max_time``): what a
        wait outside :meth:`wait_limit`'s may last (a telnet session's)."""
        if self.max_time is None:
            return None
        now = self.clock() if now is None else now
        return max(self.started + self.max_time - now, 0.0)

    def check_max_time(self, now: float | None = None) -> None:
        """Raise :class:`DeadlineExceeded` once ``max_time`` has passed."""
        now = self.clock() if now is None else now
        if self.max_time is not None and now - self.started >= self.max_time:
            self.time_up()

    def time_up(self) -> NoReturn:
        """Raise ``max_time``'s :class:`DeadlineExceeded` (the words every scheme gives for
        ``-m``), for a caller whose own timer said the time is up: the timer's float and
        the clock here may differ by an ulp, so asking :meth:`check_max_time` could pass."""
        raise DeadlineExceeded(f"the transfer took longer than --max-time {self.max_time:g} s")

    def check(self, now: float | None = None) -> None:
        """Raise :class:`DeadlineExceeded` or :class:`TooSlow` if a limit is broken."""
        if self._pending:
            self.observe(0)  # (observe checks)
            return
        now = self.clock() if now is None else now
        self.check_max_time(now)
        if not self.speed_guarded:
            return
        begun = self._content_started if self._content_started is not None else self.started
        if now - begun < self.speed_time:
            return
        self._expire(now)
        if self._window < self.speed_limit * self.speed_time:
            raise TooSlow(
                f"slower than {self.speed_limit} bytes/s for {self.speed_time:g} s "
                f"({self._window} bytes in the last {self.speed_time:g} s; "
                "--speed-limit 0 turns this off)"
            )

    def check_due(self) -> None:
        """:meth:`check` as a watchdog's timer asks it: at the moment :meth:`wait_limit` says
        a limit falls due, though the timer may run a fraction of a millisecond before it
        (both callers fire once the limit is at most 0.5 ms away).  A plain :meth:`check`
        then found the window not yet ``speed_time`` long and passed, and the watchdog gave
        its fallback words ("no data within") for a body that came, slowly: in 1 of ~8
        runs of test_batch_lean_qa's trickle, now−start was 0.9996–0.99999 s of 1 s."""
        limit = self.wait_limit()
        self.check(self.clock() + max(limit or 0.0, 0.0))

    def wait_limit(self) -> float | None:
        """How long the next wait for content may last before a limit is broken (None: no
        limit).  Waiting adds no bytes, so the window only shrinks meanwhile."""
        if self._pending:
            self.observe(0)
        now = self.clock()
        limits: list[float] = []
        if self.max_time is not None:
            limits.append(self.started + self.max_time - now)
        if self.speed_guarded:
            begun = self._content_started if self._content_started is not None else now
            earliest = begun + self.speed_time  # the window is judged from here on
            need = self.speed_limit * self.speed_time
            left = self._window
            fails_at = None
            if left < need:
                fails_at = earliest
            else:
                for stamp, nbytes in self._samples:
                    left -= nbytes
                    if left < need:
                        fails_at = max(stamp + self.speed_time, earliest)
                        break
            if fails_at is not None:
                limits.append(fails_at - now)
        return max(min(limits), 0.0) if limits else None


#: Set by :mod:`resolvers.core` for the phase before the content of a resolve: how to stop
#: its clocks while it waits in a queue (see :func:`queued`).
PAUSE: ContextVar[Callable[[], AbstractAsyncContextManager[None]] | None] = ContextVar(
    "omniurl_deadline_pause", default=None
)


def count_spent(seconds: float) -> None:
    """``seconds`` spent on the running resolve's exchange before the resolve began — the
    batch's lean engine hands the general path an exchange it started
    (``resolvers.http.executor.Prepared``) — count against its deadlines as if the resolve
    had run them: a head the engine waited for 0.4 s of a 0.5 s ``--speed-time`` has 0.1 s
    left.  A no-op outside a resolve or without limits."""
    spend = getattr(PAUSE.get(), "spend", None)
    if spend is not None:
        spend(seconds)


class queued:
    """``async with queued(): await slot`` — the wait inside is left out of the running
    resolve's deadlines (``--max-time``, ``--speed-time``), as a person's answer is; a
    no-op outside a resolve.  (The pause's own context manager, entered and left: a class,
    not ``contextlib.asynccontextmanager``, whose import a get's start would pay for
    nothing else; docs/speed.md, *Start-up*.)"""

    __slots__ = ("_paused",)

    def __init__(self) -> None:
        self._paused: AbstractAsyncContextManager[None] | None = None

    async def __aenter__(self) -> None:
        pause = PAUSE.get()
        if pause is not None:
            paused = pause()
            await paused.__aenter__()
            self._paused = paused

    async def __aexit__(self, *exc: Any) -> bool | None:
        paused, self._paused = self._paused, None
        if paused is None:
            return None
        return await paused.__aexit__(*exc)


class Watchdog:
    """Holds a :class:`Guard` over an iteration with *one* timer, armed once and moved by
    itself.

    ``asyncio.timeout`` around every item would create and cancel a timer per chunk or
    per listing entry — for a menu of 10⁵ items read from a buffer, 10⁵ cancelled timers
    pile up in the loop's heap before it next runs (measured: 22 MB at 2×10⁵ entries).
    Asking the guard for the limit before every item instead cost a third of a menu's
    time (issue 31 item 20: ~9 µs of ~29 µs an entry).  So the timer is set once, for
    when the limit would pass if nothing more arrived; when it goes off it asks the guard
    again — what arrived meanwhile moved the limit later, and the timer is set again for
    then.  Only when the limit has really passed does it cancel the task, and only while
    :meth:`next` waits for an item (the iterator it interrupted cannot be resumed), so the
    guard's error is raised.
    """

    def __init__(self, guard: Guard) -> None:
        self.guard = guard
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[object] | None = None
        self._handle: asyncio.TimerHandle | None = None
        self._armed = False
        self._waiting = False
        self._fired = False

    def _arm(self) -> None:
        """Set the timer (the first time an item has to be waited for)."""
        import asyncio

        self._armed = True
        self._loop = loop = asyncio.get_running_loop()
        self._task = asyncio.current_task()
        limit = self.guard.wait_limit()
        if limit is not None:
            self._handle = loop.call_at(loop.time() + limit + 0.001, self._fire)

    def _fire(self) -> None:
        self._handle = None
        limit = self.guard.wait_limit()
        if limit is None:
            return
        loop = self._loop
        assert loop is not None
        if limit > 0.0005:  # more arrived since it was set: the limit moved on
            self._handle = loop.call_at(loop.time() + limit + 0.001, self._fire)
        elif self._waiting and self._task is not None:
            self._fired = True
            self._task.cancel()
        # (not waiting: the item in hand is handed out; the next wait sets it again)

    async def next(self, iterator: AsyncIterator[T]) -> T:
        """The next item (StopAsyncIteration at the end), or the guard's typed error.

        The timer is set only when an item first has to be waited for: the items already
        at hand (a small file's body, read with its head) need none — a timer made and
        cancelled for each of a batch's files was ~2% of its samples (py-spy, 2,000 files
        from nginx)."""
        import asyncio

        self._waiting = True
        try:
            if self._armed:
                return await anext(iterator)
            return await _ArmedOnWait(anext(iterator), self)
        except asyncio.CancelledError:
            if not self._fired or self._task is None:
                raise
            self._fired = False
            self._task.uncancel()
            self.guard.check_due()
            raise TooSlow(  # the limit has passed: check() raises; this is its fallback
                f"no data within --speed-time {self.guard.speed_time:g} s"
            ) from None
        finally:
            self._waiting = False

    def close(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
        self._handle = None


class _ArmedOnWait:
    """Awaits ``step`` (an ``anext(…)``) as ``await step`` would, arming ``watchdog`` the
    first time ``step`` suspends (what it yields goes to the task unchanged, and what the
    task sends or throws comes back to it): an item at hand costs no timer."""

    __slots__ = ("_step", "_watchdog")

    def __init__(self, step: Any, watchdog: Watchdog) -> None:
        self._step = step
        self._watchdog = watchdog

    def __await__(self) -> Generator[Any, Any, Any]:
        step = self._step
        try:
            signal = step.send(None)
        except StopIteration as done:
            return done.value
        self._watchdog._arm()
        while True:
            try:
                sent = yield signal
            except GeneratorExit:
                step.close()
                raise
            except BaseException as exc:
                try:
                    signal = step.throw(exc)
                except StopIteration as done:
                    return done.value
            else:
                try:
                    signal = step.send(sent)
                except StopIteration as done:
                    return done.value


__all__ = [
    "OBSERVE_EVERY",
    "PAUSE",
    "DeadlineExceeded",
    "Guard",
    "TooSlow",
    "Watchdog",
    "count_spent",
    "queued",
]
