"""The pure Gopher codecs: menu lines, entry URLs, dot-terminated text, Gopher+ pieces."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from omniurl import schemes
from omniurl.resolvers.errors import LimitExceeded
from omniurl.resolvers.gopher.gopherplus import (
    AskField,
    View,
    answer_lines,
    form_string,
    parse_ask,
    parse_attributes,
    parse_request,
    parse_status,
    parse_views,
    split_form_block,
)
from omniurl.resolvers.gopher.menu import (
    format_menu_line,
    gopher_url,
    item_url,
    parse_menu_line,
    to_entry,
)
from omniurl.resolvers.gopher.text import DotTextDecoder
from omniurl.resolvers.lines import dot_stuff

# -- menus ----------------------------------------------------------------------------------


def test_menu_line_fields_and_own_url() -> None:
    item = parse_menu_line(b"0About this server\t/about.txt\tgopher.example.org\t7070")
    assert (item.gtype, item.display, item.selector) == ("0", "About this server", b"/about.txt")
    assert (item.host, item.port, item.gopher_plus, item.malformed) == (
        "gopher.example.org",
        7070,
        None,
        False,
    )
    entry = to_entry(item)
    assert entry.kind == "file"
    assert entry.url == "gopher://gopher.example.org:7070/0/about.txt"
    assert entry.info["type"] == "0"


def test_default_port_is_left_out_and_gopher_plus_tag_kept() -> None:
    item = parse_menu_line(b"1Docs\t/docs\thost\t70\t+")
    assert item.gopher_plus == "+"
    assert item_url(item) == "gopher://host/1/docs"


def test_ask_item_links_to_the_question_mark_url() -> None:
    # RFC 1738 §3.4.4: "?" marks an item with a +ASK form.
    item = parse_menu_line(b"0Survey\t/form\thost\t70\t?")
    assert item_url(item) == "gopher://host/0/form%09%09?"


def test_info_and_error_lines_have_no_url() -> None:
    info = to_entry(parse_menu_line(b"iWelcome!\t\terror.host\t1"))
    assert (info.kind, info.name, info.url) == ("info", "Welcome!", None)
    err = to_entry(parse_menu_line(b"3Oops\t\terror.host\t1"))
    assert (err.kind, err.url) == ("error", None)


def test_telnet_and_web_link_items() -> None:
    assert item_url(parse_menu_line(b"8Login\tguest\tbbs.example\t23")) == (
        "telnet://guest@bbs.example:23/"
    )
    assert item_url(parse_menu_line(b"hWeb\tURL:http://example.org/\thost\t70")) == (
        "http://example.org/"
    )


def test_malformed_line_is_kept_not_fatal() -> None:
    item = parse_menu_line(b"0Broken line without tabs")
    assert item.malformed and item_url(item) is None
    bad_port = parse_menu_line(b"0x\t/x\thost\tseventy")
    assert bad_port.malformed and bad_port.port is None


@pytest.mark.parametrize(
    "selector",
    [
        b"/plain",
        b"",
        b"/with space",
        b"/q?x=1#frag",
        b"/pct%41",
        b"/\xff\xfe raw",
        b"11dup",
        b"/~me",
    ],
)
def test_entry_url_round_trips_to_the_same_selector_octets(selector: bytes) -> None:
    url = schemes.parse(gopher_url("h", 7070, "0", selector))
    assert url.selector.encode("utf-8", "surrogateescape") == selector  # type: ignore[attr-defined]
    assert url.gtype == "0"  # type: ignore[attr-defined]
    assert url.port == 7070  # type: ignore[attr-defined]


def test_format_is_the_inverse_of_parse() -> None:
    line = format_menu_line("1", "Docs", b"/docs", "::1", 7070, "+")
    assert line == b"1Docs\t/docs\t::1\t7070\t+"
    item = parse_menu_line(line)
    assert item_url(item) == "gopher://[::1]:7070/1/docs"


# -- dot-terminated text --------------------------------------------------------------------


def _decode(data: bytes, cuts: list[int]) -> tuple[bytes, bool, bytes]:
    decoder = DotTextDecoder()
    out = b""
    start = 0
    for cut in sorted(cuts):
        out += decoder.feed(data[start:cut])
        start = cut
    out += decoder.feed(data[start:])
    if not decoder.done:
        out += decoder.close()
    return out, decoder.done, decoder.trailing


def test_text_unstuffs_and_stops_at_the_lone_dot() -> None:
    data = b"one\r\n..leading dot\r\n.\r\nAFTER"
    assert _decode(data, []) == (b"one\r\n.leading dot\r\n", True, b"AFTER")


def test_text_closed_without_the_dot_line_is_accepted() -> None:
    assert _decode(b"one\r\ntwo", []) == (b"one\r\ntwo", False, b"")


@given(
    st.lists(st.binary(max_size=20).map(lambda b: b.replace(b"\n", b"").replace(b"\r", b""))),
    st.lists(st.integers(min_value=0, max_value=400), max_size=8),
)
def test_text_stuffing_round_trips_at_any_chunking(lines: list[bytes], cuts: list[int]) -> None:
    framed = dot_stuff(lines)
    out, done, trailing = _decode(framed, cuts)
    assert done and trailing == b""
    assert out == b"".join(line + b"\r\n" for line in lines)


def test_text_line_starting_with_dot_is_bounded() -> None:
    decoder = DotTextDecoder(max_line=10)
    with pytest.raises(LimitExceeded):
        decoder.feed(b"ok\n." + b"x" * 20)


# -- Gopher+ --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "ok", "length", "code"),
    [
        (b"+1234", True, 1234, 0),
        (b"+-1", True, -1, 0),
        (b"+-2", True, -2, 0),
        (b"--1", False, -2, 1),
        (b"--3", False, -2, 3),
    ],
)
def test_status_lines(line: bytes, ok: bool, length: int, code: int) -> None:
    status = parse_status(line)
    assert status is not None
    assert (status.ok, status.length, status.code) == (ok, length, code)


@pytest.mark.parametrize("line", [b"", b"iHello\t\th\t1", b"+abc", b"+-3", b"0text"])
def test_not_a_status_line(line: bytes) -> None:
    assert parse_status(line) is None


def test_attribute_blocks_split_per_item_at_info() -> None:
    text = (
        b"+INFO: 0About\t/about\thost\t70\t+\r\n"
        b"+ADMIN:\r\n Admin: Me <me@host>\r\n Mod-Date: <19930101000000>\r\n"
        b"+ABSTRACT:\r\n Line one\r\n Line two\r\n"
        b"+INFO: 1Docs\t/docs\thost\t70\t+\r\n+VIEWS:\r\n text/plain En_US: <1k>\r\n"
    )
    items = parse_attributes(text)
    assert [i.info for i in items] == ["0About\t/about\thost\t70\t+", "1Docs\t/docs\thost\t70\t+"]
    assert items[0].blocks["+ABSTRACT"] == "Line one\nLine two"
    assert items[0].blocks["+ADMIN"] == "Admin: Me <me@host>\nMod-Date: <19930101000000>"
    assert items[1].blocks["+VIEWS"] == "text/plain En_US: <1k>"


def test_ask_block_fields() -> None:
    block = (
        "Note: Hello\nAsk: Name?\tnobody\nAskP: Secret?\nChoose: Colour?\tred\tblue\nSelect: News:1"
    )
    fields = parse_ask(block)
    assert fields == [
        AskField("Note", "Hello"),
        AskField("Ask", "Name?", "nobody"),
        AskField("AskP", "Secret?"),
        AskField("Choose", "Colour?", "red", ("red", "blue")),
        AskField("Select", "News", "1"),
    ]
    assert [f.answered for f in fields] == [False, True, True, True, True]
    assert fields[2].secret


def test_answer_lines() -> None:
    assert answer_lines(AskField("AskL", "Text"), "a\nb") == ["2", "a", "b"]
    assert answer_lines(AskField("Select", "News"), "yes") == ["1"]
    assert answer_lines(AskField("Ask", "Name"), "a\r\nb") == ["a  b"]
    assert answer_lines(AskField("Note", "Hi"), "x") == []


def test_form_string_is_rfc1738_3_4_9() -> None:
    # "+%091%0D%0A+-1%0D%0A<ask_item1_value>%0D%0A<ask_item2_value>%0D%0A.%0D%0A"
    assert form_string(["v1", "v2"]) == "+\t1\r\n+-1\r\nv1\r\nv2\r\n.\r\n"
    assert form_string([".hidden"]) == "+\t1\r\n+-1\r\n..hidden\r\n.\r\n"


def test_form_request_taken_apart() -> None:
    request = parse_request(b"+\t1\r\n+-1\r\nv1\r\n..v2\r\n.\r\n")
    assert request.kind == "form"
    assert request.command == b"+"
    assert request.block == b"+-1\r\nv1\r\n..v2\r\n.\r\n"
    assert request.answers == (b"v1", b".v2")


@pytest.mark.parametrize(
    "block",
    [
        b"+-1\r\nv1\r\n.\r\nEXTRA\r\n",  # bytes after the end of the block
        b"+-1\r\nv1\r\n.\r\n.\r\n",  # a second terminator
        b"+-1\r\nv1\r\n",  # no terminator
        b"+5\r\nabc",  # shorter than its length
        b"-1\r\n.\r\n",  # no "+"
    ],
)
def test_malformed_form_blocks_are_not_forms(block: bytes) -> None:
    assert split_form_block(block) is None
    assert parse_request(b"+\t1\r\n" + block).kind != "form"


@pytest.mark.parametrize(
    ("text", "kind", "view", "attributes"),
    [
        (b"+", "data", None, ()),
        (b"+application/postscript Es_ES", "data", "application/postscript Es_ES", ()),
        (b"!", "attributes", None, ()),
        (b"!+ABSTRACT +SMELL", "attributes", None, ("+ABSTRACT", "+SMELL")),
        (b"$", "directory", None, ()),
        (b"$+VIEWS", "directory", None, ("+VIEWS",)),
        (b"?", "ask", None, ("+ASK",)),
    ],
)
def test_gopher_plus_strings(
    text: bytes, kind: str, view: str | None, attributes: tuple[str, ...]
) -> None:
    request = parse_request(text)
    assert (request.kind, request.view, request.attributes) == (kind, view, attributes)


@pytest.mark.parametrize(
    "host",
    [b"h/x?y#z", b"[::1", b"::1]/x", b"a b", b"\xff", b"user@h", b"h:70", b"h%41"],
)
def test_a_host_no_url_can_carry_gives_no_url(host: bytes) -> None:
    """A menu line's host field goes into the entry's URL as it is: one that would change how
    the URL splits ("h/x?y#z" read back as host h, selector "x?y") must give no URL at all,
    not a link to some other item."""
    for gtype in (b"1", b"8"):
        item = parse_menu_line(gtype + b"Item\t/sel\t" + host + b"\t70")
        assert item_url(item) is None
        assert to_entry(item).url is None


@pytest.mark.parametrize("host", [b"gopher.example", b"10.0.0.1", b"::1", b"under_score.example"])
def test_hosts_a_url_can_carry_keep_their_url(host: bytes) -> None:
    url = item_url(parse_menu_line(b"1Item\t/sel\t" + host + b"\t70"))
    assert url is not None
    parsed = schemes.parse(url, strict=False)
    assert parsed.hostname == host.decode()  # type: ignore[attr-defined]
    assert parsed.selector == "/sel"  # type: ignore[attr-defined]


def test_views_block() -> None:
    """Gopher+ §2.5: a view per line, "media-type [language]: <size>"; blank lines skipped."""
    block = " text/plain: <2k>\n application/postscript En_US: <10k>\n\n image/gif\n"
    assert parse_views(block) == [
        View("text/plain", "<2k>"),
        View("application/postscript En_US", "<10k>"),
        View("image/gif", ""),
    ]
