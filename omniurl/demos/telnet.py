"""telnet in the demo: log in with the URL's advisory user and password (--login), run one
scripted command, summarize the transcript; and a user name the policy refuses."""

from __future__ import annotations

from omniurl.resolvers import Options
from omniurl.resolvers.resource import Resource
from omniurl.resolvers.telnet import parse_script
from omniurl.resolvers.telnet.result import TelnetResult
from omniurl.resolvers.telnet.settings import TelnetOptions

from ..demo import DemoCase, DemoContext

ORDER = 80
SCHEME = "telnet"

SCRIPT = parse_script("expect $ \nsend echo hello from omniurl\nexpect $ \n")


async def _transcript(resource: Resource) -> str:
    session = resource.session
    lines = bytes(session.history).decode("utf-8", "replace").splitlines()
    answered = [line for line in lines if line.startswith("$ echo")]
    reply = lines[lines.index(answered[0]) + 1] if answered else "?"
    result = resource.result_as(TelnetResult)
    user = result.user if result is not None else None
    return (
        f"session: logged in as {user} ({len(lines)} transcript lines); "
        f"sent {session.sent!r}; the shell answered {reply!r}"
    )


async def cases(ctx: DemoContext) -> list[DemoCase]:
    server = await ctx.server("telnet")
    options = Options(read_timeout=10).with_scheme(TelnetOptions(login=True, script=SCRIPT))
    return [
        DemoCase(
            f"telnet://demo:demo@{server.netloc}/",
            "auto-login with the advisory user and password, then one scripted command",
            options=options,
            outcome=_transcript,
        ),
        DemoCase(
            f"telnet://de%FFmo:demo@{server.netloc}/",
            "a user name carrying IAC (0xFF) is refused before connecting (CVE-2023-27533)",
            options=options,
            expect_error=True,
        ),
    ]
