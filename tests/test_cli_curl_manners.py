"""``omniurl get`` beside curl, what a new user met (issue 31, items 1, 4-12, 23): each test
runs ``python -m omniurl`` in a subprocess against servers on loopback and judges the exit
status, the files, the bytes on the wire and what is on the screen."""

from __future__ import annotations

import ast
import asyncio
import contextlib
import json
import re
import resource
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from _ftphttp import run_cli
from helpers import ROOT, on_a_terminal, throwaway_pki

from omniurl.testservers import RunningServer
from omniurl.testservers.gopher import start as start_gopher
from omniurl.testservers.http import start_http

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "srv" / "dir").mkdir(parents=True)
    (tmp_path / "srv" / "hello.txt").write_bytes(b"hello\n")
    (tmp_path / "srv" / "dir" / "x.txt").write_bytes(b"x\n")
    (tmp_path / "srv" / "big.bin").write_bytes(bytes(range(256)) * 400)  # 100 KiB
    (tmp_path / "out").mkdir()
    return tmp_path


@pytest_asyncio.fixture
async def web(root: Path) -> AsyncIterator[RunningServer]:
    routes = {
        "/gone": (404, [("Content-Type", "text/html")], b"<h1>no such page</h1>\n"),
        "/moved": (301, [("Location", "/hello.txt")], b"moved\n"),
        "/lost": (302, [("Location", "/gone")], b""),
    }
    server = await start_http(root / "srv", routes=routes)
    try:
        yield server
    finally:
        await server.close()


@pytest_asyncio.fixture
async def gopher(root: Path) -> AsyncIterator[RunningServer]:
    server = await start_gopher(root / "srv")
    try:
        yield server
    finally:
        await server.close()


def requests_of(server: RunningServer) -> list[tuple[bytes, bytes]]:
    return [(method, target) for method, target, _headers in server.info["requests"]]


# --- 1. -o with no file name after it -------------------------------------------------------


async def test_o_followed_by_a_url_is_refused_and_nothing_is_fetched(
    web: RunningServer, root: Path
) -> None:
    url = f"http://{web.netloc}/hello.txt"
    status, out, err = await run_cli("get", "-o", url, cwd=root / "out")
    assert (status, out) == (2, b"")
    assert err.decode() == (
        f"omniurl: no URL specified: -o took {url} as its file name (write -o FILE URL, or "
        "-O URL to name the file after the URL)\n"
    )
    assert list((root / "out").iterdir()) == []
    assert requests_of(web) == []


# --- 4. an HTTP error's body is the user's -----------------------------------------------


async def test_a_404_body_is_printed_and_the_typed_status_kept(web: RunningServer) -> None:
    status, out, err = await run_cli("get", f"http://{web.netloc}/gone")
    assert (status, out) == (5, b"<h1>no such page</h1>\n")
    assert err == f"omniurl: http://{web.netloc}/gone: the server answered 404 Not Found\n".encode()


async def test_a_404_body_is_saved_with_o(web: RunningServer, root: Path) -> None:
    target = root / "out" / "page.html"
    status, out, _err = await run_cli("get", "-o", str(target), f"http://{web.netloc}/gone")
    assert (status, out) == (5, b"")
    assert target.read_bytes() == b"<h1>no such page</h1>\n"


async def test_fail_writes_nothing_and_exits_22(web: RunningServer, root: Path) -> None:
    target = root / "out" / "page.html"
    status, out, _err = await run_cli("get", "-f", "-o", str(target), f"http://{web.netloc}/gone")
    assert (status, out) == (22, b"")
    assert list((root / "out").iterdir()) == []
    status, out, _err = await run_cli("get", "-f", f"http://{web.netloc}/gone")
    assert (status, out) == (22, b"")


# --- 6. -I on a redirect: the redirect's head; with -L each hop's ---------------------------

MOVED_HEAD = (
    b"HTTP/1.1 301 Moved Permanently\r\nContent-Length: 6\r\nLocation: /hello.txt\r\n"
    b"Content-Type: text/plain; charset=utf-8\r\n\r\n"
)


