"""An FTP server with explicit TLS (RFC 4217: ``AUTH TLS``, ``PBSZ``, ``PROT P``), for the
tests of ``--ftp-ssl``.

aioftp's server speaks implicit TLS only (``testservers.ftp`` with ``tls=``), so this small
one speaks exactly what explicit TLS needs: the greeting, ``AUTH TLS`` (234, then the
handshake on the control connection), ``USER``/``PASS`` (any password for ``anonymous``),
``PBSZ 0``, ``PROT P``/``C``, ``CWD``, ``TYPE``, ``EPSV``/``PASV``, ``RETR``, ``NLST`` and
``QUIT``, the data connection TLS when ``PROT P`` was given.  ``info["commands"]`` records
every command line; ``info["data_tls"]`` whether each data connection was TLS, and whether
it resumed the control connection's TLS session.

Modes: ``refuse_auth=True`` answers ``AUTH TLS`` with 534 (a server without TLS);
``require_reuse=True`` refuses a data connection that does not resume the session (vsftpd's
``require_ssl_reuse=YES``).
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from pathlib import Path
from typing import Any

from .base import ConnectionTasks, RunningServer, close_quietly, register


class _Session:
    def __init__(self, root: Path, context: ssl.SSLContext, info: dict[str, Any], **kw: Any):
        self.root = root
        self.context = context
        self.info = info
        self.refuse_auth = bool(kw.get("refuse_auth", False))
        self.require_reuse = bool(kw.get("require_reuse", False))
        self.cwd = root
        self.prot = "C"
        self.secure = False
        self.logged_in = False
        self.passive: asyncio.Future[tuple[asyncio.StreamReader, asyncio.StreamWriter]] | None = (
            None
        )
        self.listener: asyncio.Server | None = None

    async def run(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.writer = writer

        def say(line: str) -> None:
            writer.write(line.encode() + b"\r\n")

        say("220 omniurl explicit-TLS FTP test server")
        while True:
            await writer.drain()
            raw = await asyncio.wait_for(reader.readline(), 30)
            if not raw:
                return
            line = raw.rstrip(b"\r\n")
            self.info["commands"].append(line)
            verb, _, arg = line.decode("utf-8", "surrogateescape").partition(" ")
            verb = verb.upper()
            if verb == "AUTH":
                if self.refuse_auth or arg.upper() != "TLS":
                    say("534 TLS not available")
                    continue
                say("234 AUTH TLS OK")
                await writer.drain()
                await writer.start_tls(self.context)
                self.secure = True
            elif verb == "USER":
                say("331 password required")
            elif verb == "PASS":
                self.logged_in = True
                say("230 logged in")
            elif verb == "PBSZ":
                say("200 PBSZ=0" if self.secure else "503 AUTH first")
            elif verb == "PROT":
                self.prot = arg.upper()
                say(f"200 PROT now {self.prot}" if self.secure else "503 AUTH first")
            elif verb == "CWD":
                target = (self.cwd / arg).resolve()
                if target.is_dir() and self.root in (target, *target.parents):
                    self.cwd = target
                    say("250 ok")
                else:
                    say("550 no such directory")
            elif verb == "TYPE":
                say("200 type set")
            elif verb in ("EPSV", "PASV"):
                port = await self._listen()
                if verb == "EPSV":
                    say(f"229 Entering Extended Passive Mode (|||{port}|)")
                else:
                    say(f"227 Entering Passive Mode (127,0,0,1,{port >> 8},{port & 255})")
            elif verb in ("RETR", "NLST"):
                await self._transfer(verb, arg, say)
            elif verb == "QUIT":
                say("221 bye")
                await writer.drain()
                return
            else:
                say("502 not implemented")

    async def _listen(self) -> int:
        loop = asyncio.get_running_loop()
        self.passive = loop.create_future()
        passive = self.passive

        async def accept(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            if not passive.done():
                passive.set_result((r, w))

        # With PROT P the handshake is part of the accept (asyncio's start_tls on a stream
        # that may already hold the client's hello would lose it), as with aioftp.
        tls = self.context if self.prot == "P" else None
        self.listener = await asyncio.start_server(accept, "127.0.0.1", 0, ssl=tls)
        return int(self.listener.sockets[0].getsockname()[1])

    async def _transfer(self, verb: str, arg: str, say: Any) -> None:
        if self.passive is None or self.listener is None:
            say("425 use EPSV or PASV first")
            return
        if verb == "RETR":
            path = self.cwd / arg
            if not path.is_file():
                say("550 no such file")
                return
            payload = path.read_bytes()
        else:
            names = sorted(p.name for p in self.cwd.iterdir())
            payload = "".join(f"{n}\r\n" for n in names).encode()
        say(f"150 opening data connection ({len(payload)} bytes)")
        await self.writer.drain()
        _reader, writer = await asyncio.wait_for(self.passive, 10)
        self.listener.close()
        try:
            if self.prot == "P":
                obj = writer.get_extra_info("ssl_object")
                reused = bool(obj is not None and obj.session_reused)
                self.info["data_tls"].append(("tls", reused))
                if self.require_reuse and not reused:
                    say("522 SSL connection failed: session reuse required")
                    return
            else:
                self.info["data_tls"].append(("plain", False))
            writer.write(payload)
            await writer.drain()
        finally:
            await close_quietly(writer, 2)
        say("226 transfer complete")


@register("ftp-tls", "serve a directory over FTP with explicit TLS (AUTH TLS, PBSZ, PROT P)")
async def start(
    root: Path,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    tls: ssl.SSLContext | None = None,
    **kw: Any,
) -> RunningServer:
    """Start the server; ``tls`` is its SSLContext (a throw-away certificate if None)."""
    context = tls or _throwaway_context()
    info: dict[str, Any] = {"commands": [], "data_tls": []}
    connections = ConnectionTasks()

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        session = _Session(Path(root).resolve(), context, info, **kw)
        try:
            await session.run(reader, writer)
        except (ConnectionError, OSError, TimeoutError, ssl.SSLError):
            pass
        finally:
            if session.listener is not None:
                session.listener.close()
            with contextlib.suppress(Exception):
                await close_quietly(writer, 2)

    server = await asyncio.start_server(connections.track(serve), host, port)
    bound = int(server.sockets[0].getsockname()[1])

    async def close() -> None:
        await connections.close(server)

    return RunningServer("ftp-tls", host, bound, close, info=info)


def _throwaway_context() -> ssl.SSLContext:
    """A self-signed certificate for 127.0.0.1 (trustme, the test extra)."""
    import trustme

    ca = trustme.CA()
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1", "localhost").configure_cert(context)
    return context


__all__ = ["start"]
