"""``omniurl demo`` for wais: a relevance search, then one of its hits retrieved by DocID."""

from __future__ import annotations

from typing import TYPE_CHECKING

from omniurl.resolvers.wais.planner import escape

if TYPE_CHECKING:
    from omniurl.demo import DemoCase, DemoContext

SCHEME = "wais"
ORDER = 70


async def cases(ctx: DemoContext) -> list[DemoCase]:
    from omniurl.demo import DemoCase

    server = await ctx.server("wais")
    base = f"wais://{server.netloc}"
    readme = server.info["document_ids"][("pub", b"README.txt")]
    return [
        DemoCase(
            f"{base}/pub?omniurl%20demo",
            label="a relevance search (query type 3): the hits, best first, each with its own "
            "wais://host/database/wtype/wpath URL",
        ),
        DemoCase(
            f"{base}/pub/TEXT/{escape(readme)}",
            label="one hit retrieved by its DocID (query type 1), streamed in byte chunks",
        ),
        DemoCase(
            f"{base}/nosuchdb?words",
            label="a database the server does not have: its diagnostic record, as NotFound",
            expect_error=True,
        ),
    ]
