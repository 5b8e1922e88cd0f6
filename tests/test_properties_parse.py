"""Property tests: URLs generated from §5's BNF parse, and round-trip.

- ``parse(str(u)) == u`` for every URL generated from the grammar (text-level round trip);
- the fast path and the component-by-component path agree on every valid URL;
- URLs built from arbitrary *decoded* components survive ``str`` and ``parse`` unchanged
  (component-level round trip), octets included;
- arbitrary text never raises anything but ``URLError`` (strict and lenient), and whatever
  parses round-trips in the same mode.
"""

from __future__ import annotations

import json
import os
import string
import urllib.parse
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from omniurl import schemes
from omniurl.schemes import URL, URLError
from omniurl.schemes.ftp import FTPSURL
from omniurl.schemes.gopher import GophersURL
from omniurl.schemes.news import SNewsURL
from omniurl.schemes.percent import to_octets

#: More examples for a deeper run: PARSE_EXAMPLES=3000 python -m pytest tests/test_properties*
EXAMPLES = int(os.environ.get("PARSE_EXAMPLES", "150"))
# A settings object per test, not a global profile: other test modules keep their own.
PARSE = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# -- the BNF's terminals (§5) ---------------------------------------------------------------

ALPHA = string.ascii_letters
DIGIT = string.digits
ALPHADIGIT = ALPHA + DIGIT
UNRESERVED = ALPHADIGIT + "$-_.+" + "!*'(),"


@st.composite
def escape(draw: st.DrawFn) -> str:
    # escape = "%" hex hex  (either case, §2.2)
    return (
        "%"
        + draw(st.sampled_from("0123456789ABCDEFabcdef"))
        + draw(st.sampled_from("0123456789ABCDEFabcdef"))
    )


def chars(extra: str = "", min_size: int = 0, max_size: int = 12) -> st.SearchStrategy[str]:
    """``*[ uchar | <extra> ]``: unreserved characters, escapes and the extra characters."""
    piece = st.one_of(st.sampled_from(UNRESERVED + extra), escape())
    return st.lists(piece, min_size=min_size, max_size=max_size).map("".join)


def word(alphabet: str, min_size: int = 1, max_size: int = 8) -> st.SearchStrategy[str]:
    return st.text(alphabet=alphabet, min_size=min_size, max_size=max_size)


@st.composite
def domainlabel(draw: st.DrawFn, top: bool = False) -> str:
    # domainlabel = alphadigit | alphadigit *[ alphadigit | "-" ] alphadigit
    # toplabel    = alpha | alpha *[ alphadigit | "-" ] alphadigit
    first = draw(st.sampled_from(ALPHA if top else ALPHADIGIT))
    if draw(st.booleans()):
        return first
    middle = draw(word(ALPHADIGIT + "-", 0, 6))
    return first + middle + draw(st.sampled_from(ALPHADIGIT))


@st.composite
def hostname(draw: st.DrawFn) -> str:
    # hostname = *[ domainlabel "." ] toplabel
    labels = draw(st.lists(domainlabel(), max_size=3))
    return ".".join([*labels, draw(domainlabel(top=True))])


hostnumber = st.tuples(*[st.integers(0, 255)] * 4).map(lambda t: ".".join(map(str, t)))
ipv6 = st.ip_addresses(v=6).map(lambda a: f"[{a}]")
host = st.one_of(hostname(), hostnumber, ipv6)
port = st.one_of(st.none(), st.integers(0, 65535).map(str), st.just("0080"))
fragment = st.one_of(st.none(), chars(";/?:@&="))


def hostport(draw: st.DrawFn) -> str:
    p = draw(port)
    return draw(host) + ("" if p is None else ":" + p)


def login(draw: st.DrawFn) -> str:
    # login = [ user [ ":" password ] "@" ] hostport
    out = ""
    if draw(st.booleans()):
        out = draw(chars(";?&="))
        if draw(st.booleans()):
            out += ":" + draw(chars(";?&="))
        out += "@"
    return out + hostport(draw)


def with_fragment(draw: st.DrawFn, text: str) -> str:
    f = draw(fragment)
    return text if f is None else f"{text}#{f}"


def scheme_case(draw: st.DrawFn, name: str) -> str:
    return "".join(c.upper() if draw(st.booleans()) else c for c in name)


