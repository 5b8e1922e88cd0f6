"""The Prospero options the command line needs, kept apart so that reading them imports
nothing heavy (see resolvers/lazy.py)."""

from __future__ import annotations

#: Seconds before the first retransmission (doubled each time, capped at 8 s).
DEFAULT_RETRY_TIMEOUT = 1.0
#: Retransmissions before giving up.
DEFAULT_RETRIES = 4
#: ``Options.extra`` key (``--access-methods``): list an object's access methods instead of
#: following the first one the policy allows (FORWARDED moves are still followed).
LIST_KEY = "prospero_list"
