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


@pytest.mark.parametrize("ref", ["g", "../g", "g?y"])
def test_rfc1630_relative_path_against_opaque_base_is_refused(ref: str) -> None:
    # RFC 1630 §4.1.3 only knows hierarchical contexts ("the last part of the path of the
    # context URI ... is removed"): its mode keeps refusing such a base.
    with pytest.raises(URLError) as info:
        join("mailto:joe@example.org", ref, rfc="1630")
    assert info.value.component == "base"
    assert info.value.offset == len("mailto:")
    assert "hierarchical" in info.value.message


# RFC 3986 §5.2 against bases with no authority and a rootless path: §5.2.2-§5.2.4 are text
# operations and apply as they do to any base (the merge keeps the base path up to its last
# "/"; remove_dot_segments keeps a rootless path rootless).
ROOTLESS_BASES = [
    # (base, reference, target)
    ("foo:a/b", "c/d", "foo:a/c/d"),
    ("foo:a/b", "/c/d", "foo:/c/d"),
    ("foo:a/b", "../c", "foo:c"),
    ("foo:a/b/c", "../../../../x", "foo:x"),
    ("foo:a/y/z", "../b/c", "foo:a/b/c"),
    ("foo:a", "b/c", "foo:b/c"),
    ("foo:a", "./b/c", "foo:b/c"),
    ("foo:a", "/./b/c", "foo:/b/c"),
    ("foo:a", ".", "foo:"),
    ("foo:a", "..", "foo:"),
    ("foo:a", "b//c", "foo:b//c"),
    ("foo:", "a", "foo:a"),
    ("foo:", "./a:b", "foo:a:b"),
    ("foo:a:b/c", "d", "foo:a:b/d"),
    ("foo:a/b?c#d", "", "foo:a/b?c"),
    ("foo:a/b", "?q", "foo:a/b?q"),
    ("foo:a/b?x", "#f", "foo:a/b?x#f"),
    ("foo:a/b", "//h/x/../y", "foo://h/y"),
    ("foo:a/b", "g:h", "g:h"),
    ("zz:abc", "/foo/../bar", "zz:/bar"),
    ("zz:abc", "/foo/../../../bar", "zz:/bar"),
    ("zz:abc", "foo/../bar", "zz:bar"),
    ("zz:abc", "foo/../../../bar", "zz:bar"),
    ("zz:abc", "zz:.", "zz:"),
    ("foo:bar", "http://example/a/b?c/../d", "http://example/a/b?c/../d"),
    ("mailto:local@domain?query1", "?query2", "mailto:local@domain?query2"),
    ("mailto:local1@domain1?query1", "local2@domain2", "mailto:local2@domain2"),
    ("mailto:?query1", "local@domain?query2", "mailto:local@domain?query2"),
    ("mailto:local", "local/qual@domain.org#frag", "mailto:local/qual@domain.org#frag"),
    ("mailto:local/q1@d1.org", "more/q2@d2.org", "mailto:local/more/q2@d2.org"),
    ("mid:m@example.ord/c@example.org", "c2@example.org", "mid:m@example.ord/c2@example.org"),
    ("news:comp.lang.python", "?x", "news:comp.lang.python?x"),
    ("urn:isbn:0451450523", "x", "urn:x"),
    ("http:base", "http:this", "http:this"),
    # §3.3: with no authority a path cannot begin with "//"; "/." keeps it a path
    ("f:/a", ".//g", "f:/.//g"),
    ("foo:", "/.//x", "foo:/.//x"),
    ("file:/a/b", "..//x", "file:/.//x"),
]


@pytest.mark.parametrize(("base", "ref", "target"), ROOTLESS_BASES)
def test_rfc3986_resolves_against_bases_without_hierarchy(base: str, ref: str, target: str) -> None:
    assert join(base, ref) == target
    assert split_reference(target).scheme is not None


def test_cli_join_against_a_rootless_base(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["join", "foo:a/b", "c/d", "../c"]) == 0
    assert main(["join", "mailto:local@domain?query1", "?query2"]) == 0
    assert capsys.readouterr().out == "foo:a/c/d\nfoo:c\nmailto:local@domain?query2\n"


@pytest.mark.parametrize(
    ("base", "ref", "cls", "component"),
    [
        # a target the scheme's class reads: its own fields
        ("mailto:local", "local/qual@domain.org#frag", "MailtoURL", None),
        ("news:comp.lang.python", "alt.test", "NewsURL", None),
        ("mid:m@example.ord/c@example.org", "c2@example.org", "MidURL", None),
        # a target that is RFC 3986 syntax but not a URL of its scheme: a typed error that
        # names the scheme's component, never a wrong object
        ("mailto:local@domain?query1", "?query2", "SchemeSyntaxError", "headers"),
        ("mid:m@example.org", "x", "SchemeSyntaxError", "message_id"),
        ("nntp:comp.lang.python", "x", "SchemeSyntaxError", "authority"),
        ("http:base", "x", "SchemeSyntaxError", "authority"),
    ],
)
def test_targets_of_known_schemes_are_read_by_their_class(
    base: str, ref: str, cls: str, component: str | None
) -> None:
    from omniurl import schemes

    target = join(base, ref)
    if component is None:
        assert type(schemes.parse(target)).__name__ == cls
        return
    with pytest.raises(URLError) as info:
        schemes.parse(target)
    assert type(info.value).__name__ == cls
    assert info.value.component == component
    assert info.value.offset is not None


