"""A kept FTP control connection with an unasked reply waiting is not reused; NNTP sessions
are never reused (issue 30 item 3).

``AsyncClient`` keeps an FTP control connection after a transfer for the next URL of the
same server, login and directory (RFC 1738 §3.2.5).  A server that says more than it was
asked after the final ``226`` (here a second ``226`` line, in the same write or a moment
later, over FTP and implicit FTPS) would have that line read as the reply to the next URL's
first command; now the connection is closed and a new session opened.  The server is a few
lines of raw FTP written here, counting its control connections.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest
from _ftphttp import OPTS

import omniurl

#: What the server says unasked behind its 226.
UNASKED = b"226 And another thing (sent unasked).\r\n"


@dataclass
class Chatty:
    """A minimal FTP server: anonymous login, CWD, TYPE, PBSZ/PROT, EPSV, RETR of any name
    (the content names the control connection it was asked on), QUIT."""

    between: bool
    context: ssl.SSLContext | None
    unasked: bytes = UNASKED
    port: int = 0
    connections: int = 0
    commands: list[tuple[int, bytes]] = field(default_factory=list)

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        number = self.connections
        data_server: asyncio.Server | None = None
        accepted: asyncio.Future[asyncio.StreamWriter] | None = None
        try:
            writer.write(b"220 chatty ready\r\n")
            while True:
                line = await asyncio.wait_for(reader.readuntil(b"\r\n"), 10)
                self.commands.append((number, line.rstrip(b"\r\n")))
                verb, _, arg = line.rstrip(b"\r\n").partition(b" ")
                verb = verb.upper()
                if verb == b"USER":
                    writer.write(b"331 any password\r\n")
                elif verb == b"PASS":
                    writer.write(b"230 logged in\r\n")
                elif verb in (b"CWD",):
                    writer.write(b"250 ok\r\n")
                elif verb in (b"TYPE", b"PBSZ", b"PROT"):
                    writer.write(b"200 ok\r\n")
                elif verb == b"EPSV":
                    loop = asyncio.get_running_loop()
                    accepted = loop.create_future()

                    async def take(
                        _r: asyncio.StreamReader,
                        w: asyncio.StreamWriter,
                        done: asyncio.Future[asyncio.StreamWriter] = accepted,
                    ) -> None:
                        if not done.done():
                            done.set_result(w)

                    data_server = await asyncio.start_server(take, "127.0.0.1", 0, ssl=self.context)
                    port = data_server.sockets[0].getsockname()[1]
                    writer.write(b"229 Entering Extended Passive Mode (|||%d|)\r\n" % port)
                elif verb == b"RETR" and accepted is not None and data_server is not None:
                    writer.write(b"150 here it comes\r\n")
                    await writer.drain()
                    data = await asyncio.wait_for(accepted, 10)
                    data.write(b"%s on connection %d\n" % (arg, number))
                    await data.drain()
                    data.close()
                    with contextlib.suppress(OSError, ssl.SSLError):
                        await asyncio.wait_for(data.wait_closed(), 5)
                    data_server.close()
                    data_server, accepted = None, None
                    if self.between:
                        writer.write(b"226 done\r\n")
                        await writer.drain()
                        await asyncio.sleep(0.01)
                        writer.write(self.unasked)
                    else:
                        writer.write(b"226 done\r\n" + self.unasked)
                elif verb == b"QUIT":
                    writer.write(b"221 bye\r\n")
                    await writer.drain()
                    return
                else:
                    writer.write(b"502 not here\r\n")
                await writer.drain()
        except (OSError, asyncio.IncompleteReadError, TimeoutError, ssl.SSLError):
            pass
        finally:
            if data_server is not None:
                data_server.close()
            writer.close()


@contextlib.asynccontextmanager
async def chatty(
    between: bool, context: ssl.SSLContext | None, unasked: bytes = UNASKED
) -> AsyncIterator[Chatty]:
    server_obj = Chatty(between, context, unasked)
    server = await asyncio.start_server(server_obj.serve, "127.0.0.1", 0, ssl=context)
    server_obj.port = server.sockets[0].getsockname()[1]
    try:
        yield server_obj
    finally:
        server.close()


@pytest.mark.parametrize("between", [False, True], ids=["together", "between"])
@pytest.mark.parametrize("tls", [False, True], ids=["ftp", "ftps"])
async def test_a_control_connection_with_an_unasked_reply_is_not_reused(
    between: bool, tls: bool, pki: tuple[ssl.SSLContext, str]
) -> None:
    context = pki[0] if tls else None
    options = OPTS.with_(ca_file=pki[1])
    scheme = "ftps" if tls else "ftp"
    async with chatty(between, context) as server:
        base = f"{scheme}://127.0.0.1:{server.port}/dir"
        for round_ in range(10):
            before = server.connections
            async with omniurl.AsyncClient(options) as client:
                assert await client.get(f"{base}/a.txt") == b"a.txt on connection %d\n" % (
                    before + 1
                )
                if between:
                    await asyncio.sleep(0.1)  # the line arrives while the connection is idle
                second = await client.get(f"{base}/b.txt")
            assert second == b"b.txt on connection %d\n" % (before + 2), round_
            assert server.connections == before + 2
            # the new session logged in and changed directory itself: nothing skipped
            assert (before + 2, b"CWD dir") in server.commands


@pytest.mark.parametrize("tls", [False, True], ids=["ftp", "ftps"])
async def test_a_quiet_control_connection_is_still_reused(
    tls: bool, pki: tuple[ssl.SSLContext, str]
) -> None:
    """The check costs no reuse where the server said nothing unasked."""
    context = pki[0] if tls else None
    scheme = "ftps" if tls else "ftp"
    async with chatty(False, context, unasked=b"") as server:
        base = f"{scheme}://127.0.0.1:{server.port}/dir"
        async with omniurl.AsyncClient(OPTS.with_(ca_file=pki[1])) as client:
            assert await client.get(f"{base}/a.txt") == b"a.txt on connection 1\n"
            await asyncio.sleep(0.05)
            assert await client.get(f"{base}/b.txt") == b"b.txt on connection 1\n"
        assert server.connections == 1


@dataclass
class Gossip:
    """A minimal NNTP server (RFC 3977): every article's body names the connection it was
    asked on; after each article it sends a fake ``220`` article nobody asked for."""

    port: int = 0
    connections: int = 0

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        number = self.connections
        try:
            writer.write(b"200 gossip ready\r\n")
            while True:
                line = await asyncio.wait_for(reader.readuntil(b"\r\n"), 10)
                verb, _, arg = line.rstrip(b"\r\n").partition(b" ")
                verb = verb.upper()
                if verb == b"CAPABILITIES":
                    writer.write(b"101 list\r\nVERSION 2\r\nREADER\r\n.\r\n")
                elif verb == b"GROUP":
                    writer.write(b"211 2 1 2 %s\r\n" % arg)
                elif verb == b"ARTICLE":
                    writer.write(
                        b"220 %s <a%d@gossip> article\r\nSubject: x\r\n\r\n"
                        b"article %s on connection %d\r\n.\r\n" % (arg, number, arg, number)
                    )
                    writer.write(b"220 9 <evil@gossip> article\r\n\r\nEVIL\r\n.\r\n")
                elif verb == b"QUIT":
                    writer.write(b"205 bye\r\n")
                    await writer.drain()
                    return
                else:
                    writer.write(b"500 what\r\n")
                await writer.drain()
        except (OSError, asyncio.IncompleteReadError, TimeoutError):
            pass
        finally:
            writer.close()


async def test_an_nntp_session_is_never_reused() -> None:
    """An ``AsyncClient`` opens a session per NNTP URL (nothing is kept), so unasked bytes
    behind an article can never be read as the next URL's reply."""
    gossip = Gossip()
    server = await asyncio.start_server(gossip.serve, "127.0.0.1", 0)
    gossip.port = server.sockets[0].getsockname()[1]
    try:
        async with omniurl.AsyncClient(OPTS) as client:
            for n in (1, 2):
                got = await client.get(f"nntp://127.0.0.1:{gossip.port}/misc.test/{n}")
                assert isinstance(got, bytes)
                assert b"article %d on connection %d" % (n, n) in got
                assert b"EVIL" not in got
        assert gossip.connections == 2
    finally:
        server.close()
