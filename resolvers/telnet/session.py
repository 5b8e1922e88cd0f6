"""The telnet session object a ``telnet:`` URL resolves to (``Resource.session``).

A small expect-style API over a :class:`resolvers.net.Stream` and the telnet protocol machine
(:mod:`resolvers.telnet.nvt`: commands and negotiations taken out of the data and answered;
omniurl decides every octet it sends)::

    async with await omniurl.resolve("telnet://demo:demo@127.0.0.1:2323/", options) as r:
        s = r.session
        await s.expect("$ ")           # literal text, or a compiled bytes regex
        await s.send("whoami")         # one line, sent with the NVT end of line CR LF
        print(await s.read())          # what arrived since (bounded wait)

Every wait is bounded by ``Options.read_timeout`` unless the caller passes another timeout
(``None`` waits as long as the person at the terminal wants: the attach mode).  The bytes
buffered while looking for a pattern are bounded by ``Options.max_buffered``.  Everything
received is kept in :attr:`history` (bounded the same way) for transcripts.
"""

from __future__ import annotations

import asyncio
import re

from .. import net
from ..errors import ConnectionClosed, LimitExceeded, ResolveTimeout
from ..options import Options
from .nvt import Data, NVTMachine

#: The NVT end of line (RFC 854, "The NVT printer and keyboard").
CRLF = b"\r\n"

Pattern = str | bytes | re.Pattern[bytes]


def compile_pattern(pattern: Pattern, *, literal: bool = True) -> re.Pattern[bytes]:
    """A bytes regex from a pattern: ``str``/``bytes`` are literal text when ``literal``."""
    if isinstance(pattern, re.Pattern):
        return pattern
    raw = pattern.encode("utf-8") if isinstance(pattern, str) else pattern
    return re.compile(re.escape(raw) if literal else raw)


