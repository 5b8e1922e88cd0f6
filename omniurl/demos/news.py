"""``omniurl demo``: news: and nntp: URLs against the local NNTP server (testservers.nntp).

news: URLs name no server (RFC 1738 §3.6), so the demo sets one in its Options (``NNTPOptions``),
never in the environment.  It shows a message-id, a group listing, the list of groups, an
article by number, AUTHINFO on a server that demands it, and the errors a person meets.
"""

from __future__ import annotations

from omniurl.demo import DemoCase, DemoContext
from omniurl.resolvers.nntp.settings import NNTPOptions

#: Where news sits among the schemes (RFC 1738 §3 order: ftp, http, gopher, mailto, news...).
ORDER = 50
SCHEME = "news"


async def cases(ctx: DemoContext) -> list[DemoCase]:
    srv = await ctx.server("nntp")
    locked = await ctx.server("nntp", credentials=("demo", "demo password"))
    news = ctx.options.with_scheme(NNTPOptions(server=srv.netloc))
    with_credentials = ctx.options.with_(
        credentials={**ctx.options.credentials, locked.host: ("demo", "demo password")}
    )
    return [
        DemoCase(
            "news:*",
            "§3.6: all available groups (LIST ACTIVE); the server comes from the options",
            options=news,
        ),
        DemoCase(
            "news:omniurl.test",
            "a group: GROUP, then OVER for each article's subject and nntp: URL",
            options=news,
        ),
        DemoCase(
            "news:dots@omniurl.test",
            "a message-id: the client adds the <> (§3.6); dot-stuffed lines come back as sent",
            options=news,
        ),
        DemoCase(
            f"nntp://{srv.netloc}/omniurl.announce/10",
            "§3.7: an article by number in a group on a named server",
        ),
        DemoCase(
            f"nntp://{locked.netloc}/omniurl.test/1",
            "a server that answers 480: AUTHINFO USER/PASS from the credentials, then again",
            options=with_credentials,
        ),
        DemoCase(
            f"nntp://{srv.netloc}/omniurl.test/99",
            "no such article: a typed error naming the component (423, article)",
            expect_error=True,
        ),
        DemoCase(
            "news:omniurl.test",
            "news: without a configured server: a clear error, nothing sent",
            expect_error=True,
        ),
    ]
