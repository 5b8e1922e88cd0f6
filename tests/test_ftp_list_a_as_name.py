"""A server that reads ``LIST -a``'s ``-a`` as a name: the folder is asked for with plain
``LIST`` (docs/ftp.md).

Without MLST in FEAT a folder is listed with ``LIST -a`` (dotfiles, as MLSD lists them;
wget sends it too).  A server whose ``LIST`` takes no ``ls`` options reads ``-a`` as the
name of a file: one refuses it (550, plain ``LIST`` over the open data connection: tested
in test_ftp_machine), another lists that missing file — nothing — and says 226.  Before,
that empty listing was the folder's: ``omniurl get ftp://h/dir/`` printed nothing, exit 0,
where curl (plain ``LIST``) and wget (a second ``LIST`` where ``SYST`` is not ``UNIX Type:
L8``) list the folder.  A Unix server's ``-a`` lists ``.`` and ``..`` even in an empty
folder, so an empty ``LIST -a`` is asked again with plain ``LIST``, over a new data
connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from helpers import run_omniurl

LISTING = (
    b"-rw-r--r--   1 ftp ftp        5 Jan 01  2020 a.txt\r\n"
    b"drwxr-xr-x   2 ftp ftp     4096 Jan 01  2020 sub\r\n"
)


@dataclass
class DashAsName:
    """Scripted FTP server without FEAT whose LIST reads ``-a`` as a file name (so
    ``LIST -a`` lists nothing) unless ``listing_a`` says what ``LIST -a`` lists."""

    listing_a: bytes = b""
    port: int = 0
    lines: list[bytes] = field(default_factory=list)
    #: What each data connection carried, in order: (the command, the bytes).
    transfers: list[tuple[bytes, bytes]] = field(default_factory=list)

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        data: asyncio.Queue[asyncio.StreamWriter] = asyncio.Queue()
        listeners: list[asyncio.Server] = []

        async def accepted(_r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            await data.put(w)

        writer.write(b"220 scripted\r\n")
        try:
            while line := await asyncio.wait_for(reader.readline(), 10):
                line = line.rstrip(b"\r\n")
                self.lines.append(line)
                verb = line.split(b" ", 1)[0]
                if verb == b"EPSV":
                    listener = await asyncio.start_server(accepted, "127.0.0.1", 0)
                    listeners.append(listener)
                    port = listener.sockets[0].getsockname()[1]
                    writer.write(b"229 Entering Extended Passive Mode (|||%d|)\r\n" % port)
                elif verb == b"LIST":
                    out = await asyncio.wait_for(data.get(), 10)
                    writer.write(b"150 Here comes the listing\r\n")
                    body = self.listing_a if line == b"LIST -a" else LISTING
                    self.transfers.append((line, body))
                    out.write(body)
                    await out.drain()
                    out.close()
                    writer.write(b"226 Directory send OK\r\n")
                else:
                    writer.write(
                        {
                            b"USER": b"331 pw\r\n",
                            b"PASS": b"230 ok\r\n",
                            b"CWD": b"250 ok\r\n",
                            b"FEAT": b"500 FEAT not understood\r\n",
                            b"QUIT": b"221 bye\r\n",
                        }.get(verb, b"502 no\r\n")
                    )
                await writer.drain()
                if verb == b"QUIT":
                    break
        except (OSError, TimeoutError):
            pass
        finally:
            for listener in listeners:
                listener.close()
            writer.close()


@contextlib.asynccontextmanager
async def serving(server: DashAsName) -> AsyncIterator[DashAsName]:
    listening = await asyncio.start_server(server.serve, "127.0.0.1", 0)
    server.port = listening.sockets[0].getsockname()[1]
    try:
        yield server
    finally:
        listening.close()


async def test_an_empty_list_a_is_asked_again_with_plain_list() -> None:
    async with serving(DashAsName()) as server:
        status, out, err = await run_omniurl(
            "get", f"ftp://127.0.0.1:{server.port}/dir/", "--max-time", "20"
        )
    assert (status, err) == (0, b"")
    base = f"ftp://127.0.0.1:{server.port}/dir"
    assert out.decode() == f"file\ta.txt\t{base}/a.txt\ndirectory\tsub\t{base}/sub/\n"
    assert server.lines == [
        b"USER anonymous",
        b"PASS omniurl@localhost",
        b"CWD dir",
        b"FEAT",
        b"EPSV",
        b"LIST -a",
        b"EPSV",
        b"LIST",
        b"QUIT",
    ]
    assert server.transfers == [(b"LIST -a", b""), (b"LIST", LISTING)]


async def test_the_json_metadata_names_the_command_that_listed() -> None:
    """``--json``'s ``"metadata"``: the listing came from plain ``LIST`` (before the
    fallback's fix it said ``LIST -a``, which listed nothing)."""
    async with serving(DashAsName()) as server:
        status, out, err = await run_omniurl(
            "get", "--json", f"ftp://127.0.0.1:{server.port}/dir/", "--max-time", "20"
        )
    assert (status, err) == (0, b"")
    got = json.loads(out)
    assert got["metadata"] == {"command": "LIST"}
    assert [entry["name"] for entry in got["entries"]] == ["a.txt", "sub"]


async def test_a_list_a_that_lists_something_is_the_folders_listing() -> None:
    """One listed entry is enough: no second LIST (the round trip is paid only for an
    empty one)."""
    dot = b"drwxr-xr-x   2 ftp ftp     4096 Jan 01  2020 .\r\n"
    async with serving(DashAsName(listing_a=dot + LISTING)) as server:
        status, out, err = await run_omniurl(
            "get", f"ftp://127.0.0.1:{server.port}/dir/", "--max-time", "20"
        )
    assert (status, err) == (0, b"")
    assert out.count(b"\n") == 2  # (a.txt and sub; "." is dropped)
    assert server.lines[-3:] == [b"EPSV", b"LIST -a", b"QUIT"]
