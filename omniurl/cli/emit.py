"""What the command prints for programs: one JSON object per line, and errors either as JSON
(``--json``) or as one line on stderr, with the documented exit status."""

from __future__ import annotations

import argparse
import json
import re
import sys
from typing import Any

from omniurl.schemes.errors import OmniurlError

from .status import exit_status

#: C0 controls but TAB, DEL and the C1 controls: what a terminal may act on (ESC, CSI...).
_CONTROLS = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f]")


def visible(text: str) -> str:
    """``text`` with the characters a terminal acts on shown as ``\\xNN`` escapes.

    Error messages carry server text (an FTP 550 line, a Gopher error, an HTTP reason);
    a hostile server's ``ESC ]`` or ``CSI`` sequences must not reach the user's terminal
    as commands (issue 14), as the telnet advisory user is already shown by ``repr``.
    """
    return _CONTROLS.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")


def error_json(exc: OmniurlError) -> dict[str, Any]:
    return {"error": exc.to_json()}


def report(args: argparse.Namespace, exc: OmniurlError) -> int:
    if getattr(args, "json", False):
        print_json(error_json(exc))
    else:
        sys.stderr.write(f"omniurl: {visible(str(exc))}\n")
    return exit_status(exc)
