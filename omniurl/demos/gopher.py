"""The gopher: demo: menus, text, a search, Gopher+ attributes, a view and a form."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from omniurl.demo import DemoCase, DemoContext
from omniurl.resolvers.gopher.gopherplus import AskField
from omniurl.resolvers.gopher.result import GopherResult
from omniurl.resolvers.resource import Resource

ORDER = 30
SCHEME = "gopher"


async def _attributes(resource: Resource) -> str:
    await resource.read()
    result = resource.result_as(GopherResult)
    attrs = result.attributes if result is not None else {}
    return "attributes: " + "; ".join(
        f"{name} = {value.splitlines()[0] if value else ''!r}" for name, value in attrs.items()
    )


async def _form(fields: Sequence[AskField], url: Any) -> list[str]:
    """The demo's answers to the +ASK form (a person is asked at the terminal instead)."""
    return ["Ada", "gopher", "yes"]


def _mirror(ctx: DemoContext) -> Any:
    """``omniurl mirror`` of the hole's /pub menu into a folder beside the demo tree."""

    async def outcome(resource: Resource) -> str:
        from omniurl.mirror.run import Config, mirror

        await resource.aclose()
        folder = ctx.root.parent / "mirrored-hole"
        status, counts = await mirror(
            Config(url=str(resource.url), folder=folder), ctx.options, lambda row: None
        )
        files = sorted(
            p.relative_to(folder).as_posix()
            for p in folder.rglob("*")
            if p.is_file() and ".omniurl-mirror" not in p.parts
        )
        listed = ", ".join(files)
        done = counts.files_done
        return f"omniurl mirror (exit {status}): {done} URLs, {len(files)} files: {listed}"

    return outcome


async def cases(ctx: DemoContext) -> list[DemoCase]:
    server = await ctx.server("gopher")
    base = f"gopher://{server.netloc}"
    return [
        DemoCase(f"{base}/", "§3.4.1: an empty path is the top menu (type 1, empty selector)"),
        DemoCase(f"{base}/1/pub", "a menu: each entry has its type, name and own gopher: URL"),
        DemoCase(f"{base}/0/pub/README.txt", "text (type 0): dot-unstuffed up to the '.' line"),
        DemoCase(f"{base}/7/search%09demo%20tree", "§3.4.2: a search: selector TAB words"),
        DemoCase(
            f"{base}/0/pub/hello.txt%09%09!",
            "§3.4.6: Gopher+ item attributes (selector TAB !)",
            outcome=_attributes,
        ),
        DemoCase(f"{base}/0/pub/hello.txt%09%09+", "§3.4.4: Gopher+ default view, +length"),
        DemoCase(
            f"{base}/0/form%09%09?",
            "§3.4.5: a +ASK form: fetched, answered (here by a callback), sent as §3.4.9 says",
            options=ctx.options.with_(form=_form),
        ),
        DemoCase(
            f"{base}/0/pub%09%09+%0D%0ADELE",
            "CR LF smuggled into the Gopher+ string: refused before anything is sent",
            expect_error=True,
        ),
        DemoCase(f"{base}/7/search", "a search without words: input needed", expect_error=True),
        DemoCase(
            f"{base}/1/pub",
            "omniurl mirror URL DIR: the hole below /pub copied, each menu as %gophermap.tsv",
            outcome=_mirror(ctx),
        ),
    ]
