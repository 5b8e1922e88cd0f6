"""What the command prints for programs: one JSON object per line, and errors either as JSON
(``--json``) or as one line on stderr, with the documented exit status."""

from __future__ import annotations

import argparse
import functools
import json
import sys

from omniurl.schemes.errors import OmniurlError
from omniurl.schemes.secrets import mask_passwords

from .status import EXIT_HTTP_FAIL, exit_status

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def print_json(obj: Any) -> None:
    write_stdout(json.dumps(obj, ensure_ascii=False) + "\n")


def write_stdout(text: str, *, flush: bool = False) -> None:
    """``text`` to standard output; a write that fails (a full disk behind a redirection,
    ``> /dev/full``, an I/O error) is curl's write error, 23, with the operating system's
    reason (:func:`stdout_error`), never a traceback.  A reader gone away (``| head``) is
    left to ``cli.main``, which ends quietly with 23."""
    try:
        sys.stdout.write(text)
        if flush:
            sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise stdout_error(exc) from None


def stdout_error(exc: OSError) -> OmniurlError:
    """The typed error (``cli.output.OutputError``, exit status 23) for a failed write to
    standard output."""
    from .output import OutputError

    return OutputError(f"cannot write standard output: {exc.strerror or exc}", component="output")


def error_json(exc: OmniurlError) -> dict[str, Any]:
    return {"error": exc.to_json()}


def terminal_safe(text: str, keep: str = "\t") -> str:
    """``text`` with control characters (C0, DEL, C1 — all but those in ``keep``: TAB) shown
    as escapes: a server's words (an FTP 550, a Gopher error item, an HTTP reason) can carry
    terminal escape sequences that would otherwise reach the terminal and act there.  The
    gateway shows a page's text through it too, keeping line ends (``keep="\t\n\r"``)."""
    if text.isprintable() or text.translate(_dropping(keep)).isprintable():
        # (both in C: a page of text with line ends was escaped character by character in
        # Python — 45% of the gateway's CPU a request, profiled at 200 clients)
        return text
    return "".join(
        ch if ch.isprintable() or ch in keep else ch.encode("unicode_escape").decode("ascii")
        for ch in text
    )


@functools.cache
def _dropping(keep: str) -> dict[int, None]:
    """A ``str.translate`` table removing the characters of ``keep``."""
    return dict.fromkeys(map(ord, keep))


def report(args: argparse.Namespace, exc: OmniurlError) -> int:
    status = exit_status(exc)
    http_status = getattr(exc, "status", None)
    if getattr(args, "fail", False) and isinstance(http_status, int) and http_status >= 400:
        status = EXIT_HTTP_FAIL
    transfer = getattr(args, "transfer", None)
    if transfer is not None:  # what -w reports
        transfer.errormsg = str(exc)
        if isinstance(http_status, int):
            transfer.http_code = http_status
    if getattr(args, "json", False):
        print_json(error_json(exc))
    elif not getattr(args, "silent", False) or getattr(args, "show_error", False):
        # -s hides the error line (the exit status still tells), -S shows it again (curl).
        sys.stderr.write(f"omniurl: {terminal_safe(mask_passwords(str(exc)))}\n")
    return status