# -- one strategy per §5 production ---------------------------------------------------------


@st.composite
def ftpurl(draw: st.DrawFn) -> str:
    # ftpurl = "ftp://" login [ "/" fpath [ ";type=" ftptype ]]
    out = scheme_case(draw, "ftp") + "://" + login(draw)
    if draw(st.booleans()):
        segs = draw(st.lists(chars("?:@&="), min_size=1, max_size=4))
        out += "/" + "/".join(segs)
        if draw(st.booleans()):
            out += ";type=" + draw(st.sampled_from("AIDaid"))
    return with_fragment(draw, out)


@st.composite
def httpurl(draw: st.DrawFn) -> str:
    # httpurl = "http://" hostport [ "/" hpath [ "?" search ]]
    out = draw(st.sampled_from(["http", "https", "HTTP"])) + "://" + hostport(draw)
    if draw(st.booleans()):
        out += "/" + "/".join(draw(st.lists(chars(";:@&="), min_size=1, max_size=4)))
        if draw(st.booleans()):
            out += "?" + draw(chars(";:@&="))
    return with_fragment(draw, out)


@st.composite
def gopherurl(draw: st.DrawFn) -> str:
    # gopherurl = "gopher://" hostport [ / [ gtype [ selector
    #             [ "%09" search [ "%09" gopher+_string ] ] ] ] ]
    xchars = ";/?:@&="
    out = "gopher://" + hostport(draw)
    if draw(st.booleans()):
        out += "/"
        if draw(st.booleans()):
            out += draw(st.sampled_from(UNRESERVED + xchars))
            out += draw(chars(xchars).filter(lambda s: not _has_ctl(s)))
            if draw(st.booleans()):
                out += "%09" + draw(chars(xchars).filter(lambda s: not _has_ctl(s)))
                if draw(st.booleans()):
                    out += "%09" + draw(chars(xchars))
    return with_fragment(draw, out)


def _has_ctl(s: str) -> bool:
    """Whether an escape in ``s`` stands for TAB, CR or LF (they split or end the line)."""
    return any(s[i : i + 3].upper() in ("%09", "%0A", "%0D") for i in range(len(s)))


@st.composite
def mailtourl(draw: st.DrawFn) -> str:
    # mailtourl = "mailto:" encoded822addr   (+ RFC 6068 hfields)
    out = "mailto:" + draw(chars(";/:@&=", min_size=1))
    if draw(st.booleans()):
        fields = draw(st.lists(st.tuples(chars(";/:@"), chars(";/:@")), min_size=1, max_size=3))
        out += "?" + "&".join(f"{n}={v}" for n, v in fields)
    return with_fragment(draw, out)


group = st.builds(lambda a, b: a + b, st.sampled_from(ALPHA), word(ALPHADIGIT + "-.+_", 0, 10))


@st.composite
def newsurl(draw: st.DrawFn) -> str:
    # newsurl = "news:" grouppart;  grouppart = "*" | group | article
    kind = draw(st.sampled_from(["*", "group", "article"]))
    if kind == "*":
        part = "*"
    elif kind == "group":
        part = draw(group)
    else:
        part = draw(chars(";/?:&=", min_size=1)) + "@" + draw(st.one_of(hostname(), hostnumber))
    return with_fragment(draw, "news:" + part)


@st.composite
def nntpurl(draw: st.DrawFn) -> str:
    # nntpurl = "nntp://" hostport "/" group [ "/" digits ]
    out = "nntp://" + hostport(draw) + "/" + draw(group)
    if draw(st.booleans()):
        out += "/" + draw(word(DIGIT, 1, 6))
    return with_fragment(draw, out)


@st.composite
def telneturl(draw: st.DrawFn) -> str:
    # telneturl = "telnet://" login [ "/" ]
    out = "telnet://" + login(draw) + draw(st.sampled_from(["", "/"]))
    return with_fragment(draw, out)


@st.composite
def waisurl(draw: st.DrawFn) -> str:
    # waisdatabase | waisindex | waisdoc
    out = "wais://" + hostport(draw) + "/" + draw(chars())
    kind = draw(st.sampled_from(["db", "index", "doc"]))
    if kind == "index":
        out += "?" + draw(chars(";:@&="))
    elif kind == "doc":
        out += "/" + draw(chars()) + "/" + draw(chars())
    return with_fragment(draw, out)


