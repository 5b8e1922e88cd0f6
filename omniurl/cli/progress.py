"""The progress line on stderr, fed from the resource's byte count: curl's facts (the
percentage, the sizes, the rate, the time left and spent) in the terminal's width.

A stalled transfer must look stalled: a speed computed from the updates given goes on
showing the last speed when no byte arrives ("406.4 MB/s" after 10 s of nothing, as rich's
column did).  Here the rate is computed at each redraw (ten times a second, by the event
loop) from the bytes of the last :data:`Rate.window` seconds, so it falls as soon as
bytes stop, and after :data:`Rate.stall_after` seconds without a byte the column says
"stalled" with the time since the last one; the elapsed time is shown beside it.  Sizes are
binary (KiB, MiB, GiB) in the bar, the rate and the summary line alike (:func:`human_size`).
"""

from __future__ import annotations

import time
from collections import deque
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from omniurl.resolvers.resource import Resource


def human_size(count: float) -> str:
    """``count`` bytes in binary units, as every size the command prints: ``512 B``,
    ``1.5 KiB``, ``12.3 MiB``, ``1.0 GiB``."""
    for unit in ("B", "KiB", "MiB", "GiB"):
        if count < 1024 or unit == "GiB":
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1024
    return f"{count:.1f} GiB"  # pragma: no cover - the loop returns


class Rate:
    """The transfer rate over the last ``window`` seconds, read at any moment: bytes that
    stop arriving make it fall (to 0 once the window holds none), and ``stall_after``
    seconds without a byte make :meth:`text` say "stalled"."""

    window = 5.0
    stall_after = 3.0

    def __init__(self, started: float) -> None:
        # (time, total bytes) at each change; the first at or before the window's start
        # is kept as the baseline.
        self._samples: deque[tuple[float, int]] = deque([(started, 0)])
        self.started = started
        self.total = 0
        self.last_change = started

    def add(self, now: float, total: int) -> None:
        if total != self.total:
            self.total = total
            self.last_change = now
            self._samples.append((now, total))

    def per_second(self, now: float) -> float:
        cutoff = now - self.window
        while len(self._samples) > 1 and self._samples[1][0] <= cutoff:
            self._samples.popleft()
        when, before = self._samples[0]
        span = now - max(when, cutoff)
        return (self.total - before) / span if span > 0 else 0.0

    def text(self, now: float) -> str:
        quiet = now - self.last_change
        if quiet >= self.stall_after:
            return f"stalled {quiet:.0f} s"
        return f"{human_size(self.per_second(now))}/s"


def terminal_width(fd: int = 2) -> int:
    """The columns of the terminal on ``fd`` (stderr, where the bar goes): ``COLUMNS`` when
    set (as ``shutil.get_terminal_size`` honours it), else the terminal's own, else 80.  Read
    at each redraw: a resized window gets a bar of its new width."""
    import os

    given = os.environ.get("COLUMNS", "")
    if given.isdigit() and int(given) > 0:
        return int(given)
    try:
        return os.get_terminal_size(fd).columns or 80
    except OSError:
        return 80


def clock(seconds: float) -> str:
    """``h:mm:ss``, as curl's time columns."""
    whole = int(seconds)
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"


def progress_line(
    *,
    name: str,
    done: int,
    total: int | None,
    rate: str,
    per_second: float,
    elapsed: float,
    width: int,
) -> str:
    """One line of at most ``width - 1`` columns (the last column would wrap on some
    terminals): with a known size the percentage, a bar, the sizes, the rate, the time left
    (``eta``) and the time spent; else the bytes so far, the rate and the time spent.  What
    does not fit is dropped, least needed first (the name, the time spent, the rate, the
    sizes), and the bar takes the room that is left."""
    room = max(width - 1, 10)
    pieces: dict[str, str] = {"name": name[-30:]}
    if total:
        percent = min(done * 100 // total, 100)
        unit = human_size(total).split()[-1]
        factor = 1024 ** ("B", "KiB", "MiB", "GiB").index(unit)
        if unit == "B":
            pieces["size"] = f"{done}/{total} B"
        else:
            pieces["size"] = f"{done / factor:.1f}/{total / factor:.1f} {unit}"
        pieces["percent"] = f"{percent:3d}%"
        left = (total - done) / per_second if per_second > 0 else None
        # (rounded up: "0:00:00" only once nothing is left)
        pieces["eta"] = f"eta {clock(-(-left // 1))}" if left is not None else "eta --:--:--"
    else:
        pieces["size"] = human_size(done)
    pieces["rate"] = rate
    pieces["elapsed"] = clock(elapsed)
    order = ("name", "percent", "bar", "size", "rate", "eta", "elapsed")
    # most needed first; the bar (when the size is known) is given at least its least
    # width before the time spent and the name, and every column left over at the end
    keep = ("percent", "eta", "size", "rate", "bar", "elapsed", "name")
    least_bar = 12
    if total:
        pieces["bar"] = ""
    shown: set[str] = set()
    used = 0
    for key in keep:
        if key not in pieces:
            continue
        wanted = least_bar if key == "bar" else len(pieces[key])
        if used + wanted + (1 if shown else 0) <= room:
            used += wanted + (1 if shown else 0)
            shown.add(key)
    if "bar" in shown and total:
        cells = min(least_bar + room - used, 62) - 2  # inside the brackets
        filled = cells * min(done, total) // total
        tip = ">" if filled < cells else ""
        pieces["bar"] = "[" + ("=" * filled + tip).ljust(cells)[:cells] + "]"
    return " ".join(pieces[key] for key in order if key in shown)


class Progress:
    """A one-line progress display on a terminal's stderr, fed from
    ``Resource.bytes_read`` (the size, when known, makes it a bar with a percentage and the
    time left, as curl's).  It fits the terminal's width at every redraw (never wraps) and
    is redrawn ten times a second by the event loop, bytes or not, so a stall shows."""

    interval = 0.1

    def __init__(self, resource: Resource) -> None:
        import asyncio
        import sys

        self.resource = resource
        self.out = sys.stderr
        self.rate = Rate(time.monotonic())
        # -C: the bytes kept count toward the percentage, as curl's (the rate and the time
        # left are the transfer's own)
        resumed = resource.resumed
        self.offset = resumed.offset if resumed is not None else 0
        size = resource.size
        self.total = resource.total or (size + self.offset if size is not None else None)
        self.name = str(resource.url).rsplit("/", 1)[-1] or str(resource.url)
        self._loop = asyncio.get_running_loop()
        self._timer: asyncio.TimerHandle | None = None
        self._stopped = False
        self._draw()

    def _draw(self) -> None:
        if self._stopped:
            return
        now = time.monotonic()
        rate = self.rate
        line = progress_line(
            name=self.name,
            done=self.offset + self.resource.bytes_read,
            total=self.total,
            rate=rate.text(now),
            per_second=rate.per_second(now),
            elapsed=now - rate.started,
            width=terminal_width(),
        )
        try:
            self.out.write("\r" + line + "\x1b[K")
            self.out.flush()
        except (OSError, ValueError):  # (the terminal went away: the transfer goes on)
            self._stopped = True
            return
        self._timer = self._loop.call_later(self.interval, self._draw)

    def update(self) -> None:
        self.rate.add(time.monotonic(), self.resource.bytes_read)

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        if self._timer is not None:
            self._timer.cancel()
        try:
            self.out.write("\r\x1b[K")
            self.out.flush()
        except (OSError, ValueError):
            pass


__all__ = ["Progress", "Rate", "clock", "human_size", "progress_line", "terminal_width"]
