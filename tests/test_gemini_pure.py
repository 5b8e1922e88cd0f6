"""gemini: the URL, the planner, the response machine, gemtext and the pin decision — all
pure, tested with strings and bytes (no socket)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from omniurl import resolvers, schemes
from omniurl.resolvers.errors import (
    AuthError,
    LimitExceeded,
    NotFound,
    PlanError,
    ProtocolError,
    StatusError,
)
from omniurl.resolvers.gemini import gemtext
from omniurl.resolvers.gemini.machine import (
    MAX_HEADER,
    NEED_DATA,
    Data,
    EndOfReply,
    GeminiMachine,
    Header,
    Kind,
    meaning,
)
from omniurl.resolvers.gemini.planner import GeminiDetails, GeminiRole, plan_gemini
from omniurl.resolvers.gemini.settings import GeminiOptions
from omniurl.resolvers.gemini.tofu import KnownHosts, Pin, default_path, host_key, judge
from omniurl.resolvers.options import Options
from omniurl.schemes.errors import AuthorityError, HostError
from omniurl.schemes.gemini import GeminiURL

# -- the URL -------------------------------------------------------------------------------


def test_a_gemini_url_parses_into_its_components() -> None:
    url = schemes.parse("gemini://Example.org/a%20b/c.gmi?x%20y#top")
    assert isinstance(url, GeminiURL)
    assert url.components() == {
        "user": None,
        "password": None,
        "host": "Example.org",
        "port": None,
        "default_port": 1965,
        "path": "/a%20b/c.gmi",
        "query": "x%20y",
    }
    assert url.fragment == "top"
    assert url.effective_port == 1965 and url.hostname == "example.org"
    assert str(url) == "gemini://Example.org/a%20b/c.gmi?x%20y#top"
    assert schemes.parse(str(url)) == url


@pytest.mark.parametrize(
    ("text", "host", "port", "path", "query"),
    [
        ("gemini://h", "h", None, "", None),
        ("gemini://h:1966/", "h", 1966, "/", None),
        ("gemini://h?q", "h", None, "", "q"),
        ("gemini://[::1]:1965/x", "[::1]", 1965, "/x", None),
        ("gemini://h/a/b?c/d?e", "h", None, "/a/b", "c/d?e"),  # RFC 3986's query
    ],
)
def test_the_parts_of_each_form(
    text: str, host: str, port: int | None, path: str, query: str | None
) -> None:
    url = schemes.parse(text)
    assert isinstance(url, GeminiURL)
    assert (url.host, url.port, url.path, url.query) == (host, port, path, query)


@pytest.mark.parametrize("syntax", ["rfc3986", "lenient", "rfc1738"])
def test_userinfo_is_refused_in_every_reading(syntax: str) -> None:
    with pytest.raises(AuthorityError) as info:
        schemes.parse("gemini://user:pw@example.org/", syntax=syntax)
    assert (info.value.component, info.value.offset) == ("user", 9)


def test_an_empty_host_is_refused() -> None:
    with pytest.raises(HostError) as info:
        schemes.parse("gemini:///path")
    assert (info.value.component, info.value.offset) == ("host", 9)


def test_an_iri_is_mapped_to_the_uri_sent() -> None:
    url = schemes.parse("gemini://bücher.example/ä?ö")
    assert str(url) == "gemini://xn--bcher-kva.example/%C3%A4?%C3%B6"


# -- the plan ------------------------------------------------------------------------------


def _plan(text: str, options: Options | None = None, pin: Pin | None = None) -> resolvers.Plan:
    return plan_gemini(
        schemes.parse(text),
        options or Options(),
        known_hosts="/kh",
        host_key="example.org:1965",
        pin=pin,
    )


def test_the_plan_is_the_tls_step_and_the_request_line() -> None:
    plan = _plan("gemini://example.org/docs/?a%20b#frag")
    assert plan.to_json() == {
        "url": "gemini://example.org/docs/?a%20b#frag",
        "scheme": "gemini",
        "host": "example.org",
        "port": 1965,
        "transport": "tcp",
        "steps": [
            "TLS 1.2+ handshake, SNI example.org; first contact: the certificate will be "
            "recorded in /kh",
            "gemini://example.org/docs/?a%20b",
        ],
        "when": [None, None],
    }
    assert [s.role for s in plan.steps] == [GeminiRole.TLS, GeminiRole.REQUEST]
    assert plan.steps[1].data == b"gemini://example.org/docs/?a%20b"
    assert plan.details_as(GeminiDetails).request == b"gemini://example.org/docs/?a%20b"


def test_an_empty_path_is_requested_as_the_root() -> None:
    assert _plan("gemini://example.org").steps[1].data == b"gemini://example.org/"
    assert _plan("gemini://example.org:1966?x").steps[1].data == b"gemini://example.org:1966/?x"


def test_the_plan_shows_the_pin_it_will_check() -> None:
    pin = Pin("ab" * 32, datetime(2027, 1, 2, tzinfo=UTC))
    shown = _plan("gemini://example.org/", pin=pin).steps[0].shown
    assert f"must match the pin SHA256:{'ab' * 32}, expires 2027-01-02 (/kh)" in shown
    insecure = _plan("gemini://example.org/", Options(verify_tls=False), pin=pin)
    assert "-k: the certificate is not checked" in insecure.steps[0].shown
    assert insecure.details_as(GeminiDetails).pin is None


def test_a_request_of_1024_bytes_is_planned_and_1025_refused() -> None:
    head = "gemini://example.org/"
    exact = head + "a" * (1024 - len(head))
    assert len(_plan(exact).steps[1].data) == 1024
    with pytest.raises(PlanError) as info:
        _plan(exact + "a")
    assert info.value.component == "path"
    assert "1025 bytes" in info.value.message and "at most 1024" in info.value.message
    with pytest.raises(PlanError) as by_query:
        _plan(head + "?" + "q" * 1024)
    assert by_query.value.component == "query"


def test_the_resolver_reads_the_pin_from_the_known_hosts_file(tmp_path: Path) -> None:
    known = tmp_path / "kh"
    known.write_text(f"example.org:1965 SHA256:{'cd' * 32} 2027-01-02T00:00:00Z\n")
    options = Options().with_scheme(GeminiOptions(known_hosts=str(known)))
    plan = resolvers.plan("gemini://EXAMPLE.org/", options)
    details = plan.details_as(GeminiDetails)
    assert details.pin == Pin("cd" * 32, datetime(2027, 1, 2, tzinfo=UTC))
    assert (details.host_key, details.known_hosts) == ("example.org:1965", str(known))


def test_the_default_known_hosts_file_is_in_the_xdg_data_dir() -> None:
    env = {"XDG_DATA_HOME": "/data", "HOME": "/home/u"}
    assert default_path(env) == Path("/data/omniurl/gemini_known_hosts")
    assert default_path({"HOME": "/home/u"}) == Path(
        "/home/u/.local/share/omniurl/gemini_known_hosts"
    )
    assert default_path({"XDG_DATA_HOME": "relative", "HOME": "/h"}) == Path(
        "/h/.local/share/omniurl/gemini_known_hosts"
    )


# -- trust on first use --------------------------------------------------------------------


def test_the_pin_decision() -> None:
    a, b = Pin("aa" * 32), Pin("bb" * 32)
    assert judge(None, a).outcome == "first"
    assert judge(a, a).outcome == "trusted"
    changed = judge(a, b)
    assert changed.outcome == "changed"
    assert f"known SHA256:{'aa' * 32}" in changed.note
    assert f"presented SHA256:{'bb' * 32}" in changed.note


def test_the_known_hosts_file_round_trips_one_line_per_host(tmp_path: Path) -> None:
    store = KnownHosts(tmp_path / "sub" / "kh")
    when = datetime(2030, 5, 6, 7, 8, 9, tzinfo=UTC)
    store.record(host_key("Example.org", 1965), Pin("aa" * 32, when))
    store.record(host_key("::1", 1966), Pin("bb" * 32))
    store.record(host_key("example.org", 1965), Pin("cc" * 32, when))
    assert (tmp_path / "sub" / "kh").read_text() == (
        f"example.org:1965 SHA256:{'cc' * 32} 2030-05-06T07:08:09Z\n"
        f"[::1]:1966 SHA256:{'bb' * 32} -\n"
    )
    assert store.lookup("example.org:1965") == Pin("cc" * 32, when)
    assert [p.name for p in (tmp_path / "sub").iterdir()] == ["kh"]  # no temporary left


# -- the response machine ------------------------------------------------------------------


def _events(*chunks: bytes) -> list[object]:
    machine = GeminiMachine()
    out: list[object] = []
    for chunk in (*chunks, b""):
        machine.receive_data(chunk)
        while (event := machine.next_event()) is not NEED_DATA:
            out.append(event)
            if isinstance(event, EndOfReply):
                return out
    return out


def test_a_success_header_then_the_body_to_the_end() -> None:
    assert _events(b"20 text/gemini; charset=utf-8\r\n# Hi\n", b"more") == [
        Header(20, "text/gemini; charset=utf-8"),
        Data(b"# Hi\n"),
        Data(b"more"),
        EndOfReply(),
    ]


def test_the_header_may_come_byte_by_byte() -> None:
    data = b"20 text/plain\r\nok"
    assert _events(*(data[i : i + 1] for i in range(len(data))))[:2] == [
        Header(20, "text/plain"),
        Data(b"o"),
    ]


def test_a_header_other_than_2x_ends_the_reply() -> None:
    assert _events(b"51 Not found\r\nignored") == [Header(51, "Not found"), EndOfReply()]
    assert _events(b"20\r\n") == [Header(20, ""), EndOfReply()]


def test_the_header_is_bounded() -> None:
    fits = b"20 " + b"m" * 1024
    assert len(fits) == MAX_HEADER
    assert _events(fits + b"\r\n")[0] == Header(20, "m" * 1024)
    with pytest.raises(LimitExceeded):
        _events(b"20 " + b"m" * 1025 + b"\r\n")
    with pytest.raises(LimitExceeded):  # never an unbounded wait for the line's end
        machine = GeminiMachine()
        machine.receive_data(b"20 " + b"m" * 5000)
        machine.next_event()


@pytest.mark.parametrize(
    "reply", [b"2 text\r\n", b"200 OK\r\n", b"20text/plain\r\n", b"70 x\r\n", b"HTTP/1.1 200\r\n"]
)
def test_what_is_not_a_header_is_a_protocol_error(reply: bytes) -> None:
    with pytest.raises(ProtocolError):
        _events(reply)


def test_a_connection_closed_before_the_header_is_a_protocol_error() -> None:
    with pytest.raises(ProtocolError, match="before a complete response header"):
        _events(b"20 text/ge")


def test_what_each_status_means() -> None:
    url = "gemini://h/"
    asked = meaning(Header(10, "Your name?"), url)
    assert (asked.kind, asked.prompt, asked.sensitive) == (Kind.INPUT, "Your name?", False)
    assert meaning(Header(11, "Password"), url).sensitive
    content = meaning(Header(20, "text/plain; charset=ISO-8859-1; lang=fr"), url)
    assert (content.kind, content.charset) == (Kind.CONTENT, "iso-8859-1")
    assert meaning(Header(20, ""), url).media_type == "text/gemini; charset=utf-8"
    moved = meaning(Header(31, "/new"), url)
    assert (moved.kind, moved.target, moved.permanent) == (Kind.REDIRECT, "/new", True)
    with pytest.raises(ProtocolError):
        meaning(Header(30, ""), url)
    with pytest.raises(NotFound) as nf:
        meaning(Header(51, "Not found"), url)
    assert (nf.value.code, nf.value.reply) == (51, "51 Not found")
    with pytest.raises(StatusError) as slow:
        meaning(Header(44, "5"), url)
    assert slow.value.status == 44 and "temporary failure" in slow.value.message
    with pytest.raises(StatusError) as bad:
        meaning(Header(59, "Bad request"), url)
    assert bad.value.status == 59
    with pytest.raises(AuthError, match="wants a client certificate: give one with --cert"):
        meaning(Header(60, "Need a certificate"), url)
    with pytest.raises(AuthError, match="not authorised"):
        meaning(Header(61, "No"), url)
    with pytest.raises(AuthError, match="not valid"):
        meaning(Header(62, "Expired"), url)


# -- gemtext -------------------------------------------------------------------------------

DOC = (
    "# Title\n"
    "## Sub\n"
    "### Third\n"
    "Plain text\n"
    "=> /abs Absolute path\n"
    "=>rel.gmi\n"
    "=>\tgemini://other.example/\tTabbed label\n"
    "=> https://example.org/ The web\n"
    "* one\n"
    "* two\n"
    "> a quote\n"
    "```ascii art\n"
    "=> not a link\n"
    "# not a heading\n"
    "```\n"
    "\n"
)


def test_gemtext_lines_by_kind_with_links_made_absolute() -> None:
    lines = gemtext.parse(DOC, "gemini://h.example/dir/page.gmi")
    assert [(ln.kind, ln.text) for ln in lines] == [
        ("heading", "Title"),
        ("heading", "Sub"),
        ("heading", "Third"),
        ("text", "Plain text"),
        ("link", "Absolute path"),
        ("link", "gemini://h.example/dir/rel.gmi"),
        ("link", "Tabbed label"),
        ("link", "The web"),
        ("item", "one"),
        ("item", "two"),
        ("quote", "a quote"),
        ("toggle", "ascii art"),
        ("preformatted", "=> not a link"),
        ("preformatted", "# not a heading"),
        ("toggle", ""),
        ("text", ""),
    ]
    assert [ln.level for ln in lines[:3]] == [1, 2, 3]
    links = [ln for ln in lines if ln.kind == "link"]
    assert [(ln.number, ln.url) for ln in links] == [
        (1, "gemini://h.example/abs"),
        (2, "gemini://h.example/dir/rel.gmi"),
        (3, "gemini://other.example/"),
        (4, "https://example.org/"),
    ]
    assert links[0].to_json() == {
        "kind": "link",
        "text": "Absolute path",
        "url": "gemini://h.example/abs",
        "number": 1,
    }


def test_gemtext_on_a_terminal_numbers_the_links() -> None:
    text = gemtext.render_text(gemtext.parse(DOC, "gemini://h.example/dir/page.gmi"))
    assert text.splitlines()[:13] == [
        "Title",
        "=====",
        "Sub",
        "---",
        "Third",
        "~~~~~",
        "Plain text",
        "[1] Absolute path  <gemini://h.example/abs>",
        "[2] <gemini://h.example/dir/rel.gmi>",
        "[3] Tabbed label  <gemini://other.example/>",
        "[4] The web  <https://example.org/>",
        "  • one",
        "  • two",
    ]
    assert "=> not a link" in text.splitlines()


def test_gemtext_as_html_escapes_and_links_through_the_caller() -> None:
    doc = '# <b>x</b>\n=> /a?x=1&y=2 "quoted" <i>\n* <li>\n```\n<script>\n```\n'
    html = gemtext.render_html(
        gemtext.parse(doc, "gemini://h/"), lambda url: "/" + url.replace("&", "%26")
    )
    assert "<script>" not in html and "<b>" not in html and "<i>" not in html
    assert "<h2>&lt;b&gt;x&lt;/b&gt;</h2>" in html
    assert '<a href="/gemini://h/a?x=1%26y=2">&quot;quoted&quot; &lt;i&gt;</a>' in html
    assert "<ul>\n<li>&lt;li&gt;</li>\n</ul>" in html
    assert "<pre>\n&lt;script&gt;\n</pre>" in html
    unlinked = gemtext.render_html(gemtext.parse("=> x y\n", "gemini://h/"), lambda url: None)
    assert unlinked == "<p>[1] y &lt;gemini://h/x&gt;</p>\n"
