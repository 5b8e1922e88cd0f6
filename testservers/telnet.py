"""A telnet server for the demo and the tests: a banner, ``login:`` and ``Password:`` prompts
and a tiny shell, built on telnetlib3's server.

It behaves like a classic ``login(1)`` behind ``telnetd``: the user name is echoed, the
password is not, a wrong pair gets ``Login incorrect`` and a new ``login:`` prompt (three
tries), and a correct one a ``$ `` prompt with a few commands (``help`` lists them).  Every
line the server reads is recorded in ``info["lines"]`` (one list per connection, the bytes as
received after telnet decoding, line ending included), so tests can assert exactly what a
client sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import telnetlib3

from .base import RunningServer, close_quietly, register

#: The accounts the server accepts unless the caller gives others.
DEFAULT_USERS: Mapping[str, str] = {"demo": "demo"}

BANNER = b"omniurl test telnet server (RFC 854)\r\nAccounts: demo/demo\r\n\r\n"
LOGIN_PROMPT = b"login: "
PASSWORD_PROMPT = b"Password: "
SHELL_PROMPT = b"$ "
HELP = b"commands: help, whoami, echo TEXT, ls, cat NAME, exit\r\n"
MAX_LINE = 1024
_BS = {0x08, 0x7F}


class _LineReader:
    """Lines typed by a client, octet by octet (a person in raw mode sends one key at a time,
    a program whole lines): echoes when asked (the server said WILL ECHO), erases on BS and
    DEL; CR LF, CR NUL, CR and LF end a line."""

    def __init__(self, reader: Any, writer: Any, record: list[bytes], idle: float) -> None:
        self.reader, self.writer, self.record, self.idle = reader, writer, record, idle
        self.pending = bytearray()
        self.after_cr = False

    async def finish(self) -> None:
        """Before closing: take in the LF of a CR LF still in flight (for the record)."""
        if self.after_cr and not self.pending:
            with contextlib.suppress(TimeoutError, ConnectionError, OSError):
                self.pending += await asyncio.wait_for(self.reader.read(1), 0.2)
        if self.after_cr and self.pending[:1] in (b"\n", b"\x00"):
            self.record[-1] += bytes([self.pending.pop(0)])
            self.after_cr = False

    async def line(self, *, echo: bool) -> bytes | None:
        """The next line without its ending; ``None`` at end of input (EOF, ^D, idle)."""
        raw = bytearray()
        line = bytearray()
        echoed = bytearray()
        while True:
            if not self.pending:
                if echoed:
                    self.writer.write(bytes(echoed))
                    echoed.clear()
                try:
                    data = await asyncio.wait_for(self.reader.read(256), self.idle)
                except TimeoutError:
                    return None
                if not data:
                    return None
                self.pending += data
            octet = self.pending.pop(0)
            if self.after_cr and octet in (0x0A, 0x00):
                # The second octet of the NVT end of line (CR LF, CR NUL): part of the last
                # line's ending.
                self.after_cr = False
                self.record[-1] += bytes([octet])
                continue
            self.after_cr = False
            raw.append(octet)
            if octet in (0x0D, 0x0A):
                if octet == 0x0D and self.pending and self.pending[0] in (0x0A, 0x00):
                    raw.append(self.pending.pop(0))
                else:
                    self.after_cr = octet == 0x0D
                self.record.append(bytes(raw))
                if echo:
                    echoed += b"\r\n"
                self.writer.write(bytes(echoed))
                return bytes(line)
            if octet in _BS:
                if line:
                    line.pop()
                    if echo:
                        echoed += b"\b \b"
            elif octet == 0x04 and not line:  # ^D on an empty line: end of input
                self.record.append(bytes(raw))
                return None
            elif len(line) < MAX_LINE:
                line.append(octet)
                if echo:
                    echoed.append(octet)


def _shell_command(line: bytes, user: str, root: Path) -> tuple[bytes, bool]:
    """The reply to one shell command line, and whether the session goes on."""
    words = line.decode("utf-8", "replace").strip().split(maxsplit=1)
    if not words:
        return b"", True
    cmd, arg = words[0], (words[1] if len(words) > 1 else "")
    if cmd in ("exit", "logout", "quit"):
        return b"logout\r\n", False
    if cmd == "help":
        return HELP, True
    if cmd == "whoami":
        return user.encode() + b"\r\n", True
    if cmd == "echo":
        return arg.encode() + b"\r\n", True
    if cmd == "ls":
        names = sorted(p.name + ("/" if p.is_dir() else "") for p in root.iterdir())
        return "".join(n + "\r\n" for n in names).encode(), True
    if cmd == "cat":
        target = (root / arg).resolve()
        if not target.is_relative_to(root.resolve()) or not target.is_file():
            return f"cat: {arg}: No such file\r\n".encode(), True
        text = target.read_bytes()[:65536]
        return text.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"), True
    return f"{cmd}: command not found\r\n".encode(), True


def make_shell(
    root: Path, users: Mapping[str, str], sessions: list[list[bytes]], *, idle: float = 60.0
) -> Callable[[Any, Any], Any]:
    """The telnetlib3 shell coroutine: banner, login, password, then the tiny shell."""

    async def shell(reader: Any, writer: Any) -> None:
        record: list[bytes] = []
        sessions.append(record)
        lines = _LineReader(reader, writer, record, idle)
        try:
            writer.write(BANNER)
            for _attempt in range(3):
                writer.write(LOGIN_PROMPT)
                user = await lines.line(echo=True)
                if user is None:
                    return
                writer.write(PASSWORD_PROMPT)
                password = await lines.line(echo=False)
                if password is None:
                    return
                writer.write(b"\r\n")
                name = user.decode("utf-8", "replace")
                if users.get(name) == password.decode("utf-8", "replace"):
                    break
                writer.write(b"Login incorrect\r\n")
            else:
                writer.write(b"Too many tries.\r\n")
                return
            writer.write(f"Welcome, {name}.\r\n".encode())
            while True:
                writer.write(SHELL_PROMPT)
                line = await lines.line(echo=True)
                if line is None:
                    return
                reply, go_on = _shell_command(line, name, root)
                writer.write(reply)
                if not go_on:
                    await lines.finish()
                    return
        except (ConnectionError, OSError):
            return
        finally:
            writer.close()

    return shell


class _QuietFilter(logging.Filter):
    """telnetlib3 logs a client that drops mid-negotiation at INFO/WARNING; the tests start
    and drop many such clients on purpose.  Keep its errors, drop that chatter."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.ERROR


