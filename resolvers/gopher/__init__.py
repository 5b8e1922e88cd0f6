"""The ``gopher:`` resolver (RFC 1738 §3.4, RFC 1436, Gopher+).

``planner`` is pure (URL -> the exact request), ``executor`` does the I/O, ``menu``,
``gopherplus`` and ``text`` are pure codecs the test server shares.
"""

from __future__ import annotations

from omniurl.schemes.base import URL

from ..base import Resolver
from ..options import Options
from ..plan import Plan
from ..registry import register
from ..resource import Resource

# The planner and the executor are imported on first use (see resolvers/lazy.py): every
# ``omniurl get``/``plan`` imports this package for its command-line options.


@register("gopher", "gophers")
class GopherResolver(Resolver):
    """Gopher and Gopher+: menus, text, binaries, searches, attributes, views and forms."""

    def plan(self, url: URL, options: Options) -> Plan:
        from .planner import plan_gopher

        return plan_gopher(url, options)

    async def execute(self, plan: Plan, options: Options) -> Resource:
        from .executor import execute_gopher

        return await execute_gopher(plan, options)


__all__ = ["GopherResolver"]
