"""The browser's model, without a terminal library: pages as lines with links, the history,
the bookmarks and the page search.  Tested without Textual (tests/test_browse_model.py).

A page is what the terminal shows, one :class:`Line` per screen row: a listing is one line an
entry (lynx's type labels before the name: ``(DIR)``, ``(TEXT)``, ``(BIN)``, ``(?)``), a text
is wrapped to the width with the URLs in it as links (RFC 1738 appendix: ``<URL:…>`` and bare
ones, found by :func:`schemes.extract.extract`).  Server text is held escaped
(:func:`omniurl.schemes.secrets.terminal_safe`): an escape sequence in a Gopher display string or a
news article never reaches the terminal.

The label of an entry comes from the surfaces' one table (:func:`omniurl.showing.entry_marker`,
the scheme's presentation first), never from a scheme name.
"""

from __future__ import annotations

import bisect
import datetime
import os
from array import array
from collections.abc import Callable, Container, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omniurl.resolvers.resource import Entry
from omniurl.schemes.secrets import terminal_safe
from omniurl.showing import entry_marker, presentation_for

from .store import Line, Link, ListingLinks, ListingRows, ListingStore, indent_of

#: The width the type labels take on a listing line: "(DIR)   name".
LABEL_WIDTH = 8
#: Lynx's words for two of the markers (the rest are the marker in parentheses).
_LYNX = {"SEARCH": "?", "MENU": "DIR", "TELNET": "TEL", "TN3270": "3270", "SND": "SOUND"}


def label_of(entry: Entry) -> str:
    """Lynx's label of a listing entry: ``(DIR)``, ``(TEXT)``, ``(BIN)``, ``(?)`` for a
    search…; ``""`` for an info line (no link)."""
    marker = entry_marker(entry)
    inner = marker[1:-1] if marker.startswith("[") and marker.endswith("]") else marker
    if not inner:
        return ""
    return f"({_LYNX.get(inner, inner)})"


