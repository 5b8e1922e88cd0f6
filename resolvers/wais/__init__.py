"""The WAIS resolver (RFC 1738 §3.9): the original WAIS protocol, not Z39.50 version 3.

WAIS speaks Z39.50-1988 APDUs (Init, Search) with the WAIS extensions, each behind a 25-byte
ASCII header; it is not BER, and a Z39.50-1995 target refuses it (RFC 4156: the wais scheme "is
not intended for use with arbitrary Z39.50 services").  Modules, each with one job:

    compressed.py  compressed and binary integers (pure)
    header.py      the 25-byte message header (pure)
    elements.py    tag/length/value elements and groups (pure)
    apdu.py        the APDUs and WAIS user information, both dialects (pure)
    planner.py     URL -> Plan (pure)
    machine.py     the conversation: replies in, requests and hits/text out (pure)
    transport.py   read/write one whole message on asyncio streams (the test server's)
    executor.py    pump bytes between net.Stream and the machine (I/O)
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from omniurl.schemes.base import URL

from ..base import Resolver
from ..options import Options
from ..plan import Plan
from ..resource import Resource
from ..spec import Presentation, SchemeSpec
from .settings import WAISOptions

if TYPE_CHECKING:
    import argparse

# The planner (the APDU codec) and the executor are imported on first use (see
# resolvers/lazy.py): every ``omniurl get``/``plan`` imports this package for its options.


class WAISResolver(Resolver):
    """``wais://host:port/database[?search | /wtype/wpath]``."""

    schemes = ("wais",)

    def plan(self, url: URL, options: Options) -> Plan:
        from .planner import plan_wais

        return plan_wais(url, options)

    async def execute(self, plan: Plan, options: Options) -> Resource:
        from .executor import execute_wais

        return await execute_wais(plan, options)


class WAISPresentation(Presentation):
    """A search's hits with their scores; searches as ``?words`` (§3.9)."""

    async def present(self, resource: Resource, args: argparse.Namespace) -> int | None:
        """A terminal's view of a search: each hit's score, size, types, headline and URL in
        a table.  Anywhere else (a pipe, ``-o``, ``-O``, a batch) the hits are a listing
        like any other, ``kind TAB name TAB url`` (``omniurl.saving``, docs/saving.md: one
        listing, the same bytes by every path); ``--json`` gives the scores too.  (Before,
        a pipe got five columns and ``-o`` three.)"""
        if resource.kind != "listing" or getattr(args, "json", False):
            return None
        if getattr(args, "output", None) or getattr(args, "remote_name", False):
            return None  # -o/-O: the command line writes the listing into the file
        if not sys.stdout.isatty():
            return None  # a pipe: the listing as saved (cli/get.py's show_listing)
        rows = [
            (
                str(e.info.get("score") if e.info.get("score") is not None else ""),
                str(e.info.get("size") if e.info.get("size") is not None else ""),
                ",".join(t for t in e.info.get("types", []) if t),
                e.name,
                e.url or "",
            )
            for e in resource.entries
        ]
        from .table import print_hits

        print_hits(f"{resource.url!s}: {len(rows)} hit(s)", rows)
        return 0

    def search_url(self, url: URL, words: str) -> str | None:
        """RFC 1738 §3.9: ``wais://host/database?search``."""
        from urllib.parse import quote  # (here: urllib.parse and ipaddress cost every plan)

        return str(url).split("?", 1)[0] + "?" + quote(words.replace(" ", "+"), safe="+")


SPEC = SchemeSpec(
    names=("wais",),
    title="wais",
    resolver=WAISResolver,
    options=WAISOptions,
    presentation=WAISPresentation,
    default_port=210,
    test_server="wais",
    resume_note="WAIS (Z39.50) retrieval has no byte offsets",
    result="omniurl.resolvers.wais.result:WAISResult",
)

__all__ = ["SPEC", "WAISOptions", "WAISPresentation", "WAISResolver"]
