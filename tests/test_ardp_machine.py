"""One ARDP exchange as a pure machine (resolvers/prospero/machine.py): datagrams and
timeouts in, datagrams, waits and the reply out — no socket, no clock."""

from __future__ import annotations

import pytest

from omniurl.resolvers.errors import ConnectError, ResolveTimeout
from omniurl.resolvers.prospero import ardp
from omniurl.resolvers.prospero.machine import (
    ARDPMachine,
    Complete,
    Note,
    SendDatagrams,
    Wait,
)


def machine(**kwargs: object) -> ARDPMachine:
    args: dict[str, object] = {"where": "h:1525", "max_octets": 1 << 20, "retries": 2}
    args.update(first_wait=0.5, **kwargs)
    return ARDPMachine(77, b"VERSION 5\n", **args)  # type: ignore[arg-type]


def drain(m: ARDPMachine) -> list[object]:
    out = []
    while not isinstance(event := m.next_event(), Wait):
        out.append(event)
        if isinstance(event, Complete):
            return out
    out.append(event)
    return out


def reply(seq: int, total: int, payload: bytes, **fields: int) -> bytes:
    return ardp.encode(ardp.Packet(cid=77, seq=seq, total=total, payload=payload, **fields))


def test_the_request_goes_out_then_the_machine_waits() -> None:
    m = machine()
    assert drain(m) == [
        SendDatagrams((ardp.encode(ardp.Packet(cid=77, payload=b"VERSION 5\n")),)),
        Wait(0.5),
    ]


def test_a_reply_in_any_order_is_reassembled_and_acknowledged_when_asked() -> None:
    m = machine()
    drain(m)
    m.datagram_received(reply(2, 2, b"world\n", flags=ardp.FLAG_ACK))
    assert drain(m) == [SendDatagrams((ardp.encode(ardp.ack(77, 0)),)), Wait(0.5)]
    m.datagram_received(reply(1, 2, b"hello "))
    assert drain(m) == [Complete(b"hello world\n")]


def test_silence_retransmits_with_backoff_and_received_through_then_times_out() -> None:
    m = machine()
    drain(m)
    m.datagram_received(reply(1, 3, b"a"))
    assert drain(m)[-1] == Wait(0.5)
    m.timed_out()
    note, resend, wait = drain(m)
    assert isinstance(note, Note) and "try 2 of 3, received through 1" in note.text
    assert isinstance(resend, SendDatagrams)
    assert ardp.decode(resend.datagrams[0]).rcvd_thru == 1
    assert wait == Wait(1.0)
    m.timed_out()
    assert drain(m)[-1] == Wait(2.0)
    with pytest.raises(ResolveTimeout, match="after 3 tries; 2 of 3 packets missing"):
        m.timed_out()


def test_the_server_may_ask_us_to_wait_or_cancel() -> None:
    m = machine()
    drain(m)
    m.datagram_received(ardp.encode(ardp.Packet(cid=77, seq=0, total=0, wait=30)))
    assert drain(m) == [Note("ARDP: server asks us to wait 30 s"), Wait(30.0)]
    m.datagram_received(b"\x00")  # malformed: noted, ignored
    assert isinstance(drain(m)[0], Note)
    m.datagram_received(ardp.encode(ardp.Packet(cid=5, payload=b"another exchange")))
    assert drain(m) == [Wait(30.0)]  # (another connection id: ignored)
    with pytest.raises(ConnectError, match="refused the request"):
        m.datagram_received(ardp.encode(ardp.Packet(cid=77, option=ardp.OPTION_CANCEL)))


def test_a_duplicate_is_acknowledged_again() -> None:
    m = machine()
    drain(m)
    m.datagram_received(reply(1, 2, b"a"))
    drain(m)
    m.datagram_received(reply(1, 2, b"a"))
    assert drain(m)[0] == SendDatagrams((ardp.encode(ardp.ack(77, 1)),))
