"""Every example URL printed in RFC 1630 (specs/001_…, in French), with its components."""

from __future__ import annotations

import pytest

from omniurl import schemes
from omniurl.schemes import HTTPURL, EncodingError, GenericURL


@pytest.mark.parametrize(
    ("text", "host", "port", "path", "search", "fragment"),
    [
        # §5.1
        ("http://www.my.work.com/", "www.my.work.com", None, "/", None, None),
        (
            "http://www.my.uni.edu/info/matriculation/enroling.html",
            "www.my.uni.edu",
            None,
            "/info/matriculation/enroling.html",
            None,
            None,
        ),
        (
            "http://info.my.org/AboutUs/Phonebook",
            "info.my.org",
            None,
            "/AboutUs/Phonebook",
            None,
            None,
        ),
        (
            "http://www.library.my.town.va.us/Catalogue/76523471236%2Fwen44--4.98",
            "www.library.my.town.va.us",
            None,
            "/Catalogue/76523471236%2Fwen44--4.98",
            None,
            None,
        ),
        (
            "http://www.my.org/462F4F2D4241522A314159265358979323846",
            "www.my.org",
            None,
            "/462F4F2D4241522A314159265358979323846",
            None,
            None,
        ),
        (
            "http://info.cern.ch:8000/imaginary/test",
            "info.cern.ch",
            8000,
            "/imaginary/test",
            None,
            None,
        ),
        # "la chaîne "#andy" n'est pas envoyée au serveur"
        (
            "http://www.myu.edu/org/admin/people#andy",
            "www.myu.edu",
            None,
            "/org/admin/people",
            None,
            "andy",
        ),
        (
            "http://info.my.org/AboutUs/Index/Phonebook?dobbins",
            "info.my.org",
            None,
            "/AboutUs/Index/Phonebook",
            "dobbins",
            None,
        ),
        # §4.1.2 examples 1 and 2
        (
            "http://info.cern.ch/albert/bertram/marie-claude",
            "info.cern.ch",
            None,
            "/albert/bertram/marie-claude",
            None,
            None,
        ),
        (
            "http://info.cern.ch/albert/bertram/marie%2Dclaude",
            "info.cern.ch",
            None,
            "/albert/bertram/marie%2Dclaude",
            None,
            None,
        ),
        (
            "http://info.cern.ch/albert/bertram%2Fmarie-claude",
            "info.cern.ch",
            None,
            "/albert/bertram%2Fmarie-claude",
            None,
            None,
        ),
        (
            "http://info.cern.ch/hypertext/WWW/Addressing/URL/URI_Overview.html",
            "info.cern.ch",
            None,
            "/hypertext/WWW/Addressing/URL/URI_Overview.html",
            None,
            None,
        ),
    ],
)
def test_http_examples(
    text: str, host: str, port: int | None, path: str, search: str | None, fragment: str | None
) -> None:
    u = schemes.parse(text)
    assert isinstance(u, HTTPURL)
    assert (u.host, u.port, u.path, u.search, u.fragment) == (host, port, path, search, fragment)


def test_encoded_slash_keeps_its_difference() -> None:
    # §4.1.2 example 2: "%2F" has no hierarchical meaning, so the two are NOT the same URL.
    a = schemes.parse("http://info.cern.ch/albert/bertram/marie-claude")
    b = schemes.parse("http://info.cern.ch/albert/bertram%2Fmarie-claude")
    assert a != b


def test_illegal_percent_in_a_search() -> None:
    # §5.1's own example holds "%%3D": a "%" not followed by two hex digits (§4.1.2 ex. 3).
    text = "http://info.cern.ch/RDB/EMP?*%20where%20name%%3Ddobbins"
    with pytest.raises(EncodingError) as e:
        schemes.parse(text)
    assert (e.value.component, e.value.offset) == ("search", text.index("%%"))
    u = schemes.parse(text, strict=False)
    assert (u.path, u.search) == ("/RDB/EMP", "*%20where%20name%%3Ddobbins")


@pytest.mark.parametrize(
    ("text", "component", "bad"),
    [
        # §4.1.2 example 3: both are illegal, "%*" and "%as" decode to nothing.
        ("fxqn:/us/va/reston/cnri/ietf/24/asdf%*.fred", "scheme_specific_part", "%*"),
        ("news:12345667123%asdghfh@info.cern.ch", "message_id", "%as"),
    ],
)
def test_example_3_illegal_escapes(text: str, component: str, bad: str) -> None:
    with pytest.raises(EncodingError) as e:
        schemes.parse(text)
    assert (e.value.component, e.value.offset) == (component, text.index(bad))


