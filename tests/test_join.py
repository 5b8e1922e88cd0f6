"""schemes.join: RFC 3986 §5.4's examples, RFC 1630 §4.1.3's examples, errors, the CLI."""

from __future__ import annotations

import json

import pytest

from omniurl.cli import main
from omniurl.schemes import URLError, join
from omniurl.schemes.errors import SchemeError
from omniurl.schemes.join import remove_dot_segments, split_reference

BASE_3986 = "http://a/b/c/d;p?q"

# RFC 3986 §5.4.1, every line, in the RFC's order.
NORMAL_3986 = [
    ("g:h", "g:h"),
    ("g", "http://a/b/c/g"),
    ("./g", "http://a/b/c/g"),
    ("g/", "http://a/b/c/g/"),
    ("/g", "http://a/g"),
    ("//g", "http://g"),
    ("?y", "http://a/b/c/d;p?y"),
    ("g?y", "http://a/b/c/g?y"),
    ("#s", "http://a/b/c/d;p?q#s"),
    ("g#s", "http://a/b/c/g#s"),
    ("g?y#s", "http://a/b/c/g?y#s"),
    (";x", "http://a/b/c/;x"),
    ("g;x", "http://a/b/c/g;x"),
    ("g;x?y#s", "http://a/b/c/g;x?y#s"),
    ("", "http://a/b/c/d;p?q"),
    (".", "http://a/b/c/"),
    ("./", "http://a/b/c/"),
    ("..", "http://a/b/"),
    ("../", "http://a/b/"),
    ("../g", "http://a/b/g"),
    ("../..", "http://a/"),
    ("../../", "http://a/"),
    ("../../g", "http://a/g"),
]

# RFC 3986 §5.4.2, every line (the strict reading of "http:g").
ABNORMAL_3986 = [
    ("../../../g", "http://a/g"),
    ("../../../../g", "http://a/g"),
    ("/./g", "http://a/g"),
    ("/../g", "http://a/g"),
    ("g.", "http://a/b/c/g."),
    (".g", "http://a/b/c/.g"),
    ("g..", "http://a/b/c/g.."),
    ("..g", "http://a/b/c/..g"),
    ("./../g", "http://a/b/g"),
    ("./g/.", "http://a/b/c/g/"),
    ("g/./h", "http://a/b/c/g/h"),
    ("g/../h", "http://a/b/c/h"),
    ("g;x=1/./y", "http://a/b/c/g;x=1/y"),
    ("g;x=1/../y", "http://a/b/c/y"),
    ("g?y/./x", "http://a/b/c/g?y/./x"),
    ("g?y/../x", "http://a/b/c/g?y/../x"),
    ("g#s/./x", "http://a/b/c/g#s/./x"),
    ("g#s/../x", "http://a/b/c/g#s/../x"),
    ("http:g", "http:g"),
]


@pytest.mark.parametrize(("ref", "expected"), NORMAL_3986 + ABNORMAL_3986)
def test_rfc3986_examples(ref: str, expected: str) -> None:
    assert join(BASE_3986, ref) == expected
    assert join(BASE_3986, ref, rfc="3986") == expected


def test_rfc3986_http_g_backward_compatible() -> None:
    # §5.4.2: "http:g" = "http://a/b/c/g" ; for backward compatibility
    assert join(BASE_3986, "http:g", strict=False) == "http://a/b/c/g"
    assert join(BASE_3986, "HTTP:g", strict=False) == "http://a/b/c/g"
    # a different scheme stays absolute even then
    assert join(BASE_3986, "ftp:g", strict=False) == "ftp:g"


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        # RFC 3986 §5.2.4's two worked examples
        ("/a/b/c/./../../g", "/a/g"),
        ("mid/content=5/../6", "mid/6"),
        # the algorithm's own corner cases
        ("a/..", "/"),
        ("../a", "a"),
        ("/.", "/"),
        (".", ""),
        ("", ""),
        ("/a//../b", "/a/b"),
    ],
)
def test_remove_dot_segments(path: str, expected: str) -> None:
    assert remove_dot_segments(path) == expected


# RFC 1630 §4.1.3 (French text, specs/001_…): "Dans le contexte de l'URI
# "magic://a/b/c//d/e/f" les URI partiels vont s'articuler comme suit", and "dans le contexte
# de l'URI "magic://a/b/c//d/e/" le résultat serait exactement le même".
EXAMPLES_1630 = [
    ("g", "magic://a/b/c//d/e/g"),
    ("/g", "magic://a/g"),
    ("//g", "magic://g"),
    ("../g", "magic://a/b/c//d/g"),
    ("g:h", "g:h"),
]


