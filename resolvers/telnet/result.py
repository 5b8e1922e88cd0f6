"""What opening a telnet session did, typed (``Resource.result_as(TelnetResult)``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class TelnetResult:
    """Where the session is (``host``, ``port``), the URL's ``user`` and whether it gave a
    password, and whether the plan logged in (``--login``: the prompts answered).  The user
    and password are ``advisory`` (RFC 1738 §3.8): the URL cannot make the server take
    them; a session without ``--login`` leaves them to the person at the terminal."""

    host: str | None
    port: int | None
    user: str | None
    password_given: bool
    logged_in: bool
    advisory: bool = True

    def to_json(self) -> dict[str, Any]:
        """The ``"metadata"`` of ``omniurl get --json`` (keys kept stable)."""
        return {
            "host": self.host,
            "port": self.port,
            "user": self.user,
            "password_given": self.password_given,
            "advisory": self.advisory,
            "logged_in": self.logged_in,
        }


__all__ = ["TelnetResult"]