@st.composite
def fileurl(draw: st.DrawFn) -> str:
    # fileurl = "file://" [ host | "localhost" ] "/" fpath
    h = draw(st.one_of(st.just(""), st.just("localhost"), host))
    segs = draw(st.lists(chars("?:@&="), min_size=1, max_size=4))
    return with_fragment(draw, f"file://{h}/" + "/".join(segs))


@st.composite
def prosperourl(draw: st.DrawFn) -> str:
    # prosperourl = "prospero://" hostport "/" ppath *[ fieldspec ]
    ppath = "/".join(draw(st.lists(chars("?:@&="), min_size=1, max_size=3)))
    if "%00" in ppath and draw(st.booleans()):
        ppath = ppath.replace("%00", "%01")
    out = "prospero://" + hostport(draw) + "/" + ppath.replace("%00", "%01")
    if draw(st.booleans()):
        out += "%00" + draw(word(DIGIT, 1, 4))  # RFC 1630's version
    for name, value in draw(st.lists(st.tuples(chars("?:@&"), chars("?:@&")), max_size=3)):
        out += f";{name}={value}"
    return with_fragment(draw, out)


@st.composite
def genericurl(draw: st.DrawFn) -> str:
    # genericurl = scheme ":" schemepart;  scheme = 1*[ lowalpha | digit | "+" | "-" | "." ]
    name = draw(st.sampled_from(["x-", "magic", "z39.50r", "a+b", "9p"])) + draw(
        word(string.ascii_lowercase, 0, 3)
    )
    return with_fragment(draw, name + ":" + draw(chars(";/?:@&=")))


any_url = st.one_of(
    ftpurl(),
    httpurl(),
    gopherurl(),
    mailtourl(),
    newsurl(),
    nntpurl(),
    telneturl(),
    waisurl(),
    fileurl(),
    prosperourl(),
    genericurl(),
)


def slow_parse(text: str) -> URL:
    colon = text.index(":")
    u = schemes.parse(text, syntax="rfc1738")
    return type(u)._parse_slow(text, colon + 1, text[:colon].lower(), True)  # type: ignore[attr-defined,no-any-return]


@PARSE
@given(any_url)
@example("ftp://@host.com/")
@example("ftp://foo:@host.com/")
@example("gopher://h/1%09%09+")
@example("telnet://%80:%3f@aa")
@example("telnet://a:?@aa")
@example("file:////a")
@example("news://@aa")
def test_generated_urls_parse_and_round_trip(text: str) -> None:
    u = schemes.parse(text, syntax="rfc1738")
    canonical = str(u)
    assert schemes.parse(canonical, syntax="rfc1738") == u
    assert str(schemes.parse(canonical, syntax="rfc1738")) == canonical  # a fixed point
    assert hash(schemes.parse(canonical, syntax="rfc1738")) == hash(u)
    # The default reading (RFC 3986) never reads an RFC 1738 URL another way, but for RFC
    # 8089's UNC form (file:////host/x names the machine "host", not the local path
    # "//host/x"); it refuses only a raw "?" in a user name or password, where RFC 3986 ends
    # the authority, and a login in a news:// server (RFC 5538 §2.1 names a server, and NNTP
    # logs in with AUTHINFO), which RFC 1738 reads as part of a message-id.
    try:
        modern = schemes.parse(text)
    except URLError as exc:
        assert exc.component in ("user", "password", "userinfo"), exc
        if text.lower().startswith("news://"):
            assert "@" in text[7:].split("/", 1)[0] and exc.offset == 7, exc
        else:
            assert text[exc.offset or 0] == "?"
    else:
        assert schemes.parse(str(modern)) == modern
        if not text.lower().startswith(("file:////", "news://")):
            assert modern == u
            assert schemes.parse(text, strict=False) == u  # lenient agrees on valid URLs


@PARSE
@given(any_url)
def test_fast_path_agrees_with_component_path(text: str) -> None:
    assert slow_parse(text) == schemes.parse(text, syntax="rfc1738")


# -- component-level round trips: arbitrary decoded values in, the same values out --------

