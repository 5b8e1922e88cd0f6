"""Servers that misbehave on purpose (issue "Hostile servers"): each test failed before its
fix — a server-chosen file name, descriptors numbered past 1024, redirects to schemes that
act instead of fetching."""

from __future__ import annotations

import os
import resource
from pathlib import Path

import pytest
from _ftphttp import OPTS, run_cli

import omniurl
from omniurl import resolvers
from omniurl.resolvers.errors import RedirectRefused
from omniurl.resolvers.nntp.settings import NNTPOptions
from omniurl.testservers.http import start_http


async def test_o_takes_the_name_from_the_url_given_not_from_a_redirect(tmp_path: Path) -> None:
    """wget's CVE-2010-2252: ``-O http://h/file.txt`` redirected to ``/evil/.bashrc`` must
    not write ``./.bashrc``."""
    root = tmp_path / "srv"
    (root / "evil").mkdir(parents=True)
    (root / "evil" / ".bashrc").write_bytes(b"rm -rf ~\n")
    out = tmp_path / "out"
    out.mkdir()
    web = await start_http(root, routes={"/file.txt": (302, [("Location", "/evil/.bashrc")], b"")})
    try:
        status, _o, err = await run_cli("get", "-O", f"http://{web.netloc}/file.txt", cwd=out)
    finally:
        await web.close()
    assert status == 0, err
    assert sorted(p.name for p in out.iterdir()) == ["file.txt"]
    assert (out / "file.txt").read_bytes() == b"rm -rf ~\n"


@pytest.mark.parametrize("target", ["mailto:victim@example.org", "telnet://127.0.0.1/"])
async def test_a_redirect_to_a_scheme_that_acts_is_refused(tmp_path: Path, target: str) -> None:
    web = await start_http(tmp_path, routes={"/go": (302, [("Location", target)], b"")})
    try:
        with pytest.raises(RedirectRefused) as info:
            await resolvers.resolve(f"http://{web.netloc}/go", OPTS)
    finally:
        await web.close()
    assert info.value.component == "location"
    assert "is never followed" in info.value.message


async def test_http_works_with_descriptors_numbered_past_1024(tmp_path: Path) -> None:
    """select.select refuses descriptors >= FD_SETSIZE (1024): a program with many files
    open could not fetch http at all (keep-alive checks and reads must not use it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 1200:
        pytest.skip(f"the hard limit on open files is {hard}")
    if soft < 1200:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(2048, hard), hard))
    (tmp_path / "x.txt").write_bytes(b"past 1024\n")
    held: list[int] = []
    web = await start_http(tmp_path)
    try:
        while not held or held[-1] < 1100:
            held.append(os.open(os.devnull, os.O_RDONLY))
        async with omniurl.AsyncClient(OPTS) as client:
            for _ in range(2):  # the second request checks the kept connection (is_readable)
                assert await client.get(f"http://{web.netloc}/x.txt") == b"past 1024\n"
    finally:
        for fd in held:
            os.close(fd)
        await web.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


@pytest.mark.parametrize("port", [6379, 25])
async def test_a_passive_data_port_the_policy_refuses_is_never_connected(port: int) -> None:
    """A hostile FTP server answers EPSV with Redis's port (or SMTP's): the data connection
    is refused by the port rules before it is opened."""
    from omniurl.resolvers.errors import PortRefused
    from omniurl.testservers.recording import start_recording

    def respond(line: bytes) -> bytes | None:
        answers = {
            b"USER": b"230 ok\r\n",
            b"TYPE": b"200 ok\r\n",
            b"EPSV": b"229 Entering Extended Passive Mode (|||%d|)\r\n" % port,
            b"QUIT": b"221 bye\r\n",
        }
        return answers.get(line.split(b" ", 1)[0])

    control = await start_recording(greeting=b"220 scripted\r\n", respond=respond)
    try:
        with pytest.raises(PortRefused) as info:
            await resolvers.resolve(f"ftp://{control.netloc}/f.bin", OPTS)
        sent = control.info["recording"].lines()
    finally:
        await control.close()
    assert info.value.port == port
    assert b"RETR f.bin" not in sent  # nothing asked of a connection never opened
    # EPSV was asked again (the plan's "the policy refused the port"), at most 3 times
    assert sent == [b"USER anonymous", b"TYPE I", b"EPSV", b"EPSV", b"EPSV", b"EPSV"]
    # ...but the session had begun: the refusal says what was sent, never "nothing"
    assert info.value.sent == ("USER anonymous", "TYPE I", "EPSV", "EPSV", "EPSV", "EPSV")
    assert "refused after sending: USER anonymous, TYPE I, EPSV, EPSV" in str(info.value)
    assert "nothing was sent" not in str(info.value)


async def test_a_gopher_plus_moved_item_is_asked_for_again_as_gopher_plus() -> None:
    """``--3`` (moved) to a ``+`` request: the new selector is requested with ``+`` too — a
    plain request made the server's next error text come out as content, exit 0."""
    from omniurl.testservers.recording import start_recording

    port_box: list[int] = []

    def respond(line: bytes) -> bytes | None:
        if line == b"old\t+":
            return b"--3\r\nadmin <a@h>\r\n0moved\tnew\t127.0.0.1\t%d\t+\r\n.\r\n" % port_box[0]
        if line == b"new\t+":
            return b"+-1\r\nthe new text\r\n.\r\n"
        return b"--1\r\nadmin <a@h>\r\nplain request: not here\r\n.\r\n"

    server = await start_recording(respond=respond)
    port_box.append(server.port)
    try:
        async with resolvers.resolve(f"gopher://{server.netloc}/0old%09%09+", OPTS) as r:
            assert await r.read() == b"the new text\r\n"
            assert r.chain == [f"gopher://{server.netloc}/0old%09%09+"]
        assert server.info["recording"].lines()[-1] == b"new\t+"
    finally:
        await server.close()


