"""The subcommands' functions, each importing its module when it runs: a command imports only
its own module (``plan`` never imports cli.get or cli.servers; issue 32 item 3), and naming
them imports neither argparse nor the parser (:mod:`.quick` hands them out too)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

    Command = Callable[[argparse.Namespace], int]


def _lazy(module: str, name: str) -> Command:
    """``omniurl.cli.MODULE.NAME``, imported when the subcommand runs."""

    def run(args: argparse.Namespace) -> int:
        import importlib

        command: Command = getattr(importlib.import_module(f"omniurl.cli.{module}"), name)
        return command(args)

    run.__name__ = run.__qualname__ = name
    return run


cmd_parse = _lazy("text", "cmd_parse")
cmd_join = _lazy("text", "cmd_join")
cmd_extract = _lazy("text", "cmd_extract")
cmd_plan = _lazy("plan", "cmd_plan")
cmd_get = _lazy("get", "cmd_get")
cmd_mirror = _lazy("mirror", "cmd_mirror")
cmd_browse = _lazy("servers", "cmd_browse")
cmd_serve = _lazy("servers", "cmd_serve")
cmd_demo = _lazy("servers", "cmd_demo")

#: The subcommands, in the order ``--help`` lists them (cli/parser.py's ``COMMANDS`` adds each).
NAMES = ("parse", "join", "extract", "plan", "get", "mirror", "browse", "serve", "demo")
