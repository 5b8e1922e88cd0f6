"""The ``Options.extra`` keys the mailto resolver reads.

Shared by the planner and the command line (``resolvers.mailto``'s ``options_from_args``),
and cheap to import: the package's ``__init__`` needs them for every ``omniurl get``/``plan``,
which must not import the planner, ``email`` or aiosmtplib (see resolvers/lazy.py).
"""

from __future__ import annotations

#: Options.extra keys this resolver reads.
SMTP = "smtp"  # "host[:port]" or (host, port) of the relay
STARTTLS = "smtp_starttls"  # bool: STARTTLS after the first EHLO (RFC 3207)
TLS = "smtp_tls"  # bool: implicit TLS from the first byte (RFC 8314)
SMTP_USER = "smtp_user"  # AUTH user (RFC 4954); the password comes from credentials/ask
HELO = "smtp_helo"  # the EHLO name (default "localhost")
FROM = "mailto_from"  # the sender; default Options.email
BODY = "mailto_body"  # the body when the URL has none
DATE = "mailto_date"  # datetime of the Date field; default now (a fixed one for tests)
