"""The browser's pure model (omniurl.browse.model), without Textual: labels, wrapping with
links, the page search, history and bookmarks on disk, a plan as text."""

from __future__ import annotations

import sys
import tracemalloc
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from omniurl import cli
from omniurl.browse.model import (
    KEYS,
    Bookmarks,
    History,
    directory_head,
    help_page,
    human_size,
    is_threaded,
    listing_page,
    message_page,
    plan_text,
    relist,
    short_date,
    sorted_entries,
    text_page,
    threaded,
    wrap_offsets,
)
from omniurl.resolvers import check
from omniurl.resolvers.resource import Entry


def test_lynx_labels_come_from_the_entry_kind() -> None:
    entries = [
        Entry("Docs", "directory", "gopher://h/1/docs"),
        Entry("Read me", "file", "gopher://h/0/readme"),
        Entry("Find", "search", "gopher://h/7/find"),
        Entry("Tarball", "binary", "gopher://h/9/a.tgz"),
        Entry("Welcome \x1b[2J", "info"),
        Entry("Odd", "weird-kind", "gopher://h/Z/odd"),
    ]
    page = listing_page("gopher://h/1/", entries)
    assert [line.text for line in page.lines] == [
        "(DIR)   Docs",
        "(TEXT)  Read me",
        "(?)     Find",
        "(BIN)   Tarball",
        "        Welcome \\x1b[2J",
        "(WEIRD-KI) Odd",
    ]
    assert [link.url for link in page.links] == [
        "gopher://h/1/docs",
        "gopher://h/0/readme",
        "gopher://h/7/find",
        "gopher://h/9/a.tgz",
        "gopher://h/Z/odd",
    ]
    assert [link.search for link in page.links] == [False, False, True, False, False]
    assert list(page.link_lines) == [0, 1, 2, 3, 5]
    assert page.lines[0].spans == ((8, 12, 0),)


def test_a_wrapped_url_is_one_link_on_each_row_it_spans() -> None:
    text = "word " * 3 + "<URL:ftp://example.org/a/very/long/path/name.txt> end\n"
    page = text_page("file:///t", text, width=30)
    assert [line.text for line in page.lines] == [
        "word word word ",
        "<URL:ftp://example.org/a/very/",
        "long/path/name.txt> end",
        "",
    ]
    assert [link.url for link in page.links] == ["ftp://example.org/a/very/long/path/name.txt"]
    assert page.lines[1].spans == ((0, 30, 0),)
    assert page.lines[2].spans == ((0, 19, 0),)
    assert page.link_lines == [1]


def test_wrap_offsets_cut_at_spaces_and_line_ends() -> None:
    text = "aaa bbb ccc\r\nddd"
    assert [text[a:b] for a, b in wrap_offsets(text, 10)] == ["aaa bbb ", "ccc", "ddd"]


def test_find_wraps_round_and_ignores_case() -> None:
    page = text_page("x", "one\nTwo\nthree two\n")
    assert page.find("two") == 1
    assert page.find("two", 1) == 2
    assert page.find("two", 2) == 1
    assert page.find("four") is None


def test_history_and_bookmarks_are_plain_files(tmp_path: Path) -> None:
    history = History(tmp_path)
    first, second = text_page("file:///a", "a"), text_page("file:///b", "b")
    history.push(first)
    history.push(second)
    assert history.back() is first
    assert history.back() is None
    assert (tmp_path / "history").read_text() == "file:///a\nfile:///b\n"
    assert History(tmp_path).visited == ["file:///a", "file:///b"]
    marks = Bookmarks(tmp_path)
    assert marks.add("gopher://h/1/") and not marks.add("gopher://h/1/")
    assert (tmp_path / "bookmarks").read_text() == "gopher://h/1/\n"
    assert [link.url for link in Bookmarks(tmp_path).page().links] == ["gopher://h/1/"]


def test_plan_text_is_the_plan_commands_lines() -> None:
    text = plan_text(check("gopher://127.0.0.1:7070/0/hello.txt").to_json())
    assert text.splitlines() == [
        "gopher://127.0.0.1:7070/0/hello.txt",
        "tcp to 127.0.0.1 port 7070",
        "(nothing has been sent)",
        "",
        "  1  /hello.txt",
    ]


def test_articles_thread_by_their_last_reference() -> None:
    def art(n: int, refs: str = "") -> Entry:
        return Entry(f"a{n}", "article", f"x:{n}", {"message_id": f"<{n}@h>", "references": refs})

    entries = [art(1), art(2, "<1@h>"), art(3, "<gone@h>"), art(4, "<1@h> <2@h>"), art(5, "<1@h>")]
    assert [(e.name, depth) for e, depth in threaded(entries)] == [
        ("a1", 0),
        ("a2", 1),
        ("a4", 2),
        ("a5", 1),
        ("a3", 0),
    ]
    assert [e.name for e, _ in sorted_entries(entries, "name")] == ["a1", "a2", "a3", "a4", "a5"]


