"""Reading ``-i`` lists and waiting on FIFOs without ever deafening the command to signals.

Two failures this module exists for (both measured):

- ``omniurl get -i /dev/full`` read one endless "line" (zeros, no line end): 10.8 GB in
  26 s, and SIGTERM was ignored.  A line is now at most :data:`MAX_LINE` bytes (64 KiB — no
  URL anyone types or a crawler emits comes near it; RFC 9110 §4.1 recommends supporting
  8,000 octets): a longer one is an error row of its own, and its end is looked for through
  at most :data:`MAX_SKIP` more bytes, past which the rest of that list is not read.
- A blocking ``read()`` or ``open()`` of a FIFO in the event loop's thread never returns to
  the loop, and asyncio's signal handlers only run when it does: ``-i FIFO`` and ``-o FIFO``
  waiting for the other end ignored SIGTERM (``timeout 20 omniurl get -o f URL`` ran on).
  Here a FIFO, a pipe or a terminal is read when the loop says it is readable, a FIFO opened
  for writing is retried (``O_NONBLOCK``: ENXIO while no reader) every 50 ms, and written
  when the loop says it is writable; a regular file (or ``/dev/full``, which cannot be
  polled) is read in 64 KiB chunks with the loop given a turn between them.
"""

from __future__ import annotations

import asyncio
import os
import stat
import sys
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass

from omniurl.batch import Unreadable
from omniurl.resolvers.errors import ConfigurationError, LimitExceeded

from .fifo import _ready, open_for_writing, write_all

#: The longest line of a URL list read as a URL (bytes, without its line end).
MAX_LINE = 64 * 1024
#: How far past MAX_LINE the end of an overlong line is looked for before the rest of the
#: list is given up (an endless line, /dev/full, must not be read for ever).
MAX_SKIP = 1 << 20
#: What one read asks for.
CHUNK = 64 * 1024


@dataclass(frozen=True)
class Overlong:
    """A line longer than :data:`MAX_LINE`: its number, its first bytes, and whether its end
    was found (``False``: the list was given up there)."""

    number: int
    head: bytes
    ended: bool


class LineSplitter:
    """Bytes in, lines out (without their LF; a CR before it is stripped by the caller's
    ``strip``), each at most ``limit`` bytes; an overlong one as :class:`Overlong`.  Pure."""

    def __init__(self, limit: int = MAX_LINE, skip_limit: int = MAX_SKIP) -> None:
        self.limit = limit
        self.skip_limit = skip_limit
        self.number = 0
        self.done = False
        self._rest = b""
        self._skipping: tuple[bytes, int] | None = None  # (head, bytes skipped so far)

    def feed(self, data: bytes) -> list[bytes | Overlong]:
        out: list[bytes | Overlong] = []
        if self.done:
            return out
        if self._skipping is not None:
            head, skipped = self._skipping
            end = data.find(b"\n")
            if end < 0:
                skipped += len(data)
                if skipped > self.limit + self.skip_limit:
                    self._give_up(out, head)
                else:
                    self._skipping = (head, skipped)
                return out
            self._skipping = None
            out.append(Overlong(self.number, head, True))
            data = data[end + 1 :]
        lines = (self._rest + data).split(b"\n")
        self._rest = lines.pop()
        for line in lines:
            self.number += 1
            out.append(line if len(line) <= self.limit else Overlong(self.number, line[:64], True))
        if len(self._rest) > self.limit:
            self.number += 1
            head, skipped = self._rest[:64], len(self._rest)
            self._skipping, self._rest = (head, skipped), b""
            if skipped > self.limit + self.skip_limit:
                self._give_up(out, head)
        return out

    def end(self) -> list[bytes | Overlong]:
        """The last line (one without a line end), at the end of the input."""
        if self.done:
            return []
        self.done = True
        if self._skipping is not None:
            return [Overlong(self.number, self._skipping[0], True)]
        if self._rest:
            self.number += 1
            return [self._rest]
        return []

    def _give_up(self, out: list[bytes | Overlong], head: bytes) -> None:
        self._skipping = None
        self.done = True
        out.append(Overlong(self.number, head, False))


