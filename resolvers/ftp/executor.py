"""Carry out an FTP plan: exactly its command lines, in order, over a bounded connection.

The client is a small one of our own on :mod:`resolvers.net` rather than aioftp's
``Client``: aioftp rewrites ``CWD`` arguments through ``PurePosixPath`` (``CWD `` becomes
``CWD .``) and sends a ``TYPE I`` before every data connection, so what it puts on the wire is
not what RFC 1738 §3.2.2 asks for and not what the plan shows (docs/dependencies.md).  Here
every line sent is a step of the plan; the only choices at run time are the conditional ones
the plan names (``PASS`` on 331, ``PASV`` if ``EPSV`` is refused).

The data connection goes to the address the control connection reached — the address in a
``PASV`` reply is ignored (curl CVE-2020-8284: a server must not point us elsewhere).
"""

from __future__ import annotations

import asyncio
import contextlib
import mimetypes
import socket
import ssl
from collections.abc import AsyncGenerator, AsyncIterator

from omniurl.schemes.ftp import FTPURL

from .. import net
from ..errors import (
    AuthError,
    ConnectError,
    ConnectionClosed,
    NotFound,
    ProtocolError,
    ReplyError,
    ResolveTimeout,
)
from ..lines import split_lines
from ..options import Options
from ..plan import Plan, Step
from ..policy import check_value
from ..resource import Entry, Resource
from ..resume import Outcome, ftp_rest_outcome, ftp_size_outcome, parse_size_reply
from ..tls import ResumingContext, resuming_context
from .keys import SESSIONS_KEY, SessionKey
from .listing import parse_list_line, parse_mlsd_line, parse_nlst_line
from .planner import CONTEXT, FTPDetails, FTPRole, Password
from .replies import (
    Reply,
    ReplyReader,
    after_pass,
    after_user,
    announced_size,
    epsv_port,
    expected_bytes,
    has_mlst,
    pasv_port,
    transfer_started,
)
from .sessions import FTPSessions

#: The steps sent only over a new connection (RFC 1738 §3.2.5).
_SETUP = (
    FTPRole.AUTH,
    FTPRole.TLS,
    FTPRole.USER,
    FTPRole.PASS,
    FTPRole.PBSZ,
    FTPRole.PROT,
    FTPRole.CWD,
)


class Control:
    """The control connection: send one command line, read one (multi-line) reply."""

    def __init__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, options: Options
    ) -> None:
        self.reader = reader
        self.writer = writer
        self.options = options
        self.replies: list[str] = []
        #: The connection's TLS context when it speaks TLS (RFC 4217): data connections
        #: use it too, resuming the control connection's session (see resolvers.tls).
        self.tls: ResumingContext | None = None

    def tls_session(self) -> ssl.SSLSession | None:
        obj = self.writer.get_extra_info("ssl_object")
        return None if obj is None else obj.session

    async def reply(self, what: str) -> Reply:
        """Read one reply (RFC 959 §4.2), bounded in lines, line length and time; what the
        lines mean is :class:`~resolvers.ftp.replies.ReplyReader`'s to say."""
        reader = ReplyReader(what)
        reply = None
        while reply is None:
            reply = reader.feed(await net.read_line(self.reader, self.options, what=what))
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
    """RFC 959 §5.4 / RFC 1738 §3.2.1: USER, then PASS if the server asks (331)."""
    user_step = next(s for s in steps if s.role is FTPRole.USER)
    pass_step = next(s for s in steps if s.role is FTPRole.PASS)
    reply = await control.command(user_step)
    if pass_step.due(reply.code):
        data = pass_step.data
        if pass_step.detail_as(Password).ask:
            data = b"PASS " + await _ask_password(options, plan, reply)
        reply = await control.command(pass_step, data)
        step = after_pass(reply.code)
        if step == "account":
            raise AuthError(
                f"the server wants an account (ACCT), which RFC 1738 URLs cannot carry: {reply}",
                component="user",
            )
        if step == "refused":
            raise AuthError(f"login refused: {reply}", component="password")
        return
    step = after_user(reply.code)
    if step == "account":
        raise AuthError(f"the server wants an account (ACCT): {reply}", component="user")
    if step == "refused":
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
    mode = plan.details_as(FTPDetails).tls
    context = resuming_context(options) if mode is not None else None
    tls_now = context if mode == "implicit" else None
    reader, writer = await net.open_tcp(plan.host, plan.port, options, tls=tls_now)
    control = Control(reader, writer, options)
    control.tls = context
    try:
        greeting = await control.reply("the greeting")
        if greeting.code == "120":
            greeting = await control.reply("the greeting")
        if greeting.code != "220":
            raise _fail(greeting, "the connection", "host")
        auth = next((s for s in setup if s.role is FTPRole.AUTH), None)
        if auth is not None and context is not None:
            # RFC 4217 §4: AUTH TLS, 234, then the handshake on the control connection.
            reply = await control.command(auth)
            if reply.code != "234":
                raise _fail(reply, "AUTH TLS (--ftp-ssl: TLS is required)", "host")
            await net.start_tls(control.writer, plan.host, plan.port, context, options)
            options.note("*", f"TLS started with {plan.host}")
        await _login(control, setup, options, plan)
        for step in (s for s in setup if s.role in (FTPRole.PBSZ, FTPRole.PROT)):
            reply = await control.command(step)  # RFC 4217 §8, §9: 200 expected
            if not reply.code.startswith("2"):
                raise _fail(reply, step.shown, "host")
        for step in (s for s in setup if s.role is FTPRole.CWD):
            reply = await control.command(step)
            if not reply.code.startswith("2"):
                component = step.values[0].component if step.values else "cwd"
                raise _fail(reply, step.shown, component)
    except BaseException:
        await control.close()
        raise
    return control


