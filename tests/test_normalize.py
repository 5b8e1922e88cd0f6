"""schemes.normalize / schemes.equivalent: RFC 1630 §4.1.2's examples and the rules around them."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from omniurl import schemes
from omniurl.schemes import equivalent, normalize
from omniurl.schemes.errors import EncodingError, PortError, SchemeError, URLError

# -- RFC 1630 §4.1.2 (French text, specs/001_…) ---------------------------------------------


def test_example_1_encoded_hyphen_is_a_hyphen() -> None:
    # « sont identiques, car le %2D code un caractère "trait d'union" »
    a = "http://info.cern.ch/albert/bertram/marie-claude"
    b = "http://info.cern.ch/albert/bertram/marie%2Dclaude"
    assert equivalent(a, b)
    assert normalize(b) == a


def test_example_2_encoded_slash_is_not_a_slash() -> None:
    # « NE SONT PAS identiques, car dans le second cas, la barre oblique codée n'a pas de
    # signification hiérarchique »
    a = "http://info.cern.ch/albert/bertram/marie-claude"
    b = "http://info.cern.ch/albert/bertram%2Fmarie-claude"
    assert not equivalent(a, b)
    assert normalize(b) == b


@pytest.mark.parametrize(
    ("url", "offset", "shown"),
    [
        # « il n'y a pas de décodage défini pour "%*" ou "%as" »
        ("fxqn:/us/va/reston/cnri/ietf/24/asdf%*.fred", 36, "'%*'"),
        ("news:12345667123%asdghfh@info.cern.ch", 16, "'%as'"),
    ],
)
def test_example_3_percent_without_two_hex_digits_is_an_error(
    url: str, offset: int, shown: str
) -> None:
    assert url[offset] == "%"
    with pytest.raises(EncodingError) as info:
        normalize(url)
    assert info.value.offset == offset
    assert info.value.component == "path"
    assert shown in info.value.message
    with pytest.raises(EncodingError):
        equivalent(url, "http://info.cern.ch/")


# -- the other rules -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # scheme and host case (§2.1; host names are case-insensitive)
        ("HTTP://Info.CERN.ch/a", "http://info.cern.ch/a"),
        ("Gopher://Gopher.Example.ORG/1", "gopher://gopher.example.org/1"),
        # default ports, explicit or empty, with leading zeros
        ("http://a:80/", "http://a/"),
        ("http://a:/", "http://a/"),
        ("http://a:0080/x", "http://a/x"),
        ("https://a:443/", "https://a/"),
        ("ftp://a:21/f", "ftp://a/f"),
        ("gopher://a:70/1", "gopher://a/1"),
        ("nntp://a:119/g", "nntp://a/g"),
        ("telnet://a:23/", "telnet://a/"),
        ("wais://a:210/db", "wais://a/db"),
        ("prospero://a:1525/h", "prospero://a/h"),
        # the "/" before an empty url-path may be omitted (§3.1, §3.3)
        ("http://a", "http://a/"),
        ("ftp://u@a", "ftp://u@a/"),
        # unreserved escapes, in any case: letters, digits, "-", ".", "_"
        ("http://a/%7e", "http://a/~"),
        ("http://a/%41%62%30%2d%2E%5F", "http://a/Ab0-._"),
        ("http://%61.example/", "http://a.example/"),
        ("ftp://%75ser@a/", "ftp://user@a/"),
        # raw characters that must be encoded are encoded (RFC 1738 §2.2)
        ("http://a/~joe", "http://a/~joe"),
        ("http://a/a b", "http://a/a%20b"),
        ("http://a/été", "http://a/%C3%A9t%C3%A9"),
        # fragments are normalized too
        ("http://a/#%41", "http://a/#A"),
        # §3.10: "localhost" and the empty host are the same machine
        ("file://localhost/etc/motd", "file:///etc/motd"),
        ("file://LocalHost/etc/motd", "file:///etc/motd"),
        # §3.4: an empty gopher path is type 1 with an empty selector
        ("gopher://h", "gopher://h:70/1"),
        ("gopher://h/", "gopher://h/1"),
        # IPv6 literal hosts keep their brackets, lower case
        ("http://[::FFFF:1]:80/", "http://[::ffff:1]/"),
    ],
)
def test_equivalent(a: str, b: str) -> None:
    assert equivalent(a, b)
    assert equivalent(b, a)
    assert normalize(a) == normalize(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # reserved characters are never decoded (RFC 1630 §4.1.2)
        ("http://a/b%2Fc", "http://a/b/c"),
        ("http://a/b?x%3Dy", "http://a/b?x=y"),
        ("http://a/b?x%26y", "http://a/b?x&y"),
        ("ftp://a/b%3Btype=a", "ftp://a/b;type=a"),
        ("ftp://u%40h@a/", "ftp://u@h@a/"),
        ("http://a/b%3Fc", "http://a/b?c"),
        # "+" means a space in a search string (RFC 1630 §4.1.1): never decoded
        ("http://a/s?a%2Bb", "http://a/s?a+b"),
        # nor "*" and "!" that schemes may reserve (§4.1.1), nor the escape of "%" itself
        ("http://a/%2A", "http://a/*"),
        ("http://a/%21", "http://a/!"),
        ("http://a/%2541", "http://a/%41"),
        # non-default ports, user case, path case, distinct users
        ("http://a:8080/", "http://a/"),
        ("ftp://Joe@a/", "ftp://joe@a/"),
        ("http://a/X", "http://a/x"),
        ("ftp://@a/", "ftp://a/"),
        ("ftp://u:@a/", "ftp://u@a/"),
        # different schemes share nothing, even with one default port
        ("http://a/", "https://a:80/"),
        # fragments differ
        ("http://a/#x", "http://a/#y"),
        ("http://a/", "http://a/#"),
        ("file://localhost.example/x", "file:///x"),
        ("gopher://h/", "gopher://h/0"),
        ("gopher://h/1", "gopher://h/11"),
        # schemes without "//host/" keep the form they have
        ("news:comp.infosystems.www", "news:comp.infosystems.www/"),
    ],
)
def test_not_equivalent(a: str, b: str) -> None:
    assert not equivalent(a, b)
    assert not equivalent(b, a)


def test_ignore_fragment_compares_the_resource_only() -> None:
    assert equivalent("http://a/b#x", "HTTP://A:80/b#y", ignore_fragment=True)
    assert not equivalent("http://a/b#x", "http://a/c#x", ignore_fragment=True)


def test_exact_normal_forms() -> None:
    assert normalize("HTTP://User:Pw@WWW.Example.COM:80/%7ejoe/a%2fb?Q=%41+%2b#F%2D") == (
        "http://User:Pw@www.example.com/~joe/a%2Fb?Q=A+%2B#F-"
    )
    assert normalize("mailto:Joe@Example.COM") == "mailto:Joe@Example.COM"
    assert normalize("x-Private:Opaque%2d%2F") == "x-private:Opaque-%2F"
    assert normalize("http://a/b#c#d") == "http://a/b#c%23d"
    assert normalize("file:///etc/%70asswd") == "file:///etc/passwd"
    assert normalize("prospero://host:1525/a;type=%41") == "prospero://host/a;type=A"


def test_unknown_scheme_keeps_explicit_port() -> None:
    assert normalize("x-foo://a:80/") == "x-foo://a:80/"
    assert normalize("x-foo://a") == "x-foo://a"


@pytest.mark.parametrize("text", ["", "no-scheme", ":x", "/a/b", "ht tp://a/", "é:x"])
def test_scheme_required(text: str) -> None:
    with pytest.raises(SchemeError) as info:
        normalize(text)
    assert (info.value.component, info.value.offset) == ("scheme", 0)


def test_bad_port() -> None:
    with pytest.raises(PortError) as info:
        normalize("http://user@host:8x/")
    assert (info.value.component, info.value.offset) == ("port", 17)


@pytest.mark.parametrize(
    ("url", "component", "offset"),
    [
        ("http://u%zz@a/", "user", 8),
        ("http://u:p%zz@a/", "password", 10),
        ("http://a%g/", "host", 8),
        ("http://[fe80::1%eth0]/", "host", 15),
        ("http://a:8%0/", "port", 10),
        ("http://[::1]:8%0/", "port", 14),
        ("http://a/p%", "path", 10),
        ("http://a/p?q=%x", "search", 13),
        ("http://a/p#%", "fragment", 11),
    ],
)
def test_bad_escape_names_its_component(url: str, component: str, offset: int) -> None:
    with pytest.raises(EncodingError) as info:
        normalize(url)
    assert (info.value.component, info.value.offset) == (component, offset)


# -- properties --------------------------------------------------------------------------------

_chars = st.sampled_from(
    [*"aZ09-._~!*'(),;/?:@=&+$% é<>\"{}|\\^[]`#", "%41", "%2d", "%2F", "%7e", "%25", "%C3%A9"]
)
_text = st.lists(_chars).map("".join)


@st.composite
def urls(draw: st.DrawFn) -> str:
    scheme = draw(st.sampled_from(["http", "HTTP", "ftp", "gopher", "news", "x-new", "file"]))
    if scheme.lower() == "news":
        return f"{scheme}:" + draw(_text).replace("%", "%25")
    user = draw(st.sampled_from(["", "u@", "U:p@", "%41@"]))
    host = draw(st.sampled_from(["a", "Example.ORG", "[::1]", "%41b", "127.0.0.1"]))
    port = draw(st.sampled_from(["", ":", ":80", ":21", ":070", ":8080"]))
    return f"{scheme}://{user}{host}{port}/" + draw(_text)


def _valid(url: str) -> bool:
    try:
        normalize(url)
    except EncodingError:
        return False
    return True


@given(urls())
def test_normalize_is_idempotent(url: str) -> None:
    if _valid(url):
        once = normalize(url)
        assert normalize(once) == once


@given(urls(), urls())
def test_equivalent_is_symmetric(a: str, b: str) -> None:
    if _valid(a) and _valid(b):
        assert equivalent(a, b) == equivalent(b, a)
        assert equivalent(a, a)


@given(urls())
def test_encoding_unreserved_characters_gives_an_equivalent_url(url: str) -> None:
    if not _valid(url):
        return
    scheme, colon, rest = url.partition(":")
    # everything after the authority (a port's digits must stay digits)
    cut = rest.find("/", 2) if rest.startswith("//") else 0
    head, tail = rest[:cut], rest[cut:]
    encoded = "".join(
        token
        if token.startswith("%")
        else "".join(f"%{ord(c):02x}" if c in "aZ09-._" else c for c in token)
        for token in re.split(r"(%[0-9A-Fa-f]{2})", tail)
    )
    assert equivalent(url, scheme + colon + head + encoded)
    assert equivalent(scheme.upper() + colon + rest, url)


# -- with the parser (schemes.parse) -------------------------------------------------------------

# Example URLs of RFC 1738 and RFC 1630, every scheme, in the forms their texts print.
PARSEABLE = [
    "ftp://@host.com/",
    "ftp://host.com/",
    "ftp://foo:@host.com/",
    "ftp://myname@host.dom/%2Fetc/motd",
    "ftp://myname@host.dom//etc/motd",
    "ftp://ds.internic.net/rfc/rfc1436.txt;type=a",
    "FTP://Info.CERN.ch:21/pub/www/doc;type=d",
    "http://info.cern.ch/albert/bertram/marie%2Dclaude",
    "http://ds.internic.net/instructions/overview.html#WARNING",
    "HTTP://A:80",
    "https://a:443/x?y+z",
    "gopher://spinaltap.micro.umn.edu/00/Weather/California/Los%20Angeles",
    "gopher://h:70/",
    "gopher://h/7search%09words",
    "mailto:joe@example.org",
    "news:comp.infosystems.www",
    "news:*",
    "news:12345@info.cern.ch",
    "nntp://news.example.org:119/comp.x/12",
    "telnet://user:pw@h:23/",
    "telnet://h",
    "wais://h:210/db?query",
    "wais://h/db/TEXT/path",
    "file://vms.host.edu/disk$user/my/notes/note12345.txt",
    "file://localhost/etc/motd",
    "prospero://h:1525/hsoname;type=x",
    "mid:960830.1639@XIson.com/partA.960830.1639@XIson.com",
    "x-foo:Bar%2d",
]


@pytest.mark.parametrize("text", PARSEABLE)
def test_normalizing_keeps_a_url_valid_and_its_canonical_form_equivalent(text: str) -> None:
    url = schemes.parse(text)
    normal = normalize(text)
    assert schemes.parse(normal).scheme == url.scheme
    # the parser's canonical form and the text are the same URL
    assert equivalent(str(url), text)
    # URL objects are accepted and give the text's normal form
    assert normalize(url) == normal
    assert equivalent(url, schemes.parse(normal))


@given(st.one_of(st.text(), st.lists(st.sampled_from([*"ab:/?#.%2F@[]-1", "%zz"])).map("".join)))
def test_only_url_errors_escape(text: str) -> None:
    try:
        normal = normalize(text)
    except URLError:
        return
    assert normalize(normal) == normal
