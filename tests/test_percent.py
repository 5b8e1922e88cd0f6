"""Percent-encoding (§2.2): octets in, octets out, per-component classes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from omniurl import schemes
from omniurl.schemes import percent


def test_decode_to_utf8_text() -> None:
    assert percent.decode("caf%C3%A9") == "café"


def test_non_utf8_octets_survive_as_surrogates() -> None:
    s = percent.decode("a%FFb%80")
    assert s == "a\udcffb\udc80"
    assert percent.to_octets(s) == b"a\xffb\x80"
    assert percent.display(s) == "a%FFb%80"


def test_hex_digits_either_case() -> None:
    # §2.2: 'The characters "abcdef" may also be used in hexadecimal encodings.'
    assert percent.decode("%2f%2F") == "//"


def test_stray_percent_kept_when_not_checked() -> None:
    assert percent.unquote_to_bytes("100%-a%4") == b"100%-a%4"


def test_quote_leaves_only_unreserved_and_safe() -> None:
    # §2.2: only alphanumerics and "$-_.+!*'()," unencoded, plus the reserved characters a
    # component uses for its own purpose (the ``safe`` argument).
    assert percent.quote("$-_.+!*'(),") == "$-_.+!*'(),"
    assert percent.quote(";/?:@=&") == "%3B%2F%3F%3A%40%3D%26"
    assert percent.quote(";/?:@=&", "?:@=&") == "%3B%2F?:@=&"
    # unsafe, national and punctuation characters are always encoded
    assert percent.quote(' <>"#%{}|\\^~[]`') == ("%20%3C%3E%22%23%25%7B%7D%7C%5C%5E%7E%5B%5D%60")
    assert percent.quote("\t\r\n\x7f") == "%09%0D%0A%7F"
    assert percent.quote("é\udcff") == "%C3%A9%FF"


@given(st.binary(max_size=64))
def test_octets_round_trip(octets: bytes) -> None:
    text = "".join(f"%{b:02X}" for b in octets)
    decoded = percent.decode(text)
    assert percent.to_octets(decoded) == octets
    assert percent.decode(percent.quote(decoded)) == decoded


@given(st.text(max_size=40))
def test_quote_output_is_always_safe(value: str) -> None:
    try:
        octets = percent.to_octets(value)
    except UnicodeEncodeError:
        return  # a lone surrogate outside the escape range stands for no octets
    out = percent.quote(value)
    assert all(c.isascii() and (c.isalnum() or c in "$-_.+!*'(),%") for c in out)
    assert percent.unquote_to_bytes(out) == octets


def test_ftp_octets_on_the_wire() -> None:
    u = schemes.parse("ftp://h/%C3%A9t%E9/f%00")
    assert isinstance(u, schemes.FTPURL)
    assert [schemes.to_octets(s) for s in u.cwd] == [b"\xc3\xa9t\xe9"]
    assert schemes.to_octets(u.name) == b"f\x00"


def test_encoded_reserved_characters_stay_data() -> None:
    # §2.2: "encoding a character reserved for a particular scheme may change the semantics"
    u = schemes.parse("ftp://h/a%2Fb%3Bc/d")
    assert (u.cwd, u.name) == (("a/b;c",), "d")
    assert str(u) == "ftp://h/a%2Fb%3Bc/d"


def test_unreserved_may_be_encoded() -> None:
    # §2.2: characters "not required to be encoded (including alphanumerics) may be encoded"
    a = schemes.parse("gopher://h/0%61bc")
    assert (a.gtype, a.selector) == ("0", "abc")
    assert a == schemes.parse("gopher://h/0abc")


@pytest.mark.parametrize(
    ("text", "component", "offset"),
    [
        ("ftp://h/a%", "name", 9),
        ("ftp://h/a%4", "name", 9),
        ("ftp://h/%zz/b", "cwd[0]", 8),
        ("ftp://u%g@h/", "user", 7),
        ("gopher://h/1%0", "selector", 12),
        ("mailto:a%b@c", "address", 8),
        ("wais://h/db?x%", "search", 13),
        ("file:///a%2", "path", 9),
        ("prospero://h/a;b=%", "fields", 17),
        ("http://h/a#frag%", "fragment", 15),
    ],
)
def test_strict_mode_refuses_a_bare_percent(text: str, component: str, offset: int) -> None:
    with pytest.raises(schemes.EncodingError) as e:
        schemes.parse(text, syntax="rfc1738")
    assert (e.value.component, e.value.offset) == (component, offset)
    assert text[e.value.offset] == "%"


def _decoded_octet_by_octet(text: str) -> str:
    """What :func:`percent.decode` gives, written the plain way: each ``%XX`` its octet, a
    ``%`` that starts no escape kept, the octets read as UTF-8 with ``surrogateescape``."""
    raw = text.encode("utf-8", "surrogateescape")
    out = bytearray()
    i = 0
    while i < len(raw):
        pair = raw[i + 1 : i + 3]
        if raw[i] == 37 and len(pair) == 2 and all(c in b"0123456789ABCDEFabcdef" for c in pair):
            out.append(int(pair, 16))
            i += 3
        else:
            out.append(raw[i])
            i += 1
    return bytes(out).decode("utf-8", "surrogateescape")


@pytest.mark.parametrize(
    "text",
    ["%", "%4", "%41", "%4g", "%g4", "%%41", "%41%", "a%41%4", "%C3%A9", "%c3%a9%", "%FF%80",
     "\\%41", "%41\\", "\\x41%41", "a\\nb%20", "%5C%78%34%31", "%5cx41", "\\", "%00%0a%0D",
     "%F0%9F%98%80", "%F0%9F%98", "%ED%A0%80", "é%41", "%41é", "\udcff%41", "%7E%7e"],
)  # fmt: skip
def test_decode_edges(text: str) -> None:
    """Escapes either side of what CPython's escape decoder takes ("\\x" and two hex digits):
    one hex digit, a non-hex one, "%" at the end, a backslash of the text (which would start
    an escape of its own), encoded backslashes, non-UTF-8 octets, non-ASCII text."""
    assert percent.decode(text) == _decoded_octet_by_octet(text)


@given(st.text(alphabet="%%%0aF9gG\\x/é\x00\x7f\udcff", max_size=20))
def test_decode_is_octet_by_octet(text: str) -> None:
    assert percent.decode(text) == _decoded_octet_by_octet(text)
