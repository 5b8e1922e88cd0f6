"""The FTP test server itself: aioftp's server plus what real clients use.

(Imported only when an FTP server starts — aioftp is slow to import, and every ``omniurl``
command lists the servers; :mod:`testservers.ftp` is the light front.)

aioftp's server answers 502 to ``NLST``, ``SIZE`` and ``NOOP`` (docs/dependencies.md); RFC 1738
§3.2.2 needs ``NLST`` for ``;type=d``, and clients use the other two, so they are added here.
Every command line is recorded exactly as it arrived (``info["commands"]``, bytes without the
line ending, ``PASS`` included) so a test can check that the wire equals the plan.

Logins: ``anonymous`` and ``ftp`` take any password (after a 331, as real servers do); the
``users`` mapping adds named users with their passwords.  Every user sees ``root`` as ``/``.
``break_retr_after=N`` makes RETR send N bytes and then drop both connections (a server that
dies mid-transfer), for the failure-path tests.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import ssl
import stat
import time
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

import aioftp
from aioftp.server import ConnectionConditions, PathConditions, PathPermissions, worker

from .base import RunningServer

END_OF_LINE = "\r\n"
#: The pseudo-command our parse_command returns at end of input (never a real FTP verb).
_EOF = "\x00eof"
#: What a path out of the root is mapped to: a name no file system can hold (a NUL).
_OUTSIDE = "\x00outside-the-root"


class _Quiet(logging.Filter):
    """aioftp logs a traceback when a client drops without QUIT or the server closes with live
    connections (docs/dependencies.md): expected here, so filtered — only those two."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, (ConnectionResetError, asyncio.CancelledError, BrokenPipeError))


logging.getLogger("aioftp.server").addFilter(_Quiet())


class _Users(aioftp.AbstractUserManager):
    """``anonymous``/``ftp`` with any password, plus named users with fixed passwords."""

    def __init__(self, root: Path, users: Mapping[str, str]) -> None:
        super().__init__()
        self.root = root
        self.passwords = dict(users)

    async def get_user(
        self, login: str
    ) -> tuple[aioftp.AbstractUserManager.GetUserResponse, aioftp.User | None, str]:
        state = aioftp.AbstractUserManager.GetUserResponse
        if login in ("anonymous", "ftp") or login in self.passwords:
            user = aioftp.User(login=login, base_path=self.root, home_path="/")
            return state.PASSWORD_REQUIRED, user, "password required"
        return state.ERROR, None, "no such user"

    async def authenticate(self, user: aioftp.User, password: str) -> bool:
        if user.login in self.passwords:
            return bool(self.passwords[user.login] == password)
        return True

    async def notify_logout(self, user: aioftp.User) -> None:
        return None


