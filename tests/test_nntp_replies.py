"""Pure NNTP pieces: reply parsing (RFC 3977 §3.2, §6-§8) and the argument grammar (§3.6,
§4.1), and the URLs a listing hands out (RFC 1738 §3.6, §3.7)."""

from __future__ import annotations

import pytest

from omniurl.resolvers.errors import ProtocolError
from omniurl.resolvers.lines import dot_stuff, dot_unstuff
from omniurl.resolvers.nntp.grammar import (
    check_article_number,
    check_message_id,
    check_newsgroup,
    news_url_for_group,
    news_url_for_message_id,
    nntp_url,
)
from omniurl.resolvers.nntp.replies import (
    GroupInfo,
    Reply,
    decode_words,
    parse_active,
    parse_article_number,
    parse_capabilities,
    parse_group,
    parse_overview,
    parse_status,
)
from omniurl.schemes.errors import SchemeSyntaxError


@pytest.mark.parametrize(
    ("line", "code", "text"),
    [
        (b"200 news.example ready", 200, b"news.example ready"),
        (b"205", 205, b""),
        (b"411 No such group x.y", 411, b"No such group x.y"),
        (b"220 0 <a@b> article", 220, b"0 <a@b> article"),
    ],
)
def test_status_line(line: bytes, code: int, text: bytes) -> None:
    assert parse_status(line, what="X") == Reply(code, text)


@pytest.mark.parametrize("line", [b"", b"20", b"OK", b"2000 x", b"600 too high", b"+OK pop3"])
def test_status_line_that_is_not_nntp(line: bytes) -> None:
    with pytest.raises(ProtocolError, match="answer to GROUP"):
        parse_status(line, what="GROUP")


def test_group_reply() -> None:
    info = parse_group(Reply(211, b"1234 3000234 3002322 misc.test"))
    assert info == GroupInfo(1234, 3000234, 3002322)
    assert not info.empty
    assert info.last(100) == (3002223, 3002322)
    assert info.last(10**6) == (3000234, 3002322)  # never below the low water mark


def test_empty_group_reply() -> None:
    # RFC 3977 §6.1.1.2: an empty group may report count 0 with high = low - 1.
    assert parse_group(Reply(211, b"0 4000 3999 example.currently.empty")).empty


@pytest.mark.parametrize("reply", [Reply(211, b"x 1 2 g"), Reply(211, b""), Reply(200, b"1 1 1 g")])
def test_bad_group_reply(reply: Reply) -> None:
    with pytest.raises(ProtocolError):
        parse_group(reply)


def test_capabilities_are_case_insensitive_labels_with_arguments() -> None:
    caps = parse_capabilities([b"VERSION 2", b"mode-reader", b"LIST ACTIVE NEWSGROUPS", b""])
    assert caps == {"VERSION": ("2",), "MODE-READER": (), "LIST": ("ACTIVE", "NEWSGROUPS")}


def test_overview_line_rfc3977_example() -> None:
    # RFC 3977 §8.3.2's example, with the optional Xref field after the seven.
    line = (
        b'3000234\tI am just a test article\t"Demo User" <nobody@example.com>\t'
        b"6 Oct 1998 04:38:40 -0500\t<45223423@example.com>\t<45454@example.net>\t1234\t17\t"
        b"Xref: news.example.com misc.test:3000363"
    )
    ov = parse_overview(line)
    assert ov.number == 3000234
    assert ov.subject == "I am just a test article"
    assert ov.from_ == '"Demo User" <nobody@example.com>'
    assert ov.message_id == b"<45223423@example.com>"
    assert ov.references == "<45454@example.net>"
    assert (ov.bytes, ov.lines) == (1234, 17)


def test_overview_line_with_empty_and_missing_fields() -> None:
    ov = parse_overview(b"7\t\t\t\t<x@y>")
    assert (ov.number, ov.subject, ov.message_id, ov.bytes, ov.lines) == (
        7,
        "",
        b"<x@y>",
        None,
        None,
    )


def test_overview_line_without_number_is_a_protocol_error() -> None:
    with pytest.raises(ProtocolError, match="article number"):
        parse_overview(b"abc\tsubject")


def test_encoded_words_are_decoded_for_people() -> None:
    assert decode_words(b"=?UTF-8?Q?Gr=C3=BC=C3=9Fe?= from X") == "Grüße from X"
    assert decode_words(b"plain") == "plain"
    assert decode_words(b"=?bogus-charset?Q?x?=") == "=?bogus-charset?Q?x?="