@register("telnet", "telnet with login/password prompts (demo/demo), a banner and a tiny shell")
async def start(
    root: Path,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    users: Mapping[str, str] | None = None,
    idle: float = 60.0,
    **_: Any,
) -> RunningServer:
    """Start the telnet server on ``host:port`` (0: a free port); ``root`` backs ``ls``/``cat``."""
    logging.getLogger("telnetlib3").addFilter(_QuietFilter())
    sessions: list[list[bytes]] = []
    server = await telnetlib3.create_server(
        host=host,
        port=port,
        shell=make_shell(Path(root), dict(users or DEFAULT_USERS), sessions, idle=idle),
        encoding=False,
        # Negotiation is complete without BINARY (NVT clients such as omniurl's and
        # telnet(1) refuse it); otherwise telnetlib3 waits connect_maxwait for it.
        force_binary=True,
        connect_maxwait=0.5,
        timeout=int(idle) + 5,
    )
    sockets = server.sockets or ()
    bound = sockets[0].getsockname()

    async def close() -> None:
        await close_quietly(server, 5)

    return RunningServer(
        name="telnet",
        host=str(bound[0]),
        port=int(bound[1]),
        close_fn=close,
        info={"lines": sessions, "users": dict(users or DEFAULT_USERS)},
    )
