"""The ``file:`` resolver (RFC 1738 §3.10): local files and directories, registered here."""

from __future__ import annotations

from schemes.base import URL

from ..base import Resolver
from ..options import Options
from ..plan import Plan
from ..registry import register
from ..resource import Resource
from .executor import execute_file
from .planner import plan_file


@register("file")
class FileResolver(Resolver):
    """``file://host/path`` on this machine: a file's content or a directory's listing."""

    def plan(self, url: URL, options: Options) -> Plan:
        return plan_file(url, options)

    async def execute(self, plan: Plan, options: Options) -> Resource:
        return await execute_file(plan, options)


__all__ = ["FileResolver", "execute_file", "plan_file"]
