"""A refusal on the control connection while the data connection is read ends the transfer
at once (RFC 959 §4.2: ``150`` then ``451`` — the transfer failed).

A server that answers ``RETR`` with ``150``, then ``451 Local error`` and leaves the data
connection open: before, the client read the silent data connection until the read timeout
(30 s by default: "timed out after 30 s waiting for RETR"); curl 7.88 waits as long.  Now
the control connection is watched while the data flows (``RefusalWatch``): a 4xx or 5xx
line ends the data connection, and the error is the server's reply, with no file left.  A
``226`` sent before the data ends (it may: the data is then read to its end) is no refusal.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

import pytest
from _ftpscript import Connection, ScriptedFTP, serving
from helpers import run_omniurl

from omniurl.resolvers.ftp.machine import FTPMachine

BODY = b"0123456789" * 1000


@dataclass
class Refuser(ScriptedFTP):
    """Scripted FTP server: ``RETR`` gets ``first`` (150 …), then ``then`` on the control
    connection; the data connection gets ``sent`` bytes and stays open (``close_data``:
    closed after ``then``, the data following it)."""

    read_timeout: ClassVar[float] = 20
    first: bytes
    then: bytes
    sent: bytes = b""
    close_data: bool = False
    lines: list[bytes] = field(default_factory=list)

    async def answer(self, conn: Connection, line: bytes, verb: bytes) -> bool:
        self.lines.append(line)
        if verb != b"RETR":
            return await super().answer(conn, line, verb)
        out = await conn.data_connection()
        conn.writer.write(self.first)
        await conn.writer.drain()
        out.write(self.sent)
        await out.drain()
        await asyncio.sleep(0.1)
        conn.writer.write(self.then)
        if self.close_data:
            await conn.writer.drain()
            await asyncio.sleep(0.3)
            out.write(BODY[len(self.sent) :])
            await out.drain()
            out.close()
        return True


@pytest.mark.parametrize(
    ("first", "sent"),
    [
        (b"150 Opening BINARY mode data connection (10000 bytes)\r\n", b""),
        (b"150 Opening BINARY mode data connection\r\n", BODY[:1000]),
        (b"125 Data connection already open\r\n", b""),
    ],
    ids=["size-announced", "part-sent", "125"],
)
async def test_a_refusal_during_the_transfer_ends_it_at_once(
    first: bytes, sent: bytes, tmp_path: Path
) -> None:
    async with serving(Refuser(first, b"451 Local error in processing.\r\n", sent)) as server:
        started = time.monotonic()
        status, _out, err = await run_omniurl(
            "get", f"ftp://127.0.0.1:{server.port}/f.bin", "-o", str(tmp_path / "f.bin")
        )
        took = time.monotonic() - started
    assert status == 4
    assert err == b"omniurl: the transfer did not complete: 451 Local error in processing.\n"
    assert list(tmp_path.iterdir()) == []
    assert took < 15  # (the read timeout is 30 s: it was waited out before)


async def test_a_226_before_the_data_ends_is_no_refusal(tmp_path: Path) -> None:
    """The server may say 226 before the data connection ends: the data is read whole."""
    server = Refuser(b"150 Opening\r\n", b"226 Transfer complete.\r\n", BODY[:10], True)
    async with serving(server):
        status, _out, err = await run_omniurl(
            "get", f"ftp://127.0.0.1:{server.port}/f.bin", "-o", str(tmp_path / "f.bin")
        )
    assert (status, err) == (0, b"")
    assert (tmp_path / "f.bin").read_bytes() == BODY


def test_what_the_watch_asks_of_the_machine() -> None:
    """Pure: the first whole line buffered decides; a line still coming decides nothing."""
    from omniurl import resolvers

    machine = FTPMachine(resolvers.plan("ftp://h/f.bin"))
    assert machine.refused_meanwhile() is None and not machine.buffered_line()
    machine.receive_data(b"45")
    assert machine.refused_meanwhile() is None and not machine.buffered_line()
    machine.receive_data(b"1-Local error\r\n451 more\r\n")
    assert machine.refused_meanwhile() == "451-Local error" and machine.buffered_line()
    other = FTPMachine(resolvers.plan("ftp://h/f.bin"))
    other.receive_data(b"226 Transfer complete.\r\n")
    assert other.refused_meanwhile() is None and other.buffered_line()


async def test_a_226_answering_retr_without_its_150_is_a_refusal(tmp_path: Path) -> None:
    """``RETR`` answered ``226`` at once (no ``1xx``, no data) on a new connection: the
    server's reply to RETR, refused as any other reply that starts no transfer (exit 5, as
    before c431b60) — not a ``226`` that "answers no command sent" (exit 6), the late echo
    of an earlier transfer that only a kept connection can carry."""
    async with serving(Refuser(b"226 Transfer complete.\r\n", b"")) as server:
        status, _out, err = await run_omniurl(
            "get", f"ftp://127.0.0.1:{server.port}/f.bin", "-o", str(tmp_path / "f.bin")
        )
    assert (status, err) == (
        5,
        b'omniurl: the server refused "RETR f.bin": 226 Transfer complete.\n',
    )
    assert list(tmp_path.iterdir()) == []