@dataclass
class Page:
    """What the browser shows for one URL.  A listing's rows are held compact
    (:class:`~omniurl.browse.store.ListingStore`: ``lines`` and ``links`` are views that
    make a :class:`Line` or a :class:`Link` when one is read); a text's are lists."""

    url: str
    title: str
    lines: list[Line] | ListingRows = field(default_factory=list)
    links: list[Link] | ListingLinks = field(default_factory=list)
    #: The line of each link (``links[i]`` is first on ``link_lines[i]``), ascending.
    link_lines: list[int] | array[int] = field(default_factory=list)
    #: The source as received (``\\`` shows it), escaped; None: a listing (its lines are it).
    source: str | None = None
    #: ``listing``, ``text``, ``message`` (an error, a refusal, a note) or ``local`` (a page
    #: of the browser's own: bookmarks, history — no URL visited, nothing to bookmark).
    kind: str = "text"
    #: Where the cursor was when the page was left (restored on "back").
    cursor: int = 0
    top: int = 0
    #: A listing's entries as received (``s`` sorts them: another order over the same).
    store: ListingStore | None = None
    #: How a listing is ordered now (one of :data:`SORTS`).
    order: str = "server"
    #: Its rows were let go to bound the history's memory (:class:`History`): going back
    #: to it fetches the URL again.
    dropped: bool = False

    def add_line(self, text: str, links: Iterable[tuple[int, int, Link]] = ()) -> None:
        if self.store is not None:
            spans = list(links)
            if len(spans) > 1:
                raise ValueError("a listing row holds one link at most")
            if spans:
                self.store.add(text, spans[0][0], spans[0][1], spans[0][2])
            else:
                self.store.add(text)
            return
        assert isinstance(self.lines, list) and isinstance(self.links, list)
        assert isinstance(self.link_lines, list)
        numbered = []
        for start, end, link in links:
            self.link_lines.append(len(self.lines))
            self.links.append(link)
            numbered.append((start, end, len(self.links) - 1))
        self.lines.append(Line(text, tuple(numbered)))

    def forget_links(self) -> None:
        """The links shown, not followed (a page shown over the page: ``=``, ``p``)."""
        if isinstance(self.links, list):
            self.links.clear()
        else:
            plain = self.plain()
            self.lines, self.links, self.link_lines = plain.lines, plain.links, plain.link_lines

    def add_entry(self, entry: Entry) -> None:
        """A listing entry as one line: label, name, details (size, date, score)."""
        text, start, end, link = entry_row(entry)
        if self.store is not None:
            self.store.add(text, start, end, link, _extra_of(entry))
        else:
            self.add_line(text, [(start, end, link)] if link else [])

    @property
    def width(self) -> int:
        """The widest row (columns): a listing keeps it as it grows; a text's last 2000
        rows are measured."""
        if isinstance(self.lines, ListingRows):
            return self.lines.width
        return max((len(line.text) for line in self.lines[-2000:]), default=0)

    @property
    def held(self) -> int:
        """About the bytes this page's rows hold (a listing's store as counted by
        :attr:`ListingStore.nbytes`; a text's characters), for the history's bound."""
        if self.store is not None:
            return self.store.nbytes
        return len(self.source or "") + sum(len(line.text) for line in self.lines)

    def drop(self) -> None:
        """Let the rows go (the URL, title and place are kept): see :class:`History`."""
        self.lines, self.links, self.link_lines = [], [], []
        self.store, self.source, self.dropped = None, None, True

    def line_of_link(self, index: int) -> int:
        return self.link_lines[index] if 0 <= index < len(self.link_lines) else 0

    def find(self, words: str, after: int = -1) -> int | None:
        """The first line after ``after`` holding ``words`` (case-folded), wrapping round."""
        if isinstance(self.lines, ListingRows):
            return self.lines.find(words, after)
        needle = words.casefold()
        if not needle or not self.lines:
            return None
        count = len(self.lines)
        for step in range(1, count + 1):
            y = (after + step) % count
            if needle in self.lines[y].text.casefold():
                return y
        return None

    def link_at_or_after(self, line: int) -> int | None:
        """The first link on ``line`` or below (for a search hit: the cursor goes there)."""
        i = bisect.bisect_left(self.link_lines, line)
        return i if i < len(self.link_lines) else None

    def plain(self) -> Page:
        """The page's rows as text without links (``\\`` on a listing: what was received,
        shown from the same store, nothing copied)."""
        if isinstance(self.lines, ListingRows):
            rows = self.lines
            shown = ListingRows(rows.store, rows.order, rows.depths, plain=True)
            return Page(self.url, self.title, lines=shown, kind="text")
        return text_page(self.url, "\n".join(line.text for line in self.lines))


def entry_row(entry: Entry, depth: int = 0) -> tuple[str, int, int, Link | None]:
    """A listing entry's row: its text (lynx's label, the name — a reply in a thread indented
    by its ``depth`` —, the details: size, date, score), where the name is, and its link.
    A directory's entry with a date or a size (FTP, ``file:``) is lynx's directory row
    instead (:func:`directory_head`)."""
    if _is_file_entry(entry):
        head = directory_head(entry)
        name = terminal_safe(entry.name)
        size = entry.info.get("size")
        tail = ""
        if isinstance(size, int) and entry.kind not in _NOT_SIZED:
            tail = f"  {human_size(size)}"
        link = Link(entry.url) if entry.url else None
        return head + name + tail, len(head), len(head) + len(name), link
    name = indent_of(depth) + terminal_safe(entry.name)
    label = label_of(entry)
    details = [
        f"{terminal_safe(str(entry.info[key]))}"
        for key in ("size", "modify", "from", "date", "score")
        if entry.info.get(key) not in (None, "")
    ]
    tail = ("  " + "  ".join(details)) if details else ""
    head = f"{label:<{LABEL_WIDTH - 1}} " if label else " " * LABEL_WIDTH
    link = None
    if entry.url and label:
        attributes = presentation_for(entry.url).attributes_url(entry)
        search = entry.kind == "search"
        views = attributes is not None and not search and entry.kind != "directory"
        link = Link(entry.url, search=search, attributes=attributes, views=views)
    return head + name + tail, len(head), len(head) + len(name), link


