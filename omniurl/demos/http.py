"""The http: demo: a GET streamed from our local h11 server, a redirect, and refusals."""

from __future__ import annotations

import hashlib

from omniurl.demo import DemoCase, DemoContext
from resolvers.resource import Resource


async def digest(resource: Resource) -> str:
    """Binary content: its size, media type and SHA-256 rather than raw bytes."""
    h = hashlib.sha256()
    async for chunk in resource:
        h.update(chunk)
    return f"{resource.bytes_read} bytes ({resource.media_type}), sha256 {h.hexdigest()[:16]}…"


ORDER = 20
SCHEME = "http"


async def cases(ctx: DemoContext) -> list[DemoCase]:
    server = await ctx.server("http")
    at = server.netloc
    return [
        DemoCase(f"http://{at}/index.html", "one GET, streamed"),
        DemoCase(f"http://{at}/pub", "a 301 to /pub/, followed through the policy"),
        DemoCase(f"http://{at}/pub/data.bin", "binary content, streamed", outcome=digest),
        DemoCase(f"http://{at}/nope", "an error status is a StatusError", expect_error=True),
        DemoCase(
            "http://127.0.0.1:6379/",
            "a cross-protocol port (Redis): refused, nothing sent",
            expect_error=True,
        ),
    ]
