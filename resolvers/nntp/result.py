"""What an NNTP session found out, typed (``Resource.result_as(NNTPResult)``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .replies import GroupInfo


@dataclass(frozen=True)
class NNTPResult:
    """An article: ``reply``, the ``220`` line it came with (RFC 3977 §6.2.1).  A listing
    (groups, overviews): the ``greeting`` line (§5.1), the ``capabilities`` (§5.2: label ->
    arguments; None when the server does not know CAPABILITIES, RFC 977), whether the
    session went on under TLS after ``STARTTLS`` (RFC 4642), and the ``GROUP`` counts
    (§6.1.1: estimated count, low and high water marks)."""

    reply: str | None = None
    greeting: str | None = None
    capabilities: Mapping[str, tuple[str, ...]] | None = None
    starttls: bool = False
    group: GroupInfo | None = None

    def to_json(self) -> dict[str, Any]:
        """The ``"metadata"`` of ``omniurl get --json`` (keys kept stable: the capability
        labels sorted, ``tls: "STARTTLS"``, ``count``/``low``/``high``)."""
        if self.reply is not None:
            return {"reply": self.reply}
        out: dict[str, Any] = {}
        if self.greeting is not None:
            out["greeting"] = self.greeting
        if self.capabilities is not None:
            out["capabilities"] = sorted(self.capabilities)
        if self.starttls:
            out["tls"] = "STARTTLS"
        if self.group is not None:
            out.update(count=self.group.count, low=self.group.low, high=self.group.high)
        return out


__all__ = ["NNTPResult"]