async def test_head_of_a_redirect_shows_the_redirect(web: RunningServer) -> None:
    status, out, err = await run_cli("get", "-I", f"http://{web.netloc}/moved")
    assert (status, out, err) == (0, MOVED_HEAD, b"")
    assert requests_of(web) == [(b"HEAD", b"/moved")]


async def test_head_with_location_shows_every_hop(web: RunningServer) -> None:
    status, out, err = await run_cli("get", "-I", "-L", f"http://{web.netloc}/moved")
    assert status == 0, err
    assert out.startswith(MOVED_HEAD + b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\n")
    assert out.endswith(b"\r\n\r\n") and out.count(b"\r\n\r\n") == 2
    assert requests_of(web) == [(b"HEAD", b"/moved"), (b"HEAD", b"/hello.txt")]


async def test_head_with_location_to_a_404_shows_both_heads(web: RunningServer) -> None:
    status, out, _err = await run_cli("get", "-I", "-L", f"http://{web.netloc}/lost")
    assert status == 5
    assert out.startswith(b"HTTP/1.1 302 Found\r\nContent-Length: 0\r\nLocation: /gone\r\n")
    assert b"\r\n\r\nHTTP/1.1 404 Not Found\r\n" in out and out.endswith(b"\r\n\r\n")
    assert requests_of(web) == [(b"HEAD", b"/lost"), (b"HEAD", b"/gone")]


# --- 7. -w: curl's common variables, measured ----------------------------------------------

VARIABLES = [
    "content_type",
    "num_redirects",
    "speed_download",
    "speed_upload",
    "time_namelookup",
    "time_connect",
    "time_appconnect",
    "time_pretransfer",
    "time_starttransfer",
    "time_redirect",
    "time_total",
    "size_download",
    "size_upload",
    "size_header",
    "size_request",
    "http_code",
    "response_code",
    "url_effective",
    "url",
    "remote_ip",
    "remote_port",
    "local_ip",
    "local_port",
    "scheme",
    "filename_effective",
    "exitcode",
    "errormsg",
    "num_connects",
    "redirect_url",
    "method",
    "http_version",
    "num_headers",
]


async def test_write_out_knows_curls_common_variables(web: RunningServer, root: Path) -> None:
    fmt = "".join(f"{name}=%{{{name}}}\\n" for name in VARIABLES)
    target = root / "out" / "h.txt"
    status, out, err = await run_cli(
        "get", "-s", "-o", str(target), "-w", fmt, f"http://{web.netloc}/moved"
    )
    assert (status, err) == (0, b"")
    got = dict(line.split("=", 1) for line in out.decode().splitlines())
    assert sorted(got) == sorted(VARIABLES)
    port = str(web.port)
    _status, final_head, _err = await run_cli("get", "-I", f"http://{web.netloc}/hello.txt")
    measured = ("time_", "speed_download", "local_")
    assert {k: got[k] for k in got if not k.startswith(measured)} == {
        "content_type": "text/plain",
        "num_redirects": "1",
        "speed_upload": "0",
        "size_download": "6",
        "size_upload": "0",
        # both heads as received, CR LF each line and the blank line after each head
        "size_header": str(len(MOVED_HEAD) + len(final_head)),
        "size_request": got["size_request"],
        "http_code": "200",
        "response_code": "200",
        "url_effective": f"http://{web.netloc}/hello.txt",
        "url": f"http://{web.netloc}/moved",
        "remote_ip": "127.0.0.1",
        "remote_port": port,
        "scheme": "HTTP",
        "filename_effective": str(target),
        "exitcode": "0",
        "errormsg": "",
        # the redirect to the same server rides the connection that answered it, as
        # curl's (cd7a9ac): one connect for the two requests
        "num_connects": "1",
        "redirect_url": "",
        "method": "GET",
        "http_version": "1.1",
        "num_headers": "4",
    }
    assert got["local_ip"] == "127.0.0.1" and 0 < int(got["local_port"]) < 65536
    # The final hop rode the redirect's connection: no lookup, no connect of its own (0, as
    # a batch's reused connection, test_write_out_in_a_batch_measures_each_transfer); the
    # rest measured, in the order of the phases, after the redirect's time.
    assert float(got["time_namelookup"]) == float(got["time_connect"]) == 0
    times = [float(got[f"time_{p}"]) for p in ("redirect", "pretransfer", "starttransfer")]
    times += [float(got["time_total"])]
    assert times == sorted(times) and times[0] > 0
    assert float(got["time_appconnect"]) == 0.0  # no TLS
    assert abs(int(got["speed_download"]) - 6 / float(got["time_total"])) <= 1
    assert int(got["size_request"]) > 2 * len(b"GET /moved HTTP/1.1\r\n")


async def test_write_out_in_a_batch_measures_each_transfer(web: RunningServer, root: Path) -> None:
    """One client for the batch: the second URL rides the first's kept connection, so it
    makes no connection (curl's num_connects 0) but still has its addresses and times."""
    fmt = "%{num_connects} %{time_connect} %{time_pretransfer} %{time_starttransfer} "
    fmt += "%{remote_ip} %{remote_port} %{url}\\n"
    status, out, err = await run_cli(
        "get", "-s", "--output-dir", str(root / "out"), "-w", fmt,
        f"http://{web.netloc}/hello.txt", f"http://{web.netloc}/dir/x.txt",
    )  # fmt: skip
    assert status == 0, err
    first, second = (line.split() for line in out.decode().splitlines())
    assert first[0] == "1" and 0 < float(first[1]) <= float(first[2]) <= float(first[3])
    assert second[0] == "0" and float(second[1]) == 0 < float(second[2]) <= float(second[3])
    for row in (first, second):
        assert row[4:6] == ["127.0.0.1", str(web.port)]
    assert [first[6], second[6]] == [
        f"http://{web.netloc}/hello.txt",
        f"http://{web.netloc}/dir/x.txt",
    ]


async def test_write_out_times_a_tls_handshake(root: Path) -> None:
    context, ca = throwaway_pki(root)
    server = await start_http(root / "srv", tls=context)
    try:
        status, out, err = await run_cli(
            "get", "-s", "-o", "/dev/null", "--cacert", ca, "-w",
            "%{time_connect} %{time_appconnect} %{time_pretransfer} %{scheme} %{http_code}",
            f"https://localhost:{server.port}/hello.txt",
        )  # fmt: skip
    finally:
        await server.close()
    assert status == 0, err
    connect, appconnect, pretransfer, scheme, code = out.decode().split()
    assert 0 < float(connect) < float(appconnect) <= float(pretransfer)
    assert (scheme, code) == ("HTTPS", "200")


async def test_write_out_of_an_unfollowed_redirect(web: RunningServer) -> None:
    status, out, err = await run_cli(
        "get", "-sI", "-w", "%{http_code} %{redirect_url} %{size_header} %{num_redirects}",
        f"http://{web.netloc}/moved",
    )  # fmt: skip
    assert status == 0, err
    assert out == MOVED_HEAD + f"301 http://{web.netloc}/hello.txt {len(MOVED_HEAD)} 0".encode()


# --- 5. write failures: 23 and the OS's own reason ------------------------------------------


@pytest.mark.parametrize(
    ("target", "reason"),
    [
        ("/dev/full", "No space left on device"),
        ("{root}/missing/x", "the folder {root}/missing does not exist (--create-dirs makes it)"),
        ("{root}/out", "Is a directory"),
    ],
    ids=["dev-full", "missing-folder", "a-folder"],
)
async def test_write_failures_exit_23_with_the_reason(
    web: RunningServer, root: Path, target: str, reason: str
) -> None:
    target = target.format(root=root)
    status, _out, err = await run_cli("get", "-o", target, f"http://{web.netloc}/hello.txt")
    assert status == 23
    assert err.decode() == f"omniurl: cannot write {target}: {reason.format(root=root)}\n"
    assert list((root / "out").iterdir()) == []  # no temporary file left behind


async def test_a_kernel_file_says_what_the_os_says_not_no_such_file(web: RunningServer) -> None:
    """/proc takes no new file (ENOENT for a temporary file there): /proc/version is
    written into, and the OS's answer to that is the error (EIO as root, EACCES else)."""
    status, _out, err = await run_cli(
        "get", "-o", "/proc/version", f"http://{web.netloc}/hello.txt"
    )
    assert status == 23
    assert re.fullmatch(
        rb"omniurl: cannot write /proc/version: (Input/output error|Permission denied)\n", err
    ), err


async def test_standard_output_on_a_full_disk_exits_23(web: RunningServer) -> None:
    with open("/dev/full", "wb") as full:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "omniurl", "get", f"http://{web.netloc}/hello.txt",
            stdout=full, stderr=subprocess.PIPE, cwd=ROOT,
        )  # fmt: skip
        _out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 23
    assert err == b"omniurl: cannot write standard output: No space left on device\n"


