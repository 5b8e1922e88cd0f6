"""A Gopher reply as a pure machine (resolvers/gopher/machine.py): bytes in, events out, no
socket — every way RFC 1436 and Gopher+ replies are read, and every way they go wrong."""

from __future__ import annotations

import pytest

from omniurl import resolvers
from omniurl.resolvers.errors import ConnectionClosed, LimitExceeded, NotFound, ProtocolError
from omniurl.resolvers.gopher.machine import (
    NEED_DATA,
    UNTIL_CLOSE,
    Data,
    EndOfReply,
    GopherMachine,
    MenuLine,
    PlusError,
    StatusLine,
)
from omniurl.resolvers.gopher.planner import GopherDetails


def machine(url: str, **kwargs: object) -> GopherMachine:
    details = resolvers.plan(url).details_as(GopherDetails)
    return GopherMachine(details, **kwargs)  # type: ignore[arg-type]


def events(m: GopherMachine, *chunks: bytes) -> list[object]:
    """Feed the chunks (then the end of stream) and collect every event."""
    out: list[object] = []
    for chunk in [*chunks, b""]:
        m.receive_data(chunk)
        while (event := m.next_event()) is not NEED_DATA:
            out.append(event)
    return out


MENU = b"0Hello\t/hello.txt\th\t70\r\n1Docs\t/docs\th\t70\r\n.\r\n"


@pytest.mark.parametrize("split", [1, 7, len(MENU)])
def test_a_menu_is_cut_into_lines_however_the_bytes_arrive(split: int) -> None:
    chunks = [MENU[i : i + split] for i in range(0, len(MENU), split)]
    assert events(machine("gopher://h/1/"), *chunks) == [
        MenuLine(b"0Hello\t/hello.txt\th\t70"),
        MenuLine(b"1Docs\t/docs\th\t70"),
        EndOfReply(),
    ]


def test_a_menu_closed_without_its_dot_line_is_accepted() -> None:
    got = events(machine("gopher://h/1/"), b"0A\t/a\th\t70\r\n0B\t/b\th\t70")
    assert got == [MenuLine(b"0A\t/a\th\t70"), MenuLine(b"0B\t/b\th\t70"), EndOfReply()]


def test_an_error_item_first_is_not_found_whatever_was_asked() -> None:
    for url in ("gopher://h/1/", "gopher://h/0/x.txt", "gopher://h/9/x.bin"):
        with pytest.raises(NotFound, match="the server says: No such file") as info:
            events(machine(url), b"3No such file\t\terror.host\t1\r\n.\r\n")
        assert info.value.component == "selector"


def test_text_is_dot_unstuffed_and_raw_text_is_not() -> None:
    text = b"line\r\n..dot\r\n.\r\n"
    got = events(machine("gopher://h/0/t"), text)
    assert b"".join(e.data for e in got if isinstance(e, Data)) == b"line\r\n.dot\r\n"
    assert got[-1] == EndOfReply()
    raw = events(machine("gopher://h/0/t", raw=True), text)
    assert b"".join(e.data for e in raw if isinstance(e, Data)) == text


def text_of(url: str, *chunks: bytes) -> bytes:
    got = events(machine(url), *chunks)
    assert got[-1] == EndOfReply()
    return b"".join(e.data for e in got if isinstance(e, Data))


@pytest.mark.parametrize("split", [1, 2, 5, 1000])
def test_text_a_server_did_not_dot_stuff_is_kept_whole(split: int) -> None:
    """gophernicus and pygopherd send a text file as it is and close: a lone "." line
    inside it, or "..x", is the file's, not RFC 1436's framing (curl, lynx -source agree)."""
    for wire in (b"dot\r\n.\r\n..x\r\nend\r\n", b"..x\nend\n", b"a\n.\nb", b".\n.\n"):
        chunks = [wire[i : i + split] for i in range(0, len(wire), split)]
        assert text_of("gopher://h/0/t", *chunks) == wire
    # RFC 1436's framing (the "." line, then the close) is still undone:
    framed = b"dot\r\n..\r\n...x\r\nend\r\n.\r\n"
    chunks = [framed[i : i + split] for i in range(0, len(framed), split)]
    assert text_of("gopher://h/0/t", *chunks) == b"dot\r\n.\r\n..x\r\nend\r\n"


