"""What the command prints for programs: one JSON object per line, and errors either as JSON
(``--json``) or as one line on stderr, with the documented exit status."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from omniurl.schemes.errors import OmniurlError
from omniurl.schemes.mask import mask_json, mask_url

from .status import exit_status


def print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")


def error_json(exc: OmniurlError) -> dict[str, Any]:
    # Error texts quote the URL; its password never reaches the screen (issue 14 item 9).
    return {"error": mask_json(exc.to_json())}


def report(args: argparse.Namespace, exc: OmniurlError) -> int:
    if getattr(args, "json", False):
        print_json(error_json(exc))
    else:
        sys.stderr.write(f"omniurl: {mask_url(str(exc))}\n")
    return exit_status(exc)
