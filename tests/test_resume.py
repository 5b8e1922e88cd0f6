"""``-C``: resuming over FTP (REST) and HTTP (Range/If-Range) after a server closed at byte K.

Each test runs ``omniurl get`` as a person does (a subprocess), against omniurl's own
servers: the first attempt is cut at byte K and keeps ``.NAME.part``; the second continues
from there and the file ends byte for byte the server's (same sha256).  The wire is checked
too: exactly the planned ``REST``/``Range`` lines.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from _ftphttp import run_cli

from omniurl import plan
from omniurl.resolvers.http.planner import CARRY_STEP
from omniurl.resolvers.options import Options
from omniurl.testservers.base import RunningServer
from omniurl.testservers.ftp_server import start_ftp
from omniurl.testservers.http import start_http

CONTENT = bytes(range(256)) * 4096  # 1 MiB, every byte value
K = 300_000


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


async def get_c(
    start: Callable[..., Awaitable[RunningServer]], root: Path, url: str, out: Path, **kw: Any
) -> tuple[int, bytes, str, dict[str, Any]]:
    """``omniurl get -C - -o OUT URL`` on a server ``start(root, **kw)`` runs for this one
    command (``url``'s ``{netloc}`` its address): the exit status, standard error, the URL
    and the server's ``info`` (the commands or requests it received)."""
    async with await start(root, **kw) as server:
        url = url.format(netloc=server.netloc)
        status, _o, err = await run_cli("get", "-C", "-", "-o", str(out), url)
    return status, err, url, server.info


@pytest.fixture
def srv(tmp_path: Path) -> Path:
    (tmp_path / "srv").mkdir()
    (tmp_path / "srv" / "big.bin").write_bytes(CONTENT)
    (tmp_path / "out").mkdir()
    return tmp_path


def test_the_ftp_plan_of_a_resume_is_type_i_size_rest_retr() -> None:
    p = plan("ftp://h/pub/big.bin", Options(resume_from=K, email="a@b.example"))
    assert p.to_json()["steps"] == [
        "USER anonymous", "PASS ****", "CWD pub", "TYPE I", "SIZE big.bin",
        "EPSV", "EPSV", "PASV", "PASV", f"REST {K}", "RETR big.bin", "QUIT",
    ]  # fmt: skip


def test_an_ascii_ftp_resume_is_the_whole_file_again_in_type_a() -> None:
    """A text file (guessed TYPE A, §3.2.3) or ``;type=a`` is resumed in TYPE A, the whole
    file again (no SIZE, no REST: both count the server's representation, RFC 3659 §5),
    the kept part skipped by the executor (before: a guessed one was resumed in TYPE I, the
    server's CR LF after the part's LF; ``;type=a`` was refused)."""
    whole = ["USER anonymous", "PASS ****", "TYPE A", "EPSV", "EPSV", "PASV", "PASV",
             "RETR notes.txt", "QUIT"]  # fmt: skip
    for url in ("ftp://h/notes.txt", "ftp://h/notes.txt;type=a"):
        p = plan(url, Options(resume_from=5, email="a@b.example"))
        assert p.to_json()["steps"] == whole, url
        assert p.resumable


TEXT = b"".join(b"line %d of a text file\r\n" % n for n in range(40_000)) + b"bare LF\nend\r\n"
#: What a TYPE A transfer in one go saves: CR LF as LF (RFC 959 §3.1.1.1).
SAVED_TEXT = TEXT.replace(b"\r\n", b"\n")


@pytest.fixture
def text_srv(tmp_path: Path) -> Path:
    (tmp_path / "srv").mkdir()
    (tmp_path / "srv" / "notes.txt").write_bytes(TEXT)
    (tmp_path / "out").mkdir()
    return tmp_path


async def test_a_text_file_resumed_is_the_file_fetched_in_one_go(text_srv: Path) -> None:
    """Cut at byte K of the wire, then ``-C -``: the file is byte for byte what a transfer
    in one go saves (before: TYPE I and ``REST`` at the part's length, the rest with the
    server's CR LF from the wrong offset: mixed line ends)."""
    out = text_srv / "out" / "notes.txt"
    status, err, _url, _info = await get_c(
        start_ftp, text_srv / "srv", "ftp://{netloc}/notes.txt", out, break_retr_after=K
    )
    assert status == 4, err
    part = text_srv / "out" / ".notes.txt.part"
    kept = part.read_bytes()
    assert 0 < len(kept) < K and SAVED_TEXT.startswith(kept)
    server = await start_ftp(text_srv / "srv")
    try:
        url = f"ftp://{server.netloc}/notes.txt"
        status, _o, err = await run_cli("get", "-C", "-", "-o", str(out), url)
        commands = list(server.info["commands"])
        # the same part continued by the batch (-C - with --output-dir: fetch_many resume)
        (text_srv / "b").mkdir()
        (text_srv / "b" / ".notes.txt.part").write_bytes(kept)
        status_b, _o, err_b = await run_cli(
            "get", "-C", "-", "--output-dir", str(text_srv / "b"), url, url + ";type=a"
        )
        # and a complete file: nothing appended, nothing lost
        status_c, out_c, err_c = await run_cli("get", "-C", "-", "--json", "-o", str(out), url)
    finally:
        await server.close()
    assert status == 0, err
    assert out.read_bytes() == SAVED_TEXT
    assert not part.exists()
    assert commands[2:] == [b"TYPE A", b"EPSV", b"RETR notes.txt", b"QUIT"]
    assert status_b == 0, err_b
    assert {p.name: p.read_bytes() for p in (text_srv / "b").iterdir()} == {
        "notes.txt": SAVED_TEXT,
        "notes.1.txt": SAVED_TEXT,  # (;type=a: a second name for the same file)
    }
    assert status_c == 0, err_c
    metadata = json.loads(out_c)["metadata"]
    assert (metadata["resume"], metadata["offset"]) == ("complete", len(SAVED_TEXT))
    assert out.read_bytes() == SAVED_TEXT


async def test_a_text_file_shorter_than_the_part_is_an_error_and_the_part_stays(
    text_srv: Path,
) -> None:
    """A part longer than the ``TYPE A`` file (it changed since): exit 36, curl's "bad
    download resume" (curl 7.88 ``-C -`` of a shorter FTP file: "(36) Offset (43) was beyond
    file size (18)") — not 2, which says nothing was sent, when the whole conversation
    was; the message says the part is longer and kept.  The same row in a batch's
    manifest."""
    out = text_srv / "out" / "notes.txt"
    part = text_srv / "out" / ".notes.txt.part"
    longer = SAVED_TEXT + b"more than the server has\n"
    part.write_bytes(longer)
    status, err, url, info = await get_c(
        start_ftp, text_srv / "srv", "ftp://{netloc}/notes.txt", out
    )
    commands = list(info["commands"])
    (text_srv / "b").mkdir()
    (text_srv / "b" / ".notes.txt.part").write_bytes(longer)
    manifest = text_srv / "manifest.jsonl"
    async with await start_ftp(text_srv / "srv") as server:
        url_b = f"ftp://{server.netloc}/notes.txt"
        status_b, _o, err_b = await run_cli(
            "get", "-C", "-", "--output-dir", str(text_srv / "b"), "--manifest", str(manifest),
            url_b, url_b + ";type=i",
        )  # fmt: skip
    assert status == 36, err
    assert err.decode().endswith(
        f"omniurl: cannot resume {url} at byte {len(longer)}: the part kept is longer than "
        f"the file, which in TYPE A with local line ends is {len(SAVED_TEXT)} bytes now (it "
        "changed since the part was saved; the part is kept); fetch it whole without -C\n"
    ), err
    assert part.read_bytes() == longer and not out.exists()
    assert commands[2:] == [b"TYPE A", b"EPSV", b"RETR notes.txt", b"QUIT"]
    rows = {row["url"]: row for row in map(json.loads, manifest.read_text().splitlines())}
    assert status_b == 36, err_b
    assert (rows[url_b]["exit_status"], rows[url_b]["error_type"]) == (36, "ResumeMismatch")
    assert rows[url_b + ";type=i"]["exit_status"] == 0  # (the batch goes on)
    assert (text_srv / "b" / ".notes.txt.part").read_bytes() == longer  # the part stays
    assert not (text_srv / "b" / "notes.txt").exists()
    assert (text_srv / "b" / "notes.1.txt").read_bytes() == TEXT


def test_the_http_plan_of_a_resume_shows_range_and_if_range() -> None:
    p = plan("http://h/big.bin", Options(resume_from=K, resume_validator='"abc"'))
    assert p.to_json()["steps"] == [
        "GET /big.bin HTTP/1.1",
        "Host: h",
        "User-Agent: omniurl/0.1",
        "Accept: */*",
        "Accept-Encoding: identity",
        f"Range: bytes={K}-",
        'If-Range: "abc"',
        CARRY_STEP.shown,
    ]


async def test_ftp_resume_after_a_server_closed_at_byte_k(srv: Path) -> None:
    out = srv / "out" / "big.bin"
    status, err, _url, _info = await get_c(
        start_ftp, srv / "srv", "ftp://{netloc}/big.bin", out, break_retr_after=K
    )
    assert status == 4, err
    part = srv / "out" / ".big.bin.part"
    assert part.read_bytes() == CONTENT[:K]  # the bytes that came are kept for -C -
    assert not out.exists()
    status, err, _url, info = await get_c(start_ftp, srv / "srv", "ftp://{netloc}/big.bin", out)
    commands = list(info["commands"])
    assert status == 0, err
    assert sha(out.read_bytes()) == sha(CONTENT)
    assert not part.exists() and not (srv / "out" / ".big.bin.part.json").exists()
    assert commands[2:] == [b"TYPE I", b"SIZE big.bin", b"EPSV", f"REST {K}".encode(),
                            b"RETR big.bin", b"QUIT"]  # fmt: skip


async def test_ftp_resume_of_a_complete_file_transfers_nothing(srv: Path) -> None:
    out = srv / "out" / "big.bin"
    out.write_bytes(CONTENT)
    out.chmod(0o600)
    status, err, _url, info = await get_c(start_ftp, srv / "srv", "ftp://{netloc}/big.bin", out)
    commands = list(info["commands"])
    assert status == 0, err
    assert b"RETR big.bin" not in commands and b"EPSV" not in commands
    assert out.read_bytes() == CONTENT
    assert out.stat().st_mode & 0o777 == 0o600


async def test_http_resume_after_a_server_closed_at_byte_k(srv: Path) -> None:
    out = srv / "out" / "big.bin"
    server = await start_http(srv / "srv", truncate_after=K)
    try:
        url = f"http://{server.netloc}/big.bin"
        status, _o, err = await run_cli("get", "-C", "-", "-o", str(out), url)
        assert status == 4, err
        part = srv / "out" / ".big.bin.part"
        assert part.read_bytes() == CONTENT[:K]
        sidecar = json.loads((srv / "out" / ".big.bin.part.json").read_text())
        assert sidecar["url"] == url and sidecar["total"] == len(CONTENT)
        etag = sidecar["validator"]
        assert etag.startswith('"')
        server.info["handler"].truncate_after = None
        status, _o, err = await run_cli("get", "-C", "-", "-o", str(out), url)
        assert status == 0, err
        last = dict(server.info["requests"][-1][2])
    finally:
        await server.close()
    assert sha(out.read_bytes()) == sha(CONTENT)
    assert last[b"range"] == f"bytes={K}-".encode()
    assert last[b"if-range"] == etag.encode()
    assert not part.exists()


async def test_a_server_that_ignores_the_range_restarts_from_zero(srv: Path) -> None:
    out = srv / "out" / "big.bin"
    (srv / "out" / ".big.bin.part").write_bytes(b"X" * K)  # not the server's bytes at all
    status, err, _url, _info = await get_c(
        start_http, srv / "srv", "http://{netloc}/big.bin", out, ignore_ranges=True
    )
    assert status == 0, err
    assert out.read_bytes() == CONTENT  # the 200's body replaced the part, never appended


async def test_a_part_longer_than_the_resource_is_fetched_again(srv: Path) -> None:
    out = srv / "out" / "big.bin"
    (srv / "out" / ".big.bin.part").write_bytes(CONTENT + b"stale tail")
    status, err, _url, info = await get_c(start_http, srv / "srv", "http://{netloc}/big.bin", out)
    assert status == 0, err
    assert out.read_bytes() == CONTENT
    assert len(info["requests"]) == 2  # the 416, then the whole file


async def test_gopher_says_it_cannot_resume_and_sends_nothing(srv: Path) -> None:
    from omniurl import testservers

    (srv / "out" / ".big.bin.part").write_bytes(b"x" * 10)
    gopher = partial(testservers.start, "gopher")
    status, err, _url, _info = await get_c(
        gopher, srv / "srv", "gopher://{netloc}/9/big.bin", srv / "out" / "big.bin"
    )
    assert status == 2
    assert b"Gopher (RFC 1436) has no resume" in err


async def test_resume_needs_a_file(srv: Path) -> None:
    status, _o, err = await run_cli("get", "-C", "-", "http://127.0.0.1:9/x")
    assert status == 2
    assert b"-C continues a file" in err


def test_a_failed_plain_transfer_keeps_the_old_files_mode(tmp_path: Path) -> None:
    from omniurl.partial import finish

    target = tmp_path / "t"
    target.write_bytes(b"old")
    os.chmod(target, 0o600)
    tmp = tmp_path / ".t.x.part"
    tmp.write_bytes(b"new")
    os.chmod(tmp, 0o644)
    finish(tmp, target)
    assert target.read_bytes() == b"new"
    assert target.stat().st_mode & 0o777 == 0o600


async def test_a_batch_with_c_continues_each_file_and_skips_complete_ones(srv: Path) -> None:
    """A rerun of a batch with ``-C -`` over what a cut first run left: two kept parts of
    other lengths (each continued from its own end), two complete small files (one
    request each, no body) and a file never fetched (fetched whole): each file the
    server's bytes, each manifest row its URL's."""
    other = CONTENT[::-1]  # (1 MiB, other bytes than big.bin's)
    (srv / "srv" / "a").mkdir()
    (srv / "srv" / "b").mkdir()
    (srv / "srv" / "a" / "same.bin").write_bytes(b"from a\n")
    (srv / "srv" / "b" / "same.bin").write_bytes(b"from b\n")
    (srv / "srv" / "other.bin").write_bytes(other)
    (srv / "srv" / "new.bin").write_bytes(b"new " * 5000)
    out = srv / "out"
    server = await start_http(srv / "srv", truncate_after=K)
    try:
        base = f"http://{server.netloc}"
        urls = [f"{base}/a/same.bin", f"{base}/big.bin", f"{base}/b/same.bin",
                f"{base}/other.bin"]  # fmt: skip
        status, _o, err = await run_cli("get", "-C", "-", "--output-dir", str(out), *urls)
        assert status == 4, err
        assert (out / ".big.bin.part").read_bytes() == CONTENT[:K]
        assert (out / ".other.bin.part").read_bytes() == other[:K]
        # Names follow the input order, whatever finished first: a rerun finds its files.
        assert (out / "same.bin").read_bytes() == b"from a\n"
        assert (out / "same.1.bin").read_bytes() == b"from b\n"
        short = 1000  # (a part cut shorter still: continued from its own end)
        with open(out / ".other.bin.part", "r+b") as part:
            part.truncate(short)
        server.info["handler"].truncate_after = None
        urls.append(f"{base}/new.bin")  # (never fetched: no part, no file)
        manifest = srv / "m.jsonl"
        before = len(server.info["requests"])
        status, _o, err = await run_cli(
            "get", "-C", "-", "--output-dir", str(out), "--manifest", str(manifest), *urls
        )
        assert status == 0, err
        ranges = sorted(
            (t, dict(h).get(b"range", b"")) for _m, t, h in server.info["requests"][before:]
        )
        before = len(server.info["requests"])
        status_c, _o, err_c = await run_cli("get", "-C", "-", "--output-dir", str(out), *urls)
        again = server.info["requests"][before:]
    finally:
        await server.close()
    files = {
        "same.bin": b"from a\n",
        "big.bin": CONTENT,
        "same.1.bin": b"from b\n",
        "other.bin": other,
        "new.bin": b"new " * 5000,
    }
    assert {p.name: p.read_bytes() for p in out.iterdir()} == files  # (no part left)
    # each continued from what it had: its own end, none for the file never fetched
    assert ranges == [  # (one request each)
        (b"/a/same.bin", b"bytes=7-"),
        (b"/b/same.bin", b"bytes=7-"),
        (b"/big.bin", f"bytes={K}-".encode()),
        (b"/new.bin", b""),
        (b"/other.bin", f"bytes={short}-".encode()),
    ]
    rows = sorted(map(json.loads, manifest.read_text().splitlines()), key=lambda r: r["index"])
    assert [
        (r["index"], r["url"], r["ok"], r["exit_status"], r["error_type"], r["path"],
         r["bytes"], r["sha256"])
        for r in rows
    ] == [
        (i, url, True, 0, None, str(out / name), len(files[name]), sha(files[name]))
        for i, (url, name) in enumerate(zip(urls, files, strict=True))
    ]  # fmt: skip
    # Every file was complete: each request asked from its end on (416, no body sent).
    assert status_c == 0, err_c
    assert sorted((t, dict(h)[b"range"]) for _m, t, h in again) == [
        (b"/a/same.bin", b"bytes=7-"),
        (b"/b/same.bin", b"bytes=7-"),
        (b"/big.bin", f"bytes={len(CONTENT)}-".encode()),
        (b"/new.bin", f"bytes={len(files['new.bin'])}-".encode()),
        (b"/other.bin", f"bytes={len(other)}-".encode()),
    ]
    assert {p.name: p.read_bytes() for p in out.iterdir()} == files


async def test_c_n_in_a_batch_is_a_usage_error(srv: Path) -> None:
    status, _o, err = await run_cli(
        "get", "-C", "10", "--output-dir", str(srv / "out"), "http://h/a", "http://h/b"
    )
    assert status == 2
    assert b"in a batch use -C -" in err
