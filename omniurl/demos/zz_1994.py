"""The demo's finale: the 1994 Internet in a box (see :mod:`omniurl.box1994`).

Every URL RFC 1738 and RFC 1630 cite, resolved exactly as printed against local stand-ins for
their 1994 hosts; the ones that cannot be resolved as written show omniurl's clear error.
"""

from __future__ import annotations

from omniurl.box1994 import CITED, open_box
from omniurl.demo import DemoCase, DemoContext

ORDER = 900
SCHEME = "1994"


async def cases(ctx: DemoContext) -> list[DemoCase]:
    box = await open_box(ctx.root)
    ctx.stack.push_async_callback(box.aclose)
    options = box.options(ctx.options)
    return [
        DemoCase(
            item.url,
            f"{item.source}: {item.title}" + (f" — fails: {item.fails}" if item.fails else ""),
            options=options,
            expect_error=item.fails is not None,
        )
        for item in CITED
    ]
