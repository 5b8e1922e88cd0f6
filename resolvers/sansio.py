"""What every protocol machine shares: h11's two sentinels, and the event that sends a
planned step.

Each conversation (FTP, NNTP, SMTP, Gopher, WAIS…) is a pure machine in h11's shape:
``receive_data(bytes)``, then ``next_event()`` until it answers :data:`NEED_DATA` (nothing to
decide until more bytes arrive) or :data:`PAUSED` (it waits for the executor — a TLS
handshake, a password, a data connection — to call the method the last event named).  The
executor tells the two apart from events with ``isinstance(event, Sentinel)``.
"""

from __future__ import annotations

from omniurl.schemes.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing's import: ~9 ms of a get's start, docs/speed.md)
    from typing import Final

    from .plan import Step


class Sentinel:
    """A named marker that ``next_event`` returns instead of an event (h11's ``NEED_DATA``
    and ``PAUSED``); compared by identity."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


#: ``next_event``: nothing to decide until more of the connection is received.
NEED_DATA: Final = Sentinel("NEED_DATA")
#: ``next_event``: the machine waits for the executor: answer with the method the last
#: event named.
PAUSED: Final = Sentinel("PAUSED")


@record(frozen=True)
class Send:
    """Write ``data``: a planned step's bytes as they go on the wire (the command line and
    its CR LF); ``shown`` is what a transcript prints (the step's, a password masked).  The
    line protocols' machines (FTP, NNTP) hand it out; SMTP and WAIS carry only a shown text
    and bytes of their own making, so their ``Send`` is theirs."""

    step: Step
    data: bytes

    @property
    def shown(self) -> str:
        return self.step.shown


__all__ = ["NEED_DATA", "PAUSED", "Send", "Sentinel"]
