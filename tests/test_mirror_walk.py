"""omniurl mirror's pure decisions (omniurl/mirror/walk.py, the spec's tree hooks, the HTML
link reader): which links are followed, local names, whether a file is fetched again."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest

from omniurl.mirror.state import State
from omniurl.mirror.walk import (
    STATE_DIR,
    Action,
    LinkTarget,
    Listed,
    Local,
    Place,
    Refused,
    after_head,
    decide,
    link_target,
    listing_name,
    local_name,
    place,
    selected,
    start_of,
)
from omniurl.resolvers.http.links import css_links, html_links, page_text, refresh_url
from omniurl.resolvers.mediatype import charset_param
from omniurl.resolvers.registry import spec_for
from omniurl.resolvers.spec import TreePath
from omniurl.schemes import parse


def where(start: str, link: str) -> Place | Refused:
    s = parse(start)
    spec = spec_for(s.scheme)
    first = start_of(s, spec.present(), spec.names)
    u = parse(link)
    other = spec_for(u.scheme)
    return place(first, u, other.present(), other.names)


@pytest.mark.parametrize(
    ("segment", "name"),
    [
        ("a.txt", "a.txt"),
        ("a/b", "a%2Fb"),
        ("..\\..\\x", "..%5C..%5Cx"),
        ("a\x00b", "a%00b"),
        ("tab\there", "tab%09here"),
        ("%gophermap.tsv", "%gophermap.tsv"),  # (no listing saved: nothing reserved)
        ("%lead.txt", "%lead.txt"),
        ("100%.txt", "100%.txt"),
        ("caf\udcc3", "caf%C3"),
        (".hidden", ".hidden"),
    ],
)
def test_local_names(segment: str, name: str) -> None:
    assert local_name(segment) == name


@pytest.mark.parametrize("segment", ["", ".", "..", "x" * 256])
def test_no_local_name(segment: str) -> None:
    assert local_name(segment) is None


def test_the_state_directory_cannot_be_named_by_a_server() -> None:
    assert local_name(STATE_DIR, top=True) == "%2Eomniurl-mirror"
    assert local_name(STATE_DIR) == STATE_DIR  # (only at the top is it the mirror's)


def test_a_saved_menu_cannot_collide_with_an_item() -> None:
    name = listing_name(spec_for("gopher").present())
    assert name == "%gophermap.tsv"
    assert local_name(name, reserved=name) == "%25gophermap.tsv"
    # one-to-one: a name beginning %25 is escaped too, any other leading % is kept
    assert local_name("%25gophermap.tsv", reserved=name) == "%2525gophermap.tsv"
    assert local_name("%lead.txt", reserved=name) == "%lead.txt"


@pytest.mark.parametrize(
    ("start", "link", "path"),
    [
        # a server's "%lead.txt" is "%lead.txt" here, as lftp mirror and wget -m write it
        ("ftp://h/pub/", "ftp://h/pub/%25lead.txt", ("%lead.txt",)),
        ("http://h/d/", "http://h/d/sub/%25lead.txt", ("sub", "%lead.txt")),
        ("gemini://h/", "gemini://h/%25lead.txt", ("%lead.txt",)),
        ("gopher://h/1/", "gopher://h/0/%25lead.txt", ("%lead.txt",)),
        # where menus are saved, an item cannot take the saved menu's name
        ("gopher://h/1/", "gopher://h/0/d/%25gophermap.tsv", ("d", "%25gophermap.tsv")),
    ],
)
def test_a_leading_percent_is_kept(start: str, link: str, path: tuple[str, ...]) -> None:
    got = where(start, link)
    assert isinstance(got, Place) and got.path == path


@pytest.mark.parametrize(
    ("link", "path", "container"),
    [
        ("ftp://h/pub/a.txt", ("a.txt",), False),
        ("ftp://h/pub/sub/", ("sub",), True),
        ("ftps://h:21/pub/a.txt", ("a.txt",), False),  # one family, the same port
    ],
)
def test_ftp_places(link: str, path: tuple[str, ...], container: bool) -> None:
    got = where("ftp://h/pub/", link)
    assert isinstance(got, Place)
    assert (got.path, got.container) == (path, container)


@pytest.mark.parametrize(
    ("link", "reason"),
    [
        ("http://h:8080/d/x", "another server (host or port)"),
        ("http://other/d/x", "another server (host or port)"),
        ("https://h/d/x", "another server (host or port)"),
        ("gopher://h/d/x", "another scheme (gopher:)"),
        ("http://h/dx/y", "outside the starting path"),
        ("http://h/e/", "outside the starting path"),
        ("http://h/d/x?C=N;O=D", "no place in the tree (a search, a session, a query)"),
    ],
)
def test_http_links_not_followed(link: str, reason: str) -> None:
    got = where("http://h/d/", link)
    assert isinstance(got, Refused)
    assert got.reason == reason


def test_http_link_below_is_followed_and_decoded() -> None:
    got = where("http://h/d/", "http://h/d/sub/a%20b%2Fc.txt")
    assert isinstance(got, Place)
    assert got.path == ("sub", "a b%2Fc.txt")
    assert got.text == "sub/a b%2Fc.txt"


def test_ftps_on_its_own_port_is_another_server() -> None:
    got = where("ftp://h/pub/", "ftps://h/pub/a.txt")
    assert isinstance(got, Refused) and got.reason == "another server (host or port)"


def test_gopher_menu_to_another_port_is_not_followed() -> None:
    got = where("gopher://h/1/", "gopher://h:6379/0/x")
    assert isinstance(got, Refused) and got.reason == "another server (host or port)"


@pytest.mark.parametrize(
    ("link", "expected"),
    [
        ("gopher://h/1/pub/sub", (("sub",), True)),
        ("gopher://h/0/pub/a.txt", (("a.txt",), False)),
        ("gopher://h/9/pub/b.bin", (("b.bin",), False)),
        ("gopher://h/0/pub2/x", "outside the starting path"),
        ("gopher://h/7/pub/search", "no place in the tree (a search, a session, a query)"),
        ("gopher://h/0/pub/../../etc/passwd", "unsafe name '..'"),
    ],
)
def test_gopher_places(link: str, expected: object) -> None:
    got = where("gopher://h/1/pub", link)
    if isinstance(expected, str):
        assert isinstance(got, Refused) and got.reason == expected
    else:
        assert isinstance(got, Place) and (got.path, got.container) == expected


def test_gopher_root_holds_every_selector() -> None:
    got = where("gopher://h/", "gopher://h/0/a/b")
    assert isinstance(got, Place) and got.path == ("a", "b")


def test_tree_paths_of_the_specs() -> None:
    assert spec_for("ftp").present().tree_path(parse("ftp://h/a/b/c.txt")) == TreePath(
        ("a", "b", "c.txt"), False
    )
    assert spec_for("file").present().tree_path(parse("file:///tmp/x/")) == TreePath(
        ("tmp", "x"), True
    )
    assert spec_for("gemini").present().tree_path(parse("gemini://h/a/")) == TreePath(("a",), True)
    assert spec_for("gopher").present().tree_path(parse("gopher://h/7/s")) is None


def test_selected_by_globs() -> None:
    assert selected("a/b.txt", False, (), ())
    assert not selected("a/b.txt", False, (), ("*.txt",))
    assert not selected("tmp", True, (), ("tmp/",))
    assert selected("tmp", True, ("*.iso",), ())  # directories are walked to find files
    assert not selected("a/b.txt", False, ("*.iso",), ())
    assert selected("a/b.iso", False, ("*.iso",), ())


T = datetime.datetime(2024, 3, 5, 6, 7, 8, tzinfo=datetime.UTC)


def test_decide_with_exact_facts() -> None:
    listed = Listed(10, "2024-03-05T06:07:08Z")
    assert decide(None, listed) is Action.FETCH
    assert decide(Local(10, T.timestamp()), listed) is Action.SKIP
    assert decide(Local(11, T.timestamp()), listed) is Action.FETCH
    assert decide(Local(10, T.timestamp() + 60), listed) is Action.FETCH


def test_decide_with_rough_facts_asks_the_exact_ones() -> None:
    listed = Listed(10, "2024-03-05T06:07")
    assert decide(Local(10, T.timestamp()), listed) is Action.HEAD
    assert after_head(Local(10, T.timestamp()), 10, T) is Action.SKIP
    assert after_head(Local(10, T.timestamp()), 12, T) is Action.FETCH
    assert after_head(Local(10, T.timestamp()), None, None) is Action.FETCH


def test_decide_without_facts_fetches() -> None:
    assert decide(Local(10, 0), Listed()) is Action.FETCH


def test_html_links() -> None:
    page = (
        '<base href="/base/"><a href="x/">x</a><a href="../y#f">y</a><img src="i.png">'
        '<a name="n">no link</a><link href="s.css">'
    )
    assert list(html_links(page, "http://h/d/p.html")) == [
        "http://h/base/x/",
        "http://h/y",
        "http://h/base/i.png",
        "http://h/base/s.css",
    ]


def test_html_links_of_srcset_poster_data_track_and_input() -> None:
    """What ``wget --mirror`` follows beside ``href``/``src`` (before, a page's responsive
    images, poster, object, subtitles and image button were left out of a mirror)."""
    page = (
        '<img src="i.png" srcset="i2.png 2x, i3.png  3x,i4.png">'
        '<picture><source srcset="w,1.png 300w, w(2).png 600w" type="image/webp"></picture>'
        '<img srcset="  sp.png  ,, trail.png,, d.png 1x (x, y), e.png">'
        '<video poster="p.jpg" src="v.mp4"><track src="sub.vtt"></video>'
        '<object data="o.svg"></object><input type="image" src="btn.png">'
    )
    assert list(html_links(page, "http://h/d/p.html")) == [
        "http://h/d/i.png",
        "http://h/d/i2.png",
        "http://h/d/i3.png",
        "http://h/d/i4.png",
        "http://h/d/w,1.png",
        "http://h/d/w(2).png",
        "http://h/d/sp.png",
        "http://h/d/trail.png",
        "http://h/d/d.png",
        "http://h/d/e.png",
        "http://h/d/p.jpg",
        "http://h/d/v.mp4",
        "http://h/d/sub.vtt",
        "http://h/d/o.svg",
        "http://h/d/btn.png",
    ]


def test_css_links() -> None:
    """What a style sheet loads, as wget --mirror reads it: url() quoted or not, @import
    by string or url(); comments and data: URLs are no links."""
    sheet = (
        "/* url(no.png) @import 'no.css'; */ @import \"a.css\"; @import url('b.css');\n"
        "body{background:URL( img/bg.png ) no-repeat}"
        "@font-face{src:url(\"f.woff2\") format('woff2'),url('../f.woff')}"
        ".x{background:url(data:image/png;base64,AAAA)} /* unclosed url(z.png)"
    )
    assert list(css_links(sheet, "http://h/s/site.css")) == [
        "http://h/s/a.css",
        "http://h/s/b.css",
        "http://h/s/img/bg.png",
        "http://h/s/f.woff2",
        "http://h/f.woff",
    ]


def test_html_links_of_style_and_refresh() -> None:
    page = (
        '<body style="background: url(bg.png)"><style>@import "s.css";'
        " p{background:url('p.png')}</style>"
        '<meta http-equiv="Refresh" content="5; URL=\'next.html\'"><a href="a.html">a</a>'
        '<meta http-equiv="content-type" content="text/html; url=no.html">'
    )
    assert list(html_links(page, "http://h/d/")) == [
        "http://h/d/bg.png",
        "http://h/d/s.css",
        "http://h/d/p.png",
        "http://h/d/next.html",
        "http://h/d/a.html",
    ]


@pytest.mark.parametrize(
    ("content", "url"),
    [
        ("0; url=a.html", "a.html"),
        ("0;URL = 'b c.html' ", "b c.html"),
        ("3,url=c.html", "c.html"),
        ("5; d.html", "d.html"),
        ("5", None),
        ("x; url=e.html", None),
        ("0; url=", None),
    ],
)
def test_refresh_url(content: str, url: str | None) -> None:
    assert refresh_url(content) == url


@pytest.mark.parametrize(
    ("data", "media_type", "text"),
    [
        (b"caf\xc3\xa9", "text/html", "café"),  # UTF-8 by default
        (b"caf\xe9", "text/html", "café"),  # not UTF-8, nothing declared: windows-1252
        (b"caf\xe9 \x80", "text/html; charset=ISO-8859-1", "café €"),  # (WHATWG: cp1252)
        (b"caf\xe9", 'text/html;charset="latin1"', "café"),
        (
            b'<meta charset="iso-8859-15">caf\xe9 \xa4',
            "text/html",
            '<meta charset="iso-8859-15">café €',
        ),
        (
            b'<meta http-equiv="Content-Type" content="text/html; charset=koi8-r">\xc1',
            None,
            '<meta http-equiv="Content-Type" content="text/html; charset=koi8-r">а',
        ),
        (b"caf\xe9", "text/html; charset=utf-8", "caf\ufffd"),  # declared: held to it
        (b"caf\xe9", "text/html; charset=no-such-thing", "café"),
        (b"caf\xc3\xa9", "text/css; charset=utf-16", "café"),  # (never UTF-16: WHATWG)
        # Python's codecs that are no WHATWG encoding are no label (before: LookupError,
        # UnicodeError, or the text gone): the default reading
        (b"caf\xe9", "text/html; charset=base64", "café"),
        (b"caf\xe9", "text/html; charset=undefined", "café"),
        (b"caf\xc3\xa9", "text/html; charset=idna", "café"),
        (b"caf\xc3\xa9", "text/html; charset=punycode", "café"),
        (b"caf\\xe9", "text/html; charset=unicode_escape", "caf\\xe9"),
        (b'<meta charset="rot13">caf\xe9', None, '<meta charset="rot13">café'),
        (b"\x80", "text/html; charset=iso-8859-9", "€"),  # (WHATWG: windows-1254)
        (b"\x81\x40", "text/html; charset=gb2312", "丂"),  # (WHATWG: GBK)
    ],
)
def test_page_text_reads_the_pages_own_encoding(data: bytes, media_type: str, text: str) -> None:
    # (the charset the Content-Type declares, read as the executor reads it)
    assert page_text(data, charset_param(media_type)) == text


def test_a_latin_1_pages_links_are_followed() -> None:
    """Before: read as UTF-8, ``caf\\xe9.txt`` became ``caf\\ufffd.txt``, no URL: the link was
    dropped silently.  Now the page's characters, as a browser reads them (the path in
    UTF-8, WHATWG URL)."""
    page = b'<meta charset="iso-8859-1"><a href="caf\xe9.txt">x</a><a href="na%EFve.txt">y</a>'
    http = spec_for("http").present()
    assert list(http.page_links("http://h/d/", "text/html", page) or ()) == [
        "http://h/d/caf\u00e9.txt",
        "http://h/d/na%EFve.txt",
    ]


def test_autoindex_pages_are_listings() -> None:
    http = spec_for("http").present()
    assert http.generated_listing("text/html", b"<html><head><title>Index of /d/</title>")
    assert not http.generated_listing("text/html", b"<html><head><title>Home</title>")


def test_paths_are_claimed_once(tmp_path: Path) -> None:
    state = State(tmp_path / "s.sqlite")
    assert state.claim("a", False) is None
    assert state.claim("a", False) == "'a' is already the local name of another URL"
    assert state.claim("A", False) is None  # a case-sensitive disk
    assert state.claim("d", True) is None and state.claim("d", True) is None
    state.close()


def test_names_differing_in_case_on_a_case_insensitive_disk(tmp_path: Path) -> None:
    state = State(tmp_path / "s.sqlite", case_insensitive=True)
    assert state.claim("dir/Readme", False) is None
    assert state.claim("dir/README", False) == (
        "'dir/README' and 'dir/Readme' differ only in case on this disk"
    )
    state.close()


def test_the_queue_ends_loops(tmp_path: Path) -> None:
    state = State(tmp_path / "s.sqlite")
    assert state.enqueue("gopher://h/1/", "", True, 0)
    assert not state.enqueue("gopher://h/1/", "", True, 3)
    assert [i.url for i in state.items_after(0, 10)] == ["gopher://h/1/"]
    state.close()


def test_ftp_files_are_fetched_as_image() -> None:
    ftp = spec_for("ftp").present()
    assert str(ftp.exact_url(parse("ftp://h/a/notes.txt"))) == "ftp://h/a/notes.txt;type=i"
    assert str(ftp.exact_url(parse("ftp://h/a/n.txt;type=a"))) == "ftp://h/a/n.txt;type=a"
    assert str(ftp.exact_url(parse("ftp://h/a/"))) == "ftp://h/a/"


@pytest.mark.parametrize(
    ("link", "expected"),
    [
        ("gopher://h/0/with%23040space.txt", ("with space.txt",)),
        ("gopher://h/0/na%23303%23257ve.txt", ("na\u00efve.txt",)),
        ("gopher://h/0/%23045lead.txt", ("%lead.txt",)),
        ("gopher://h/1/sub%23040dir/", ("sub dir",)),
        ("gopher://h/0/hash%23tag.txt", ("hash#tag.txt",)),  # not an escape: its own name
        ("gopher://h/0/a%23999", ("a#999",)),
        ("gopher://h/0/%23057etc%23057passwd", ("%2Fetc%2Fpasswd",)),  # one name, never a path
        ("gopher://h/0/%23056%23056", "unsafe"),  # ".."
    ],
)
def test_gophernicus_octal_escapes_are_the_names(link: str, expected: object) -> None:
    """Gophernicus writes a name's space, "#", "%" and non-ASCII octets as "#" and three
    octal digits in its selectors: the local name is the name they stand for."""
    got = where("gopher://h/1/", link)
    if expected == "unsafe":
        assert isinstance(got, Refused) and got.unsafe
    else:
        assert isinstance(got, Place) and got.path == expected


def test_autoindex_times_nginx_and_apache() -> None:
    from omniurl.resolvers.http.links import autoindex_times

    nginx = (
        '<html><head><title>Index of /d/</title></head><body><pre><a href="../">../</a>\n'
        '<a href="sub%20dir/">sub dir/</a>                     15-Apr-2022 05:38       -\n'
        '<a href="a.txt">a.txt</a>                             13-Sep-2020 12:43       8\n'
        "</pre></body></html>"
    )
    assert autoindex_times(nginx, "http://h/d/") == {
        "http://h/d/sub%20dir/": "2022-04-15T05:38",
        "http://h/d/a.txt": "2020-09-13T12:43",
    }
    apache = (
        '<tr><td valign="top"><img src="/icons/folder.gif" alt="[DIR]"></td><td>'
        '<a href="sub/">sub/</a></td><td align="right">2022-04-15 05:38  </td>'
        '<td align="right">  - </td></tr>'
    )
    assert autoindex_times(apache, "http://h/d/") == {"http://h/d/sub/": "2022-04-15T05:38"}


@pytest.mark.parametrize(
    ("modify", "stamp"),
    [
        ("2022-04-15", 1650024000),  # a day: its noon (lftp mirror's choice)
        ("2022-04-15T05:38", 1650001110),  # a minute: its 30th second (lftp's)
        ("2022-04-15T05:38:00", 1650001110),  # (a LIST line's minute, as the parser writes it)
        ("2022-04-15T05:38:07Z", 1650001087),  # MLSD: exact
    ],
)
def test_a_folders_rough_time(modify: str, stamp: int) -> None:
    when = Listed(None, modify).rough_time
    assert when is not None and when.timestamp() == stamp


@pytest.mark.parametrize(
    ("link", "target", "made"),
    [
        ("ftp://h/pub/to-a", "a.txt", ("a.txt", ("a.txt",))),
        ("ftp://h/pub/sub/up", "../a.txt", ("../a.txt", ("a.txt",))),
        ("ftp://h/pub/sub/x", "./deep/../../sub/./y", ("y", ("sub", "y"))),
        ("ftp://h/pub/sub/d/e/x", "../../../b/c", ("../../../b/c", ("b", "c"))),
        ("ftp://h/pub/top", ".", (".", ())),
        ("ftp://h/pub/sub/top", "..", ("..", ())),
        ("ftp://h/pub/sub/w", "a\\b//c", ("a%5Cb/c", ("sub", "a%5Cb", "c"))),
        # the state folder's name at the top is written as a fetched item's would be
        ("ftp://h/pub/sub/s", "../.omniurl-mirror/state", (
            "../%2Eomniurl-mirror/state", ("%2Eomniurl-mirror", "state"))),
    ],
)  # fmt: skip
def test_a_link_inside_the_tree_is_made_relative(
    link: str, target: str, made: tuple[str, tuple[str, ...]]
) -> None:
    start = start_of(parse("ftp://h/pub/"), spec_for("ftp").present(), spec_for("ftp").names)
    at = where("ftp://h/pub/", link)
    assert isinstance(at, Place)
    assert link_target(start, at, target) == LinkTarget(*made)


@pytest.mark.parametrize(
    ("link", "target", "why"),
    [
        ("ftp://h/pub/abs", "/etc/passwd", "an absolute path"),
        ("ftp://h/pub/abs", "/pub/a.txt", "an absolute path"),  # (the login's root is not /)
        ("ftp://h/pub/up", "..", "out of the mirrored tree"),
        ("ftp://h/pub/sub/up", "../../etc/passwd", "out of the mirrored tree"),
        ("ftp://h/pub/sub/up", "x/../../..", "out of the mirrored tree"),
        ("ftp://h/pub/none", "", "no target"),
        ("ftp://h/pub/ctl", "x" * 300, "unsafe name"),
    ],
)
def test_a_link_out_of_the_tree_is_not_made(link: str, target: str, why: str) -> None:
    """Never a link pointing out of the destination folder (``lftp mirror`` makes these as
    listed)."""
    start = start_of(parse("ftp://h/pub/"), spec_for("ftp").present(), spec_for("ftp").names)
    at = where("ftp://h/pub/", link)
    assert isinstance(at, Place)
    refused = link_target(start, at, target)
    assert isinstance(refused, Refused) and why in refused.reason