def test_example_3_lenient_keeps_the_percent() -> None:
    u = schemes.parse("news:12345667123%asdghfh@info.cern.ch", strict=False)
    assert u.message_id == "12345667123%asdghfh@info.cern.ch"
    g = schemes.parse("fxqn:/us/va/reston/cnri/ietf/24/asdf%*.fred", strict=False)
    assert isinstance(g, GenericURL)
    assert g.scheme_specific_part == "/us/va/reston/cnri/ietf/24/asdf%*.fred"


@pytest.mark.parametrize(
    ("text", "cwd", "name"),
    [
        (
            "ftp://boombox.micro.umn.edu/pub/gopher/gopher_protocol",
            ("pub", "gopher"),
            "gopher_protocol",
        ),
        ("ftp://info.cern.ch/pub/www/doc/http-spec.txt", ("pub", "www", "doc"), "http-spec.txt"),
        ("ftp://quake.think.com/pub/wais/doc/protspec.txt", ("pub", "wais", "doc"), "protspec.txt"),
        ("ftp://quake.think.com/pub/wais/doc/doc-ids.txt", ("pub", "wais", "doc"), "doc-ids.txt"),
        ("ftp://prospero.isi.edu/pub/prospero/oir.ps", ("pub", "prospero"), "oir.ps"),
        ("ftp://uu.psi.com/wp/nir.txt", ("wp",), "nir.txt"),
    ],
)
def test_ftp_references(text: str, cwd: tuple[str, ...], name: str) -> None:
    u = schemes.parse(text)
    assert (u.cwd, u.name, u.typecode) == (cwd, name, None)


def test_wais_reference() -> None:
    u = schemes.parse("wais://quake.think.com/wais-discussion-archives?lynch")
    assert isinstance(u, schemes.WAISURL)
    assert (u.host, u.database, u.search, u.wtype, u.wpath) == (
        "quake.think.com",
        "wais-discussion-archives",
        "lynch",
        None,
        None,
    )


def test_gopher_reference_as_printed_has_raw_spaces() -> None:
    # The French text prints the reference with unencoded spaces: strict refuses the first
    # one, lenient reads type "0" and the selector "0/InformationAbout Gopher/About Gopher".
    text = "gopher://gopher.micro.umn.edu/00/InformationAbout Gopher/About Gopher"
    with pytest.raises(EncodingError) as e:
        schemes.parse(text)
    assert (e.value.component, e.value.offset) == ("selector", text.index(" "))
    u = schemes.parse(text, strict=False)
    assert (u.gtype, u.selector) == ("0", "0/InformationAbout Gopher/About Gopher")


def test_partial_form_context_magic_is_generic() -> None:
    # §4.1.3: "magic://a/b/c//d/e/f" (an unknown scheme: a generic URL)
    u = schemes.parse("magic://a/b/c//d/e/f")
    assert isinstance(u, GenericURL)
    assert (u.scheme, u.scheme_specific_part) == ("magic", "//a/b/c//d/e/f")


def test_urn_example() -> None:
    # §5.6: "urn:/iana/dns/ch/cern/cn/techdoc/94/1642-3"
    u = schemes.parse("urn:/iana/dns/ch/cern/cn/techdoc/94/1642-3")
    assert isinstance(u, schemes.URNURL)
    assert (u.nid, u.nss) == (None, "/iana/dns/ch/cern/cn/techdoc/94/1642-3")
    u = schemes.parse("urn:isbn:0-395-36341-1")
    assert (u.nid, u.nss) == ("isbn", "0-395-36341-1")


def test_mid_and_cid() -> None:
    # §5.9: the message-id "dont l'enveloppe <> a été retirée", in addr-spec form.
    u = schemes.parse("mid:960830.1639@XIson.com/partA.960830.1639@XIson.com")
    assert isinstance(u, schemes.MidURL)
    assert (u.message_id, u.content_id) == ("960830.1639@XIson.com", "partA.960830.1639@XIson.com")
    c = schemes.parse("cid:foo4%25foo1@bar.net")
    assert isinstance(c, schemes.CidURL)
    assert c.content_id == "foo4%foo1@bar.net"
    with pytest.raises(schemes.SchemeSyntaxError):
        schemes.parse("mid:no-at-sign")


def test_prospero_version_after_percent_00() -> None:
    # §6.4: "le numéro de version est séparé du nom ... par les caractères "%00""
    u = schemes.parse("prospero://host.dom//pros/name%0042")
    assert (u.hsoname, u.version) == ("/pros/name", "42")
    with pytest.raises(schemes.SchemeSyntaxError) as e:
        schemes.parse("prospero://host.dom/x%00v1")
    assert e.value.component == "version"


def test_mailto_percent_becomes_25() -> None:
    # §5.4: "%" in an address "exige la conversion en %25"
    assert schemes.parse("mailto:a%25b@gw.dom").address == "a%b@gw.dom"
