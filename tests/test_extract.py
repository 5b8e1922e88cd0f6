"""schemes.extract: RFC 1738's appendix "Recommendations for URLs in Context", and the CLI."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from omniurl.cli import main
from omniurl.schemes import Found, extract

# The appendix's example, as RFC 1738 prints it (three spaces of indentation) ...
JIM_RFC = """\
   Yes, Jim, I found it under <URL:ftp://info.cern.ch/pub/www/doc;
   type=d> but you can probably pick it up from <URL:ftp://ds.in
   ternic.net/rfc>.  Note the warning in <URL:http://ds.internic.
   net/instructions/overview.html#WARNING>.
"""
# ... and as specs/000_… has it (indentation lost, single spaces).
JIM_SPEC = """\
Yes, Jim, I found it under <URL:ftp://info.cern.ch/pub/www/doc;
type=d> but you can probably pick it up from <URL:ftp://ds.in
ternic.net/rfc>. Note the warning in <URL:http://ds.internic.
net/instructions/overview.html#WARNING>.
"""
JIM_URLS = [
    "ftp://info.cern.ch/pub/www/doc;type=d",
    "ftp://ds.internic.net/rfc",
    "http://ds.internic.net/instructions/overview.html#WARNING",
]


@pytest.mark.parametrize("text", [JIM_RFC, JIM_SPEC])
def test_the_appendix_example_yields_exactly_its_three_urls(text: str) -> None:
    found = extract(text)
    assert [f.url for f in found] == JIM_URLS
    for f in found:
        assert f.wrapper == "<URL:>"
        assert not f.ambiguous
        assert text[f.start : f.end].startswith("<URL:")
        assert text[f.start : f.end].endswith(">")
        assert f.span == (f.start, f.end)
    # each wrapper's span holds the URL's characters, in order, and whitespace only besides
    for f in found:
        inside = text[f.start + len("<URL:") : f.end - 1]
        assert "".join(inside.split()) == f.url


def test_the_references_of_rfc1738() -> None:
    # From RFC 1738's reference list: URLs broken before a "/" and after a "-"-free name.
    text = """\
   [2] Anklesaria, F., Lindner, P., McCahill, M., Torrey, D.,
       Johnson, D., and B. Alberti, "Gopher+: Upward compatible
       enhancements to the Internet Gopher protocol",
       University of Minnesota, July 1993.
       <URL:ftp://boombox.micro.umn.edu/pub/gopher/gopher_protocol
       /Gopher+/Gopher+.txt>

   [12] Kunze, J., "Functional Requirements for Internet Resource
        Locators", Work in Progress, December 1994.
        <URL:ftp://ds.internic.net/internet-drafts
        /draft-ietf-uri-irl-fun-req-02.txt>

   [18] Yeong, W. "Towards Networked Information Retrieval", Technical
        report 91-06-25-01, Performance Systems International, Inc.
        <URL:ftp://uu.psi.com/wp/nir.txt>, June 1991.
