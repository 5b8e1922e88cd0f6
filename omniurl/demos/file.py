"""The file: demo (§3.10): this machine's files and directories; other hosts refused."""

from __future__ import annotations

from urllib.parse import quote

from omniurl.demo import DemoCase, DemoContext

ORDER = 5
SCHEME = "file"


async def cases(ctx: DemoContext) -> list[DemoCase]:
    root = quote(str(ctx.root))
    return [
        DemoCase(f"file://{root}/pub/hello.txt", "a local file, read off the event loop"),
        DemoCase(f"file://localhost{root}/pub/", "a directory is a listing"),
        DemoCase(
            "file://elsewhere.example/etc/hosts",
            "another machine's file: §3.10 gives no way to reach it",
            expect_error=True,
        ),
    ]
