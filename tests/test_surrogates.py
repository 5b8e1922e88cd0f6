"""A lone surrogate anywhere in a text is a typed URL error from every text function
(issue 31 item 21: ``join`` raised ``UnicodeEncodeError`` for 219 of a fuzzing run's inputs).

U+D800-U+DFFF have no UTF-8 form, so a text holding one names no octets and no URL (RFC 3986
§2.5); only U+DC80-U+DCFF, ``surrogateescape``'s stand-ins for the octets 80-FF, are kept.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from omniurl.schemes import EncodingError, URLError, extract, join, normalize, parse, url_safe

LONE = st.one_of(
    st.integers(0xD800, 0xDC7F).map(chr),
    st.integers(0xDD00, 0xDFFF).map(chr),
)
PIECES = st.sampled_from(
    ["http://h/", "a", "/", "?", "#", "%41", "..", ".", "gopher://h/0", "mailto:", "x@y", ":", "é"]
)


@st.composite
def with_surrogate(draw: st.DrawFn) -> tuple[str, int]:
    """A text of URL-ish pieces with one lone surrogate at a known offset."""
    head = "".join(draw(st.lists(PIECES, max_size=6)))
    tail = "".join(draw(st.lists(PIECES, max_size=6)))
    return head + draw(LONE) + tail, len(head)


@st.composite
def plain(draw: st.DrawFn) -> str:
    return "".join(draw(st.lists(PIECES, max_size=6)))


@settings(deadline=None)
@given(with_surrogate(), plain(), st.sampled_from(["3986", "1630"]), st.booleans())
def test_join_names_the_text_and_offset(
    bad: tuple[str, int], other: str, rfc: str, check: bool
) -> None:
    text, at = bad
    for base, ref, component in ((text, other, "base"), ("http://h/a/b", text, "reference")):
        try:
            join(base, ref, rfc=rfc, check=check)  # type: ignore[arg-type]
        except EncodingError as exc:
            assert (exc.component, exc.offset) == (component, at)
        else:
            raise AssertionError(f"{base!r} + {ref!r} joined")


FUNCTIONS: list[tuple[str, Callable[[str], object]]] = [
    ("parse", parse),
    ("parse lenient", lambda t: parse(t, syntax="lenient")),
    ("normalize", normalize),
    ("url_safe", url_safe),
    ("extract", lambda t: [parse(f.url) for f in extract(t)]),
]


@pytest.mark.parametrize(("name", "function"), FUNCTIONS)
@settings(deadline=None)
@given(bad=with_surrogate())
def test_every_text_function_raises_a_url_error(
    name: str, function: Callable[[str], object], bad: tuple[str, int]
) -> None:
    text, at = bad
    try:
        function(text)
    except URLError as exc:
        if isinstance(exc, EncodingError) and "surrogate" in exc.message:
            assert exc.offset == at
    # (no error: extract found no URL around it, or url_safe was never reached)


@pytest.mark.parametrize(
    ("call", "component", "offset"),
    [
        (lambda: join("http://h/a", "/\ud800"), "reference", 1),
        (lambda: join("http://h/a\ud800", "b"), "base", 10),
        (lambda: join("http://h/a", "\udfff", rfc="1630"), "reference", 0),
        (lambda: normalize("http://u\ud800@h/"), "user", 8),
        (lambda: normalize("http://h/a?\ud800"), "search", 11),
        (lambda: url_safe("a b\ud800"), "text", 3),
    ],
)
def test_the_reported_cases(call: Callable[[], object], component: str, offset: int) -> None:
    with pytest.raises(EncodingError) as info:
        call()
    assert (info.value.component, info.value.offset) == (component, offset)


def test_escaped_octets_are_still_octets() -> None:
    # U+DCE9 is surrogateescape's octet E9 (ISO 8859-1 "é"): kept, encoded as %E9.
    assert normalize("http://h/caf\udce9") == "http://h/caf%E9"
    assert url_safe("caf\udce9") == "caf%E9"