def _row(name: str, item: Overlong) -> Unreadable:
    shown = item.head.decode("utf-8", "replace")
    shown = "".join(ch if ch.isprintable() else "?" for ch in shown)[:40]
    if item.ended:
        message = f"line {item.number} of {name} is longer than {MAX_LINE} bytes: not read as a URL"
    else:
        message = (
            f"line {item.number} of {name} is longer than {MAX_LINE} bytes and has no line "
            f"end within {MAX_SKIP} more: the rest of {name} is not read"
        )
    return Unreadable(f"{shown}…", LimitExceeded(message, component="input"))


def _url_text(line: bytes) -> str | None:
    text = line.decode("utf-8", "surrogateescape").strip()
    return text if text and not text.startswith("#") else None


def _pollable(loop: asyncio.AbstractEventLoop, fd: int) -> bool:
    """Whether the loop can tell when ``fd`` is readable (a pipe, FIFO, socket or terminal;
    not a regular file, nor /dev/full or /dev/zero: epoll refuses them with EPERM)."""
    mode = os.fstat(fd).st_mode
    if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)):
        return False
    try:
        loop.add_reader(fd, lambda: None)
    except (PermissionError, OSError, ValueError):
        return False
    loop.remove_reader(fd)
    return True


async def _chunks(name: str) -> AsyncIterator[bytes]:
    """The bytes of a URL list (``-``: standard input), read as they come."""
    loop = asyncio.get_running_loop()
    own = name != "-"
    try:
        if not own:
            fd = sys.stdin.fileno()
        else:
            fifo = stat.S_ISFIFO(os.stat(name).st_mode)
            # A FIFO opened without O_NONBLOCK blocks until a writer comes, deaf to signals.
            fd = os.open(name, os.O_RDONLY | (os.O_NONBLOCK if fifo else 0))
    except OSError as exc:
        raise ConfigurationError(
            f"cannot read the URL list {name}: {exc.strerror or exc}", component="input"
        ) from None
    try:
        pollable = _pollable(loop, fd)
        while True:
            if pollable:
                await _ready(loop, fd, write=False)
            try:
                data = os.read(fd, CHUNK)
            except BlockingIOError:
                continue
            except OSError as exc:
                raise ConfigurationError(
                    f"cannot read the URL list {name}: {exc.strerror or exc}", component="input"
                ) from None
            if not data:
                return
            yield data
            if not pollable:
                await asyncio.sleep(0)  # a turn for the loop: signals, running transfers
    finally:
        if own:
            os.close(fd)


async def url_source(
    urls: Iterable[str], input_files: Iterable[str]
) -> AsyncIterator[str | Unreadable]:
    """Command-line URLs first, then each ``-i`` list's (``-`` is standard input), lazily:
    one URL a line, blank lines and ``#`` comments skipped, an overlong line an
    :class:`~omniurl.batch.Unreadable` row."""
    for url in urls:
        yield url
    for name in input_files:
        shown = "standard input" if name == "-" else name
        splitter = LineSplitter()
        async for data in _chunks(name):
            for item in splitter.feed(data):
                if isinstance(item, Overlong):
                    yield _row(shown, item)
                elif (text := _url_text(item)) is not None:
                    yield text
            if splitter.done:
                break
        for item in splitter.end():
            if isinstance(item, Overlong):
                yield _row(shown, item)
            elif (text := _url_text(item)) is not None:
                yield text


def count_urls(urls: Iterable[str], input_files: Iterable[str]) -> int | None:
    """How many items :func:`url_source` will yield, when every list is a regular file
    (counted chunk by chunk, no line held whole); None when one is not (standard input, a
    FIFO, a device) or cannot be read."""
    total = len(list(urls))
    for name in input_files:
        if name == "-":
            return None
        try:
            if not stat.S_ISREG(os.stat(name).st_mode):
                return None
            splitter = LineSplitter()
            with open(name, "rb") as handle:
                while not splitter.done and (data := handle.read(CHUNK)):
                    total += sum(
                        1
                        for item in splitter.feed(data)
                        if isinstance(item, Overlong) or _url_text(item) is not None
                    )
            total += sum(
                1
                for item in splitter.end()
                if isinstance(item, Overlong) or _url_text(item) is not None
            )
        except OSError:
            return None
    return total


__all__ = [
    "MAX_LINE",
    "MAX_SKIP",
    "LineSplitter",
    "Overlong",
    "count_urls",
    "open_for_writing",
    "url_source",
    "write_all",
]
