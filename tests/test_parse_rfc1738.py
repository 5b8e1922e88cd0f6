"""Every example URL printed in RFC 1738 (specs/000_…), with the components its text gives."""

from __future__ import annotations

import pytest

from omniurl import schemes
from omniurl.schemes import (
    FTPURL,
    HTTPURL,
    FileURL,
    GopherURL,
    NewsURL,
    ProsperoURL,
    URLError,
)

# -- §3.1: the user/password distinctions ---------------------------------------------------


def test_empty_user_name_and_no_password() -> None:
    # "<URL:ftp://@host.com/> has an empty user name and no password"
    u = schemes.parse("ftp://@host.com/")
    assert (u.user, u.password, u.host) == ("", None, "host.com")


def test_no_user_name() -> None:
    # "<URL:ftp://host.com/> has no user name"
    u = schemes.parse("ftp://host.com/")
    assert (u.user, u.password, u.host) == (None, None, "host.com")


def test_user_foo_and_empty_password() -> None:
    # "<URL:ftp://foo:@host.com/> has a user name of "foo" and an empty password"
    u = schemes.parse("ftp://foo:@host.com/")
    assert (u.user, u.password, u.host) == ("foo", "", "host.com")


# -- §3.2.2: the FTP url-path --------------------------------------------------------------


def test_encoded_slash_is_one_cwd_of_slash_etc() -> None:
    # "CWD /etc" and then "RETR motd"
    u = schemes.parse("ftp://myname@host.dom/%2Fetc/motd")
    assert isinstance(u, FTPURL)
    assert (u.user, u.password, u.host, u.port) == ("myname", None, "host.dom", None)
    assert u.cwd == ("/etc",)
    assert u.name == "motd"
    assert u.typecode is None
    assert u.effective_port == 21


def test_relative_etc_motd() -> None:
    # "CWD etc" and then "RETR motd"
    u = schemes.parse("ftp://myname@host.dom/etc/motd")
    assert (u.cwd, u.name) == (("etc",), "motd")


def test_double_slash_is_a_null_argument_cwd() -> None:
    # 'would "CWD " with a null argument, then "CWD etc", and then "RETR motd"'
    u = schemes.parse("ftp://myname@host.dom//etc/motd")
    assert (u.cwd, u.name) == (("", "etc"), "motd")


def test_three_ftp_examples_differ() -> None:
    texts = (
        "ftp://myname@host.dom/%2Fetc/motd",
        "ftp://myname@host.dom/etc/motd",
        "ftp://myname@host.dom//etc/motd",
    )
    assert len({schemes.parse(t) for t in texts}) == 3


@pytest.mark.parametrize(
    ("text", "cwd", "name", "typecode"),
    [
        ("ftp://ds.internic.net/rfc/rfc1436.txt;type=a", ("rfc",), "rfc1436.txt", "a"),
        ("ftp://ds.internic.net/rfc/rfc1630.txt", ("rfc",), "rfc1630.txt", None),
        ("ftp://ds.internic.net/rfc/rfc1034.txt", ("rfc",), "rfc1034.txt", None),
        ("ftp://ds.internic.net/rfc/rfc1036.txt", ("rfc",), "rfc1036.txt", None),
        ("ftp://ds.internic.net/rfc/rfc1123.txt", ("rfc",), "rfc1123.txt", None),
        ("ftp://ds.internic.net/rfc/rfc1625.txt", ("rfc",), "rfc1625.txt", None),
        ("ftp://ds.internic.net/rfc/rfc1737.txt", ("rfc",), "rfc1737.txt", None),
        ("ftp://ds.internic.net/rfc/rfc822.txt", ("rfc",), "rfc822.txt", None),
        ("ftp://ds.internic.net/rfc/rfc959.txt", ("rfc",), "rfc959.txt", None),
        ("ftp://ds.internic.net/rfc/rfc977.txt", ("rfc",), "rfc977.txt", None),
        (
            "ftp://info.cern.ch/pub/www/doc/http-spec.txt.Z",
            ("pub", "www", "doc"),
            "http-spec.txt.Z",
            None,
        ),
        (
            "ftp://quake.think.com/pub/wais/doc/doc-ids.txt",
            ("pub", "wais", "doc"),
            "doc-ids.txt",
            None,
        ),
        (
            "ftp://quake.think.com/pub/wais/doc/protspec.txt",
            ("pub", "wais", "doc"),
            "protspec.txt",
            None,
        ),
        ("ftp://uu.psi.com/wp/nir.txt", ("wp",), "nir.txt", None),
        (
            "ftp://boombox.micro.umn.edu/pub/gopher/gopher_protocol/Gopher+/Gopher+.txt",
            ("pub", "gopher", "gopher_protocol", "Gopher+"),
            "Gopher+.txt",
            None,
        ),
        (
            "ftp://ds.internic.net/internet-drafts/draft-ietf-uri-irl-fun-req-02.txt",
            ("internet-drafts",),
            "draft-ietf-uri-irl-fun-req-02.txt",
            None,
        ),
        (
            "ftp://prospero.isi.edu/pub/prospero/doc/prospero-protocol.PS.Z",
            ("pub", "prospero", "doc"),
            "prospero-protocol.PS.Z",
            None,
        ),
        # The appendix's examples, once the wrapper and the line breaks are removed.
        ("ftp://info.cern.ch/pub/www/doc;type=d", ("pub", "www"), "doc", "d"),
        ("ftp://ds.internic.net/rfc", (), "rfc", None),
    ],
)
def test_reference_ftp_urls(
    text: str, cwd: tuple[str, ...], name: str, typecode: str | None
) -> None:
    u = schemes.parse(text)
    assert isinstance(u, FTPURL)
    assert (u.cwd, u.name, u.typecode, u.user, u.port) == (cwd, name, typecode, None, None)