async def test_a_file_size_limit_exits_23(web: RunningServer, root: Path) -> None:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (50_000, 50_000))

    target = root / "out" / "big.bin"
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "omniurl", "get", "-o", str(target),
        f"http://{web.netloc}/big.bin",
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, preexec_fn=limit,
    )  # fmt: skip
    _out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 23
    assert err == f"omniurl: cannot write {target}: File too large\n".encode()
    assert list((root / "out").iterdir()) == []


# --- 8. the progress bar: the terminal's width, a percentage and the time left ---------------


@contextlib.asynccontextmanager
async def trickle(size: int, pieces: int, pause: float) -> AsyncIterator[int]:
    """A server sending a body of ``size`` bytes (Content-Length) in ``pieces``, ``pause``
    seconds apart: long enough for the progress line to be drawn several times."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError, asyncio.IncompleteReadError):
            await reader.readuntil(b"\r\n\r\n")
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % size)
            for _ in range(pieces):
                writer.write(b"x" * (size // pieces))
                await writer.drain()
                await asyncio.sleep(pause)
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(server.wait_closed(), 5)


@pytest.mark.parametrize("columns", [80, 50])
async def test_progress_fits_the_terminal_with_percentage_and_time_left(
    root: Path, columns: int
) -> None:
    async with trickle(1 << 20, 8, 0.3) as port:
        status, out = await asyncio.to_thread(
            on_a_terminal, "get", "-o", "big", f"http://127.0.0.1:{port}/a/rather/long/path/to/"
            "the/file/that/is/downloaded/here.bin", cwd=root / "out", columns=columns,
        )  # fmt: skip
    assert status == 0, out
    assert (root / "out" / "big").stat().st_size == 1 << 20
    drawn, _sep, summary = out.rpartition(b"\r\x1b[K")
    assert b"\n" not in drawn  # one line, redrawn in place: never wrapped onto a second
    lines = [line.removesuffix(b"\x1b[K") for line in drawn.split(b"\r") if line]
    assert len(lines) >= 5
    assert all(len(line.decode()) <= columns - 1 for line in lines), lines
    assert all(re.search(rb"\b\d{1,3}% ", line) for line in lines), lines
    assert all(b"eta " in line for line in lines), lines
    assert summary.startswith(b"omniurl: 1.0 MiB in ")


@pytest.mark.parametrize("width", [200, 120, 80, 60, 40, 30, 20, 10])
def test_progress_line_never_passes_the_width(width: int) -> None:
    from omniurl.cli.progress import progress_line

    known = progress_line(
        name="http://h/x/file.bin", done=400_000, total=1 << 20, rate="343.4 KiB/s",
        per_second=351_000.0, elapsed=1.2, width=width,
    )  # fmt: skip
    unknown = progress_line(
        name="file.bin", done=400_000, total=None, rate="stalled 3 s", per_second=0.0,
        elapsed=5, width=width,
    )  # fmt: skip
    assert len(known) <= width - 1 and len(unknown) <= width - 1
    assert " 38%" in known  # the percentage goes last
    if width >= 20:
        assert "eta 0:00:02" in known  # (648,576 bytes left at 351,000 a second)
    if width >= 80:
        assert known.startswith((" 38% [", "http://h/x/file.bin  38% [")), known
        assert "0.4/1.0 MiB 343.4 KiB/s eta 0:00:02 0:00:01" in known


async def test_progress_of_a_resumed_transfer_counts_the_kept_bytes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from types import SimpleNamespace

    from omniurl.cli.progress import Progress
    from omniurl.resolvers.resource import Resumed
    from omniurl.resolvers.resume import Outcome

    resource = SimpleNamespace(
        url="http://h/big.bin", resumed=Resumed(Outcome.APPEND, 600_000), size=448_576,
        total=1 << 20, bytes_read=100_000,
    )  # fmt: skip
    bar = Progress(resource)  # type: ignore[arg-type]
    bar.stop()
    assert " 66% [" in capsys.readouterr().err  # (600,000 kept + 100,000) of 1 MiB


# --- 9. a URL typed without its scheme ------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("localhost:8081/x", "http://localhost:8081/x"),
        ("[::1]:8081/x", "http://[::1]:8081/x"),
        ("ftp.example.org/pub/", "ftp://ftp.example.org/pub/"),
        ("example.org/a", "http://example.org/a"),
    ],
)
async def test_no_scheme_asks_did_you_mean(typed: str, meant: str) -> None:
    status, out, err = await run_cli("get", typed)
    assert (status, out) == (2, b"")
    assert err.decode().startswith(f"omniurl: no scheme: did you mean {meant} ? ")


async def test_no_scheme_in_a_batch_is_a_row_asking_did_you_mean(
    web: RunningServer, root: Path
) -> None:
    status, _out, err = await run_cli(
        "get", "-Z", "--output-dir", str(root / "out"), "--manifest", str(root / "m.jsonl"),
        f"localhost:{web.port}/hello.txt", f"http://{web.netloc}/hello.txt",
    )  # fmt: skip
    assert status == 2
    assert f"did you mean http://localhost:{web.port}/hello.txt ?".encode() in err
    rows = [json.loads(line) for line in (root / "m.jsonl").read_text().splitlines()]
    failed = next(row for row in rows if not row["ok"])
    assert failed["exit_status"] == 2 and failed["error_message"].startswith("no scheme: did")
    assert [p.name for p in (root / "out").iterdir()] == ["hello.txt"]
    assert requests_of(web) == [(b"GET", b"/hello.txt")]


# --- 10. -C on a scheme that cannot resume --------------------------------------------------


async def test_continue_at_on_gopher_says_gopher_cannot_resume(
    gopher: RunningServer, root: Path
) -> None:
    url = f"gopher://{gopher.netloc}/0/hello.txt"
    status, _out, err = await run_cli("get", "-C", "5", "-o", "y.txt", url, cwd=root / "out")
    assert status == 2
    assert err.decode() == (
        f"omniurl: cannot resume {url} at byte 5: Gopher (RFC 1436) has no resume: a selector "
        "always returns the whole item; fetch it whole without -C\n"
    )
    assert list((root / "out").iterdir()) == []


# --- 11. more -o/-O than URLs -------------------------------------------------------------


async def test_more_outputs_than_urls_warns(web: RunningServer, root: Path) -> None:
    status, _out, err = await run_cli(
        "get", "-O", f"http://{web.netloc}/hello.txt", "-o", "extra.txt", cwd=root / "out"
    )
    assert status == 0
    assert err == (
        b"omniurl: warning: Got more output options than URLs: -o extra.txt goes with no URL "
        b"and is not written\n"
    )
    assert {p.name: p.read_bytes() for p in (root / "out").iterdir()} == {"hello.txt": b"hello\n"}


# --- 12. a -Z batch's status: the first failure in input order ------------------------------


@contextlib.asynccontextmanager
async def slow_404(delay: float) -> AsyncIterator[int]:
    """A server answering every request with a 404 after ``delay`` seconds."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError, asyncio.IncompleteReadError):
            await reader.readuntil(b"\r\n\r\n")
            await asyncio.sleep(delay)
            writer.write(
                b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            )
            await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
        await server.wait_closed()


