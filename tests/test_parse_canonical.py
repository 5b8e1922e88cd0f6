"""``str(url)``: the canonical form, and what it normalizes."""

from __future__ import annotations

import dataclasses

import pytest

from omniurl import schemes


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        # §2.1: scheme names in lower case; the host keeps the case it was written in
        ("FTP://Host.DOM/f", "ftp://Host.DOM/f"),
        # §2.2: escapes in upper-case hex; unreserved characters need no escape
        ("ftp://h/a%2fb/%41%7e", "ftp://h/a%2Fb/A%7E"),
        ("ftp://h/a/b;TYPE=I", "ftp://h/a/b;type=i"),
        ("ftp://h", "ftp://h/"),
        ("ftp://h:0021/", "ftp://h:21/"),  # the explicit port is kept, as a number
        ("gopher://h", "gopher://h/1"),  # §3.4.1: the type defaults to "1"
        ("gopher://h/", "gopher://h/1"),
        ("gopher://h/1a%3Fb?c", "gopher://h/1a?b?c"),  # no reserved characters in gopher
        ("gopher://h/7s%09", "gopher://h/7s%09"),
        ("mailto:%61@b", "mailto:a@b"),
        ("news:%61.b@h.dom", "news:a.b@h.dom"),
        ("wais://h/d%62/t/p", "wais://h/db/t/p"),
        ("file://localhost/a%20b", "file://localhost/a%20b"),
        ("prospero://h//p%2Fq;A=%62", "prospero://h//p/q;A=b"),  # "/" is opaque data
        # http: path and search are kept as written (a server gives %2F its own meaning)
        ("http://h/a%2fb?%41", "http://h/a%2fb?%41"),
        ("telnet://u:p@h", "telnet://u:p@h"),
        ("X-Y:Z", "x-y:Z"),
    ],
)
def test_canonical_form(text: str, canonical: str) -> None:
    u = schemes.parse(text)
    assert str(u) == canonical
    assert schemes.parse(canonical) == u


def test_gopher_empty_search_is_kept_apart_from_none() -> None:
    # RFC 1738 §3.4.3 sends "selector TAB TAB +" for an empty search; draft-ietf-uri-url-07
    # §3.4.3 sends the search "optionally ... (if the element is not empty)".  The parser
    # keeps both facts so the planner can choose.
    plus = schemes.parse("gopher://h/0item%09%09+")
    assert (plus.search, plus.gopher_plus) == ("", "+")
    plain = schemes.parse("gopher://h/0item")
    assert (plain.search, plain.gopher_plus) == (None, None)
    empty = schemes.parse("gopher://h/7find%09")
    assert (empty.search, empty.gopher_plus) == ("", None)


def test_replace_builds_a_new_url() -> None:
    u = schemes.parse("ftp://h/pub/f")
    v = u.replace(name="g", typecode="i")
    assert str(v) == "ftp://h/pub/g;type=i"
    assert str(u) == "ftp://h/pub/f"
    with pytest.raises(dataclasses.FrozenInstanceError):
        u.name = "x"  # type: ignore[misc]


def test_urls_are_hashable_values() -> None:
    a = schemes.parse("gopher://h/0%61")
    b = schemes.parse("gopher://h/0a")
    assert a == b
    assert len({a, b}) == 1
    assert schemes.parse("http://h/") != schemes.parse("https://h/")


def test_fragment_is_never_part_of_what_is_sent() -> None:
    u = schemes.parse("http://h/p?q#frag")
    assert (u.target, u.fragment) == ("/p?q", "frag")
    g = schemes.parse("gopher://h/1sel#frag")
    assert (g.selector, g.fragment) == ("sel", "frag")
    assert schemes.parse("http://h/p#").fragment == ""


@pytest.mark.parametrize("char", ['"', "<", ">", "^", "`", "{", "|", "}"])
@pytest.mark.parametrize(
    "template",
    ["http://a{}b.example/", "ftp://u@a{}b.example/f", "gopher://a{}b.example/1",
     "news://a{}b.example/comp.lang", "file://a{}b.example/x", "gemini://a{}b.example/"],
)  # fmt: skip
def test_a_host_decoding_to_a_character_no_url_holds_raw_is_refused(
    template: str, char: str
) -> None:
    """A registered name is percent-decoded (RFC 3986 §3.2.2), and ``str()`` writes the
    decoded host raw: one decoding to a character RFC 3986 allows nowhere raw (``"<>^`{|}``)
    would be written back as a URL that does not parse (``http://a"b.example/``), and it names
    no host DNS could hold (RFC 1034 §3.5), so it is refused as '/', ' ' and '\\' are, with
    the component and the offset of the host.  (Found by the sixth mix's round trips.)"""
    text = template.format(f"%{ord(char):02X}")
    with pytest.raises(schemes.HostError) as info:
        schemes.parse(text)
    assert info.value.component == "host"
    assert info.value.offset == text.index("%") - 1
    assert f"{char!r} cannot appear in a host name" in str(info.value)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        # RFC 5536 §3.1.3: a message-id's id-right may be a domain literal; RFC 3986 allows
        # no raw "[" in a path, so it is written %5B…%5D (the sixth mix's round trips)
        ("news:a@%5B127.0.0.1%5D", "news:a@%5B127.0.0.1%5D"),
        ("news:a@b%5Bc%5D", "news:a@b%5Bc%5D"),
        ("news://h/a@%5B::1%5D", "news://h/a@%5B::1%5D"),
        ("snews://h:563/x.y@%5B192.0.2.1%5D", "snews://h:563/x.y@%5B192.0.2.1%5D"),
        # an IPv6 literal after '@' of the server-less form parses raw, and stays raw
        ("news:a@[::1]", "news:a@[::1]"),
        ("news:a@%5B::1%5D", "news:a@[::1]"),
    ],
)
def test_a_message_id_domain_literal_is_written_so_it_parses_again(
    text: str, canonical: str
) -> None:
    u = schemes.parse(text)
    assert str(u) == canonical
    assert schemes.parse(canonical) == u


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        # RFC 2392's ids are addr-specs whose "@" the parser finds after a local part; one
        # decoding to a leading "@" was written back raw ("mid:@a.b@h"), which no reading
        # parses (the sixth mix's oracle test's mutants): its first "@" is written %40
        ("mid:%40a.b@h.example", "mid:%40a.b@h.example"),
        ("mid:%40@h.example#f", "mid:%40@h.example#f"),
        ("mid:a@h.example/%40c@h.example", "mid:a@h.example/%40c@h.example"),
        ("cid:%40a@h.example", "cid:%40a@h.example"),
        ("MID:%40x%40y@h.example", "mid:%40x@y@h.example"),
        # (an "@" after the first character stays raw, as before)
        ("mid:a%40b@h.example", "mid:a@b@h.example"),
        ("cid:a@%40h.example", "cid:a@@h.example"),
    ],
)
def test_an_rfc2392_id_starting_with_an_at_sign_is_written_so_it_parses_again(
    text: str, canonical: str
) -> None:
    u = schemes.parse(text)
    assert str(u) == canonical
    assert schemes.parse(canonical) == u