@pytest.mark.parametrize("code", ["A", "I", "D", "a", "i", "d"])
def test_ftptype_either_case(code: str) -> None:
    # ftptype = "A" | "I" | "D" | "a" | "i" | "d"
    assert schemes.parse(f"ftp://h/f;type={code}").typecode == code.lower()


def test_ftp_url_path_may_be_omitted() -> None:
    u = schemes.parse("ftp://host.dom")
    assert (u.cwd, u.name, u.typecode) == ((), "", None)


def test_ftp_empty_name_is_a_directory() -> None:
    u = schemes.parse("ftp://host.dom/pub/")
    assert (u.cwd, u.name) == (("pub",), "")


# -- §3.3: HTTP ------------------------------------------------------------------------------


def test_http_reference_url() -> None:
    u = schemes.parse("http://www.acl.lanl.gov/URI/archive/uri-archive.index.html")
    assert isinstance(u, HTTPURL)
    assert (u.host, u.port, u.path, u.search) == (
        "www.acl.lanl.gov",
        None,
        "/URI/archive/uri-archive.index.html",
        None,
    )
    assert u.effective_port == 80


def test_http_appendix_fragment_is_split_off() -> None:
    u = schemes.parse("http://ds.internic.net/instructions/overview.html#WARNING")
    assert (u.path, u.search, u.fragment) == ("/instructions/overview.html", None, "WARNING")
    assert u.target == "/instructions/overview.html"


def test_http_without_path_or_slash() -> None:
    # "If neither <path> nor <searchpart> is present, the "/" may also be omitted."
    u = schemes.parse("http://host.dom")
    assert (u.path, u.search, u.target) == ("", None, "/")


def test_http_user_name_refused_in_strict_mode() -> None:
    # §3.3: "No user name or password is allowed."
    with pytest.raises(schemes.AuthorityError) as e:
        schemes.parse("http://joe:pw@host.dom/", syntax="rfc1738")
    assert (e.value.component, e.value.offset) == ("user", 7)
    # RFC 3986 §3.2.1 has the userinfo (RFC 9110 §4.2.4 deprecates it, and get warns)
    assert schemes.parse("http://joe:pw@host.dom/").user == "joe"
    u = schemes.parse("http://joe:pw@host.dom/", strict=False)
    assert (u.user, u.password, u.host) == ("joe", "pw", "host.dom")


def test_https_default_port() -> None:
    u = schemes.parse("https://host.dom/x")
    assert isinstance(u, schemes.HTTPSURL)
    assert (u.port, u.effective_port, u.default_port) == (None, 443, 443)


# -- §3.4: Gopher ----------------------------------------------------------------------------


def test_gopher_empty_path_defaults_to_type_1() -> None:
    # "The entire <gopher-path> may also be empty, in which case the delimiting "/" is also
    # optional and the <gophertype> defaults to "1"."
    for text in ("gopher://host.dom", "gopher://host.dom/"):
        u = schemes.parse(text)
        assert isinstance(u, GopherURL)
        assert (u.gtype, u.selector, u.search, u.gopher_plus) == ("1", "", None, None)
        assert u.effective_port == 70


def test_gopher_selector_may_repeat_the_type() -> None:
    # "some Gopher <selector> strings begin with a copy of the <gophertype> character"
    u = schemes.parse("gopher://host.dom/00/about")
    assert (u.gtype, u.selector) == ("0", "0/about")


