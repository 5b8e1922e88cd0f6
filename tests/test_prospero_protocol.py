"""Prospero request/reply codec and the access-method -> URL mapping (pure)."""

from __future__ import annotations

import pytest

from omniurl.resolvers.errors import ProtocolError
from omniurl.resolvers.prospero import protocol
from omniurl.resolvers.prospero.methods import prospero_url, to_url
from omniurl.resolvers.prospero.protocol import AccessMethod


@pytest.mark.parametrize(
    ("token", "wire"),
    [
        (b"/pub/hello.txt", b"/pub/hello.txt"),
        (b"", b"''"),
        (b"with space", b"'with space'"),
        (b"it's", b"'it''s'"),
        (b"tab\there", b"'tab\there'"),
    ],
)
def test_quote_and_tokenize_round_trip(token: bytes, wire: bytes) -> None:
    assert protocol.quote(token) == wire
    assert protocol.tokenize(b"A " + wire + b"  B") == [b"A", token, b"B"]


def test_quote_refuses_nul_and_tokenize_unterminated() -> None:
    with pytest.raises(ValueError):
        protocol.quote(b"a\x00b")
    with pytest.raises(ProtocolError):
        protocol.tokenize(b"LINK 'open")


def test_v5_request_exact_bytes() -> None:
    assert protocol.v5_request(b"/pub/with space") == (
        b"VERSION 5 omniurl\n"
        b"AUTHENTICATE '' UNAUTHENTICATED omniurl\n"
        b"GET-OBJECT-INFO ACCESS-METHOD ASCII '/pub/with space' 0\n"
    )
    assert protocol.v5_request(b"/x", b"3", ((b"COLOR", b"blue"),)).endswith(
        b"GET-OBJECT-INFO ACCESS-METHOD ASCII /x 3\nSELECT LINK FIELD COLOR ASCII blue\n"
    )


def test_v1_request_exact_bytes() -> None:
    assert protocol.v1_request(b"/pub/hello.txt") == (
        b"VERSION 1\n"
        b"AUTHENTICATOR UNAUTHENTICATED omniurl\n"
        b"DIRECTORY ASCII /pub\n"
        b"LIST ATTRIBUTES COMPONENTS hello.txt\n"
    )
    assert protocol.v1_split(b"/top") == (b"/", b"top")
    assert protocol.v1_split(b"plain") == (b"", b"plain")


def test_parse_v5_attributes_with_crlf_and_quotes() -> None:
    reply = protocol.parse_reply(
        b"ATTRIBUTE OBJECT INTRINSIC ACCESS-METHOD SEQUENCE AFTP INTERNET-D h(2121) ASCII "
        b"'/pub/with space.txt' BINARY\r\n"
        b"ATTRIBUTE OBJECT INTRINSIC SIZE SEQUENCE 12 bytes\r\n"
        b"ATTRIBUTE OBJECT INTRINSIC ACCESS-METHOD SEQUENCE LOCAL '' '' '' ''\n"
    )
    assert reply.methods == [
        AccessMethod("AFTP", "INTERNET-D", "h(2121)", "ASCII", "/pub/with space.txt", ("BINARY",)),
        AccessMethod("LOCAL", "", "", "", ""),
    ]
    assert reply.status is None and len(reply.lines) == 3


def test_parse_v1_link_and_link_info() -> None:
    reply = protocol.parse_reply(
        b"LINK L FILE hello.txt INTERNET-D h(7) ASCII /pub/hello.txt 0 0\n"
        b"LINK-INFO LINK INTRINSIC ACCESS-METHOD AFTP INTERNET-D '' ASCII /pub/hello.txt TEXT\n"
    )
    assert reply.link == ("h(7)", "/pub/hello.txt")
    (am,) = reply.methods
    assert am.with_link("h(7)", "/x") == AccessMethod(
        "AFTP", "INTERNET-D", "h(7)", "ASCII", "/pub/hello.txt", ("TEXT",)
    )