# Decoded text as parsing produces it: any code point but lone surrogates, plus the
# surrogates 0xDC80-0xDCFF that stand for octets that are not UTF-8.
octet_text = st.one_of(
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=10),
    st.binary(max_size=10).map(lambda b: b.decode("utf-8", "surrogateescape")),
)
no_line = octet_text.filter(lambda s: not any(c in s for c in "\t\r\n"))
auth = {
    "host": st.one_of(hostname(), hostnumber, ipv6),
    "port": st.one_of(st.none(), st.integers(0, 65535)),
}
opt_fragment = st.one_of(st.none(), chars(";/?:@&="))


def build(cls: type[URL], scheme: str, **fields: st.SearchStrategy[Any]) -> st.SearchStrategy[URL]:
    return st.builds(cls, scheme=st.just(scheme), fragment=opt_fragment, **fields)


built = st.one_of(
    build(
        schemes.FTPURL,
        "ftp",
        user=st.one_of(st.none(), octet_text),
        password=st.none(),
        cwd=st.lists(octet_text, max_size=3).map(tuple),
        name=octet_text,
        typecode=st.sampled_from([None, "a", "i", "d"]),
        **auth,
    ),
    build(
        schemes.FTPURL,
        "ftp",
        user=octet_text,
        password=octet_text,
        cwd=st.lists(octet_text, max_size=3).map(tuple),
        name=octet_text,
        **auth,
    ),
    build(
        schemes.GopherURL,
        "gopher",
        # gtype is one octet (RFC 1436's item type): ASCII, or a lone escaped octet 80-FF
        gtype=st.integers(0, 255)
        .filter(lambda b: b not in (9, 10, 13))
        .map(lambda b: bytes([b]).decode("utf-8", "surrogateescape")),
        selector=no_line,
        search=st.one_of(st.none(), no_line),
        **auth,
    ),
    build(
        schemes.GopherURL,
        "gopher",
        selector=no_line,
        search=no_line,
        gopher_plus=octet_text,
        **auth,
    ),
    build(
        schemes.MailtoURL,
        "mailto",
        address=octet_text.filter(bool),
        headers=st.lists(st.tuples(octet_text, octet_text), max_size=3).map(tuple),
    ),
    build(schemes.NewsURL, "news", newsgroup=st.one_of(group, st.just("*"))),
    build(
        schemes.NewsURL,
        "news",
        message_id=st.builds(lambda u, h: f"{u}@{h}", octet_text.filter(bool), hostname()),
    ),
    build(
        schemes.NNTPURL,
        "nntp",
        newsgroup=group,
        article=st.one_of(st.none(), st.integers(0, 10**9)),
        **auth,
    ),
    build(
        schemes.TelnetURL,
        "telnet",
        user=st.one_of(st.none(), octet_text),
        password=st.none(),
        trailing_slash=st.booleans(),
        **auth,
    ),
    build(schemes.WAISURL, "wais", database=octet_text, search=st.none(), **auth),
    build(schemes.WAISURL, "wais", database=octet_text, search=octet_text, **auth),
    build(
        schemes.WAISURL,
        "wais",
        database=octet_text,
        wtype=octet_text,
        wpath=octet_text,
        **auth,
    ),
    build(
        schemes.FileURL,
        "file",
        host=st.one_of(st.just(""), st.just("localhost"), hostname()),
        path=octet_text.map(lambda s: "/" + s),
    ),
    build(
        schemes.ProsperoURL,
        "prospero",
        hsoname=octet_text.filter(lambda s: "\x00" not in s),
        version=st.one_of(st.none(), word(DIGIT, 1, 4)),
        fields=st.lists(st.tuples(octet_text, octet_text), max_size=3).map(tuple),
        **auth,
    ),
)


@PARSE
@given(built)
def test_decoded_components_round_trip(u: URL) -> None:
    again = schemes.parse(str(u))
    assert again == u
    for name in ("cwd", "name", "selector", "search", "address", "hsoname", "wpath", "path"):
        value = getattr(u, name, None)
        if isinstance(value, str):  # the octets on the wire are exactly the ones put in
            assert to_octets(getattr(again, name)) == to_octets(value)


# -- fuzzing: nothing but URLError escapes, and what parses round-trips ----------------------

