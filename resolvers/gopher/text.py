"""Streaming decoder for dot-terminated text (RFC 1436 §3.8 type 0, Gopher+ length ``-1``).

Text ends at a lone ``.`` line, and a line that starts with ``.`` was sent with another ``.``
in front of it.  Real servers also just close the connection without the ``.`` line; that is
accepted (the caller decides, via :attr:`DotTextDecoder.done`).

The decoder works on chunks, not lines, so a large file streams at memory speed: it only
stops at line starts that begin with ``.`` (found with one ``bytes.find`` per occurrence), and
hands each such line to :func:`resolvers.lines.dot_unstuff`, the one place the rule lives.
Lines are delivered with the endings the server sent.
"""

from __future__ import annotations

from ..errors import LimitExceeded
from ..lines import dot_unstuff


class DotTextDecoder:
    """Feed chunks; get back text with the framing removed.  Pure: no I/O."""

    def __init__(self, *, max_line: int = 64 * 1024) -> None:
        self.max_line = max_line
        #: True once the lone "." line was seen; bytes after it are in :attr:`trailing`.
        self.done = False
        self.trailing = b""
        self._pending = b""  # an incomplete line that starts with "." (at most max_line)
        self._at_line_start = True

    def feed(self, data: bytes) -> bytes:
        if self.done:
            self.trailing += data
            return b""
        buf = self._pending + data if self._pending else data
        self._pending = b""
        out = bytearray()
        i = 0
        n = len(buf)
        while i < n:
            if self._at_line_start and buf[i] == 0x2E:  # a line that starts with "."
                nl = buf.find(b"\n", i)
                if nl < 0:
                    if n - i > self.max_line:
                        raise LimitExceeded(f"text line longer than {self.max_line} bytes")
                    self._pending = buf[i:]
                    return bytes(out)
                end = nl - 1 if nl > i and buf[nl - 1] == 0x0D else nl
                line = dot_unstuff(buf[i:end])
                if line is None:
                    self.done = True
                    self.trailing = buf[nl + 1 :]
                    return bytes(out)
                out += line
                out += buf[end : nl + 1]
                i = nl + 1
                continue
            k = buf.find(b"\n.", i)
            if k < 0:
                out += buf[i:]
                self._at_line_start = buf[n - 1] == 0x0A
                return bytes(out)
            out += buf[i : k + 1]
            i = k + 1
            self._at_line_start = True
        return bytes(out)

    def close(self) -> bytes:
        """End of connection: the incomplete last line, unstuffed (a bare "." ends the text)."""
        rest, self._pending = self._pending, b""
        if not rest:
            return b""
        line = dot_unstuff(rest.rstrip(b"\r"))
        if line is None:
            self.done = True
            return b""
        return line


__all__ = ["DotTextDecoder"]
