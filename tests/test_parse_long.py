"""Long URLs read in two steps (docs/speed.md, *Parsing*, seventh round (cost per character)):
the head by ``re``, the rest's characters and escapes by ``grammar.tail_ok`` (one
``bytes.translate`` and a few ``find``s, where ``re``'s class scan costs ~22 instructions a
character).  Each must answer exactly as the one match it stands for: ``tail_ok`` as the
pattern's class and ``escapes_ok``, http's ``_parse_long`` as ``_DEFAULT_HOST``'s fullmatch —
the same URL or None, on every input (not only the long ones it is used for).
"""

from __future__ import annotations

import importlib.util
import random
import re
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_parse_fast_default import _mutations, _other_mutations, general, outcome, used_fast

from omniurl import schemes
from omniurl.schemes import grammar, http, mailto

BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "parse_bench.py"
#: The mixes written before this round (the seventh is held out for the lead's measurement).
MIXES = ("main", "heldout", "third", "fourth", "fifth", "sixth")
CLASSES = [
    http._TAIL_CLASS,
    grammar.HSEGMENT + "/~%",
    grammar.FSEGMENT + ";/~%",
    grammar.UNRESERVED,
    grammar.USER,
    r"A-Za-z0-9\-._~",
]


def load_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("parse_bench_long", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("cls", CLASSES)
def test_class_table_is_the_class(cls: str) -> None:
    """Each byte is in the table (not 0) exactly when ``[<cls>]`` matches it; "%" is coded
    "%", hex digits "h", the rest of the class "g"."""
    table = grammar.class_table(cls)
    pattern = re.compile(f"[{cls}]")
    for b in range(256):
        member = b != 0 and pattern.fullmatch(chr(b)) is not None
        if not member:
            assert table[b] == 0, (cls, b)
        elif b == 37:
            assert table[b] == 37
        elif chr(b) in "0123456789ABCDEFabcdef":
            assert table[b] == ord("h")
        else:
            assert table[b] == ord("g")


def _expected(text: str, start: int, cls: str) -> bool:
    return (
        text.isascii()
        and re.fullmatch(f"[{cls}]*+", text[start:]) is not None
        and grammar.STRAY_PERCENT.search(text, start) is None
    )


@settings(max_examples=3000, deadline=None)
@given(
    st.sampled_from(CLASSES),
    st.text(alphabet='%%%0aF9gGz/?#:@;=~[]\x00\x7f \t"<>é\udcff', max_size=14),
    st.integers(min_value=0, max_value=3),
)
def test_tail_ok_is_the_class_and_the_escapes(cls: str, text: str, start: int) -> None:
    assert grammar.tail_ok(text, start, grammar.class_table(cls)) is _expected(text, start, cls)


@pytest.mark.parametrize(
    "text",
    ["", "%", "%4", "%41", "%4g", "%%41", "%41%", "%41%4", "a%41%42b", "%g1", "%1%", "%1",
     "a%", "a%a", "a%aa", "/x%2F?y=%zz", "/x?y#z%", "%41\x00", "\x00", "a b", "é%41"],
)  # fmt: skip
def test_tail_ok_edges(text: str) -> None:
    for cls in CLASSES:
        assert grammar.tail_ok(text, 0, grammar.class_table(cls)) is _expected(text, 0, cls)


def test_http_tail_class_is_the_patterns() -> None:
    """:data:`http._TAIL_CLASS` is the default pattern's search and fragment classes with "#",
    and its path class with "?" and "#" (what ``_parse_long``'s proof reads)."""
    classes = re.findall(r"\[([^\]]*)\]\*\+", http._DEFAULT_HOST.pattern)
    path, search, fragment = classes[-3:]

    def members(cls: str) -> set[str]:
        return {chr(b) for b in range(1, 128) if re.fullmatch(f"[{cls}]", chr(b))}

    tail = members(http._TAIL_CLASS)
    assert members(path) == tail - {"?", "#"}
    assert members(search) == tail - {"#"}
    assert members(fragment) == tail - {"#"}


def _one_match(text: str, start: int) -> object:
    return http._httpurl_from_match(
        http.HTTPURL, http._DEFAULT_HOST.fullmatch(text, start), text, start, "http"
    )


def _two_steps(text: str, start: int) -> object:
    return http._parse_long(http.HTTPURL, text, start, "http")


def _same(text: str) -> bool:
    """Both readings of ``text`` (an http URL without "@") give the same URL or None."""
    start = text.find(":") + 1
    one = _one_match(text, start)
    two = _two_steps(text, start)
    assert (one is None) is (two is None), text
    if one is not None:
        assert one == two and str(one) == str(two), text
        assert one.to_json() == two.to_json(), text  # type: ignore[attr-defined]
    return one is not None


def test_http_two_steps_are_the_one_match_on_the_mixes_and_their_mutations() -> None:
    bench = load_bench()
    rng = random.Random(7)
    taken = 0
    for mix in MIXES:
        for seed in (11, 20261129):
            for text in bench.make_urls(1200, mix=mix, seed=seed):
                if not text.lower().startswith(("http:", "https:")):
                    continue
                for t in (text, *_mutations(text, rng), _other_mutations(text, rng)):
                    if "@" not in t and t.lower().startswith(("http:", "https:")):
                        taken += _same(t)
    assert taken > 5000  # (most of them read as URLs)


_HTTP_CHARS = "aZ09-._~!$&'()*+,;=:/?#%[]@ \"<>\\^`{|}\x00\x7fé"


@settings(max_examples=2000, deadline=None)
@given(
    st.sampled_from(["//h", "//h.example:80", "//[::1]", "//1.2.3.4", "//h:", "//[fe80::1%25x]"]),
    st.text(alphabet=_HTTP_CHARS, max_size=40),
)
def test_http_two_steps_are_the_one_match_on_generated_text(head: str, rest: str) -> None:
    text = "http:" + head + rest
    if "@" not in text:
        _same(text)


@pytest.mark.parametrize("extra", [-2, -1, 0, 1, 2])
def test_urls_at_the_length_where_the_reading_changes(extra: int) -> None:
    """URLs either side of ``http._LONG`` (and long ones of every component) read as the
    general way reads them, and take the fast path."""
    base = "http://h.example/"
    n = http._LONG - (len(base) - len("http:")) + extra
    for body in ("a" * n, "a%41" * (n // 4) + "b" * (n % 4), "p?" + "q" * (n - 2)):
        text = base + body
        assert outcome(text) == general(text)
        assert used_fast(text)
        for bad in ("%", "%4", " ", "#a#", "%zz", "<"):
            wrong = text + bad
            assert outcome(wrong) == general(wrong)


LONG = [
    "https://h.example/" + "/".join(["seg%C3%A9x"] * 60) + "?" + "&".join(["a=b%2Fc"] * 40),
    "http://h.example:8080/" + "x" * 900 + "#" + "f/?" * 100,
    "http://[::1]/" + "p" * 300 + "?" + "q?/" * 100,
    "http://h.example?" + "k=v&" * 200,
    "http://h.example#" + "a" * 300,
    "http://h.example/" + "a" * 300 + "%",
    "http://h.example/" + "a" * 300 + "%a",
    "http://h.example/" + "a" * 300 + "#a#b",
    "http://h.example/" + "a" * 300 + "%%41",
    "http://h.example/" + "a" * 300 + "[x]",
    "http://h.example/" + "a" * 300 + "\x00",
    "http://h.example/" + "a" * 300 + "é",
    "http://h.example/" + "a" * 300 + "%C3%A9" * 30,
    "http://h.example:65536/" + "a" * 300,
    "http://1.2.3.256/" + "a" * 300,
    "http://[1::2::3]/" + "a" * 300,
    "HTTP://H.EXAMPLE/" + "A" * 300,
    "http://h.example" + "a" * 300,
    "http://h.example:/" + "a" * 300,
]


@pytest.mark.parametrize("text", LONG)
def test_long_urls_read_as_the_general_way_reads_them(text: str) -> None:
    assert outcome(text) == general(text)
    _same(text)


def test_a_long_url_is_read_exactly() -> None:
    url = schemes.parse(LONG[0])
    assert url.path == "/" + "/".join(["seg%C3%A9x"] * 60)  # type: ignore[attr-defined]
    assert url.search == "&".join(["a=b%2Fc"] * 40)  # type: ignore[attr-defined]
    assert url.fragment is None
    url = schemes.parse(LONG[1])
    assert (url.port, url.path, url.search, url.fragment) == (  # type: ignore[attr-defined]
        8080,
        "/" + "x" * 900,
        None,
        "f/?" * 100,
    )


#: A few characters beyond US-ASCII (two-, three- and four-byte UTF-8, a line separator, a
#: lone surrogate as surrogateescape keeps a non-UTF-8 octet).
_NON_ASCII = ["é", "\u2028", "日", "😀", "\udcff", "\x80", "\xff"]


def _long_urls_with(piece: str) -> list[str]:
    """``piece`` placed in each component of long http URLs (the path, the search, the
    fragment; first, in the middle and last), either side of :data:`http._LONG`."""
    out = []
    for extra in (0, 1, 200):
        body = "z" * (http._LONG + extra)  # (no hex digit: a stray "%" stays one)
        out += [
            f"http://h.example/{piece}{body}",
            f"http://h.example/{body}{piece}",
            f"http://h.example/{body}{piece}x?q=1",
            f"http://h.example/x?{piece}{body}",
            f"http://h.example/x?{body}{piece}",
            f"http://h.example/x?{body}{piece}#f",
            f"http://h.example/x#{piece}{body}",
            f"http://h.example/x?y#{body}{piece}",
            f"http://h.example:8080{piece}/{body}",
            f"http://h.example?{body}{piece}",
        ]
    return out


@pytest.mark.parametrize("code", range(256))
def test_every_octet_in_every_component_of_a_long_url(code: int) -> None:
    """Each character U+0000-U+00FF, one either side of every class boundary the
    translate's table draws, in each component of a long URL (and at the length where the
    reading changes): the same URL or None as the one match, and as the general way."""
    for text in _long_urls_with(chr(code)):
        _same(text)
        assert outcome(text) == general(text), text


@pytest.mark.parametrize("piece", [*_NON_ASCII, "%", "%4", "%g", "%4g", "%%", "%g4", "%41%"])
def test_non_ascii_and_stray_percents_in_every_component_of_a_long_url(piece: str) -> None:
    """Non-ASCII text and a "%" that starts no escape (at the end, with one hex digit, with
    a non-hex one) in each component of a long URL: as the one match and the general way."""
    for text in _long_urls_with(piece):
        _same(text)
        assert outcome(text) == general(text), text
        if piece.startswith("%"):
            assert outcome(text)[0] != "HTTPURL", text  # (refused, as the general way does)


# -- mailto: the addresses by bytes.translate, the rest by re (mailto._parse_long) ------------


def test_mailto_address_class_is_the_patterns() -> None:
    """:data:`mailto._ADDRESS_CLASS` is the default pattern's first class, and holds neither
    "?" nor "#" (what ``_parse_long``'s proof reads)."""
    first = re.findall(r"\[([^\]]*)\]\*\+", mailto._DEFAULT.pattern)[0]

    def members(cls: str) -> set[str]:
        return {chr(b) for b in range(0, 256) if re.fullmatch(f"[{cls}]", chr(b))}

    assert members(first) == members(mailto._ADDRESS_CLASS)
    assert not {"?", "#"} & members(mailto._ADDRESS_CLASS)
    assert mailto._DEFAULT.pattern.endswith(mailto._DEFAULT_REST.source)


def _same_mailto(text: str) -> bool:
    """Both readings of a mailto: ``text`` give the same URL or None."""
    start = text.find(":") + 1
    one = mailto._mailtourl_from_match(
        mailto.MailtoURL, mailto._DEFAULT.fullmatch(text, start), text, start, "mailto"
    )
    two = mailto._parse_long(mailto.MailtoURL, text, start, "mailto")
    assert (one is None) is (two is None), text
    if one is not None:
        assert one == two and str(one) == str(two), text
        assert one.to_json() == two.to_json(), text  # type: ignore[attr-defined]
    return one is not None


def test_mailto_two_steps_are_the_one_match_on_the_mixes_and_their_mutations() -> None:
    bench = load_bench()
    rng = random.Random(8)
    taken = 0
    for mix in MIXES:
        for seed in (12, 20261129):
            for text in bench.make_urls(1200, mix=mix, seed=seed):
                if not text.lower().startswith("mailto:"):
                    continue
                for t in (text, *_mutations(text, rng), _other_mutations(text, rng)):
                    if t.lower().startswith("mailto:"):
                        taken += _same_mailto(t)
    assert taken > 200  # (the mailto: URLs of six mixes, two seeds, and their mutations)


_MAILTO_CHARS = "aZ09-._~!$&'()*+,;=:/?#%@[] \"<>\\^`{|}\x00\x7fé"


@settings(max_examples=2000, deadline=None)
@given(st.text(alphabet=_MAILTO_CHARS, max_size=40))
def test_mailto_two_steps_are_the_one_match_on_generated_text(rest: str) -> None:
    _same_mailto("mailto:" + rest)


def _long_mailto_with(piece: str) -> list[str]:
    out = []
    for extra in (0, 1, 200):
        body = "z" * (mailto._LONG + extra)
        out += [
            f"mailto:{piece}{body}@h.example",
            f"mailto:a@{body}{piece}",
            f"mailto:a@{body}{piece}?subject=x",
            f"mailto:a@{body}{piece}#f",
            f"mailto:a@{body}?{piece}subject=x",
            f"mailto:a@{body}?subject={piece}x&body=y",
            f"mailto:a@{body}?subject=x{piece}",
            f"mailto:a@{body}?subject=x#{piece}",
            f"mailto:?to={body}{piece}",
            f"mailto:a@b,{body}{piece},c@d",
        ]
    return out


@pytest.mark.parametrize("code", range(256))
def test_every_octet_in_every_component_of_a_long_mailto(code: int) -> None:
    """Each character U+0000-U+00FF in each part of a long mailto: URL (the addresses, a
    header field's name and value, the fragment): as the one match and the general way."""
    for text in _long_mailto_with(chr(code)):
        _same_mailto(text)
        assert outcome(text) == general(text), text


@pytest.mark.parametrize("piece", [*_NON_ASCII, "%", "%4", "%g", "%4g", "%%", "%g4", "%41%"])
def test_non_ascii_and_stray_percents_in_a_long_mailto(piece: str) -> None:
    for text in _long_mailto_with(piece):
        _same_mailto(text)
        assert outcome(text) == general(text), text


def test_a_long_mailto_is_read_exactly() -> None:
    to = ",".join(f"u{i}%2Bx@h{i}.example" for i in range(20))
    url = schemes.parse(f"mailto:{to}?cc=a@b&subject=caf%C3%A9#frag")
    assert url.address == ",".join(f"u{i}+x@h{i}.example" for i in range(20))  # type: ignore[attr-defined]
    assert url.headers == (("cc", "a@b"), ("subject", "café"))  # type: ignore[attr-defined]
    assert url.fragment == "frag"
    assert used_fast(f"mailto:{to}?cc=a@b&subject=caf%C3%A9#frag")