prefixes = st.sampled_from(
    [
        "",
        "ftp://",
        "http://",
        "https://",
        "gopher://",
        "mailto:",
        "news:",
        "nntp://",
        "telnet://",
        "wais://",
        "file://",
        "file:",
        "prospero://",
        "mid:",
        "cid:",
        "urn:",
        "x-y:",
    ]
)
noise = st.text(
    st.one_of(
        st.sampled_from("%:/@?#;=&[]. 09aAfF+-~\t\r\n\x00é"),
        st.characters(),
    ),
    max_size=30,
)


@settings(PARSE, max_examples=EXAMPLES * 3)
@given(prefixes, noise, st.booleans())
@example("http://", "[::1%", True)
@example("ftp://", "\udc80", False)
@example("gopher://", "h/\ud800", False)
@example("gopher://", ";/%%%", False)
@example("news:", "@\x80/", False)  # an offset inside an IRI escape (CI, 2026-11-24)
def test_fuzz_only_url_errors(prefix: str, tail: str, strict: bool) -> None:
    text = prefix + tail
    try:
        u = schemes.parse(text, strict=strict)
    except URLError as exc:
        assert exc.offset is None or 0 <= exc.offset <= len(text)
        return
    assert schemes.parse(str(u), strict=strict) == u
    # the CLI's output: always encodable (non-UTF-8 octets shown as %XX)
    json.dumps(u.to_json(), ensure_ascii=False).encode("utf-8")


@PARSE
@given(any_url, st.integers(0, 200), st.sampled_from("%#/?@:; \x00~é"))
def test_mutated_urls_only_url_errors(text: str, at: int, ch: str) -> None:
    at %= len(text) + 1
    mutated = text[:at] + ch + text[at:]
    for strict in (True, False):
        try:
            u = schemes.parse(mutated, strict=strict)
        except URLError as exc:
            assert exc.offset is None or 0 <= exc.offset <= len(mutated)
            continue
        assert schemes.parse(str(u), strict=strict) == u
        json.dumps(u.to_json(), ensure_ascii=False).encode("utf-8")


# -- a differential check against the standard library ---------------------------------------


@PARSE
@given(st.one_of(httpurl(), ftpurl(), telneturl(), nntpurl(), waisurl(), prosperourl()))
def test_authority_agrees_with_urlsplit(text: str) -> None:
    """On URLs valid by §5, user, password, host, port and fragment agree with
    ``urllib.parse.urlsplit`` (where it keeps them apart: it has no "empty versus absent")."""
    # RFC 1738 lets a user or password hold "?" (user = *[ uchar | ";" | "?" | "&" | "=" ]);
    # RFC 3986, and urlsplit, end the authority there.  Compare where both can agree.
    authority = text.split("//", 1)[1].split("/", 1)[0].split("#", 1)[0]
    assume("?" not in authority)
    u = schemes.parse(text)
    assert isinstance(u, schemes.InternetURL)
    split = urllib.parse.urlsplit(text)
    assert u.hostname == split.hostname
    assert u.port == split.port
    assert (split.username is None) == (u.user is None)
    if u.user is not None:
        assert u.user == urllib.parse.unquote(split.username or "", errors="surrogateescape")
    if u.password is not None:
        assert u.password == urllib.parse.unquote(split.password or "", errors="surrogateescape")
    assert (u.fragment or "") == split.fragment
    if isinstance(u, schemes.HTTPURL):  # "as on the wire": exactly urlsplit's path and query
        assert (u.path, u.search or "") == (split.path, split.query)


# -- lossless serialisation, every scheme's URL class -----------------------------------------
#
# For every class, ``parse(str(u)) == u``, and ``str(u)`` keeps escaped every octet of a value
# that is a delimiter where the value stands (RFC 3986 §2.2: "?" and "#" anywhere in a path,
# "/" inside a segment, ":" and "@" in a user name, "&" and "=" in a mailto header field,
# an "@" or "," inside an addr-spec's quoted local part — RFC 6068 §6's
# "mailto:%22not%40me%22@example.org" — …).  The check: put a neutral value ("x", or the
# value with only its structural characters kept) in the field instead; the raw delimiters
# of the text must not change in number.