class DataChannel:
    """A data connection: a plain socket (read with :func:`resolvers.net.recv_chunks`), or
    the TLS streams over it (``PROT P``); reads bounded by the read timeout either way."""

    def __init__(
        self,
        sock: socket.socket,
        streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None,
    ) -> None:
        self.sock = sock
        self.streams = streams

    async def chunks(self, options: Options, what: str) -> AsyncIterator[bytes]:
        if self.streams is None:
            async for chunk in net.recv_chunks(self.sock, options, what=what):
                yield chunk
            return
        reader = self.streams[0]
        while True:
            try:
                async with asyncio.timeout(options.read_timeout):
                    chunk = await reader.read(options.chunk_size)
            except TimeoutError:
                raise ResolveTimeout(
                    f"timed out after {options.read_timeout:g} s reading {what}"
                ) from None
            except (ConnectionError, OSError) as exc:  # (ssl.SSLError is an OSError)
                raise ConnectionClosed(f"connection lost while reading {what}: {exc}") from None
            if not chunk:
                return
            yield chunk

    def close(self) -> None:
        if self.streams is not None:
            with contextlib.suppress(OSError, RuntimeError):
                self.streams[1].close()
        self.sock.close()


async def _data_tls(
    sock: socket.socket,
    context: ssl.SSLContext,
    address: str,
    port: int,
    host: str,
    options: Options,
) -> DataChannel:
    """The TLS handshake on a data connection (the certificate checked for the URL's host,
    the control connection's session resumed: see :class:`resolvers.tls.ResumingContext`)."""
    try:
        streams = await net.with_timeout(
            asyncio.open_connection(
                sock=sock, ssl=context, server_hostname=net.tls_name(host), limit=2**16
            ),
            options.connect_timeout,
            f"in the TLS handshake of the data connection to {address} port {port}",
        )
    except ssl.SSLError as exc:
        raise net.tls_error(exc, address, port) from None
    except (ConnectionError, OSError) as exc:
        raise ConnectionClosed(f"the data connection broke in its TLS handshake: {exc}") from None
    return DataChannel(sock, streams)


def _by_role(plan: Plan) -> dict[FTPRole, Step]:
    """The plan's steps by role (each FTP role appears once, but ``cwd``: read in order)."""
    return {step.role: step for step in plan.steps if isinstance(step.role, FTPRole)}


