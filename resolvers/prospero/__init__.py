"""The ``prospero:`` resolver (RFC 1738 §3.11): ARDP over UDP to a Prospero directory server.

``ardp`` (packet codec) and ``protocol`` (request/reply codec) and ``methods`` (access method
-> URL) are pure; ``planner`` turns a URL into the datagrams; ``executor`` sends them and
follows — or lists — the access methods.
"""

from __future__ import annotations

import argparse
from typing import Any

from omniurl.schemes.base import URL

from ..base import Resolver
from ..options import Options
from ..plan import Plan
from ..registry import register
from ..resource import Resource
from .settings import DEFAULT_RETRIES, DEFAULT_RETRY_TIMEOUT, LIST_KEY

# The planner and the executor are imported on first use (see resolvers/lazy.py): every
# ``omniurl get``/``plan`` imports this package for its options.


@register("prospero")
class ProsperoResolver(Resolver):
    """Asks the directory server for the object's access methods, then follows the first
    one the policy allows (or lists them all)."""

    def plan(self, url: URL, options: Options) -> Plan:
        from . import planner

        return planner.plan(url, options)

    async def execute(self, plan: Plan, options: Options) -> Resource:
        from . import executor

        return await executor.execute(plan, options)

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        g = parser.add_argument_group("prospero")
        g.add_argument(
            "--access-methods",
            action="store_true",
            help="prospero: list the object's access methods (as URLs) instead of "
            "following the first one the policy allows (--no-follow does too)",
        )
        g.add_argument(
            "--ardp-retry",
            type=float,
            default=DEFAULT_RETRY_TIMEOUT,
            metavar="S",
            help="prospero: seconds before the first ARDP retransmission, doubled on each "
            f"of {DEFAULT_RETRIES} retries (default {DEFAULT_RETRY_TIMEOUT:g})",
        )

    @classmethod
    def options_from_args(cls, args: argparse.Namespace) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if getattr(args, "access_methods", False):
            out[LIST_KEY] = True
        retry = getattr(args, "ardp_retry", None)
        if retry is not None and retry != DEFAULT_RETRY_TIMEOUT:
            out["prospero_retry_timeout"] = retry
        return out
