"""The ``http:`` and ``https:`` resolver (RFC 1738 §3.3), on httpx, registered here."""

from __future__ import annotations

from typing import TYPE_CHECKING

from omniurl.schemes.base import URL

from .. import lazy
from ..base import Resolver
from ..options import Options
from ..plan import Plan
from ..registry import register
from ..resource import Resource

if TYPE_CHECKING:
    from .planner import plan_http

# The planner and the executor (httpx) are imported on first use (see resolvers/lazy.py):
# every ``omniurl get``/``plan`` imports this package for its command-line options.
__getattr__ = lazy.exports(__name__, {"plan_http": ".planner"})


@register("http", "https")
class HTTPResolver(Resolver):
    """``http://host:port/path?search``: one GET, streamed; redirects through the policy."""

    def plan(self, url: URL, options: Options) -> Plan:
        from .planner import plan_http

        return plan_http(url, options)

    async def execute(self, plan: Plan, options: Options) -> Resource:
        from .executor import execute_http

        return await execute_http(plan, options)


__all__ = ["HTTPResolver", "plan_http"]
