"""``--compressed``: a gzip or deflate body decoded as it streams, its size bounded.

A compressed body is a promise the server makes about *its* size, not ours: 10 KB of gzip
can expand to 10 GB.  Each chunk is inflated with ``zlib``'s ``max_length`` so no single call
can produce more than one chunk's worth, and the running total is checked against the limit
before anything is handed on: past it, :class:`LimitExceeded` — never the expansion in
memory or on disk (RFC 9110 §8.4: the coding is the server's; the limit is ours).

Two bounds, both on by default: the absolute one (``--max-filesize``, 1 GiB) and a ratio
(``--max-expansion``, 1,000:1): once the decoded body is past its first MiB, it may not be
more than that many times the compressed bytes consumed so far.  Text and JSON deflate 3-20:1
and zlib's format cannot exceed ~1,032:1, so only a run of one repeated byte reaches it — a
1 MB gzip of zeros (1 GiB decoded) now ends after 1 MiB instead of 1 GiB.

A body is also checked to its end (:class:`_Inflater`): a stream cut short, a missing or
wrong trailer, or bytes after the end is a :class:`ContentDecodingError`, so the CLI leaves no
file (a ``-C`` part is kept as after any failure) — before, a gzip body cut in the middle
wrote 10 of its 1,200 bytes and exited 0, and only the first of two members was written.
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator
from typing import Any

from ..errors import ContentDecodingError, LimitExceeded

#: The decoded bytes always allowed before the ratio applies (a small page may well be a
#: kilobyte of gzip that inflates 2,000:1; only a large expansion is suspect).
FREE_EXPANSION = 1 << 20
#: The default ``--max-expansion``: decoded bytes per compressed byte past FREE_EXPANSION.
MAX_EXPANSION = 1000

#: Content codings omniurl asks for with --compressed (RFC 9110 §8.4.1).
ACCEPTED = "gzip, deflate"
#: zlib's wbits: gzip framing, or zlib framing ("deflate" in HTTP is RFC 1950 zlib data).
_WBITS = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}


def codings(header: str | None) -> list[str]:
    """The Content-Encoding's codings, in the order they were applied."""
    return [c.strip().lower() for c in (header or "").split(",") if c.strip()]


