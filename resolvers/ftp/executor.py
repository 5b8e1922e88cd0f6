"""Carry out an FTP plan: a byte pump between :class:`resolvers.net.Stream` and the machine.

Every decision — which command goes next, what a reply means — is
:class:`resolvers.ftp.machine.FTPMachine`'s (pure, tested with bytes).  Here only bytes move:
the control connection's replies into the machine, its :class:`~resolvers.ftp.machine.Send`
events onto the wire, the data connection's content out to the caller; and the I/O the
machine pauses for (a TLS handshake, a password asked for, the data connection).

Not aioftp's ``Client``: aioftp rewrites ``CWD`` arguments through ``PurePosixPath`` (``CWD ``
becomes ``CWD .``) and sends a ``TYPE I`` before every data connection, so what it puts on the
wire is not what RFC 1738 §3.2.2 asks for and not what the plan shows (docs/dependencies.md).

The data connection goes to the address the control connection reached — the address in a
``PASV`` reply is ignored (curl CVE-2020-8284: a server must not point us elsewhere).
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable

from omniurl.schemes.ftp import FTPURL

from .. import net
from ..errors import (
    AuthError,
    ConnectError,
    ConnectionClosed,
    PolicyError,
    ProtocolError,
    ReplyError,
    ResolveTimeout,
    ResumeMismatch,
    suppress,
)
from ..lines import split_lines
from ..options import ClientLimits, Options
from ..plan import Plan
from ..policy import check_value
from ..resource import Entry, Resource, Resumed
from ..resume import Outcome
from .machine import (
    NEED_DATA,
    DataPortRefused,
    Done,
    Event,
    Facts,
    FTPMachine,
    NothingMissing,
    OpenData,
    PasswordWanted,
    Received,
    Send,
    Sentinel,
    StartTLS,
    TransferReady,
)
from .planner import CONTEXT, FTPDetails
from .replies import ReplyReader
from .result import FTPResult
from .sessions import FTPSessions
from .settings import ListingFormat, TLSMode

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..tls import ResumingContext
    from .listing import Seen


class Control:
    """A control connection: the stream, and the TLS context its data connections use
    (RFC 4217: they resume the control connection's session; see resolvers.tls)."""

    def __init__(self, stream: net.Stream, options: Options, tls: ResumingContext | None):
        self.stream = stream
        self.options = options
        self.tls = tls
        self.replies: list[str] = []
        #: Every command line sent, as shown (the password masked): what a refusal after
        #: the session began names as sent (PolicyError.after_sending).
        self.sent: list[str] = []
        #: The ``TYPE`` line the server last accepted here (FTPMachine's ``type_now``).
        self.type_now: bytes | None = None

    def idle_ended(self) -> bool:
        return self.stream.idle_ended()

    async def quit(self) -> None:
        """``QUIT`` on a kept connection being let go (bounded, best effort), then close."""
        with suppress(ConnectionClosed, ProtocolError, ResolveTimeout):
            self.options.note(">", "QUIT")
            await self.stream.write(b"QUIT\r\n", "QUIT")
            reader, reply = ReplyReader("QUIT"), None
            while reply is None:
                reply = reader.feed(await self.stream.read_line("QUIT's reply"))
            self.options.note("<", str(reply))
        self.close()

    def close(self) -> None:
        self.stream.close()


class Pump:
    """Moves bytes between the control connection and the machine, until the machine
    pauses for the executor (or is done)."""

    def __init__(self, control: Control, machine: FTPMachine) -> None:
        self.control = control
        self.machine = machine
        self.data: DataChannel | None = None
        self._handshake: asyncio.Task[DataChannel] | None = None

    async def next(self) -> Event:
        """The next event that needs the executor (replies noted, commands sent on the
        way).  Once only ``QUIT``'s reply is awaited, a server that drops it loses nothing:
        a failure then is the end (``Done``)."""
        try:
            return await self._next()
        except (ConnectionClosed, ProtocolError, ResolveTimeout):
            if self.machine.quitting:
                self.control.close()
                return Done(keep=False)
            raise
        except PolicyError as exc:  # a data port refused mid-session: say what went out
            raise exc.after_sending(self.control.sent) from None

    async def _next(self) -> Event:
        machine, stream, options = self.machine, self.control.stream, self.control.options
        while True:
            event = machine.next_event()
            if event is NEED_DATA:
                machine.receive_data(await stream.read(machine.waiting_for))
            elif isinstance(event, Received):
                text = str(event.reply)  # (once: a mirror reads ~4 replies a file)
                self.control.replies.append(text)
                options.note("<", text)
            elif isinstance(event, Send):
                options.note(">", event.shown)
                self.control.sent.append(event.shown)
                await stream.write(event.data, event.shown)
            elif isinstance(event, DataPortRefused):
                options.note(
                    "*",
                    f"data port {event.port} refused ({event.reason}): {event.command} again "
                    f"({event.refused} of at most {event.retries})",
                )
            else:
                assert not isinstance(event, Sentinel), "the FTP machine paused unanswered"
                return event

    async def until_done(self) -> Done | NothingMissing | Facts | TransferReady:
        """Pump, answering the machine's pauses for TLS, a password and the data connection;
        returns at the transfer, or at the end of a conversation without one."""
        while True:
            event = await self.next()
            if isinstance(event, StartTLS):
                await self._start_tls()
            elif isinstance(event, PasswordWanted):
                try:
                    secret = await _ask_password(self.control.options, self.machine.plan, event)
                except PolicyError as exc:  # (USER went out first)
                    raise exc.after_sending(self.control.sent) from None
                self.machine.password(secret)
            elif isinstance(event, OpenData):
                try:
                    await self._open_data(event)
                except PolicyError as exc:  # the data address refused mid-session
                    raise exc.after_sending(self.control.sent) from None
            else:
                assert not isinstance(event, Received | Send | DataPortRefused)
                return event

    async def done(self) -> Done:
        """Pump the end of the conversation (the final reply, ``QUIT``)."""
        event = await self.next()
        assert isinstance(event, Done), event
        return event

    async def _start_tls(self) -> None:
        plan, control = self.machine.plan, self.control
        assert plan.host is not None and plan.port is not None and control.tls is not None
        await control.stream.start_tls(control.tls, plan.host, plan.port)
        control.options.note("*", f"TLS started with {plan.host}")
        self.machine.tls_started()

    async def _open_data(self, event: OpenData) -> None:
        control, options, plan = self.control, self.control.options, self.machine.plan
        assert plan.host is not None
        # (the port passed the policy in the machine: a refused one is never handed out)
        address = control.stream.peer_address() or plan.host
        options.note("*", f"data connection to {address} port {event.port}")
        try:
            # The control connection's own address, checked as the URL's host: allowed the
            # way the control connection was (--allow-host NAME), never as a bare literal.
            sock = await net.open_socket(address, event.port, options, checked_as=plan.host)
        except ConnectError as exc:
            # The port came from the server's passive reply: the URL's host is not to blame.
            raise ConnectError(
                f"cannot open the data connection to {address} port {event.port} (from the "
                f"server's {event.reply.code} reply): {exc.message}"
            ) from None
        self.data = DataChannel(net.Stream(sock, options))
        if not self.machine.details.listing:
            self.data.stream.bulk()  # (a file: possibly large; a listing is read by lines)
        if control.tls is not None:
            # RFC 4217 §9 (PROT P): the data connection is TLS too, resuming the control
            # connection's session.  The handshake runs beside the transfer command: vsftpd
            # starts it after its 150 reply, aioftp only answers once it is done.
            control.tls.session = control.stream.tls_session()
            self._handshake = asyncio.create_task(
                _data_tls(self.data, control.tls, address, event.port, plan.host)
            )
        self.machine.data_opened()

    async def data_channel(self) -> DataChannel:
        """The data connection, its TLS handshake (if any) done."""
        if self._handshake is not None:
            handshake, self._handshake = self._handshake, None
            await handshake
        assert self.data is not None
        return self.data

    async def abandon(self) -> None:
        """After a failure: the data connection and its handshake, then the control one."""
        if self._handshake is not None:
            self._handshake.cancel()
            with suppress(BaseException):
                await self._handshake
        if self.data is not None:
            self.data.close()
        self.control.close()


async def _ask_password(options: Options, plan: Plan, event: PasswordWanted) -> bytes:
    """§3.2.1: a user without a password, and the server asks for one."""
    user = getattr(plan.url, "user", "")
    if options.ask is None:
        raise AuthError(
            f"the server asks for {user}'s password ({event.reply}) and the URL has none; give "
            "it in the URL, in ~/.netrc, or run on a terminal to be asked",
            component="password",
        )
    answer = await options.ask(f"Password for {user}@{plan.host}: ", secret=True)
    secret = answer.encode("utf-8", "surrogateescape")
    check_value("password", secret, CONTEXT)
    return secret


class RefusalWatch:
    """Watches a plain control connection while the data connection is read: a refusal
    the server sends meanwhile (``150`` then ``451``, the data connection left open) ends
    the data connection at once, so the transfer fails with the server's reply instead of
    waiting out the read timeout (before: "timed out after 30 s waiting for RETR").

    The loop's reader callback takes what arrives with one non-blocking ``recv`` and hands
    it to the machine (nothing is read by two readers, nothing is lost to a cancelled
    read): a 4xx or 5xx line shuts the data socket (its reader sees the end), a complete
    other line (the ``226``, early) ends the watch.  A TLS control connection is not
    watched (its transport reads the socket itself)."""

    def __init__(self, control: Control, machine: FTPMachine, data: DataChannel) -> None:
        self._machine = machine
        self._data = data
        self._sock = control.stream.sock
        self._fd = -1
        if control.stream.tls or self._shut_if_refused():
            return
        if machine.buffered_line():
            return  # (a complete line other than a refusal: the 226, early)
        self._loop = asyncio.get_running_loop()
        self._fd = self._sock.fileno()
        self._loop.add_reader(self._fd, self._readable)

    def _readable(self) -> None:
        try:
            data = self._sock.recv(65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            self.stop()
            return
        self._machine.receive_data(data)
        if not data or self._shut_if_refused() or self._machine.buffered_line():
            self.stop()

    def _shut_if_refused(self) -> bool:
        refused = self._machine.refused_meanwhile()
        if refused is None:
            return False
        with suppress(OSError):
            self._data.stream.sock.shutdown(socket.SHUT_RDWR)
        return True

    def stop(self) -> None:
        """Before the control connection is read again (the data's end): no more watching."""
        if self._fd >= 0:
            with suppress(OSError, RuntimeError, ValueError):  # (a closed loop)
                self._loop.remove_reader(self._fd)
            self._fd = -1


class DataChannel:
    """The data connection's stream (TLS after ``PROT P``), read to its end."""

    def __init__(self, stream: net.Stream) -> None:
        self.stream = stream

    def chunks(self, what: str) -> AsyncIterator[bytes]:
        return self.stream.chunks(what)

    async def content(
        self, what: str, views: Callable[[], bool], sink: Callable[[], int | None] = lambda: None
    ) -> AsyncIterator[bytes]:
        """A file's bytes to the end of the data connection.  While ``views()`` holds (the
        consumer writes each chunk before asking for the next: ``Resource.views_ok``), they
        come as ``memoryview`` chunks of one reused buffer, filled straight from the socket
        (``Stream.fill_into``): 512 MiB from vsftpd took 2,048 reads of 256 KiB, each a new
        object; so, ~550 reads into the same memory.  Where the consumer only writes to a
        file descriptor (``sink()``: ``Resource.sink``), the bytes are spliced there
        (``Stream.splice_into``), chunks standing for them (``net.moved``)."""
        stream = self.stream
        buffer: memoryview | None = None
        while True:
            if views():
                fd = sink()
                if fd is not None and stream.can_splice:
                    n = await stream.splice_into(fd, net.BULK_READ, what)
                    if not n:
                        return
                    yield net.moved(n)  # type: ignore[misc]
                    continue
                if buffer is None:
                    if stream.at_end:
                        # (the splice above met the end: a fresh buffer here only read
                        # b"", after zeroing 1 MiB — ~1M instructions and 256 page faults
                        # of every small file's get, callgrind, 2026-11-28)
                        return
                    buffer = memoryview(bytearray(net.BULK_READ))
                n = await stream.fill_into(buffer, what)
                if not n:
                    return
                yield buffer[:n]  # type: ignore[misc]
            else:
                data = await stream.read(what)
                if not data:
                    return
                yield data

    def close(self) -> None:
        self.stream.close()


async def _data_tls(
    data: DataChannel, context: ResumingContext, address: str, port: int, host: str
) -> DataChannel:
    """The TLS handshake on a data connection (the certificate checked for the URL's host,
    the control connection's session resumed: see :class:`resolvers.tls.ResumingContext`)."""
    what = f"the TLS handshake of the data connection to {address} port {port}"
    await data.stream.start_tls(context, host, port, what)
    return data


async def _connect(plan: Plan, options: Options) -> Control:
    """A new control connection (TLS from the first byte for ftps:)."""
    assert plan.host is not None and plan.port is not None
    mode = plan.details_as(FTPDetails).tls
    context = None
    if mode is not None:  # (the TLS module, and OpenSSL with it, only for a TLS session)
        from ..tls import resuming_context

        context = resuming_context(options)
    tls_now = context if mode is TLSMode.IMPLICIT else None
    stream = await net.connect(plan.host, plan.port, options, tls=tls_now)
    return Control(stream, options, context)


def _make_sessions(limits: ClientLimits) -> FTPSessions:
    """A client's FTP session cache, made on its first ftp: URL."""
    return FTPSessions(max_idle=limits.max_idle_sessions, max_total=limits.max_idle_sessions)


async def execute_ftp(plan: Plan, options: Options) -> Resource:
    """Run the plan; return the file's content (streamed), the listing or ``-I``'s facts."""
    details = plan.details_as(FTPDetails)
    sessions = (
        options.shared.get(FTPSessions, _make_sessions) if options.shared is not None else None
    )
    control = sessions.take(details.session, options) if sessions is not None else None
    while True:
        reused = control is not None
        if control is None:
            control = await _connect(plan, options)
        else:
            # §3.2.5: same server, login and CWD sequence — the setup steps are skipped.
            options.note("*", "reusing a kept control connection (same server, user and CWDs)")
        machine = FTPMachine(
            plan,
            reused=reused,
            keep=sessions is not None,
            max_line=options.max_line,
            type_now=control.type_now,
            policy=options.policy,
        )
        pump = Pump(control, machine)
        try:
            event = await pump.until_done()
            if isinstance(event, Facts):
                await _end(pump, sessions, plan)
                return _head(plan, control, event)
            if isinstance(event, NothingMissing):
                await _end(pump, sessions, plan)
                return _nothing_missing(plan, control, event)
            assert isinstance(event, TransferReady)
            channel = await pump.data_channel()
        except (ConnectionClosed, ReplyError, ProtocolError) as exc:
            await pump.abandon()
            if not machine.asks_again(exc):
                raise
            # (a kept connection closed while idle, or out of step: again on a new one.
            # Before, the URL failed: "connection lost while reading EPSV")
            options.note("*", f"the kept control connection failed ({exc}): again")
            control = None
            continue
        except BaseException:
            await pump.abandon()
            raise
        return await _transfer(plan, options, pump, sessions, channel, event)


async def _end(pump: Pump, sessions: FTPSessions | None, plan: Plan) -> None:
    """QUIT (or keep the connection: ``Done(keep=True)``)."""
    done = await pump.done()
    if done.keep:
        assert sessions is not None
        pump.control.type_now = pump.machine.type_now
        await sessions.give(plan.details_as(FTPDetails).session, pump.control)
    else:
        pump.control.close()


async def _transfer(
    plan: Plan,
    options: Options,
    pump: Pump,
    sessions: FTPSessions | None,
    channel: DataChannel,
    ready: TransferReady,
) -> Resource:
    """The content (or listing) as it arrives on the data connection; after its end the
    final reply, then QUIT or keep (bounded)."""
    details = plan.details_as(FTPDetails)
    control = pump.control
    what = ready.command
    state = {"ended": False}
    made: list[Resource] = []  # (the resource, once made: whether its consumer takes views)
    data = [channel]  # (the data connection now read: a listing may need a second one)
    watches = [RefusalWatch(control, pump.machine, channel)]

    async def finish(received: int, seen: Seen | None = None) -> TransferReady | None:
        """The data connection ended after ``received`` bytes (``seen``: what a checked
        ``LIST -a`` named): the final reply, then QUIT or the connection kept — or, for
        ``LIST -a`` that listed nothing or only ``-a``, plain ``LIST``'s transfer (the
        plan's re-list), returned to be read next."""
        watches[0].stop()
        data[0].close()
        pump.machine.data_done(received, seen)
        event = await pump.until_done()  # (a second data connection opened on the way)
        if isinstance(event, TransferReady):
            data[0] = await pump.data_channel()
            watches[0] = RefusalWatch(control, pump.machine, data[0])
            return event
        done = event
        assert isinstance(done, Done), done
        if made:  # (the final reply, 226, is the resource's too: -v, -w %{response_code})
            made[0].replies.extend(control.replies[len(made[0].replies) :])
        if done.keep:
            state["ended"] = True
            assert sessions is not None
            control.type_now = pump.machine.type_now
            await sessions.give(details.session, control)
        return None

    async def close() -> None:
        watches[0].stop()
        data[0].close()
        if pump.data is not None and pump.data is not data[0]:
            pump.data.close()  # (a re-list's data connection, its LIST refused)
        if not state["ended"]:
            control.close()

    if details.listing:

        async def entries() -> AsyncIterator[Entry]:
            from .listing import Seen  # (a listing's: a file's get never imports it)

            try:
                now: TransferReady | None = ready
                while now is not None:
                    # A checked LIST -a: its entries wait while they could be a listing of
                    # "-a" alone (the machine may then ask a plain LIST: planner.py)
                    seen = Seen() if now.checked else None
                    held: list[Entry] = []
                    chunks = _counted(data[0].chunks(now.command))
                    listed = _listing_entries(chunks, options, plan, now.listing_format, seen)
                    async for entry in listed:
                        if seen is not None and seen.nothing_but_dash_a:
                            held.append(entry)
                            continue
                        for kept in held:
                            yield kept
                        held.clear()
                        yield entry
                    again = await finish(chunks.count, seen)
                    if again is not None:
                        # LIST -a listed nothing, or only "-a": the plain LIST's listing is
                        # the answer (what was held is dropped; --json says LIST)
                        options.note("*", f"{now.command} listed nothing but -a: {again.command}")
                        made[0].result = FTPResult(command=again.command)
                    else:
                        for kept in held:
                            yield kept
                    now = again
            finally:
                await close()

        listing = Resource(
            plan,
            kind="listing",
            entry_stream=entries(),
            media_type="text/plain",
            replies=control.replies,
            close=close,
            result=FTPResult(command=what),
        )
        made.append(listing)
        return listing

    def views() -> bool:
        return details.type == "I" and bool(made) and made[0].views_ok

    def sink() -> int | None:
        return made[0].sink if made else None

    async def body() -> AsyncGenerator[bytes, None]:
        received = 0
        try:
            async for chunk in channel.content(what, views, sink):
                received += len(chunk)
                yield chunk
            again = await finish(received)
            assert again is None  # (a file's transfer is never asked for again)
        finally:
            await close()

    raw = body()
    stream: AsyncIterator[bytes] = _ascii_to_local(raw) if details.type == "A" else raw
    if details.type == "A" and details.offset > 0:
        # -C in TYPE A: the whole file came again; what is kept is skipped (planner.py)
        stream, complete = await _past_kept(stream, details.offset, plan)
        resumed = Resumed(Outcome.COMPLETE if complete else Outcome.APPEND, details.offset)
        resource = _content(plan, ready, stream, control.replies, close, resumed=resumed)
    else:
        resource = _content(plan, ready, stream, control.replies, close)
    made.append(resource)
    return resource


async def _past_kept(
    stream: AsyncIterator[bytes], offset: int, plan: Plan
) -> tuple[AsyncIterator[bytes], bool]:
    """``-C`` of a ``TYPE A`` transfer: the file as saved (local line ends) from byte
    ``offset`` on, and whether nothing follows it (the part kept is the whole file).

    The kept part is what a transfer in one go saved first (the same conversion), so the
    file ends the bytes a transfer in one go makes — never the server's CR LF after the
    part's LF, as a resume in ``TYPE I`` gave.  A file now shorter than the part is
    :class:`ResumeMismatch` (exit 36, curl's "bad download resume"; nothing written, the
    part kept): it changed since, and by the time that is known the whole file has gone by
    — fetching it again from byte 0, as ``TYPE I`` does on ``SIZE``'s word (``refetch``),
    would be a second transfer the plan does not show."""
    seen = 0
    rest = b""
    try:
        while seen < offset:
            try:
                chunk = await anext(stream)
            except StopAsyncIteration:
                error = ResumeMismatch(
                    f"cannot resume {plan.url} at byte {offset}: the part kept is longer than "
                    f"the file, which in TYPE A with local line ends is {seen} bytes now (it "
                    "changed since the part was saved; the part is kept); fetch it whole "
                    "without -C",
                    component="name",
                )
                error.offset, error.size = offset, seen
                raise error from None
            if seen + len(chunk) > offset:
                rest = chunk[offset - seen :]
            seen += len(chunk)
        if not rest:
            try:
                rest = await anext(stream)
            except StopAsyncIteration:
                return _nothing(), True
    except BaseException:
        aclose = getattr(stream, "aclose", None)
        if aclose is not None:
            await aclose()
        raise

    async def after() -> AsyncGenerator[bytes, None]:
        try:
            yield rest
            async for chunk in stream:
                yield chunk
        finally:
            aclose = getattr(stream, "aclose", None)
            if aclose is not None:
                await aclose()

    return after(), False


def _content(
    plan: Plan,
    ready: TransferReady,
    stream: AsyncIterator[bytes],
    replies: list[str],
    close: Callable[[], Awaitable[None]],
    resumed: Resumed | None = None,
) -> Resource:
    """The file's content as a resource: its size (known for ``TYPE I``: the 150's, or
    under ``-C`` what is left of SIZE's total) and what ``-C`` came to (RFC 3659 §4-5;
    ``resumed``: a ``TYPE A`` resume's, decided by the executor)."""
    details = plan.details_as(FTPDetails)
    size = ready.size
    if ready.outcome is not None:
        resumed = Resumed(ready.outcome, details.offset if ready.outcome == "append" else 0)
        if ready.total is not None:
            size = ready.total - resumed.offset
    total = ready.total if resumed is not None else None
    return Resource(
        plan,
        kind="content",
        body=stream,
        media_guess=lambda: _media_type(details.name),
        size=size if details.type == "I" else None,
        replies=replies,
        close=close,
        result=FTPResult(typecode=details.type, resumed=resumed, total=total),
        total=total,
        resumed=resumed,
        modified=ready.modified,
    )


class _counted:
    """An async iterator of chunks that counts their bytes (a listing's transfer)."""

    def __init__(self, chunks: AsyncIterator[bytes]) -> None:
        self._chunks = chunks
        self.count = 0

    def __aiter__(self) -> _counted:
        return self

    async def __anext__(self) -> bytes:
        chunk = await anext(self._chunks)
        self.count += len(chunk)
        return chunk


def _media_type(name: str) -> str:
    """The media type guessed from the name's suffix (as the planner's §3.2.3 guess).

    A name without one (nor a ``data:`` name, which mimetypes reads as a data URL) has
    nothing to guess from: mimetypes would answer None after importing ``urllib.parse`` and
    reading the system's ``mime.types`` files (~2-5 ms of a get's CPU, docs/speed.md).
    Otherwise ``mimetypes.guess_type(name, strict=False)``'s answer, through
    :mod:`resolvers.mimeguess` as the planner's."""
    if "." not in name and ":" not in name:
        return "application/octet-stream"
    from ..mimeguess import guess_type as mimetypes_guess

    return mimetypes_guess(name)[0] or "application/octet-stream"


async def _nothing() -> AsyncIterator[bytes]:
    return
    yield b""


def _head(plan: Plan, control: Control, facts: Facts) -> Resource:
    """``-I``: what SIZE and MDTM said (RFC 3659), as curl shows them."""
    return Resource(
        plan,
        kind="content",
        body=_nothing(),
        size=0,
        replies=control.replies,
        result=FTPResult(head=True, size=facts.size, modified=facts.modified, total=facts.size),
        modified=facts.modified,
        total=facts.size,
    )


def _nothing_missing(plan: Plan, control: Control, event: NothingMissing) -> Resource:
    """A resumed transfer whose ``SIZE`` equals what is kept (the offset): an empty,
    complete content."""
    details = plan.details_as(FTPDetails)
    resumed = Resumed(Outcome.COMPLETE, details.offset)
    return Resource(
        plan,
        kind="content",
        body=_nothing(),
        media_guess=lambda: _media_type(details.name),
        size=0,
        replies=control.replies,
        result=FTPResult(typecode="I", resumed=resumed, total=event.total),
        total=event.total,
        resumed=resumed,
    )


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


async def _listing_entries(
    chunks: AsyncIterator[bytes],
    options: Options,
    plan: Plan,
    listing_format: ListingFormat | None,
    seen: Seen | None = None,
) -> AsyncIterator[Entry]:
    """A listing's reply on the data connection (NLST, MLSD or LIST: resolvers.ftp.listing),
    as entries as they arrive; a directory's URL ends in "/" (following it lists it)."""
    # (here, not at the top: the get of a file reads no listing, and the readers' patterns
    # and datetime are ~1 ms of its start)
    from .listing import parse_list_line, parse_mlsd_line, parse_nlst_line

    url = plan.url
    assert isinstance(url, FTPURL)
    base = [*url.cwd, url.name] if url.name else list(url.cwd)
    parse = {ListingFormat.MLSD: parse_mlsd_line, ListingFormat.LIST: parse_list_line}.get(
        ListingFormat(listing_format or ListingFormat.NLST), parse_nlst_line
    )
    lines = split_lines(chunks, options.max_line, what="listing line")
    try:
        async for raw in lines:
            text = raw.decode("utf-8", "surrogateescape")
            fact = parse(text)
            if seen is not None:
                seen.add(text, fact)
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
