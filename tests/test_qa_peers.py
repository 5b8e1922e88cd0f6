"""Defects a QA pass found comparing omniurl with curl and wget on local servers, each
against a scripted server that records every request and counts connections: the bytes on
the wire, the files left behind and the exit statuses."""

from __future__ import annotations

import contextlib
import gzip
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from _lean import Answer, RawServer, raw_servers
from helpers import run_omniurl


@contextlib.asynccontextmanager
async def scripted(script: Answer) -> AsyncIterator[tuple[RawServer, str]]:
    """One raw server answering each request by its target with ``script``'s bytes (and
    whether to close after them); ``.connections`` holds each connection's request heads."""
    async with raw_servers(script) as [(server, base)]:
        yield server, base


def chunked(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n0\r\n\r\n" % (len(data), data) if data else b"0\r\n\r\n"


def ok(body: bytes, *fields: bytes) -> bytes:
    head = b"HTTP/1.1 200 OK\r\n" + b"".join(f + b"\r\n" for f in fields)
    return head + b"Content-Length: %d\r\n\r\n" % len(body) + body


# -- Transfer-Encoding other than chunked (RFC 9112 §6.1, §7) --------------------------------

CONTENT = b"the content, once the transfer codings are undone\n" * 20


def transfer_coded(target: bytes) -> tuple[bytes, bool]:
    name = target.rsplit(b"/", 1)[-1]
    if name.startswith(b"gzc"):
        body = chunked(gzip.compress(CONTENT))
        return b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n" + body, False
    if name.startswith(b"gz"):
        body = gzip.compress(CONTENT)
        return b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n" + body, True
    if name.startswith(b"foo"):
        body = chunked(CONTENT)
        return b"HTTP/1.1 200 OK\r\nTransfer-Encoding: foo, chunked\r\n\r\n" + body, False
    return ok(CONTENT), False


@pytest.mark.parametrize("name", ["gzc", "gz"])
async def test_transfer_coding_gzip_is_undone(tmp_path: Path, name: str) -> None:
    """QA: ``Transfer-Encoding: gzip, chunked`` saved the gzip bytes as the content, exit 0."""
    async with scripted(transfer_coded) as (_server, base):
        status, _out, err = await run_omniurl("get", "-o", str(tmp_path / "f"), f"{base}/{name}")
    assert status == 0, err
    assert (tmp_path / "f").read_bytes() == CONTENT


async def test_an_unknown_transfer_coding_is_an_error_and_no_file(tmp_path: Path) -> None:
    async with scripted(transfer_coded) as (_server, base):
        status, _out, err = await run_omniurl("get", "-o", str(tmp_path / "f"), f"{base}/foo")
    assert status != 0
    assert b"transfer coding foo" in err and b"RFC 9112" in err, err
    assert not (tmp_path / "f").exists()


@pytest.mark.parametrize("lean", ["1", "0"])
async def test_the_batch_undoes_transfer_codings_too(tmp_path: Path, lean: str) -> None:
    """Through the batch (the lean engine hands such a reply to the general path)."""
    env = {**os.environ, "OMNIURL_BATCH_LEAN": lean}
    async with scripted(transfer_coded) as (_server, base):
        urls = [f"{base}/gzc1", f"{base}/plain", f"{base}/foo1", f"{base}/gzc2"]
        status, _out, err = await run_omniurl("get", "--output-dir", str(tmp_path), *urls, env=env)
    assert status != 0  # (foo1 failed)
    assert (tmp_path / "gzc1").read_bytes() == CONTENT, err
    assert (tmp_path / "gzc2").read_bytes() == CONTENT
    assert (tmp_path / "plain").read_bytes() == CONTENT
    assert not (tmp_path / "foo1").exists()
    assert b"transfer coding foo" in err


# -- --max-filesize: every download, every scheme (curl's exit 63) ---------------------------

BIG = bytes(range(256)) * 40  # 10,240 bytes


def sized(target: bytes) -> tuple[bytes, bool]:
    if target.endswith(b"/chunked"):
        head = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        return head + chunked(BIG), False
    return ok(BIG), False


@pytest.mark.parametrize("name", ["length", "chunked"])
async def test_max_filesize_limits_an_http_download(tmp_path: Path, name: str) -> None:
    """QA: --max-filesize limited only --compressed bodies.  A Content-Length over it is
    refused before the body is read; a chunked body ends once past it; no file is left."""
    async with scripted(sized) as (_server, base):
        url = f"{base}/{name}"
        status, _out, err = await run_omniurl(
            "get", "--max-filesize", "10000", "-o", str(tmp_path / "f"), url
        )
        assert status != 0
        assert b"--max-filesize 10000" in err, err
        assert not (tmp_path / "f").exists()
        status, _out, err = await run_omniurl(
            "get", "--max-filesize", "10240", "-o", str(tmp_path / "g"), url
        )
    assert status == 0, err
    assert (tmp_path / "g").read_bytes() == BIG


@pytest.mark.parametrize("lean", ["1", "0"])
async def test_max_filesize_limits_the_batch(tmp_path: Path, lean: str) -> None:
    env = {**os.environ, "OMNIURL_BATCH_LEAN": lean}
    async with scripted(sized) as (_server, base):
        urls = [f"{base}/length", f"{base}/chunked"]
        status, _out, err = await run_omniurl(
            "get", "--max-filesize", "10000", "--output-dir", str(tmp_path), *urls, env=env
        )
    assert status != 0
    assert err.count(b"--max-filesize 10000") == 2, err
    assert sorted(os.listdir(tmp_path)) == []


@pytest.mark.parametrize("scheme", ["ftp", "gopher"])
async def test_max_filesize_limits_ftp_and_gopher(tmp_path: Path, scheme: str) -> None:
    from omniurl import testservers

    root = tmp_path / "root"
    root.mkdir()
    (root / "big.bin").write_bytes(BIG)
    server = await testservers.start(scheme, root)
    try:
        url = f"{scheme}://127.0.0.1:{server.port}/" + (
            "9/big.bin" if scheme == "gopher" else "big.bin"
        )
        status, _out, err = await run_omniurl(
            "get", "--max-filesize", "10000", "-o", str(tmp_path / "f"), url
        )
        assert status != 0
        assert b"--max-filesize 10000" in err, err
        assert not (tmp_path / "f").exists()
        status, _out, err = await run_omniurl(
            "get", "--max-filesize", "10240", "-o", str(tmp_path / "g"), url
        )
        assert status == 0, err
        assert (tmp_path / "g").read_bytes() == BIG
    finally:
        await server.close()


# -- Connection: close sent by the client (RFC 9112 §9.6) -----------------------------------


def small(target: bytes) -> tuple[bytes, bool]:
    return ok(b"file " + target + b"\n"), False


async def test_a_request_that_says_close_is_the_connections_last() -> None:
    """QA: ``-H 'Connection: close'`` went out and the next request rode the same
    connection; a client that sends close must not send another request on it."""
    from omniurl import AsyncClient
    from omniurl.resolvers import Options

    closing = Options(headers=(("Connection", "close"),))
    async with scripted(small) as (server, base):
        async with AsyncClient(closing) as client:
            got = [await client.get(f"{base}/{n}") for n in "ab"]
        assert [len(c) for c in server.connections] == [1, 1]
        assert all(b"\r\nConnection: close\r\n" in c[0] for c in server.connections)
        server.connections.clear()
        async with AsyncClient(Options()) as client:
            got += [await client.get(f"{base}/{n}") for n in "cd"]
    assert got == [b"file /a\n", b"file /b\n", b"file /c\n", b"file /d\n"]
    assert [len(c) for c in server.connections] == [2]  # (without it: one connection)


@pytest.mark.parametrize("lean", ["1", "0"])
async def test_the_batch_does_not_reuse_a_connection_it_asked_to_close(
    tmp_path: Path, lean: str
) -> None:
    env = {**os.environ, "OMNIURL_BATCH_LEAN": lean}
    async with scripted(small) as (server, base):
        urls = [f"{base}/{n}" for n in range(4)]
        status, _out, err = await run_omniurl(
            "get", "-H", "Connection: close", "--output-dir", str(tmp_path), *urls, env=env
        )
        assert status == 0, err
        assert [len(c) for c in server.connections] == [1, 1, 1, 1]
        server.connections.clear()
        status, _out, err = await run_omniurl(
            "get", "--output-dir", str(tmp_path / "kept"), "--create-dirs", *urls, env=env
        )
    assert status == 0, err
    assert [len(c) for c in server.connections] == [4]  # (without it: one connection)
    assert (tmp_path / "3").read_bytes() == b"file /3\n"


# -- -J in a batch: the name the server suggests, as a single get -J -O ----------------------


def disposed(target: bytes) -> tuple[bytes, bool]:
    name = target.rsplit(b"/", 1)[-1]
    suggested = {b"cd": b"server.txt", b"cd2": b"other.txt", b"evil": b"../../.hidden"}
    field = b'Content-Disposition: attachment; filename="%s"' % suggested.get(name, b"")
    return ok(b"content of " + name + b"\n", field), False


@pytest.mark.parametrize("way", [["--output-dir", "od"], ["-Z", "--procs", "2"], []])
@pytest.mark.parametrize("lean", ["1", "0"])
async def test_a_batch_names_files_as_the_server_suggests(
    tmp_path: Path, way: list[str], lean: str
) -> None:
    """QA: ``get -J -O --output-dir od http://H/cd`` saved ``od/cd`` and ``get -J -O URL1
    URL2`` the URLs' names; the batch now takes -J as a single get does (its safe names)."""
    env = {**os.environ, "OMNIURL_BATCH_LEAN": lean, "PYTHONPATH": str(Path.cwd())}
    async with scripted(disposed) as (_server, base):
        urls = [f"{base}/cd", f"{base}/cd2", f"{base}/evil", f"{base}/none"]
        if way[:1] == ["--output-dir"]:
            (tmp_path / "od").mkdir()
        status, _out, err = await run_omniurl(
            "get", "-J", "-O", *way, *urls[: 1 if way[:1] == ["--output-dir"] else 4],
            cwd=tmp_path, env=env,
        )  # fmt: skip
    assert status == 0, err
    if way[:1] == ["--output-dir"]:
        assert os.listdir(tmp_path / "od") == ["server.txt"]
        return
    assert sorted(os.listdir(tmp_path)) == ["hidden", "none", "other.txt", "server.txt"]
    assert (tmp_path / "server.txt").read_bytes() == b"content of cd\n"
    assert (tmp_path / "hidden").read_bytes() == b"content of evil\n"


# -- a 304 makes no file (RFC 9110 §15.4.5; curl makes none) ---------------------------------


def unmodified(target: bytes) -> tuple[bytes, bool]:
    if target.endswith(b"/fresh"):
        return ok(b"fresh\n"), False
    return b'HTTP/1.1 304 Not Modified\r\nETag: "e1"\r\n\r\n', False


async def test_a_304_makes_no_file(tmp_path: Path) -> None:
    """QA: ``-o FILE`` with ``If-Modified-Since`` answered 304 made an empty FILE."""
    since = "If-Modified-Since: Sun, 01 Jan 2034 00:00:00 GMT"
    async with scripted(unmodified) as (server, base):
        status, _out, err = await run_omniurl(
            "get", "-H", since, "-o", str(tmp_path / "f"), f"{base}/x"
        )
        assert status == 0, err
        assert not (tmp_path / "f").exists()
        (tmp_path / "kept").write_bytes(b"the copy the 304 says is current\n")
        status, _out, err = await run_omniurl(
            "get", "-H", since, "-o", str(tmp_path / "kept"), f"{base}/x"
        )
        assert status == 0, err
        assert (tmp_path / "kept").read_bytes() == b"the copy the 304 says is current\n"
        for lean in ("1", "0"):
            out = tmp_path / f"batch{lean}"
            out.mkdir()
            env = {**os.environ, "OMNIURL_BATCH_LEAN": lean}
            status, _out, err = await run_omniurl(
                "get", "-H", since, "--output-dir", str(out), f"{base}/x", f"{base}/fresh",
                env=env,
            )  # fmt: skip
            assert status == 0, err
            assert os.listdir(out) == ["fresh"]
    assert all(since.encode() in c[0] for c in server.connections)


# -- --create-dirs' help tells what happens (QA: it claimed "before anything is fetched") --


async def test_create_dirs_help_is_what_a_missing_folder_does(tmp_path: Path) -> None:
    async with scripted(small) as (server, base):
        status, _out, err = await run_omniurl("get", "-o", str(tmp_path / "no" / "f"), f"{base}/a")
        assert (status, len(server.requests)) == (23, 1), err
        status, _out, err = await run_omniurl(
            "get", "-O", "--output-dir", str(tmp_path / "no"), f"{base}/b"
        )
        assert status != 0 and len(server.requests) == 1, err
    assert not (tmp_path / "no").exists()
    status, out, _err = await run_omniurl("get", "--help", env={**os.environ, "COLUMNS": "400"})
    assert status == 0
    assert (
        b"a missing --output-dir is refused before anything is fetched, and -o FILE in a "
        b"missing folder is a write error once the reply has come" in out
    )


# -- -w as curl's: an FTP transfer's response_code, a failed transfer's filename ------------


async def test_write_out_of_ftp_and_of_a_failed_transfer(tmp_path: Path) -> None:
    """QA: FTP's ``%{response_code}`` was 000 where curl gives the last reply's code (226
    once the transfer is complete), and ``%{filename_effective}`` was empty after a failed
    transfer where curl names the ``-o`` file."""
    from omniurl import testservers

    root = tmp_path / "root"
    root.mkdir()
    (root / "f.txt").write_bytes(b"data\n")
    server = await testservers.start("ftp", root)
    form = "%{response_code} %{http_code} [%{filename_effective}] %{exitcode}\\n"
    url = f"ftp://127.0.0.1:{server.port}/f.txt"
    try:
        status, out, err = await run_omniurl("get", "-o", str(tmp_path / "f"), "-w", form, url)
        assert (status, out) == (0, f"226 226 [{tmp_path / 'f'}] 0\n".encode()), err
        missing = tmp_path / "no" / "f"
        status, out, err = await run_omniurl("get", "-o", str(missing), "-w", form, url)
        assert status == 23, err
        assert out.endswith(f" [{missing}] 23\n".encode()), out
    finally:
        await server.close()


def versions(target: bytes) -> tuple[bytes, bool]:
    if target.endswith(b"/old"):
        return b"HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\nhi\n", True
    if target.endswith(b"/interim"):
        interim = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 102 Processing\r\nX-A: b\r\n\r\n"
        return interim + b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", False
    return ok(b"hi\n"), False


async def test_write_out_http_version_and_size_header_as_curls() -> None:
    """QA: ``%{http_version}`` of an HTTP/1.0 reply was ``1.0`` where curl writes ``1``
    (tool_writeout.c maps CURL_HTTP_VERSION_1_0 to "1"; curl 7.88 on loopback agrees), and
    ``%{size_header}`` left out the interim (1xx) heads, which curl counts."""
    form = "%{http_version} %{size_header} %{http_code}\\n"
    async with scripted(versions) as (_server, base):
        status, out, err = await run_omniurl("get", "-w", form, "-o", "/dev/null", f"{base}/old")
        assert (status, out) == (0, b"1 38 200\n"), err
        status, out, err = await run_omniurl(
            "get", "-w", form, "-o", "/dev/null", f"{base}/interim"
        )
        # 25 + 35 bytes of interim heads, 38 of the final one (curl 7.88: 98)
        assert (status, out) == (0, b"1.1 98 200\n"), err


def redirecting(target: bytes) -> tuple[bytes, bool]:
    if target == b"/r":
        body = b"<a href=/a>moved</a>\n"
        head = b"HTTP/1.1 302 Found\r\nLocation: /a\r\nContent-Length: %d\r\n\r\n" % len(body)
        return head + body, False
    if target == b"/r-close":
        return b"HTTP/1.1 302 Found\r\nLocation: /a\r\nConnection: close\r\n\r\n", True
    return ok(b"hi\n"), False


async def test_a_redirect_to_the_same_server_rides_its_connection() -> None:
    """QA: ``%{num_connects}`` was 2 after a same-server redirect where curl reuses the
    connection (1): the redirect's body is read and its connection kept for the next hop
    (a command's own, without a client's pool); a redirect that closes gets a new one."""
    form = "%{num_connects} %{num_redirects} %{http_code}\\n"
    async with scripted(redirecting) as (server, base):
        status, out, err = await run_omniurl("get", "-L", "-w", form, f"{base}/r")
        assert (status, out) == (0, b"hi\n1 1 200\n"), err
        assert [[h.split(b" ")[1] for h in c] for c in server.connections] == [[b"/r", b"/a"]]
        server.connections.clear()
        status, out, err = await run_omniurl("get", "-L", "-w", form, f"{base}/r-close")
        assert (status, out) == (0, b"hi\n2 1 200\n"), err
        assert len(server.connections) == 2