def test_active_line() -> None:
    active = parse_active(b"misc.test 3002322 3000234 y")
    assert (active.group, active.high, active.low, active.status) == (
        b"misc.test",
        3002322,
        3000234,
        "y",
    )
    assert parse_active(b"old.rfc977 0010 0001").status == ""  # RFC 977 LIST has no status
    with pytest.raises(ProtocolError):
        parse_active(b"misc.test high low y")


def test_listgroup_line() -> None:
    assert parse_article_number(b"3000238") == 3000238
    with pytest.raises(ProtocolError):
        parse_article_number(b"3000238 extra")


def test_dot_stuffing_round_trip_through_the_shared_helper() -> None:
    lines = [b".", b"..", b".x", b"plain", b""]
    block = dot_stuff(lines)
    assert block == b"..\r\n...\r\n..x\r\nplain\r\n\r\n.\r\n"
    received = [dot_unstuff(raw) for raw in block.split(b"\r\n")[:-1]]
    assert received == [*lines, None]


# -- the grammar of what goes on the wire ---------------------------------------------------


def test_newsgroup_grammar_allows_rfc3977_names() -> None:
    assert check_newsgroup("comp.lang.python") == b"comp.lang.python"
    assert check_newsgroup("de.alt.grüße") == "de.alt.grüße".encode()  # UTF-8 (§4.1)
    assert check_newsgroup("alt.sex.$$$") == b"alt.sex.$$$"


@pytest.mark.parametrize("name", ["comp.*", "a?b", "a,b", "a[b]", "a\\b", "a!b"])
def test_newsgroup_grammar_refuses_wildmat_specials(name: str) -> None:
    with pytest.raises(SchemeSyntaxError, match="wildmat") as info:
        check_newsgroup(name)
    assert info.value.component == "newsgroup"


def test_newsgroup_grammar_leaves_delimiters_to_the_policy() -> None:
    # SP, TAB, CR, LF are the policy's ("nntp" context): the grammar lets them through.
    assert check_newsgroup("a b\r\n") == b"a b\r\n"


def test_newsgroup_that_is_not_utf8() -> None:
    with pytest.raises(SchemeSyntaxError, match="UTF-8"):
        check_newsgroup(b"caf\xe9".decode("utf-8", "surrogateescape"))


def test_message_id_gets_its_brackets_from_the_client() -> None:
    assert check_message_id("1234@example.com") == b"<1234@example.com>"


@pytest.mark.parametrize("mid", ["a>b@c", "gr\u00fc\u00df@x"])
def test_message_id_grammar(mid: str) -> None:
    with pytest.raises(SchemeSyntaxError) as info:
        check_message_id(mid)
    assert info.value.component == "message_id"


def test_message_id_length_limit() -> None:
    assert len(check_message_id("x" * 243 + "@a.bc")) == 250
    with pytest.raises(SchemeSyntaxError, match="251 octets"):
        check_message_id("x" * 244 + "@a.bc")


def test_article_number_range() -> None:
    assert check_article_number(2**31 - 1) == 2**31 - 1
    for bad in (0, 2**31):
        with pytest.raises(SchemeSyntaxError) as info:
            check_article_number(bad)
        assert info.value.component == "article"


def test_urls_handed_out_in_listings() -> None:
    assert nntp_url("news.example", 119, b"comp.lang.python", 7) == (
        "nntp://news.example/comp.lang.python/7"
    )
    assert nntp_url("::1", 1119, b"a.b") == "nntp://[::1]:1119/a.b"
    assert nntp_url("h", 119, "grüße".encode()) == "nntp://h/gr%C3%BC%C3%9Fe"
    assert news_url_for_group(b"alt.$") == "news:alt.%24"
    assert news_url_for_message_id(b"<a/b%c#d@host>") == "news:a/b%25c%23d@host"
    assert news_url_for_message_id(b"no-brackets@x") is None


@pytest.mark.parametrize("raw", [b"=?utf-8?b?a?=", b"Re: =?UTF-8?B?abcde?= x"])
def test_decode_words_keeps_a_broken_encoded_word_as_sent(raw: bytes) -> None:
    """A malformed base64 encoded-word (email raises HeaderParseError, not ValueError) must not
    escape an overview listing as a raw library exception: the text stays as sent."""
    assert decode_words(raw) == raw.decode()
