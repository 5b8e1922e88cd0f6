"""The ``ftp:`` resolver (RFC 1738 §3.2): a pure planner and an executor, registered here."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from omniurl.schemes.base import URL

from .. import lazy
from ..base import Resolver
from ..options import Options
from ..plan import Plan
from ..registry import register
from ..resource import Resource

if TYPE_CHECKING:
    from .executor import execute_ftp
    from .planner import plan_ftp
    from .sessions import SESSIONS_KEY, FTPSessions

# The planner, the executor and the session cache are imported on first use (see
# resolvers/lazy.py): every ``omniurl get``/``plan`` imports this package for its options.
__getattr__ = lazy.exports(
    __name__,
    {
        "execute_ftp": ".executor",
        "plan_ftp": ".planner",
        "SESSIONS_KEY": ".sessions",
        "FTPSessions": ".sessions",
    },
)


@register("ftp", "ftps")
class FTPResolver(Resolver):
    """``ftp://user:password@host:port/cwd1/cwd2/name;type=X``: login, CWDs, RETR or NLST."""

    def plan(self, url: URL, options: Options) -> Plan:
        from .planner import plan_ftp

        return plan_ftp(url, options)

    async def execute(self, plan: Plan, options: Options) -> Resource:
        # GET ftp://… asked of an HTTP proxy: planned by the http planner, so only possible
        # once it was imported (a plain ftp get never imports the http resolver: ~20 ms).
        http_planner = sys.modules.get("omniurl.resolvers.http.planner")
        if http_planner is not None and isinstance(plan.details, http_planner.HTTPDetails):
            from ..http.executor import execute_http

            return await execute_http(plan, options)
        from .executor import execute_ftp

        return await execute_ftp(plan, options)

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        g = parser.add_argument_group("ftp")
        g.add_argument(
            "--ftp-ssl",
            action="store_true",
            help="explicit TLS on ftp: URLs (AUTH TLS, then PBSZ 0 and PROT P: RFC 4217), "
            "required: a server that refuses it is an error, never a plain fallback (curl's "
            "--ssl-reqd); ftps: URLs are TLS from the first byte (port 990)",
        )

    @classmethod
    def options_from_args(cls, args: argparse.Namespace) -> dict[str, Any]:
        return {"ftp_ssl": True} if getattr(args, "ftp_ssl", False) else {}


__all__ = ["SESSIONS_KEY", "FTPResolver", "FTPSessions", "execute_ftp", "plan_ftp"]
