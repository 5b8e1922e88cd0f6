"""The default reading (schemes.rfc3986): URLs as written today, RFC 1738's meanings.

Every everyday URL the issue reproduced is here with its exact components and, where it
matters, its exact plan; then the examples printed in RFC 3986, 3987, 6068, 6874 and 8089;
then what ``--rfc1738`` still refuses, with its message saying so.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from omniurl import resolvers, schemes
from omniurl.resolvers.options import Options
from omniurl.schemes import EncodingError, HostError, PortError, URLError


def parsed(text: str, **kw: Any) -> dict[str, Any]:
    return schemes.parse(text, **kw).to_json()


def steps(text: str, **options: Any) -> list[str]:
    return [str(s) for s in resolvers.plan(text, Options(**options)).to_json()["steps"]]


# -- the reproduced everyday URLs ------------------------------------------------------------


def test_tilde_is_accepted_and_sent_as_written() -> None:
    assert parsed("http://127.0.0.1:8081/~user/")["path"] == "/~user/"
    assert steps("http://127.0.0.1:8081/~user/")[0] == "GET /~user/ HTTP/1.1"
    ftp = schemes.parse("ftp://127.0.0.1/pub/~user/file.txt")
    assert (ftp.cwd, ftp.name) == (("pub", "~user"), "file.txt")  # type: ignore[attr-defined]
    assert "CWD ~user" in steps("ftp://127.0.0.1/pub/~user/file.txt")
    gopher = schemes.parse("gopher://127.0.0.1/1/~user/")
    assert (gopher.gtype, gopher.selector) == ("1", "/~user/")  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("text", "host", "port", "path", "search"),
    [
        ("http://h/hello.txt?next=/a/b", "h", None, "/hello.txt", "next=/a/b"),  # §3.4
        ("http://h/a?b?c", "h", None, "/a", "b?c"),
        ("http://example.com:/", "example.com", None, "/", None),  # §3.2.3: empty port
        ("http://example.com?q=1", "example.com", None, "", "q=1"),  # §3.3: path-abempty
        ("http://example.com./", "example.com.", None, "/", None),  # a rooted name
        ("http://my_host.example/", "my_host.example", None, "/", None),  # reg-name has "_"
        ("http://ex%61mple.com/", "example.com", None, "/", None),  # §3.2.2: decoded
        ("http://h/a:b@c!$&'()*+,;=", "h", None, "/a:b@c!$&'()*+,;=", None),  # pchar
    ],
)
def test_rfc3986_http_forms(
    text: str, host: str, port: int | None, path: str, search: str | None
) -> None:
    out = parsed(text)
    assert (out["host"], out["port"], out["path"], out["search"]) == (host, port, path, search)
    target = (path or "/") + ("" if search is None else "?" + search)
    assert steps(text)[0] == f"GET {target} HTTP/1.1"  # sent exactly as written


def test_empty_path_with_query_blames_nothing() -> None:
    """The old reading blamed the port for ``http://example.com?q=1``."""
    assert steps("http://example.com?q=1")[:2] == ["GET /?q=1 HTTP/1.1", "Host: example.com"]


def test_an_iri_path_is_sent_as_utf8_escapes() -> None:
    """RFC 3987 §3.1: non-ASCII in a path or query goes out as percent-encoded UTF-8."""
    u = schemes.parse("http://www.example.org/Dürst?q=ü")
    assert str(u) == "http://www.example.org/D%C3%BCrst?q=%C3%BC"
    assert steps("http://www.example.org/Dürst")[0] == "GET /D%C3%BCrst HTTP/1.1"
    g = schemes.parse("gopher://h/0/caf%C3%A9/é")
    assert g.selector == "/café/é"  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "text",
    [
        "http://résumé.example.org/",
        "http://r%C3%A9sum%C3%A9.example.org/",
        "http://RÉSUMÉ.example.org/",  # UTS #46 maps case
        "http://résumé.example.org\u3002/",  # and the ideographic full stop: a rooted name
    ],
)
def test_an_idn_host_goes_out_as_a_labels(text: str) -> None:
    u = schemes.parse(text)
    assert u.host.rstrip(".") == "xn--rsum-bpad.example.org"  # type: ignore[attr-defined]
    assert steps(text)[1] == f"Host: {u.host}"  # type: ignore[attr-defined]