#: Values rich in delimiters (the octets the round trip is about), and any text at all.
DELIMS = "/?#[]@:;&=,%+!$'()*\" \\<>é\x00"
delimited = st.one_of(
    st.text(st.sampled_from("ab" + DELIMS), max_size=10),
    octet_text,
)
delimited_no_line = delimited.filter(lambda s: not any(c in s for c in "\t\r\n"))
delimited_no_nul = delimited.filter(lambda s: "\x00" not in s)
#: A group name is printable (RFC 3977 §4.1): no space, no control, UTF-8.
printable = delimited.filter(
    lambda s: bool(s) and all(" " < c != "\x7f" and not "\udc80" <= c <= "\udcff" for c in s)
)


#: An RFC 5322 quoted-string local part holding delimiters (``"not@me"``).
quoted_local = st.text(st.sampled_from("ab@,:;?#/ ()<>[]&=%é"), min_size=1, max_size=8).map(
    lambda s: f'"{s}"'
)
atom_local = st.text(st.sampled_from("ab.+-!$&'*/=?^_`{|}~%"), min_size=1, max_size=8)


@st.composite
def addr_spec(draw: st.DrawFn) -> str:
    return f"{draw(st.one_of(quoted_local, atom_local))}@{draw(hostname())}"


@st.composite
def address_list(draw: st.DrawFn) -> str:
    return ",".join(draw(st.lists(addr_spec(), min_size=1, max_size=3)))


def structural(value: str) -> str:
    """An addr-spec list with everything but its structure (each "@" and "," outside quoted
    strings and domain literals) replaced by "x": a neutral value of the same shape."""
    out, quoted, literal, escaped = [], False, False, False
    for ch in value:
        if escaped:
            escaped = False
        elif quoted and ch == "\\":
            escaped = True
        elif ch == '"' and not literal:
            quoted = not quoted
        elif ch == "[" and not quoted:
            literal = True
        elif ch == "]" and not quoted:
            literal = False
        elif ch in "@," and not quoted and not literal:
            out.append(ch)
            continue
        out.append("x")
    return "".join(out)


@st.composite
def hostport_text(draw: st.DrawFn) -> str:
    return hostport(draw)


segments = st.lists(delimited, max_size=3).map(tuple)
pairs = st.lists(st.tuples(delimited, delimited), max_size=3).map(tuple)
encoded_path = st.lists(chars(";:@&=+$,~"), max_size=3).map(lambda s: "".join("/" + x for x in s))
encoded_query = st.one_of(st.none(), chars(";:@&=/?~"))

#: class, the strategy for its decoded fields, and the delimiters each field must keep escaped
SERIALISED: list[tuple[type[URL], dict[str, st.SearchStrategy[Any]], dict[str, str]]] = []


def serialised(cls: type[URL], scheme: str, delims: dict[str, str], **fields: Any) -> None:
    SERIALISED.append(
        (cls, {"scheme": st.just(scheme), "fragment": opt_fragment, **fields}, delims)
    )


