"""``omniurl demo`` for prospero: (RFC 1738 §3.11): ask a directory server, then go on.

The local Prospero server's table points its AFTP entries at the demo's own FTP server, so
the first URL travels the whole chain: ARDP over UDP to the directory server, the access
method as an ``ftp:`` URL, re-planned and re-checked, then fetched.
"""

from __future__ import annotations

from typing import Any

from omniurl.demo import DemoCase, DemoContext
from omniurl.resolvers.prospero.settings import ProsperoOptions

ORDER = 90
SCHEME = "prospero"


async def cases(ctx: DemoContext) -> list[DemoCase]:
    kw: dict[str, Any] = {}
    try:
        ftp = await ctx.server("ftp")
        kw["ftp"] = (ftp.host, ftp.port)
    except KeyError:  # the FTP test server is not installed in this build
        ftp = None
    try:
        gopher = await ctx.server("gopher")
        kw["gopher"] = (gopher.host, gopher.port, "/pub/README.txt")
    except KeyError:  # the Gopher test server is not installed in this build
        gopher = None
    pros = await ctx.server("prospero", **kw)
    lossy = await ctx.server("prospero", drop=frozenset({2}))
    base = f"prospero://{pros.netloc}/"
    listing = ctx.options.with_(follow=False)
    quick = ctx.options.with_(follow=False).with_scheme(ProsperoOptions(retry_timeout=0.2))
    out = [
        DemoCase(
            base + "/pub/hello.txt",
            "ARDP/UDP to the directory server; its AFTP access method is followed to the "
            "local FTP server (re-planned, re-checked)"
            if ftp
            else "ARDP/UDP to the directory server (no FTP server in this build: listing)",
            options=None if ftp else listing,
        ),
        DemoCase(
            base + "/pub/hello.txt",
            "the same object's access methods as URLs (--no-follow); LOCAL is file: on "
            "that host only, never followed",
            options=listing,
        ),
        DemoCase(
            base + "/moved/hello.txt",
            "FORWARDED: the object moved; the new prospero: URL goes through the policy again",
            options=None if ftp else listing,
        ),
        DemoCase(
            f"prospero://{lossy.netloc}//mirrors/hello.txt",
            "a reply of three ARDP packets; packet 2 is lost once and recovered",
            options=quick,
        ),
        *(
            [
                DemoCase(
                    base + "/pub/README.txt",
                    "the first access method is LOCAL (file:, never followed from prospero:); "
                    "the GOPHER one is taken",
                )
            ]
            if gopher
            else []
        ),
        DemoCase(base + "/pub/notes%001", "RFC 1630's %00 object version", options=listing),
        DemoCase(base + "/no/such/object", "an unknown object: NotFound", expect_error=True),
        DemoCase(
            base + "/pub/x%0D%0AVERSION%201",
            "CR LF inside the hsoname: refused by the policy, nothing sent",
            expect_error=True,
        ),
    ]
    return out
