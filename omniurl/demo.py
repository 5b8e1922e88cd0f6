"""``omniurl demo``: a newcomer's first command.

It builds a sample tree in a temporary folder, starts the local servers on loopback, resolves
the URLs each scheme's demo module offers, prints each URL, its plan and its outcome, and
shuts everything down.  Scheme demo modules live in ``omniurl/demos/`` — one per scheme,
each exposing ``ORDER`` (an int) and ``async def cases(ctx) -> list[DemoCase]`` — so adding a
scheme's demo touches no shared file.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
import pkgutil
import sys
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omniurl import testservers
from omniurl.resolvers import Options, check, resolve
from omniurl.resolvers.plan import Plan
from omniurl.resolvers.resource import Resource
from omniurl.schemes.errors import OmniurlError

from . import demos

SAMPLE_TEXT = """\
This is the omniurl demo tree.

RFC 1738 says: "Just as there are many different methods of access to resources, there
are several schemes for describing the location of such resources."
"""


@dataclass
class DemoCase:
    """One URL to show: ``label`` says what it demonstrates; ``expect_error`` marks a URL whose
    clear error *is* the point; ``outcome`` turns a resource into a short summary."""

    url: str
    label: str = ""
    options: Options | None = None
    expect_error: bool = False
    outcome: Callable[[Resource], Awaitable[str]] | None = None


@dataclass
class DemoContext:
    """What a demo module gets: the sample tree and a way to start servers (shared)."""

    root: Path
    stack: contextlib.AsyncExitStack
    servers: dict[str, testservers.RunningServer] = field(default_factory=dict)
    options: Options = field(default_factory=Options)

    async def server(self, name: str, **kw: Any) -> testservers.RunningServer:
        """Start the named test server once (loopback, free port) and reuse it."""
        key = name if not kw else f"{name}:{sorted(kw.items())}"
        if key not in self.servers:
            srv = await testservers.start(name, self.root, **kw)
            self.stack.push_async_callback(srv.close)
            self.servers[key] = srv
        return self.servers[key]


def build_tree(root: Path) -> None:
    """The sample files every server serves."""
    (root / "pub").mkdir(parents=True, exist_ok=True)
    (root / "pub" / "README.txt").write_text(SAMPLE_TEXT)
    (root / "pub" / "hello.txt").write_text("Hello from the omniurl demo tree.\n")
    (root / "pub" / "data.bin").write_bytes(bytes(range(256)) * 64)
    (root / "index.html").write_text("<html><body><h1>omniurl demo</h1></body></html>\n")


def _modules() -> list[Any]:
    mods = []
    for info in pkgutil.iter_modules(demos.__path__):
        mods.append(importlib.import_module(f"{demos.__name__}.{info.name}"))
    return sorted(mods, key=lambda m: (getattr(m, "ORDER", 100), m.__name__))


async def digest(resource: Resource) -> str:
    """Binary content: its size, media type and SHA-256 rather than raw bytes."""
    h = hashlib.sha256()
    async for chunk in resource:
        h.update(chunk)
    return f"{resource.bytes_read} bytes ({resource.media_type}), sha256 {h.hexdigest()[:16]}…"


async def _summarize(resource: Resource) -> str:
    if resource.kind == "listing":
        names = ", ".join(e.name for e in resource.entries[:6])
        more = "" if len(resource.entries) <= 6 else f", … ({len(resource.entries)} entries)"
        return f"listing: {names}{more}"
    if resource.kind == "session":
        return "session opened"
    media = resource.media_type or ""
    if media and not media.startswith(("text/", "message/")):
        return await digest(resource)
    data = await resource.read()
    text = data[:160].decode("utf-8", "replace").replace("\n", " ⏎ ")
    return f"{len(data)} bytes ({resource.media_type or 'unknown type'}): {text}"


class Printer:
    """The demo's output: at most 80 columns (fewer on a narrower terminal; only a URL
    longer than that is left whole), long lines wrapped under their indent, and colour on
    a terminal (none with ``NO_COLOR``, none in a file or a pipe) — rich does the wrapping
    and the terminal detection."""

    def __init__(self, out: Any) -> None:
        import os
        import shutil

        from rich.console import Console

        tty = bool(getattr(out, "isatty", lambda: False)())
        width = min(80, shutil.get_terminal_size((80, 24)).columns) if tty else 80
        self.console = Console(
            file=out,
            width=width,
            highlight=False,
            markup=False,
            emoji=False,
            force_terminal=tty,
            color_system="auto" if tty and "NO_COLOR" not in os.environ else None,
        )

    def write(self, text: str, style: str = "", indent: int = 0, *, whole: bool = False) -> None:
        """One item, wrapped under ``indent``; ``whole`` keeps it on one line however long
        (a URL is never broken: it must stay one thing to copy)."""
        from rich.text import Text

        if whole:
            self.console.print(Text(" " * indent) + Text(text, style=style), soft_wrap=True)
            return
        body = Text(text, style=style, overflow="fold")
        for line in body.wrap(self.console, self.console.width - indent):
            line.rstrip()
            self.console.print(Text(" " * indent) + line, soft_wrap=True)


async def run_demo(*, only: list[str] | None = None, out: Any = None) -> int:
    out = out or sys.stdout
    printer = Printer(out)
    modules = _modules()
    known = [getattr(m, "SCHEME", m.__name__.rsplit(".", 1)[-1]) for m in modules]
    unknown = [name for name in only or () if name not in known]
    if unknown:  # a typo must not pass for "0 failures"
        out.write(
            f"omniurl demo: no demo for {', '.join(unknown)} (there are: {', '.join(known)})\n"
        )
        return 2
    failures = 0
    for line in INTRO:
        printer.write(line, style="bold" if line == INTRO[0] else "")
    with tempfile.TemporaryDirectory(prefix="omniurl-demo-") as tmp:
        root = Path(tmp)
        build_tree(root)
        async with contextlib.AsyncExitStack() as stack:
            ctx = DemoContext(root=root, stack=stack)
            for module, scheme in zip(modules, known, strict=True):
                if only and scheme not in only:
                    continue
                printer.write("")
                printer.write(f"=== {scheme} ===", style="bold magenta")
                for case in await module.cases(ctx):
                    failures += await _show(case, ctx, printer)
    printer.write("")
    printer.write(
        f"demo finished: {failures} unexpected failure(s)",
        style="bold green" if not failures else "bold red",
    )
    printer.write("")
    for line in NEXT_STEPS:
        printer.write(line)
    return 1 if failures else 0


#: What the tour is, before its first scheme: what each block shows and how to read it.
INTRO = (
    "omniurl demo: a tour that needs no network.",
    "",
    "Sample files are put in a temporary folder and omniurl's own servers started",
    "on 127.0.0.1, one per scheme; then, scheme by scheme, a few URLs. For each:",
    "  # what it shows",
    "  plan:    the protocol lines it stands for, exactly as sent (secrets masked;",
    "           [if ...] marks a line sent only when a reply calls for it)",
    "  outcome: what resolving it gave (error: a refusal the tour expects)",
    "Everything is stopped and removed at the end.",
)

#: Where to go after the tour.
NEXT_STEPS = (
    "Next steps:",
    "  omniurl plan URL               the plan of any URL (nothing is sent)",
    "  omniurl get URL                fetch it (get --help: options, exit statuses)",
    "  omniurl serve gopher --root .  one of these servers, for your own files",
    "  omniurl browse URL             walk menus, folders, groups in a terminal",
    "  omniurl demo --only ftp        this tour for one scheme",
)


def _steps(plan: Plan) -> str:
    """The plan's steps as ``omniurl plan`` shows them, conditional ones marked."""
    shown = [s.shown + (f" [if {s.when}]" if s.when else "") for s in plan.steps]
    return json.dumps(shown, ensure_ascii=False)


async def _show(case: DemoCase, ctx: DemoContext, out: Printer) -> int:
    options = case.options or ctx.options
    out.write("")
    out.write(case.url, style="bold cyan", whole=True)
    if case.label:
        out.write(f"# {case.label}", style="dim", indent=2)
    try:
        plan = check(case.url, options)
        out.write(f"plan: {_steps(plan)}", indent=2)
        async with await resolve(case.url, options) as resource:
            summary = await (case.outcome or _summarize)(resource)
            if resource.chain:
                out.write(f"via: {' -> '.join([*resource.chain, str(resource.url)])}", indent=2)
        out.write(f"outcome: {summary}", style="green", indent=2)
        if case.expect_error:
            out.write("UNEXPECTED: this URL was expected to fail", style="bold red", indent=2)
            return 1
        return 0
    except OmniurlError as exc:
        style = "yellow" if case.expect_error else "bold red"
        out.write(f"error ({type(exc).__name__}): {exc}", style=style, indent=2)
        return 0 if case.expect_error else 1
