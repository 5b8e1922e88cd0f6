"""``-w/--write-out``: curl's report after each transfer, with curl's variable names.

A script written for curl (``curl -s -o /dev/null -w '%{http_code}\\n' URL``) works as it
is: the same variables (curl's common set: the status, sizes, speeds, every phase's time
measured by the connections themselves — ``resolvers.trace`` —, addresses, URLs, the file
written, the exit status), the same escapes (``\\n``, ``\\r``, ``\\t``, ``\\\\``, ``%%``), the same
switch of stream (``%{stderr}``, ``%{stdout}``) and the same ``@FILE`` form.  An unknown
variable is reported once on stderr and prints nothing, as curl does.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from omniurl.resolvers.trace import Trace

#: ``%{name}``, ``%%``, or a backslash escape.
_TOKEN = re.compile(r"%\{([A-Za-z_]+)\}|%%|\\(.)", re.DOTALL)
_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\"}


#: curl's variables that are times of the transfer's phases (``Options.trace``).
_PHASES = {
    "time_namelookup": "namelookup",
    "time_connect": "connect",
    "time_appconnect": "appconnect",
    "time_pretransfer": "pretransfer",
    "time_starttransfer": "starttransfer",
}


@dataclass
class Transfer:
    """What one transfer did, as ``-w`` reports it: what the command saw (the URLs, the
    status, the bytes, the file) and, in ``trace``, what the connections measured."""

    url: str = ""  # where it ended (after redirects): url_effective
    given: str = ""  # the URL as given: %{url}
    http_code: int | None = None
    size: int = 0
    seconds: float = 0.0
    exitcode: int = 0
    errormsg: str = ""
    content_type: str = ""
    num_redirects: int = 0
    #: Where an unfollowed redirect leads (``-I`` without ``-L``, ``--no-follow``).
    redirect_url: str = ""
    #: The reply heads' bytes (status or reply lines and fields, CRLF each, the blank line
    #: after an HTTP head), every hop's, and their field count (the last head's).
    size_header: int = 0
    num_headers: int = 0
    filename: str = ""
    method: str = "GET"
    http_version: str = "0"
    trace: Trace | None = None

    def value(self, name: str) -> str | None:
        """A variable's text, or None for a variable omniurl does not know."""
        trace = self.trace
        if name in _PHASES:
            return f"{trace.seconds(_PHASES[name]) if trace else 0.0:.6f}"
        match name:
            case "http_code" | "response_code":
                return f"{self.http_code or 0:03d}"
            case "size_download":
                return str(self.size)
            case "size_upload":
                return "0"
            case "size_request":
                return str(trace.sent if trace else 0)
            case "size_header":
                return str(self.size_header + (trace.interim if trace else 0))
            case "num_headers":
                return str(self.num_headers)
            case "speed_download":  # bytes a second, whole (curl's)
                return str(int(self.size / self.seconds) if self.seconds > 0 else 0)
            case "speed_upload":
                return "0"
            case "time_total":
                return f"{self.seconds:.6f}"
            case "time_redirect":
                return f"{trace.redirect if trace else 0.0:.6f}"
            case "url_effective":
                return self.url
            case "url":
                return self.given or self.url
            case "content_type":
                return self.content_type
            case "num_redirects":
                return str(self.num_redirects)
            case "redirect_url":
                return self.redirect_url
            case "num_connects":
                return str(trace.connects if trace else 0)
            case "remote_ip" | "remote_port" | "local_ip" | "local_port":
                where = (
                    (trace.remote if name.startswith("remote") else trace.local) if trace else None
                )
                if where is None:
                    return "" if name.endswith("ip") else "0"
                return where[0] if name.endswith("ip") else str(where[1])
            case "scheme":
                scheme, sep, _rest = self.url.partition(":")
                return scheme.upper() if sep else ""
            case "filename_effective":
                return self.filename
            case "method":
                return self.method
            case "http_version":
                return self.http_version
            case "exitcode":
                return str(self.exitcode)
            case "errormsg":
                return self.errormsg
        return None

    def heads(self, heads: Iterable[Sequence[str]]) -> None:
        """Count the reply heads received (each hop's, in order): ``size_header``,
        ``num_headers`` (the last head's fields) and ``http_version`` (its status line's)."""
        total = fields = 0
        last: Sequence[str] = ()
        for head in heads:
            if not head:
                continue
            last = head
            total += sum(len(line.encode("utf-8", "surrogateescape")) + 2 for line in head)
            total += 2 if head[0].startswith("HTTP/") else 0  # the blank line ending it
        if last:
            fields = len(last) - 1 if last[0].startswith("HTTP/") else 0
            if last[0].startswith("HTTP/"):
                version = last[0][5:].split(" ", 1)[0]
                # curl's words (tool_writeout.c's http_version map): "1" for HTTP/1.0
                self.http_version = _CURL_VERSIONS.get(version, version)
        self.size_header, self.num_headers = total, fields


#: ``%{http_version}`` as curl writes it: ``1`` for HTTP/1.0, ``1.1``, ``2``, ``3``.
_CURL_VERSIONS = {"1.0": "1", "2.0": "2"}


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
