"""The progress bar on stderr (rich), fed from the resource's byte count.

A stalled transfer must look stalled: rich's own speed column is computed from the updates
it was given, so when no byte arrives it goes on showing the last speed ("406.4 MB/s" after
10 s of nothing).  Here the rate is computed at each redraw (rich redraws ten times a second
on its own) from the bytes of the last :data:`Rate.window` seconds, so it falls as soon as
bytes stop, and after :data:`Rate.stall_after` seconds without a byte the column says
"stalled" with the time since the last one; the elapsed time is shown beside it.  Sizes are
binary (KiB, MiB, GiB) in the bar, the rate and the summary line alike (:func:`human_size`).
"""

from __future__ import annotations

import time
from collections import deque
from typing import TYPE_CHECKING, Any

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


class Progress:
    """A rich progress bar fed from ``Resource.bytes_read`` (size when known)."""

    def __init__(self, resource: Resource) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, DownloadColumn, ProgressColumn, TimeElapsedColumn
        from rich.progress import Progress as Bar
        from rich.text import Text

        rate = self.rate = Rate(time.monotonic())

        class RateColumn(ProgressColumn):
            def render(self, task: Any) -> Text:
                return Text(rate.text(time.monotonic()), style="progress.data.speed")

        self.resource = resource
        self.progress = Bar(
            "[progress.description]{task.description}",
            BarColumn(),
            DownloadColumn(binary_units=True),
            RateColumn(),
            TimeElapsedColumn(),
            transient=True,
            # stderr: stdout may be carrying the content itself.
            console=Console(stderr=True),
        )
        self.task = self.progress.add_task(str(resource.url)[-40:], total=resource.size)
        self.progress.start()

    def update(self) -> None:
        self.rate.add(time.monotonic(), self.resource.bytes_read)
        self.progress.update(self.task, completed=self.resource.bytes_read)

    def stop(self) -> None:
        self.progress.stop()


__all__ = ["Progress", "Rate", "human_size"]
