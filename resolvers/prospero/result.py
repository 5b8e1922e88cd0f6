"""What a Prospero query found out, typed (``Resource.result_as(ProsperoResult)``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ProsperoResult:
    """The Prospero protocol ``version`` the server answered in (``VERSION 5``, or ``1``
    for a server of the old protocol)."""

    version: int

    def to_json(self) -> dict[str, Any]:
        """The ``"metadata"`` of ``omniurl get --json`` (keys kept stable)."""
        return {"prospero_protocol_version": self.version}


__all__ = ["ProsperoResult"]
