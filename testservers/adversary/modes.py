"""``omniurl serve adversary --mode MODE``: one loopback server per way a server can misbehave.

Every mode generates its reply lazily (a menu of 10⁷ items costs the server nothing), so the
client is the only side whose time and memory are measured.  ``count`` sizes the listings,
``interval`` paces the trickles.  Each mode names the protocol it speaks and what a client
must do about it (the tests in ``tests/test_adversary.py`` check exactly that):

==========================  ========================================================================
trickle-gopher-text         a text item, one byte per ``interval``: --max-time / --speed-limit
trickle-gopher-menu         a menu, one byte per ``interval``
trickle-http-status         the status line itself trickles
trickle-http-headers        a fast status line, then trickling header fields
trickle-http-body           fast headers (Content-Length), then a trickling body
http-100-flood              ``100 Continue`` interim responses without end
http-redirect-dotfile       302 to ``/evil/.bashrc``: -O must keep the URL's own name
trickle-ftp-greeting        the 220 greeting trickles
ftp-220-flood               ``220-`` continuation lines without end
trickle-nntp-greeting       the NNTP greeting trickles
huge-gopher-menu            a menu of ``count`` items (default 10⁷), bounded by --max-entries
endless-nntp-over           OVER for 1-3 answered with overview lines without end
huge-nntp-list              LIST ACTIVE of ``count`` groups
huge-ftp-nlst               NLST of ``count`` names on the data connection
ftp-short                   150 announces 1,000,000 bytes, 1,000 arrive, then 226: a typed error
escape-gopher-error         a type-3 error whose text holds terminal escape sequences
escape-ftp-550              a 550 reply holding terminal escape sequences
gopher-plus-moved           a Gopher+ ``--3`` moved reply pointing at another Gopher+ item
telnet-negotiation-flood    option negotiation without end and never a byte of data
==========================  ========================================================================
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter, "Params"], Awaitable[None]]


@dataclass
class Params:
    count: int
    interval: float
    port: int = 0


MODES: dict[str, tuple[str, Handler]] = {}


def mode(name: str, what: str) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        MODES[name] = (what, handler)
        return handler

    return register


async def _trickle(writer: asyncio.StreamWriter, data: bytes, interval: float) -> None:
    for i in range(len(data)):
        writer.write(data[i : i + 1])
        await writer.drain()
        await asyncio.sleep(interval)


async def _flood(writer: asyncio.StreamWriter, lines: Iterator[bytes]) -> None:
    """Write lazily generated lines as fast as the client takes them (bounded buffers)."""
    batch: list[bytes] = []
    for line in lines:
        batch.append(line)
        if len(batch) >= 512:
            writer.write(b"".join(batch))
            batch.clear()
            await writer.drain()
    writer.write(b"".join(batch))
    await writer.drain()


def _endless(template: bytes) -> Iterator[bytes]:
    n = 0
    while True:
        n += 1
        yield template.replace(b"{n}", str(n).encode())


async def _request(reader: asyncio.StreamReader) -> bytes:
    return (await asyncio.wait_for(reader.readline(), 30)).rstrip(b"\r\n")


# -- Gopher ------------------------------------------------------------------------------


@mode("trickle-gopher-text", "gopher text, one byte per interval")
async def _trickle_gopher_text(r: asyncio.StreamReader, w: asyncio.StreamWriter, p: Params) -> None:
    await _request(r)
    await _trickle(w, b"a slow text\r\n" * 1000 + b".\r\n", p.interval)


@mode("trickle-gopher-menu", "a gopher menu, one byte per interval")
async def _trickle_gopher_menu(r: asyncio.StreamReader, w: asyncio.StreamWriter, p: Params) -> None:
    await _request(r)
    await _trickle(w, b"0slow item\t/slow\t127.0.0.1\t70\r\n" * 1000 + b".\r\n", p.interval)


@mode("huge-gopher-menu", "a gopher menu of COUNT items, generated as it is read")
async def _huge_menu(r: asyncio.StreamReader, w: asyncio.StreamWriter, p: Params) -> None:
    await _request(r)
    lines = (f"0item {i}\t/item/{i}\t127.0.0.1\t{p.port}\r\n".encode() for i in range(p.count))
    await _flood(w, lines)
    w.write(b".\r\n")
    await w.drain()


@mode("escape-gopher-error", "a gopher type-3 error whose text holds terminal escapes")
async def _escape_gopher(r: asyncio.StreamReader, w: asyncio.StreamWriter, p: Params) -> None:
    await _request(r)
    w.write(b"3\x1b]0;pwned\x07\x1b[2J\x1b[31mnot found\x1b[0m\t\terror.host\t1\r\n.\r\n")
    await w.drain()


@mode("gopher-plus-moved", "a Gopher+ --3 moved reply to another Gopher+ item")
async def _gopher_moved(r: asyncio.StreamReader, w: asyncio.StreamWriter, p: Params) -> None:
    selector = await _request(r)
    if selector.startswith(b"/new"):
        w.write(b"+-1\r\nthe moved item\r\n.\r\n")
    else:
        w.write(
            b"--3\r\nAdmin <a@h>\r\n0Moved\t/new\t127.0.0.1\t"
            + str(p.port).encode()
            + b"\t+\r\n.\r\n"
        )
    await w.drain()


# -- HTTP --------------------------------------------------------------------------------

_HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n"


async def _http_request(r: asyncio.StreamReader) -> None:
    while (await asyncio.wait_for(r.readline(), 30)).strip():
        pass


@mode("trickle-http-status", "an HTTP status line, one byte per interval")
async def _trickle_status(r: asyncio.StreamReader, w: asyncio.StreamWriter, p: Params) -> None:
    await _http_request(r)
    await _trickle(w, _HEAD + b"x" * 1000, p.interval)


@mode("trickle-http-headers", "fast status line, trickling header fields")
async def _trickle_headers(r: asyncio.StreamReader, w: asyncio.StreamWriter, p: Params) -> None:
    await _http_request(r)
    w.write(b"HTTP/1.1 200 OK\r\n")
    await _trickle(w, b"X-Slow: " + b"y" * 5000 + b"\r\n\r\n", p.interval)


@mode("trickle-http-body", "fast headers, trickling body")
async def _trickle_body(r: asyncio.StreamReader, w: asyncio.StreamWriter, p: Params) -> None:
    await _http_request(r)
    w.write(_HEAD)
    await _trickle(w, b"x" * 1000, p.interval)


@mode("http-100-flood", "100 Continue interim responses without end")
async def _http_100(r: asyncio.StreamReader, w: asyncio.StreamWriter, p: Params) -> None:
    await _http_request(r)
    for _ in range(10**9):
        w.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        await w.drain()
        await asyncio.sleep(p.interval / 10)


@mode("http-redirect-dotfile", "a 302 to /evil/.bashrc")
async def _http_dotfile(r: asyncio.StreamReader, w: asyncio.StreamWriter, p: Params) -> None:
    first = (await asyncio.wait_for(r.readline(), 30)).split()
    while (await asyncio.wait_for(r.readline(), 30)).strip():
        pass
    if len(first) > 1 and first[1] == b"/evil/.bashrc":
        w.write(b"HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\nrm -rf ~ # !")
    else:
        w.write(b"HTTP/1.1 302 Found\r\nLocation: /evil/.bashrc\r\nContent-Length: 0\r\n\r\n")
    await w.drain()


# -- FTP ---------------------------------------------------------------------------------


@mode("trickle-ftp-greeting", "an FTP 220 greeting, one byte per interval")
async def _trickle_ftp(r: asyncio.StreamReader, w: asyncio.StreamWriter, p: Params) -> None:
    await _trickle(w, b"220 " + b"slow " * 400 + b"\r\n", p.interval)


@mode("ftp-220-flood", "220- continuation lines without end")
async def _ftp_flood(r: asyncio.StreamReader, w: asyncio.StreamWriter, p: Params) -> None:
    await _flood(w, (b"220-welcome, line %d\r\n" % i for i in range(10**12)))


async def _ftp_login(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> bytes:
    """Greet, log anyone in, say yes to CWD/TYPE; return the first other command."""
    w.write(b"220 adversary\r\n")
    while True:
        await w.drain()
        line = await _request(r)
        verb = line.split(b" ", 1)[0].upper()
        if verb == b"USER":
            w.write(b"331 password\r\n")
        elif verb == b"PASS":
            w.write(b"230 in\r\n")
        elif verb in (b"CWD", b"TYPE"):
            w.write(b"250 ok\r\n" if verb == b"CWD" else b"200 ok\r\n")
        else:
            return line


async def _passive(
    w: asyncio.StreamWriter,
) -> tuple[asyncio.Future[asyncio.StreamWriter], asyncio.Server]:
    loop = asyncio.get_running_loop()
    ready: asyncio.Future[asyncio.StreamWriter] = loop.create_future()

    async def accept(_r: asyncio.StreamReader, dw: asyncio.StreamWriter) -> None:
        if not ready.done():
            ready.set_result(dw)

    server = await asyncio.start_server(accept, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    w.write(f"229 Entering Extended Passive Mode (|||{port}|)\r\n".encode())
    await w.drain()
    return ready, server


async def _ftp_data(
    r: asyncio.StreamReader, w: asyncio.StreamWriter, first: bytes
) -> tuple[bytes, asyncio.StreamWriter, asyncio.Server]:
    line = first
    while not line.upper().startswith(b"EPSV"):
        w.write(b"502 no\r\n" if not line.upper().startswith(b"PASV") else b"502 use EPSV\r\n")
        await w.drain()
        line = await _request(r)
    ready, server = await _passive(w)
    command = await _request(r)
    data = await asyncio.wait_for(ready, 30)
    return command, data, server


@mode("huge-ftp-nlst", "NLST of COUNT names, generated as they are read")
async def _huge_nlst(r: asyncio.StreamReader, w: asyncio.StreamWriter, p: Params) -> None:
    _command, data, server = await _ftp_data(r, w, await _ftp_login(r, w))
    try:
        w.write(b"150 here they come\r\n")
        await w.drain()
        await _flood(data, (b"name-%d.txt\r\n" % i for i in range(p.count)))
    finally:
        data.close()
        server.close()
    w.write(b"226 done\r\n")
    await w.drain()


@mode("ftp-short", "150 announces 1,000,000 bytes, 1,000 arrive, then 226")
async def _ftp_short(r: asyncio.StreamReader, w: asyncio.StreamWriter, p: Params) -> None:
    _command, data, server = await _ftp_data(r, w, await _ftp_login(r, w))
    try:
        w.write(b"150 Opening BINARY mode data connection (1000000 bytes)\r\n")
        await w.drain()
        data.write(b"x" * 1000)
        await data.drain()
    finally:
        data.close()
        server.close()
    w.write(b"226 Transfer complete\r\n")
    await w.drain()
    with contextlib.suppress(Exception):
        await _request(r)
        w.write(b"221 bye\r\n")
        await w.drain()


@mode("escape-ftp-550", "a 550 reply holding terminal escape sequences")
async def _escape_ftp(r: asyncio.StreamReader, w: asyncio.StreamWriter, p: Params) -> None:
    line = await _ftp_login(r, w)
    listeners: list[tuple[asyncio.Future[asyncio.StreamWriter], asyncio.Server]] = []
    try:
        while True:
            if line.upper().startswith(b"EPSV"):
                listeners.append(await _passive(w))
            else:
                w.write(b"550 \x1b]0;pwned\x07\x1b[2J\x1b[31mno such file\x1b[0m\r\n")
                await w.drain()
            line = await _request(r)
    finally:
        for ready, server in listeners:
            server.close()
            if ready.done():
                ready.result().close()
            else:
                ready.cancel()


# -- NNTP --------------------------------------------------------------------------------


@mode("trickle-nntp-greeting", "an NNTP greeting, one byte per interval")
async def _trickle_nntp(r: asyncio.StreamReader, w: asyncio.StreamWriter, p: Params) -> None:
    await _trickle(w, b"200 " + b"slow " * 400 + b"\r\n", p.interval)


async def _nntp(r: asyncio.StreamReader, w: asyncio.StreamWriter, p: Params, answer: Any) -> None:
    w.write(b"200 adversary news\r\n")
    while True:
        await w.drain()
        line = await _request(r)
        verb = line.split(b" ", 1)[0].upper()
        if verb == b"CAPABILITIES":
            w.write(b"101 caps\r\nVERSION 2\r\nREADER\r\nOVER\r\nLIST ACTIVE\r\n.\r\n")
        elif verb == b"GROUP":
            w.write(b"211 3 1 3 omniurl.test\r\n")
        elif verb == b"QUIT":
            w.write(b"205 bye\r\n")
            await w.drain()
            return
        elif not await answer(verb, w):
            w.write(b"500 what?\r\n")


@mode("endless-nntp-over", "OVER of articles 1-3 answered without end")
async def _endless_over(r: asyncio.StreamReader, w: asyncio.StreamWriter, p: Params) -> None:
    async def answer(verb: bytes, out: asyncio.StreamWriter) -> bool:
        if verb != b"OVER":
            return False
        out.write(b"224 overview\r\n")
        await _flood(out, _endless(b"{n}\tsubject {n}\ta@b\tdate\t<{n}@h>\t\t10\t1\r\n"))
        return True

    await _nntp(r, w, p, answer)


@mode("huge-nntp-list", "LIST ACTIVE of COUNT groups")
async def _huge_list(r: asyncio.StreamReader, w: asyncio.StreamWriter, p: Params) -> None:
    async def answer(verb: bytes, out: asyncio.StreamWriter) -> bool:
        if verb != b"LIST":
            return False
        out.write(b"215 groups\r\n")
        await _flood(out, (b"group.%d 10 1 y\r\n" % i for i in range(p.count)))
        out.write(b".\r\n")
        return True

    await _nntp(r, w, p, answer)


# -- telnet ------------------------------------------------------------------------------


@mode("telnet-negotiation-flood", "option negotiation without end, never a byte of data")
async def _telnet_flood(r: asyncio.StreamReader, w: asyncio.StreamWriter, p: Params) -> None:
    # WILL BINARY, DO ECHO, WILL SGA, DONT TTYPE, WILL 99 (refused every time), IAC NOP:
    # each chunk is complete commands, so the client always has something to read at once
    # and never a byte of data.  What the client answers is read and dropped.
    chunk = bytes([255, 251, 0, 255, 253, 1, 255, 251, 3, 255, 254, 24, 255, 251, 99, 255, 241])
    drain = asyncio.ensure_future(_discard(r))
    try:
        while True:
            w.write(chunk * 256)
            await w.drain()
    finally:
        drain.cancel()


async def _discard(reader: asyncio.StreamReader) -> None:
    while await reader.read(65536):
        pass


__all__ = ["MODES", "Params"]
