"""The ``omniurl`` command line, one module per concern.

Subcommands: ``parse``, ``join``, ``extract`` (pure, from ``schemes``: :mod:`.text`); ``plan``
(:mod:`.plan`), ``get`` (:mod:`.get`, writing through :mod:`.output` and :mod:`.progress`);
``serve`` and ``demo`` (:mod:`.servers`).  The options ``plan`` and ``get`` share are
:mod:`.arguments`; the parser is :mod:`.parser`; exit statuses :mod:`.status`; JSON and error
lines :mod:`.emit`.  JSON output of ``parse`` and ``plan`` is a contract other programs rely
on: its keys never change.

Start-up time is part of every command's time (``omniurl get`` is measured against curl), so
these modules import only what ``parse`` needs at the top; ``resolvers`` (and asyncio) are
imported when ``plan`` or ``get`` runs, their options are added to those subcommands only
when one of them is used (or its ``--help`` shown, complete), and ``get`` imports the planner
and executor of its URL's scheme alone (see resolvers/lazy.py).
"""

from __future__ import annotations

from omniurl.exitstatus import (
    EXIT_AUTH,
    EXIT_FAILURE,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_PROTOCOL,
    EXIT_REFUSED,
    EXIT_REPLY,
    EXIT_TRANSPORT,
    EXIT_UNSUPPORTED,
    exit_status,
)

from .arguments import options_from_args
from .main import main, run

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .parser import build_parser


def __getattr__(name: str) -> object:
    # (the parser module imports argparse: only for a command line cli.quick leaves to it)
    if name == "build_parser":
        from .parser import build_parser

        return build_parser
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), "build_parser"})


__all__ = [
    "EXIT_AUTH",
    "EXIT_FAILURE",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_PROTOCOL",
    "EXIT_REFUSED",
    "EXIT_REPLY",
    "EXIT_TRANSPORT",
    "EXIT_UNSUPPORTED",
    "build_parser",
    "exit_status",
    "main",
    "options_from_args",
    "run",
]
