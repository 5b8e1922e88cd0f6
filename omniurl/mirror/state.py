"""The mirror's state, in ``DIR/.omniurl-mirror/state.sqlite`` (SQLite: bounded memory
whatever the tree's size, and a crash leaves it consistent).

- ``files``: what the last runs wrote of each file — the listing's size and time, the
  local size and time it left, the validators a conditional request sends back (HTTP ETag,
  Last-Modified).  What :func:`omniurl.mirror.walk.decide` and ``revalidate`` read.
- ``queue``: this run's work — every URL followed once (its ``url`` is unique, so loops
  between menus end), in the order found, with its local path, whether it is a container,
  its depth and what its listing said of it.  Read a page at a time: a listing of millions
  of entries is never held in memory.
- ``paths``: the local paths this run claimed — unique, and unique once case-folded on a
  case-insensitive disk — and what ``--delete`` keeps.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS files (
    path TEXT PRIMARY KEY,
    record TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS queue (
    seq INTEGER PRIMARY KEY,
    url TEXT NOT NULL UNIQUE,
    path TEXT NOT NULL,
    container INTEGER NOT NULL,
    depth INTEGER NOT NULL,
    size INTEGER,
    modify TEXT
);
CREATE INDEX IF NOT EXISTS queue_kind ON queue (container, seq);
CREATE TABLE IF NOT EXISTS paths (
    path TEXT PRIMARY KEY,
    folded TEXT NOT NULL UNIQUE,
    container INTEGER NOT NULL
);
"""


#: The end of :meth:`State.claim`'s answer when the path is taken by one differing only in case.
CASE_FOLDED = "differ only in case on this disk"


@dataclass(frozen=True)
class Item:
    """One queued URL (a row of ``queue``)."""

    seq: int
    url: str
    path: str
    container: bool
    depth: int
    size: int | None
    modify: str | None


class State:
    """The state database of one mirror folder (see module doc)."""

    def __init__(self, path: Path, *, case_insensitive: bool = False) -> None:
        self.db = sqlite3.connect(path, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(SCHEMA)
        self.case_insensitive = case_insensitive
        self._pending = 0
        #: Records of files not yet written (path: JSON), written together by
        #: :meth:`_flush` (one ``executemany`` instead of a statement a file).
        self._records: dict[str, str] = {}
        self.db.execute("BEGIN")

    def _flush(self) -> None:
        if self._records:
            self.db.executemany(
                "INSERT OR REPLACE INTO files (path, record) VALUES (?, ?)",
                list(self._records.items()),
            )
            self._records.clear()

    def commit(self) -> None:
        """Make what was recorded durable (every few hundred changes and at the end)."""
        self._flush()
        self.db.execute("COMMIT")
        self.db.execute("BEGIN")
        self._pending = 0

    def _changed(self) -> None:
        self._pending += 1
        if self._pending >= 500:
            self.commit()

    def new_run(self) -> None:
        """Forget the last run's queue and claimed paths (the records of files stay)."""
        self.db.execute("DELETE FROM queue")
        self.db.execute("DELETE FROM paths")
        self.commit()

    def claim(self, path: str, container: bool) -> str | None:
        """Claim ``path`` for this run: None when done, else why not (already claimed by
        another URL, or — on a case-insensitive disk — by a name differing only in case).
        A container claimed again by another container is fine (the same directory)."""
        folded = path.casefold() if self.case_insensitive else path
        try:
            self.db.execute(
                "INSERT INTO paths (path, folded, container) VALUES (?, ?, ?)",
                (path, folded, int(container)),
            )
        except sqlite3.IntegrityError:
            row = self.db.execute(
                "SELECT path, container FROM paths WHERE folded = ?", (folded,)
            ).fetchone()
            if row is not None and row[0] == path and row[1] and container:
                return None
            if row is not None and row[0] != path:
                return f"{path!r} and {row[0]!r} {CASE_FOLDED}"
            return f"{path!r} is already the local name of another URL"
        self._changed()
        return None

    def release(self, path: str) -> None:
        """Give up a file's claim on ``path`` (its URL turned out to be a folder's)."""
        self.db.execute("DELETE FROM paths WHERE path = ? AND container = 0", (path,))
        self._changed()

    def claimed(self, path: str) -> bool:
        return self.db.execute("SELECT 1 FROM paths WHERE path = ?", (path,)).fetchone() is not None

    def claimed_under(self, folder: str) -> bool:
        """Whether this run claimed a path inside ``folder`` (a folder reached only through
        the links of pages — ``img/`` of ``<img src="img/a.png">`` — is never claimed itself,
        but holds the tree's files).  A range of the primary key: the paths from
        ``folder/`` up to ``folder0`` ("0" follows "/" in UTF-8's, and so SQLite's, order)."""
        row = self.db.execute(
            "SELECT 1 FROM paths WHERE path > ? AND path < ? LIMIT 1", (folder + "/", folder + "0")
        ).fetchone()
        return row is not None

    def enqueue(
        self,
        url: str,
        path: str,
        container: bool,
        depth: int,
        size: int | None = None,
        modify: str | None = None,
    ) -> bool:
        """Queue ``url`` unless it was queued before in this run (loops end)."""
        cursor = self.db.execute(
            "INSERT OR IGNORE INTO queue (url, path, container, depth, size, modify) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (url, path, int(container), depth, size, modify),
        )
        self._changed()
        return cursor.rowcount == 1

    def items_after(self, seq: int, limit: int, *, container: bool | None = None) -> list[Item]:
        """The next ``limit`` queued items after ``seq``, in the order found (only the
        containers, or only the files, when ``container`` says)."""
        which = "" if container is None else f" AND container = {int(container)}"
        rows = self.db.execute(
            "SELECT seq, url, path, container, depth, size, modify FROM queue "
            f"WHERE seq > ?{which} ORDER BY seq LIMIT ?",
            (seq, limit),
        ).fetchall()
        return [Item(r[0], r[1], r[2], bool(r[3]), r[4], r[5], r[6]) for r in rows]

    def folder_times(self) -> Iterator[tuple[str, str]]:
        """Each folder of this run whose listing line gave a time: its path and the time."""
        yield from self.db.execute(
            "SELECT path, modify FROM queue WHERE container = 1 AND modify IS NOT NULL"
        )

    def record(self, path: str) -> dict[str, Any] | None:
        text = self._records.get(path)
        if text is None:
            row = self.db.execute("SELECT record FROM files WHERE path = ?", (path,)).fetchone()
            if row is None:
                return None
            text = row[0]
        value = json.loads(text)
        return value if isinstance(value, dict) else None

    def remember(self, path: str, record: dict[str, Any]) -> None:
        self._records[path] = json.dumps(record)
        self._changed()

    def forget(self, path: str) -> None:
        self._records.pop(path, None)
        self.db.execute("DELETE FROM files WHERE path = ?", (path,))
        self._changed()

    def claimed_paths(self) -> Iterator[str]:
        for (path,) in self.db.execute("SELECT path FROM paths"):
            yield path

    def close(self) -> None:
        try:
            self._flush()
            self.db.execute("COMMIT")
        finally:
            self.db.close()


__all__ = ["CASE_FOLDED", "Item", "State"]
