"""The WAIS resolver (RFC 1738 §3.9): the original WAIS protocol, not Z39.50 version 3.

WAIS speaks Z39.50-1988 APDUs (Init, Search) with the WAIS extensions, each behind a 25-byte
ASCII header; it is not BER, and a Z39.50-1995 target refuses it (RFC 4156: the wais scheme "is
not intended for use with arbitrary Z39.50 services").  Modules, each with one job:

    compressed.py  compressed and binary integers (pure)
    header.py      the 25-byte message header (pure)
    elements.py    tag/length/value elements and groups (pure)
    apdu.py        the APDUs and WAIS user information, both dialects (pure)
    planner.py     URL -> Plan (pure)
    transport.py   read/write one whole message, bounded (I/O)
    executor.py    carry out a plan (I/O)
"""

from __future__ import annotations

from schemes.base import URL

from ..base import Resolver
from ..options import Options
from ..plan import Plan
from ..registry import register
from ..resource import Resource
from .executor import execute_wais
from .planner import plan_wais


@register("wais")
class WAISResolver(Resolver):
    """``wais://host:port/database[?search | /wtype/wpath]``."""

    def plan(self, url: URL, options: Options) -> Plan:
        return plan_wais(url, options)

    async def execute(self, plan: Plan, options: Options) -> Resource:
        return await execute_wais(plan, options)


__all__ = ["WAISResolver"]
