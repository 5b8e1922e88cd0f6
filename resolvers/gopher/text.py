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

import re

from ..errors import LimitExceeded, ProtocolError
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


#: How many bytes of a text item :class:`TextItemDecoder` holds back, from its first line that
#: starts with ".", until the close says how to read them.
HOLD = 8 << 20

#: How long a server may stay silent, its connection open, after a lone "." line before that
#: line is taken as RFC 1436's end of the text (:meth:`TextItemDecoder.quiet`).  RFC 1436 §2
#: has the server close after it; a server that holds the connection open instead (test
#: servers that wait for the client's close do) was read at once before the rule above and
#: then waited for the read timeout.  A server that does not frame its text sends the file in
#: one go, so the bytes after a lone "." line come in the same write, well inside this.
QUIET = 0.5

_LONE_DOT = re.compile(rb"^\.\r?\n", re.M)


class TextItemDecoder:
    """A plain text item (type ``0`` and the other text types) as servers really send it.

    RFC 1436 §3.8 ends text with a line holding only ``.`` (the server then closes, §2) and
    doubles a line's leading ``.``.  gophernicus and pygopherd do neither: they send the
    file's bytes and close, so a file holding a lone ``.`` line was cut there and ``..x``
    became ``.x`` (curl and ``lynx -source`` keep every byte).  The rule:

    - the reply is read as RFC 1436 says (the ``.`` line removed, ``..`` undone) only when it
      *is* so framed: its first lone ``.`` line is followed by the close and nothing else;
    - otherwise — the server closed without a ``.`` line, or bytes follow that line — the
      server did not frame the text, and the content is every byte it sent, as curl's;
    - a line that does not start with ``.`` reads the same both ways and is handed out at
      once; from the first line that starts with ``.`` the bytes are held (at most
      ``hold``) until the close decides.  Past ``hold`` they are taken as unframed (what the
      servers above send) and a reply that then ends with a lone ``.`` line is a
      :class:`~resolvers.errors.ProtocolError`: never a file silently read the wrong way.

    :attr:`done` stays False but for two ends: the close (:meth:`close`), or, when the held
    bytes end with the first lone ``.`` line (:attr:`may_end`), the server's silence for
    :data:`QUIET` seconds with the connection open (:meth:`quiet`, asked by the executor).
    """

    def __init__(self, *, hold: int = HOLD, max_line: int = 64 * 1024) -> None:
        self.hold = hold
        self.max_line = max_line
        self.done = False
        self._held = bytearray()  # the undecided bytes, as sent
        self._holding = False
        self._raw = False  # decided: not framed, every byte as sent
        self._guessed = False  # decided by the hold bound, not by the server's bytes
        self._at_line_start = True
        self._scan = 0  # where in _held a lone "." line may still start
        self._tail = b""  # (after a guess) the reply's last bytes

    def feed(self, data: bytes) -> bytes:
        if not data:
            return b""
        if self._raw:
            if self._guessed:
                self._tail = (self._tail + data)[-4:]
            return data
        if not self._holding:
            if self._at_line_start and data[0] == 0x2E:
                k = 0
            else:
                k = data.find(b"\n.")
                if k < 0:
                    self._at_line_start = data[-1] == 0x0A
                    return data
                k += 1
            self._holding = True
            self._held += data[k:]
            return data[:k] + self._check()
        self._held += data
        return self._check()

    @property
    def may_end(self) -> bool:
        """The bytes held so far end with the reply's first lone "." line: if the server now
        says nothing more, the text is RFC 1436's, complete (:meth:`quiet`)."""
        if self._raw or not self._held:
            return False
        found = _LONE_DOT.search(self._held, self._scan)
        return found is not None and found.end() == len(self._held)

    def quiet(self) -> bytes:
        """The server went silent after the lone "." line (:attr:`may_end`) without closing:
        the text is framed and ends there; the rest of the content, unstuffed."""
        if not self.may_end:
            raise ValueError("quiet() is only for held bytes ending with a lone '.' line")
        return self.close()

    def _check(self) -> bytes:
        held = self._held
        found = _LONE_DOT.search(held, self._scan)
        if found is not None and found.end() < len(held):
            return self._release()  # bytes after the "." line: the server did not frame
        if found is None:
            self._scan = held.rfind(b"\n") + 1
            if len(held) > self.hold:
                self._guessed = True
                self._tail = bytes(held[-4:])
                return self._release()
        return b""

    def _release(self) -> bytes:
        out = bytes(self._held)
        self._held = bytearray()
        self._raw = True
        return out

    def close(self) -> bytes:
        """The server closed: the rest of the content."""
        self.done = True
        if self._raw:
            if self._guessed and self._tail.endswith((b"\n.\n", b"\n.\r\n", b"\n.", b"\n.\r")):
                raise ProtocolError(
                    f"the Gopher text item held lines starting with '.' beyond {self.hold}"
                    " bytes and then ended with RFC 1436's lone '.' line: whether the"
                    " server dot-stuffed it cannot be told (--raw gives its bytes)",
                    component="selector",
                )
            return b""
        held = bytes(self._held)
        self._held = bytearray()
        if not held:
            return b""
        found = _LONE_DOT.search(held, self._scan)
        last = held[held.rfind(b"\n") + 1 :]
        framed = (found is not None and found.end() == len(held)) or (
            found is None and last in (b".", b".\r")
        )
        if not framed:
            return held  # closed without the "." line: not framed, the bytes as sent
        decoder = DotTextDecoder(max_line=max(self.max_line, len(held)))
        out = decoder.feed(held)
        return out if decoder.done else out + decoder.close()


__all__ = ["HOLD", "DotTextDecoder", "TextItemDecoder"]