def test_a_host_idna_refuses_names_the_host() -> None:
    with pytest.raises(HostError) as e:
        schemes.parse("http://a\u2603b.example/")
    assert (e.value.component, e.value.offset) == ("host", 7)
    with pytest.raises(HostError) as e:
        schemes.parse("http://a%2Fb.example/")  # a delimiter hidden in an escape
    assert e.value.component == "host"
    with pytest.raises(HostError):
        schemes.parse("http://%C3.example/")  # not UTF-8


def test_zone_id_is_parsed_and_used_for_the_socket_only() -> None:
    """RFC 6874: ``%25`` + zone in a link-local literal; getaddrinfo takes ``fe80::1%lo``;
    the Host header never carries it (§4)."""
    u = schemes.parse("http://[fe80::1%25lo]:8081/")
    assert (u.host, u.hostname, u.port) == ("[fe80::1%25lo]", "fe80::1%lo", 8081)  # type: ignore[attr-defined]
    plan = resolvers.plan(u)
    assert (plan.host, plan.port) == ("fe80::1%lo", 8081)
    assert steps("http://[fe80::1%25lo]:8081/")[1] == "Host: [fe80::1]:8081"
    assert schemes.parse("http://[FE80::a%25Eth0]/").hostname == "fe80::a%Eth0"  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("text", "offset", "words"),
    [
        ("http://[fe80::1%lo]/", 15, "'%25'"),
        ("http://[fe80::1%25]/", 18, "zone id"),
        ("http://[fe80::1%25a b]/", 18, "zone id"),
    ],
)
def test_bad_zone_ids(text: str, offset: int, words: str) -> None:
    with pytest.raises(HostError) as e:
        schemes.parse(text)
    assert (e.value.component, e.value.offset) == ("host", offset)
    assert words in e.value.message


async def test_ipvfuture_parses_and_is_refused_before_any_lookup() -> None:
    u = schemes.parse("http://[v7.abc:def]:8081/x")
    assert (u.host, u.hostname) == ("[v7.abc:def]", "[v7.abc:def]")  # type: ignore[attr-defined]
    with pytest.raises(resolvers.errors.ConnectError) as e:
        await resolvers.resolve("gopher://[v7.abc]:7070/1", Options(connect_timeout=2))
    assert "IPvFuture" in e.value.message and e.value.component == "host"


@pytest.mark.parametrize(
    ("text", "component", "offset"),
    [
        ("http://h/a b", "path", 10),
        ("http://h/a?b c", "search", 12),
        ("http://h/a#b#c", "fragment", 12),
        ("http://h/a|b", "path", 10),
        ('http://h/"x"', "path", 9),
        ("http://h/%zz", "path", 9),
        ("ftp://h/a%4/b", "cwd[0]", 9),
        ("ftp://h/a/b c", "name", 11),
        ("gopher://h/1a b", "selector", 13),
        ("http://u{@h/", "user", 8),
        ("http://h:8x/", "port", 10),
        ("http://a b/", "host", 8),
        ("ftp://u?x@h/", "user", 7),  # RFC 3986 ends the authority at "?"
    ],
)
def test_errors_name_the_schemes_component_and_offset(
    text: str, component: str, offset: int
) -> None:
    with pytest.raises(URLError) as e:
        schemes.parse(text)
    assert (e.value.component, e.value.offset) == (component, offset)
    assert "RFC 3986" in e.value.message or isinstance(e.value, (HostError, PortError))


