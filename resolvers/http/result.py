"""What an HTTP response said, typed (``Resource.result_as(HTTPResult)``)."""

from __future__ import annotations

from collections.abc import Mapping

from omniurl.schemes.records import record

from ..resource import Resumed

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@record(frozen=True)
class HTTPResult:
    """The final response's status (RFC 9110 §15) and header fields (lower-case names, as
    received; a repeated field's values joined with ``", "``), the ``Location`` it gave, the
    validator a resumed request sends back in ``If-Range`` (§13.1.5), and, for a request
    that asked for a range (``-C``), what the server did with it and the complete length.

    ``unsatisfied``: a 416 to a resumed request (nothing is sent; :mod:`resolvers.http.ranges`
    says whether the part is complete or must be fetched again).
    """

    status: int
    headers: Mapping[str, str]
    location: str | None = None
    validator: str | None = None
    resumed: Resumed | None = None
    #: The complete length of the representation a range belongs to (``Content-Range``).
    total: int | None = None
    unsatisfied: bool = False

    def to_json(self) -> dict[str, Any]:
        """The ``"metadata"`` of ``omniurl get --json`` (keys kept stable)."""
        out: dict[str, Any] = {"status": self.status, "headers": dict(self.headers)}
        if not self.unsatisfied:
            out.update(location=self.location, validator=self.validator)
        if self.resumed is not None:
            out.update(self.resumed.to_json())
            if self.total is not None:
                out["total"] = self.total
        return out


__all__ = ["HTTPResult"]
