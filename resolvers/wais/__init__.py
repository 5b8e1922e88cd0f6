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

import argparse
import sys
from typing import Any

from omniurl.schemes.base import URL

from ..base import Resolver
from ..options import Options
from ..plan import Plan
from ..registry import register
from ..resource import Resource
from .settings import CHUNK_SIZE, CHUNK_SIZE_KEY, MAX_DOCUMENTS, MAX_DOCUMENTS_KEY

# The planner (the APDU codec) and the executor are imported on first use (see
# resolvers/lazy.py): every ``omniurl get``/``plan`` imports this package for its options.


@register("wais")
class WAISResolver(Resolver):
    """``wais://host:port/database[?search | /wtype/wpath]``."""

    def plan(self, url: URL, options: Options) -> Plan:
        from .planner import plan_wais

        return plan_wais(url, options)

    async def execute(self, plan: Plan, options: Options) -> Resource:
        from .executor import execute_wais

        return await execute_wais(plan, options)

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        g = parser.add_argument_group("wais")
        g.add_argument(
            "--wais-max-docs",
            type=int,
            metavar="N",
            help=f"how many hits a WAIS search asks for (Max-Documents-Retrieved, {MAX_DOCUMENTS})",
        )
        g.add_argument(
            "--wais-chunk",
            type=int,
            metavar="BYTES",
            help=f"bytes asked for by each WAIS document retrieval request ({CHUNK_SIZE})",
        )

    @classmethod
    def options_from_args(cls, args: argparse.Namespace) -> dict[str, Any]:
        extra: dict[str, Any] = {}
        if getattr(args, "wais_max_docs", None) is not None:
            extra[MAX_DOCUMENTS_KEY] = args.wais_max_docs
        if getattr(args, "wais_chunk", None) is not None:
            extra[CHUNK_SIZE_KEY] = args.wais_chunk
        return extra

    async def present(self, resource: Resource, args: argparse.Namespace) -> int | None:
        """A search listing shows what WAIS gives for each hit: score, size, types, headline
        and the hit's own URL (tab-separated when standard output is not a terminal)."""
        if resource.kind != "listing" or getattr(args, "json", False):
            return None
        if getattr(args, "output", None) or getattr(args, "remote_name", False):
            return None  # -o/-O: the command line writes the listing into the file
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
        if sys.stdout.isatty():
            from rich.console import Console
            from rich.table import Table
            from rich.text import Text

            # Text(): headlines come from the server, never rich markup.
            table = Table(title=Text(f"{resource.url!s}: {len(rows)} hit(s)"))
            for column in ("score", "size", "type", "headline", "url"):
                table.add_column(column, overflow="fold")
            for row in rows:
                table.add_row(*(Text(cell) for cell in row))
            Console().print(table)
        else:
            for row in rows:
                sys.stdout.write("\t".join(row) + "\n")
        return 0


__all__ = ["WAISResolver"]