"""
    assert [f.url for f in extract(text)] == [
        "ftp://boombox.micro.umn.edu/pub/gopher/gopher_protocol/Gopher+/Gopher+.txt",
        "ftp://ds.internic.net/internet-drafts/draft-ietf-uri-irl-fun-req-02.txt",
        "ftp://uu.psi.com/wp/nir.txt",
    ]


def test_hyphen_at_a_line_break_is_reported_as_ambiguous() -> None:
    text = "See <URL:http://ds.inter-\n     nic.net/x-y/a-\r\n b> now."
    (found,) = extract(text)
    assert found.url == "http://ds.inter-nic.net/x-y/a-b"
    assert found.hyphen_breaks == (15, 29)
    assert found.url[15] == found.url[29] == "-"
    assert found.ambiguous
    assert found.without_break_hyphens == "http://ds.internic.net/x-y/ab"
    assert found.to_json() == {
        "url": "http://ds.inter-nic.net/x-y/a-b",
        "start": 4,
        "end": len(text) - len(" now."),
        "wrapper": "<URL:>",
        "ambiguous_hyphens": [15, 29],
        "alternative": "http://ds.internic.net/x-y/ab",
    }


def test_hyphen_before_spaces_without_a_line_break_is_not_ambiguous() -> None:
    (found,) = extract("<URL:http://a/b-  c>")
    assert found.url == "http://a/b-c"
    assert not found.ambiguous
    assert found.to_json()["alternative"] is None


def test_whitespace_of_every_kind_is_ignored_inside_a_wrapper() -> None:
    (found,) = extract(
        "<URL:\n\tgopher://spinaltap.micro.umn.edu/00/Weather/\r\n  California/Los%20Angeles >"
    )
    assert found.url == "gopher://spinaltap.micro.umn.edu/00/Weather/California/Los%20Angeles"
    # whitespace around the prefix too, and the prefix in any case
    found = extract("< URL:ftp://a/b>  <url:news:comp.x>")
    assert [(f.url, f.wrapper) for f in found] == [
        ("ftp://a/b", "<URL:>"),
        ("news:comp.x", "<URL:>"),
    ]


def test_fragment_stays_inside_the_brackets() -> None:
    # "the identifier would be placed within the brackets as well"
    (found,) = extract("<URL:http://a/b.html#sec-2>")
    assert found.url == "http://a/b.html#sec-2"


def test_angle_brackets_without_prefix() -> None:
    text = "Mail <mailto:joe@example.org> or <Joe@example.org>; <Note: no URL> <x-foo:bar>"
    found = extract(text)
    assert [(f.url, f.wrapper) for f in found] == [("mailto:joe@example.org", "<>")]
    assert text[found[0].start : found[0].end] == "<mailto:joe@example.org>"
    # <URL:...> accepts any scheme; plain <...> only known ones, or those the caller names
    assert [f.url for f in extract("<URL:x-foo:bar>")] == ["x-foo:bar"]
    assert [f.url for f in extract(text, schemes=["X-Foo"])] == [
        "mailto:joe@example.org",
        "x-foo:bar",
    ]


@pytest.mark.parametrize("text", ["<URL:>", "<URL: \n >", "<URL:not a url>", "<>", "<http:>"])
def test_wrappers_without_a_url_yield_nothing(text: str) -> None:
    assert extract(text) == []


def test_bare_urls() -> None:
    text = (
        "Get it from ftp://ftp.example.org/pub/file.txt. Or (see http://a.b/c_(d)), "
        "HTTP://A.B/x!, news:comp.infosystems.www; and telnet://h:23/? "
        'Not xhttp://no, not http: alone, not Note:this, not "http://" or file:/// alone.'
    )
    found = extract(text)
    assert [f.url for f in found] == [
        "ftp://ftp.example.org/pub/file.txt",
        "http://a.b/c_(d)",
        "HTTP://A.B/x",
        "news:comp.infosystems.www",
        "telnet://h:23/",
    ]  # "xhttp:" is no known scheme, and "http" inside it does not start at a boundary
    for f in found:
        assert f.wrapper is None
        assert text[f.start : f.end] == f.url


def test_bare_url_prefix_and_unclosed_wrapper() -> None:
    assert [f.url for f in extract("URL:http://a/b")] == ["http://a/b"]
    (found,) = extract("an unclosed <URL:http://a/b and more")
    assert (found.url, found.wrapper, found.start) == ("http://a/b", None, 17)


def test_bare_url_stops_at_characters_that_cannot_be_in_a_url() -> None:
    assert [f.url for f in extract('"http://a/b"|http://c/d{e}')] == ["http://a/b", "http://c/d"]


def test_wrapped_and_bare_in_order_without_duplicates() -> None:
    text = "a http://one/ b <URL:http://two/> c <http://three/> d http://four/"
    found = extract(text)
    assert [f.url for f in found] == ["http://one/", "http://two/", "http://three/", "http://four/"]
    assert [f.wrapper for f in found] == [None, "<URL:>", "<>", None]
    assert isinstance(found[0], Found)


# -- the CLI ---------------------------------------------------------------------------------


def test_cli_extract_prints_one_url_per_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(JIM_RFC))
    assert main(["extract"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "".join(u + "\n" for u in JIM_URLS)
    assert captured.err == ""


def test_cli_extract_notes_ambiguous_hyphens_on_stderr(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("x\nsee <URL:http://ds.inter-\n nic.net/>\n"))
    assert main(["extract", "-"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "http://ds.inter-nic.net/\n"
    assert captured.err == (
        "omniurl: <stdin>:2: a hyphen ends a line inside http://ds.inter-nic.net/; it may not "
        "be part of the URL (RFC 1738 appendix); without it: http://ds.internic.net/\n"
    )


def test_cli_extract_json_and_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    one = tmp_path / "one.txt"
    one.write_text("<URL:ftp://a/b>\n", encoding="utf-8")
    two = tmp_path / "two.txt"
    two.write_bytes(b"caf\xe9 http://x/y\n")  # not UTF-8: still read
    assert main(["extract", "--json", str(one), str(two)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines == [
        {
            "input": str(one),
            "url": "ftp://a/b",
            "start": 0,
            "end": 15,
            "wrapper": "<URL:>",
            "ambiguous_hyphens": [],
            "alternative": None,
        },
        {
            "input": str(two),
            "url": "http://x/y",
            "start": 5,
            "end": 15,
            "wrapper": None,
            "ambiguous_hyphens": [],
            "alternative": None,
        },
    ]


def test_cli_extract_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["extract", str(tmp_path / "nope.txt")]) == 1
    assert "nope.txt" in capsys.readouterr().err


# -- properties --------------------------------------------------------------------------------

_url_chars = st.sampled_from([*"abcXYZ019-_.+!*'(),;/?:@=&%$", "%41", "-"])


@st.composite
def urls(draw: st.DrawFn) -> str:
    scheme = draw(st.sampled_from(["http", "ftp", "gopher", "news", "mailto", "wais", "file"]))
    sep = "" if scheme in ("news", "mailto") else "//"
    return f"{scheme}:{sep}h" + "".join(draw(st.lists(_url_chars, max_size=30))) + "z"


# Prose: anything but angle brackets and colons (so it holds no URL of its own).
_prose = st.text(
    alphabet=st.characters(blacklist_characters="<>:", blacklist_categories=("Cs",)), max_size=60
)


@given(
    _prose,
    urls(),
    _prose,
    st.lists(st.tuples(st.integers(0, 40), st.sampled_from([" ", "\n", "\n   ", "\t", "\r\n "]))),
)
def test_a_wrapped_url_is_found_in_random_text(
    before: str, url: str, after: str, breaks: list[tuple[int, str]]
) -> None:
    # break the URL with whitespace at random places, as a mailer or typesetter would
    pieces = list(url)
    expected_hyphens = set()
    for pos, ws in sorted(breaks, reverse=True):
        pos = min(pos, len(pieces) - 1)
        pieces.insert(pos + 1, ws)
    body = "".join(pieces)
    text = f"{before} <URL:{body}> {after}"
    index, previous = 0, ""
    for piece in pieces:  # a hyphen, then whitespace holding a line break
        if piece.isspace():
            if "\n" in piece and previous == "-":
                expected_hyphens.add(index - 1)
        else:
            index, previous = index + 1, piece
    (found,) = extract(text)
    assert found.url == url
    assert found.wrapper == "<URL:>"
    assert set(found.hyphen_breaks) == expected_hyphens
    assert text[found.start : found.end] == f"<URL:{body}>"


@given(_prose, urls(), _prose)
def test_a_bare_url_is_found_in_random_text(before: str, url: str, after: str) -> None:
    text = f"{before} {url} {after}"
    (found,) = extract(text)
    assert found.url == url
    assert found.wrapper is None
    assert (found.start, found.end) == (len(before) + 1, len(before) + 1 + len(url))


def test_cli_extract_passes_octets_that_are_not_utf8_through() -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "omniurl", "extract"],
        input=b"caf\xe9 <URL:http://a/\xe9t\xe9> and <URL:http://b/\xc3\xa9>\n",
        capture_output=True,
        timeout=30,
        check=False,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert (done.returncode, done.stderr) == (0, b"")
    assert done.stdout == b"http://a/\xe9t\xe9\nhttp://b/\xc3\xa9\n"


@given(st.lists(st.sampled_from([*"<>URL:http/ -\n\tab.", "<URL:", "http://"])).map("".join))
def test_never_fails_and_spans_are_consistent(text: str) -> None:
    previous_end = 0
    for found in extract(text):
        assert previous_end <= found.start < found.end <= len(text)
        previous_end = found.end
        assert not any(c.isspace() for c in found.url)
        assert all(found.url[i] == "-" for i in found.hyphen_breaks)
