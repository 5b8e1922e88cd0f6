"""The telnet protocol as a pure machine (resolvers/telnet/nvt.py): commands taken out of the
data across any chunk boundary, negotiations answered, never in a loop — bytes only."""

from __future__ import annotations

import pytest

from omniurl.resolvers.telnet.nvt import (
    DO,
    DONT,
    ECHO,
    IAC,
    NAWS,
    SB,
    SE,
    SGA,
    TTYPE,
    WILL,
    WONT,
    Data,
    NVTMachine,
    Reply,
)

BINARY, NEW_ENVIRON = 0, 39


def feed(m: NVTMachine, *chunks: bytes) -> tuple[bytes, bytes]:
    """The data and the replies the chunks give."""
    data, replies = bytearray(), bytearray()
    for chunk in chunks:
        m.receive_data(chunk)
        while (event := m.next_event()) is not None:
            if isinstance(event, Data):
                data += event.data
            else:
                assert isinstance(event, Reply)
                replies += event.data
    return bytes(data), bytes(replies)


def test_data_passes_and_a_doubled_iac_is_one_data_octet() -> None:
    assert feed(NVTMachine(), b"login: ", bytes([IAC, IAC]) + b"x") == (b"login: \xffx", b"")
    assert NVTMachine.encode(b"a\xffb") == b"a\xff\xffb"


@pytest.mark.parametrize("split", [1, 2, 100])
def test_a_telnetd_greeting_is_negotiated_however_it_is_cut(split: int) -> None:
    greeting = (
        bytes(
            [IAC, DO, TTYPE, IAC, DO, NEW_ENVIRON, IAC, WILL, ECHO, IAC, WILL, SGA, IAC, DO, BINARY]
        )
        + b"Debian login: "
    )
    chunks = [greeting[i : i + split] for i in range(0, len(greeting), split)]
    data, replies = feed(NVTMachine(term="xterm"), *chunks)
    assert data == b"Debian login: "
    assert replies == bytes(
        [IAC, WILL, TTYPE, IAC, WONT, NEW_ENVIRON, IAC, DO, ECHO, IAC, DO, SGA, IAC, WONT, BINARY]
    )


def test_terminal_type_and_window_size_when_asked() -> None:
    m = NVTMachine(term="xterm", cols=132, rows=255)
    _, replies = feed(m, bytes([IAC, DO, TTYPE, IAC, SB, TTYPE, 1, IAC, SE]))
    assert replies == bytes([IAC, WILL, TTYPE, IAC, SB, TTYPE, 0]) + b"xterm" + bytes([IAC, SE])
    _, replies = feed(m, bytes([IAC, DO, NAWS]))
    # 255 rows: the IAC inside the size is doubled (RFC 1073)
    assert replies == bytes([IAC, WILL, NAWS, IAC, SB, NAWS, 0, 132, 0, IAC, IAC, IAC, SE])


def test_no_answer_to_a_request_for_the_state_already_in() -> None:
    m = NVTMachine()
    assert feed(m, bytes([IAC, WILL, ECHO]))[1] == bytes([IAC, DO, ECHO])
    assert feed(m, bytes([IAC, WILL, ECHO]))[1] == b""  # already on: no loop
    assert feed(m, bytes([IAC, WONT, ECHO]))[1] == bytes([IAC, DONT, ECHO])
    assert feed(m, bytes([IAC, WONT, ECHO]))[1] == b""
    assert feed(m, bytes([IAC, DONT, SGA]))[1] == b""  # never on


def test_binary_is_refused_both_ways_and_signals_are_dropped() -> None:
    data, replies = feed(NVTMachine(), bytes([IAC, WILL, BINARY, IAC, 241, IAC, 249]) + b"ok")
    assert (data, replies) == (b"ok", bytes([IAC, DONT, BINARY]))