class RecordingFTPServer(aioftp.Server):
    """aioftp's server with NLST, SIZE and NOOP, recording every command line."""

    def __init__(self, *args: Any, break_retr_after: int | None = None, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.commands: list[bytes] = []
        self.break_retr_after = break_retr_after
        self.commands_mapping.update(
            {
                "nlst": self.nlst,
                "size": self.size,
                "mdtm": self.mdtm,
                "noop": self.noop,
                "feat": self.feat,
                "epsv": self.epsv_with_family,
                _EOF: self.end_of_input,
            }
        )

    @staticmethod
    def get_paths(connection: Any, path: str | PurePosixPath) -> tuple[Path, PurePosixPath]:
        """aioftp's mapping, but a path whose link leads out of the root (``ln -s /etc x``)
        names a file that does not exist (550), as the Gopher and Gemini servers refuse it;
        aioftp checks the root only before links are followed.  The name it is given has a
        NUL, which no file system takes: no file or folder made in the root can answer for
        it (a name a user could make, ``.omniurl-outside-the-root``, would have been
        served), and pathlib's checks say "no such file" of it (False, not ValueError)."""
        real, virtual = aioftp.Server.get_paths(connection, path)
        root = Path(connection.user.base_path).resolve()
        target = real.resolve()
        if not target.is_relative_to(root):
            real = root / _OUTSIDE
        return real, virtual

    async def parse_command(
        self, stream: Any, censor_commands: tuple[str] = ("pass",)
    ) -> tuple[str, str]:
        # aioftp strips the line, so "CWD " (a null-argument CWD) becomes "CWD": record the
        # raw line first, which is what a test compares with the plan.
        line = await stream.readline()
        if not line:
            # aioftp raises ConnectionResetError here, which its dispatcher leaves unretrieved
            # when it is already ending (asyncio then logs a traceback): end the session
            # through a command instead.
            return _EOF, ""
        self.commands.append(line.rstrip(b"\r\n"))
        text = line.decode(self.encoding, "surrogateescape").rstrip("\r\n")
        cmd, _, rest = text.partition(" ")
        return cmd.lower(), rest

    async def end_of_input(self, connection: Any, rest: str) -> bool:
        """The client closed the control connection: end the session quietly."""
        return False

    async def epsv_with_family(self, connection: Any, rest: str) -> bool:
        """RFC 2428 §3: ``EPSV``, ``EPSV <net-prt>`` and ``EPSV ALL``.  aioftp answers 522 to
        any argument, with no "(1)" hint (squid gives up: "522 error missing protocol
        negotiation hints"); here a family matching the control connection is served, ``ALL``
        is acknowledged, and another family gets 522 naming the one that works."""
        own = 2 if ":" in connection.server_host else 1
        argument = rest.strip().upper()
        if argument == "ALL":
            connection.response("200", "EPSV ALL ok")
            return True
        if argument and argument != str(own):
            connection.response("522", f"Network protocol not supported, use ({own})")
            return True
        return bool(await self.epsv(connection, ""))

    async def noop(self, connection: Any, rest: str) -> bool:
        connection.response("200", "ok")
        return True

    async def feat(self, connection: Any, rest: str) -> bool:
        connection.response(
            "211",
            ["features:", " EPSV", " PASV", " SIZE", " MDTM", " MLST type*;size*;modify*;", "end"],
            True,
        )
        return True

    @ConnectionConditions(ConnectionConditions.login_required)
    @PathConditions(PathConditions.path_must_exists, PathConditions.path_must_be_file)
    @PathPermissions(PathPermissions.readable)  # type: ignore[arg-type]
    async def mdtm(self, connection: Any, rest: str) -> bool:
        """RFC 3659 §3: the modification time, UTC, YYYYMMDDHHMMSS."""
        real_path, _virtual = self.get_paths(connection, rest)
        stats = await connection.path_io.stat(real_path)
        stamp = time.strftime("%Y%m%d%H%M%S", time.gmtime(stats.st_mtime))
        connection.response("213", stamp)
        return True

    @ConnectionConditions(ConnectionConditions.login_required)
    @PathConditions(PathConditions.path_must_exists, PathConditions.path_must_be_file)
    @PathPermissions(PathPermissions.readable)  # type: ignore[arg-type]
    async def size(self, connection: Any, rest: str) -> bool:
        # As vsftpd and ProFTPD: no SIZE in ASCII, the type a session starts in (RFC 959
        # §3.1.1.1); RFC 3659 §4 counts octets in the current type, so clients ask in TYPE I.
        typed = "transfer_type" in connection and connection.future.transfer_type.done()
        if not typed or connection.transfer_type != "I":
            connection.response("550", "SIZE not allowed in ASCII mode")
            return True
        real_path, _virtual = self.get_paths(connection, rest)
        stats = await connection.path_io.stat(real_path)
        connection.response("213", str(stats.st_size))
        return True

    @ConnectionConditions(
        ConnectionConditions.login_required, ConnectionConditions.passive_server_started
    )
    @PathConditions(PathConditions.path_must_exists)
    @PathPermissions(PathPermissions.readable)  # type: ignore[arg-type]
    async def nlst(self, connection: Any, rest: str) -> bool:
        """RFC 959 §4.1.3 NLST: the names in a directory (or the name of a file), one a line."""

        @ConnectionConditions(
            ConnectionConditions.data_connection_made,
            wait=True,
            fail_code="425",
            fail_info="Can't open data connection",
        )
        @worker  # type: ignore[arg-type]
        async def nlst_worker(self: RecordingFTPServer, connection: Any, rest: str) -> bool:
            stream = connection.data_connection
            del connection.data_connection
            async with stream:
                st = await connection.path_io.stat(real_path)
                if stat.S_ISDIR(st.st_mode):
                    names = sorted([p.name async for p in connection.path_io.list(real_path)])
                else:
                    names = [real_path.name]
                for name in names:
                    await stream.write((name + END_OF_LINE).encode(self.encoding))
            connection.response("226", "name list transfer done")
            return True

        real_path, _virtual = self.get_paths(connection, rest)
        coro: Any = nlst_worker(self, connection, rest)
        task: asyncio.Task[bool] = asyncio.create_task(coro)
        connection.extra_workers.add(task)
        connection.response("150", "name list transfer started")
        return True

    async def retr(self, connection: Any, rest: str | PurePosixPath) -> bool:
        if self.break_retr_after is None:
            return bool(await super().retr(connection, rest))
        return bool(await self._broken_retr(connection, rest))

    @ConnectionConditions(
        ConnectionConditions.login_required, ConnectionConditions.passive_server_started
    )
    @PathConditions(  # type: ignore[arg-type]
        PathConditions.path_must_exists, PathConditions.path_must_be_file
    )
    async def _broken_retr(self, connection: Any, rest: str | PurePosixPath) -> bool:
        """RETR that sends ``break_retr_after`` bytes, then drops data and control connections."""
        real_path, _virtual = self.get_paths(connection, rest)
        connection.response("150", "data transfer started (and about to fail)")
        for _ in range(100):
            if connection.future.data_connection.done():
                break
            await asyncio.sleep(0.01)
        stream = connection.data_connection
        del connection.data_connection
        data = real_path.read_bytes()[: self.break_retr_after]
        await stream.write(data)
        stream.close()
        connection.command_connection.close()
        return False


async def _drain(server: aioftp.Server, timeout: float) -> None:
    """Wait until the server has no connections left, at most ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while server.connections and loop.time() < deadline:
        await asyncio.sleep(0.01)


async def start_ftp(
    root: Path,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    users: Mapping[str, str] | None = None,
    break_retr_after: int | None = None,
    block_size: int = 256 * 1024,
    tls: ssl.SSLContext | None = None,
    max_connections: int | None = None,
) -> RunningServer:
    """Serve ``root`` over FTP; ``info["commands"]`` is the recorded command list.  With
    ``tls`` (a server SSLContext): implicit FTPS (``ftps:``), the control connection and
    every data connection TLS from their first byte (aioftp's ``ssl``)."""
    server = RecordingFTPServer(
        _Users(Path(root).resolve(), users or {}),
        break_retr_after=break_retr_after,
        block_size=block_size,
        idle_timeout=60,
        socket_timeout=30,
        ssl=tls,
        maximum_connections=max_connections,
    )
    await server.start(host, port)
    bound_port = server.server.sockets[0].getsockname()[1]

    async def close() -> None:
        # Closing aioftp's server with live connections cancels their dispatchers, which
        # asyncio 3.11 reports as errors: let the connections end first (bounded), ending
        # those that linger by closing their command stream (EOF ends a dispatcher cleanly).
        await _drain(server, 1.0)
        for connection in list(server.connections.values()):
            with contextlib.suppress(Exception):
                connection.command_connection.close()
        await _drain(server, 2.0)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(server.close(), 5)

    return RunningServer(
        "ftp", host, bound_port, close, info={"commands": server.commands, "server": server}
    )


__all__ = ["RecordingFTPServer", "start_ftp"]
