"""Carry out an FTP plan: exactly its command lines, in order, over a bounded connection.

The client is a small one of our own on :mod:`resolvers.net` rather than aioftp's
``Client``: aioftp rewrites ``CWD`` arguments through ``PurePosixPath`` (``CWD `` becomes
``CWD .``) and sends a ``TYPE I`` before every data connection, so what it puts on the wire is
not what RFC 1738 §3.2.2 asks for and not what the plan shows (notes/dependencies.md).  Here
every line sent is a step of the plan; the only choices at run time are the conditional ones
the plan names (``PASS`` on 331, ``PASV`` if ``EPSV`` is refused).

The data connection goes to the address the control connection reached — the address in a
``PASV`` reply is ignored (curl CVE-2020-8284: a server must not point us elsewhere).
"""

from __future__ import annotations

import asyncio
import contextlib
import mimetypes
import re
import socket
from collections.abc import AsyncGenerator, AsyncIterator

from omniurl.schemes.ftp import FTPURL

from .. import net
from ..errors import (
    AuthError,
    ConnectError,
    ConnectionClosed,
    LimitExceeded,
    NotFound,
    ProtocolError,
    ReplyError,
    ResolveTimeout,
)
from ..options import Options
from ..plan import Plan, Step
from ..policy import check_value
from ..resource import Entry, Resource
from .planner import CONTEXT
from .sessions import SESSIONS_KEY, FTPSessions, SessionKey

#: RFC 959 §4.2: a reply is "ddd text", or "ddd-text" ... "ddd text" over several lines.
_REPLY_FIRST = re.compile(rb"^(\d{3})([ -])(.*)$")
#: RFC 2428 §3: 229 Entering Extended Passive Mode (|||6446|)
_EPSV = re.compile(r"\(([\x21-\x7e])\1\1(\d{1,5})\1\)")
#: RFC 959 §4.1.2 PASV: 227 Entering Passive Mode (h1,h2,h3,h4,p1,p2)
_PASV = re.compile(r"(\d{1,3}),(\d{1,3}),(\d{1,3}),(\d{1,3}),(\d{1,3}),(\d{1,3})")
#: Many servers say the size in the 150 reply: "(1234 bytes)".
_SIZE = re.compile(r"\((\d+) bytes\)")
#: A multi-line reply longer than this many lines is refused (bounded reads).
MAX_REPLY_LINES = 1000


class Reply:
    """One FTP reply: the three-digit code and its text lines."""

    def __init__(self, code: str, lines: list[str]) -> None:
        self.code = code
        self.lines = lines

    @property
    def text(self) -> str:
        return " / ".join(line for line in self.lines if line)

    def __str__(self) -> str:
        return f"{self.code} {self.text}".rstrip()


class Control:
    """The control connection: send one command line, read one (multi-line) reply."""

    def __init__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, options: Options
    ) -> None:
        self.reader = reader
        self.writer = writer
        self.options = options
        self.replies: list[str] = []

    async def reply(self, what: str) -> Reply:
        """Read one reply (RFC 959 §4.2), bounded in lines, line length and time."""
        line = await net.read_line(self.reader, self.options, what=what)
        m = _REPLY_FIRST.match(line)
        if m is None:
            raise ProtocolError(f"the server's reply to {what} is not an FTP reply: {line!r}")
        code, sep, first = m.group(1), m.group(2), m.group(3)
        lines = [first.decode("utf-8", "replace")]
        while sep == b"-":
            if len(lines) >= MAX_REPLY_LINES:
                raise LimitExceeded(f"reply to {what} longer than {MAX_REPLY_LINES} lines")
            line = await net.read_line(self.reader, self.options, what=what)
            if line[:3] == code and line[3:4] == b" ":
                lines.append(line[4:].decode("utf-8", "replace"))
                break
            lines.append(line.decode("utf-8", "replace"))
        reply = Reply(code.decode(), lines)
        self.replies.append(str(reply))
        self.options.note("<", str(reply))
        return reply

    async def send(self, step: Step, data: bytes | None = None) -> None:
        self.options.note(">", step.shown)
        self.writer.write((step.data if data is None else data) + b"\r\n")
        try:
            await net.with_timeout(self.writer.drain(), self.options.read_timeout, "sending")
        except (ConnectionError, OSError) as exc:
            raise ConnectionClosed(f"connection lost while sending {step.shown}: {exc}") from None

    async def command(self, step: Step, data: bytes | None = None) -> Reply:
        await self.send(step, data)
        return await self.reply(step.shown.split(" ", 1)[0])

    async def close(self) -> None:
        await net.close_writer(self.writer)