def test_iri_errors_point_into_the_text_as_written() -> None:
    """The IRI mapping lengthens the text (é -> %C3%A9): offsets still name the character
    the person wrote."""
    with pytest.raises(PortError) as e:
        schemes.parse("http://h:80x/é")
    assert e.value.offset == 11
    with pytest.raises(URLError) as e2:
        schemes.parse("wais://ééé.example")  # no database: the error is after the host
    assert e2.value.offset == len("wais://ééé.example")


@pytest.mark.parametrize(
    ("text", "offset"),
    [
        ("http://%31.%32.3.256/x", 7),
        ("http://%31.2.3.256/x", 7),
        ("http://user:pw@%31.%32.3.256:80/x", 15),
        ("ftp://%31.%32.3.256/x", 6),
        ("gopher://%31.%32.3.256/1", 9),
    ],
)
def test_a_host_written_with_escapes_is_blamed_from_its_start(text: str, offset: int) -> None:
    """A percent-encoded host is decoded before it is read (RFC 3986 §3.2.2): an error in
    what it decodes to names the host and the offset where the host starts as written
    (before: 0, the start of the text, as the decoded host is shorter than the written)."""
    with pytest.raises(HostError) as e:
        schemes.parse(text)
    assert (e.value.component, e.value.offset) == ("host", offset)
    assert e.value.message.startswith("'") and "§3.1" in e.value.message


@pytest.mark.parametrize(
    "text",
    [
        "http://h:99999/é",
        "gopher://h/0a%0Db/é",
        "file:é",
        "mailto:a@b?x/é",
        "nntp://h/a/x/é",
        "telnet://h:65536/é",
        "http://h:99999/#é",
    ],
)
def test_iri_errors_before_the_first_mapped_character_keep_their_offset(text: str) -> None:
    """An error the scheme's parser finds before the first character the mapping lengthened
    names the offset it names in the text with an ASCII letter there (before, the walk kept
    no shift at the start of the first lengthened piece, and such an offset went back to 0:
    ``http://h:99999/é``'s port error at offset 0)."""
    with pytest.raises(URLError) as ascii_twin:
        schemes.parse(text.replace("é", "e"))
    with pytest.raises(URLError) as e:
        schemes.parse(text)
    assert (type(e.value), e.value.component, e.value.offset) == (
        type(ascii_twin.value),
        ascii_twin.value.component,
        ascii_twin.value.offset,
    )
    assert e.value.offset


@pytest.mark.parametrize("char", ["\u00ad", "\u200d", "\u00a0", "\u034f", "\ufe0f", "\u2028"])
@pytest.mark.parametrize("template", ["https://a{}b.example/", "ftp://u@a{}b/x", "news://a{}b/g"])
def test_a_percent_encoded_host_reads_as_its_raw_iri(template: str, char: str) -> None:
    """A host's percent-encoded UTF-8 is the IRI's raw character (RFC 3986 §3.2.2, RFC 3987
    §3.1: one URI): the same URL, or the same error at the same place.  (Before, a decoded
    character beyond US-ASCII that Python calls unprintable was refused where the raw one
    went to IDNA: ``https://a%C2%ADb/`` an error, ``https://a\u00adb/`` ``https://ab/``,
    as WPT's urltestdata reads both.)"""

    def read(text: str) -> object:
        try:
            return str(schemes.parse(text))
        except URLError as exc:
            return (type(exc).__name__, exc.component, exc.offset)

    encoded = "".join(f"%{b:02X}" for b in char.encode("utf-8"))
    assert read(template.format(encoded)) == read(template.format(char))


# -- RFC 1738's meanings stay exact ------------------------------------------------------------


def test_ftp_semantics_stay_rfc1738() -> None:
    """One CWD per segment, %2F inside one, the null CWD, ``;type=``, ".." a literal CWD."""
    assert steps("ftp://h/%2Fetc/a%2Fb/../x;type=a")[2:7] == [
        "CWD /etc",
        "CWD a/b",
        "CWD ..",
        "TYPE A",
        "EPSV",
    ]
    assert "CWD " in steps("ftp://h//etc/motd")  # the null-argument CWD (§3.2.2)