async def _huge_menu(reader: object, writer: object, count: int) -> None:
    import asyncio

    assert isinstance(reader, asyncio.StreamReader) and isinstance(writer, asyncio.StreamWriter)
    try:
        await reader.readline()
        for start in range(0, count, 1000):
            writer.write(
                b"".join(
                    b"0item %d\t/sel/%d\th.example\t70\r\n" % (n, n)
                    for n in range(start, min(start + 1000, count))
                )
            )
            await writer.drain()
        writer.write(b".\r\n")
        await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        writer.close()


async def test_a_huge_menu_streams_in_bounded_memory_and_can_be_cut_short() -> None:
    """2×10⁵ items (7 MB on the wire): read as they arrive, the memory held stays a small
    window (a whole-listing reader held every Entry: tens of MB); --max-entries ends it."""
    import asyncio
    import functools
    import tracemalloc

    from omniurl.resolvers.errors import LimitExceeded

    count = 200_000
    server = await asyncio.start_server(functools.partial(_huge_menu, count=count), "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    url = f"gopher://127.0.0.1:{port}/1/"
    try:
        options = OPTS.with_(stream_listings=True)
        tracemalloc.start()
        try:
            seen = 0
            async with resolvers.resolve(url, options) as menu:
                async for entry in menu.aiter_entries():
                    seen, last = seen + 1, entry
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert seen == count
        assert peak < 8 * 1024 * 1024, f"peak {peak / 2**20:.1f} MiB"
        assert last.url == f"gopher://h.example/0/sel/{count - 1}"
        with pytest.raises(LimitExceeded) as info:
            async with resolvers.resolve(url, options.with_(max_entries=1000)) as menu:
                async for _entry in menu.aiter_entries():
                    pass
        assert "more than 1000 entries" in info.value.message
        status, out, err = await run_cli("get", "--max-entries", "10", url)
        assert status == 6, err
        assert len(out.splitlines()) == 10  # printed as they came, then the limit
    finally:
        server.close()


async def test_an_over_reply_longer_than_asked_is_refused_not_held() -> None:
    """The client asked for articles 1-3; a server that sends more (an OVER reply that never
    ends took 2 GB) is refused at the first line too many."""
    from omniurl.resolvers.errors import LimitExceeded
    from omniurl.testservers.recording import start_recording

    over = b"".join(
        b"%d\tsubject %d\ta@b\tdate\t<%d@h>\t\t10\t1\r\n" % (n, n, n) for n in range(1, 50)
    )

    def respond(line: bytes) -> bytes | None:
        verb = line.split(b" ", 1)[0]
        return {
            b"CAPABILITIES": b"101 caps\r\nVERSION 2\r\nREADER\r\nOVER\r\n.\r\n",
            b"GROUP": b"211 3 1 3 g\r\n",
            b"OVER": b"224 overview\r\n" + over + b".\r\n",
            b"QUIT": b"205 bye\r\n",
        }.get(verb)

    server = await start_recording(greeting=b"200 ready\r\n", respond=respond)
    try:
        options = OPTS.with_(schemes=(NNTPOptions(max_articles=3),))
        with pytest.raises(LimitExceeded) as info:
            await resolvers.resolve(f"nntp://{server.netloc}/g", options)
    finally:
        await server.close()
    assert "asked for at most 3 articles" in info.value.message
