"""A listing held compact, so that a menu of 10⁶ items opens at once and costs little.

A listing page used to hold, for every entry, the :class:`~omniurl.resolvers.resource.Entry`,
its :class:`Line` and its :class:`Link`: about
870 bytes an entry (tracemalloc, Gopher items), 870 MB for a 10⁶-item menu.  Here every row
is its text in one ``bytearray`` (UTF-8, each row ended by ``\\n``) found through an
``array('Q')`` of offsets, every link its URL in another; a :class:`Line`
or a :class:`Link` is built only for a row drawn (the view renders a
row at a time) or a link followed: 40 bytes of offsets and indices an entry, plus the row's
text and the URL.

Profiled on the 10⁶-item menu of the adversary server (loopback, a shared 2-core machine):
the first screen is drawn 0.3-0.5 s after the browser starts, while the rest arrives; the
whole menu is in after 40-45 s (the resolver parsing it is half of that); the page then
holds 99 bytes an entry (``nbytes``), 106 as tracemalloc counts every allocation (64 above
the menu's own 42 bytes a line; it was ~870 an entry, and the listing was cut at 10⁵), and
the process grew by 102 MB (RSS).  ``/`` searches the 10⁶ rows end to end in under 0.5 s.

The store keeps the entries in the order the server sent them; another order (``s``, a
thread) is a permutation over it (:class:`ListingRows`), never a copy of the text.
"""

from __future__ import annotations

import bisect
import marshal
import re
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, overload

#: The bytes of text decoded at a time by a search of the page (a row never straddles two).
_SEARCH_CHUNK = 1 << 20
#: How deep a reply in a thread is indented at most (as the list-based rows do).
MAX_DEPTH = 8


@dataclass(frozen=True, slots=True)
class Link:
    """A link on a page: the URL it follows, and whether following it asks for words first
    (a search item: Gopher type 7, a WAIS database)."""

    url: str
    search: bool = False
    #: The URL of the entry's attributes (Gopher+ ``!``: its views, abstract), or None.
    attributes: str | None = None
    #: Whether the item may come in several views (a Gopher+ item that is not a menu or a
    #: search): following it asks for its attributes first, and offers a choice of views.
    views: bool = False


@dataclass(frozen=True, slots=True)
class Line:
    """One screen row: its text (already escaped) and the links on it, each ``(start, end,
    link index)`` in columns of ``text``."""

    text: str
    spans: tuple[tuple[int, int, int], ...] = ()


def indent_of(depth: int) -> str:
    """What goes before a reply's name at ``depth`` in a thread."""
    return ("  " * min(depth, MAX_DEPTH) + "> ") if depth else ""