_USER = {"user": ":@/?#[]", "password": "@/?#[]"}
serialised(
    schemes.FTPURL,
    "ftp",
    {**_USER, "cwd": "/?#;[]", "name": "/?#;[]"},
    user=st.one_of(st.none(), delimited),
    password=st.one_of(st.none(), delimited),
    cwd=segments,
    name=delimited,
    typecode=st.sampled_from([None, "a", "i", "d"]),
    **auth,
)
serialised(
    FTPSURL,
    "ftps",
    {**_USER, "cwd": "/?#;[]", "name": "/?#;[]"},
    user=st.one_of(st.none(), delimited),
    cwd=segments,
    name=delimited,
    **auth,
)
serialised(
    schemes.HTTPURL,
    "http",
    {**_USER, "path": "?#", "search": "#"},
    user=st.one_of(st.none(), delimited),
    password=st.one_of(st.none(), delimited),
    path=encoded_path,
    search=encoded_query,
    **auth,
)
serialised(
    schemes.HTTPSURL,
    "https",
    {"path": "?#", "search": "#"},
    path=encoded_path,
    search=encoded_query,
    **auth,
)
# gopher: "?" is selector data in every reading (§3.4, RFC 4266) and Gopher+'s ASK marker
# ("%09%09?"), not a delimiter: it stays raw, as tests/test_parse_canonical.py shows.
_GOPHER = "#[]"
serialised(
    schemes.GopherURL,
    "gopher",
    {"gtype": _GOPHER, "selector": _GOPHER, "search": _GOPHER, "gopher_plus": _GOPHER},
    gtype=st.sampled_from(["0", "1", "7", "?", "#", "/"]),
    selector=delimited_no_line,
    search=st.one_of(st.none(), delimited_no_line),
    **auth,
)
serialised(
    schemes.GopherURL,
    "gopher",
    {"selector": _GOPHER, "search": _GOPHER, "gopher_plus": _GOPHER},
    selector=delimited_no_line,
    search=delimited_no_line,
    gopher_plus=delimited,
    **auth,
)
serialised(GophersURL, "gophers", {"selector": _GOPHER}, selector=delimited_no_line, **auth)
serialised(
    schemes.MailtoURL,
    "mailto",
    {"address": "?#&=;/", "headers": "&=#"},
    address=address_list(),
    headers=pairs,
)
serialised(
    schemes.NewsURL,
    "news",
    {"newsgroup": "/?#@:"},
    newsgroup=st.one_of(group, printable.filter(lambda s: s[0].isalpha() and "@" not in s)),
)
serialised(
    schemes.NewsURL,
    "news",
    {"message_id": "?#/"},
    message_id=st.builds(lambda u, h: f"{u}@{h}", delimited.filter(bool), hostname()),
)
serialised(
    schemes.NewsURL,
    "news",
    {"message_id": "?#/", "newsgroup": "/?#@:"},
    newsgroup=st.one_of(st.none(), group),
    host=hostname(),
    port=st.one_of(st.none(), st.integers(0, 65535)),
)
serialised(
    SNewsURL,
    "snews",
    {"message_id": "?#/"},
    message_id=st.builds(lambda u, h: f"{u}@{h}", delimited.filter(bool), hostname()),
    host=hostname(),
)
serialised(
    schemes.NNTPURL,
    "nntp",
    {"newsgroup": "/?#"},
    newsgroup=st.one_of(group, delimited.filter(bool)),
    article=st.one_of(st.none(), st.integers(0, 10**9)),
    **auth,
)
serialised(
    schemes.TelnetURL,
    "telnet",
    _USER,
    user=st.one_of(st.none(), delimited),
    password=st.one_of(st.none(), delimited),
    trailing_slash=st.booleans(),
    **auth,
)
serialised(
    schemes.WAISURL,
    "wais",
    {"database": "/?#", "search": "#"},
    database=delimited,
    search=st.one_of(st.none(), delimited),
    **auth,
)
serialised(
    schemes.WAISURL,
    "wais",
    {"database": "/?#", "wtype": "/?#", "wpath": "/?#"},
    database=delimited,
    wtype=delimited,
    wpath=delimited,
    **auth,
)
serialised(
    schemes.FileURL,
    "file",
    {"path": "?#[]"},
    host=st.one_of(st.just(""), st.just("localhost"), hostname()),
    path=delimited.map(lambda s: "/" + s),
)
serialised(
    schemes.ProsperoURL,
    "prospero",
    {"hsoname": "?#;", "version": "?#;/", "fields": "?#;=/"},
    hsoname=delimited_no_nul,
    version=st.one_of(st.none(), word(DIGIT, 1, 4)),
    fields=pairs,
    **auth,
)
serialised(
    schemes.MidURL,
    "mid",
    {"message_id": "?#/", "content_id": "?#/"},
    message_id=addr_spec(),
    content_id=st.one_of(st.none(), addr_spec()),
)
serialised(schemes.CidURL, "cid", {"content_id": "?#"}, content_id=addr_spec())
serialised(
    schemes.URNURL,
    "urn",
    {"nss": "#"},
    nid=st.sampled_from(["isbn", "ietf", "x-y"]),
    nss=chars(";/?:@&=", min_size=1),
)
serialised(
    schemes.GenericURL,
    "x-y",
    {"scheme_specific_part": "#"},
    scheme_specific_part=chars(";?:@&=").map(lambda s: s.lstrip("/")),
)
serialised(
    schemes.GenericURL,
    "x-y",
    {"scheme_specific_part": "#"},
    scheme_specific_part=st.builds(
        lambda login, path: f"//{login}{path}", st.builds(hostport_text), encoded_path
    ),
)

