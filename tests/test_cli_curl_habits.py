"""``omniurl get`` side by side with curl: file modes, options anywhere, curl's common flags,
messages a new user reads (issue 22, items 1-10).  Each runs ``python -m omniurl`` in a
subprocess against omniurl's own servers on loopback."""

from __future__ import annotations

import contextlib
import json
import os
import stat
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio
from _ftphttp import run_cli
from helpers import on_a_terminal

from omniurl.testservers import RunningServer
from omniurl.testservers.ftp import start_ftp
from omniurl.testservers.http import start_http


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "srv" / "pub").mkdir(parents=True)
    (tmp_path / "srv" / "pub" / "a.txt").write_bytes(b"alpha\n")
    (tmp_path / "srv" / "pub" / "b.txt").write_bytes(b"beta\n")
    (tmp_path / "out").mkdir()
    return tmp_path


@pytest_asyncio.fixture
async def web(root: Path) -> AsyncIterator[RunningServer]:
    server = await start_http(root / "srv")
    try:
        yield server
    finally:
        await server.close()


@pytest_asyncio.fixture
async def ftp(root: Path) -> AsyncIterator[RunningServer]:
    server = await start_ftp(root / "srv", users={"joe": "pw"})
    try:
        yield server
    finally:
        await server.close()


@contextlib.contextmanager
def umask(mask: int) -> Iterator[None]:
    """The test process's umask (a subprocess inherits it) set to ``mask`` meanwhile."""
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# --- 1. batch files get a new file's mode ------------------------------------------------


@pytest.mark.parametrize(
    "extra",
    [["-O"], ["-O", "-Z"], ["--output-dir", "."]],
    ids=["O", "OZ", "output-dir"],
)
async def test_batch_files_get_the_umask_mode_not_0600(
    web: RunningServer, root: Path, extra: list[str]
) -> None:
    out = root / "out"
    with umask(0o027):
        status, _out, err = await run_cli(
            "get", *extra, f"http://{web.netloc}/pub/a.txt", f"http://{web.netloc}/pub/b.txt",
            cwd=out,
        )  # fmt: skip
    assert status == 0, err
    assert {p.name: oct(mode(p)) for p in out.iterdir()} == {
        "a.txt": oct(0o640),
        "b.txt": oct(0o640),
    }


async def test_fetch_many_files_get_the_umask_mode(web: RunningServer, root: Path) -> None:
    from omniurl.batch import fetch_many

    with umask(0o022):
        rows = [
            r
            async for r in fetch_many(
                [f"http://{web.netloc}/pub/a.txt", f"http://{web.netloc}/pub/a.txt"],
                output_dir=root / "out",
            )
        ]
    assert all(r.ok for r in rows)
    assert sorted((p.name, oct(mode(p))) for p in (root / "out").iterdir()) == [
        ("a.1.txt", oct(0o644)),
        ("a.txt", oct(0o644)),
    ]


async def test_a_replaced_file_keeps_its_mode(web: RunningServer, root: Path) -> None:
    target = root / "out" / "a.txt"
    target.write_bytes(b"old")
    target.chmod(0o600)
    with umask(0o022):
        status, _out, _err = await run_cli(
            "get", "-o", str(target), f"http://{web.netloc}/pub/a.txt"
        )
    assert status == 0
    assert (target.read_bytes(), oct(mode(target))) == (b"alpha\n", oct(0o600))


# --- 2. options anywhere; -o/-O paired with URLs in order ----------------------------------


async def test_options_between_urls(web: RunningServer) -> None:
    status, out, err = await run_cli(
        "get", f"http://{web.netloc}/pub/a.txt", "-s", f"http://{web.netloc}/pub/b.txt"
    )
    assert (status, out, err) == (0, b"alpha\nbeta\n", b"")


