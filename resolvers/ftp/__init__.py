"""The ``ftp:`` resolver (RFC 1738 §3.2): a pure planner and an executor, registered here."""

from __future__ import annotations

from schemes.base import URL

from ..base import Resolver
from ..options import Options
from ..plan import Plan
from ..registry import register
from ..resource import Resource
from .executor import execute_ftp
from .planner import plan_ftp
from .sessions import SESSIONS_KEY, FTPSessions


@register("ftp")
class FTPResolver(Resolver):
    """``ftp://user:password@host:port/cwd1/cwd2/name;type=X``: login, CWDs, RETR or NLST."""

    def plan(self, url: URL, options: Options) -> Plan:
        return plan_ftp(url, options)

    async def execute(self, plan: Plan, options: Options) -> Resource:
        return await execute_ftp(plan, options)


__all__ = ["SESSIONS_KEY", "FTPResolver", "FTPSessions", "execute_ftp", "plan_ftp"]
