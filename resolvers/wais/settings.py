"""The WAIS options and their defaults (cheap to import: the command line reads their
flags; the APDU codec is not imported for that, see resolvers/lazy.py)."""

from __future__ import annotations

from omniurl.schemes.records import record

from ..spec import flag

#: What our Init announces as Preferred-Message-Size and Maximum-Record-Size.
MESSAGE_SIZE = 65536
#: Bytes asked for by one retrieval Search (well under MESSAGE_SIZE with the framing).
CHUNK_SIZE = 32768
#: Maximum-Documents-Retrieved of a search.
MAX_DOCUMENTS = 40


@record(frozen=True)
class WAISOptions:
    """How much a WAIS search and a retrieval ask for."""

    max_documents: int = flag(
        "--wais-max-docs",
        default=MAX_DOCUMENTS,
        type=int,
        metavar="N",
        help=f"how many hits a WAIS search asks for (Max-Documents-Retrieved, {MAX_DOCUMENTS})",
    )
    chunk_size: int = flag(
        "--wais-chunk",
        default=CHUNK_SIZE,
        type=int,
        metavar="BYTES",
        help=f"bytes asked for by each WAIS document retrieval request ({CHUNK_SIZE})",
    )


__all__ = ["CHUNK_SIZE", "MAX_DOCUMENTS", "MESSAGE_SIZE", "WAISOptions"]