async def test_o_pairs_with_urls_in_order_as_curl(web: RunningServer, root: Path) -> None:
    out = root / "out"
    status, stdout, err = await run_cli(
        "get", "-o", "first", f"http://{web.netloc}/pub/a.txt",
        "-o", "second", f"http://{web.netloc}/pub/b.txt",
        f"http://{web.netloc}/pub/a.txt",  # no -o of its own: standard output
        cwd=out,
    )  # fmt: skip
    assert status == 0, err
    assert stdout == b"alpha\n"
    assert {p.name: p.read_bytes() for p in out.iterdir()} == {
        "first": b"alpha\n",
        "second": b"beta\n",
    }
    assert b"3 URLs: 3 ok, 0 failed" in err


async def test_capital_o_pairs_and_remote_name_all(web: RunningServer, root: Path) -> None:
    out = root / "out"
    a, b = f"http://{web.netloc}/pub/a.txt", f"http://{web.netloc}/pub/b.txt"
    status, stdout, _err = await run_cli("get", "-O", a, "-o", "bee", b, cwd=out)
    assert (status, stdout) == (0, b"")
    assert sorted(p.name for p in out.iterdir()) == ["a.txt", "bee"]
    for p in out.iterdir():
        p.unlink()
    status, stdout, _err = await run_cli("get", "--remote-name-all", a, b, cwd=out)
    assert (status, stdout) == (0, b"")
    assert sorted(p.name for p in out.iterdir()) == ["a.txt", "b.txt"]


# --- 3. curl's habits --------------------------------------------------------------------


async def test_curl_flags_are_accepted(web: RunningServer) -> None:
    status, out, err = await run_cli(
        "get", "-L", "-k", "--max-redirs", "3", "-s", f"http://{web.netloc}/pub/a.txt"
    )
    assert (status, out, err) == (0, b"alpha\n", b"")


async def test_fail_exits_22_without_body(web: RunningServer) -> None:
    status, out, _err = await run_cli("get", "-f", f"http://{web.netloc}/missing")
    assert (status, out) == (22, b"")
    status, out, _err = await run_cli("get", f"http://{web.netloc}/missing")
    assert (status, out) == (5, b"not found\n")  # the error page, as curl (issue 31 item 4)


async def test_write_out_reports_each_transfer(web: RunningServer) -> None:
    fmt = r"%{http_code} %{size_download} %{url_effective} %{exitcode}\n%{stderr}t=%{time_total}"
    status, out, err = await run_cli(
        "get", "-s", "-o", "/dev/null", "-w", fmt, f"http://{web.netloc}/pub/a.txt"
    )
    assert status == 0
    assert out == f"200 6 http://{web.netloc}/pub/a.txt 0\n".encode()
    assert err.startswith(b"t=0.") and len(err) == len(b"t=0.000000")
    status, out, _err = await run_cli(
        "get", "-s", "-w", "%{http_code}:%{exitcode}", f"http://{web.netloc}/missing"
    )
    assert (status, out) == (5, b"not found\n404:5")


async def test_unknown_curl_flag_gets_one_line(web: RunningServer) -> None:
    status, out, err = await run_cli("get", "--tcp-fastopen", f"http://{web.netloc}/pub/a.txt")
    assert (status, out) == (2, b"")
    assert err.count(b"\n") == 1
    assert err.startswith(b"omniurl: --tcp-fastopen is not an option of omniurl get")
    assert b"usage:" not in err


async def test_output_dir_missing_is_refused_before_fetching(
    web: RunningServer, root: Path
) -> None:
    missing = root / "out" / "nope"
    status, _out, err = await run_cli(
        "get", "--output-dir", str(missing), f"http://{web.netloc}/pub/a.txt"
    )
    assert status == 3
    assert (
        err
        == f"omniurl: --output-dir {missing}: no such folder (--create-dirs creates it)\n".encode()
    )
    assert web.info["requests"] == []  # nothing was fetched
    status, _out, err = await run_cli(
        "get", "--create-dirs", "--output-dir", str(missing), f"http://{web.netloc}/pub/a.txt"
    )
    assert status == 0, err
    assert (missing / "a.txt").read_bytes() == b"alpha\n"