async def test_parallel_batch_status_is_the_first_failure_in_input_order(
    web: RunningServer, root: Path
) -> None:
    async with slow_404(0.5) as port:
        lines = [f"http://{web.netloc}/hello.txt"] * 4 + [f"http://127.0.0.1:{port}/slow"]
        lines += [f"http://{web.netloc}/hello.txt"] * 4 + ["http://[::1/bad"]
        (root / "urls.txt").write_text("\n".join(lines) + "\n")
        status, _out, err = await run_cli(
            "get", "-Z", "-i", str(root / "urls.txt"), "--manifest", str(root / "m.jsonl"),
            cwd=root / "out",
        )  # fmt: skip
    assert status == 5, err  # line 5's 404, though line 10's invalid URL (2) ended first
    rows = (root / "m.jsonl").read_text().splitlines()
    assert '"index": 9' in rows[0]  # (the bad line did end first)


# --- 23. documentation and -I on a scheme without a head ------------------------------------


def python_blocks(path: Path) -> list[tuple[int, str]]:
    text = path.read_text(encoding="utf-8")
    return [
        (text.count("\n", 0, m.start()) + 1, m.group(1))
        for m in re.finditer(r"```python\n(.*?)```", text, re.S)
    ]


PAGES = ["README.md", *sorted(p.name for p in (REPO / "docs").glob("*.md"))]


