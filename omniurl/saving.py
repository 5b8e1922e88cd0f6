"""What a resource becomes in a file: one rule for every path that saves one.

Every surface that writes a resource's bytes — ``omniurl get`` (``-o``, ``-O``, standard
output, ``--output-dir``, ``-C``), the batch and its manifest (:mod:`omniurl.batch`), the
Dask integration (through the batch), ``omniurl.get()`` and ``AsyncClient``, fsspec, the
gateway's downloads and the browser's ``d`` — writes what is decided here or in the
resolver, never a variant of its own (docs/saving.md):

- **Content** is the resolver's bytes.  A Gopher text item (RFC 1436 §3.8, type 0, and a
  Gopher+ text of length -1) is the server's bytes minus the protocol's framing: the lone
  ``.`` line that ends it is removed and the dot-stuffing undone
  (:class:`resolvers.gopher.text.DotTextDecoder`), the line ends kept as the server sent
  them (CR LF on the wire per RFC 1436; a server that sends LF gets LF).  ``--raw`` keeps
  the framing too.  So a manifest's sha256 is the sha256 of what ``-o`` writes.
- **A listing** (an FTP or ``file:`` directory, a Gopher menu, a newsgroup, search hits) is
  tab-separated text, one entry a line: ``kind TAB name TAB url LF`` (``url`` empty for an
  entry that is no link), a tab, line feed, carriage return or backslash inside a field
  written ``\\t``, ``\\n``, ``\\r``, ``\\\\`` (so a line is always one entry of three fields).
  Its file name ends in :data:`LISTING_SUFFIX`, and holds a hash of the listing's URL
  (:func:`listing_name`), so two listings never take each other's name.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from omniurl.resolvers.resource import Entry, Resource
    from omniurl.schemes import URL

#: The suffix of a saved listing's file name: tab-separated values.
LISTING_SUFFIX = ".tsv"

_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})
#: Entries a write carries at most (a write a line cost ~2 µs of a menu's ~29 µs an entry).
_BATCH = 256


def _field(text: str) -> str:
    if "\t" in text or "\n" in text or "\r" in text or "\\" in text:
        return text.translate(_ESCAPES)
    return text


def listing_line(entry: Entry) -> bytes:
    """One entry of a saved listing: ``kind TAB name TAB url LF`` (see the module)."""
    return f"{_field(entry.kind)}\t{_field(entry.name)}\t{_field(entry.url or '')}\n".encode(
        "utf-8", "surrogateescape"
    )


async def listing_bytes(resource: Resource) -> AsyncIterator[bytes]:
    """A listing as saved: its lines, up to :data:`_BATCH` entries a chunk, as they arrive.

    An error that ends the listing (a limit, a deadline, a cut connection) comes after the
    lines read before it: ``--max-entries 10`` prints ten lines, then says why it stopped."""
    batch: list[bytes] = []
    try:
        async for entry in resource.aiter_entries():
            batch.append(listing_line(entry))
            if len(batch) >= _BATCH:
                yield b"".join(batch)
                batch.clear()
    except Exception:
        if batch:
            yield b"".join(batch)
        raise
    if batch:
        yield b"".join(batch)


def listing_name(url: URL, stem: str, suffix: str = LISTING_SUFFIX) -> str:
    """The file name of ``url``'s listing: ``stem`` (its last path segment, or its scheme's
    index name), the first 8 hex digits of the SHA-256 of its normalized text,
    :data:`LISTING_SUFFIX` (``gopher://h/1/dir`` -> ``dir.115d343d.tsv``, ``gopher://h/``
    -> ``gophermap.c4d6556e.tsv``).

    Before, every Gopher menu was ``gophermap.txt`` and every FTP directory ``index.txt``:
    ``-O gopher://h/1/dir`` then ``-O gopher://h/`` lost the first without a word.  The same
    URL (in any spelling :func:`schemes.normalize` equates) always gets the same name, so a
    rerun replaces its own file and no other.
    """
    import hashlib  # here, not at the top: a one-file get never names a listing (test_startup)

    from omniurl import schemes

    text = str(url).split("#", 1)[0]
    with contextlib.suppress(schemes.URLError):
        text = schemes.normalize(text)
    digest = hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return f"{stem or 'index'}.{digest}{suffix}"


__all__ = ["LISTING_SUFFIX", "listing_bytes", "listing_line", "listing_name"]
