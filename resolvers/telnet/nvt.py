"""The telnet protocol (RFC 854, RFC 855) as a pure machine: bytes in, data and replies out.

What arrives from a telnet server is data with commands inside it: ``IAC IAC`` is a data
octet 255, ``IAC WILL/WONT/DO/DONT option`` negotiates an option (RFC 855), ``IAC SB …
IAC SE`` carries an option's parameters, other ``IAC`` commands (NOP, GA, AYT …) are
signals.  The machine separates them across any chunk boundary and answers negotiations
itself (:class:`Reply` events: octets to send back); the session gets :class:`Data`.

The options, as telnet(1) and telnetlib3 negotiate them for a person's terminal:

- the server may ECHO and SUPPRESS-GO-AHEAD (RFC 857, RFC 858); we SUPPRESS-GO-AHEAD too;
- TERMINAL-TYPE (RFC 1091): the terminal we run in, when asked; NAWS (RFC 1073): its size;
- everything else is refused — BINARY (RFC 856) included: in NVT mode CR LF is the end of
  line and the server turns it into its terminal's (a real telnetd in binary mode hands CR
  *and* LF to the pty, which reads two line ends: the password prompt gets an empty line).

RFC 854's rule against loops is kept: a request for the state an option is already in is
not answered.  :meth:`NVTMachine.encode` doubles every IAC of the octets we send.
"""

from __future__ import annotations

import enum
from collections import deque
from dataclasses import dataclass

IAC, DONT, DO, WONT, WILL, SB, SE = 255, 254, 253, 252, 251, 250, 240
ECHO, SGA, TTYPE, NAWS = 1, 3, 24, 31
#: TERMINAL-TYPE's subnegotiation verbs (RFC 1091).
TTYPE_IS, TTYPE_SEND = 0, 1
#: The most octets an option's subnegotiation may hold (a terminal type is a short name).
MAX_SUBNEGOTIATION = 4096

#: What the server may enable on its side (IAC WILL x → IAC DO x).
THEIRS = frozenset({ECHO, SGA})
#: What we enable on ours when asked (IAC DO x → IAC WILL x).
OURS = frozenset({SGA, TTYPE, NAWS})


class _At(enum.Enum):
    DATA = "data"
    IAC = "iac"
    OPTION = "option"  # after WILL/WONT/DO/DONT
    SB = "sb"
    SB_IAC = "sb-iac"


@dataclass(frozen=True)
class Data:
    """Octets for the application (commands removed)."""

    data: bytes


@dataclass(frozen=True)
class Reply:
    """Octets to send back (a negotiation's answer); ``shown`` says what it was."""

    data: bytes
    shown: str


Event = Data | Reply

_VERBS = {WILL: "WILL", WONT: "WONT", DO: "DO", DONT: "DONT"}


class NVTMachine:
    """One connection's telnet protocol state (see the module's docstring)."""

    def __init__(self, *, term: str = "unknown", cols: int = 80, rows: int = 24) -> None:
        self.term = term.encode("ascii", "replace")
        self.cols, self.rows = cols, rows
        #: Options enabled on the server's side, and on ours.
        self.theirs: set[int] = set()
        self.ours: set[int] = set()
        self._at = _At.DATA
        self._verb = 0
        self._sb = bytearray()
        self._events: deque[Event] = deque()

    def receive_data(self, data: bytes) -> None:
        """Parse ``data``; :meth:`next_event` hands out what it held."""
        out = bytearray()
        i, n = 0, len(data)
        while i < n:
            if self._at is _At.DATA:
                cut = data.find(b"\xff", i)
                if cut < 0:
                    out += data[i:]
                    break
                out += data[i:cut]
                i = cut + 1
                self._at = _At.IAC
                continue
            octet = data[i]
            i += 1
            if self._at is _At.IAC:
                if octet == IAC:
                    out.append(IAC)
                    self._at = _At.DATA
                elif octet in _VERBS:
                    self._verb, self._at = octet, _At.OPTION
                elif octet == SB:
                    self._sb.clear()
                    self._at = _At.SB
                else:
                    self._at = _At.DATA  # NOP, GA, AYT …: signals without data
            elif self._at is _At.OPTION:
                self._flush(out)
                self._negotiate(self._verb, octet)
                self._at = _At.DATA
            elif self._at is _At.SB:
                if octet == IAC:
                    self._at = _At.SB_IAC
                elif len(self._sb) < MAX_SUBNEGOTIATION:
                    self._sb.append(octet)
            else:  # SB_IAC
                if octet == SE:
                    self._flush(out)
                    self._subnegotiation(bytes(self._sb))
                    self._at = _At.DATA
                else:
                    if octet == IAC and len(self._sb) < MAX_SUBNEGOTIATION:
                        self._sb.append(IAC)
                    self._at = _At.SB
        self._flush(out)

    def next_event(self) -> Event | None:
        """The next event, or None when everything received was handed out."""
        return self._events.popleft() if self._events else None

    @staticmethod
    def encode(data: bytes) -> bytes:
        """Octets to send as data: every IAC doubled (RFC 854)."""
        return data.replace(b"\xff", b"\xff\xff")

    # -- negotiation ---------------------------------------------------------------------

    def _flush(self, out: bytearray) -> None:
        if out:
            self._events.append(Data(bytes(out)))
            out.clear()

    def _reply(self, verb: int, option: int) -> None:
        self._events.append(Reply(bytes([IAC, verb, option]), f"{_VERBS[verb]} {option}"))

    def _negotiate(self, verb: int, option: int) -> None:
        if verb == WILL:
            if option in THEIRS:
                if option not in self.theirs:
                    self.theirs.add(option)
                    self._reply(DO, option)
            else:
                self._reply(DONT, option)
        elif verb == WONT:
            if option in self.theirs:
                self.theirs.discard(option)
                self._reply(DONT, option)
        elif verb == DO:
            if option in OURS:
                if option not in self.ours:
                    self.ours.add(option)
                    self._reply(WILL, option)
                    if option == NAWS:
                        self._window_size()
            else:
                self._reply(WONT, option)
        elif option in self.ours:  # DONT
            self.ours.discard(option)
            self._reply(WONT, option)

    def _window_size(self) -> None:
        """NAWS (RFC 1073): width and height, 16 bits each, an IAC among them doubled."""
        size = self.cols.to_bytes(2, "big") + self.rows.to_bytes(2, "big")
        data = bytes([IAC, SB, NAWS]) + size.replace(b"\xff", b"\xff\xff") + bytes([IAC, SE])
        self._events.append(Reply(data, f"NAWS {self.cols}x{self.rows}"))

    def _subnegotiation(self, sb: bytes) -> None:
        if sb[:2] == bytes([TTYPE, TTYPE_SEND]) and TTYPE in self.ours:
            data = bytes([IAC, SB, TTYPE, TTYPE_IS]) + self.term + bytes([IAC, SE])
            self._events.append(Reply(data, f"TERMINAL-TYPE IS {self.term.decode()}"))


__all__ = ["Data", "Event", "NVTMachine", "Reply"]
