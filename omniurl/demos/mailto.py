"""mailto in the demo: a message sent through the local SMTP server (captured to a folder), a
draft without a relay, and two URLs the policy refuses (header injection, a Bcc field)."""

from __future__ import annotations

from omniurl.resolvers import Options
from omniurl.resolvers.mailto.settings import MailtoOptions, Sent
from omniurl.resolvers.resource import Resource

from ..demo import DemoCase, DemoContext

ORDER = 70
SCHEME = "mailto"

SENDER = "demo@omniurl.test"


async def cases(ctx: DemoContext) -> list[DemoCase]:
    server = await ctx.server("smtp")
    relay = Options(email=SENDER, read_timeout=10).with_scheme(MailtoOptions(smtp=server.netloc))
    draft = Options(email=SENDER)

    async def sent(resource: Resource) -> str:
        captured = server.info["messages"][-1]
        done = resource.result_as(Sent)
        message_id, relay = (done.message_id, done.relay) if done else ("?", "?")
        return (
            f"sent {message_id} via {relay}: the "
            f"server captured {len(captured['data'])} bytes for {', '.join(captured['rcpt_to'])} "
            f"in {server.info['folder']}/{len(server.info['messages']):04d}.eml"
        )

    return [
        DemoCase(
            "mailto:joe@example.org?cc=ann@example.org&subject=Hello%20from%20omniurl"
            "&body=RFC%201738%20%C2%A73.5%20and%20RFC%206068%2C%20sent%20by%20SMTP.",
            "the message and envelope the URL stands for, sent through a relay (--smtp)",
            options=relay,
            outcome=sent,
        ),
        DemoCase(
            "mailto:joe@example.org?subject=Draft",
            "without a relay: the draft (message/rfc822) for a person or program to send",
            options=draft,
        ),
        DemoCase(
            "mailto:joe@example.org?subject=hi%0D%0ABcc:%20spy@example.org",
            "header injection: CR LF in a field value is refused, nothing is sent",
            options=relay,
            expect_error=True,
        ),
        DemoCase(
            "mailto:joe@example.org?bcc=spy@example.org",
            "a field outside the allow-list (RFC 6068 §6) is refused unless --allow-header",
            options=relay,
            expect_error=True,
        ),
    ]
