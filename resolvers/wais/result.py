"""What a WAIS search or document retrieval gave, typed (``Resource.result_as(WAISResult)``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class WAISResult:
    """A search (a listing): the ``result_count`` the server reported and the seed words it
    used (Z39.50-1988 SearchResponse; WAIS 1.0).  A document: its ``wtype`` (RFC 1738
    §3.9) and the ``chunk_size`` it is asked for in."""

    result_count: int | None = None
    seed_words_used: str | None = None
    wtype: str | None = None
    chunk_size: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The ``"metadata"`` of ``omniurl get --json`` (keys kept stable)."""
        if self.result_count is not None:
            return {"result_count": self.result_count, "seed_words_used": self.seed_words_used}
        return {"wtype": self.wtype, "chunk_size": self.chunk_size}


__all__ = ["WAISResult"]