#: A directory row's columns, as lynx's FTP listings (HTFTP.c): the date in 12, the type in
#: 15, two spaces after each, then the name and the size.
DATE_WIDTH = 12
TYPE_WIDTH = 15
_MONTH_NAMES = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
#: A date further back than this (or ahead by more than a day) shows its year, not its time.
_RECENT_DAYS = 182


#: The entry kinds of a directory listing (FTP's, ``file:``'s), and those shown without size.
_DIRECTORY_KINDS = frozenset(("file", "directory", "link"))  # not a scheme: entry kinds
_NOT_SIZED = frozenset(("directory", "link"))


def _is_file_entry(entry: Entry) -> bool:
    return entry.kind in _DIRECTORY_KINDS and ("modify" in entry.info or "size" in entry.info)


def directory_head(entry: Entry, now: datetime.datetime | None = None) -> str:
    """The columns before a directory entry's name, lynx's: ``Nov 28 11:35  octet-stream
    `` — the date (:func:`short_date`), then the type: ``Directory``, ``Symbolic link``, or
    the media type the name suggests (``text/plain``; an ``application/`` type by its
    subtype, ``octet-stream`` when the name suggests none: what a retrieval would call it,
    RFC 1738 §3.2.3's guess)."""
    if entry.kind == "directory":
        kind = "Directory"
    elif entry.kind == "link":
        kind = "Symbolic link"
    else:
        kind = _media_of(entry.name)
    date = short_date(entry.info.get("modify"), now)
    return f"{date:<{DATE_WIDTH}}  {kind[:TYPE_WIDTH]:<{TYPE_WIDTH}}  "


def _media_of(name: str) -> str:
    media = None
    if "." in name:
        import mimetypes

        media, encoding = mimetypes.guess_type(name, strict=False)
        media = "application/" + encoding if encoding else media
    media = media or "application/octet-stream"
    return media.removeprefix("application/")


def short_date(value: Any, now: datetime.datetime | None = None) -> str:
    """A listing's date as ls and lynx show it: ``Nov 28 11:35`` within the last six months,
    else ``Mar  1  1994``; a time with a zone (an MLSD fact: UTC) in this machine's local
    time, one without (a LIST line: the server's) as it is; ``""`` when there is none."""
    if not value:
        return ""
    try:
        when = datetime.datetime.fromisoformat(str(value))
    except ValueError:
        return terminal_safe(str(value))[:DATE_WIDTH]
    if when.tzinfo is not None:
        when = when.astimezone()
        now = (now or datetime.datetime.now(datetime.UTC)).astimezone()
    else:
        now = (now or datetime.datetime.now()).replace(tzinfo=None)
    month = _MONTH_NAMES[when.month - 1]
    recent = -1 <= (now - when).days < _RECENT_DAYS and len(str(value)) > 10
    if recent:
        return f"{month} {when.day:>2} {when.hour:02}:{when.minute:02}"
    return f"{month} {when.day:>2}  {when.year}"


def human_size(size: int) -> str:
    """A size as lynx shows it in a directory: ``2 bytes``, ``292968Kb`` (KiB, rounded
    down)."""
    return f"{size} bytes" if size < 1024 else f"{size // 1024}Kb"


def _extra_of(entry: Entry) -> tuple[Any, ...] | None:
    """What sorting and threading read of an entry (:meth:`ListingStore.extra_of`), or None
    when it has none of it (a Gopher item: nothing held)."""
    info = entry.info
    size = info.get("size") or info.get("bytes")
    extra = (
        size if isinstance(size, int) else (str(size) if size else None),
        _date_of(entry) or None,
        str(info["message_id"]) if info.get("message_id") else None,
        str(info["references"]) if info.get("references") else None,
    )
    return extra if any(v is not None for v in extra) else None


