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

import json
from dataclasses import dataclass, field
from typing import ClassVar

from _ftpscript import Connection, ScriptedFTP, serving
from helpers import run_omniurl

LISTING = (
    b"-rw-r--r--   1 ftp ftp        5 Jan 01  2020 a.txt\r\n"
    b"drwxr-xr-x   2 ftp ftp     4096 Jan 01  2020 sub\r\n"
)


@dataclass
class DashAsName(ScriptedFTP):
    """Scripted FTP server without FEAT whose LIST reads ``-a`` as a file name (so
    ``LIST -a`` lists nothing) unless ``listing_a`` says what ``LIST -a`` lists."""

    replies: ClassVar[dict[bytes, bytes]] = {
        b"USER": b"331 pw\r\n",
        b"PASS": b"230 ok\r\n",
        b"CWD": b"250 ok\r\n",
        b"FEAT": b"500 FEAT not understood\r\n",
        b"QUIT": b"221 bye\r\n",
    }
    listing_a: bytes = b""
    lines: list[bytes] = field(default_factory=list)
    #: What each data connection carried, in order: (the command, the bytes).
    transfers: list[tuple[bytes, bytes]] = field(default_factory=list)

    async def answer(self, conn: Connection, line: bytes, verb: bytes) -> bool:
        self.lines.append(line)
        if verb != b"LIST":
            return await super().answer(conn, line, verb)
        out = await conn.data_connection()
        conn.writer.write(b"150 Here comes the listing\r\n")
        body = self.listing_a if line == b"LIST -a" else LISTING
        self.transfers.append((line, body))
        out.write(body)
        await out.drain()
        out.close()
        conn.writer.write(b"226 Directory send OK\r\n")
        return True


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
    base = f"ftp://127.0.0.1:{server.port}/dir"  # ("." is dropped)
    assert out.decode() == f"file\ta.txt\t{base}/a.txt\ndirectory\tsub\t{base}/sub/\n"
    assert server.lines[-3:] == [b"EPSV", b"LIST -a", b"QUIT"]
