"""``plan``: the exact protocol steps of each URL, checked by the policy, sent nowhere."""

from __future__ import annotations

from omniurl.exitstatus import EXIT_OK, exit_status
from omniurl.resolvers.errors import UnsupportedScheme
from omniurl.schemes.errors import OmniurlError

from .arguments import options_from_args
from .emit import error_json, print_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse


def cmd_plan(args: argparse.Namespace) -> int:
    from omniurl.resolvers import check

    options = options_from_args(args)
    status = EXIT_OK
    for text in args.urls:
        try:
            print_json(check(text, options).to_json())
        except UnsupportedScheme as exc:
            # localhost:8081/x: "no scheme: did you mean http://…", as get says (exit 2),
            # not "no resolver for localhost: URLs" (issue 31 item 9); imported only here
            # (the plan command's own imports stay few: tests/test_startup.py)
            from .text import no_scheme

            shown: OmniurlError = no_scheme(text) or exc
            print_json(error_json(shown))
            status = max(status, exit_status(shown))
        except OmniurlError as exc:
            print_json(error_json(exc))
            status = max(status, exit_status(exc))
    return status