async def test_create_dirs_for_o(web: RunningServer, root: Path) -> None:
    target = root / "out" / "x" / "y" / "a"
    status, _out, err = await run_cli("get", "-o", str(target), f"http://{web.netloc}/pub/a.txt")
    assert status == 23 and b"does not exist (--create-dirs makes it)" in err
    status, _out, err = await run_cli(
        "get", "--create-dirs", "-o", str(target), f"http://{web.netloc}/pub/a.txt"
    )
    assert (status, target.read_bytes()) == (0, b"alpha\n")


# --- 7. -I: header names as received, and a 404's head too ---------------------------------


async def test_head_keeps_header_case_and_shows_a_404(web: RunningServer) -> None:
    status, out, _err = await run_cli("get", "-I", f"http://{web.netloc}/pub/a.txt")
    assert status == 0
    lines = out.decode().split("\r\n")
    assert lines[0] == "HTTP/1.1 200 OK"
    assert "Content-Length: 6" in lines
    status, out, _err = await run_cli("get", "-I", f"http://{web.netloc}/missing")
    assert status == 5
    assert out.startswith(b"HTTP/1.1 404 Not Found\r\n")
    assert b"\r\nContent-Length: " in out and out.endswith(b"\r\n\r\n")


# --- 8. messages: credentials, IPv6, batch errors, SIGPIPE ---------------------------------


async def test_http_wrong_password_is_not_a_missing_one(root: Path) -> None:
    web = await start_http(root / "srv", credentials=("alice", "pw"))
    try:
        url = f"http://{web.netloc}/secret/a"  # (the server's guarded folder)
        status, _out, none = await run_cli("get", url)
        assert status == 7
        _status, _out, wrong = await run_cli("get", "-u", "alice:bad", url)
        status, out, _err = await run_cli("get", "-u", "alice:pw", url)
        assert (status, out) == (0, b"secret for alice\n")
    finally:
        await web.close()
    assert b"the server needs credentials" in none
    assert b"the server refused the credentials (401" in wrong


async def test_ftp_wrong_password_is_not_anonymous_refused(ftp: RunningServer) -> None:
    status, _out, err = await run_cli("get", f"ftp://joe:bad@{ftp.netloc}/pub/a.txt")
    assert status == 7
    assert b"the server refused the credentials of joe: 530" in err