def _fail(reply: Reply, what: str, component: str | None) -> ReplyError:
    """The typed error for a refusal (550: not found)."""
    message = f'the server refused "{what}": {reply}'
    if reply.code == "550":
        return NotFound(message, component=component, code=reply.code, reply=str(reply))
    return ReplyError(message, component=component, code=reply.code, reply=str(reply))


async def _login(control: Control, steps: list[Step], options: Options, plan: Plan) -> None:
    user_step, pass_step = steps
    reply = await control.command(user_step)
    if reply.code.startswith("2"):
        return  # 230: logged in without a password; PASS (conditional) is skipped
    if reply.code == "331":
        data = pass_step.data
        if pass_step.get("ask"):
            data = b"PASS " + await _ask_password(options, plan, reply)
        reply = await control.command(pass_step, data)
        if reply.code.startswith("2"):
            return
        if reply.code == "332":
            raise AuthError(
                f"the server wants an account (ACCT), which RFC 1738 URLs cannot carry: {reply}",
                component="user",
            )
        raise AuthError(f"login refused: {reply}", component="password")
    if reply.code == "332":
        raise AuthError(f"the server wants an account (ACCT): {reply}", component="user")
    raise AuthError(f"user refused: {reply}", component="user")


async def _ask_password(options: Options, plan: Plan, reply: Reply) -> bytes:
    """§3.2.1: a user without a password, and the server asks for one."""
    user = getattr(plan.url, "user", "")
    if options.ask is None:
        raise AuthError(
            f"the server asks for {user}'s password ({reply}) and the URL has none; give it "
            "in the URL, in ~/.netrc, or run on a terminal to be asked",
            component="password",
        )
    answer = await options.ask(f"Password for {user}@{plan.host}: ", secret=True)
    secret = answer.encode("utf-8", "surrogateescape")
    check_value("password", secret, CONTEXT)
    return secret


def _data_port(reply: Reply, extended: bool) -> int:
    text = " ".join(reply.lines)
    if extended:
        m = _EPSV.search(text)
        if m is None:
            raise ProtocolError(f"cannot read the port in the EPSV reply: {reply}")
        port = int(m.group(2))
    else:
        m2 = _PASV.search(text)
        if m2 is None:
            raise ProtocolError(f"cannot read the address in the PASV reply: {reply}")
        port = int(m2.group(5)) * 256 + int(m2.group(6))
    if not 0 < port < 65536:
        raise ProtocolError(f"the server gave data port {port}: {reply}")
    return port


async def _ascii_to_local(chunks: AsyncGenerator[bytes, None]) -> AsyncIterator[bytes]:
    """TYPE A carries NVT-ASCII lines ending CR LF (RFC 959 §3.1.1.1); we store them with the
    local line ending (LF), as the receiver of an ASCII transfer should.  A CR at the end of a
    chunk is held back until the next chunk shows whether an LF follows."""
    carry = b""
    try:
        async for chunk in chunks:
            data = carry + chunk
            carry = b""
            if data.endswith(b"\r"):
                data, carry = data[:-1], b"\r"
            yield data.replace(b"\r\n", b"\n")
        if carry:
            yield carry
    finally:
        await chunks.aclose()  # the inner stream owns the connections: close it now


async def _new_connection(plan: Plan, options: Options, setup: list[Step]) -> Control:
    """Connect, read the greeting, log in and send the CWDs (the plan's setup steps)."""
    assert plan.host is not None and plan.port is not None
    reader, writer = await net.open_tcp(plan.host, plan.port, options)
    control = Control(reader, writer, options)
    try:
        greeting = await control.reply("the greeting")
        if greeting.code == "120":
            greeting = await control.reply("the greeting")
        if greeting.code != "220":
            raise _fail(greeting, "the connection", "host")
        await _login(control, setup[:2], options, plan)
        for step in setup[2:]:
            reply = await control.command(step)
            if not reply.code.startswith("2"):
                component = step.values[0].component if step.values else "cwd"
                raise _fail(reply, step.shown, component)
    except BaseException:
        await control.close()
        raise
    return control


