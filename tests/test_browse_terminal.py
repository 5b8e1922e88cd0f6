"""``omniurl browse`` in a real terminal (a pseudo-terminal of 80×24): a telnet: session gets
the terminal (Textual's ``App.suspend``) and the browser comes back when it ends, as lynx
does.  Headless Pilot tests cannot hand a terminal over, so this one runs the command."""

from __future__ import annotations

import asyncio
import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

pytest.importorskip("textual", reason="the [browse] extra (Textual) is not installed")

from omniurl import testservers

ROOT = Path(__file__).resolve().parent.parent


class Terminal:
    """The command on a pseudo-terminal; what it writes is read off the event loop."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        # (a pty pair and Popen, not pty.fork: forking a process with threads can deadlock)
        self.fd, child = pty.openpty()
        fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        self.process = subprocess.Popen(
            [sys.executable, "-m", "omniurl", *args],
            stdin=child,
            stdout=child,
            stderr=child,
            env={**os.environ, **env},
            start_new_session=True,
        )
        os.close(child)
        self.output = bytearray()
        self.changed = asyncio.Event()
        asyncio.get_running_loop().add_reader(self.fd, self._read)

    def _read(self) -> None:
        try:
            self.output += os.read(self.fd, 65536)
        except OSError:
            asyncio.get_running_loop().remove_reader(self.fd)
        self.changed.set()

    async def wait_for(self, text: bytes, seconds: float = 15.0) -> None:
        async with asyncio.timeout(seconds):
            while text not in self.output:
                self.changed.clear()
                await self.changed.wait()

    def type(self, data: bytes) -> None:
        os.write(self.fd, data)

    async def exit_status(self, seconds: float = 10.0) -> int:
        async with asyncio.timeout(seconds):
            while self.process.poll() is None:
                await asyncio.sleep(0.05)
        return self.process.returncode

    def close(self) -> None:
        asyncio.get_running_loop().remove_reader(self.fd)
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
        os.close(self.fd)


async def test_telnet_gets_the_terminal_and_the_browser_comes_back(
    tree: Path, tmp_path: Path
) -> None:
    server = await testservers.start("telnet", tree)
    env = {"PYTHONPATH": str(ROOT), "TERM": "xterm-256color", "XDG_DATA_HOME": str(tmp_path)}
    terminal = Terminal(["browse", f"telnet://127.0.0.1:{server.port}/"], env)
    try:
        await terminal.wait_for(b"; ^] closes")  # the session's own line: the terminal is its
        terminal.type(b"\x1d")  # ^] ends the session (as telnet's escape)
        await terminal.wait_for(b"Session ended (status 0).")  # the browser is back
        terminal.type(b"q")
        assert await terminal.exit_status() == 0
    finally:
        terminal.close()
        await server.close()