def test_gopher_question_mark_is_selector_data() -> None:
    g = schemes.parse("gopher://h/0/a?b=/c")
    assert (g.selector, g.search) == ("/a?b=/c", None)  # type: ignore[attr-defined]
    assert steps("gopher://h/0/a?b=/c") == ["/a?b=/c"]


# -- the RFCs' own examples ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expect"),
    [
        # RFC 3986 §1.1.2
        ("ftp://ftp.is.co.za/rfc/rfc1808.txt", {"cwd": ["rfc"], "name": "rfc1808.txt"}),
        ("http://www.ietf.org/rfc/rfc2396.txt", {"path": "/rfc/rfc2396.txt"}),
        ("ldap://[2001:db8::7]/c=GB?objectClass?one", {"scheme_specific_part": None}),
        ("mailto:John.Doe@example.com", {"address": "John.Doe@example.com"}),
        ("news:comp.infosystems.www.servers.unix", {"newsgroup": None}),
        ("tel:+1-816-555-1212", {"scheme_specific_part": "+1-816-555-1212"}),
        ("telnet://192.0.2.16:80/", {"host": "192.0.2.16", "port": 80}),
        (
            "urn:oasis:names:specification:docbook:dtd:xml:4.1.2",
            {"nid": "oasis", "nss": "names:specification:docbook:dtd:xml:4.1.2"},
        ),
        # RFC 3986 §3
        ("foo://example.com:8042/over/there?name=ferret#nose", {"fragment": "nose"}),
        ("urn:example:animal:ferret:nose", {"nid": "example"}),
        # RFC 3987 §3.1 and §3.2
        ("http://www.example.org/red%09ros\u00e9#red", {"path": "/red%09ros%C3%A9"}),
        ("http://xn--99zt52a.example.org/%e2%80%ae", {"host": "xn--99zt52a.example.org"}),
        # RFC 6874 §2
        ("http://[fe80::a%25en1]", {"host": "[fe80::a%25en1]", "path": ""}),
        # RFC 8089 §2 and Appendix E
        ("file:///path/to/file", {"host": "", "path": "/path/to/file"}),
        ("file:/path/to/file", {"host": "", "path": "/path/to/file"}),
        ("file://host.example.com/path/to/file", {"host": "host.example.com"}),
        ("file:c:/path/to/file", {"host": "", "path": "/c:/path/to/file"}),
        ("file:///c:/path/to/file", {"host": "", "path": "/c:/path/to/file"}),
        ("file:////host.example.com/path/to/file", {"host": "host.example.com"}),
        ("file://///host.example.com/path/to/file", {"host": "host.example.com"}),
        # RFC 6068 §6.1 and §6.2
        ("mailto:chris@example.com", {"address": "chris@example.com"}),
        (
            "mailto:infobot@example.com?subject=current-issue",
            {"headers": [["subject", "current-issue"]]},
        ),
        (
            "mailto:infobot@example.com?body=send%20current-issue",
            {"headers": [["body", "send current-issue"]]},
        ),
        (
            "mailto:infobot@example.com?body=send%20current-issue%0D%0Asend%20index",
            {"address": "infobot@example.com"},
        ),
        (
            "mailto:list@example.org?In-Reply-To=%3C3469A91.D10AF4C@example.com%3E",
            {"address": "list@example.org"},
        ),
        (
            "mailto:majordomo@example.com?body=subscribe%20bamboo-l",
            {"address": "majordomo@example.com"},
        ),
        (
            "mailto:joe@example.com?cc=bob@example.com&body=hello",
            {"headers": [["cc", "bob@example.com"], ["body", "hello"]]},
        ),
        ("mailto:gorby%25kremvax@example.com", {"address": "gorby%kremvax@example.com"}),
        (
            "mailto:unlikely%3Faddress@example.com?blat=foop",
            {"address": "unlikely?address@example.com"},
        ),
        ("mailto:Mike%26family@example.org", {"address": "Mike&family@example.org"}),
        ("mailto:%22not%40me%22@example.org", {"address": '"not@me"@example.org'}),
        ("mailto:%22oh%5C%5Cno%22@example.org", {"address": '"oh\\\\no"@example.org'}),
        (
            "mailto:%22%5C%5C%5C%22it's%5C%20ugly%5C%5C%5C%22%22@example.org",
            {"address": '"\\\\\\"it\'s\\ ugly\\\\\\""@example.org'},
        ),
        ("mailto:user@example.org?subject=caf%C3%A9", {"headers": [["subject", "café"]]}),
        (
            "mailto:user@example.org?subject=%3D%3Futf-8%3FQ%3Fcaf%3DC3%3DA9%3F%3D",
            {"headers": [["subject", "=?utf-8?Q?caf=C3=A9?="]]},
        ),
        (
            "mailto:user@example.org?subject=%3D%3Fiso-8859-1%3FQ%3Fcaf%3DE9%3F%3D",
            {"address": "user@example.org"},
        ),
        (
            "mailto:user@example.org?subject=caf%C3%A9&body=caf%C3%A9",
            {"address": "user@example.org"},
        ),
        (
            "mailto:user@%E7%B4%8D%E8%B1%86.example.org?subject=Test&body=NATTO",
            {"address": "user@納豆.example.org"},
        ),
        (
            "mailto:?to=addr1@an.example,addr2@an.example",
            {"address": "", "headers": [["to", "addr1@an.example,addr2@an.example"]]},
        ),
        (
            "mailto:addr1@an.example,addr2@an.example",
            {"address": "addr1@an.example,addr2@an.example"},
        ),
        ("mailto:addr1@an.example?to=addr2@an.example", {"headers": [["to", "addr2@an.example"]]}),
    ],
)
def test_rfc_examples(text: str, expect: dict[str, Any]) -> None:
    out = parsed(text)
    for key, value in expect.items():
        if value is None:  # the component exists (its exact value is the scheme's business)
            assert key in out or key in ("newsgroup",), out
            continue
        assert out[key] == value, (key, out)
    u = schemes.parse(text)
    assert schemes.parse(str(u)) == u


