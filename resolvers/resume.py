"""Resuming a transfer (``-C``), as pure decisions the executors ask.

A resumed transfer starts at ``Options.resume_from``, the size of what is already on disk.
Only protocols that can start a transfer at an offset take part:

- FTP (RFC 959 §4.1.3 ``REST``, RFC 3659 §4 ``SIZE``): ``TYPE I``, ``SIZE name`` (the total,
  and whether anything is missing), then ``REST n`` right before ``RETR``.  Only image type:
  an ASCII transfer rewrites line ends, so a byte offset of the local file is not one of the
  server's file (RFC 3659 §5: the marker counts octets of the transfer's representation,
  which for ``TYPE A`` is the CRLF form, not the file saved with local line ends).  A
  ``TYPE A`` file is fetched whole again and the executor skips the kept part
  (``resolvers/ftp/executor.py``, docs/ftp.md).
- HTTP (RFC 9110 §14): ``Range: bytes=n-`` and ``If-Range`` (see :mod:`resolvers.http.ranges`).

Every other scheme refuses a plan with an offset (:class:`ResumeUnsupported`, nothing sent),
saying why, rather than fetching the whole item again and appending it to the partial file.
"""

from __future__ import annotations

from enum import StrEnum

from .errors import ResumeUnsupported
from .plan import Plan


class Outcome(StrEnum):
    """What a resumed transfer's server said about the partial file (a ``str``: the
    ``resume`` value of ``omniurl get --json``)."""

    #: The server sends the bytes from the offset on.
    APPEND = "append"
    #: It sends the whole file (the partial one is discarded).
    RESTART = "restart"
    #: Nothing is missing.
    COMPLETE = "complete"
    #: The partial file is longer than the resource, which is fetched again from byte 0.
    REFETCH = "refetch"


#: Why a scheme cannot resume, for the error message.
def check_resumable(plan: Plan, offset: int) -> None:
    """Refuse to carry out ``plan`` at byte ``offset`` unless its planner said it can."""
    if offset <= 0 or plan.resumable:
        return
    if plan.listing:
        why = "a listing is generated anew each time; it has no byte offsets"
    else:
        from .registry import find

        spec = find(plan.scheme)
        note = spec.resume_note if spec is not None else None
        why = note or f"the {plan.scheme} resolver cannot start at an offset"
    raise ResumeUnsupported(
        f"cannot resume {plan.url} at byte {offset}: {why}; fetch it whole without -C",
        component="scheme",
    )


def ftp_size_outcome(code: str, size: int | None, offset: int) -> Outcome:
    """What ``SIZE``'s reply means for a transfer resumed at ``offset`` (RFC 3659 §4.2).

    ``213 n`` with n equal to the offset: complete; smaller: the partial file is longer than
    the server's file (it changed), so it is fetched again from 0; larger: append.  A server
    without ``SIZE`` (500/502) or one that refuses it (550): ``REST`` decides.
    """
    if code != "213" or size is None:
        return Outcome.APPEND
    if size == offset:
        return Outcome.COMPLETE
    if size < offset:
        return Outcome.REFETCH
    return Outcome.APPEND


def ftp_rest_outcome(code: str) -> Outcome:
    """``350`` to ``REST n``: the server starts at n; any other reply: it cannot, and the
    file comes whole (RFC 959 §4.1.3: REST is answered with 350 when accepted)."""
    return Outcome.APPEND if code == "350" else Outcome.RESTART


def parse_size_reply(text: str) -> int | None:
    """The size in a ``213 n`` reply's text (RFC 3659 §4.2), or None."""
    value = text.strip()
    return int(value) if value.isascii() and value.isdigit() else None


__all__ = [
    "Outcome",
    "check_resumable",
    "ftp_rest_outcome",
    "ftp_size_outcome",
    "parse_size_reply",
]