def listing_page(url: str, entries: Iterable[Entry], title: str | None = None) -> Page:
    """A listing, held compact (:mod:`omniurl.browse.store`); more entries may be added
    (:meth:`Page.add_entry`) as they arrive."""
    store = ListingStore()
    rows = ListingRows(store)
    page = Page(
        url,
        title or url,
        lines=rows,
        links=ListingLinks(rows),
        link_lines=rows.link_lines,
        kind="listing",
        store=store,
    )
    for entry in entries:
        page.add_entry(entry)
    return page


#: The orders ``s`` cycles through: as the server sent them, by name, by size (largest
#: first), by date (newest first), by thread (an article's replies under it).
SORTS = ("server", "name", "size", "date", "thread")


def _date_of(entry: Entry) -> str:
    return str(entry.info.get("modify") or entry.info.get("date") or "")


def _size_key(size: Any) -> int:
    try:
        return -int(size or 0)
    except (TypeError, ValueError):
        return 0


def _newest_first(date: str) -> str:
    return "".join(chr(0x10FFFF - ord(c)) for c in date)


def _order(
    count: int,
    order: str,
    is_link: Callable[[int], bool],
    key: Callable[[int], tuple[str, int]],
    thread: Callable[[], list[tuple[int, int]]],
) -> list[tuple[int, int]]:
    """Positions ``0..count-1`` in ``order``, each with its depth in a thread.  Info lines
    keep no place of their own once sorted (they go first, in their order)."""
    if order == "thread":
        return thread()
    if order == "server":
        return [(i, 0) for i in range(count)]
    info = [i for i in range(count) if not is_link(i)]
    rest = sorted((i for i in range(count) if is_link(i)), key=key)
    return [(i, 0) for i in info + rest]


def _sort_key(order: str, name: str, size: Any, date: str) -> tuple[str, int]:
    if order == "name":
        return (name.casefold() + "\0" + name, 0)
    if order == "size":
        return ("", _size_key(size))
    return (_newest_first(date), 0)


def sorted_entries(entries: list[Entry], order: str) -> list[tuple[Entry, int]]:
    """``entries`` in ``order``, each with its depth (a reply's in a thread, else 0).  Info
    lines keep no place of their own once sorted (they go first, in their order)."""

    def key(i: int) -> tuple[str, int]:
        e = entries[i]
        return _sort_key(order, e.name, e.info.get("size") or e.info.get("bytes"), _date_of(e))

    def thread() -> list[tuple[int, int]]:
        ids = [e.info.get("message_id") or None for e in entries]
        return _threaded(ids, [str(e.info.get("references") or "") for e in entries])

    positions = _order(len(entries), order, lambda i: entries[i].url is not None, key, thread)
    return [(entries[i], depth) for i, depth in positions]


def threaded(entries: list[Entry]) -> list[tuple[Entry, int]]:
    """Articles threaded by ``References`` (RFC 5536 §3.2.10: the last message-id is the
    parent): each reply under its parent, one level deeper; a reply whose parent is not in
    the listing starts a thread of its own.  Entries without a ``message_id`` keep their
    place at the top level."""
    return sorted_entries(entries, "thread")


def _threaded(ids: Sequence[str | None], refs: Sequence[str]) -> list[tuple[int, int]]:
    """:func:`threaded` over positions: ``ids[i]`` the message-id of the ``i``-th article,
    ``refs[i]`` its References."""
    by_id = {mid: i for i, mid in enumerate(ids) if mid}
    children: dict[str, list[int]] = {}
    roots: list[int] = []
    for i, own in enumerate(ids):
        parent = next((r for r in reversed(refs[i].split()) if r in by_id and r != own), None)
        if parent is None:
            roots.append(i)
        else:
            children.setdefault(parent, []).append(i)
    out: list[tuple[int, int]] = []
    seen: set[int] = set()
    stack = [(i, 0) for i in reversed(roots)]
    while stack:
        i, depth = stack.pop()
        if i in seen:
            continue
        seen.add(i)
        out.append((i, depth))
        mine = children.get(ids[i] or "", [])
        stack.extend((child, depth + 1) for child in reversed(mine))
    return out


