"""The names a kept FTP control connection is found by (pure: no connection in sight).

The planner marks a plan reusable by these; :mod:`resolvers.ftp.sessions`, which holds the
live connections, files them under the same key.  Kept apart so that the pure planner never
imports the module of live connections.
"""

from __future__ import annotations

from collections import namedtuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NamedTuple

    class SessionKey(NamedTuple):
        """RFC 1738 §3.2.5: a kept connection is reused only in exactly the state a new one would
        reach — the same server, login, ``CWD`` sequence and TLS mode.  Built from the URL's typed
        components (:func:`resolvers.ftp.planner.session_key`), never from wire bytes."""

        host: str
        port: int
        #: The octets ``USER`` and ``PASS`` send (``b""``: a password asked for at run time).
        user: bytes
        password: bytes
        #: Each ``CWD`` argument's octets, in order.
        cwd: tuple[bytes, ...]
        #: "", "implicit" or "explicit" (RFC 4217).
        tls: str

else:  # the same tuple, without importing typing on the command's start (schemes/records.py)
    SessionKey = namedtuple("SessionKey", ("host", "port", "user", "password", "cwd", "tls"))


__all__ = ["SessionKey"]
