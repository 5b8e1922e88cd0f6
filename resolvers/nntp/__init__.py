"""``news:`` and ``nntp:`` URLs (RFC 1738 §3.6, §3.7) over NNTP (RFC 3977, RFC 977 fallbacks).

``planner`` turns a URL into NNTP commands (pure); ``executor`` and ``session`` carry them out;
``replies`` and ``grammar`` are the protocol's pure pieces.  One resolver serves both schemes:
they differ only in where the server comes from (the URL for ``nntp:`` and RFC 5538's
``news://server/…``, configuration for RFC 1738's ``news:`` — ``--nntp-server``,
``$NNTPSERVER`` or ``Options.extra["nntp_server"]``).  ``snews:`` is news over TLS (563).
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from omniurl.resolvers.base import Resolver
from omniurl.resolvers.options import Options
from omniurl.resolvers.plan import Plan
from omniurl.resolvers.registry import register
from omniurl.resolvers.resource import Resource
from omniurl.schemes.base import URL

from .settings import MAX_ARTICLES_KEY, SERVER_KEY, STARTTLS_KEY, STARTTLS_MODES

# The planner and the executor are imported on first use (see resolvers/lazy.py): every
# ``omniurl get``/``plan`` imports this package for its command-line options.

#: The environment variable news readers have read for decades (rn, tin, slrn, lynx).
NNTPSERVER_ENV = "NNTPSERVER"


def options_from_environment(environ: dict[str, str] | None = None) -> dict[str, Any]:
    """``Options.extra`` entries from the environment (``$NNTPSERVER``), for library callers
    who want what the CLI does: ``Options(extra=options_from_environment())``."""
    env = os.environ if environ is None else environ
    server = env.get(NNTPSERVER_ENV, "").strip()
    return {SERVER_KEY: server} if server else {}


@register("news", "snews", "nntp")
class NNTPResolver(Resolver):
    """Articles, group listings and the list of groups, read over NNTP."""

    def plan(self, url: URL, options: Options) -> Plan:
        from .planner import plan_nntp

        return plan_nntp(url, options)

    async def execute(self, plan: Plan, options: Options) -> Resource:
        from . import executor

        return await executor.execute(plan, options)

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        g = parser.add_argument_group("news and nntp")
        g.add_argument(
            "--nntp-server",
            metavar="HOST[:PORT]",
            help="the NNTP server for news: URLs, which name none (RFC 1738 §3.6); "
            "default: $NNTPSERVER",
        )
        g.add_argument(
            "--nntp-max-articles",
            metavar="N",
            type=int,
            help="list at most the newest N articles of a group (1000)",
        )
        g.add_argument(
            "--nntp-starttls",
            choices=STARTTLS_MODES,
            help="STARTTLS (RFC 4642) on news: and nntp: URLs: never (the default, as curl), "
            "auto (when the server's CAPABILITIES list it), require (refuse a server that "
            "does not); snews: URLs are TLS from the first byte (port 563)",
        )

    @classmethod
    def options_from_args(cls, args: argparse.Namespace) -> dict[str, Any]:
        extra = options_from_environment()
        if getattr(args, "nntp_server", None):
            extra[SERVER_KEY] = args.nntp_server
        if getattr(args, "nntp_max_articles", None) is not None:
            extra[MAX_ARTICLES_KEY] = args.nntp_max_articles
        if getattr(args, "nntp_starttls", None):
            extra[STARTTLS_KEY] = args.nntp_starttls
        return extra


__all__ = ["NNTPSERVER_ENV", "NNTPResolver", "options_from_environment"]
