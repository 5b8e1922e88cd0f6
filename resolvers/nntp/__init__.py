"""``news:`` and ``nntp:`` URLs (RFC 1738 §3.6, §3.7) over NNTP (RFC 3977, RFC 977 fallbacks).

``planner`` turns a URL into NNTP commands (pure); ``executor`` and ``session`` carry them out;
``replies`` and ``grammar`` are the protocol's pure pieces.  One resolver serves both schemes:
they differ only in where the server comes from (the URL for ``nntp:`` and RFC 5538's
``news://server/…``, configuration for RFC 1738's ``news:`` — ``--nntp-server``,
``$NNTPSERVER`` or ``NNTPOptions.server``).  ``snews:`` is news over TLS (563).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from omniurl.resolvers.base import Resolver
from omniurl.resolvers.options import Options
from omniurl.resolvers.plan import Plan
from omniurl.resolvers.resource import Resource
from omniurl.resolvers.spec import Presentation, SchemeSpec
from omniurl.schemes.base import URL
from omniurl.schemes.records import replace

from .settings import NNTPOptions, StartTLS

# The planner and the executor are imported on first use (see resolvers/lazy.py): every
# ``omniurl get``/``plan`` imports this package for its command-line options.

#: The environment variable news readers have read for decades (rn, tin, slrn, lynx).
NNTPSERVER_ENV = "NNTPSERVER"


def options_from_environment(environ: dict[str, str] | None = None) -> NNTPOptions:
    """:class:`NNTPOptions` from the environment (``$NNTPSERVER``), for library callers who
    want what the CLI does: ``Options().with_scheme(options_from_environment())``."""
    env = os.environ if environ is None else environ
    server = env.get(NNTPSERVER_ENV, "").strip()
    return NNTPOptions(server=server or None)


class NNTPResolver(Resolver):
    """Articles, group listings and the list of groups, read over NNTP."""

    schemes = ("news", "snews", "nntp")

    def plan(self, url: URL, options: Options) -> Plan:
        from .planner import plan_nntp

        return plan_nntp(url, options)

    async def execute(self, plan: Plan, options: Options) -> Resource:
        from . import executor

        return await executor.execute(plan, options)


class NNTPPresentation(Presentation):
    """An article's header fields shown apart by the gateway; ``$NNTPSERVER`` read by the
    command line."""

    #: ``news:group`` and ``news:message-id`` are saved under the group or the message-id
    #: (``-O``, the batch), as ``nntp://h/group`` is under the group's name.
    opaque_names = True

    def cli_options(self, options: Any, urls: Sequence[str]) -> Any:
        if options.server is None:
            return replace(options, server=options_from_environment().server)
        return options

    def article_headers(self, resource: Resource) -> bool:
        return True

    def reference_url(self, message_id: str) -> str | None:
        """RFC 5538 §2.2: ``news:message-id``."""
        from urllib.parse import quote

        return "news:" + quote(message_id, safe="@!$&'()*+,;=:~.-_")


SPEC = SchemeSpec(
    names=("news", "snews", "nntp"),
    title="news and nntp",
    resolver=NNTPResolver,
    options=NNTPOptions,
    presentation=NNTPPresentation,
    default_port=119,
    test_server="nntp",
    resume_note="NNTP (RFC 3977) has no resume: ARTICLE always returns the whole article",
    result="omniurl.resolvers.nntp.result:NNTPResult",
)

__all__ = [
    "NNTPSERVER_ENV",
    "SPEC",
    "NNTPOptions",
    "NNTPResolver",
    "StartTLS",
    "options_from_environment",
]