async def test_ftp_anonymous_refused_says_credentials_are_needed() -> None:
    import asyncio

    async def no_anonymous(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"220 hello\r\n")
        while line := await reader.readline():
            if line.startswith(b"USER"):
                writer.write(b"331 password please\r\n")
            elif line.startswith(b"PASS"):
                writer.write(b"530 Login incorrect.\r\n")
            else:
                writer.write(b"221 bye\r\n")
                break
            await writer.drain()
        writer.close()

    server = await asyncio.start_server(no_anonymous, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        status, _out, err = await run_cli("get", f"ftp://127.0.0.1:{port}/a.txt")
    finally:
        server.close()
        await server.wait_closed()
    assert status == 7
    assert b"the server refused anonymous login, it needs credentials" in err


async def test_ipv6_address_is_bracketed_in_errors() -> None:
    import socket

    with socket.socket(socket.AF_INET6) as s:  # a port nothing listens on
        try:
            s.bind(("::1", 0))
        except OSError:
            pytest.skip("no IPv6 loopback here")
        port = s.getsockname()[1]
    status, _out, err = await run_cli("get", f"ftp://[::1]:{port}/x")
    assert status == 4
    assert err == f"omniurl: cannot connect to [::1]:{port}: Connection refused\n".encode()


async def test_batch_error_names_its_url_once(web: RunningServer, root: Path) -> None:
    url = f"http://{web.netloc}/missing"
    status, _out, err = await run_cli("get", "--output-dir", str(root / "out"), url, url)
    assert status == 5
    assert err.count(url.encode()) == 2  # once per failed URL
    assert f"{url}: {url}".encode() not in err


async def test_sigpipe_exits_23_without_traceback(root: Path) -> None:
    import asyncio
    import sys

    from _ftphttp import ROOT

    big = root / "srv" / "pub" / "big.bin"
    big.write_bytes(b"x" * 4_000_000)
    web = await start_http(root / "srv")
    try:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        proc = await asyncio.create_subprocess_shell(
            f"{sys.executable} -m omniurl get http://{web.netloc}/pub/big.bin | head -c 10 "
            "> /dev/null; echo ${PIPESTATUS[0]}",
            executable="/bin/bash",
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
        )
        out, err = await asyncio.wait_for(proc.communicate(), 30)
    finally:
        await web.close()
    assert out == b"23\n"
    assert b"Traceback" not in err and b"BrokenPipe" not in err


# --- 4. a raw space or a stray % is read as a browser does -------------------------------


async def test_raw_space_and_stray_percent_are_encoded_with_a_note(
    web: RunningServer, root: Path
) -> None:
    (root / "srv" / "pub" / "a b.txt").write_bytes(b"space\n")
    (root / "srv" / "pub" / "100%").write_bytes(b"percent\n")
    status, out, err = await run_cli("get", "-v", f"http://{web.netloc}/pub/a b.txt")
    assert (status, out) == (0, b"space\n")
    assert err.startswith(
        b"omniurl: note: the URL has a raw space or a '%' that starts no escape; using "
        + f"http://{web.netloc}/pub/a%20b.txt".encode()
    )
    assert b"> GET /pub/a%20b.txt HTTP/1.1" in err
    status, out, _err = await run_cli("get", "--json", f"http://{web.netloc}/pub/100%")
    assert status == 0
    assert json.loads(out)["url"] == f"http://{web.netloc}/pub/100%25"
    manifest = root / "m.jsonl"
    status, _out, _err = await run_cli(
        "get", "--manifest", str(manifest), f"http://{web.netloc}/pub/a b.txt"
    )
    assert status == 0
    assert json.loads(manifest.read_text())["url"] == f"http://{web.netloc}/pub/a%20b.txt"


async def test_strict_still_refuses_a_raw_space() -> None:
    status, out, err = await run_cli("get", "--strict", "http://example.org/a b")
    assert (status, out) == (2, b"")
    assert b"character ' ' cannot appear in the path" in err


# --- 10. serve gateway on a busy port: one line ------------------------------------------


async def test_serve_gateway_on_a_busy_port_is_one_line() -> None:
    import socket

    pytest.importorskip("uvicorn")
    with socket.create_server(("127.0.0.1", 0)) as busy:
        port = busy.getsockname()[1]
        status, _out, err = await run_cli("serve", "gateway", "--port", str(port), timeout=20)
    assert status == 1
    said = f"omniurl: cannot serve the gateway on 127.0.0.1:{port}: Address already in use\n"
    assert err == said.encode()


# --- 9. telnet with standard input at its end --------------------------------------------


async def test_telnet_ends_when_stdin_ends_though_the_server_stays() -> None:
    import asyncio
    import time

    held: list[asyncio.StreamWriter] = []

    async def deaf(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"banner of a server that ignores the end of input\r\n")
        await writer.drain()
        held.append(writer)  # never closed by the server, never another byte

    server = await asyncio.start_server(deaf, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    started = time.monotonic()
    try:
        status, out, err = await run_cli("get", f"telnet://127.0.0.1:{port}/", timeout=20)
    finally:
        for writer in held:
            writer.close()
        server.close()
        await server.wait_closed()
    assert status == 0, err
    assert out == b"banner of a server that ignores the end of input\r\n"
    assert time.monotonic() - started < 10  # the read timeout is 30 s


# --- 5. a stalled transfer looks stalled; one unit system --------------------------------


def test_rate_falls_and_says_stalled_when_bytes_stop() -> None:
    from omniurl.cli.progress import Rate

    rate = Rate(started=100.0)
    rate.add(101.0, 1 << 20)  # 1 MiB in the first second
    assert rate.text(101.0) == "1.0 MiB/s"
    falling = [rate.per_second(t) for t in (101.0, 102.0, 103.0)]
    assert falling == sorted(falling, reverse=True) and falling[-1] < falling[0]
    assert rate.text(102.9).endswith("KiB/s")  # (slower, not yet stalled)
    assert rate.text(104.2) == "stalled 3 s"
    assert rate.per_second(107.0) == 0.0  # nothing in the last 5 s
    rate.add(108.0, 2 << 20)
    assert rate.text(108.0).endswith("KiB/s")  # 1 MiB over the last 5 s: 204.8 KiB/s


async def test_progress_bar_of_a_stalled_transfer(root: Path) -> None:
    import asyncio

    async def stalling(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 1048576\r\n\r\n" + b"x" * 204800)
        await writer.drain()
        await asyncio.sleep(4.5)  # nothing more for a while, then the rest
        writer.write(b"x" * (1048576 - 204800))
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(stalling, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        status, out = await asyncio.to_thread(
            on_a_terminal,
            "get",
            "-o",
            "big",
            f"http://127.0.0.1:{port}/big",
            cwd=root / "out",
            columns=120,
        )
    finally:
        server.close()
        await server.wait_closed()
    assert status == 0, out
    assert (root / "out" / "big").stat().st_size == 1048576
    assert b"stalled 3 s" in out or b"stalled 4 s" in out
    assert b"0:00:04" in out  # the elapsed time goes on
    assert b"/1.0 MiB" in out and b" MB" not in out  # the bar's units are the summary's
    assert b"omniurl: 1.0 MiB in " in out


# --- 6. FTP listings on a terminal: type, size and date ----------------------------------


async def test_ftp_listing_on_a_terminal_has_size_and_date(ftp: RunningServer, root: Path) -> None:
    import asyncio

    status, out = await asyncio.to_thread(
        on_a_terminal, "get", f"ftp://{ftp.netloc}/pub/", cwd=root / "out", columns=120
    )
    assert status == 0, out
    lines = {line.split()[-1]: line for line in out.decode().splitlines()[1:]}
    a = lines[f"ftp://{ftp.netloc}/pub/a.txt"]
    when = time.strftime(  # (the server gives MLSD's modify fact in UTC)
        "%Y-%m-%d %H:%M", time.gmtime((root / "srv" / "pub" / "a.txt").stat().st_mtime)
    )
    assert a.split(None, 5)[:5] == ["file", "6", "B", *when.split()]
    assert " a.txt " in a


async def test_write_out_for_each_url_of_a_saved_batch(web: RunningServer, root: Path) -> None:
    a, missing = f"http://{web.netloc}/pub/a.txt", f"http://{web.netloc}/missing"
    status, out, _err = await run_cli(
        "get", "-O", "-w", "%{http_code} %{size_download} %{url_effective}\\n", a, missing,
        cwd=root / "out",
    )  # fmt: skip
    assert status == 5
    # the 404's page is saved and counted, as curl's -O saves and counts it (issue 31 item 4)
    assert out.decode().splitlines() == [f"200 6 {a}", f"404 10 {missing}"]
    assert (root / "out" / "missing").stat().st_size == 10


async def test_max_redirs_bounds_the_redirects(root: Path) -> None:
    routes = {
        "/one": (302, [("Location", "/two")], b""),
        "/two": (302, [("Location", "/pub/a.txt")], b""),
    }
    web = await start_http(root / "srv", routes=routes)
    try:
        url = f"http://{web.netloc}/one"
        status, out, _err = await run_cli("get", "-L", "--max-redirs", "2", url)
        assert (status, out) == (0, b"alpha\n")
        status, out, err = await run_cli("get", "--max-redirs", "1", url)
    finally:
        await web.close()
    assert (status, out) == (6, b"")
    assert b"more than 1 redirects" in err
