"""The gemini: demo: gemtext with numbered links, input, a redirect and its limits, trust
on first use, a client certificate, and what is refused before anything is sent."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from omniurl.demo import DemoCase, DemoContext
from omniurl.resolvers.gemini.gemtext import parse, render_text
from omniurl.resolvers.gemini.present import is_gemtext
from omniurl.resolvers.gemini.settings import GeminiOptions
from omniurl.resolvers.resource import Resource

ORDER = 35
SCHEME = "gemini"


async def _gemtext(resource: Resource) -> str:
    data = await resource.read()
    if not is_gemtext(resource):
        return f"{len(data)} bytes ({resource.media_type})"
    lines = parse(data.decode("utf-8", "replace"), str(resource.url))
    first = next((ln.text for ln in lines if ln.kind != "link" and ln.text), "")
    shown = render_text(lines)
    links = [line for line in shown.splitlines() if line.startswith("[")]
    return f"gemtext {first!r}, {len(links)} link(s)" + "".join(f"; {ln}" for ln in links[:3])


async def _ada(prompt: str, secret: bool = False) -> str:
    """The demo's answer to a 10 INPUT (a person is asked at the terminal instead)."""
    return "Ada Lovelace"


async def cases(ctx: DemoContext) -> list[DemoCase]:
    server = await ctx.server("gemini")
    base = f"gemini://{server.netloc}"
    certs = server.info["certificates"]
    # The demo's own known-hosts file: first contact is recorded there, not in your home
    # (nor in the tree the servers serve).
    folder = tempfile.mkdtemp(prefix="omniurl-demo-gemini-")
    ctx.stack.callback(shutil.rmtree, folder, True)
    known = str(Path(folder) / "known_hosts")
    options = ctx.options.with_scheme(GeminiOptions(known_hosts=known))
    too_long = f"{base}/" + "x" * 1024
    return [
        DemoCase(
            f"{base}/",
            "first contact: the certificate is pinned (trust on first use); gemtext's links "
            "are numbered, each with its absolute URL",
            options=options,
            outcome=_gemtext,
        ),
        DemoCase(f"{base}/pub/hello.txt", "20 text/plain: the pin matches now", options=options),
        DemoCase(
            f"{base}/input",
            "10 INPUT: asked (here by a callback), then requested again with the answer as "
            "the query",
            options=options.with_(ask=_ada),
            outcome=_gemtext,
        ),
        DemoCase(f"{base}/redirect", "30: a redirect, followed", options=options),
        DemoCase(
            f"{base}/private/",
            "60: a client certificate is wanted (--cert/--key)",
            options=options,
            expect_error=True,
        ),
        DemoCase(
            f"{base}/private/",
            "the same with --cert/--key: the server sees the certificate",
            options=options.with_(
                client_cert=str(certs.client_cert), client_key=str(certs.client_key)
            ),
            outcome=_gemtext,
        ),
        DemoCase(
            f"{base}/elsewhere",
            "a redirect to another scheme is never followed silently",
            options=options,
            expect_error=True,
        ),
        DemoCase(
            too_long,
            "a request longer than 1024 bytes: refused before anything is sent",
            options=options,
            expect_error=True,
        ),
    ]
