"""The telnet login outcome as a pure decision (the plan's conditional "login outcome" step).

After the user name and password are sent (RFC 1738 §3.8's advisory login, answered only with
``--login``), what the server printed so far decides: its failure words or a new login prompt
refuse the login, a shell prompt accepts it, and anything else means "wait for more" — the
executor reads more (bounded) and asks again, and a server that stays quiet is taken as
accepting (no refusal came).  Tested without sockets; the executor only moves bytes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Verdict = Literal["refused", "accepted", "wait"]


@dataclass(frozen=True)
class Outcome:
    verdict: Verdict
    #: For a refusal: what the server said (its failure words), or why.
    said: str = ""


def login_outcome(
    seen: bytes, failed: re.Pattern[bytes], again: re.Pattern[bytes], prompt: re.Pattern[bytes]
) -> Outcome:
    """What the output ``seen`` since the login answers means (see module doc)."""
    refusal = failed.search(seen)
    if refusal:
        return Outcome("refused", repr(refusal.group().decode("utf-8", "replace")))
    if again.search(seen):
        return Outcome("refused", "it asked for the login again")
    if prompt.search(seen):
        return Outcome("accepted")
    return Outcome("wait")


__all__ = ["Outcome", "Verdict", "login_outcome"]