@pytest.mark.parametrize("page", PAGES)
def test_the_python_in_the_docs_compiles_as_a_file(page: str) -> None:
    """A snippet pasted into a file must run: no top-level ``async with`` or ``await``."""
    path = REPO / page if page == "README.md" else REPO / "docs" / page
    for line, code in python_blocks(path):
        try:
            compile(code, f"{page}:{line}", "exec")
        except SyntaxError as exc:
            pytest.fail(f"{page}, the block at line {line}: {exc}")


def test_top_level_help_lists_every_registered_scheme() -> None:
    known = subprocess.run(
        [sys.executable, "-c", "from omniurl.resolvers.registry import known; print(known())"],
        capture_output=True,
        cwd=ROOT,
        timeout=60,
        check=True,
        text=True,
    ).stdout  # (a fresh interpreter: this one's registry may hold a test's schemes)
    proc = subprocess.run(
        [sys.executable, "-m", "omniurl", "--help"],
        capture_output=True, cwd=ROOT, timeout=60, check=True,
    )  # fmt: skip
    words = " ".join(proc.stdout.decode().split())
    names = ast.literal_eval(known)
    assert ", ".join(names) in words
    assert "gemini" in names


async def test_head_of_a_gopher_url_is_refused_before_sending(gopher: RunningServer) -> None:
    status, out, err = await run_cli("get", "-I", f"gopher://{gopher.netloc}/0/hello.txt")
    assert (status, out) == (2, b"")
    assert err.decode().startswith("omniurl: -I: gopher: URLs have no head to show")
    assert "nothing was sent" in err.decode()