def test_rfc6068_idn_domain_goes_out_as_a_labels() -> None:
    """RFC 6068 §2: the domain is UTF-8 in the URI; SMTP without SMTPUTF8 needs A-labels."""
    for text in ("mailto:user@納豆.example.org", "mailto:user@%E7%B4%8D%E8%B1%86.example.org"):
        assert "RCPT TO:<user@xn--99zt52a.example.org>" in steps(text)[0]


def test_rfc8089_unc_and_drive_letters_are_refused_here_with_the_reason() -> None:
    with pytest.raises(resolvers.errors.PlanError) as e:
        resolvers.plan("file:////host.example.com/share/x")
    assert (e.value.component, "host.example.com" in e.value.message) == ("host", True)
    with pytest.raises(resolvers.errors.PlanError) as e:
        resolvers.plan("file:c:/path/to/file")
    assert e.value.component == "path" and "DOS" in e.value.message


def test_rfc3986_section_6_2_2_equivalence() -> None:
    a, b = "example://a/b/c/%7Bfoo%7D", "eXAMPLE://a/./b/../b/%63/%7bfoo%7d"
    assert schemes.equivalent(a, b)
    assert schemes.equivalent("http://h/~a", "http://h/%7ea")
    # FTP's ".." is a literal CWD (RFC 1738 §3.2.2), a Gopher selector is opaque
    assert not schemes.equivalent("ftp://h/a/../b", "ftp://h/b")
    assert not schemes.equivalent("gopher://h/1/a/../b", "gopher://h/1/b")