def test_without_the_extra_the_command_says_which_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "textual", None)  # (import textual raises ImportError)
    monkeypatch.delitem(sys.modules, "omniurl.browse.app", raising=False)
    assert cli.main(["browse", "file:///"]) == 1
    assert "pip install 'omniurl[browse]'" in capsys.readouterr().err


def _gopher_items(n: int, port: int = 7070) -> Iterator[Entry]:
    for i in range(n):
        info = {"type": "0", "selector": f"/item/{i}".encode(), "host": "127.0.0.1", "port": port}
        yield Entry(f"item {i}", "file", f"gopher://127.0.0.1:{port}/0/item/{i}", info)


def test_a_listing_holds_under_100_bytes_an_entry_above_its_text() -> None:
    """Issue 24: a listing's page holds its rows compact (the store's buffers), not an object
    an entry: under 100 bytes an entry above the menu's own text, as tracemalloc counts every
    allocation (measured: ~64; it was ~870 with an Entry, a Line and a Link an entry)."""
    n = 100_000
    raw = sum(len(f"0item {i}\t/item/{i}\t127.0.0.1\t7070\r\n") for i in range(n))
    items = _gopher_items(n)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        page = listing_page("gopher://127.0.0.1:7070/1/", items)
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(page.lines) == len(page.links) == n
    assert page.lines[n - 1].text == f"(TEXT)  item {n - 1}"
    assert page.links[-1].url == f"gopher://127.0.0.1:7070/0/item/{n - 1}"
    assert (held - raw) / n < 100


def test_a_listing_is_searched_across_its_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    from omniurl.browse import store

    monkeypatch.setattr(store, "_SEARCH_CHUNK", 64)  # (a few rows a chunk)
    page = listing_page("gopher://h/1/", _gopher_items(1000))
    assert page.find("ITEM 5") == 5
    assert page.find("item 5", 5) == 50
    assert page.find("item 999") == 999
    assert page.find("item 7", 990) == 7  # (round the end)
    assert page.find("item 1000") is None
    assert page.find("tem 12", 900) == 12
    relist(page, "name")  # item 0, item 1, item 10, item 100, item 101, … item 999
    assert page.lines[3].text == "(TEXT)  item 100"
    assert page.find("ITEM 10") == 2
    assert page.find("item 10", 2) == 3
    assert page.find("item 999") == 999
    assert page.find("item 1", 998) == 1  # (round the end)
    assert page.find("item 1000") is None


def test_a_sorted_listing_is_an_order_over_the_same_rows() -> None:
    entries = [
        Entry("Welcome", "info"),
        Entry("b.txt", "file", "ftp://h/b.txt", {"size": 10, "modify": "1994-01-02"}),
        Entry("A.txt", "file", "ftp://h/A.txt", {"size": 300, "modify": "1994-01-01"}),
        Entry("c/", "directory", "ftp://h/c/", {"size": 20, "modify": "1994-01-03"}),
    ]
    page = listing_page("ftp://h/", entries)
    store = page.store
    relist(page, "name")
    assert page.store is store
    assert [line.text for line in page.lines] == [  # (lynx's directory rows)
        "        Welcome",
        "Jan  1  1994  text/plain       A.txt  300 bytes",
        "Jan  2  1994  text/plain       b.txt  10 bytes",
        "Jan  3  1994  Directory        c/",
    ]
    assert [link.url for link in page.links] == ["ftp://h/A.txt", "ftp://h/b.txt", "ftp://h/c/"]
    assert list(page.link_lines) == [1, 2, 3]
    assert page.lines[2].spans == ((31, 36, 1),)
    assert page.find("B.TXT") == 2
    relist(page, "size")
    assert [link.url for link in page.links] == ["ftp://h/A.txt", "ftp://h/c/", "ftp://h/b.txt"]
    relist(page, "date")
    assert [link.url for link in page.links] == ["ftp://h/c/", "ftp://h/b.txt", "ftp://h/A.txt"]
    assert page.plain().lines[0].text == "        Welcome"
    assert page.plain().links == [] and page.plain().lines[1].spans == ()
    relist(page, "server")
    assert [link.url for link in page.links] == ["ftp://h/b.txt", "ftp://h/A.txt", "ftp://h/c/"]


def test_a_threaded_listing_indents_replies_over_the_same_rows() -> None:
    def art(n: int, refs: str = "") -> Entry:
        info = {"message_id": f"<{n}@h>", "references": refs}
        return Entry(f"a{n}", "article", f"news:{n}@h", info)

    page = listing_page("news:g", [art(1), art(2, "<1@h>"), art(3), art(4, "<1@h> <2@h>")])
    assert is_threaded(page)
    relist(page, "thread")
    assert [line.text for line in page.lines] == [
        "(ART)   a1",
        "(ART)     > a2",
        "(ART)       > a4",
        "(ART)   a3",
    ]
    assert page.lines[2].spans == ((8, 16, 2),)
    assert [link.url for link in page.links] == ["news:1@h", "news:2@h", "news:4@h", "news:3@h"]
    assert page.find("A4") == 2


