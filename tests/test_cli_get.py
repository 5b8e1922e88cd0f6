"""``omniurl get`` and ``omniurl plan`` as a person runs them (a subprocess each)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from _ftphttp import ROOT, run_cli

from omniurl.testservers import RunningServer
from omniurl.testservers.ftp import start_ftp
from omniurl.testservers.http import start_http
from omniurl.testservers.recording import recording_of, start_recording

BIG = bytes(range(256)) * 2048  # 512 KiB


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "srv" / "pub").mkdir(parents=True)
    (tmp_path / "srv" / "pub" / "big.bin").write_bytes(BIG)
    (tmp_path / "srv" / "pub" / "hello.txt").write_bytes(b"hello\n")
    (tmp_path / "out").mkdir()
    return tmp_path


@pytest_asyncio.fixture
async def servers(root: Path) -> AsyncIterator[tuple[RunningServer, RunningServer]]:
    ftp = await start_ftp(root / "srv", users={"joe": "pw"})
    web = await start_http(root / "srv")
    try:
        yield ftp, web
    finally:
        await web.close()
        await ftp.close()


async def test_get_streams_to_stdout(servers: tuple[RunningServer, RunningServer]) -> None:
    ftp, web = servers
    status, out, _err = await run_cli("get", f"ftp://{ftp.netloc}/pub/big.bin")
    assert (status, out) == (0, BIG)
    status, out, _err = await run_cli("get", f"http://{web.netloc}/pub/hello.txt")
    assert (status, out) == (0, b"hello\n")


@pytest.mark.parametrize("scheme", ["ftp", "http"])
async def test_get_o_writes_the_file_atomically(
    servers: tuple[RunningServer, RunningServer], root: Path, scheme: str
) -> None:
    server = servers[0] if scheme == "ftp" else servers[1]
    target = root / "out" / "copy.bin"
    status, out, _err = await run_cli(
        "get", "-o", str(target), f"{scheme}://{server.netloc}/pub/big.bin"
    )
    assert status == 0
    assert out == b""
    assert target.read_bytes() == BIG
    assert oct(target.stat().st_mode & 0o777) != oct(0o600)  # not mkstemp's private mode
    assert sorted(p.name for p in (root / "out").iterdir()) == ["copy.bin"]


async def test_get_capital_o_names_the_file_like_the_url(
    servers: tuple[RunningServer, RunningServer], root: Path
) -> None:
    ftp, _web = servers
    status, _out, _err = await run_cli(
        "get", "-O", f"ftp://{ftp.netloc}/pub/big.bin;type=i", cwd=root / "out"
    )
    assert status == 0
    assert (root / "out" / "big.bin").read_bytes() == BIG


async def test_failed_transfer_leaves_no_file(root: Path) -> None:
    web = await start_http(root / "srv", truncate_after=100_000)
    try:
        target = root / "out" / "copy.bin"
        status, _out, err = await run_cli(
            "get", "-o", str(target), f"http://{web.netloc}/pub/big.bin"
        )
    finally:
        await web.close()
    assert status == 4  # network failure: connection closed early
    assert b"closed" in err
    assert list((root / "out").iterdir()) == []  # no partial file, no temporary left


async def test_previous_file_survives_a_failed_transfer(root: Path) -> None:
    target = root / "out" / "copy.bin"
    target.write_bytes(b"the old, complete version")
    ftp = await start_ftp(root / "srv", break_retr_after=50_000)
    try:
        status, _out, _err = await run_cli(
            "get", "-o", str(target), f"ftp://{ftp.netloc}/pub/big.bin"
        )
    finally:
        await ftp.close()
    assert status == 4
    assert target.read_bytes() == b"the old, complete version"
    assert list((root / "out").iterdir()) == [target]


async def test_verbose_shows_the_conversation_with_secrets_masked(
    servers: tuple[RunningServer, RunningServer],
) -> None:
    ftp, _web = servers
    status, out, err = await run_cli("get", "-v", f"ftp://joe:pw@{ftp.netloc}/pub/hello.txt")
    assert (status, out) == (0, b"hello\n")
    lines = err.decode().splitlines()
    assert "> USER joe" in lines
    assert "> PASS ****" in lines
    assert "> RETR hello.txt" in lines
    assert "< 226 data transfer done" in lines
    assert "PASS pw" not in err.decode()


async def test_listing_as_text_and_json(servers: tuple[RunningServer, RunningServer]) -> None:
    ftp, _web = servers
    status, out, _err = await run_cli("get", f"ftp://{ftp.netloc}/pub/")
    assert status == 0
    assert sorted(out.decode().splitlines()) == [  # (MLSD: types, in the server's order)
        f"file\tbig.bin\tftp://{ftp.netloc}/pub/big.bin",
        f"file\thello.txt\tftp://{ftp.netloc}/pub/hello.txt",
    ]
    status, out, _err = await run_cli("get", "--json", f"ftp://{ftp.netloc}/pub/")
    doc = json.loads(out)
    assert doc["kind"] == "listing"
    assert sorted(e["name"] for e in doc["entries"]) == ["big.bin", "hello.txt"]


async def test_json_for_content_reports_metadata_not_bytes(
    servers: tuple[RunningServer, RunningServer],
) -> None:
    _ftp, web = servers
    status, out, _err = await run_cli("get", "--json", f"http://{web.netloc}/pub/big.bin")
    assert status == 0
    doc = json.loads(out)
    assert doc["size"] == len(BIG)
    assert doc["metadata"]["bytes"] == len(BIG)
    assert doc["metadata"]["status"] == 200


@pytest.mark.parametrize(
    ("path", "status", "kind"),
    [
        ("/pub/missing.bin", 5, "NotFound"),  # FTP 550
        ("/pub/%0D%0A/x", 2, "DelimiterRefused"),
    ],
)
async def test_errors_have_documented_exit_statuses(
    servers: tuple[RunningServer, RunningServer], path: str, status: int, kind: str
) -> None:
    ftp, _web = servers
    got, out, _err = await run_cli("get", "--json", f"ftp://{ftp.netloc}{path}")
    assert got == status
    assert json.loads(out)["error"]["type"] == kind


async def test_wrong_password_exits_7(servers: tuple[RunningServer, RunningServer]) -> None:
    ftp, _web = servers
    status, _out, err = await run_cli("get", f"ftp://joe:bad@{ftp.netloc}/pub/hello.txt")
    assert status == 7
    assert b"530" in err


async def test_no_terminal_to_ask_a_password_exits_7(
    servers: tuple[RunningServer, RunningServer],
) -> None:
    ftp, _web = servers
    status, _out, err = await run_cli("get", f"ftp://joe@{ftp.netloc}/pub/hello.txt")
    assert status == 7
    assert b"password" in err


async def test_http_404_exits_5(servers: tuple[RunningServer, RunningServer]) -> None:
    _ftp, web = servers
    status, _out, err = await run_cli("get", f"http://{web.netloc}/nope")
    assert status == 5
    assert b"404" in err


async def test_plan_prints_one_json_object_per_url() -> None:
    status, out, _err = await run_cli(
        "plan", "ftp://myname@host.dom/%2Fetc/motd", "http://example.com/a?b"
    )
    assert status == 0
    first, second = (json.loads(line) for line in out.decode().splitlines())
    assert first == {
        "url": "ftp://myname@host.dom/%2Fetc/motd",
        "scheme": "ftp",
        "host": "host.dom",
        "port": 21,
        "transport": "tcp",
        "steps": ["USER myname", "PASS ****", "CWD /etc", "TYPE I", "EPSV", "EPSV", "PASV",
                  "PASV", "RETR motd", "QUIT"],
        "when": [None, "reply 331; the password is asked for", None, None, None,
                 "the policy refused the port EPSV named; at most 3 times", "EPSV refused",
                 "the policy refused the port PASV named; at most 3 times", None,
                 "after a complete transfer"],
    }  # fmt: skip
    assert second["steps"] == [
        "GET /a?b HTTP/1.1",
        "Host: example.com",
        "User-Agent: omniurl/0.1",
        "Accept: */*",
        "Accept-Encoding: identity",
        "(the redirect's body read, at most 1 MiB within 0.25 s, and its connection kept "
        "for the next hop; else the connection is closed)",
    ]
    assert second["when"] == [None] * 5 + [
        "a redirect followed on a connection of this resolve's own (no client's pool) that may "
        "carry another request (RFC 9112 §9.3), its body declared at most 1 MiB if at all"
    ]


async def test_plan_masks_a_password_in_the_url() -> None:
    status, out, _err = await run_cli("plan", "ftp://joe:hunter2@h/f")
    assert status == 0
    assert b"hunter2" not in out


async def test_plan_refusal_is_an_error_object_with_status_2() -> None:
    status, out, _err = await run_cli("plan", "http://example.com:6379/", "ftp://h/%0A/x")
    assert status == 2
    first, second = (json.loads(line) for line in out.decode().splitlines())
    assert first["error"]["type"] == "PortRefused"
    assert first["error"]["component"] == "port"
    assert second["error"]["type"] == "DelimiterRefused"
    assert second["error"]["component"] == "cwd[0]"


async def test_allow_port_and_strict_flags() -> None:
    status, _out, _err = await run_cli("plan", "--allow-port", "6379", "http://h:6379/")
    assert status == 0
    status, out, _err = await run_cli("plan", "--strict", "http://h:8080/", "file:///etc/hosts")
    assert status == 2
    kinds = [json.loads(line)["error"]["type"] for line in out.decode().splitlines()]
    assert kinds == ["PortRefused", "SchemeRefused"]


async def test_refused_get_sends_nothing() -> None:
    async with await start_recording() as rec:
        status, _out, err = await run_cli("get", "--strict", f"http://{rec.netloc}/")
        assert status == 2
        assert b"refused" in err
        assert recording_of(rec).connections == 0


async def test_resolve_flag_maps_a_name(servers: tuple[RunningServer, RunningServer]) -> None:
    _ftp, web = servers
    status, out, _err = await run_cli(
        "get", "--resolve", f"files.test:{web.port}:127.0.0.1",
        f"http://files.test:{web.port}/pub/hello.txt",
    )  # fmt: skip
    assert (status, out) == (0, b"hello\n")


async def test_help_documents_exit_statuses() -> None:
    status, out, _err = await run_cli("get", "--help")
    assert status == 0
    text = out.decode()
    for line in ("2  the URL is invalid", "4  network failure", "7  credentials"):
        assert line in text


async def test_serve_runs_a_server_that_get_can_use(root: Path) -> None:
    """`omniurl serve ftp|http --root DIR` in the foreground; the port is announced on stderr."""
    import asyncio
    import os
    import re
    import signal
    import sys

    for name in ("ftp", "http"):
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "omniurl", "serve", name, "--root", str(root / "srv"),
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE, cwd=str(ROOT),
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )  # fmt: skip
        try:
            assert proc.stderr is not None
            line = await asyncio.wait_for(proc.stderr.readline(), 30)
            m = re.search(rb"127\.0\.0\.1:(\d+)", line)
            assert m is not None, line
            status, out, _err = await run_cli(
                "get", f"{name}://{m.group(0).decode()}/pub/hello.txt"
            )
            assert (status, out) == (0, b"hello\n")
        finally:
            proc.send_signal(signal.SIGINT)
            try:
                await asyncio.wait_for(proc.wait(), 10)
            except TimeoutError:
                proc.kill()
                await proc.wait()
        assert proc.returncode == 0


@pytest.mark.parametrize("where", ["missing-folder", "a-folder"])
async def test_unwritable_output_is_a_clean_error_not_a_traceback(
    servers: tuple[RunningServer, RunningServer], root: Path, where: str
) -> None:
    _ftp, web = servers
    target = root / "out" / "no" / "such" / "x" if where == "missing-folder" else root / "out"
    status, out, err = await run_cli("get", "-o", str(target), f"http://{web.netloc}/pub/hello.txt")
    assert status == 23  # curl's write error: the network side worked (issue 31 item 5)
    assert out == b""
    assert b"Traceback" not in err
    assert err.startswith(b"omniurl: cannot write ") and str(target).encode() in err
    assert sorted(p.name for p in (root / "out").iterdir()) == []  # no temporary left
    status, out, err = await run_cli(
        "get", "--json", "-o", str(target), f"http://{web.netloc}/pub/hello.txt"
    )
    assert status == 23
    assert b"Traceback" not in err
    error = json.loads(out)["error"]
    assert error["type"] == "OutputError"
    assert str(target) in error["message"]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full on this system")
async def test_stdout_that_cannot_be_written_is_a_clean_error(
    servers: tuple[RunningServer, RunningServer],
) -> None:
    import asyncio
    import os
    import shlex
    import sys

    _ftp, web = servers
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env["PYTHONPATH"] = str(ROOT)
    command = f"{shlex.quote(sys.executable)} -m omniurl get http://{web.netloc}/pub/big.bin"
    proc = await asyncio.create_subprocess_shell(
        command + " >/dev/full", cwd=ROOT, env=env, stderr=asyncio.subprocess.PIPE
    )
    _out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert b"Traceback" not in err
    assert err.startswith(b"omniurl: cannot write standard output: ")
    assert proc.returncode == 23


async def test_output_to_a_fifo_writes_into_it_and_leaves_it_a_fifo(
    servers: tuple[RunningServer, RunningServer], root: Path
) -> None:
    import os
    import stat

    _ftp, web = servers
    fifo = root / "out" / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # the reader is there first
    try:
        status, _out, err = await run_cli(
            "get", "-o", str(fifo), f"http://{web.netloc}/pub/hello.txt"
        )
        assert (status, err) == (0, b"")
        assert os.read(reader, 100) == b"hello\n"
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(fifo.stat().st_mode)  # not replaced by a regular file
    assert sorted(p.name for p in (root / "out").iterdir()) == ["pipe"]


async def test_output_file_receives_a_listing_too(
    servers: tuple[RunningServer, RunningServer], root: Path
) -> None:
    ftp, _web = servers
    target = root / "out" / "listing.txt"
    status, out, _err = await run_cli("get", "-o", str(target), f"ftp://{ftp.netloc}/pub/")
    assert (status, out) == (0, b"")  # nothing on stdout: -o says where the result goes
    assert sorted(target.read_text().splitlines()) == [
        f"file\tbig.bin\tftp://{ftp.netloc}/pub/big.bin",
        f"file\thello.txt\tftp://{ftp.netloc}/pub/hello.txt",
    ]
    assert sorted(p.name for p in (root / "out").iterdir()) == ["listing.txt"]
    status, out, _err = await run_cli(
        "get", "--json", "-o", str(target), f"ftp://{ftp.netloc}/pub/"
    )
    doc = json.loads(out)
    assert doc["metadata"]["output"] == str(target)
    assert doc["metadata"]["bytes"] == target.stat().st_size  # what was written, not 0


@pytest.mark.parametrize("name", ["[/]", "[link=http://evil.example/]click me[/link]"])
async def test_listing_on_a_terminal_shows_server_text_literally(
    name: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Entry names come from the server: on a terminal they are shown as text, never read
    as markup (a MarkupError traceback, or a forged hyperlink), and control characters are
    escaped; the URL column is never cut."""
    import argparse
    import sys

    from omniurl.cli.get import show_listing
    from omniurl.resolvers.plan import Plan
    from omniurl.resolvers.resource import Entry, Resource
    from omniurl.schemes import parse

    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.setenv("COLUMNS", "60")
    long_url = "ftp://h/" + "x" * 80
    url = parse("ftp://127.0.0.1/d/")
    plan = Plan(url=url, scheme="ftp", host="127.0.0.1", port=21, transport="tcp", steps=())
    entries = [
        Entry(name=name, kind="file", url="ftp://h/x"),
        Entry(name="bell\x07", kind="file", url=long_url),
    ]
    resource = Resource(plan, kind="listing", entries=entries)
    await show_listing(argparse.Namespace(json=False), resource)
    shown = capsys.readouterr().out
    assert name[:25] in shown  # as text (cut to the room the URL leaves)
    assert "\x1b]8;" not in shown  # no OSC 8 hyperlink
    assert "\x07" not in shown and "bell\\x07" not in shown.splitlines()[2]  # narrow: URL only
    assert long_url in shown.splitlines()[2]  # whole, on one line