@pytest.mark.parametrize("base", ["magic://a/b/c//d/e/f", "magic://a/b/c//d/e/"])
@pytest.mark.parametrize(("ref", "expected"), EXAMPLES_1630)
def test_rfc1630_examples(base: str, ref: str, expected: str) -> None:
    assert join(base, ref, rfc="1630") == expected


def test_rfc1630_multiple_slash_rule_differs_from_3986() -> None:
    base = "magic://a/b/c//d/e/f"
    # RFC 3986 reads "//g" the same way here, but a run of three slashes only exists in 1630.
    assert join(base, "///g", rfc="1630") == "magic:///g"  # no run of 3: only the scheme kept
    assert join("magic://a/b///c/d", "///g", rfc="1630") == "magic://a/b///g"
    assert join("magic://a/b///c//d", "//g", rfc="1630") == "magic://g"
    # RFC 3986 has no such rule: "//" is always an authority
    assert join("magic://a/b///c/d", "///g") == "magic:///g"


def test_rfc1630_dots_and_fragments() -> None:
    base = "magic://a/b/c//d/e/f#frag"
    # "xxx/../" and "/." removed, "xxx" being a complete element (the empty one of "//" too)
    assert join(base, "./g", rfc="1630") == "magic://a/b/c//d/e/g"
    assert join(base, "../../g", rfc="1630") == "magic://a/b/c//g"
    assert join(base, "../../../g", rfc="1630") == "magic://a/b/c/g"
    assert join(base, ".", rfc="1630") == "magic://a/b/c//d/e/"
    assert join(base, "g/..", rfc="1630") == "magic://a/b/c//d/e/"
    assert join(base, "g.", rfc="1630") == "magic://a/b/c//d/e/g."
    # an unpaired ".." is kept as written (RFC 3986 drops it)
    assert join("magic://a/b", "../../g", rfc="1630") == "magic://a/../../g"
    assert join("magic://a/b/c", "../../g", rfc="1630") == "magic://a/../g"
    assert join("magic://a/b", "../../g") == "magic://a/g"
    # the context's fragment never carries over; the reference's does
    assert join(base, "", rfc="1630") == "magic://a/b/c//d/e/f"
    assert join(base, "#x", rfc="1630") == "magic://a/b/c//d/e/f#x"
    assert join(base, "g#x/../y", rfc="1630") == "magic://a/b/c//d/e/g#x/../y"
    # a query is not hierarchy: dots in it stay, and slashes in the context's query are not runs
    assert join(base, "g?y/../x", rfc="1630") == "magic://a/b/c//d/e/g?y/../x"
    assert join("magic://a/b?x//y", "//g", rfc="1630") == "magic://g"
    assert join("magic://a/b/c?x/y", "g", rfc="1630") == "magic://a/b/g"
    # literal where RFC 1808/3986 changed things: "?y" replaces the last element too, and a
    # reference that starts with a slash is taken as it is
    assert join(base, "?y", rfc="1630") == "magic://a/b/c//d/e/?y"
    assert join(base, "?y") == "magic://a/b/c//d/e/f?y"
    assert join(base, "/./g", rfc="1630") == "magic://a/./g"
    # a host without a path: the reference goes after "/"
    assert join("magic://a", "g", rfc="1630") == "magic://a/g"


def test_fragment_only_and_empty_against_opaque_base() -> None:
    assert join("mailto:joe@example.org", "#x") == "mailto:joe@example.org#x"
    assert join("news:comp.infosystems.www#old", "") == "news:comp.infosystems.www"
    assert join("news:comp.infosystems.www", "#x", rfc="1630") == "news:comp.infosystems.www#x"


@pytest.mark.parametrize("rfc", ["3986", "1630"])
@pytest.mark.parametrize("ref", ["g", "../g", "?y"])
def test_relative_path_against_opaque_base_is_refused(rfc: str, ref: str) -> None:
    if rfc == "1630" and ref == "?y":
        ref = "g?y"
    with pytest.raises(URLError) as info:
        join("mailto:joe@example.org", ref, rfc=rfc)  # type: ignore[arg-type]
    assert info.value.component == "base"
    assert info.value.offset == len("mailto:")
    assert "hierarchical" in info.value.message