def is_threaded(page: Page) -> bool:
    """Whether a listing is articles that refer to each other (shown threaded)."""
    return page.store is not None and page.store.threaded


def relist(page: Page, order: str) -> None:
    """Show ``page``'s listing in another order: a permutation over its store (the rows'
    text is not copied; 5 bytes a row), its links renumbered in that order."""
    if page.store is not None:
        show_rows(page, ordered_rows(page.store, order), order)


def ordered_rows(store: ListingStore, order: str) -> ListingRows:
    """The rows of ``store`` in ``order`` (reads the store only: the browser computes it
    off the interface's loop for a long listing — 10⁶ rows sort by name in 2-4 s)."""
    count = len(store)

    def key(i: int) -> tuple[str, int]:
        size, date, _mid, _refs = store.extra_of(i)
        name = store.text_of(i)[store.name_at[i] : store.name_end[i]]
        return _sort_key(order, name, size, date or "")

    def thread() -> list[tuple[int, int]]:
        extras = [store.extra_of(i) for i in range(count)]
        return _threaded([e[2] for e in extras], [e[3] or "" for e in extras])

    if order == "server":
        return ListingRows(store)
    positions = _order(count, order, lambda i: store.link_of[i] >= 0, key, thread)
    return ListingRows(
        store,
        array("I", (i for i, _ in positions)),
        bytes(min(depth, 255) for _, depth in positions),
    )


def show_rows(page: Page, rows: ListingRows, order: str) -> None:
    """``page`` shows ``rows`` (of its store, in ``order``), the cursor on the first link."""
    page.lines, page.links, page.link_lines = rows, ListingLinks(rows), rows.link_lines
    page.order, page.cursor, page.top = order, 0, 0


def wrap_offsets(
    text: str, width: int, unwrapped: Container[int] = ()
) -> Iterator[tuple[int, int]]:
    """``(start, end)`` in ``text`` of each screen row: source lines split at their ends,
    then at the last space before ``width`` (or at ``width`` in a long word) — except the
    source lines numbered in ``unwrapped`` (an HTML ``<pre>``'s: one row each, however
    wide, as the page laid them out)."""
    width = max(width, 10)
    pos = 0
    for number, raw in enumerate(text.split("\n")):
        start, stop = pos, pos + len(raw)
        if raw.endswith("\r"):
            stop -= 1
        pos += len(raw) + 1
        if start == stop or number in unwrapped:
            yield (start, stop)
            continue
        while start < stop:
            end = min(start + width, stop)
            if end < stop:
                cut = text.rfind(" ", start, end + 1)
                if cut > start:
                    end = cut + 1
            yield (start, end)
            start = end


def text_page(
    url: str,
    text: str,
    width: int = 80,
    title: str | None = None,
    unwrapped: Container[int] = (),
) -> Page:
    """A text wrapped to ``width`` (but the lines numbered in ``unwrapped``:
    :func:`wrap_offsets`), its URLs links (RFC 1738 appendix: ``<URL:…>``, ``<…>`` and bare,
    found by :func:`schemes.extract.extract`); a link that wraps is a link on each row it
    spans."""
    from omniurl.schemes.extract import extract

    safe = terminal_safe(text, keep="\t\n\r").replace("\t", "    ")
    page = Page(url, title or url, kind="text", source=safe)
    found = extract(safe)
    link_of = [Link(f.url) for f in found]
    k = 0
    for start, end in wrap_offsets(safe, width, unwrapped):
        while k < len(found) and found[k].end <= start:
            k += 1
        spans: list[tuple[int, int, Link]] = []
        j = k
        while j < len(found) and found[j].start < end:
            f = found[j]
            spans.append((max(f.start, start) - start, min(f.end, end) - start, link_of[j]))
            j += 1
        _add_row(page, safe[start:end].rstrip("\r\n"), spans)
    return page