@pytest.mark.parametrize(
    ("text", "status", "detail"),
    [
        (b"NONE-FOUND\n", "NONE-FOUND", ""),
        (b"FAILURE NOT-FOUND OBJECT /x\n", "FAILURE", "NOT-FOUND OBJECT /x"),
        (b"VERSION-NOT-SUPPORTED\n", "VERSION-NOT-SUPPORTED", ""),
        (b"ERROR bad things\n", "ERROR", "bad things"),
    ],
)
def test_parse_status_lines(text: bytes, status: str, detail: str) -> None:
    reply = protocol.parse_reply(text)
    assert (reply.status, reply.detail, reply.methods) == (status, detail, [])


def test_parse_forwarded_with_and_without_applies_to() -> None:
    a = protocol.parse_reply(b"FORWARDED OBJECT INTERNET-D h(9) ASCII /new 2\n").forwarded
    b = protocol.parse_reply(b"FORWARDED INTERNET-D h(9) ASCII /new\n").forwarded
    assert a == protocol.Forwarded("h(9)", "/new", "2")
    assert b == protocol.Forwarded("h(9)", "/new", None)
    with pytest.raises(ProtocolError):
        protocol.parse_reply(b"FORWARDED OBJECT\n")


def test_access_method_needs_five_elements() -> None:
    with pytest.raises(ProtocolError, match="at least 5"):
        protocol.parse_reply(b"ATTRIBUTE OBJECT INTRINSIC ACCESS-METHOD SEQUENCE AFTP x\n")


@pytest.mark.parametrize(
    ("tokens", "url"),
    [
        (("AFTP", "INTERNET-D", "h", "ASCII", "/pub/a b;c.txt", "BINARY"),
         "ftp://h/pub/a%20b%3Bc.txt;type=i"),
        (("FTP", "INTERNET-D", "h(2121)", "ASCII", "/pub/x", "TEXT"), "ftp://h:2121/pub/x;type=a"),
        (("AFTP", "INTERNET-D", "::1(21)", "ASCII", "x"), "ftp://[::1]:21/x"),
        (("GOPHER", "INTERNET-D", "g(7070)", "ASCII", "/pub/hello.txt", "0"),
         "gopher://g:7070/0/pub/hello.txt"),
        (("GOPHER", "INTERNET-D", "g", "ASCII", "1/menu?x"), "gopher://g/11/menu%3Fx"),
        (("WAIS", "INTERNET-D", "w(2100)", "ASCII", "demo"), "wais://w:2100/demo"),
        (("LOCAL", "INTERNET-D", "h", "ASCII", "/srv/a b"), "file://h/srv/a%20b"),
        (("NFS", "INTERNET-D", "h(2049)", "ASCII", "/x"), "file://h/x"),
        (("TELNET", "INTERNET-D", "h", "ASCII", "x"), None),
        (("AFTP", "OTHER-HOST-TYPE", "h", "ASCII", "/x"), None),
    ],
)  # fmt: skip
def test_access_method_to_url(tokens: tuple[str, ...], url: str | None) -> None:
    method, host_type, host, hsoname_type, hsoname, *extra = tokens
    assert to_url(AccessMethod(method, host_type, host, hsoname_type, hsoname, tuple(extra))) == url


def test_prospero_url_for_forward() -> None:
    assert prospero_url("h(1600)", "/pub/x") == "prospero://h:1600//pub/x"
    assert (
        prospero_url("h", "/a;b", version="2", fields=(("OBJECT-VERSION", "1"), ("K", "v w")))
        == "prospero://h//a%3Bb;K=v%20w;OBJECT-VERSION=2"
    )


def test_split_host() -> None:
    assert protocol.split_host("h(2121)") == ("h", 2121)
    assert protocol.split_host("h") == ("h", None)
    assert protocol.split_host("h(99999)") == ("h(99999)", None)