class ListingStore:
    """A listing's rows in the order received: each row's text (already escaped), where
    its name is in it, its link (URL, attributes URL, whether it asks for words), and what
    sorting and threading need (size, date, message-id, references), when it has those."""

    def __init__(self) -> None:
        self.text = bytearray()
        #: Row ``i``'s text is ``text[text_at[i] : text_at[i + 1] - 1]``.
        self.text_at = array("Q", [0])
        #: Where the name is in each row's text (columns): the link's span.
        self.name_at = array("I")
        self.name_end = array("I")
        #: Each row's link number, or -1 (an info line).
        self.link_of = array("i")
        self.link_data = bytearray()
        self.link_at = array("Q", [0])
        #: Link ``k``'s row.
        self.link_row = array("I")
        #: What sorting and threading read, marshalled (empty for a Gopher item).
        self.extra = bytearray()
        self.extra_at = array("Q", [0])
        #: The widest row (columns).
        self.width = 0
        #: Whether a row refers to another (an article with References): shown threaded.
        self.threaded = False

    def __len__(self) -> int:
        return len(self.name_at)

    @property
    def nbytes(self) -> int:
        """The bytes held (the buffers and arrays as filled, not their spare room)."""
        arrays = (self.text_at, self.name_at, self.name_end, self.link_of, self.link_at)
        more = (self.link_row, self.extra_at)
        return (
            len(self.text)
            + len(self.link_data)
            + len(self.extra)
            + sum(len(a) * a.itemsize for a in arrays + more)
        )

    def add(
        self,
        text: str,
        name_at: int = 0,
        name_end: int = 0,
        link: Link | None = None,
        extra: tuple[Any, ...] | None = None,
    ) -> None:
        """One row after the others (``text`` holds no ``\\n``: it was escaped)."""
        row = len(self.name_at)
        self.text += text.encode("utf-8", "surrogatepass")
        self.text.append(10)
        self.text_at.append(len(self.text))
        self.name_at.append(name_at)
        self.name_end.append(name_end)
        if link is None:
            self.link_of.append(-1)
        else:
            self.link_of.append(len(self.link_row))
            self.link_row.append(row)
            flags = ("s" if link.search else "") + ("v" if link.views else "")
            record = f"{link.url}\0{link.attributes or ''}\0{flags}"
            self.link_data += record.encode("utf-8", "surrogatepass")
            self.link_at.append(len(self.link_data))
        if extra is not None:
            self.extra += marshal.dumps(extra)
            if extra[3]:
                self.threaded = True
        self.extra_at.append(len(self.extra))
        if len(text) > self.width:
            self.width = len(text)

    def text_of(self, row: int) -> str:
        return self.text[self.text_at[row] : self.text_at[row + 1] - 1].decode(
            "utf-8", "surrogatepass"
        )

    def link(self, k: int) -> Link:

        raw = self.link_data[self.link_at[k] : self.link_at[k + 1]]
        url, attributes, flags = raw.decode("utf-8", "surrogatepass").split("\0")
        return Link(url, "s" in flags, attributes or None, "v" in flags)

    def extra_of(self, row: int) -> tuple[Any, ...]:
        """``(size, date, message_id, references)`` of a row (Nones when it has none)."""
        start, end = self.extra_at[row], self.extra_at[row + 1]
        if start == end:
            return (None, None, None, None)
        value = marshal.loads(self.extra[start:end])
        assert isinstance(value, tuple)
        return value


