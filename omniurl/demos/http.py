"""The http: demo: a GET streamed from our local h11 server, a redirect, and refusals."""

from __future__ import annotations

from omniurl.demo import DemoCase, DemoContext, digest

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
