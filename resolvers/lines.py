"""Lines of text off the wire, and dot-terminated multi-line text (RFC 3977 §3.1.1, RFC 1436,
RFC 5321 §4.5.2).

NNTP articles, Gopher text and SMTP data share one framing: lines end in CRLF, a line that
starts with "." has another "." put in front of it, and a lone "." ends the block.  Clients
and our test servers use these two functions, so the rule lives in one place.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Iterable

from .errors import LimitExceeded


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


async def split_lines(
    body: AsyncIterator[bytes], max_line: int, *, what: str = "line"
) -> AsyncGenerator[bytes, None]:
    """The lines of ``body`` (without CR LF or LF) as they arrive — never the whole text in
    memory — each bounded by ``max_line`` (:class:`LimitExceeded` names ``what`` and its
    number); a final line without its LF is a line too."""
    buf = bytearray()
    number = 0
    async for chunk in body:
        buf += chunk
        start = 0
        while True:
            end = buf.find(b"\n", start)
            if end < 0:
                break
            number += 1
            stop = end - 1 if end > start and buf[end - 1] == 13 else end
            if stop - start > max_line:
                raise LimitExceeded(f"{what} {number} is longer than {max_line} bytes")
            yield bytes(buf[start:stop])
            start = end + 1
        del buf[:start]
        if len(buf) > max_line:
            raise LimitExceeded(f"{what} {number + 1} is longer than {max_line} bytes")
    if buf:
        yield bytes(buf[:-1] if buf.endswith(b"\r") else buf)