@pytest.mark.parametrize(
    ("base", "ref", "target"),
    [
        ("http://a/b/c/d;p?q", "g?y/./x", "http://a/b/c/g?y/./x"),
        ("http://a/b/c/d;p?q", "g#s/../x", "http://a/b/c/g#s/../x"),
        ("http://a/b/c/d;p?q", "~u/", "http://a/b/c/~u/"),
        ("http://a/b/c/d;p?q", "//[fe80::1%25lo]/x", "http://[fe80::1%25lo]/x"),
    ],
)
def test_join_returns_urls_the_parser_accepts(base: str, ref: str, target: str) -> None:
    assert schemes.join(base, ref) == target
    assert str(schemes.parse(target)) == target


# -- --rfc1738 keeps the letter -------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "http://h/~user/",
        "http://h/a?next=/b",
        "http://example.com:/",
        "http://my_host.example/",
        "http://www.example.org/Dürst",
        "http://[fe80::1%25lo]/",
        "file:/etc/motd",
    ],
)
def test_rfc1738_refuses_and_says_the_default_accepts(text: str) -> None:
    schemes.parse(text)
    with pytest.raises(URLError) as e:
        schemes.parse(text, syntax="rfc1738")
    assert "the default reading (RFC 3986) accepts it" in e.value.message


def test_rfc1738_error_for_a_url_no_reading_accepts_says_nothing_more() -> None:
    with pytest.raises(EncodingError) as e:
        schemes.parse("http://h/a b", syntax="rfc1738")
    assert "default reading" not in e.value.message


def test_options_syntax_reaches_plan_and_the_cli(capsys: pytest.CaptureFixture[str]) -> None:
    from omniurl.cli import main

    with pytest.raises(EncodingError):
        resolvers.plan("http://h/~u", Options(syntax="rfc1738"))
    assert main(["plan", "http://127.0.0.1:8081/~u"]) == 0
    assert json.loads(capsys.readouterr().out)["steps"][0] == "GET /~u HTTP/1.1"
    assert main(["plan", "--rfc1738", "http://127.0.0.1:8081/~u"]) == 2
    assert json.loads(capsys.readouterr().out)["error"]["component"] == "path"
    assert main(["parse", "--rfc1738", "http://h/~u"]) == 2
    capsys.readouterr()
    assert main(["parse", "--lenient", "http://h/a b"]) == 0
    assert json.loads(capsys.readouterr().out)["path"] == "/a%20b"


def test_strict_policy_and_syntax_are_separate() -> None:
    """--strict says where a URL may go; the syntax how it is written."""
    from omniurl.resolvers.policy import PRESETS

    plan = resolvers.check("http://example.com/~u?next=/a", Options(policy=PRESETS["strict"]))
    assert plan.to_json()["steps"][0] == "GET /~u?next=/a HTTP/1.1"


# -- properties ------------------------------------------------------------------------------

_SEG = st.text(st.sampled_from("abcXYZ019-._~!$&'()*+,;=:@é%20%C3%A9"), max_size=8).filter(
    lambda s: "%" not in s.replace("%20", "").replace("%C3%A9", "")
)


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(["http", "https", "ftp", "gopher", "x-y", "file"]),
    st.sampled_from(
        ["h.example", "127.0.0.1", "[::1]", "résumé.example", "my_host", "[fe80::1%25lo]"]
    ),
    st.lists(_SEG, max_size=4),
    st.one_of(st.none(), _SEG),
)
def test_default_reading_round_trips(
    scheme: str, host: str, segments: list[str], query: str | None
) -> None:
    if scheme == "file":
        host = ""
    text = f"{scheme}://{host}/" + "/".join(segments)
    if query is not None and scheme in ("http", "https", "x-y"):
        text += "?" + query
    try:
        u = schemes.parse(text)
    except URLError:
        # file:////x names the UNC host x (RFC 8089 E.3.2), which may be no host name
        assert scheme == "file" and not segments[0]
        return
    assert schemes.parse(str(u)) == u
    assert str(schemes.parse(str(u))) == str(u)
