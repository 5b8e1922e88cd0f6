"""What an FTP transfer found out, typed (``Resource.result_as(FTPResult)``)."""

from __future__ import annotations

from omniurl.schemes.records import record

from ..resource import Resumed

TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime
    from typing import Any


@record(frozen=True)
class FTPResult:
    """One of three answers, by the plan's kind:

    - a listing: ``command``, the command that produced it (``MLSD``, ``LIST``, ``NLST``);
    - ``-I`` (``head``): ``size`` and ``modified``, what ``SIZE`` and ``MDTM`` said (RFC 3659
      §4, §3; None where the server did not say);
    - a file: ``typecode``, the representation type it came in (``A``/``I``, RFC 959
      §3.1.1), and under ``-C`` what ``SIZE``/``REST`` made of the offset (``resumed``)
      with the file's whole size (``total``).
    """

    command: str | None = None
    typecode: str | None = None
    head: bool = False
    size: int | None = None
    modified: datetime.datetime | None = None
    resumed: Resumed | None = None
    total: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The ``"metadata"`` of ``omniurl get --json`` (keys kept stable; ``modified`` as
        an HTTP-date, RFC 9110 §5.6.7, as curl shows it)."""
        if self.command is not None:
            return {"command": self.command}
        if self.head:
            out: dict[str, Any] = {"head": True}
            if self.size is not None:
                out["size"] = self.size
            if self.modified is not None:
                import email.utils

                out["modified"] = email.utils.format_datetime(self.modified, usegmt=True)
            out["total"] = self.total
            return out
        out = {"type": self.typecode}
        if self.resumed is not None:
            out.update(self.resumed.to_json())
            if self.total is not None:
                out["total"] = self.total
        return out


__all__ = ["FTPResult"]
