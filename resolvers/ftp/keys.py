"""The names a kept FTP control connection is found by (pure: no connection in sight).

The planner marks a plan reusable by these; :mod:`resolvers.ftp.sessions`, which holds the
live connections, files them under the same key.  Kept apart so that the pure planner never
imports the module of live connections.
"""

from __future__ import annotations

#: The ``Options.extra`` key that carries an :class:`~resolvers.ftp.sessions.FTPSessions`.
SESSIONS_KEY = "ftp_sessions"

#: (host, port, user octets, password octets, cwd segments as octets, TLS mode): RFC 1738
#: §3.2.5 — a kept connection is reused only in exactly the state a new one would reach.
SessionKey = tuple[str, int, bytes, bytes, tuple[bytes, ...], str]

__all__ = ["SESSIONS_KEY", "SessionKey"]