def test_text_framed_by_a_server_that_keeps_the_connection_open_ends_on_its_silence() -> None:
    """RFC 1436 §2 has the server close after the "." line; one that waits for the client's
    close instead gives the executor quiet_after() seconds of silence to end the text on."""
    from omniurl.resolvers.gopher.text import QUIET

    m = machine("gopher://h/0/t")
    m.receive_data(b"a\r\n..b\r\n")
    assert [m.next_event(), m.next_event()] == [Data(b"a\r\n"), NEED_DATA]
    assert m.quiet_after() is None  # (no lone "." line yet: wait as usual)
    m.receive_data(b".\r\n")
    assert m.next_event() is NEED_DATA
    assert m.quiet_after() == QUIET
    m.quiet()
    assert [m.next_event(), m.next_event()] == [Data(b".b\r\n"), EndOfReply()]
    # bytes after the "." line: not framed, no silence ends it, the close does
    m = machine("gopher://h/0/t")
    m.receive_data(b"a\n.\nb\n")
    assert m.next_event() == Data(b"a\n.\nb\n")  # (released at once: unframed)
    assert m.next_event() is NEED_DATA and m.quiet_after() is None
    # a menu, raw text and binary items never ask for it
    for url, raw in (
        ("gopher://h/1/m", False),
        ("gopher://h/0/t", True),
        ("gopher://h/9/b", False),
    ):
        m = machine(url, raw=raw)
        m.receive_data(b"a\r\n.\r\n" if url.endswith("/t") else b"x")
        while m.next_event() is not NEED_DATA:
            pass
        assert m.quiet_after() is None


def test_text_held_past_the_bound_and_then_framed_fails_loudly() -> None:
    from omniurl.resolvers.gopher import text

    decoder = text.TextItemDecoder(hold=10)
    out = decoder.feed(b"a\n..b\n" + b"x" * 20 + b"\n")
    assert out == b"a\n..b\n" + b"x" * 20 + b"\n"  # (taken as unframed past the bound)
    decoder.feed(b".\r\n")
    with pytest.raises(ProtocolError, match="whether the server dot-stuffed") as info:
        decoder.close()
    assert info.value.component == "selector"


def test_binary_chunks_pass_through_as_they_came() -> None:
    m = machine("gopher://h/9/x.bin")
    first, second = b"\x00" * 100, b"3 not an error line once the item began\n"
    got = events(m, first, second)
    assert got == [Data(first), Data(second), EndOfReply()]
    assert got[1].data is second  # type: ignore[attr-defined]  (no copy)


def test_gopher_plus_counted_data_stops_at_its_length() -> None:
    m = machine("gopher://h/9/x.bin%09%09+")
    got = events(m, b"+5\r\nhello", b" and more")
    assert isinstance(got[0], StatusLine) and got[0].text == "+5"
    assert got[1:] == [Data(b"hello"), EndOfReply()]
    with pytest.raises(ConnectionClosed, match="3 bytes of the Gopher\\+ data still to come"):
        events(machine("gopher://h/9/x.bin%09%09+"), b"+5\r\nhe")


def test_gopher_plus_dot_terminated_and_until_close() -> None:
    got = events(machine("gopher://h/0/t%09%09+"), b"+-1\r\na\r\n..b\r\n.\r\n")
    assert got[1:] == [Data(b"a\r\n.b\r\n"), EndOfReply()]
    got = events(machine("gopher://h/9/x%09%09+"), b"+-2\r\nabc", b"def")
    assert got[1:] == [Data(b"abc"), Data(b"def"), EndOfReply()]
    menu = events(machine("gopher://h/1/%09%09+"), b"+-1\r\n", MENU)
    lines = [e for e in menu if isinstance(e, MenuLine)]
    assert lines[:1] == [MenuLine(b"0Hello\t/hello.txt\th\t70")]


def test_gopher_plus_length_minus_one_closed_before_its_dot_is_cut() -> None:
    for url in ("gopher://h/0/t%09%09+", "gopher://h/9/x%09%09+", "gopher://h/1/%09%09+"):
        with pytest.raises(ConnectionClosed, match=r"before the '\.' line"):
            events(machine(url), b"+-1\r\n0a\tb\th\t70\r\n")
    # (RFC 1436 without Gopher+: a close before "." is accepted, as servers send it)
    got = events(machine("gopher://h/0/t"), b"a\r\n")
    assert got == [Data(b"a\r\n"), EndOfReply()]