def test_gopher_no_reserved_characters() -> None:
    # "Within the <gopher-path>, no characters are reserved."
    u = schemes.parse("gopher://host.dom/1/a;b?c=d&e:f@g")
    assert (u.gtype, u.selector, u.search) == ("1", "/a;b?c=d&e:f@g", None)


def test_gopher_search() -> None:
    # §3.4.2: "the selector is followed by an encoded tab (%09) and the search string"
    u = schemes.parse("gopher://host.dom/7/search%09gopher%20urls")
    assert (u.gtype, u.selector, u.search, u.gopher_plus) == (
        "7",
        "/search",
        "gopher urls",
        None,
    )


@pytest.mark.parametrize(
    ("plus", "decoded"),
    [
        ("+", "+"),  # §3.4.4: the default view
        ("?", "?"),  # §3.4.4: an item with an electronic form
        ("!", "!"),  # §3.4.6: all attributes of the item
        ("$", "$"),  # §3.4.6: all attributes of all items in the directory
        ("!+ABSTRACT", "!+ABSTRACT"),  # §3.4.7
        ("!+ABSTRACT%20+SMELL", "!+ABSTRACT +SMELL"),  # §3.4.7
        ("+application/postscript%20Es_ES", "+application/postscript Es_ES"),  # §3.4.8
    ],
)
def test_gopher_plus_strings(plus: str, decoded: str) -> None:
    # §3.4.3: "the %09<search> string must be supplied, although the <search> element may
    # be the empty string"
    u = schemes.parse(f"gopher://host.dom/0/item%09%09{plus}")
    assert (u.selector, u.search, u.gopher_plus) == ("/item", "", decoded)


def test_gopher_plus_electronic_form() -> None:
    # §3.4.9: +%091%0D%0A+-1%0D%0A<ask_item1_value>%0D%0A<ask_item2_value>%0D%0A.%0D%0A
    u = schemes.parse("gopher://host.dom/1/form%09%09+%091%0D%0A+-1%0D%0Aone%0D%0Atwo%0D%0A.%0D%0A")
    assert u.selector == "/form"
    assert u.search == ""
    assert u.gopher_plus == "+\t1\r\n+-1\r\none\r\ntwo\r\n.\r\n"


def test_gopher_selector_may_not_hold_crlf() -> None:
    # §3.4.1: a selector holds any octets "except 09 hexadecimal ... 0A ... and 0D"
    with pytest.raises(schemes.SchemeSyntaxError) as e:
        schemes.parse("gopher://host.dom/0a%0D%0Ab")
    assert (e.value.component, e.value.offset) == ("selector", 20)


# -- §3.5-§3.7: mailto, news, nntp -----------------------------------------------------------


def test_mailto_percent_must_be_encoded() -> None:
    # §3.5: "the percent sign ("%") is commonly used within RFC 822 addresses and must be
    # encoded"
    u = schemes.parse("mailto:user%25gateway@relay.dom")
    assert (u.address, u.headers) == ("user%gateway@relay.dom", ())
    with pytest.raises(schemes.EncodingError) as e:
        schemes.parse("mailto:user%gateway@relay.dom")
    assert (e.value.component, e.value.offset) == ("address", 11)


def test_news_all_groups() -> None:
    u = schemes.parse("news:*")
    assert isinstance(u, NewsURL)
    assert (u.newsgroup, u.message_id) == ("*", None)


def test_news_group_and_article() -> None:
    u = schemes.parse("news:comp.infosystems.www.misc")
    assert (u.newsgroup, u.message_id) == ("comp.infosystems.www.misc", None)
    u = schemes.parse("news:12345@host.dom")
    assert (u.newsgroup, u.message_id) == (None, "12345@host.dom")


def test_nntp() -> None:
    u = schemes.parse("nntp://news.host.dom/comp.infosystems.www.misc/1234")
    assert isinstance(u, schemes.NNTPURL)
    assert (u.host, u.newsgroup, u.article, u.effective_port) == (
        "news.host.dom",
        "comp.infosystems.www.misc",
        1234,
        119,
    )
    u = schemes.parse("nntp://news.host.dom:1119/alt.test")
    assert (u.port, u.newsgroup, u.article) == (1119, "alt.test", None)


# -- §3.8-§3.11: telnet, wais, file, prospero ------------------------------------------------


def test_telnet() -> None:
    u = schemes.parse("telnet://guest:secret@host.dom:2323/")
    assert isinstance(u, schemes.TelnetURL)
    assert (u.user, u.password, u.host, u.port, u.trailing_slash) == (
        "guest",
        "secret",
        "host.dom",
        2323,
        True,
    )
    u = schemes.parse("telnet://host.dom")
    assert (u.user, u.trailing_slash, u.effective_port) == (None, False, 23)


