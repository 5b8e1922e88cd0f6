"""Errors: one tree under schemes.URLError, each naming the component and the offset."""

from __future__ import annotations

import pytest

from omniurl import schemes
from omniurl.schemes import (
    AuthorityError,
    EncodingError,
    HostError,
    PortError,
    SchemeError,
    SchemeSyntaxError,
    URLError,
)


@pytest.mark.parametrize(
    ("text", "error", "component", "offset"),
    [
        # §2.1: scheme names
        ("", SchemeError, "scheme", 0),
        ("no-colon-here", SchemeError, "scheme", 0),
        (":foo", SchemeError, "scheme", 0),
        ("ht tp://h/", SchemeError, "scheme", 2),
        ("ftp_x://h/", SchemeError, "scheme", 3),
        # §3.1: the // and the host
        ("ftp:host/f", SchemeSyntaxError, "authority", 4),
        ("ftp:///f", HostError, "host", 6),
        ("http://exa mple.com/", HostError, "host", 10),
        ("http://host_name.com/", HostError, "host", 11),
        ("http://-bad.com/", HostError, "host", 7),
        ("http://a.1com/", HostError, "host", 7),
        ("http://256.1.1.1/", HostError, "host", 7),
        ("http://1.2.3/", HostError, "host", 7),
        ("http://[::1/", HostError, "host", 7),
        ("http://[::g]/", HostError, "host", 7),
        ("http://[fe80::1%25eth0]/", HostError, "host", 15),
        ("http://[::1]x/", HostError, "host", 12),
        # port = digits, 0-65535
        ("http://h:/", PortError, "port", 9),
        ("http://h:8x/", PortError, "port", 9),
        ("http://h:65536/", PortError, "port", 9),
        ("http://h:-1/", PortError, "port", 9),
        # user and password: ":" "@" "/" must be encoded (§3.1)
        ("ftp://a@b@h/", EncodingError, "user", 7),
        ("ftp://a:b:c@h/", EncodingError, "password", 9),
        ("ftp://a b@h/", EncodingError, "user", 7),
        ("http://u@h/", AuthorityError, "user", 7),
        # ftp url-path: "/" and ";" are reserved in a segment (§3.2.2)
        ("ftp://h/a;b/c", EncodingError, "cwd[0]", 9),
        ("ftp://h/a/b;c", EncodingError, "name", 11),
        ("ftp://h/a/b;type=x", SchemeSyntaxError, "typecode", 17),
        ("ftp://h/a~b", EncodingError, "name", 9),
        # http: "?" in the path, "/" "?" in the search (the BNF's search class)
        ("http://h/a?b?c", EncodingError, "search", 12),
        ("http://h/a?b/c", EncodingError, "search", 12),
        ("http://h/<a>", EncodingError, "path", 9),
        # gopher
        ("gopher://h/1a b", EncodingError, "selector", 13),
        ("gopher://h/1a%09b%0Ac", SchemeSyntaxError, "search", 17),
        ("gopher://h/%0D", SchemeSyntaxError, "gtype", 11),
        # mailto (RFC 6068 header fields)
        ("mailto:", SchemeSyntaxError, "address", 7),
        ("mailto:a@b?subject", SchemeSyntaxError, "headers", 11),
        ("mailto:a@b?s=a?b", EncodingError, "headers", 14),
        # news / nntp
        ("news:", SchemeSyntaxError, "newsgroup", 5),
        ("news:1comp", SchemeSyntaxError, "newsgroup", 5),
        ("news:comp!x", SchemeSyntaxError, "newsgroup", 9),
        ("news:comp/x", EncodingError, "newsgroup", 9),
        ("news:@host.dom", SchemeSyntaxError, "message_id", 5),
        ("news:a@b_c", HostError, "host", 8),
        ("nntp://h", SchemeSyntaxError, "newsgroup", 8),
        ("nntp://h/g/12a", SchemeSyntaxError, "article", 11),
        ("nntp://h/1g", SchemeSyntaxError, "newsgroup", 9),
        # telnet: nothing after the optional "/"
        ("telnet://h/x", SchemeSyntaxError, "path", 11),
        # wais
        ("wais://h", SchemeSyntaxError, "database", 8),
        ("wais://h/db/TEXT", SchemeSyntaxError, "wpath", 16),
        ("wais://h/db/t/p?x", SchemeSyntaxError, "search", 15),
        ("wais://h/d;b", EncodingError, "database", 10),
        # file
        ("file:/etc/motd", SchemeSyntaxError, "path", 5),
        ("file://h", SchemeSyntaxError, "path", 8),
        ("file://h:1/x", HostError, "host", 8),
        ("file:///a;b", EncodingError, "path", 9),
        # prospero
        ("prospero://h", SchemeSyntaxError, "hsoname", 12),
        ("prospero://h/x;novalue", SchemeSyntaxError, "fields", 14),
        ("prospero://h/x;a=b=c", EncodingError, "fields", 18),
        # generic: *xchar
        ("x-y:a b", EncodingError, "scheme_specific_part", 5),
        # fragment
        ("http://h/#a#b", EncodingError, "fragment", 11),
    ],
)
def test_rfc1738_errors_name_component_and_offset(
    text: str, error: type[URLError], component: str, offset: int
) -> None:
    with pytest.raises(error) as e:
        schemes.parse(text, syntax="rfc1738")
    assert isinstance(e.value, URLError)
    assert isinstance(e.value, ValueError)
    assert (e.value.component, e.value.offset) == (component, offset)


def test_error_json_contract() -> None:
    with pytest.raises(URLError) as e:
        schemes.parse("http://h:99999/")
    assert e.value.to_json() == {
        "type": "PortError",
        "message": "the port 99999 is out of range 0-65535",
        "component": "port",
        "offset": 9,
    }
    assert str(e.value) == "the port 99999 is out of range 0-65535 (port, offset 9)"


def test_error_messages_say_how_to_fix() -> None:
    with pytest.raises(EncodingError) as e:
        schemes.parse("ftp://h/a b", syntax="rfc1738")
    assert "%20" in e.value.message
    with pytest.raises(EncodingError) as e:
        schemes.parse("ftp://h/a;b/c", syntax="rfc1738")
    assert "%3B" in e.value.message


@pytest.mark.parametrize("text", [None, b"http://h/", 42])
def test_non_text_is_a_url_error(text: object) -> None:
    with pytest.raises(URLError):
        schemes.parse(text)  # type: ignore[arg-type]


def test_lenient_mode_accepts_what_strict_refuses() -> None:
    u = schemes.parse("http://h/~joe/a b?x=/y|z", strict=False)
    assert (u.path, u.search) == ("/~joe/a%20b", "x=/y%7Cz")
    assert schemes.parse("http://h:/", strict=False).port is None
    f = schemes.parse("file:/etc/motd", strict=False)
    assert (f.host, f.path) == ("", "/etc/motd")
    assert schemes.parse("ftp://h/a;b", strict=False).name == "a;b"
    assert schemes.parse("http://h?q", strict=False).search == "q"


def test_lenient_mode_still_refuses_what_cannot_be_represented() -> None:
    for text in (
        "http://h:x/",
        "http://h:70000/",
        "telnet://h/x",
        "ftp://h/a;type=x",
        "news:",
        "gopher://h/\ud800x",  # a lone surrogate is no octet, so no gopher type
        "http://a:b:/",  # a host never holds ":"
        "http://h/\ud800",  # a lone surrogate stands for no octets
    ):
        with pytest.raises(URLError):
            schemes.parse(text, strict=False)
