"""A Gopher reply as a pure state machine, in h11's shape: bytes in, events out.

RFC 1436 has no status line: how a reply is read depends on what was asked for (the plan's
:class:`~resolvers.gopher.planner.GopherDetails`).  The machine knows every way, and decides
everything a reply can mean; the executor only moves bytes (:meth:`GopherMachine.receive_data`,
``b""`` at end of stream) and reads events (:meth:`GopherMachine.next_event` until
:data:`NEED_DATA`):

- a menu (types 1 and 7): dot-terminated text (RFC 1436 §3.8: a close before the lone ``.``
  is accepted), cut into :class:`MenuLine` events, each bounded by ``max_line``;
- text (type 0 and friends): :class:`Data`, dot-unstuffed where the server framed it as
  RFC 1436 says, else every byte as sent (:class:`~resolvers.gopher.text.TextItemDecoder`;
  ``raw``: as on the wire);
- binary types: :class:`Data` until the server closes;
- a reply whose first line is a type-3 error item is :class:`~resolvers.errors.NotFound`
  naming the selector, whatever type was asked for (servers answer a missing file with one);
- Gopher+ (``+``, ``!``, ``$`` …): a status line first (:class:`StatusLine`): ``+N`` N octets
  (fewer is a :class:`~resolvers.errors.ConnectionClosed`), ``+-1`` dot-terminated, ``+-2``
  until close; ``-1``/``-2``/``-3`` an error whose text (capped) comes as :class:`PlusError`.

Every byte of the content passes through unchanged where no framing applies (binary: the
chunk received is the chunk handed out, no copy); there the executor may read past the
machine altogether (:meth:`GopherMachine.raw_wanted`), which then only counts.
"""

from __future__ import annotations

import enum
from collections import deque

from omniurl.schemes.records import record

from ..errors import ConnectionClosed, LimitExceeded, ProtocolError
from ..sansio import NEED_DATA, Sentinel
from .planner import GopherDetails, Mode

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .gopherplus import Status
    from .text import DotTextDecoder, TextItemDecoder

# (Gopher+'s status line, the type-3 error item and the text decoders, .gopherplus, .menu
# and .text, are imported where a reply needs them: a binary item's get never loads them,
# 1.2-2.5 ms of CPU after the early connect; docs/speed.md, *The command's two ends*)

#: The most a Gopher+ error's text may hold (it is buffered to make the message).
MAX_ERROR_TEXT = 16 * 1024
#: :meth:`GopherMachine.raw_wanted` for content that ends when the server closes.
UNTIL_CLOSE = 1 << 62


class State(enum.Enum):
    STATUS = "status"  # Gopher+: the status line
    SNIFF = "sniff"  # the first line, should it be a type-3 error item
    BODY = "body"  # the content
    ERROR_TEXT = "error-text"  # Gopher+: an error's text
    DONE = "done"


class Framing(enum.Enum):
    """How the content ends."""

    DOT = "dot"  # the lone "." line (or the close)
    CLOSE = "close"  # the server closes
    LENGTH = "length"  # after exactly N octets (Gopher+ +N)


@record(frozen=True)
class StatusLine:
    """Gopher+'s first line (``+N`` or ``-code``), and its text for the transcript."""

    status: Status
    text: str


@record(frozen=True)
class Data:
    """Content octets (framing removed)."""

    data: bytes


@record(frozen=True)
class MenuLine:
    """One menu line, without its line end."""

    line: bytes


@record(frozen=True)
class PlusError:
    """A Gopher+ error (``-1`` not available, ``-2`` try again later, ``-3`` moved) and its
    text: the administrator's line, then the message (a moved item's new menu line)."""

    status: Status
    status_line: str
    text: bytes


@record(frozen=True)
class EndOfReply:
    """The content is complete."""


Event = StatusLine | Data | MenuLine | PlusError | EndOfReply


