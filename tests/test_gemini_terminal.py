"""gemini on a real (pseudo-)terminal: a 10 INPUT is asked with echo, an 11 SENSITIVE INPUT
without (the words typed never appear), each sent as the URL's query."""

from __future__ import annotations

import asyncio
import fcntl
import os
import pty
import subprocess
import sys
import termios
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from omniurl import testservers

ROOT = Path(__file__).resolve().parent.parent


def _controlling_terminal() -> None:  # (in the child: the pty becomes its /dev/tty)
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def answer_on_terminal(url: str, prompt: bytes, answer: bytes, home: Path) -> tuple[int, bytes]:
    """``omniurl get URL`` on a pseudo-terminal: wait for ``prompt``, type ``answer``, read
    everything to the end (every wait bounded)."""
    leader, follower = pty.openpty()
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env.update(PYTHONPATH=str(ROOT), HOME=str(home), XDG_DATA_HOME=str(home / "xdg"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "omniurl", "get", url],
        stdin=follower, stdout=follower, stderr=follower,
        env=env, preexec_fn=_controlling_terminal,
    )  # fmt: skip
    os.close(follower)
    out = b""
    answered = False
    deadline = time.monotonic() + 30
    try:
        while time.monotonic() < deadline:
            try:
                data = os.read(leader, 65536)
            except OSError:
                break
            if not data:
                break
            out += data
            if not answered and prompt in out:
                os.write(leader, answer + b"\r")
                answered = True
    finally:
        os.close(leader)
    return proc.wait(30), out


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[testservers.RunningServer]:
    (tmp_path / "root").mkdir()
    srv = await testservers.start("gemini", tmp_path / "root")
    yield srv
    await srv.close()


async def test_input_is_echoed_and_sensitive_input_is_not(
    server: testservers.RunningServer, tmp_path: Path
) -> None:
    base = f"gemini://127.0.0.1:{server.port}"
    status, out = await asyncio.to_thread(
        answer_on_terminal, f"{base}/input", b"What is your name?: ", b"Ada", tmp_path
    )
    assert status == 0, out
    assert b"What is your name?: Ada" in out and b"Hello, Ada!" in out
    status, out = await asyncio.to_thread(
        answer_on_terminal, f"{base}/secret", b"Password: ", b"hunter2", tmp_path
    )
    assert status == 0, out
    assert b"7 characters" in out
    assert b"hunter2" not in out  # never echoed
    assert server.info["received"][-1] == f"{base}/secret?hunter2\r\n".encode()