class ListingRows(Sequence["Line"]):
    """A store's rows in one order (``order``: the store's row of each shown row; None: as
    received) with each row's depth in a thread; a :class:`Line` is made when a row is read.
    ``plain``: the rows without their links (``\\`` shows the source)."""

    def __init__(
        self,
        store: ListingStore,
        order: array[int] | None = None,
        depths: bytes | None = None,
        plain: bool = False,
    ) -> None:
        self.store = store
        self.order = order
        self.depths = depths
        self.plain = plain
        #: The row of each link, in this order (as received: the store's own, growing).
        self.link_lines: array[int]
        if plain:
            self.link_lines = array("I")
        elif order is None:
            self.link_lines = store.link_row
        else:
            link_of = store.link_of
            self.link_lines = array("I", (r for r, i in enumerate(order) if link_of[i] >= 0))

    def __len__(self) -> int:
        return len(self.store) if self.order is None else len(self.order)

    @overload
    def __getitem__(self, row: int) -> Line: ...
    @overload
    def __getitem__(self, row: slice) -> list[Line]: ...
    def __getitem__(self, row: int | slice) -> Line | list[Line]:
        if isinstance(row, slice):
            return [self[i] for i in range(*row.indices(len(self)))]

        count = len(self)
        if row < 0:
            row += count
        if not 0 <= row < count:
            raise IndexError(row)
        store = self.store
        i = row if self.order is None else self.order[row]
        text = store.text_of(i)
        start, end = store.name_at[i], store.name_end[i]
        indent = indent_of(self.depths[row]) if self.depths is not None else ""
        if indent:
            text = text[:start] + indent + text[start:]
            end += len(indent)
        if self.plain or store.link_of[i] < 0:
            return Line(text)
        return Line(text, ((start, end, self.link_number(row)),))

    def __iter__(self) -> Iterator[Line]:
        for row in range(len(self)):
            yield self[row]

    def link_number(self, row: int) -> int:
        """The number of the link on ``row`` (which has one)."""
        if self.order is None:
            return self.store.link_of[row]
        return bisect.bisect_left(self.link_lines, row)

    def link(self, k: int) -> Link:
        """Link number ``k`` in this order."""
        row = self.link_lines[k]
        i = row if self.order is None else self.order[row]
        return self.store.link(self.store.link_of[i])

    @property
    def width(self) -> int:
        deepest = max(self.depths, default=0) if self.depths is not None else 0
        return self.store.width + len(indent_of(deepest))

    def find(self, words: str, after: int = -1) -> int | None:
        """The first row after ``after`` holding ``words`` (case ignored), wrapping round,
        found by a regular expression over the text decoded a megabyte at a time: the 10⁶
        rows of a menu searched end to end in 0.4 s, where a row at a time took seconds.
        In another order (sorted, threaded) the rows holding the words are marked first,
        then the first marked one in that order is taken (0.5 s for 10⁶ rows, where a row
        at a time took 6.6 s)."""
        count = len(self)
        if not words or not count:
            return None
        start = (after + 1) % count if after >= -1 else 0
        pattern = re.compile(re.escape(words), re.IGNORECASE)
        if self.order is None:
            for first, stop in ((start, count), (0, start)):
                hit = self._search(pattern, first, stop)
                if hit is not None:
                    return hit
            return None
        if self.depths is not None and ">" in words:  # (the thread's indent in the words)
            for step in range(count):
                row = (start + step) % count
                if pattern.search(self[row].text):
                    return row
            return None
        marked = self._marks(pattern)
        order = self.order
        for first, stop in ((start, count), (0, start)):
            for row in range(first, stop):
                if marked[order[row]]:
                    return row
        return None

    def _search(self, pattern: re.Pattern[str], first: int, stop: int) -> int | None:
        """The first of the store's rows ``first..stop-1`` where ``pattern`` is found."""
        for row, chunk, found in self._found(pattern, first, stop):
            return row + chunk.count("\n", 0, found.start())
        return None

    def _marks(self, pattern: re.Pattern[str]) -> bytearray:
        """A byte a store row: 1 where ``pattern`` is found in it."""
        marked = bytearray(len(self.store))
        for row, chunk, found in self._found(pattern, 0, len(self.store)):
            at, line = found.start(), row + chunk.count("\n", 0, found.start())
            while True:
                marked[line] = 1
                at = chunk.find("\n", at) + 1  # (on to the next row)
                following = pattern.search(chunk, at) if at else None
                if following is None:
                    break
                line += chunk.count("\n", at, following.start()) + 1
                at = following.start()
        return marked

    def _found(
        self, pattern: re.Pattern[str], first: int, stop: int
    ) -> Iterator[tuple[int, str, re.Match[str]]]:
        """Each chunk of rows ``first..stop-1`` holding ``pattern``: its first row, its text
        and the first match in it."""
        store = self.store
        at = store.text_at
        row = first
        while row < stop:
            end = bisect.bisect_right(at, at[row] + _SEARCH_CHUNK, row + 1, stop + 1) - 1
            end = max(end, row + 1)
            chunk = store.text[at[row] : at[end]].decode("utf-8", "surrogatepass")
            found = pattern.search(chunk)
            if found is not None:
                yield row, chunk, found
            row = end


class ListingLinks(Sequence["Link"]):
    """The links of :class:`ListingRows`, in their order; a :class:`Link` made when read."""

    def __init__(self, rows: ListingRows) -> None:
        self.rows = rows

    def __len__(self) -> int:
        return len(self.rows.link_lines)

    @overload
    def __getitem__(self, k: int) -> Link: ...
    @overload
    def __getitem__(self, k: slice) -> list[Link]: ...
    def __getitem__(self, k: int | slice) -> Link | list[Link]:
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        count = len(self)
        if k < 0:
            k += count
        if not 0 <= k < count:
            raise IndexError(k)
        return self.rows.link(k)

    def __iter__(self) -> Iterator[Link]:
        for k in range(len(self)):
            yield self[k]


__all__ = ["Line", "Link", "ListingLinks", "ListingRows", "ListingStore", "indent_of"]