class GopherMachine:
    """One reply, read as the plan's details say (see the module's docstring)."""

    def __init__(self, details: GopherDetails, *, raw: bool = False, max_line: int = 65536) -> None:
        self.details = details
        self.max_line = max_line
        self.raw = raw
        mode = details.mode
        self.plus = mode not in (Mode.MENU, Mode.TEXT, Mode.BINARY)
        #: Whether the content is a menu (cut into lines).
        self.menu = mode is Mode.MENU or (mode is Mode.GPLUS and details.reading == "menu")
        self.state = State.STATUS if self.plus else State.SNIFF
        dotted = mode is Mode.MENU or (mode is Mode.TEXT and not raw)
        self._framing = Framing.DOT if dotted else Framing.CLOSE
        self._remaining = 0
        self._decoder: DotTextDecoder | TextItemDecoder | None = None
        self._buffer = bytearray()
        self._eof = False
        self._first_line = True
        self._events: deque[Event] = deque()
        self._error_text = bytearray()
        self._status: StatusLine | None = None
        self._pending_menu = b""  # a menu line not yet ended
        self._lines = 0

    @property
    def status(self) -> Status | None:
        """Gopher+'s status, once its line was read."""
        return None if self._status is None else self._status.status

    def receive_data(self, data: bytes) -> None:
        if not data:
            self._eof = True
        elif self.state is State.DONE:
            pass  # (after the end: not the item's)
        elif self.state is State.BODY and not self.menu and not self._buffer:
            self._content(data)  # (no copy: the chunk is handed out as it came)
        else:
            self._buffer += data

    def raw_wanted(self) -> int:
        """How many content bytes the caller may read straight from the connection, past
        this machine, else 0: the content is binary (until the close, or Gopher+'s ``+N``
        octets), nothing is buffered or waiting to be handed out — so the bulk path copies
        from the socket into its own buffer and the machine only counts."""
        if (
            self.state is not State.BODY
            or self.menu
            or self._buffer
            or self._events
            or self._eof
            or self._decoder is not None
        ):
            return 0
        if self._framing is Framing.LENGTH:
            return self._remaining
        return UNTIL_CLOSE

    def raw_received(self, n: int) -> None:
        """``n`` content bytes were read past the machine (at most :meth:`raw_wanted`); an
        ``n`` of 0 is the server's close (the end of the content, or too early for ``+N``:
        :class:`~resolvers.errors.ConnectionClosed`)."""
        if n == 0:
            self._eof = True
            return
        if self._framing is Framing.LENGTH:
            self._remaining -= n
            if self._remaining == 0:
                self._finish()

    def quiet_after(self) -> float | None:
        """Seconds of the server's silence after which the executor calls :meth:`quiet`, when
        a text item's bytes so far end with its first lone "." line (None: wait as usual):
        a framed text whose server keeps the connection open ends there
        (:class:`~resolvers.gopher.text.TextItemDecoder`)."""
        decoder = self._decoder
        if (
            decoder is None  # (a binary item's: no text module to ask)
            or self.state is not State.BODY
            or self._buffer
            or self._events
            or self._eof
        ):
            return None
        from .text import QUIET, TextItemDecoder

        if isinstance(decoder, TextItemDecoder) and decoder.may_end:
            return QUIET
        return None

    def quiet(self) -> None:
        """The server said nothing for :meth:`quiet_after` seconds: the text ends at its "."
        line."""
        from .text import TextItemDecoder

        decoder = self._decoder
        assert isinstance(decoder, TextItemDecoder)
        self._emit(decoder.quiet())
        self._finish()

    def next_event(self) -> Event | Sentinel:
        while not self._events:
            if self.state is State.DONE:
                return NEED_DATA
            if not self._step():
                return NEED_DATA
        return self._events.popleft()

    # -- states ------------------------------------------------------------------------------

    def _step(self) -> bool:
        """Advance on what is buffered; False when more bytes are needed."""
        if self.state is State.STATUS:
            return self._read_status()
        if self.state is State.SNIFF:
            return self._sniff()
        if self.state is State.ERROR_TEXT:
            return self._read_error_text()
        # BODY
        if self._buffer:
            data = bytes(self._buffer)
            self._buffer.clear()
            self._content(data)
            return True
        if self._eof:
            self._end_of_stream()
            return True
        return False

    def _line(self) -> bytes | None:
        cut = self._buffer.find(b"\n")
        if cut < 0:
            if len(self._buffer) > self.max_line + 1:
                raise LimitExceeded(
                    f"the Gopher+ status line: line longer than {self.max_line} bytes"
                )
            return None
        line = bytes(self._buffer[:cut])
        del self._buffer[: cut + 1]
        return line[:-1] if line.endswith(b"\r") else line

    def _read_status(self) -> bool:
        line = self._line()
        if line is None:
            if self._eof:
                what = "in the middle of" if self._buffer else "while waiting for"
                raise ConnectionClosed(f"connection closed {what} the Gopher+ status line")
            return False
        from .gopherplus import parse_status
        from .menu import raise_if_error
        from .text import DotTextDecoder

        text = line.decode("utf-8", "replace")
        status = parse_status(line)
        if status is None:
            # A plain Gopher server answers a Gopher+ request for a missing item with its
            # usual type-3 error line: that is "not found", not a broken protocol.
            raise_if_error(line)
            raise ProtocolError(
                "not a Gopher+ reply (a Gopher+ server starts with +length or -code): "
                f"{text[:80]!r}",
                component="gopher_plus",
            )
        self._status = StatusLine(status, text)
        self._events.append(self._status)
        if not status.ok:
            self.state = State.ERROR_TEXT
            self._decoder = DotTextDecoder(max_line=self.max_line)
            return True
        if status.length >= 0:
            self._framing, self._remaining = Framing.LENGTH, status.length
        else:
            self._framing = Framing.DOT if status.length == -1 else Framing.CLOSE
        self._begin_body()
        return True

    def _sniff(self) -> bool:
        """The reply's first bytes: a type-3 error line instead of the item raises."""
        if not self._buffer:
            if self._eof:
                self._begin_body()
                return True
            return False
        if self._buffer[:1] == b"3" and not self.menu:
            cut = self._buffer.find(b"\n")
            if cut < 0 and len(self._buffer) < self.max_line and not self._eof:
                return False
            end = cut if cut >= 0 else len(self._buffer)
            from .menu import raise_if_error

            raise_if_error(bytes(self._buffer[:end]).rstrip(b"\r"))
        self._begin_body()
        return True

    def _begin_body(self) -> None:
        self.state = State.BODY
        if self._framing is Framing.DOT:
            from .text import DotTextDecoder, TextItemDecoder

            if self.details.mode is Mode.TEXT:  # (servers that do not frame: TextItemDecoder)
                self._decoder = TextItemDecoder(max_line=self.max_line)
            else:
                self._decoder = DotTextDecoder(max_line=self.max_line)
        if self._framing is Framing.LENGTH and self._remaining == 0:
            self._finish()

    def _read_error_text(self) -> bool:
        assert self._decoder is not None and self._status is not None
        if self._buffer:
            if len(self._error_text) <= MAX_ERROR_TEXT:
                self._error_text += self._decoder.feed(bytes(self._buffer))
            self._buffer.clear()
        elif not self._eof:
            return False
        if not self._decoder.done and not self._eof:
            return False
        if not self._decoder.done:
            self._error_text += self._decoder.close()
        text = bytes(self._error_text) if len(self._error_text) <= MAX_ERROR_TEXT else b""
        self.state = State.DONE
        self._events.append(PlusError(self._status.status, self._status.text, text))
        return True

    # -- content -----------------------------------------------------------------------------

    def _content(self, data: bytes) -> None:
        if self._framing is Framing.LENGTH:
            if len(data) >= self._remaining:
                data = data[: self._remaining]  # (bytes after the count are not the item's)
            self._remaining -= len(data)
            self._emit(data)
            if self._remaining == 0:
                self._finish()
            return
        if self._decoder is not None:
            self._emit(self._decoder.feed(data))
            if self._decoder.done:
                self._finish()
            return
        self._emit(data)

    def _emit(self, data: bytes) -> None:
        if not data:
            return
        if not self.menu:
            self._events.append(Data(data))
            return
        lines = self._pending_menu + data if self._pending_menu else data
        start = 0
        while True:
            end = lines.find(b"\n", start)
            if end < 0:
                break
            stop = end - 1 if end > start and lines[end - 1] == 13 else end
            self._menu_line(lines[start:stop])
            start = end + 1
        self._pending_menu = lines[start:]
        if len(self._pending_menu) > self.max_line:
            raise LimitExceeded(f"menu line {self._lines + 1} is longer than {self.max_line} bytes")

    def _menu_line(self, line: bytes) -> None:
        self._lines += 1
        if len(line) > self.max_line:
            raise LimitExceeded(f"menu line {self._lines} is longer than {self.max_line} bytes")
        if self._lines == 1:
            from .menu import raise_if_error

            raise_if_error(line)
        self._events.append(MenuLine(line))

    def _end_of_stream(self) -> None:
        if self._framing is Framing.LENGTH:
            raise ConnectionClosed(
                f"connection closed with {self._remaining} bytes of the Gopher+ data still to come"
            )
        if self._decoder is not None:
            self._emit(self._decoder.close())  # (RFC 1436: a close before "." is accepted)
            if self._status is not None and not self._decoder.done:
                # Gopher+'s "+-1" promises the "." line (gopher+ protocol, "Gopher+ data
                # transfer"; "+-2" is the one that reads to the close): a close before it is
                # a cut transfer, never a complete file, as "+N" short of N octets.
                raise ConnectionClosed(
                    "connection closed before the '.' line that ends Gopher+ data of length -1"
                )
        self._finish()

    def _finish(self) -> None:
        if self.menu and self._pending_menu:
            line, self._pending_menu = self._pending_menu, b""
            self._menu_line(line[:-1] if line.endswith(b"\r") else line)
        self.state = State.DONE
        self._events.append(EndOfReply())


__all__ = [
    "MAX_ERROR_TEXT",
    "NEED_DATA",
    "UNTIL_CLOSE",
    "Data",
    "EndOfReply",
    "Event",
    "Framing",
    "GopherMachine",
    "MenuLine",
    "PlusError",
    "State",
    "StatusLine",
]
