"""The ftp: demo: RFC 1738 §3.2's own examples against our local FTP server."""

from __future__ import annotations

from omniurl.demo import DemoCase, DemoContext, digest

ORDER = 10
SCHEME = "ftp"


async def cases(ctx: DemoContext) -> list[DemoCase]:
    server = await ctx.server("ftp")
    at = server.netloc
    return [
        DemoCase(f"ftp://{at}/pub/README.txt", "anonymous login, CWD pub, type guessed: TYPE A"),
        DemoCase(f"ftp://{at}/pub/data.bin;type=i", "binary retrieval (;type=i)", outcome=digest),
        DemoCase(
            f"ftp://{at}/pub/",
            "a URL ending in / lists the directory with its facts: FEAT, then MLSD where "
            "the server offers MLST (RFC 3659), else LIST",
        ),
        DemoCase(f"ftp://{at}/pub;type=d", ";type=d asks for names only (§3.2.2): NLST <name>"),
        DemoCase(f"ftp://{at}/%2Fpub/hello.txt", "§3.2.2: %2F stays inside its CWD: CWD /pub"),
        DemoCase(f"ftp://{at}//pub/hello.txt", "§3.2.2: an empty segment is a null CWD"),
        DemoCase(
            f"ftp://{at}/pub%0D%0ADELE%20hello.txt/x",
            "CR LF smuggled into a CWD: refused before anything is sent",
            expect_error=True,
        ),
        DemoCase(f"ftp://{at}/pub/missing.txt", "a missing file: NotFound", expect_error=True),
    ]