def test_gopher_plus_errors_come_with_their_text() -> None:
    got = events(machine("gopher://h/0/t%09%09+"), b"-1\r\nadmin <a@h>\r\nNo such item\r\n.\r\n")
    assert got[0] == StatusLine(got[0].status, "-1")  # type: ignore[attr-defined]
    error = got[1]
    assert isinstance(error, PlusError) and error.status.code == 1
    assert error.text == b"admin <a@h>\r\nNo such item\r\n"


def test_not_gopher_plus_is_a_protocol_error_or_not_found() -> None:
    with pytest.raises(ProtocolError, match="not a Gopher\\+ reply"):
        events(machine("gopher://h/0/t%09%09+"), b"HTTP/1.0 200 OK\r\n")
    with pytest.raises(NotFound):
        events(machine("gopher://h/0/t%09%09+"), b"3 gone\t\terror.host\t1\r\n")
    with pytest.raises(ConnectionClosed, match="while waiting for the Gopher\\+ status line"):
        events(machine("gopher://h/0/t%09%09+"))


def test_lines_are_bounded() -> None:
    with pytest.raises(LimitExceeded, match="menu line 2 is longer than 20 bytes"):
        events(machine("gopher://h/1/", max_line=20), b"0a\t/a\th\t70\r\n" + b"x" * 30)
    with pytest.raises(LimitExceeded, match="status line: line longer than 20 bytes"):
        events(machine("gopher://h/0/t%09%09+", max_line=20), b"+" + b"1" * 30)


# -- the bulk path: content read past the machine, which only counts ------------------------


def test_binary_content_may_bypass_the_machine_until_the_close() -> None:
    m = machine("gopher://h/9/x.bin")
    assert m.raw_wanted() == 0  # (the first bytes are sniffed for a type-3 error line)
    m.receive_data(b"\x00\x01")
    assert m.next_event() == Data(b"\x00\x01")
    assert m.next_event() is NEED_DATA
    assert m.raw_wanted() == UNTIL_CLOSE
    m.raw_received(1 << 20)
    assert m.raw_wanted() == UNTIL_CLOSE and m.next_event() is NEED_DATA
    m.raw_received(0)  # the server's close: the end of the content
    assert m.raw_wanted() == 0
    assert m.next_event() == EndOfReply()


def test_a_gopher_plus_length_lets_past_exactly_what_remains() -> None:
    m = machine("gopher://h/9/x.bin%09%09+")
    m.receive_data(b"+10\r\nabc")
    assert isinstance(m.next_event(), StatusLine)
    assert m.next_event() == Data(b"abc")
    assert m.next_event() is NEED_DATA
    assert m.raw_wanted() == 7
    m.raw_received(4)
    assert m.raw_wanted() == 3
    m.raw_received(3)
    assert m.raw_wanted() == 0
    assert m.next_event() == EndOfReply()


def test_a_gopher_plus_length_cut_short_past_the_machine_is_connection_closed() -> None:
    m = machine("gopher://h/9/x.bin%09%09+")
    m.receive_data(b"+10\r\nabc")
    assert [m.next_event(), m.next_event()][1] == Data(b"abc")
    m.raw_received(2)
    m.raw_received(0)
    with pytest.raises(ConnectionClosed, match="5 bytes of the Gopher"):
        m.next_event()


@pytest.mark.parametrize("url", ["gopher://h/1/", "gopher://h/0/x.txt"])
def test_menus_and_text_never_bypass_the_machine(url: str) -> None:
    """A menu is cut into lines, text is dot-unstuffed: every byte goes through."""
    m = machine(url)
    m.receive_data(b"iabc\r\n")
    while m.next_event() is not NEED_DATA:
        pass
    assert m.raw_wanted() == 0


def test_buffered_bytes_go_out_before_any_bypass() -> None:
    m = machine("gopher://h/9/x.bin")
    m.receive_data(b"3")  # (could be an error line: held until its line ends)
    assert m.next_event() is NEED_DATA
    assert m.raw_wanted() == 0
    m.receive_data(b"x\n")  # (a line without tabs: content, not an error item)
    assert m.raw_wanted() == 0  # (buffered, not yet handed out)
    assert m.next_event() == Data(b"3x\n")
    assert m.raw_wanted() == UNTIL_CLOSE