async def execute_ftp(plan: Plan, options: Options) -> Resource:
    """Run the plan; return the file's content (streamed) or the NLST listing."""
    assert plan.host is not None and plan.port is not None
    details = plan.details_as(FTPDetails)
    offset = details.offset
    by_role = _by_role(plan)
    sessions: FTPSessions | None = options.get(SESSIONS_KEY)
    key: SessionKey = details.session
    control = sessions.take(key, options) if sessions is not None else None
    if control is None:
        setup = [s for s in plan.steps if s.role in _SETUP]
        control = await _new_connection(plan, options, setup)
    else:
        # §3.2.5: same server, login and CWD sequence — the setup steps are skipped.
        options.note("*", "reusing a kept control connection (same server, user and CWDs)")
    if details.head:
        return await _head(control, by_role, plan)
    transfer, quit_step = by_role[FTPRole.TRANSFER], by_role[FTPRole.QUIT]
    listing_format = details.listing_format
    rest = by_role.get(FTPRole.REST)
    data: socket.socket | None = None
    handshake: asyncio.Task[DataChannel] | None = None
    try:
        await _send_type(control, by_role)
        feat = by_role.get(FTPRole.FEAT)
        if feat is not None:
            # MLSD (RFC 3659) where FEAT lists MLST, else LIST: the plan's two conditions.
            features = await control.command(feat)
            mlst = features.code == "211" and has_mlst(features.lines)
            if not transfer.due(mlst):
                transfer = by_role[FTPRole.LIST]
                listing_format = "list"
            else:
                listing_format = "mlsd"
        outcome: Outcome | None = None
        total: int | None = None
        size_step = by_role.get(FTPRole.SIZE)
        if size_step is not None:
            # -C: the server's size says whether anything is missing (resolvers.resume).
            reply = await control.command(size_step)
            total = parse_size_reply(" ".join(reply.lines)) if reply.code == "213" else None
            outcome = ftp_size_outcome(reply.code, total, offset)
        epsv, pasv = by_role[FTPRole.EPSV], by_role[FTPRole.PASV]
        if not epsv.due(outcome):
            # Nothing is missing: no data connection, nothing more sent but QUIT.
            return await _nothing_missing(control, sessions, key, quit_step, plan, total)
        reply = await control.command(epsv)
        if not pasv.due(reply.code):
            port = epsv_port(reply)
        else:
            reply = await control.command(pasv)
            if reply.code != "227":
                raise _fail(reply, "passive mode (EPSV and PASV)", None)
            port = pasv_port(reply)
        options.policy.check_data_port(port)  # the server chose it: same port rules
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
        if control.tls is not None:
            # RFC 4217 §9 (PROT P): the data connection is TLS too, resuming the control
            # connection's session.  The handshake runs beside the transfer command: vsftpd
            # starts it after its 150 reply, aioftp only answers once it is done.
            control.tls.session = control.tls_session()
            handshake = asyncio.create_task(
                _data_tls(data, control.tls, address, port, plan.host, options)
            )
        if rest is not None:
            if rest.due(outcome):
                outcome = ftp_rest_outcome((await control.command(rest)).code)
            else:
                options.note("*", f"the file is shorter than the {offset} bytes kept: whole")
                outcome = "restart"
        reply = await control.command(transfer)
        if not transfer_started(reply.code):
            raise _fail(reply, transfer.shown, "name" if transfer.values else "cwd")
        channel = DataChannel(data) if handshake is None else await handshake
    except BaseException:
        if handshake is not None:
            handshake.cancel()
            with contextlib.suppress(BaseException):
                (await handshake).close()
        if data is not None:
            data.close()
        await control.close()
        raise

    ctl: Control = control
    size = announced_size(reply)
    sock = channel

    kept = False

    async def finish() -> None:
        """After the data connection's EOF: the final reply, then QUIT or keep (bounded)."""
        nonlocal kept
        sock.close()
        final = await ctl.reply(f"the end of {transfer.shown}")
        if not final.code.startswith("2"):
            raise ConnectionClosed(f"the transfer did not complete: {final}", component="name")
        if not quit_step.due(sessions is not None):
            kept = True
            assert sessions is not None
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
    if details.listing:

        async def entries() -> AsyncIterator[Entry]:
            try:
                chunks = sock.chunks(options, what)
                async for entry in _listing_entries(chunks, options, plan, listing_format):
                    yield entry
                await finish()
            finally:
                await close()

        return Resource(
            plan,
            kind="listing",
            entry_stream=entries(),
            media_type="text/plain",
            replies=control.replies,
            metadata={"command": what},
            close=close,
        )

    # What the server said it would send, to check the bytes against (TYPE I only: an ASCII
    # transfer's line ends change the count).  resolvers.ftp.replies.expected_bytes.
    expected = (
        expected_bytes(size, total, offset if outcome == "append" else 0)
        if details.type == "I"
        else None
    )

    async def body() -> AsyncGenerator[bytes, None]:
        received = 0
        try:
            async for chunk in sock.chunks(options, what):
                received += len(chunk)
                yield chunk
            if expected is not None and received not in expected:
                # The data connection closed early (and a 226 would not make it whole):
                # never a truncated file that looks complete.
                raise ConnectionClosed(
                    f"the data connection of {what} closed after {received} bytes; the "
                    f"server announced {max(expected)}",
                    component="name",
                )
            await finish()
        finally:
            await close()

    raw = body()
    stream: AsyncIterator[bytes] = _ascii_to_local(raw) if details.type == "A" else raw
    name = details.name
    media_type = mimetypes.guess_type(name, strict=False)[0] or "application/octet-stream"
    metadata: dict[str, object] = {"type": details.type}
    if outcome is not None:
        metadata.update(resume=outcome, offset=offset if outcome == "append" else 0)
        if total is not None:
            metadata["total"] = total
            size = total - offset if outcome == "append" else total
    return Resource(
        plan,
        kind="content",
        body=stream,
        media_type=media_type,
        size=size if details.type == "I" else None,
        replies=control.replies,
        metadata=metadata,
        close=close,
    )


