"""``omniurl browse``'s screens at 80×24, compared with the SVG snapshots kept beside this
file (``__snapshots__/``; pytest-textual-snapshot, ``--snapshot-update`` after a deliberate
change, checked by eye).  Pages are built from fixed entries or sent nowhere, so a snapshot
holds no port or date of the run."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("textual", reason="the [browse] extra (Textual) is not installed")
pytest.importorskip("pytest_textual_snapshot", reason="pytest-textual-snapshot is not installed")

from textual.pilot import Pilot

from omniurl.browse.app import Browser
from omniurl.browse.model import listing_page, text_page
from omniurl.resolvers import Options
from omniurl.resolvers.mailto.settings import MailtoOptions
from omniurl.resolvers.resource import Entry

SIZE = (80, 24)
MENU = [
    Entry("Welcome to the 1994 box", "info"),
    Entry("", "info"),
    Entry("About this server", "file", "gopher://gopher.example.org/0/about.txt"),
    Entry("Software archive", "directory", "gopher://gopher.example.org/1/pub"),
    Entry("Search the archive", "search", "gopher://gopher.example.org/7/search"),
    Entry("gopher-2.3.tar.Z", "binary", "gopher://gopher.example.org/9/pub/gopher.tar.Z"),
    Entry("Campus map", "image", "gopher://gopher.example.org/I/map.gif"),
    Entry("Library catalogue", "telnet", "telnet://library.example.org/"),
    Entry("Odd item \x1b[2J", "weird", "gopher://gopher.example.org/Z/odd"),
]
ARCHIVE = [
    Entry(name, kind, f"ftp://ftp.example.org/pub/{name}", {"size": size, "modify": modify})
    for name, kind, size, modify in [
        ("README", "file", 1187, "1994-03-01T12:00:00Z"),
        ("gopher/", "directory", 512, "1994-02-11T09:30:00Z"),
        ("rfc1738.txt", "file", 51613, "1994-12-20T00:00:00Z"),
    ]
]
TEXT = (
    "Uniform Resource Locators (URL)\n\n"
    "This document specifies a Uniform Resource Locator (URL), the syntax and semantics "
    "of formalized information for location and access of resources via the Internet. "
    "See <URL:ftp://ftp.example.org/pub/rfc1738.txt> for the whole text, and "
    "gopher://gopher.example.org/1/pub for the software.\n"
)


def shown(page_of: Any, *keys: str) -> Any:
    """A ``run_before``: the page shown (as the browser shows a fetched one), then keys."""

    async def run_before(pilot: Pilot[None]) -> None:
        app = pilot.app
        assert isinstance(app, Browser)
        await pilot.pause()  # (laid out: the page's width is known)
        app.show_page(page_of(app), push=True)
        await pilot.pause()
        if keys:
            await pilot.press(*keys)
            await pilot.pause()

    return run_before


def test_gopher_menu(snap_compare: Any, tmp_path: Path) -> None:
    app = Browser(None, folder=tmp_path)
    page = shown(lambda _: listing_page("gopher://gopher.example.org/1/", MENU), "j")
    assert snap_compare(app, terminal_size=SIZE, run_before=page)


def test_ftp_directory_sorted_by_size(snap_compare: Any, tmp_path: Path) -> None:
    app = Browser(None, folder=tmp_path)
    page = shown(lambda _: listing_page("ftp://ftp.example.org/pub/", ARCHIVE), "s", "s")
    assert snap_compare(app, terminal_size=SIZE, run_before=page)


def test_text_with_links(snap_compare: Any, tmp_path: Path) -> None:
    app = Browser(None, folder=tmp_path)
    page = shown(lambda a: text_page("gopher://gopher.example.org/0/about.txt", TEXT, a.wrap_width))
    assert snap_compare(app, terminal_size=SIZE, run_before=page)


def test_plan_of_a_link(snap_compare: Any, tmp_path: Path) -> None:
    app = Browser(None, folder=tmp_path)
    page = shown(lambda _: listing_page("gopher://gopher.example.org/1/", MENU), "p")
    assert snap_compare(app, terminal_size=SIZE, run_before=page)


def test_a_refusal(snap_compare: Any, tmp_path: Path) -> None:
    app = Browser("gopher://gopher.example.org:25/1/", folder=tmp_path)

    async def refused(pilot: Pilot[None]) -> None:
        for _ in range(100):  # 5 s at most
            await pilot.pause(0.05)
            if not app.busy:
                break

    assert snap_compare(app, terminal_size=SIZE, run_before=refused)


def test_go_to_url_prompt(snap_compare: Any, tmp_path: Path) -> None:
    app = Browser(None, folder=tmp_path)
    assert snap_compare(app, terminal_size=SIZE, press=["g"])


def test_welcome_and_empty_bookmarks(snap_compare: Any, tmp_path: Path) -> None:
    app = Browser(None, folder=tmp_path)
    assert snap_compare(app, terminal_size=SIZE, press=["v"])


OVERVIEW = [
    Entry(
        subject,
        "article",
        f"nntp://news.example.org/comp.infosystems.gopher/{n}",
        {"message_id": f"<{n}@example.org>", "references": refs, "from": who, "date": "1994"},
    )
    for n, subject, refs, who in [
        (1, "Gopher+ views?", "", "ada@example.org"),
        (2, "Re: Gopher+ views?", "<1@example.org>", "bob@example.org"),
        (3, "URLs in RFC 1738", "", "tim@example.org"),
        (4, "Re: Gopher+ views?", "<1@example.org> <2@example.org>", "ada@example.org"),
    ]
]


def test_news_overview_threaded(snap_compare: Any, tmp_path: Path) -> None:
    app = Browser(None, folder=tmp_path)

    def threaded(_: Browser) -> Any:
        from omniurl.browse.model import relist

        page = listing_page("news://news.example.org/comp.infosystems.gopher", OVERVIEW)
        relist(page, "thread")
        return page

    assert snap_compare(app, terminal_size=SIZE, run_before=shown(threaded))


def test_gopher_plus_ask_form(snap_compare: Any, tmp_path: Path) -> None:
    from omniurl.browse.app import AskForm
    from omniurl.resolvers.gopher.gopherplus import AskField

    app = Browser(None, folder=tmp_path)
    fields = [
        AskField("Note", "A small Gopher+ form."),
        AskField("Ask", "Your name?", "anonymous"),
        AskField("Choose", "Favourite protocol?", "gopher", ("gopher", "ftp", "http")),
        AskField("Select", "Send me the newsletter", "0"),
    ]

    async def form(pilot: Pilot[None]) -> None:
        await pilot.pause()
        app.push_screen(AskForm(fields))
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=form)


def test_link_info(snap_compare: Any, tmp_path: Path) -> None:
    app = Browser(None, folder=tmp_path)
    page = shown(lambda _: listing_page("gopher://gopher.example.org/1/", MENU), "j", "equals_sign")
    assert snap_compare(app, terminal_size=SIZE, run_before=page)


def test_raw_source(snap_compare: Any, tmp_path: Path) -> None:
    app = Browser(None, folder=tmp_path)
    page = shown(
        lambda a: text_page("gopher://gopher.example.org/0/about.txt", TEXT, a.wrap_width),
        "backslash",
    )
    assert snap_compare(app, terminal_size=SIZE, run_before=page)


# The message's Date (and the Message-ID derived from it) fixed, so the preview is the same
# on every run.
FIXED_DATE = Options(schemes=(MailtoOptions(date=datetime(1994, 12, 20, 12, 0, 0, tzinfo=UTC)),))


def test_mailto_compose_form(snap_compare: Any, tmp_path: Path) -> None:
    url = "mailto:someone@example.org?subject=Hi"
    app = Browser(url, folder=tmp_path, smtp="relay.example.org:25", options=FIXED_DATE)
    assert snap_compare(app, terminal_size=SIZE, press=[*"first", "space", *"line"])


def test_mailto_compose_preview(snap_compare: Any, tmp_path: Path) -> None:
    url = "mailto:someone@example.org?subject=Hi"
    app = Browser(url, folder=tmp_path, smtp="relay.example.org:25", options=FIXED_DATE)
    assert snap_compare(app, terminal_size=SIZE, press=[*"first", "space", *"line", "ctrl+p"])


def test_gopher_plus_views_choice(snap_compare: Any, tmp_path: Path) -> None:
    from omniurl.browse.app import ViewChoice
    from omniurl.showing import presentation_for

    url = "gopher://gopher.example.org/0/rfc1738.txt"
    views = [
        (f"{view}  {size}", presentation_for(url).view_url(url, view) or "")
        for view, size in [
            ("text/plain En_US", "<51k>"),
            ("application/pdf En_US", "<120k>"),
            ("text/plain Fr_FR", "<55k>"),
        ]
    ]
    app = Browser(None, folder=tmp_path)

    async def choice(pilot: Pilot[None]) -> None:
        await pilot.pause()
        app.push_screen(ViewChoice(url, views, app.options))
        await pilot.pause()
        await pilot.press("down")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=choice)


def test_help_lists_the_keys(snap_compare: Any, tmp_path: Path) -> None:
    app = Browser(None, folder=tmp_path)
    assert snap_compare(app, terminal_size=SIZE, press=["question_mark"])