_ADDR_SPEC_FIELDS = {"address", "message_id", "content_id"}


def _neutral(name: str, value: Any) -> Any:
    """A value of the same shape as ``value`` with no delimiter of its own."""
    if isinstance(value, tuple):
        return tuple(_neutral(name, v) for v in value)
    if not isinstance(value, str) or not value:
        return value
    if name in _ADDR_SPEC_FIELDS:
        return structural(value)
    if name == "path" and value.startswith("/"):  # file: and http: paths: "/" is structure
        return "/".join("x" if seg else "" for seg in value.split("/"))
    if name == "hsoname":
        return "/".join("x" if seg else "" for seg in value.split("/"))
    return "x"


def _raw(text: str, chars: str) -> dict[str, int]:
    return {c: text.count(c) for c in chars}


@st.composite
def serialised_url(draw: st.DrawFn) -> tuple[URL, dict[str, str]]:
    cls, fields, delims = draw(st.sampled_from(SERIALISED))
    values = {name: draw(strategy) for name, strategy in fields.items()}
    if "password" in values and values.get("user") is None:
        values["password"] = None  # (a password belongs to a user name: §3.1's login)
    if "@" in (values.get("search") or "") and "path" in fields and not values["path"]:
        # "//h?…@…" is refused by design (docs/urls.md): RFC 1738 would read "h?…" as a user
        # name, RFC 3986 as a query.  With no path an "@" in the query can't be written
        # otherwise (the query is kept as written), so such a URL has a "/" path here.
        values["path"] = "/"
    if (
        cls is schemes.NewsURL
        and values.get("host") is not None
        and values.get("newsgroup") is None
    ):
        values["message_id"] = draw(
            st.builds(lambda u, h: f"{u}@{h}", delimited.filter(bool), hostname())
        )
    return cls(**values), delims


@PARSE
@given(serialised_url())
@example((schemes.MailtoURL(scheme="mailto", address='"not@me"@example.org'), {"address": "?#"}))
@example((schemes.FTPURL(scheme="ftp", host="h", name="a?b"), {"name": "?"}))
@example((schemes.FileURL(scheme="file", path="/a?b#c"), {"path": "?#"}))
@example((schemes.HTTPSURL(scheme="https", host="aa", path="/", search="@"), {"search": "#"}))
def test_every_class_serialises_without_changing_meaning(case: tuple[URL, dict[str, str]]) -> None:
    u, delims = case
    text = str(u)
    assert schemes.parse(text) == u, text
    assert str(schemes.parse(text)) == text  # a fixed point
    for name, chars in delims.items():
        value = getattr(u, name)
        if value is None or value in ("", ()):
            continue
        neutral = str(u.replace(**{name: _neutral(name, value)}))
        assert _raw(text, chars) == _raw(neutral, chars), (name, value, text, neutral)


@pytest.mark.parametrize(
    ("text", "field", "value"),
    [
        ("mailto:%22not%40me%22@example.org", "address", '"not@me"@example.org'),
        (
            "mailto:%22a%2Cb%22@example.org,c@example.org",
            "address",
            '"a,b"@example.org,c@example.org',
        ),
        ("mailto:%22a%40b%22@x.org?cc=%22c%40d%22@y.org", "headers", (("cc", '"c@d"@y.org'),)),
        ("mid:%22a%40b%22@example.org", "message_id", '"a@b"@example.org'),
        ("ftp://h/a%3Fb/c%23d", "cwd", ("a?b",)),
        ("file:///a%3Fb", "path", "/a?b"),
        ("prospero://h/a%3Fb;n=v%3Fw", "hsoname", "a?b"),
        ("gopher://h/0a%23b%5B%5D", "selector", "a#b[]"),
        ("news:a%3Fb@example.org", "message_id", "a?b@example.org"),
        ("news:a%2Fb@example.org", "message_id", "a/b@example.org"),
        ("telnet://u%3Ap%40:p%40ss@h/", "user", "u:p@"),
    ],
)
def test_rfc_examples_serialise_as_written(text: str, field: str, value: Any) -> None:
    """Each keeps its escapes: ``str(parse(text)) == text`` and the decoded value."""
    u = schemes.parse(text)
    assert getattr(u, field) == value
    assert str(u) == text
