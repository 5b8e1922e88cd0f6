"""``-w/--write-out``: curl's report after each transfer, with curl's variable names.

A script written for curl (``curl -s -o /dev/null -w '%{http_code}\\n' URL``) works as it
is: the same variables, the same escapes (``\\n``, ``\\r``, ``\\t``, ``\\\\``, ``%%``), the same
switch of stream (``%{stderr}``, ``%{stdout}``) and the same ``@FILE`` form.  An unknown
variable is reported once on stderr and prints nothing, as curl does.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from typing import TextIO

#: ``%{name}``, ``%%``, or a backslash escape.
_TOKEN = re.compile(r"%\{([A-Za-z_]+)\}|%%|\\(.)", re.DOTALL)
_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\"}


@dataclass
class Transfer:
    """What one transfer did, as ``-w`` reports it."""

    url: str = ""
    http_code: int | None = None
    size: int = 0
    seconds: float = 0.0
    exitcode: int = 0
    errormsg: str = ""

    def value(self, name: str) -> str | None:
        """A variable's text, or None for a variable omniurl does not know."""
        match name:
            case "http_code" | "response_code":
                return f"{self.http_code or 0:03d}"
            case "size_download":
                return str(self.size)
            case "time_total":
                return f"{self.seconds:.6f}"
            case "url_effective":
                return self.url
            case "exitcode":
                return str(self.exitcode)
            case "errormsg":
                return self.errormsg
        return None


def read_format(given: str) -> str:
    """``-w``'s value: the format itself, or ``@FILE`` / ``@-`` (read from a file, stdin)."""
    if not given.startswith("@"):
        return given
    name = given[1:]
    if name == "-":
        return sys.stdin.read()
    with open(name, encoding="utf-8", errors="surrogateescape") as fh:
        return fh.read()


def write_out(fmt: str, transfer: Transfer, *, stdout: TextIO, stderr: TextIO) -> None:
    """Print ``fmt`` for ``transfer``: variables replaced, escapes applied."""
    out = stdout
    pos = 0
    for m in _TOKEN.finditer(fmt):
        out.write(fmt[pos : m.start()])
        pos = m.end()
        name, escaped = m.group(1), m.group(2)
        if name in ("stderr", "stdout"):
            out.flush()
            out = stderr if name == "stderr" else stdout
        elif name is not None:
            text = transfer.value(name)
            if text is None:
                stderr.write(f"omniurl: unknown --write-out variable: '{name}'\n")
            else:
                out.write(text)
        elif escaped is not None:
            out.write(_ESCAPES.get(escaped, "\\" + escaped))
        else:
            out.write("%")
    out.write(fmt[pos:])
    stdout.flush()
    stderr.flush()


__all__ = ["Transfer", "read_format", "write_out"]
