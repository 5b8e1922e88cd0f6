"""The ``http:`` and ``https:`` resolver (RFC 1738 §3.3), on httpx, registered here."""

from __future__ import annotations

from schemes.base import URL

from ..base import Resolver
from ..options import Options
from ..plan import Plan
from ..registry import register
from ..resource import Resource
from .planner import plan_http


@register("http", "https")
class HTTPResolver(Resolver):
    """``http://host:port/path?search``: one GET, streamed; redirects through the policy."""

    def plan(self, url: URL, options: Options) -> Plan:
        return plan_http(url, options)

    async def execute(self, plan: Plan, options: Options) -> Resource:
        # httpx is imported on first use: every omniurl command loads every resolver.
        from .executor import execute_http

        return await execute_http(plan, options)


__all__ = ["HTTPResolver", "plan_http"]
