"""One ARDP exchange (a request message, its reply message) as a pure state machine.

ARDP (the Asynchronous Reliable Delivery Protocol under Prospero, ardp.py) is a protocol of
datagrams and time: the request is retransmitted with exponential backoff when no reply comes
(carrying "received through", so the server resends only what is missing), a multi-packet
reply is reassembled in any order, a packet that asks for an acknowledgement gets one, and
the server may ask us to wait longer.  Every one of those decisions is here; the executor
only moves datagrams (:meth:`ARDPMachine.datagram_received`), says when a wait ran out
(:meth:`ARDPMachine.timed_out`), and reads events (:meth:`ARDPMachine.next_event`):
:class:`SendDatagrams`, :class:`Note` (for ``-v``), :class:`Wait` (how long to wait for the
next datagram), :class:`Complete` (the reply message).  Tested without a socket or a clock.
"""

from __future__ import annotations

import dataclasses
from collections import deque
from dataclasses import dataclass

from ..errors import ConnectError, ProtocolError, ResolveTimeout
from . import ardp


@dataclass(frozen=True)
class SendDatagrams:
    datagrams: tuple[bytes, ...]


@dataclass(frozen=True)
class Note:
    text: str


@dataclass(frozen=True)
class Wait:
    """Nothing more until a datagram arrives or ``seconds`` pass (then :meth:`timed_out`)."""

    seconds: float


@dataclass(frozen=True)
class Complete:
    message: bytes


Event = SendDatagrams | Note | Wait | Complete


class ARDPMachine:
    """One request/reply exchange on connection id ``cid`` (see the module's docstring)."""

    def __init__(
        self,
        cid: int,
        message: bytes,
        *,
        where: str,
        max_octets: int,
        retries: int,
        first_wait: float,
    ) -> None:
        self.cid = cid
        self.where = where
        self.retries = retries
        self.first_wait = first_wait
        self.attempt = 0
        self.request = ardp.split(cid, message)
        self.reply = ardp.Reassembler(cid, max_octets=max_octets)
        self.wait = ardp.backoff(0, first_wait)
        self.done = False
        self._events: deque[Event] = deque(
            [SendDatagrams(tuple(ardp.encode(p) for p in self.request))]
        )

    def next_event(self) -> Event:
        if self._events:
            return self._events.popleft()
        assert not self.done
        return Wait(self.wait)

    def timed_out(self, *, deadline_passed: bool = False) -> None:
        """The wait ran out: retransmit (what is still missing), or give up typed."""
        if deadline_passed or self.attempt >= self.retries:
            got = self.reply
            missing = f"; {len(got.missing())} of {got.total} packets missing" if got.total else ""
            raise ResolveTimeout(
                f"no complete reply from the Prospero server {self.where} after "
                f"{self.attempt + 1} tries{missing}",
                component="host",
            )
        self.attempt += 1
        self._events.append(
            Note(
                f"ARDP: no reply within {self.wait:g} s; retransmitting (try "
                f"{self.attempt + 1} of {self.retries + 1}, received through "
                f"{self.reply.rcvd_thru})"
            )
        )
        rcvd = self.reply.rcvd_thru
        self._events.append(
            SendDatagrams(
                tuple(ardp.encode(dataclasses.replace(p, rcvd_thru=rcvd)) for p in self.request)
            )
        )
        self.wait = ardp.backoff(self.attempt, self.first_wait)

    def datagram_received(self, datagram: bytes) -> None:
        try:
            packet = ardp.decode(datagram)
        except ProtocolError as exc:
            self._events.append(Note(f"ARDP: ignoring a malformed datagram ({exc})"))
            return
        if packet.cid != self.cid:
            return  # a late answer to an earlier request
        if packet.option == ardp.OPTION_CANCEL:
            raise ConnectError(
                f"the Prospero server {self.where} refused the request", component="host"
            )
        if packet.wait:
            self.wait = float(packet.wait)
            self._events.append(Note(f"ARDP: server asks us to wait {packet.wait} s"))
        if packet.seq == 0:
            return  # unsequenced control: a wait notice, an ack
        if packet.flags & ardp.FLAG_SEQUENCED_CONTROL:
            # it holds a place in the sequence, but no data for the application
            packet = dataclasses.replace(packet, payload=b"")
        new = self.reply.add(packet)
        # Acknowledge when asked, and on a duplicate (the server evidently missed our state).
        if packet.wants_ack or not new:
            self._events.append(
                SendDatagrams((ardp.encode(ardp.ack(self.cid, self.reply.rcvd_thru)),))
            )
        if self.reply.complete:
            self.done = True
            self._events.append(Complete(self.reply.message()))
        elif new:
            self.wait = ardp.backoff(self.attempt, self.first_wait)


__all__ = ["ARDPMachine", "Complete", "Event", "Note", "SendDatagrams", "Wait"]