class TelnetSession:
    """A live telnet connection: :meth:`expect`, :meth:`send`, :meth:`read`, :meth:`close`."""

    def __init__(
        self, stream: net.Stream, machine: NVTMachine, options: Options, *, host: str, port: int
    ) -> None:
        self._stream = stream
        self._nvt = machine
        self.options = options
        self.host = host
        self.port = port
        #: Received but not yet consumed by expect()/read().
        self._buffer = bytearray()
        #: Everything received, in order (bounded by ``options.max_buffered``).
        self.history = bytearray()
        #: What was sent, in order, with secrets as the plan showed them.
        self.sent: list[str] = []
        self._eof = False
        self._closed = False

    # -- receiving ------------------------------------------------------------------------

    @property
    def at_eof(self) -> bool:
        """True once the server closed the connection and the buffer is empty."""
        return self._eof and not self._buffer

    async def fill(self, timeout: float | None, what: str = "data") -> bool:
        """Read until some data arrives into the buffer (see :meth:`peek`); False at end of
        connection, :class:`ResolveTimeout` after ``timeout`` seconds (``None``: no bound).

        The bound holds for the whole wait, not for each read: a server that sends option
        negotiations without end and never a byte of data always has something to read at
        once, so a bound per read never ran out (issue 31 item 19: ``--timeout 2 --login``
        still running after 40 s).  Between such chunks the loop is given a turn, so a
        signal (SIGTERM, Ctrl-C) and the caller's own deadlines are seen.
        """
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        while True:
            if self._eof:
                return False
            left = None if deadline is None else deadline - loop.time()
            if left is not None and left <= 0:
                raise ResolveTimeout(f"timed out after {timeout:g} s waiting for {what}")
            if await self._fill_once(left, what):
                return not self._eof
            await asyncio.sleep(0)  # (negotiation only: let the loop run)

    async def _fill_once(self, timeout: float | None, what: str) -> bool:
        """One chunk from the stream: True when it held data (or the connection ended)."""
        raw = await self._stream.read(what, self.options.chunk_size, timeout=timeout)
        if not raw:
            self._eof = True
            return True
        self._nvt.receive_data(raw)
        received = bytearray()
        while (event := self._nvt.next_event()) is not None:
            if isinstance(event, Data):
                received += event.data
            else:  # a negotiation's answer (RFC 855), sent at once
                self.options.note(">", f"(telnet {event.shown})")
                await self._write_raw(event.data)
        data = bytes(received)
        # The session stays in NVT mode (no BINARY), where NUL is "no operation" and CR NUL a
        # bare CR (RFC 854): drop the NULs, as a terminal would.
        data = data.replace(b"\x00", b"")
        if not data:
            return False
        if len(self._buffer) + len(data) > self.options.max_buffered:
            raise LimitExceeded(f"more than {self.options.max_buffered} bytes without {what}")
        self._buffer += data
        if len(self.history) + len(data) <= self.options.max_buffered:
            self.history += data
        self.options.note("<", data.decode("utf-8", "replace"))
        return True

    async def expect(
        self,
        pattern: Pattern,
        timeout: float | None = -1,
        *,
        consume: bool = True,
        component: str | None = None,
    ) -> re.Match[bytes]:
        """Wait until ``pattern`` appears in what arrived; return the match.

        ``str``/``bytes`` patterns are literal text; pass ``re.compile(rb"...")`` for a
        regular expression.  With ``consume`` the buffer up to the end of the match is used
        up.  Raises :class:`ResolveTimeout` (default: ``Options.read_timeout``) or
        :class:`ConnectionClosed` when it never comes; both name ``component``.
        """
        regex = compile_pattern(pattern)
        wait = self.options.read_timeout if timeout == -1 else timeout
        loop = asyncio.get_running_loop()
        deadline = None if wait is None else loop.time() + wait
        what = f"/{regex.pattern.decode('utf-8', 'replace')}/"
        searched = 0  # the buffer up to here held no match
        while True:
            # Search only what is new (and a line's worth before it, where a match could
            # start): searching the whole buffer again for every chunk made a server that
            # trickles text without the prompt cost quadratic time (one core at 99 %).
            start = max(0, searched - self.options.max_line)
            if regex.search(self._buffer, start) is not None:
                # Search a copy: the match must keep its text after the buffer is consumed.
                match = regex.search(bytes(self._buffer), start)
                assert match is not None
                if consume:
                    del self._buffer[: match.end()]
                return match
            searched = len(self._buffer)
            left = None if deadline is None else max(0.0, deadline - loop.time())
            try:
                more = await self.fill(left, what)
            except ResolveTimeout as exc:
                raise ResolveTimeout(
                    f"timed out after {wait:g} s waiting for {what}; last received: "
                    f"{bytes(self._buffer[-80:])!r}",
                    component=component,
                ) from exc
            if not more:
                raise ConnectionClosed(
                    f"connection closed while waiting for {what}", component=component
                )

    async def read(self, timeout: float | None = -1) -> bytes:
        """What arrived and was not consumed yet; if nothing, wait for the next chunk.
        ``b""`` at end of connection."""
        if not self._buffer:
            wait = self.options.read_timeout if timeout == -1 else timeout
            await self.fill(wait, "data")
        data = bytes(self._buffer)
        self._buffer.clear()
        return data

    async def read_until_quiet(self, quiet: float = 0.5, *, limit: float | None = None) -> bytes:
        """Everything that arrives until the server stays silent for ``quiet`` seconds (or
        closes), at most ``limit`` seconds in all (default ``Options.read_timeout``)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (self.options.read_timeout if limit is None else limit)
        while loop.time() < deadline:
            try:
                more = await self.fill(min(quiet, deadline - loop.time()), "more data")
            except ResolveTimeout:
                break
            if not more:
                break
        data = bytes(self._buffer)
        self._buffer.clear()
        return data

    def discard(self) -> None:
        """Forget what arrived and was not consumed (it stays in :attr:`history`)."""
        self._buffer.clear()

    def peek(self) -> bytes:
        """What arrived and was not consumed yet, without consuming it."""
        return bytes(self._buffer)

    # -- sending --------------------------------------------------------------------------

    async def write(self, data: bytes) -> None:
        """Send octets as data (every IAC doubled, RFC 854)."""
        await self._write_raw(self._nvt.encode(data))

    async def _write_raw(self, data: bytes) -> None:
        if self._closed or self._stream.closing:
            said = bytes(self.history[-80:]).decode("utf-8", "replace").strip()
            raise ConnectionClosed(f"the telnet server closed the session; it last said {said!r}")
        await self._stream.write(data, "to the telnet server")

    async def send(self, line: str | bytes, *, shown: str | None = None) -> None:
        """Send one line followed by the NVT end of line CR LF; ``shown`` is how transcripts
        show it (``"****"`` for a password)."""
        data = line.encode("utf-8") if isinstance(line, str) else line
        text = shown if shown is not None else data.decode("utf-8", "replace")
        self.sent.append(text)
        self.options.note(">", text)
        await self.write(data + CRLF)

    # -- closing --------------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._closed

    async def close(self) -> None:
        """Close the connection; safe to call more than once, never hangs."""
        if self._closed:
            return
        self._closed = True
        await self._stream.aclose()

    async def __aenter__(self) -> TelnetSession:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
