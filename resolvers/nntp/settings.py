"""The ``Options.extra`` keys the news/nntp resolver reads, and their defaults.

Shared by the planner and the command line (``resolvers.nntp``'s ``options_from_args``), and
cheap to import: the package's ``__init__`` needs them for every ``omniurl get``/``plan``,
which must not import the planner or the executor (see resolvers/lazy.py).
"""

from __future__ import annotations

#: ``Options.extra`` key: the server for ``news:`` URLs, ``host[:port]``.
SERVER_KEY = "nntp_server"
#: ``Options.extra`` key: how many of a group's newest articles a listing shows.
MAX_ARTICLES_KEY = "nntp_max_articles"
DEFAULT_MAX_ARTICLES = 1000
#: ``Options.extra`` key: STARTTLS (RFC 4642) on news:/nntp: — "never" (the default, as
#: curl: plain NNTP unless asked), "auto" (when the server offers it: CAPABILITIES lists
#: STARTTLS; curl's --ssl) or "require" (refuse a server that does not; curl's --ssl-reqd).
STARTTLS_KEY = "nntp_starttls"
STARTTLS_MODES = ("never", "auto", "require")
