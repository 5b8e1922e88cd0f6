"""ARDP packet codec: exact header bytes, truncated headers, splitting and reassembly."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from omniurl.resolvers.errors import LimitExceeded, ProtocolError
from omniurl.resolvers.prospero import ardp


def test_minimal_single_packet_request_header() -> None:
    # the ARDP version-0 header (docs/prospero.md): `09 <cid:2> 00 01 00 01 00 00`
    data = ardp.encode(ardp.Packet(cid=0x1234, payload=b"VERSION 5\n"))
    assert data == bytes.fromhex("09 1234 0001 0001 0000") + b"VERSION 5\n"


def test_header_grows_only_as_far_as_needed() -> None:
    assert ardp.encode(ardp.Packet(cid=1, wait=30))[:11] == bytes.fromhex(
        "0b 0001 0001 0001 0000 001e"
    )
    assert ardp.encode(ardp.Packet(cid=1, seq=3, total=3, flags=ardp.FLAG_ACK)) == bytes.fromhex(
        "0c 0001 0003 0003 0000 0000 80"
    )
    assert ardp.encode(ardp.Packet(cid=7, option=ardp.OPTION_CANCEL)) == bytes.fromhex(
        "0d 0007 0001 0001 0000 0000 00 01"
    )


def test_ack_is_an_unsequenced_control_packet() -> None:
    data = ardp.encode(ardp.ack(0xBEEF, 2))
    assert data == bytes.fromhex("09 beef 0000 0000 0002")
    packet = ardp.decode(data)
    assert packet.is_control and packet.rcvd_thru == 2 and packet.payload == b""


def test_decode_round_trip_and_payload() -> None:
    p = ardp.Packet(cid=65535, seq=2, total=3, rcvd_thru=1, wait=5, flags=0x80, option=2,
                    payload=b"x" * 10)  # fmt: skip
    assert ardp.decode(ardp.encode(p)) == p


def test_decode_truncated_header_defaults() -> None:
    # Header of one octet: cid 0, packet 1 of 1, everything else default.
    p = ardp.decode(b"\x01hello")
    assert (p.cid, p.seq, p.total, p.rcvd_thru, p.payload) == (0, 1, 1, 0, b"hello")
    # Through the packet number only: total is "not known" (0).
    p = ardp.decode(bytes.fromhex("05 0009 0002") + b"z")
    assert (p.cid, p.seq, p.total, p.payload) == (9, 2, 0, b"z")


@pytest.mark.parametrize(
    "datagram",
    [b"", b"\x49" + bytes(8), b"\x20\x00"],  # empty, version 1, header longer than datagram
)
def test_decode_refuses_malformed(datagram: bytes) -> None:
    with pytest.raises(ProtocolError):
        ardp.decode(datagram)


def test_encode_refuses_out_of_range() -> None:
    with pytest.raises(ValueError):
        ardp.encode(ardp.Packet(cid=70000))


def test_split_and_reassemble_out_of_order_with_duplicates() -> None:
    message = bytes(range(256)) * 10
    packets = ardp.split(42, message, max_payload=1000, ack_last=True)
    assert [(p.seq, p.total, p.flags) for p in packets] == [(1, 3, 0), (2, 3, 0), (3, 3, 0x80)]
    r = ardp.Reassembler(42, max_octets=1 << 20)
    assert r.add(packets[2]) and r.rcvd_thru == 0 and r.missing() == [1, 2]
    assert r.add(packets[0]) and r.rcvd_thru == 1
    assert not r.add(packets[0])  # a duplicate is ignored
    assert not r.complete
    with pytest.raises(ProtocolError):
        r.message()
    r.add(packets[1])
    assert r.complete and r.rcvd_thru == 3 and r.message() == message


def test_single_packet_message_never_asks_for_ack() -> None:
    (p,) = ardp.split(1, b"short", ack_last=True)
    assert (p.seq, p.total, p.flags) == (1, 1, 0)


def test_reassembler_bounds_and_consistency() -> None:
    r = ardp.Reassembler(1, max_octets=5)
    with pytest.raises(LimitExceeded):
        r.add(ardp.Packet(cid=1, seq=1, total=1, payload=b"123456"))
    r = ardp.Reassembler(1, max_octets=100)
    r.add(ardp.Packet(cid=1, seq=1, total=2))
    with pytest.raises(ProtocolError, match="total packets changed"):
        r.add(ardp.Packet(cid=1, seq=2, total=3))
    with pytest.raises(ProtocolError):
        r.add(ardp.Packet(cid=1, seq=5, total=2))
    with pytest.raises(ProtocolError):
        r.add(ardp.Packet(cid=2, seq=1, total=2))


def test_backoff_doubles_and_caps() -> None:
    assert [ardp.backoff(n, 0.5) for n in range(6)] == [0.5, 1.0, 2.0, 4.0, 8.0, 8.0]


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=64))
def test_decode_any_datagram_is_a_packet_or_a_protocol_error(data: bytes) -> None:
    try:
        packet = ardp.decode(data)
    except ProtocolError:
        return
    assert ardp.decode(ardp.encode(packet)) == packet  # canonical re-encoding reads back


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_parse_reply_of_any_bytes_is_a_reply_or_a_protocol_error(data: bytes) -> None:
    from omniurl.resolvers.prospero import protocol

    with contextlib.suppress(ProtocolError):  # LimitExceeded is a ProtocolError too
        protocol.parse_reply(data, max_line=100)