class _Inflater:
    """One body's decoding, checked to its end (RFC 9110 §8.4.1: the coding covers all of
    the content).  zlib checks each stream's own trailer — gzip's CRC-32 and ISIZE (RFC 1952
    §2.3.1), zlib's Adler-32 (RFC 1950 §2.2) — and says where the stream ends; what this
    adds is what comes after: a gzip body may hold several members (RFC 1952 §2.2), decoded
    one after another and concatenated, with NUL padding between them skipped, exactly as
    Python's ``gzip.decompress`` reads them; any other byte after the end, a stream that
    stops before its end, or a missing trailer is a :class:`ContentDecodingError`."""

    def __init__(self, coding: str, *, limit: int, chunk_size: int, ratio: int) -> None:
        self.coding = coding
        self.gzip = coding in ("gzip", "x-gzip")
        self.limit = limit
        self.chunk_size = max(chunk_size, 1)
        self.ratio = ratio
        self.inflater: Any = zlib.decompressobj(_WBITS[coding])
        #: The current stream has ended (its trailer checked): what follows is checked.
        self.ended = False
        #: Bytes after a gzip member that may start another one (its magic not yet whole).
        self.after = b""
        #: "deflate" before its first two bytes: zlib's header, or raw RFC 1951 data?
        self.start = b"" if coding == "deflate" else None
        #: Raw RFC 1951 data under "deflate" (no header, no checksum to check).
        self.raw = False
        self.members = 0
        self.received = 0
        self.total = 0
        self.consumed = 0

    def _error(self, what: str) -> ContentDecodingError:
        return ContentDecodingError(
            f"the {self.coding} body {what} — {self.received} bytes received, {self.total} decoded",
            component="content",
        )

    def _check(self) -> None:
        total, limit, ratio = self.total, self.limit, self.ratio
        if total > limit:
            raise LimitExceeded(
                f"the {self.coding} body expands past the limit of {limit} bytes "
                "(a decompression bomb, or raise --max-filesize)",
                component="content",
            )
        if ratio and total > FREE_EXPANSION and total > ratio * self.consumed:
            raise LimitExceeded(
                f"the {self.coding} body expands more than {ratio}:1 past its first MiB "
                f"({self.consumed} bytes gave {total}): a decompression bomb, or lift it with "
                "--max-expansion 0 (Options.max_expansion=0) or a higher ratio",
                component="content",
            )

    def take(self, data: bytes) -> list[bytes]:
        """The decoded pieces of the next ``data`` (each at most ``chunk_size`` bytes)."""
        self.received += len(data)
        out: list[bytes] = []
        if self.start is not None:
            # RFC 9110 §8.4.1.2 says zlib (RFC 1950); some servers send raw RFC 1951 deflate.
            # Its first two bytes tell which: zlib's header is a multiple of 31 (RFC 1950 §2.2).
            self.start += data
            if len(self.start) < 2:
                return out
            data, self.start = self.start, None
            if (data[0] & 0x0F) != 8 or ((data[0] << 8) | data[1]) % 31:
                self.inflater = zlib.decompressobj(-zlib.MAX_WBITS)
                self.raw = True
        while True:
            if self.ended:
                data = self._after(data)
                if not data:
                    return out
            try:
                piece = self.inflater.decompress(data, self.chunk_size)
            except zlib.error as exc:
                raise self._error(f"is corrupt: {_reason(exc)}") from None
            rest = self.inflater.unconsumed_tail
            if self.inflater.eof:
                rest = self.inflater.unused_data
                self.ended = True
                self.members += 1
            self.consumed += len(data) - len(rest)
            self.total += len(piece)
            self._check()
            if piece:
                out.append(piece)
            data = rest
            if not data and not self.ended and len(piece) < self.chunk_size:
                return out  # (zlib wants more input: it has given all it holds)

    def _after(self, data: bytes) -> bytes:
        """What follows the end of a stream: another gzip member (its bytes returned, a new
        inflater ready), NUL padding (skipped), or an error; b"": nothing to decode yet."""
        if not self.gzip:
            if data:
                raise self._error(f"has {len(data)} bytes after the end of its stream")
            return b""
        data = (self.after + data).lstrip(b"\0") if self.after or data else b""
        self.after = b""
        if not data:
            return b""
        if len(data) < 2:
            self.after = data
            return b""
        if data[:2] != b"\x1f\x8b":
            raise self._error(
                f"has {len(data)} bytes after the end of its gzip member {self.members} "
                "that do not begin another member"
            )
        self.inflater = zlib.decompressobj(_WBITS[self.coding])
        self.ended = False
        return data

    def finish(self) -> None:
        """At the end of the body: it must end where its (last) stream ends."""
        if self.received == 0:
            return  # no content at all (a 204, or an empty body: gzip.decompress(b"") == b"")
        if self.start is not None:
            raise self._error("is cut: it ends inside the zlib header")
        if self.after:
            raise self._error(
                f"is cut: it ends inside the header of gzip member {self.members + 1}"
            )
        if not self.ended:
            if self.raw:
                raise self._error("is cut: it ends before the end of its deflate stream")
            trailer = "CRC-32 and ISIZE" if self.gzip else "Adler-32"
            raise self._error(
                f"is cut: it ends before the end of its stream (truncated, or without its "
                f"{trailer} trailer)"
            )


def _reason(exc: zlib.error) -> str:
    """zlib's words for a failed stream, as a reader knows them (RFC 1952 §2.3.1)."""
    text = str(exc)
    if "incorrect data check" in text:
        return "its checksum (gzip CRC-32, zlib Adler-32) does not match the data"
    if "incorrect length check" in text:
        return "its ISIZE trailer does not match the length of the data"
    if "incorrect header check" in text:
        return "it does not begin with the coding's header"
    return text


async def decoded(
    chunks: AsyncIterator[bytes],
    coding: str,
    *,
    limit: int,
    chunk_size: int,
    ratio: int = MAX_EXPANSION,
) -> AsyncIterator[bytes]:
    """``chunks`` of a body in ``coding``, inflated and checked to the end (see
    :class:`_Inflater`), at most ``limit`` bytes in all and, past :data:`FREE_EXPANSION`, at
    most ``ratio`` times the compressed bytes consumed (0: no ratio bound)."""
    inflater = _Inflater(coding, limit=limit, chunk_size=chunk_size, ratio=ratio)
    async for chunk in chunks:
        for piece in inflater.take(chunk):
            yield piece
    inflater.finish()
