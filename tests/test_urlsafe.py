"""schemes.url_safe: the character table at the top of specs/000_… and its advice."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from omniurl.schemes import url_safe
from omniurl.schemes.urlsafe import TABLE

# The table, row by row: character, "Encodage de substitution".
TABLE_ROWS = [
    (" ", "%20"),
    ("<", "%3C"),
    (">", "%3E"),
    ("'", "%27"),
    ("#", "%23"),
    ("%", "%25"),
    ("{", "%7B"),
    ("}", "%7D"),
    ("|", "%7C"),
    ('"', "%22"),
    ("^", "%5E"),
    (",", "%2C"),
    ("~", "%7E"),
    ("[", "%5B"),
    ("]", "%5D"),
    ("`", "%60"),
    ("!", "%21"),
    ("$", "%24"),
    ("(", "%28"),
    (")", "%29"),
    ("*", "%2A"),
    ("+", "%2B"),
    (";", "%3B"),
    ("/", "%2F"),
    ("?", "%3F"),
    (":", "%3A"),
    ("@", "%40"),
    ("=", "%3D"),
    ("&", "%26"),
]


@pytest.mark.parametrize(("char", "escape"), TABLE_ROWS)
def test_every_row_of_the_table(char: str, escape: str) -> None:
    assert TABLE[char].escape == escape
    assert url_safe(char, mode="encode") == escape
    assert url_safe(char, mode="remove") == ""
    assert url_safe(char, mode="replace") == "-"
    assert url_safe(char, mode="replace", neutral="_") == "_"
    # the advice: a hyphen for space and "+", the %XX form for the others
    advised = "-" if char in " +" else escape
    assert url_safe(char) == advised
    assert TABLE[char].advice == ("replace" if char in " +" else "encode")


def test_table_order_and_completeness() -> None:
    # The table's rows come first, in its order; then what RFC 1738 §2.2 adds.
    assert [c for c in TABLE][: len(TABLE_ROWS)] == [c for c, _ in TABLE_ROWS]
    assert TABLE["\\"].escape == "%5C"
    assert TABLE["\x00"].escape == "%00"
    assert TABLE["\x7f"].escape == "%7F"
    # every printable US-ASCII character is either safe as it is or in the table
    for code in range(0x20, 0x7F):
        c = chr(code)
        assert c.isalnum() or c in "-_." or c in TABLE, c


def test_the_pages_example_advice() -> None:
    # space -> hyphen (better than underscore), "+" -> hyphen, the rest encoded
    assert url_safe("Marie Claude + Jean") == "Marie-Claude---Jean"
    assert url_safe("Marie Claude + Jean", collapse=True) == "Marie-Claude-Jean"
    assert url_safe("C++ & C#") == "C---%26-C%23"
    assert url_safe("100% <b>") == "100%25-%3Cb%3E"


def test_non_ascii_and_controls() -> None:
    assert url_safe("été") == "%C3%A9t%C3%A9"
    assert url_safe("été", mode="remove") == "t"
    assert url_safe("été", mode="replace") == "-t-"
    assert url_safe("a\tb\r\nc\\d") == "a%09b%0D%0Ac%5Cd"
    # lone surrogates (undecodable bytes kept with surrogateescape) go back to their octet
    assert url_safe(b"caf\xe9".decode("utf-8", "surrogateescape")) == "caf%E9"


def test_keep_and_actions() -> None:
    assert url_safe("docs/my file.txt", keep="/") == "docs/my-file.txt"
    assert url_safe("a b+c", actions={" ": "encode"}) == "a%20b-c"
    assert url_safe("a b!c", mode="remove", actions={"!": "replace"}) == "ab-c"
    assert url_safe("q=a&b", mode="encode", keep="=&") == "q=a&b"


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="neutral"):
        url_safe("a b", neutral="+")
    with pytest.raises(ValueError, match="neutral"):
        url_safe("a b", neutral="--")
    with pytest.raises(ValueError, match="action"):
        url_safe("a b", actions={" ": "shout"})  # type: ignore[dict-item]


_SAFE_OUTPUT = re.compile(r"(?:[A-Za-z0-9\-_.]|%[0-9A-F]{2})*")


@given(st.text(), st.sampled_from(["advised", "encode", "replace", "remove"]))
def test_result_is_always_url_safe(text: str, mode: str) -> None:
    out = url_safe(text, mode=mode)  # type: ignore[arg-type]
    assert _SAFE_OUTPUT.fullmatch(out)


@given(st.text())
def test_encode_mode_is_reversible(text: str) -> None:
    from urllib.parse import unquote

    assert unquote(url_safe(text, mode="encode"), errors="surrogateescape") == text
