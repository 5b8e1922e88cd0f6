"""telnet against a real telnetd: Debian's inetutils-telnetd, run inetd-style by
systemd-socket-activate, with a stand-in for /bin/login (``-E``) that prompts like login(1)
and turns echo off for the password on its pty.  This exercises a real server's option
negotiation, pty echo and NVT end-of-line handling."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from helpers import free_port

from omniurl.resolvers import Options, resolve
from omniurl.resolvers.errors import AuthError
from omniurl.resolvers.telnet import parse_script
from omniurl.resolvers.telnet.result import TelnetResult
from omniurl.resolvers.telnet.settings import TelnetOptions

pytestmark = pytest.mark.interop

TELNETD = "/usr/sbin/telnetd"

FAKE_LOGIN = """#!/bin/sh
printf 'login: '; read user
stty -echo; printf 'Password: '; read pw; stty echo; printf '\\n'
if [ "$user" = demo ] && [ "$pw" = demo ]; then
  printf 'Welcome, %s.\\n' "$user"
  while printf '$ '; read line; do
    case "$line" in exit) echo logout; exit 0;; whoami) echo "$user";; *) echo "$line";; esac
  done
else echo 'Login incorrect'; sleep 1; exit 1; fi
"""


@pytest_asyncio.fixture
async def telnetd(tmp_path: Path) -> AsyncIterator[int]:
    activate = shutil.which("systemd-socket-activate")
    if not os.path.exists(TELNETD) or activate is None:
        pytest.skip("inetutils-telnetd (and systemd-socket-activate) not installed")
    if os.geteuid() != 0:
        pytest.skip("inetutils telnetd needs root to set up its pty")
    login = tmp_path / "login.sh"
    login.write_text(FAKE_LOGIN)
    login.chmod(0o755)
    port = free_port()
    proc = await asyncio.create_subprocess_exec(
        activate,
        "-l",
        f"127.0.0.1:{port}",
        "--inetd",
        "-a",
        TELNETD,
        "-h",
        "-E",
        str(login),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        assert proc.stderr is not None
        line = await asyncio.wait_for(proc.stderr.readline(), 10)
        assert b"Listening on" in line, line
        yield port
    finally:
        with contextlib.suppress(ProcessLookupError):
            proc.terminate()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(proc.wait(), 5)
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


async def test_login_and_script_against_inetutils_telnetd(telnetd: int) -> None:
    script = parse_script("expect $ \nsend whoami\nexpect-re demo\\r\\n\\$ \nsend exit\n")
    options = Options(schemes=(TelnetOptions(login=True, script=script),), read_timeout=10)
    async with await resolve(f"telnet://demo:demo@127.0.0.1:{telnetd}/", options) as r:
        assert (t := r.result_as(TelnetResult)) is not None and t.logged_in
        await r.session.read_until_quiet(2.0, limit=5)
        transcript = bytes(r.session.history)
        # "exit" ended the shell and telnetd closed the connection.
        assert r.session.at_eof
    # The user name was echoed by the pty, the password was not; one line end each.
    assert b"login: demo\r\nPassword: \r\nWelcome, demo.\r\n$ whoami\r\ndemo\r\n$ " in transcript
    assert b"\x00" not in transcript
    # (telnetd may close before the pty's last output — the echoed "exit", "logout" — is
    # flushed, so the transcript's end is not asserted.)


async def test_wrong_password_against_inetutils_telnetd(telnetd: int) -> None:
    options = Options(schemes=(TelnetOptions(login=True),), read_timeout=10)
    with pytest.raises(AuthError) as info:
        await resolve(f"telnet://demo:nope@127.0.0.1:{telnetd}/", options)
    assert "Login incorrect" in str(info.value)