def test_the_history_lets_the_oldest_rows_go_past_its_bound() -> None:
    """Pages behind the current one hold at most ``max_held`` bytes together: the oldest
    drop their rows first (URL, title and place kept), the current page never."""
    history = History(None, max_held=45)
    pages = [text_page(f"file:///{n}", "x" * 10) for n in range(4)]
    assert pages[0].held == 20  # (the source and its rows)
    for page in pages:
        history.push(page)
    assert [page.dropped for page in pages] == [True, False, False, False]
    assert pages[0].lines == [] and pages[0].held == 0 and pages[0].url == "file:///0"
    big = text_page("file:///big", "y" * 100)
    history.push(big)  # (the current page: never dropped, whatever its size)
    assert not big.dropped and [page.dropped for page in pages] == [True, True, False, False]
    history.push(text_page("file:///next", "z"))
    assert all(page.dropped for page in pages) and big.dropped
    assert history.back() is big and big.dropped  # (the browser fetches it again)


def test_directory_rows_are_lynx_columns() -> None:
    """Issue 31 item 13: lynx's FTP rows (``Nov 28 11:35  octet-stream     big.bin
    292968Kb``): the date as ls shows it (the time within six months, else the year),
    the type, the name, the size in bytes or KiB — the name always in column 31."""
    now = datetime(2026, 11, 28, 13, 0, tzinfo=UTC)
    assert short_date("2026-11-28T11:35:00Z", now) == "Nov 28 11:35"
    assert short_date("2026-06-01T08:05:00Z", now) == "Jun  1 08:05"
    assert short_date("2026-05-02T09:05:00Z", now) == "May  2  2026"  # (over six months)
    assert short_date("2027-01-05T00:00:00Z", now) == "Jan  5  2027"  # (ahead: the year)
    assert short_date("2026-11-01T10:00:00", now) == "Nov  1 10:00"  # (LIST: server's time)
    assert short_date("2019-03-05", now) == "Mar  5  2019"  # (LIST: "Mar  5  2019")
    assert short_date(None, now) == "" and short_date("yesterday", now) == "yesterday"
    assert [human_size(n) for n in (0, 1023, 1024, 300_000_000)] == [
        "0 bytes",
        "1023 bytes",
        "1Kb",
        "292968Kb",
    ]
    big = Entry("big.bin", "file", "ftp://h/big.bin", {"size": 300_000_000, "modify": "x"})
    assert directory_head(big, now) == "x             octet-stream     "
    entries = [
        Entry("README", "file", "ftp://h/README", {"size": 2, "modify": "1994-03-01T12:00:00Z"}),
        Entry("a.txt", "file", "ftp://h/a.txt", {"size": 6}),
        Entry("sub", "directory", "ftp://h/sub/", {"size": 4096, "modify": "1994-03-01"}),
        Entry("up", "link", "ftp://h/up", {"size": 7, "modify": "1994-03-01"}),
    ]
    page = listing_page("ftp://h/", entries)
    assert [line.text for line in page.lines] == [
        "Mar  1  1994  octet-stream     README  2 bytes",
        "              text/plain       a.txt  6 bytes",
        "Mar  1  1994  Directory        sub",
        "Mar  1  1994  Symbolic link    up",
    ]
    assert [line.spans[0][:2] for line in page.lines] == [(31, 37), (31, 36), (31, 34), (31, 33)]


def test_preformatted_lines_are_not_wrapped() -> None:
    text = "a short line\n" + "wide " * 30 + "\n" + "wrapped " * 15
    page = text_page("file:///x", text, 40, unwrapped={1})
    assert [line.text for line in page.lines][:2] == ["a short line", "wide " * 30]
    assert all(len(line.text) <= 40 for line in page.lines[2:])
    assert len(page.lines) > 3


def test_help_page_lists_every_key_within_80_columns() -> None:
    page = help_page()
    assert [line.text.split("  ")[0] for line in page.lines] == [keys for keys, _ in KEYS]
    assert all(len(line.text) < 80 for line in page.lines)
    assert {"Backspace", "?", "q, Q", "Left, h", "\\"} <= {keys for keys, _ in KEYS}


def test_the_history_page_lists_this_session_then_before(tmp_path: Path) -> None:
    (tmp_path / "history").write_text("gopher://old.example/1/\nftp://h/a/\n")
    history = History(tmp_path)
    for url in ("ftp://h/a/", "ftp://h/b/"):
        history.push(text_page(url, "x"))
    history.push(message_page("ftp://h/c/", "Refused", "no"))
    page = history.page()
    assert page.kind == "local"
    assert [line.text for line in page.lines] == [
        "This session (newest first):",
        "        ftp://h/b/",
        "        ftp://h/a/",
        "",
        "Visited before:",
        "        gopher://old.example/1/",
    ]
    history.push(page)  # (a page of the browser's own: no URL visited)
    assert (tmp_path / "history").read_text().splitlines() == [
        "gopher://old.example/1/",
        "ftp://h/a/",
        "ftp://h/a/",
        "ftp://h/b/",
    ]
