"""``--compressed``: a gzip or deflate body decoded as it streams, its size bounded.

A compressed body is a promise the server makes about *its* size, not ours: 10 KB of gzip
can expand to 10 GB.  Each chunk is inflated with ``zlib``'s ``max_length`` so no single call
can produce more than one chunk's worth, and the running total is checked against the limit
before anything is handed on: past it, :class:`LimitExceeded` — never the expansion in
memory or on disk (RFC 9110 §8.4: the coding is the server's; the limit is ours).
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator

from ..errors import LimitExceeded, ProtocolError

#: Content codings omniurl asks for with --compressed (RFC 9110 §8.4.1).
ACCEPTED = "gzip, deflate"
#: zlib's wbits: gzip framing, or zlib framing ("deflate" in HTTP is RFC 1950 zlib data).
_WBITS = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}


def codings(header: str | None) -> list[str]:
    """The Content-Encoding's codings, in the order they were applied."""
    return [c.strip().lower() for c in (header or "").split(",") if c.strip()]


async def decoded(
    chunks: AsyncIterator[bytes], coding: str, *, limit: int, chunk_size: int
) -> AsyncIterator[bytes]:
    """``chunks`` of a body in ``coding``, inflated, at most ``limit`` bytes in all."""
    wbits = _WBITS[coding]
    inflater = zlib.decompressobj(wbits)
    total = 0
    raw_deflate = False

    def take(data: bytes) -> list[bytes]:
        nonlocal total, inflater, raw_deflate
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
            if total > limit:
                raise LimitExceeded(
                    f"the {coding} body expands past the limit of {limit} bytes "
                    "(a decompression bomb, or raise --max-filesize)",
                    component="content",
                )
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
    if total > limit:
        raise LimitExceeded(
            f"the {coding} body expands past the limit of {limit} bytes", component="content"
        )
    if rest:
        yield rest
