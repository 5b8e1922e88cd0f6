"""Dot-terminated multi-line text (RFC 3977 §3.1.1, RFC 1436, RFC 5321 §4.5.2).

NNTP articles, Gopher text and SMTP data share one framing: lines end in CRLF, a line that
starts with "." has another "." put in front of it, and a lone "." ends the block.  Clients
and our test servers use these two functions, so the rule lives in one place.
"""

from __future__ import annotations

from collections.abc import Iterable


def dot_stuff(lines: Iterable[bytes]) -> bytes:
    """Frame ``lines`` (without line endings) as a dot-terminated block, final ``.`` included."""
    out = bytearray()
    for line in lines:
        if line.startswith(b"."):
            out += b"."
        out += line + b"\r\n"
    out += b".\r\n"
    return bytes(out)


def dot_unstuff(line: bytes) -> bytes | None:
    """One received line (without its ending): ``None`` for the terminating lone ``.``,
    otherwise the line with a leading stuffed dot removed."""
    if line == b".":
        return None
    if line.startswith(b".."):
        return line[1:]
    return line
