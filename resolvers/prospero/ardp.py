"""ARDP, the Asynchronous Reliable Delivery Protocol Prospero runs over UDP (pure: no sockets).

Prospero's protocol document, appendix "Asynchronous Reliable Delivery Protocol", version 0
header; every multi-octet field is big-endian::

    octet 0      version (top 2 bits, 0 here) and header length in octets (low 6 bits)
    octets 1-2   connection id          (default 0; a reply repeats the request's)
    octets 3-4   packet number          (default 1; 0 = an unsequenced control packet)
    octets 5-6   total packets          (default 0 = not known yet)
    octets 7-8   received through       (default 0)
    octets 9-10  wait, in seconds       (the server's expected time till its reply)
    octet 11     flags                  (0x80 please acknowledge, 0x40 sequenced control)
    octet 12     option                 (1 cancel / connection refused, 2 reset rcvd-through)

"The header may be truncated at any point, after which all remaining fields take on their
default values": :func:`encode` writes the shortest header that carries the packet's values
(the minimal single-packet request is ``09 <cid> 00 01 00 01 00 00``), and :func:`decode` reads
any length.  The reliability rules (retry with backoff, reassembly, acknowledgements) are pure
functions and one small state object here; the executor and the test server do the I/O.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from omniurl.resolvers.errors import LimitExceeded, ProtocolError

#: ARDP version 0: the two high bits of octet 0.
VERSION = 0
#: Octet 11, bit 7: "Please Acknowledge this Packet".
FLAG_ACK = 0x80
#: Octet 11, bit 6: a sequenced control packet, not passed to the application.
FLAG_SEQUENCED_CONTROL = 0x40
#: Octet 12 values used here.
OPTION_NONE = 0
OPTION_CANCEL = 1  # client to server: cancel; server to client: connection refused
OPTION_RESET_RCVD = 2

#: Header lengths: through received-through (9), wait (11), flags (12), option (13).
_MIN_HEADER = 9
#: A packet payload: the Prospero library keeps a whole datagram near 1250 octets.
MAX_PAYLOAD = 1024
#: The most packets one message may have (a 16-bit field; we bound it far lower).
MAX_PACKETS = 4096


@dataclass(frozen=True)
class Packet:
    """One ARDP packet.  ``seq`` 0 is an unsequenced control packet (an ack, a wait notice)."""

    cid: int
    seq: int = 1
    total: int = 1
    rcvd_thru: int = 0
    wait: int = 0
    flags: int = 0
    option: int = OPTION_NONE
    payload: bytes = b""

    @property
    def is_control(self) -> bool:
        return self.seq == 0 or bool(self.flags & FLAG_SEQUENCED_CONTROL)

    @property
    def wants_ack(self) -> bool:
        return bool(self.flags & FLAG_ACK)


def encode(packet: Packet) -> bytes:
    """The packet as one datagram, with the shortest header that carries its fields."""
    for name, value, bits in (
        ("cid", packet.cid, 16),
        ("seq", packet.seq, 16),
        ("total", packet.total, 16),
        ("rcvd_thru", packet.rcvd_thru, 16),
        ("wait", packet.wait, 16),
        ("flags", packet.flags, 8),
        ("option", packet.option, 8),
    ):
        if not 0 <= value < (1 << bits):
            raise ValueError(f"ARDP {name} {value} does not fit in {bits} bits")
    length = _MIN_HEADER
    if packet.option:
        length = 13
    elif packet.flags:
        length = 12
    elif packet.wait:
        length = 11
    header = struct.pack(
        ">BHHHHHBB",
        (VERSION << 6) | length,
        packet.cid,
        packet.seq,
        packet.total,
        packet.rcvd_thru,
        packet.wait,
        packet.flags,
        packet.option,
    )[:length]
    return header + packet.payload


def decode(datagram: bytes) -> Packet:
    """Read one datagram; missing trailing header fields take their defaults."""
    if not datagram:
        raise ProtocolError("empty ARDP datagram")
    version, length = datagram[0] >> 6, datagram[0] & 0x3F
    if version != VERSION:
        raise ProtocolError(f"ARDP version {version} packet; only version 0 is spoken")
    if length < 1 or length > len(datagram):
        raise ProtocolError(
            f"ARDP header length {length} does not fit a {len(datagram)}-octet datagram"
        )
    head = datagram[1:length] + bytes(12)  # pad: absent fields read as 0, fixed below

    def field(offset: int) -> int:
        return int.from_bytes(head[offset - 1 : offset + 1], "big")

    seq = field(3) if length >= 5 else 1
    total = field(5) if length >= 7 else 0
    if total == 0 and length < 5:
        total = 1  # "If the packet number was also not specified, then it defaults to 1."
    return Packet(
        cid=field(1) if length >= 3 else 0,
        seq=seq,
        total=total,
        rcvd_thru=field(7) if length >= 9 else 0,
        wait=field(9) if length >= 11 else 0,
        flags=head[10] if length >= 12 else 0,
        option=head[11] if length >= 13 else OPTION_NONE,
        payload=datagram[length:],
    )


def split(
    cid: int, message: bytes, *, max_payload: int = MAX_PAYLOAD, ack_last: bool = False
) -> list[Packet]:
    """Cut a message into numbered packets (one packet, payload possibly empty, at least).

    ``ack_last`` sets "please acknowledge" on the last packet of a multi-packet message, as
    the Prospero server does, so the sender learns when it may forget the message.
    """
    if max_payload < 1:
        raise ValueError("max_payload must be positive")
    chunks = [message[i : i + max_payload] for i in range(0, len(message), max_payload)] or [b""]
    if len(chunks) > MAX_PACKETS:
        raise LimitExceeded(
            f"message of {len(message)} octets needs more than {MAX_PACKETS} packets"
        )
    total = len(chunks)
    return [
        Packet(
            cid=cid,
            seq=n,
            total=total,
            flags=FLAG_ACK if ack_last and total > 1 and n == total else 0,
            payload=chunk,
        )
        for n, chunk in enumerate(chunks, start=1)
    ]


def ack(cid: int, rcvd_thru: int) -> Packet:
    """An unsequenced control packet saying "I have every packet through ``rcvd_thru``"."""
    return Packet(cid=cid, seq=0, total=0, rcvd_thru=rcvd_thru)


class Reassembler:
    """Collects the packets of one message, in any order, duplicates ignored, bounded.

    ``rcvd_thru`` is the ARDP "received through" count: every packet up to it has arrived.
    """

    def __init__(self, cid: int, *, max_octets: int) -> None:
        self.cid = cid
        self.max_octets = max_octets
        self.total = 0
        self._parts: dict[int, bytes] = {}
        self._octets = 0

    def add(self, packet: Packet) -> bool:
        """Take one sequenced packet; return True when it was new."""
        if packet.cid != self.cid:
            raise ProtocolError(f"ARDP packet for connection {packet.cid}, not {self.cid}")
        if packet.total:
            if self.total and packet.total != self.total:
                raise ProtocolError(
                    f"ARDP total packets changed from {self.total} to {packet.total}"
                )
            if packet.total > MAX_PACKETS:
                raise LimitExceeded(f"ARDP message of {packet.total} packets is too long")
            self.total = packet.total
        if packet.seq < 1 or (self.total and packet.seq > self.total):
            raise ProtocolError(f"ARDP packet {packet.seq} of {self.total or '?'}")
        if packet.seq in self._parts:
            return False
        self._octets += len(packet.payload)
        if self._octets > self.max_octets:
            raise LimitExceeded(f"ARDP message longer than {self.max_octets} octets")
        self._parts[packet.seq] = packet.payload
        return True

    @property
    def rcvd_thru(self) -> int:
        n = 0
        while n + 1 in self._parts:
            n += 1
        return n

    @property
    def complete(self) -> bool:
        return bool(self.total) and self.rcvd_thru == self.total

    def missing(self) -> list[int]:
        return [n for n in range(1, self.total + 1) if n not in self._parts]

    def message(self) -> bytes:
        if not self.complete:
            raise ProtocolError(f"ARDP message incomplete: packets {self.missing()} missing")
        return b"".join(self._parts[n] for n in range(1, self.total + 1))


def backoff(attempt: int, first: float, *, factor: float = 2.0, cap: float = 8.0) -> float:
    """The wait before retry ``attempt`` (0-based): ``first`` doubled each time, capped."""
    return min(first * factor**attempt, cap)
