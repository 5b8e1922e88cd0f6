"""A kept FTP control connection the server closes while it sits idle: the next URL goes on
a new connection, never fails (RFC 1738 §3.2.5 reuse; RFC 9112 §9.3.1's rule for HTTP).

A server ends an idle control connection when its idle timeout runs out — silently, or
with ``421`` (RFC 959 §4.2) — and that close can cross the first command the next URL
sends on it: the command is never answered.  Before, that URL failed (``connection lost
while reading EPSV``, exit 4): in a batch to such a server every other URL did.  Now a kept
connection that ends before any reply but a ``421`` is given up and the URL asked again on
a new one, as an HTTP request on a stale kept connection is sent again.

The scripted server makes the crossing certain: on the connection that carried a transfer,
it answers the next command with nothing but the close (or a ``421`` and the close).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from _ftphttp import OPTS
from _ftpscript import Connection, ScriptedFTP, serving

import omniurl
from omniurl.resolvers.errors import ConnectionClosed, ProtocolError, ReplyError
from omniurl.resolvers.ftp.machine import FTPMachine, Received, Send


@dataclass
class IdleCloser(ScriptedFTP):
    """Scripted FTP server: each connection serves one ``RETR``; the command after it is
    answered with ``farewell`` (b"": nothing) and the close — unless ``patient``."""

    farewell: bytes = b""
    patient: bool = False
    #: Instead: a second ``226`` before the next command's own reply (then served on).
    stray: bool = False
    lines: list[tuple[int, bytes]] = field(default_factory=list)
    #: The connections (by number) whose ``RETR`` was served, the next command not yet.
    served: set[int] = field(default_factory=set)

    async def answer(self, conn: Connection, line: bytes, verb: bytes) -> bool:
        self.lines.append((conn.number, line))
        if conn.number in self.served and self.stray:
            conn.writer.write(b"226 Transfer complete.\r\n")
            self.served.discard(conn.number)
        elif conn.number in self.served and not self.patient and verb != b"QUIT":
            conn.writer.write(self.farewell)
            await conn.writer.drain()
            return False
        if verb != b"RETR":
            return await super().answer(conn, line, verb)
        out = await conn.data_connection()
        conn.writer.write(b"150 Opening BINARY mode data connection\r\n")
        out.write(b"%s from connection %d" % (line[5:], conn.number))
        await out.drain()
        out.close()
        conn.writer.write(b"226 Transfer complete\r\n")
        self.served.add(conn.number)
        return True


@pytest.mark.parametrize(
    "farewell",
    [b"", b"421 Timeout.\r\n", b"421-Idle too long\r\n421 Closing.\r\n"],
    ids=["silent", "421", "421-multiline"],
)
async def test_a_kept_connection_closed_unanswered_is_asked_again_on_a_new_one(
    farewell: bytes,
) -> None:
    async with serving(IdleCloser(farewell)) as server:
        base = f"ftp://127.0.0.1:{server.port}"
        async with omniurl.AsyncClient(OPTS) as client:
            got = [await client.get(f"{base}/{name}") for name in ("a", "b", "c")]
    assert got == [b"a from connection 1", b"b from connection 2", b"c from connection 3"]
    # the kept connection's one command went unanswered; the URL went again from the start
    assert [line for n, line in server.lines if n == 1][-2:] == [b"RETR a", b"EPSV"]
    assert [line for n, line in server.lines if n == 2] == [
        b"USER anonymous",
        b"PASS tester@example.org",
        b"TYPE I",
        b"EPSV",
        b"RETR b",
        b"EPSV",
    ]


async def test_a_late_second_226_on_a_kept_connection_is_asked_again_on_a_new_one() -> None:
    """A server that says ``226`` twice, the second crossing the next URL's first command:
    every reply on that connection answers the command before (``EPSV`` read ``226``, so
    ``PASV`` was sent and read ``EPSV``'s ``229``).  Before, the URL failed ("the server
    refused passive mode: 229 …", exit 5); now a ``226`` awaited for no transfer marks the
    connection out of step and a kept one is given up, the URL asked again on a new one."""
    async with serving(IdleCloser(stray=True)) as server:
        base = f"ftp://127.0.0.1:{server.port}"
        async with omniurl.AsyncClient(OPTS) as client:
            got = [await client.get(f"{base}/{name}") for name in ("a", "b", "c")]
    assert got == [b"a from connection 1", b"b from connection 2", b"c from connection 3"]
    assert [line for n, line in server.lines if n == 1][-2:] == [b"RETR a", b"EPSV"]


def test_a_226_awaited_for_no_transfer_is_out_of_step() -> None:
    """The machine's rule, without sockets: a 226 where no transfer's end is awaited."""
    plan = omniurl.resolvers.plan("ftp://h/f.bin", OPTS)
    machine = FTPMachine(plan, reused=True, keep=True)
    sent = machine.next_event()
    assert isinstance(sent, Send) and sent.data == b"TYPE I\r\n"
    machine.receive_data(b"226 Transfer complete.\r\n")
    assert isinstance(machine.next_event(), Received)
    with pytest.raises(ProtocolError, match="out of step"):
        machine.next_event()
    assert machine.out_of_step


def test_the_machine_asks_again_only_for_a_kept_connection_that_said_nothing_but_421() -> None:
    """The rule the executor follows (:meth:`FTPMachine.asks_again`), without sockets: a
    kept connection closed with no reply or only ``421`` is asked again, and so is one out
    of step; a new connection's close, a kept one's other reply, or a ProtocolError of a
    connection in step are the URL's error."""
    plan = omniurl.resolvers.plan("ftp://h/f.bin", OPTS)
    closed = ConnectionClosed("connection closed while waiting for TYPE I")
    new, kept = FTPMachine(plan), FTPMachine(plan, reused=True, keep=True)
    assert (new.asks_again(closed), kept.asks_again(closed)) == (False, True)
    kept.replies.append("421 Timeout.")
    assert kept.asks_again(closed) and kept.asks_again(ReplyError("421 Timeout."))
    assert not kept.asks_again(ProtocolError("not an FTP reply"))
    kept.replies.append("500 Go away.")
    assert not kept.asks_again(closed)
    kept.out_of_step = True
    assert kept.asks_again(ProtocolError("out of step")) and not new.asks_again(closed)


async def test_an_honest_server_keeps_its_connection() -> None:
    async with serving(IdleCloser(patient=True)) as server:
        base = f"ftp://127.0.0.1:{server.port}"
        async with omniurl.AsyncClient(OPTS) as client:
            got = [await client.get(f"{base}/{name}") for name in ("a", "b")]
    assert got == [b"a from connection 1", b"b from connection 1"]
    assert server.connections == 1


async def test_a_new_connection_closed_unanswered_is_still_the_error() -> None:
    """Only a kept connection is asked again: a new one that ends is the URL's error (no
    retry loop), and so is a kept one that answered something other than 421 first."""
    async with serving(IdleCloser(b"")) as server:
        base = f"ftp://127.0.0.1:{server.port}"
        # (one get per client: every connection is new)
        for name in ("a", "b"):
            async with omniurl.AsyncClient(OPTS) as client:
                assert await client.get(f"{base}/{name}") == b"%s from connection %d" % (
                    name.encode(),
                    server.connections,
                )
    async with serving(IdleCloser(b"500 Go away.\r\n")) as server:
        base = f"ftp://127.0.0.1:{server.port}"
        async with omniurl.AsyncClient(OPTS) as client:
            await client.get(f"{base}/a")
            with pytest.raises((ReplyError, ConnectionClosed)):
                await client.get(f"{base}/b")
        assert server.connections == 1
