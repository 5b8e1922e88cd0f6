"""The browser's pure model (omniurl.browse.model), without Textual: labels, wrapping with
links, the page search, history and bookmarks on disk, a plan as text."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from omniurl import cli
from omniurl.browse.model import (
    Bookmarks,
    History,
    listing_page,
    plan_text,
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
    assert page.link_lines == [0, 1, 2, 3, 5]
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
