"""The Gopher planner: the exact request (RFC 1738 §3.4), and what the policy refuses."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from omniurl.cli import main
from omniurl.resolvers import Options, check, plan
from omniurl.resolvers.errors import DelimiterRefused, InputNeeded, PlanError, PortRefused
from omniurl.resolvers.gopher.executor import request_bytes
from omniurl.resolvers.gopher.menu import gopher_url
from omniurl.schemes.errors import URLError


async def _ask(prompt: str, secret: bool = False) -> str:
    return "words"


def wire(url: str, options: Options | None = None) -> bytes:
    return request_bytes(check(url, options))


@pytest.mark.parametrize(
    ("url", "request_"),
    [
        # §3.4.1: an empty gopher-path is type "1" and the empty selector.
        ("gopher://h", b"\r\n"),
        ("gopher://h/", b"\r\n"),
        ("gopher://h/1", b"\r\n"),
        # The type character is not sent; a doubled type char is kept in the selector.
        ("gopher://h/0/about.txt", b"/about.txt\r\n"),
        ("gopher://h/00about", b"0about\r\n"),
        # Decoded: any octet but TAB CR LF may be in a selector.
        ("gopher://h/9/a%20b%3F%23%FF", b"/a b?#\xff\r\n"),
        # §3.4.2: selector TAB search.
        ("gopher://h/7/search%09two%20words", b"/search\ttwo words\r\n"),
        # §3.4.3: selector TAB search TAB gopher+ ...
        ("gopher://h/7/search%09words%09+", b"/search\twords\t+\r\n"),
        # ... the search left out when it is empty (draft-ietf-uri-url-07 §3.4.3).
        ("gopher://h/0/a%09%09+", b"/a\t+\r\n"),
        (
            "gopher://h/0/a%09%09+application/postscript%20Es_ES",
            b"/a\t+application/postscript Es_ES\r\n",
        ),
        ("gopher://h/0/a%09%09!", b"/a\t!\r\n"),
        ("gopher://h/0/a%09%09!+ABSTRACT%20+SMELL", b"/a\t!+ABSTRACT +SMELL\r\n"),
        ("gopher://h/1/dir%09%09$", b"/dir\t$\r\n"),
        ("gopher://h/1/dir%09%09$+VIEWS", b"/dir\t$+VIEWS\r\n"),
        # §3.4.9: a filled-in form is sent exactly as the URL codes it.
        (
            "gopher://h/0/form%09%09+%091%0D%0A+-1%0D%0AAnn%0D%0A..x%0D%0A.%0D%0A",
            b"/form\t+\t1\r\n+-1\r\nAnn\r\n..x\r\n.\r\n",
        ),
        # §3.4.5: a "?" item: the +ASK attribute is fetched first.
        ("gopher://h/0/form%09%09?", b"/form\t!+ASK\r\n"),
    ],
)
def test_exact_request(url: str, request_: bytes) -> None:
    assert wire(url) == request_


def test_plan_shape_and_port() -> None:
    p = check("gopher://Example.ORG:7070/1/docs")
    assert (p.host, p.port, p.transport, p.explicit_port) == ("example.org", 7070, "tcp", True)
    assert p.to_json()["steps"] == ["/docs"]
    assert check("gopher://h/").port == 70


@pytest.mark.parametrize(
    ("url", "component", "octet"),
    [
        ("gopher://h/0/a%09b%09+%09x", "gopher_plus", 0x09),
        ("gopher://h/0/a%09%09+%0D%0Aevil", "gopher_plus", 0x0D),
        ("gopher://h/0/a%09%09!%0Aevil", "gopher_plus", 0x0A),
        ("gopher://h/0/a%00b", "selector", 0x00),
        # A data block with bytes after its end is not a form: the whole string is refused.
        ("gopher://h/0/f%09%09+%091%0D%0A+-1%0D%0Aa%0D%0A.%0D%0AQUIT%0D%0A", "gopher_plus", 0x09),
        # An answer holding a lone CR inside a form line.
        (
            "gopher://h/0/f%09%09+%091%0D%0A+-1%0D%0Aa%0Db%0D%0A.%0D%0A",
            "gopher_plus[answer 1]",
            0x0D,
        ),
    ],
)
def test_delimiters_refused_by_the_policy(url: str, component: str, octet: int) -> None:
    p = plan(url)  # planning is fine; the policy refuses
    assert p.steps
    with pytest.raises(DelimiterRefused) as info:
        check(url)
    assert info.value.component == component
    assert info.value.octet == octet


def test_search_item_without_search_needs_input() -> None:
    with pytest.raises(InputNeeded) as info:
        plan("gopher://h/7/search")
    assert info.value.component == "search"
    assert "search words" in info.value.message


def test_search_item_with_ask_plans_a_step_that_sends_nothing() -> None:
    p = check("gopher://h/7/search", Options(ask=_ask))
    assert [s.kind for s in p.steps] == ["info"]
    assert request_bytes(p) == b""


def test_form_plan_shows_both_halves_of_the_request() -> None:
    p = check("gopher://h/0/f%09%09+%091%0D%0A+-1%0D%0AAnn%0D%0A.%0D%0A")
    assert p.to_json()["steps"] == ["/f\t+\t1", "+-1\r\nAnn\r\n.\r\n"]
    assert [s.kind for s in p.steps] == ["send", "message"]


@pytest.mark.parametrize(("url", "word"), [("gopher://h/8x", "telnet"), ("gopher://h/2x", "cso"),
                                           ("gopher://h/3x", "error")])  # fmt: skip
def test_types_that_are_not_documents(url: str, word: str) -> None:
    with pytest.raises(PlanError) as info:
        plan(url)
    assert info.value.component == "gtype"
    assert word in info.value.message


def test_port_policy_applies() -> None:
    with pytest.raises(PortRefused):
        check("gopher://h:6379/0/x")
    with pytest.raises(PortRefused):
        check("gopher://h:25/0/x")


def test_cli_plan_prints_the_request_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "gopher://localhost:7070/7search%09words%09+"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["steps"] == ["search\twords\t+"]
    assert out["port"] == 7070


def test_cli_plan_refusal(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "gopher://h/0a%09b%09+%0D%0AQUIT"]) == 2
    out = json.loads(capsys.readouterr().out)
    assert out["error"]["type"] == "DelimiterRefused"
    assert out["error"]["component"] == "gopher_plus"


# -- properties: the URL's octets are exactly the request's ---------------------------------

_SAFE_OCTET = st.integers(0, 255).filter(lambda o: o not in (0x00, 0x09, 0x0A, 0x0D))


@given(
    st.lists(_SAFE_OCTET, max_size=40).map(bytes),
    st.one_of(st.none(), st.lists(_SAFE_OCTET, min_size=1, max_size=20).map(bytes)),
)
def test_any_selector_and_search_reach_the_wire_unchanged(
    selector: bytes, search: bytes | None
) -> None:
    url = gopher_url("h", 7070, "0", selector, search=search)
    expected = selector + (b"" if search is None else b"\t" + search) + b"\r\n"
    assert wire(url) == expected


@given(
    st.lists(_SAFE_OCTET, max_size=20).map(bytes),
    # (A TAB cannot be inside a selector of a URL: %09 *is* the separator, §3.4.1.)
    st.sampled_from([0x00, 0x0A, 0x0D]),
    st.lists(_SAFE_OCTET, max_size=20).map(bytes),
)
def test_a_delimiter_anywhere_in_the_selector_is_refused(a: bytes, octet: int, b: bytes) -> None:
    url = gopher_url("h", 7070, "0", a + bytes([octet]) + b)
    with pytest.raises((DelimiterRefused, URLError)) as info:
        check(url)
    if isinstance(info.value, DelimiterRefused):
        assert info.value.octet == octet
    assert info.value.component in ("selector", "search", "gopher_plus")