def test_cli_join_notes_a_target_its_scheme_does_not_read(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # §5.2's target is printed as the RFC gives it (exit 0); standard error says what the
    # scheme's class answers, with the component and offset.
    assert main(["join", "mailto:local@domain?query1", "?query2", "x@y?subject=z"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "mailto:local@domain?query2\nmailto:x@y?subject=z\n"
    assert captured.err.splitlines() == [
        "omniurl: note: mailto:local@domain?query2 is not a mailto: URL: a header field is "
        "written name=value (RFC 6068 §2) (headers, offset 20)"
    ]
    assert main(["join", "foo:a/b", "c/d"]) == 0  # no class: nothing to say
    assert capsys.readouterr() == ("foo:a/c/d\n", "")


def test_remove_dot_segments_stays_the_rfc_algorithm_for_a_single_path() -> None:
    # The public function is §5.2.4 as written (a/.. -> "/"); join keeps rootless merges
    # rootless (foo:a/b + ../c is foo:c, not foo:/c).
    assert remove_dot_segments("a/../c") == "/c"
    assert join("foo:a/b", "../c") == "foo:c"


# -- the reference is a URI reference (RFC 3986 §4.1), checked before it is resolved ---------

INVALID_REFERENCES = [
    # (reference, offset, words in the message)
    ("::", 0, "§4.2"),
    ("1a:b", 0, "§4.2"),
    ("_:x", 0, "§4.2"),
    ("./a b", 3, "%20"),
    ("g|h", 1, "%7C"),
    ("g{x}", 1, "%7B"),
    ("g^", 1, "%5E"),
    ("%zz", 0, "escape"),
    ("a%2", 1, "escape"),
    ("//h:x/", 4, "port"),
    ("//u@s:t@h/", 3, "user"),
    ("//h:80:80/", 3, "':'"),
    ("//[::1/", 2, "never closed"),
    ("//[zz]/", 2, "IPv6"),
    ("//[::1]x/", 7, "':port'"),
    ("/p[1]", 2, "["),
    ("?q#f#g", 4, "#"),
    ("#[x]", 1, "["),
]


@pytest.mark.parametrize(("ref", "offset", "words"), INVALID_REFERENCES)
def test_invalid_reference_is_a_typed_error(ref: str, offset: int, words: str) -> None:
    with pytest.raises(URLError) as info:
        join("foo://a/b/c/d;p?q", ref)
    assert (info.value.component, info.value.offset) == ("reference", offset)
    assert words in info.value.message


@pytest.mark.parametrize(
    "base", ["http://a b/", "http://a/%zz", "foo://h:x/", "mailto:a|b", "g:h#a#b"]
)
def test_invalid_base_is_a_typed_error(base: str) -> None:
    with pytest.raises(URLError) as info:
        join(base, "g")
    assert info.value.component == "base"
    assert info.value.offset is not None


@pytest.mark.parametrize(
    "ref",
    [
        "a:b:c",
        "./1a:b",
        "g;x=1/./y",
        "//[v7.a:b]/",
        "//[fe80::1%25en0]/",
        "//h:/",
        "?/?:@",
        "#/?",
        "é/ü",
        "//u:p@h:0/",
        "~a/%41",
    ],
)
def test_valid_references_are_not_refused(ref: str) -> None:
    assert join("foo://a/b/c/d;p?q", ref)


def test_cli_join_invalid_reference(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["join", "foo://a/b/c/d;p?q", "::", "g"]) == 2
    out = capsys.readouterr().out.splitlines()
    error = json.loads(out[0])["error"]
    assert (error["type"], error["component"], error["offset"]) == ("SchemeError", "reference", 0)
    assert out[1] == "foo://a/b/c/g"


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


def test_check_false_resolves_what_a_lenient_reader_takes() -> None:
    # (the HTTP redirect of a --lenient resolve: its parser judges the target)
    with pytest.raises(URLError):
        join("http://a/b/c", "g|h")
    assert join("http://a/b/c", "g|h", check=False) == "http://a/b/g|h"
    with pytest.raises(URLError):  # whitespace and controls: never
        join("http://a/b/c", "g h", check=False)


@pytest.mark.parametrize(
    ("location", "syntax", "path"),
    [
        ("/a/b", "rfc3986", "/a/b"),
        ("../g|h", "lenient", "/g%7Ch"),  # the lenient reading encodes what it takes
        # a space inside a Location is %20, as curl, wget and browsers take it
        (" /my file.pdf ", "rfc3986", "/my%20file.pdf"),
        ("my file.pdf", "rfc1738", "/x/my%20file.pdf"),
        ("/a b?c d", "lenient", "/a%20b"),
    ],
)
def test_http_redirect_targets(location: str, syntax: str, path: str) -> None:
    from omniurl.resolvers.http.executor import _redirect_target

    target = _redirect_target("http://h/x/y", location, syntax)
    assert target.to_json()["path"] == path


def test_http_redirect_to_an_invalid_reference_is_a_protocol_error() -> None:
    from omniurl.resolvers.errors import ProtocolError
    from omniurl.resolvers.http.executor import _redirect_target

    with pytest.raises(ProtocolError) as info:
        _redirect_target("http://h/x/y", "::")
    assert info.value.component == "location" and "§4.2" in info.value.message
    for location in ("/a\tb", "/a\x01b", "/a\nb"):  # other white space, controls: refused
        with pytest.raises(ProtocolError) as info:
            _redirect_target("http://h/x/y", location)
        assert info.value.component == "location"
        assert f"redirected to {location!r}" in info.value.message
