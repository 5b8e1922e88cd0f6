"""What a Gopher+ attribute request gave, typed (``Resource.result_as(GopherResult)``)."""

from __future__ import annotations

from collections.abc import Mapping

from omniurl.schemes.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@record(frozen=True)
class GopherResult:
    """The attribute blocks of a Gopher+ ``!`` (one item, §3.4.6) or ``$`` (every item of a
    directory) request: ``items``, one mapping per item (``{"+INFO": "0About\\t…",
    "+VIEWS": …}``, in the server's order); ``single`` for ``!``."""

    items: tuple[Mapping[str, str], ...]
    single: bool = False

    @property
    def attributes(self) -> Mapping[str, str]:
        """The one item's blocks (``!``); the first item's for ``$``; ``{}`` for none."""
        return self.items[0] if self.items else {}

    def to_json(self) -> dict[str, Any]:
        """The ``"metadata"`` of ``omniurl get --json``: ``attributes``, the item's blocks
        (``!``) or a list of every item's (``$``)."""
        if self.single:
            return {"attributes": dict(self.attributes)}
        return {"attributes": [dict(item) for item in self.items]}


__all__ = ["GopherResult"]