def test_wais_hit_table_shows_server_text_literally(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import argparse
    import asyncio
    import sys
    from types import SimpleNamespace

    from omniurl.resolvers.resource import Entry
    from omniurl.resolvers.wais import WAISPresentation

    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.setenv("COLUMNS", "200")
    hit = Entry(name="[/]headline", kind="document", url="wais://h/db/TEXT/x", info={"score": 1})
    resource = SimpleNamespace(kind="listing", url="wais://h/db?x", entries=[hit])
    presented = WAISPresentation().present(resource, argparse.Namespace(json=False))  # type: ignore[arg-type]
    assert asyncio.run(presented) == 0
    assert "[/]headline" in capsys.readouterr().out


async def test_everyday_manners() -> None:
    """--version; a URL typed without its scheme gets the question a person needs; long
    options are never abbreviations (``--prox`` is not ``--proxy-env``)."""
    from _ftphttp import run_cli

    status, out, _err = await run_cli("--version")
    assert status == 0 and out.startswith(b"omniurl ")
    status, _out, err = await run_cli("get", "127.0.0.1:8081/x")
    assert status == 2
    assert b"no scheme: did you mean http://127.0.0.1:8081/x ?" in err
    status, _out, err = await run_cli("get", "--proxy-e", "http://127.0.0.1:9/")
    assert status == 2 and b"--proxy-e is not an option of omniurl get" in err


async def test_serve_on_a_port_in_use_is_one_line() -> None:
    import socket

    from _ftphttp import run_cli

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        status, _out, err = await run_cli("serve", "gopher", "--port", str(port))
    assert status == 1
    assert err.count(b"\n") == 1 and b"cannot serve gopher on 127.0.0.1:" in err


async def test_silent_hides_the_error_line_and_show_error_brings_it_back() -> None:
    from _ftphttp import run_cli

    status, _out, err = await run_cli("get", "-s", "gopher://127.0.0.1:6379/0/x")
    assert status == 2 and err == b""
    status, _out, err = await run_cli("get", "-s", "-S", "gopher://127.0.0.1:6379/0/x")
    assert status == 2 and b"port 6379 refused" in err
