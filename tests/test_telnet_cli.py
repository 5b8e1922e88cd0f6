"""``omniurl get telnet://…``: --script prints the transcript; without it the terminal is
attached (raw mode under a pty, ^] closes), and a plain pipe works line by line."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from helpers import omniurl_on_a_pty, read_until, run_omniurl

from omniurl import testservers


@pytest_asyncio.fixture
async def server(tree: Path) -> AsyncIterator[testservers.RunningServer]:
    async with await testservers.start("telnet", tree) as srv:
        yield srv


async def omniurl(*args: str, stdin: bytes = b"") -> tuple[int, bytes, bytes]:
    """Run the CLI in a subprocess (the server runs in this loop), bounded; its stdin is a
    pipe (empty by default), never the terminal."""
    return await run_omniurl(*args, stdin=stdin)


async def test_script_mode_prints_the_transcript(server, tmp_path: Path) -> None:
    script = tmp_path / "session.txt"
    script.write_text(
        "# log in, ask who we are, leave\nexpect $ \nsend whoami\nexpect $ \nsend exit\n"
    )
    status, out, err = await omniurl(
        "get", "--login", "--script", str(script), f"telnet://demo:demo@{server.netloc}/"
    )
    assert status == 0, err
    assert out.startswith(b"omniurl test telnet server (RFC 854)\r\n")
    assert out.endswith(
        b"login: demo\r\nPassword: \r\nWelcome, demo.\r\n$ whoami\r\ndemo\r\n$ exit\r\nlogout\r\n"
    )
    assert server.info["lines"][-1] == [b"demo\r\n", b"demo\r\n", b"whoami\r\n", b"exit\r\n"]


async def test_script_failure_exits_with_the_transport_status(server, tmp_path: Path) -> None:
    script = tmp_path / "session.txt"
    script.write_text("expect no such prompt\n")
    status, _out, err = await omniurl(
        "get", "--timeout", "0.5", "--script", str(script), f"telnet://{server.netloc}/"
    )
    assert status == 4
    assert b"timed out after 0.5 s waiting for /no\\ such\\ prompt/" in err


async def test_bad_script_file_is_a_usage_error(server, tmp_path: Path) -> None:
    script = tmp_path / "bad.txt"
    script.write_text("press enter\n")
    status, _out, err = await omniurl("get", "--script", str(script), f"telnet://{server.netloc}/")
    assert status == 2
    assert b"script line 1: 'press' is not expect, expect-re or send" in err


async def test_plan_shows_the_script_steps(tmp_path: Path) -> None:
    script = tmp_path / "s.txt"
    script.write_text("expect $ \nsend ls\n")
    status, out, _err = await omniurl(
        "plan", "--login", "--script", str(script), "telnet://demo:pw@h.example/"
    )
    assert status == 0
    assert b'"expect \'$ \'", "send ls"]' in out
    assert b"send ****" in out and b'"send pw"' not in out


async def test_piped_stdin_is_sent_line_by_line(server) -> None:
    status, out, err = await omniurl(
        "get", "--login", f"telnet://demo:demo@{server.netloc}/", stdin=b"echo piped\nexit\n"
    )
    assert status == 0, err
    assert b"piped\r\n" in out and out.endswith(b"logout\r\n")
    assert server.info["lines"][-1][2:] == [b"echo piped\r\n", b"exit\r\n"]
    assert b"connection closed by foreign host" in err


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")
async def test_attach_mode_under_a_pty_and_the_escape_character(server) -> None:
    seen = bytearray()
    async with omniurl_on_a_pty("get", "--login", f"telnet://demo:demo@{server.netloc}/") as (
        proc,
        master,
    ):
        await read_until(master, b"$ ", seen)
        assert b"^] closes" in seen
        # Raw mode: keys go one by one and Enter is CR; the server echoes.
        for key in b"whoami\r":
            os.write(master, bytes([key]))
            await asyncio.sleep(0.01)
        await read_until(master, b"whoami\r\ndemo\r\n$ ", seen)
        os.write(master, b"\x1d")  # ^]
        await read_until(master, b"connection closed (^])", seen)
        status = await asyncio.wait_for(proc.wait(), 10)
    assert status == 0
    # Enter (CR) went out as the NVT end of line CR LF.
    assert server.info["lines"][-1] == [b"demo\r\n", b"demo\r\n", b"whoami\r\n"]


async def test_demo_covers_telnet() -> None:
    import io

    from omniurl.demo import run_demo

    out = io.StringIO()
    assert await run_demo(only=["telnet"], out=out) == 0
    text = out.getvalue()
    assert "the shell answered 'hello from omniurl'" in text
    assert "error (DelimiterRefused): user contains IAC (0xFF)" in text


async def test_script_file_that_is_not_utf8_is_a_usage_error(server, tmp_path: Path) -> None:
    script = tmp_path / "latin1.txt"
    script.write_bytes(b"expect caf\xe9\n")
    status, _out, err = await omniurl("get", "--script", str(script), f"telnet://{server.netloc}/")
    assert status == 2
    assert b"Traceback" not in err
    assert err.startswith(f"omniurl: --script {script}: not UTF-8".encode())
    assert server.info["lines"] == []  # nothing was sent: no connection was even made


@pytest.mark.parametrize("source", ["file", "/dev/null"])
async def test_stdin_from_a_file_is_sent_line_by_line(server, tmp_path: Path, source: str) -> None:
    """``< commands.txt`` and ``< /dev/null``: epoll cannot watch a regular file or
    /dev/null (EPERM), so standard input is read another way."""
    from helpers import ROOT

    commands = tmp_path / "commands.txt"
    commands.write_bytes(b"echo from a file\nexit\n")
    path = commands if source == "file" else Path(os.devnull)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with path.open("rb") as stdin:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "omniurl", "get", "--timeout", "1", "--login",
            f"telnet://demo:demo@{server.netloc}/",
            stdin=stdin, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            cwd=ROOT, env=env,
        )  # fmt: skip
        out, err = await asyncio.wait_for(proc.communicate(), 30)
    assert b"Traceback" not in err
    assert proc.returncode == 0, err
    if source == "file":
        assert b"from a file\r\n" in out and out.endswith(b"logout\r\n")
        assert server.info["lines"][-1][2:] == [b"echo from a file\r\n", b"exit\r\n"]
    else:
        assert b"Welcome, demo." in out  # the session, then end of input: the output shown


async def test_the_end_of_input_is_not_reported_as_the_servers_close(tmp_path: Path) -> None:
    """Input ended (/dev/null) and the server, still connected, said nothing more: we closed
    the connection, after QUIET_AFTER_INPUT; before, stderr said "closed by foreign host"."""
    async with await testservers.start("recording", tmp_path) as silent:  # (never answers)
        status, out, err = await omniurl("get", f"telnet://{silent.netloc}/")
    assert (status, out) == (0, b"")
    assert err.endswith(b"\r\nomniurl: connection closed (end of input)\r\n"), err
    assert b"foreign host" not in err


async def _get_with_stdin_open(*args: str) -> tuple[int, bytes, float]:
    """``omniurl get ARGS`` with standard input a pipe never closed (a person who typed
    nothing and never will): the status, stderr and the seconds it ran (bounded: killed
    after 10 s, status -9)."""
    from helpers import ROOT

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    loop = asyncio.get_running_loop()
    started = loop.time()
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "omniurl", "get", *args,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, cwd=ROOT, env=env,
    )  # fmt: skip
    assert proc.stderr is not None
    try:
        err = await asyncio.wait_for(proc.stderr.read(), 10)  # (stdin stays open)
        await asyncio.wait_for(proc.wait(), 10)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        err = b""
    finally:
        if proc.stdin is not None:
            proc.stdin.close()
    assert proc.returncode is not None
    return proc.returncode, err, loop.time() - started


async def test_max_time_ends_an_interactive_session_as_it_ends_any_transfer(
    server, tmp_path: Path
) -> None:
    """``-m 1.5`` with standard input kept open: the session ends after 1.5 s with the
    words and exit status a silent Gopher server gives under ``-m`` (curl's telnet honours
    ``-m`` too).  Before, the session ran until the stdin closed (killed after 10 s here)."""
    async with await testservers.start("recording", tmp_path) as silent:  # (never answers)
        gopher_status, gopher_err, _ = await _get_with_stdin_open(
            "-m", "1.5", f"gopher://{silent.netloc}/0x"
        )
    expected = b"omniurl: the transfer took longer than --max-time 1.5 s\n"
    assert (gopher_status, gopher_err) == (4, expected)
    status, err, took = await _get_with_stdin_open("-m", "1.5", f"telnet://{server.netloc}/")
    assert status == gopher_status, (status, err)  # (-9: still running after 10 s)
    assert err.splitlines(keepends=True)[-1] == expected, err
    assert b"Traceback" not in err
    assert 1.5 <= took < 1.5 + 2.0, took  # (+ the interpreter's start, on a busy machine)
    # Logged in, the same: the rest of -m, not a fresh -m, after the login.
    status, err, took = await _get_with_stdin_open(
        "-m", "2", "--login", f"telnet://demo:demo@{server.netloc}/"
    )
    assert status == 4 and err.endswith(b"took longer than --max-time 2 s\n"), err
    assert 2.0 <= took < 2.0 + 2.0, took


async def test_a_session_that_ends_within_max_time_is_untouched(server) -> None:
    status, out, err = await omniurl(
        "get", "-m", "20", "--login", f"telnet://demo:demo@{server.netloc}/",
        stdin=b"echo piped\nexit\n",
    )  # fmt: skip
    assert status == 0, err
    assert b"piped\r\n" in out and out.endswith(b"logout\r\n")
    assert err.endswith(b"connection closed by foreign host\r\n"), err


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")
async def test_max_time_under_a_pty_restores_the_terminal(server) -> None:
    import termios

    seen = bytearray()
    async with omniurl_on_a_pty("get", "-m", "2", f"telnet://{server.netloc}/") as (
        proc,
        master,
    ):
        await read_until(master, b"^] closes", seen)
        status = await asyncio.wait_for(proc.wait(), 10)
        await read_until(master, b"--max-time 2 s", seen)
        lflag = termios.tcgetattr(master)[3]
    assert status == 4, bytes(seen)
    assert b"\r\nomniurl: the transfer took longer than --max-time 2 s" in seen
    assert lflag & termios.ICANON and lflag & termios.ECHO  # (raw mode undone)


async def test_max_time_bounds_a_script_whose_server_never_goes_quiet(tmp_path: Path) -> None:
    """``--script``: the transcript is read until the server is quiet for 0.5 s (at most
    the read timeout, 30 s); a server that never pauses held ``-m 1.5`` that long.  Now the
    transcript so far is shown, then -m's error and exit status; ``--json`` gives the error
    alone (one document)."""

    async def chatter(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            for _ in range(150):  # (15 s at most)
                writer.write(b"tick\r\n")
                await writer.drain()
                await asyncio.sleep(0.1)
        except ConnectionError:
            pass
        finally:
            writer.close()

    script = tmp_path / "session.txt"
    script.write_text("expect tick\n")
    server = await asyncio.start_server(chatter, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        url = f"telnet://127.0.0.1:{port}/"
        status, err, took = await _get_with_stdin_open("-m", "1.5", "--script", str(script), url)
        assert status == 4, (status, err)
        assert err.endswith(b"omniurl: the transfer took longer than --max-time 1.5 s\n"), err
        assert took < 1.5 + 2.0, took
        status, out, err = await omniurl("get", "-m", "1.5", "--json", "--script", str(script), url)
        assert status == 4, err
        assert json.loads(out)["error"]["message"].endswith("--max-time 1.5 s"), out
    finally:
        server.close()
        await server.wait_closed()