def test_telnet_has_no_path() -> None:
    with pytest.raises(schemes.SchemeSyntaxError) as e:
        schemes.parse("telnet://host.dom/login")
    assert (e.value.component, e.value.offset) == ("path", 18)


@pytest.mark.parametrize(
    ("text", "database", "search", "wtype", "wpath"),
    [
        ("wais://host.dom/db", "db", None, None, None),
        ("wais://host.dom/db?war+peace", "db", "war+peace", None, None),
        ("wais://host.dom/db/TEXT/0%202%20/x", "db", None, "TEXT", None),
    ],
)
def test_wais_forms(
    text: str, database: str, search: str | None, wtype: str | None, wpath: str | None
) -> None:
    if wtype is not None:
        # wpath = *uchar: a raw "/" inside it is refused by RFC 1738's letter, kept by RFC
        # 3986's reading (a path character there) and in lenient mode
        with pytest.raises(URLError):
            schemes.parse(text, syntax="rfc1738")
        assert schemes.parse(text).wpath == "0 2 /x"
        u = schemes.parse(text, strict=False)
        assert u.wpath == "0 2 /x"
        return
    u = schemes.parse(text)
    assert isinstance(u, schemes.WAISURL)
    assert (u.database, u.search, u.wtype, u.wpath) == (database, search, wtype, wpath)
    assert u.effective_port == 210


def test_wais_document() -> None:
    u = schemes.parse("wais://host.dom:8210/db/TEXT/0%202%20%2Fx")
    assert (u.port, u.database, u.search, u.wtype, u.wpath) == (
        8210,
        "db",
        None,
        "TEXT",
        "0 2 /x",
    )


def test_file_vms_example() -> None:
    u = schemes.parse("file://vms.host.edu/disk$user/my/notes/note12345.txt")
    assert isinstance(u, FileURL)
    assert (u.host, u.path, u.is_local) == (
        "vms.host.edu",
        "/disk$user/my/notes/note12345.txt",
        False,
    )


@pytest.mark.parametrize("host", ["", "localhost"])
def test_file_local_host(host: str) -> None:
    u = schemes.parse(f"file://{host}/etc/motd")
    assert (u.host, u.path, u.is_local) == (host, "/etc/motd", True)


def test_prospero_double_slash_hsoname() -> None:
    # "<URL:prospero://host.dom//pros/name> designates a <hsoname> of "/pros/name""
    u = schemes.parse("prospero://host.dom//pros/name")
    assert isinstance(u, ProsperoURL)
    assert (u.host, u.hsoname, u.fields, u.version, u.effective_port) == (
        "host.dom",
        "/pros/name",
        (),
        None,
        1525,
    )


def test_prospero_fields() -> None:
    u = schemes.parse("prospero://host.dom//pros/name;OBJECT-VERSION=3;x=a%3Bb")
    assert u.fields == (("OBJECT-VERSION", "3"), ("x", "a;b"))


def test_prospero_refuses_userinfo() -> None:
    # §3.11: "No username or password is allowed."
    with pytest.raises(schemes.AuthorityError):
        schemes.parse("prospero://joe@host.dom/x", syntax="rfc1738")


# -- §2.1, §4: scheme names ------------------------------------------------------------------


@pytest.mark.parametrize("scheme", ["FTP", "Ftp", "fTp"])
def test_scheme_names_ignore_case(scheme: str) -> None:
    u = schemes.parse(f"{scheme}://host.dom/f")
    assert isinstance(u, FTPURL)
    assert u.scheme == "ftp"
    assert u == schemes.parse("ftp://host.dom/f")


def test_experimental_x_scheme_is_generic() -> None:
    # §4: 'Scheme names starting with the characters "x-" are reserved for experimental
    # purposes.'  §5: otherurl = genericurl.
    u = schemes.parse("X-Foo://a/b;c?d")
    assert isinstance(u, schemes.GenericURL)
    assert (u.scheme, u.scheme_specific_part) == ("x-foo", "//a/b;c?d")


@pytest.mark.parametrize(
    ("scheme", "port"),
    [
        ("ftp", 21),
        ("http", 80),
        ("https", 443),
        ("gopher", 70),
        ("nntp", 119),
        ("telnet", 23),
        ("wais", 210),
        ("prospero", 1525),
    ],
)
def test_default_ports(scheme: str, port: int) -> None:
    cls = schemes.scheme_class(scheme)
    assert cls is not None
    assert port == cls.DEFAULT_PORT