def _add_row(page: Page, text: str, spans: list[tuple[int, int, Link]]) -> None:
    """A row whose spans may continue a link begun on the row above (same :class:`Link`)."""
    assert isinstance(page.lines, list) and isinstance(page.links, list)
    assert isinstance(page.link_lines, list)
    out = []
    for start, end, link in spans:
        if page.links and page.links[-1] is link:
            out.append((start, end, len(page.links) - 1))
        else:
            page.link_lines.append(len(page.lines))
            page.links.append(link)
            out.append((start, end, len(page.links) - 1))
    page.lines.append(Line(text, tuple(out)))


def message_page(url: str, title: str, message: str, width: int = 80) -> Page:
    page = text_page(url, f"{title}\n\n{message}", width, title=title)
    page.kind = "message"
    return page


# -- history and bookmarks -----------------------------------------------------------------


def data_dir() -> Path:
    """``$XDG_DATA_HOME/omniurl`` (default ``~/.local/share/omniurl``: XDG Base Directory)."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local/share")
    return Path(base) / "omniurl"


class History:
    """The pages walked in this session (back goes to the one before) and every URL visited,
    kept in ``history`` in the data folder (one URL a line, the last :attr:`keep`).

    The pages behind the current one hold at most ``max_held`` bytes of rows together:
    past it the oldest let theirs go (:meth:`Page.drop`) and are fetched again when "back"
    reaches them, as lynx does past its cache.  A 10⁶-item menu holds ~100 MB, so without a
    bound a session that opened several would grow by that much each."""

    keep = 1000

    def __init__(self, folder: Path | None = None, *, max_held: int = 256 << 20) -> None:
        self.folder = folder
        self.max_held = max_held
        self.pages: list[Page] = []
        self.visited: list[str] = _read_lines(folder / "history") if folder else []

    @property
    def current(self) -> Page | None:
        return self.pages[-1] if self.pages else None

    def push(self, page: Page) -> None:
        self.pages.append(page)
        self._bound()
        if page.kind in ("message", "local"):  # (not a URL visited)
            return
        self.visited.append(page.url)
        self.visited = self.visited[-self.keep :]
        if self.folder is not None:
            _write_lines(self.folder / "history", self.visited)

    def back(self) -> Page | None:
        """The page before the current one (the current is dropped), or None at the first."""
        if len(self.pages) < 2:
            return None
        self.pages.pop()
        return self.pages[-1]

    def _bound(self) -> None:
        """The oldest pages behind the current one let their rows go until those behind it
        hold at most :attr:`max_held` bytes (the current page is never touched: it may
        still be arriving, bounded by the browser's own listing bound)."""
        behind = self.pages[:-1]
        held = [page.held for page in behind]
        total = sum(held)
        for page, size in zip(behind, held, strict=True):
            if total <= self.max_held:
                return
            if size and not page.dropped:
                page.drop()
                total -= size

    def page(self, earlier: int = 100) -> Page:
        """Backspace's page (lynx's history): this session's pages, newest first (the
        current one marked), then up to ``earlier`` URLs visited before, newest first, each
        once; every one a link (opened afresh)."""
        page = Page("history", "History", kind="local")
        page.add_line("This session (newest first):")
        shown: set[str] = set()
        for n, walked in enumerate(reversed(self.pages)):
            if walked.kind in ("message", "local") or not walked.url:
                continue
            _link_row(page, walked.url, "(here)" if n == 0 else "")
            shown.add(walked.url)
        before = [url for url in dict.fromkeys(reversed(self.visited)) if url not in shown]
        if before:
            page.add_line("")
            page.add_line("Visited before:")
            for url in before[:earlier]:
                _link_row(page, url)
        return page


def _link_row(page: Page, url: str, label: str = "") -> None:
    """A row of a page of the browser's own: a label column, then the URL as a link."""
    shown = terminal_safe(url)
    head = f"{label:<{LABEL_WIDTH - 1}} " if label else " " * LABEL_WIDTH
    page.add_line(head + shown, [(len(head), len(head) + len(shown), Link(url))])


class Bookmarks:
    """A plain file of URLs, one a line (``bookmarks`` in the data folder): ``a`` adds,
    ``v`` shows them as a page of links."""

    def __init__(self, folder: Path | None) -> None:
        self.path = folder / "bookmarks" if folder else None
        self.urls: list[str] = _read_lines(self.path) if self.path else []

    def add(self, url: str) -> bool:
        """Add ``url`` (False: it was there already)."""
        if url in self.urls:
            return False
        self.urls.append(url)
        if self.path is not None:
            _write_lines(self.path, self.urls)
        return True

    def page(self) -> Page:
        page = Page("bookmarks", "Bookmarks", kind="local")
        if not self.urls:
            page.add_line("No bookmarks yet: 'a' adds the current page's URL.")
        for url in self.urls:
            _link_row(page, url)
        return page


def _read_lines(path: Path) -> list[str]:
    try:
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
    except OSError:
        return []
    return [line for line in text.splitlines() if line.strip()]


def _write_lines(path: Path, lines: list[str]) -> None:
    """Replace ``path`` whole (a temporary file renamed over it: never half written)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(
        "".join(f"{line}\n" for line in lines), encoding="utf-8", errors="surrogateescape"
    )
    temporary.replace(path)


#: Every key of the browser and what it does (``?`` shows them; docs/browse.md compares
#: them with lynx's).
KEYS: tuple[tuple[str, str], ...] = (
    ("Down Up, j k", "next / previous link"),
    ("Enter, Right, l, click", "follow the link"),
    ("Left, h", "back to the page before"),
    ("Backspace", "history: the pages of this session, and before"),
    ("Space PgDn, b PgUp", "page down / up"),
    ("Home, End", "top / bottom"),
    ("<, >", "scroll a wide page sideways"),
    ("g", "open a URL"),
    ("/, n", "search the page; the next hit"),
    ("=", "the link's URL and the page's"),
    ("p", "the link's plan: its protocol lines, nothing sent"),
    ("\\", "the page's source (a Gopher menu: as sent)"),
    ("d", "download the link's target (resumes)"),
    ("a, v", "add a bookmark; the bookmarks"),
    ("s", "sort a listing (server's, name, size, date, thread)"),
    ("+", "a Gopher+ item's attributes"),
    ("Esc", "cancel a fetch; close a page shown over the page"),
    ("?", "this list of keys"),
    ("q, Q", "quit"),
)


def help_page(width: int = 80) -> Page:
    """``?``: every key, one a line (:data:`KEYS`)."""
    column = max(len(keys) for keys, _ in KEYS) + 2
    text = "\n".join(f"{keys:<{column}}{what}" for keys, what in KEYS)
    return text_page("", text, width, title="Keys")


def plan_text(plan_json: dict[str, object]) -> str:
    """``p``: a plan as ``omniurl plan`` gives it (its JSON contract), as lines to read:
    where it connects, then each line exactly as it would be sent, with its condition."""
    steps = plan_json.get("steps") or []
    when = plan_json.get("when") or []
    assert isinstance(steps, list) and isinstance(when, list)
    head = (
        f"{plan_json.get('url')}\n"
        f"{plan_json.get('transport')} to {plan_json.get('host')} port {plan_json.get('port')}"
        "\n(nothing has been sent)\n"
    )
    body = "\n".join(
        f"{i + 1:>3}  {step}" + (f"    [if {cond}]" if cond else "")
        for i, (step, cond) in enumerate(zip(steps, when + [None] * len(steps), strict=False))
    )
    return head + "\n" + body + "\n"


__all__ = [
    "KEYS",
    "SORTS",
    "Bookmarks",
    "History",
    "Line",
    "Link",
    "Page",
    "data_dir",
    "directory_head",
    "entry_row",
    "help_page",
    "human_size",
    "is_threaded",
    "label_of",
    "listing_page",
    "message_page",
    "ordered_rows",
    "plan_text",
    "relist",
    "short_date",
    "show_rows",
    "sorted_entries",
    "text_page",
    "threaded",
    "wrap_offsets",
]