async def _send_type(control: Control, by_role: dict[FTPRole, Step]) -> None:
    """The plan's ``TYPE`` step, if it has one; a refusal names the typecode."""
    type_step = by_role.get(FTPRole.TYPE)
    if type_step is not None:
        reply = await control.command(type_step)
        if not reply.code.startswith("2"):
            raise _fail(reply, type_step.shown, "typecode")


async def _head(control: Control, by_role: dict[FTPRole, Step], plan: Plan) -> Resource:
    """``-I``: SIZE and MDTM (RFC 3659), then QUIT; what they said as metadata (``size``,
    ``modified`` as an HTTP-date), as curl shows them."""
    metadata: dict[str, object] = {}
    try:
        await _send_type(control, by_role)
        reply = await control.command(by_role[FTPRole.SIZE])
        if reply.code == "213":
            metadata["size"] = parse_size_reply(" ".join(reply.lines))
        elif reply.code == "550":
            raise _fail(reply, by_role[FTPRole.SIZE].shown, "name")
        reply = await control.command(by_role[FTPRole.MDTM])
        if reply.code == "213":
            modified = mdtm_time(" ".join(reply.lines))
            if modified is not None:
                metadata["modified"] = modified
        with contextlib.suppress(ConnectionClosed, ProtocolError, ResolveTimeout):
            await control.command(by_role[FTPRole.QUIT])
    finally:
        await control.close()

    async def nothing() -> AsyncIterator[bytes]:
        return
        yield b""

    size = metadata.get("size")
    return Resource(
        plan,
        kind="content",
        body=nothing(),
        size=0,
        replies=control.replies,
        metadata={"head": True, **metadata, "total": size},
    )


def mdtm_time(reply: str) -> str | None:
    """``213 YYYYMMDDHHMMSS[.sss]`` (RFC 3659 §3, UTC) as an HTTP-date (RFC 9110 §5.6.7)."""
    import datetime
    import email.utils
    import re

    m = re.search(r"\b(\d{14})(?:\.\d+)?\b", reply)
    if m is None:
        return None
    try:
        when = datetime.datetime.strptime(m.group(1), "%Y%m%d%H%M%S").replace(tzinfo=datetime.UTC)
    except ValueError:
        return None
    return email.utils.format_datetime(when, usegmt=True)


async def _nothing_missing(
    control: Control,
    sessions: FTPSessions | None,
    key: SessionKey,
    quit_step: Step,
    plan: Plan,
    total: int | None,
) -> Resource:
    """A resumed transfer whose ``SIZE`` equals what is kept: an empty, complete content."""
    try:
        if sessions is not None:
            await sessions.give(key, control)
        else:
            with contextlib.suppress(ConnectionClosed, ProtocolError, ResolveTimeout):
                await control.command(quit_step)
    finally:
        if sessions is None:
            await control.close()

    async def nothing() -> AsyncIterator[bytes]:
        return
        yield b""

    name = plan.details_as(FTPDetails).name
    return Resource(
        plan,
        kind="content",
        body=nothing(),
        media_type=mimetypes.guess_type(name, strict=False)[0] or "application/octet-stream",
        size=0,
        replies=control.replies,
        metadata={"type": "I", "resume": "complete", "offset": total, "total": total},
    )


async def _listing_entries(
    chunks: AsyncIterator[bytes], options: Options, plan: Plan, listing_format: str | None
) -> AsyncIterator[Entry]:
    """A listing's reply on the data connection (NLST, MLSD or LIST: resolvers.ftp.listing),
    as entries as they arrive; a directory's URL ends in "/" (following it lists it)."""
    url = plan.url
    assert isinstance(url, FTPURL)
    base = [*url.cwd, url.name] if url.name else list(url.cwd)
    parse = {"mlsd": parse_mlsd_line, "list": parse_list_line}.get(
        listing_format or "", parse_nlst_line
    )
    lines = split_lines(chunks, options.max_line, what="listing line")
    try:
        async for raw in lines:
            fact = parse(raw.decode("utf-8", "surrogateescape"))
            if fact is None:
                continue
            name = fact.name
            if fact.kind == "directory":
                child = url.replace(cwd=(*base, name), name="", typecode=None, password=None)
            else:
                child = url.replace(cwd=tuple(base), name=name, typecode=None, password=None)
            shown = name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
            info: dict[str, object] = {}
            if fact.size is not None:
                info["size"] = fact.size
            if fact.modify is not None:
                info["modify"] = fact.modify
            if fact.target is not None:
                info["target"] = fact.target
            yield Entry(name=shown, kind=fact.kind, url=str(child), info=info)
    finally:
        await lines.aclose()


__all__ = ["execute_ftp"]
