"""Attach a terminal to a telnet session, the way telnet(1) does.

On a TTY the terminal goes to raw mode (every key goes to the server, which echoes), and
``^]`` (Ctrl + ]) — telnet(1)'s escape character — closes the session.  Without a TTY
(``omniurl get telnet://… < commands.txt``) standard input is sent line by line; once it
ends, the output is shown until the server closes or is quiet for
:data:`QUIET_AFTER_INPUT` seconds (at most the read timeout).  The terminal mode is always
restored, whatever happens.

``--max-time`` bounds the session as it bounds any transfer (curl's telnet honours ``-m``
too): when the time is up the session is closed, the terminal restored, and the resolve's
:class:`~resolvers.errors.DeadlineExceeded` raised — the words and exit status a silent
Gopher server gives under ``-m``.  Without it an interactive session has no overall limit.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import Iterator
from typing import Any, BinaryIO

from ..errors import ConnectionClosed, ResolveTimeout
from .session import TelnetSession

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..deadline import Guard

#: telnet(1)'s escape character, ^] (GS, 0x1D).
ESCAPE = 0x1D

#: Once standard input has ended, the session ends when the server has said nothing for
#: this many seconds (or closed; at most the read timeout in all): a shell's reply to the
#: last line comes within it, and a server that ignores the end of input does not hold
#: the command.
QUIET_AFTER_INPUT = 2.0


def to_nvt(data: bytes) -> bytes:
    """Local line endings to the NVT end of line (RFC 854): CR, LF or CR LF become CR LF."""
    return data.replace(b"\r\n", b"\n").replace(b"\r", b"\n").replace(b"\n", b"\r\n")


@contextlib.contextmanager
def raw_mode(fd: int) -> Iterator[None]:
    """Put a TTY in raw mode for the duration; always restore it."""
    import termios
    import tty

    saved = termios.tcgetattr(fd)
    try:
        # TCSANOW: keys typed before the switch must not be flushed away.
        tty.setraw(fd, termios.TCSANOW)
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSAFLUSH, saved)


async def _read_in_thread(fd: int, keys: asyncio.Queue[bytes]) -> None:
    """Feed ``keys`` from a file that cannot be polled, until its end (``b""``)."""
    while True:
        try:
            data = await asyncio.to_thread(os.read, fd, 1024)
        except OSError:
            data = b""
        keys.put_nowait(data)
        if not data:
            return


async def attach(
    session: TelnetSession,
    *,
    stdin_fd: int | None = None,
    stdout: BinaryIO | None = None,
    stderr: BinaryIO | None = None,
    guard: Guard | None = None,
) -> int:
    """Shuttle octets between the terminal and the session until either side ends.

    Returns 0 when the server closed or the person pressed ^], 4 when the session broke.
    When ``guard``'s ``--max-time`` is up (``Guard.time_left``; the resolve's own
    guard: the rest of it) the session is closed, the terminal restored and the resolve's
    own error raised (``Guard.time_up``).
    """
    fd = sys.stdin.fileno() if stdin_fd is None else stdin_fd
    out = stdout or sys.stdout.buffer
    err = stderr or sys.stderr.buffer
    is_tty = os.isatty(fd)
    loop = asyncio.get_running_loop()
    keys: asyncio.Queue[bytes] = asyncio.Queue()
    time_left = guard.time_left() if guard is not None else None
    ends = None if time_left is None else loop.time() + time_left

    def until_end() -> float | None:
        return None if ends is None else max(ends - loop.time(), 0.0)

    def on_input() -> None:
        try:
            data = os.read(fd, 1024)
        except OSError:
            data = b""
        keys.put_nowait(data)
        if not data:
            loop.remove_reader(fd)

    last_output = [loop.time()]

    async def pump_output() -> None:
        while True:
            data = await session.read(timeout=None)
            if not data:
                return
            last_output[0] = loop.time()
            out.write(data)
            out.flush()

    async def after_input(output: asyncio.Future[None]) -> bool:
        """Input ended (a file, a pipe, /dev/null): show what the server still says until
        it closes, or is quiet for :data:`QUIET_AFTER_INPUT` seconds, or the read timeout
        has passed; True when ``--max-time``'s end came first.  (No half-close: a telnetd
        ends the session on it at once, and the answer to the last lines sent would be
        lost.)"""
        last_output[0] = max(last_output[0], loop.time())
        deadline = loop.time() + session.options.read_timeout
        if ends is not None:
            deadline = min(deadline, ends)
        while not output.done():
            now = loop.time()
            left = min(last_output[0] + QUIET_AFTER_INPUT, deadline) - now
            if left <= 0:
                return ends is not None and now >= ends
            await asyncio.wait({output}, timeout=left)
        return False

    async def pump_input() -> str:
        while True:
            data = await keys.get()
            if not data:
                return "eof"
            if is_tty and ESCAPE in data:
                data = data[: data.index(ESCAPE)]
                if data:
                    await session.write(to_nvt(data))
                return "escape"
            await session.write(to_nvt(data))

    status = 0
    expired = False
    with raw_mode(fd) if is_tty else contextlib.nullcontext():
        # What arrived before we attached (banner, prompts the plan answered) is shown first.
        out.write(bytes(session.history))
        out.flush()
        session.discard()
        reading: asyncio.Future[None] | None = None
        try:
            loop.add_reader(fd, on_input)
        except PermissionError:
            # epoll cannot watch a regular file or /dev/null (EPERM: ``< commands.txt``);
            # reads from those never block, so a thread reads them.
            reading = asyncio.ensure_future(_read_in_thread(fd, keys))
        output = asyncio.ensure_future(pump_output())
        typing = asyncio.ensure_future(pump_input())
        try:
            done, _ = await asyncio.wait(
                {output, typing}, timeout=until_end(), return_when=asyncio.FIRST_COMPLETED
            )
            expired = not done  # (only the time can end the wait with neither done)
            if typing in done and typing.result() == "eof" and not output.done():
                expired = await after_input(output)
            for task in (output, typing):
                if task.done() and not task.cancelled() and task.exception() is not None:
                    raise task.exception()  # type: ignore[misc]
        except (ConnectionClosed, ResolveTimeout) as exc:
            err.write(f"\r\nomniurl: {exc}\r\n".encode())
            status = 4
        finally:
            # (the server's close ended the output; else our input did, or the escape)
            server_closed = output.done() and not output.cancelled()
            loop.remove_reader(fd)
            tasks: list[asyncio.Future[Any]] = [output, typing]
            if reading is not None:
                tasks.append(reading)
            for pending in tasks:
                pending.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
    if expired and status == 0 and guard is not None:  # (expired: ends, so a guard)
        # (the terminal is restored; the caller reports the error as for any transfer)
        if is_tty:
            err.write(b"\r\n")
            err.flush()
        await session.close()
        guard.time_up()
    escaped = (
        typing.done()
        and not typing.cancelled()
        and typing.exception() is None
        and typing.result() == "escape"
    )
    if escaped:
        err.write(b"\r\nomniurl: connection closed (^])\r\n")
    elif server_closed:
        err.write(b"\r\nomniurl: connection closed by foreign host\r\n")
    else:  # (the input ended and the server, still connected, went quiet: we closed)
        err.write(b"\r\nomniurl: connection closed (end of input)\r\n")
    err.flush()
    await session.close()
    return status
