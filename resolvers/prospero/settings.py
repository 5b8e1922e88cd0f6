"""The Prospero options (cheap to import: the command line reads their flags)."""

from __future__ import annotations

from omniurl.schemes.records import record

from ..spec import flag

#: Seconds before the first retransmission (doubled each time, capped at 8 s).
DEFAULT_RETRY_TIMEOUT = 1.0
#: Retransmissions before giving up.
DEFAULT_RETRIES = 4


@record(frozen=True)
class ProsperoOptions:
    """How an object's access methods are used, and ARDP's retransmission clock."""

    #: List the object's access methods instead of following the first one the policy
    #: allows (FORWARDED moves are still followed).
    list_methods: bool = flag(
        "--access-methods",
        default=False,
        action="store_true",
        help="prospero: list the object's access methods (as URLs) instead of "
        "following the first one the policy allows (--no-follow does too)",
    )
    retry_timeout: float = flag(
        "--ardp-retry",
        default=DEFAULT_RETRY_TIMEOUT,
        type=float,
        metavar="S",
        help="prospero: seconds before the first ARDP retransmission, doubled on each "
        f"of {DEFAULT_RETRIES} retries (default {DEFAULT_RETRY_TIMEOUT:g})",
    )
    retries: int = DEFAULT_RETRIES


__all__ = ["DEFAULT_RETRIES", "DEFAULT_RETRY_TIMEOUT", "ProsperoOptions"]
