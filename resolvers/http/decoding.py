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
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator

from ..errors import LimitExceeded, ProtocolError

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


async def decoded(
    chunks: AsyncIterator[bytes],
    coding: str,
    *,
    limit: int,
    chunk_size: int,
    ratio: int = MAX_EXPANSION,
) -> AsyncIterator[bytes]:
    """``chunks`` of a body in ``coding``, inflated, at most ``limit`` bytes in all and, past
    :data:`FREE_EXPANSION`, at most ``ratio`` times the compressed bytes consumed (0: no
    ratio bound)."""
    wbits = _WBITS[coding]
    inflater = zlib.decompressobj(wbits)
    total = 0
    consumed = 0
    raw_deflate = False

    def check() -> None:
        if total > limit:
            raise LimitExceeded(
                f"the {coding} body expands past the limit of {limit} bytes "
                "(a decompression bomb, or raise --max-filesize)",
                component="content",
            )
        if ratio and total > FREE_EXPANSION and total > ratio * consumed:
            raise LimitExceeded(
                f"the {coding} body expands more than {ratio}:1 past its first MiB "
                f"({consumed} bytes gave {total}): a decompression bomb, or lift it with "
                "--max-expansion 0 (Options.max_expansion=0) or a higher ratio",
                component="content",
            )

    def take(data: bytes) -> list[bytes]:
        nonlocal total, consumed, inflater, raw_deflate
        out = []
        while data:
            try:
                piece = inflater.decompress(data, chunk_size)
            except zlib.error as exc:
                if coding == "deflate" and total == 0 and not raw_deflate:
                    # Servers that send raw RFC 1951 deflate for "deflate" (a known mistake).
                    raw_deflate = True
                    inflater = zlib.decompressobj(-zlib.MAX_WBITS)
                    continue
                raise ProtocolError(f"the {coding} body is corrupt: {exc}") from None
            total += len(piece)
            consumed += len(data) - len(inflater.unconsumed_tail)
            check()
            if piece:
                out.append(piece)
            data = inflater.unconsumed_tail
            if not piece and not data:
                break
        return out

    async for chunk in chunks:
        for piece in take(chunk):
            yield piece
    for piece in take(b""):
        yield piece
    rest = inflater.flush()
    total += len(rest)
    check()
    if rest:
        yield rest