async def execute_ftp(plan: Plan, options: Options) -> Resource:
    """Run the plan; return the file's content (streamed) or the NLST listing."""
    assert plan.host is not None and plan.port is not None
    steps = list(plan.steps)
    sessions: FTPSessions | None = options.get(SESSIONS_KEY)
    key: SessionKey = plan.get("session")
    index = int(plan.get("setup_steps"))
    control = sessions.take(key, options) if sessions is not None else None
    if control is None:
        control = await _new_connection(plan, options, steps[:index])
    else:
        # §3.2.5: same server, login and CWD sequence — the setup steps are skipped.
        options.note("*", "reusing a kept control connection (same server, user and CWDs)")
    data: socket.socket | None = None
    try:
        if steps[index].data.startswith(b"TYPE"):
            reply = await control.command(steps[index])
            if not reply.code.startswith("2"):
                raise _fail(reply, steps[index].shown, "typecode")
            index += 1
        epsv, pasv, transfer, quit_step = steps[index : index + 4]
        reply = await control.command(epsv)
        if reply.code == "229":
            port = _data_port(reply, extended=True)
        else:
            reply = await control.command(pasv)
            if reply.code != "227":
                raise _fail(reply, "passive mode (EPSV and PASV)", None)
            port = _data_port(reply, extended=False)
        peer = control.writer.get_extra_info("peername")
        address = str(peer[0]) if peer else plan.host
        options.note("*", f"data connection to {address} port {port}")
        try:
            data = await net.open_socket(address, port, options)
        except ConnectError as exc:
            # The port came from the server's passive reply: the URL's host is not to blame.
            raise ConnectError(
                f"cannot open the data connection to {address} port {port} (from the "
                f"server's {reply.code} reply): {exc.message}"
            ) from None
        reply = await control.command(transfer)
        if reply.code not in ("125", "150"):
            raise _fail(reply, transfer.shown, "name" if transfer.values else "cwd")
    except BaseException:
        if data is not None:
            data.close()
        await control.close()
        raise

    ctl: Control = control
    size_match = _SIZE.search(" ".join(reply.lines))
    size = int(size_match.group(1)) if size_match else None
    sock: socket.socket = data

    kept = False

    async def finish() -> None:
        """After the data connection's EOF: the final reply, then QUIT or keep (bounded)."""
        nonlocal kept
        sock.close()
        final = await ctl.reply(f"the end of {transfer.shown}")
        if not final.code.startswith("2"):
            raise ConnectionClosed(f"the transfer did not complete: {final}", component="name")
        if sessions is not None:
            kept = True
            await sessions.give(key, ctl)
            return
        # The transfer is complete; a server that drops QUIT loses nothing.
        with contextlib.suppress(ConnectionClosed, ProtocolError, ResolveTimeout):
            await ctl.command(quit_step)

    async def close() -> None:
        sock.close()
        if not kept:
            await ctl.close()

    what = transfer.shown
    if plan.get("listing"):
        try:
            entries = await _read_listing(sock, options, plan, what)
            await finish()
        finally:
            await close()
        return Resource(
            plan,
            kind="listing",
            entries=entries,
            media_type="text/plain",
            replies=control.replies,
            metadata={"command": what},
        )

    announced = size if plan.get("type") == "I" else None

    async def body() -> AsyncGenerator[bytes, None]:
        received = 0
        try:
            async for chunk in net.recv_chunks(sock, options, what=what):
                received += len(chunk)
                yield chunk
            if announced is not None and received != announced:
                # A data connection that ends early looks like EOF; the 150 reply's size is
                # the only witness (issue 14 item 5). The caller keeps its old file.
                raise ConnectionClosed(
                    f"short transfer: the data connection closed after {received} of the "
                    f"{announced} bytes the server announced for {what}",
                    component="name",
                )
            await finish()
        finally:
            await close()

    raw = body()
    stream: AsyncIterator[bytes] = _ascii_to_local(raw) if plan.get("type") == "A" else raw
    name = str(plan.get("name") or "")
    media_type = mimetypes.guess_type(name, strict=False)[0] or "application/octet-stream"
    return Resource(
        plan,
        kind="content",
        body=stream,
        media_type=media_type,
        size=size if plan.get("type") == "I" else None,
        replies=control.replies,
        metadata={"type": plan.get("type")},
        close=close,
    )


async def _read_listing(
    sock: socket.socket, options: Options, plan: Plan, what: str
) -> list[Entry]:
    """NLST's reply on the data connection: one name per line (bounded)."""
    data = bytearray()
    async for chunk in net.recv_chunks(sock, options, what=what):
        data += chunk
        if len(data) > options.max_buffered:
            raise LimitExceeded(f"{what}: listing larger than {options.max_buffered} bytes")
    url = plan.url
    assert isinstance(url, FTPURL)
    base = [*url.cwd, url.name] if url.name else list(url.cwd)
    entries = []
    for raw in data.replace(b"\r\n", b"\n").split(b"\n"):
        if not raw:
            continue
        text = raw.decode("utf-8", "surrogateescape")
        # Some servers answer "NLST dir" with "dir/name": the name is the last segment.
        name = text.rstrip("/").rsplit("/", 1)[-1] or text
        child = url.replace(cwd=tuple(base), name=name, typecode=None, password=None)
        shown = name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        entries.append(Entry(name=shown, kind="entry", url=str(child)))
    return entries


__all__ = ["execute_ftp"]