@pytest.mark.parametrize("rfc", ["3986", "1630"])
def test_base_must_be_absolute(rfc: str) -> None:
    with pytest.raises(SchemeError) as info:
        join("/a/b", "g", rfc=rfc)  # type: ignore[arg-type]
    assert (info.value.component, info.value.offset) == ("base", 0)


@pytest.mark.parametrize(
    ("ref", "offset", "shown"),
    [("g h", 1, "%20"), ("g\n", 1, "%0A"), ("\tg", 0, "%09"), ("g\x7f", 1, "%7F")],
)
def test_whitespace_and_controls_are_refused(ref: str, offset: int, shown: str) -> None:
    with pytest.raises(URLError) as info:
        join(BASE_3986, ref)
    assert (info.value.component, info.value.offset) == ("reference", offset)
    assert shown in info.value.message


def test_colon_in_first_segment_is_not_a_scheme() -> None:
    # RFC 3986 §4.2: such a reference must be written "./1a:b"
    with pytest.raises(SchemeError) as info:
        join(BASE_3986, "1a:b")
    assert info.value.component == "reference"
    assert join(BASE_3986, "./1a:b") == "http://a/b/c/1a:b"
    # RFC 1738 §2.1 allows a scheme to start with a digit: RFC 1630 mode takes it as absolute
    assert join(BASE_3986, "1a:b", rfc="1630") == "1a:b"


def test_unknown_rule() -> None:
    with pytest.raises(ValueError, match="1808"):
        join(BASE_3986, "g", rfc="1808")  # type: ignore[arg-type]


def test_split_reference_components() -> None:
    ref = split_reference("http://u@a:8/p;x?q=1#f")
    assert ref == ("http", "u@a:8", "/p;x", "q=1", "f")
    assert split_reference("") == (None, None, "", None, None)
    assert split_reference("?#") == (None, None, "", "", "")
    assert split_reference("http://u@a:8/p;x?q=1#f").unsplit() == "http://u@a:8/p;x?q=1#f"


# -- the CLI ---------------------------------------------------------------------------------


def test_cli_join_prints_one_target_per_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["join", BASE_3986, "../g", "?y", "#s"]) == 0
    assert capsys.readouterr().out == "http://a/b/g\nhttp://a/b/c/d;p?y\nhttp://a/b/c/d;p?q#s\n"


def test_cli_join_rfc1630(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["join", "--rfc", "1630", "magic://a/b/c//d/e/f", "/g", "//g"]) == 0
    assert capsys.readouterr().out == "magic://a/g\nmagic://g\n"
    assert main(["join", "--rfc1630", "magic://a/b/c//d/e/", "../g"]) == 0
    assert capsys.readouterr().out == "magic://a/b/c//d/g\n"


def test_cli_join_backward_compatible(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["join", BASE_3986, "http:g"]) == 0
    assert main(["join", "--backward-compatible", BASE_3986, "http:g"]) == 0
    assert capsys.readouterr().out == "http:g\nhttp://a/b/c/g\n"


def test_cli_join_error_is_json_and_status_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["join", BASE_3986, "g", "g h"]) == 2
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "http://a/b/c/g"
    error = json.loads(out[1])["error"]
    assert error["type"] == "URLError"
    assert (error["component"], error["offset"]) == ("reference", 1)


# -- with the parser (schemes.parse) -------------------------------------------------------------


def test_url_objects_as_base_and_reference() -> None:
    from omniurl import schemes

    base = schemes.parse("http://a/b/c/d;p?q#frag")
    assert join(base, "../g") == "http://a/b/g"
    assert join(base, "#s") == "http://a/b/c/d;p?q#s"
    assert join(base, schemes.parse("ftp://h/x")) == "ftp://h/x"
    assert join(schemes.parse("magic://a/b/c//d/e/f"), "/g", rfc="1630") == "magic://a/g"


def test_the_fragment_of_a_result_is_split_off_at_parse_time() -> None:
    from omniurl import schemes

    url = schemes.parse(join(BASE_3986, "g?y#s"))
    assert url.fragment == "s"
    assert url.to_json()["search"] == "y"
    assert url.to_json()["path"] == "/b/c/g"


def test_a_long_reference_joins_exactly() -> None:
    """1.1 MiB of dot segments (remove_dot_segments used to re-slice its input, quadratic:
    a 1 MiB reference took 7.1 s; the figure is in the README's reliability section)."""
    ref = "a/./b/../" * (128 * 1024)
    assert join("http://h/x/", ref) == "http://h/x/" + "a/" * (128 * 1024)