async def test_head_of_a_file_url_is_its_size_and_date(root: Path) -> None:
    import email.utils
    import os

    path = root / "srv" / "hello.txt"
    os.utime(path, (1_700_000_000, 1_700_000_000))
    status, out, err = await run_cli("get", "-I", path.as_uri())
    when = email.utils.formatdate(1_700_000_000, usegmt=True)
    assert (status, out, err) == (
        0,
        f"Last-Modified: {when}\r\nContent-Length: 6\r\n".encode(),  # (no blank line: curl's)
        b"",
    )
    status, out, err = await run_cli("get", "-I", (root / "srv").as_uri() + "/")
    assert (status, out) == (3, b"")
    assert b"said nothing about this listing" in err


async def test_demo_says_what_follows_and_what_next() -> None:
    import io

    from omniurl.demo import run_demo

    out = io.StringIO()
    assert await run_demo(only=["ftp"], out=out) == 0
    text = out.getvalue()
    assert text.startswith("omniurl demo: a tour that needs no network.\n")
    assert text.index("plan:    the protocol lines") < text.index("=== ftp ===")
    assert text.rstrip().splitlines()[-1].startswith("  omniurl demo --only ftp")
    assert "Next steps:" in text
    assert "(NLST)" not in text
    listing = " ".join(text[text.index("/pub/\n") :].split())
    assert listing.startswith(
        "/pub/ # a URL ending in / lists the directory with its facts: FEAT, then MLSD where "
        "the server offers MLST (RFC 3659), else LIST plan:"
    )
