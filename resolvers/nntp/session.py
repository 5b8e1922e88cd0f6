"""An NNTP client session over asyncio streams (RFC 3977, RFC 4643 for AUTHINFO).

The one place omniurl's NNTP client touches the network.  Every read is bounded in time
(``Options.read_timeout``) and length (``Options.max_line``); a multi-line block is bounded in
total (``Options.max_buffered``) even when it is streamed; every failure is a typed error.
The session sends only the lines the plan holds: :meth:`NNTPSession.command` takes a
:class:`Step`, and the AUTHINFO steps it sends after a ``480`` are the plan's own.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence

from omniurl.resolvers.errors import (
    AuthError,
    ConnectionClosed,
    LimitExceeded,
    ReplyError,
    ResolveError,
)
from omniurl.resolvers.lines import dot_unstuff
from omniurl.resolvers.net import authority, close_writer, open_tcp, read_line, with_timeout
from omniurl.resolvers.options import Options
from omniurl.resolvers.plan import Step

from .replies import Reply, parse_status

#: RFC 3977 §5.1.1: 200 posting allowed, 201 posting prohibited; both let us read.
GREETING_OK = (200, 201)
#: RFC 4643 §2.3: 480 authentication required, 281 accepted (381, password required, is
#: AUTHINFO PASS's condition: resolvers.nntp.conditions).
AUTH_REQUIRED, AUTH_ACCEPTED = 480, 281
#: RFC 4643 §2.2 / RFC 3977 §3.2.1: 483 means "use TLS first", which we do not speak.
ENCRYPTION_REQUIRED = 483


class NNTPSession:
    """A connected session: ``await NNTPSession.open(...)``, then :meth:`command` and
    :meth:`data_lines`; :meth:`quit` or :meth:`close` ends it."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        options: Options,
        *,
        host: str,
        auth_steps: Sequence[Step] = (),
    ) -> None:
        self.reader = reader
        self.writer = writer
        self.options = options
        self.host = host
        self.auth_steps = tuple(auth_steps)
        self.authenticated = False
        #: Every status line received, in order (``Resource.replies``, ``omniurl get -v``).
        self.replies: list[str] = []
        self.closed = False

    @classmethod
    async def open(
        cls,
        host: str,
        port: int,
        options: Options,
        *,
        auth_steps: Sequence[Step] = (),
        tls: bool = False,
    ) -> tuple[NNTPSession, Reply]:
        """Connect (with ``tls``, NNTP over TLS from the first byte: snews, RFC 5538) and
        read the greeting (§5.1): 200/201, or an error naming the host."""
        context = None
        if tls:
            from omniurl.resolvers.tls import ssl_context

            context = ssl_context(options)
        reader, writer = await open_tcp(host, port, options, tls=context)
        session = cls(reader, writer, options, host=host, auth_steps=auth_steps)
        try:
            greeting = await session.read_reply("the greeting")
            if greeting.code not in GREETING_OK:
                # §5.1.1: 400 service temporarily unavailable, 502 permanently unavailable.
                raise ReplyError(
                    f"the NNTP server at {authority(host, port)} refused the session: "
                    f"{greeting.line}",
                    component="host",
                    code=greeting.code,
                    reply=greeting.line,
                )
        except BaseException:
            await session.close()
            raise
        return session, greeting

    async def start_tls(self, port: int) -> None:
        """RFC 4642 §2.2: after ``382``, the TLS handshake on this connection."""
        from omniurl.resolvers.net import start_tls
        from omniurl.resolvers.tls import ssl_context

        await start_tls(self.writer, self.host, port, ssl_context(self.options), self.options)
        self.options.note("*", f"TLS started with {self.host}")

    # -- lines ------------------------------------------------------------------------------

    async def send(self, step: Step) -> None:
        self.options.note(">", step.shown)
        self.writer.write(step.data + b"\r\n")
        try:
            await with_timeout(self.writer.drain(), self.options.read_timeout, "sending")
        except (ConnectionError, OSError) as exc:
            raise ConnectionClosed(f"connection lost while sending {step.shown}: {exc}") from None

    async def read_reply(self, what: str) -> Reply:
        line = await read_line(self.reader, self.options, what=f"the reply to {what}")
        reply = parse_status(line, what=what)
        self.replies.append(reply.line)
        self.options.note("<", reply.line)
        return reply

    async def command(self, step: Step) -> Reply:
        """Send ``step`` and read its status line.

        A ``480`` (RFC 4643 §2.1: authentication required) is answered with the plan's
        AUTHINFO steps — USER, then PASS on ``381`` — and ``step`` is sent again, once.
        """
        what = step.shown
        await self.send(step)
        reply = await self.read_reply(what)
        if reply.code == AUTH_REQUIRED:
            await self.authenticate(reply)
            await self.send(step)
            reply = await self.read_reply(what)
            if reply.code == AUTH_REQUIRED:
                raise AuthError(
                    f"{self.host} still asks for authentication after AUTHINFO: {reply.line}",
                    component="host",
                )
        if reply.code == ENCRYPTION_REQUIRED:
            raise AuthError(
                f"{self.host} requires TLS first ({reply.line}); nntp: URLs are plain text",
                component="host",
            )
        return reply

    async def authenticate(self, trigger: Reply) -> None:
        """AUTHINFO USER / PASS from the plan (RFC 4643 §2.3)."""
        if self.authenticated or not self.auth_steps:
            hint = (
                "the credentials were refused"
                if self.authenticated
                else f"no credentials are configured for {self.host} (~/.netrc, "
                "Options.credentials)"
            )
            raise AuthError(
                f"{self.host} requires authentication ({trigger.line}); {hint}",
                component="host",
            )
        user_step, pass_step = self.auth_steps[0], self.auth_steps[1]
        await self.send(user_step)
        reply = await self.read_reply("AUTHINFO USER")
        if pass_step.due(reply.code):  # 381 (resolvers.nntp.conditions.auth_pass_due)
            await self.send(pass_step)
            reply = await self.read_reply("AUTHINFO PASS")
        if reply.code != AUTH_ACCEPTED:
            # 481 rejected, 482 out of sequence, 502 not permitted (RFC 4643 §2.3.2).
            raise AuthError(f"{self.host} refused the credentials: {reply.line}", component="host")
        self.authenticated = True

    async def data_lines(self, what: str) -> AsyncIterator[bytes]:
        """The lines of a multi-line block (§3.1.1), dot-unstuffed, without line endings.

        Ends at the lone ``.``; a block that outgrows ``Options.max_buffered`` octets is
        cut off with :class:`LimitExceeded`, a connection that closes before the ``.`` raises
        :class:`ConnectionClosed` (the block was truncated).
        """
        total = 0
        limit = self.options.max_buffered
        while True:
            raw = await read_line(self.reader, self.options, what=what)
            line = dot_unstuff(raw)
            if line is None:
                return
            total += len(raw) + 2
            if total > limit:
                raise LimitExceeded(f"{what} is larger than {limit} bytes; stopped reading")
            yield line

    async def collect(self, what: str) -> list[bytes]:
        """A whole (bounded) multi-line block."""
        return [line async for line in self.data_lines(what)]

    async def quit(self, step: Step) -> None:
        """QUIT (§5.4), then close; a server that drops the line instead is no error."""
        try:
            await self.send(step)
            await self.read_reply("QUIT")
        except ResolveError as exc:  # the server hung up first, or answered oddly
            self.options.note("*", f"QUIT: {exc}")
        finally:
            await self.close()

    async def close(self) -> None:
        if not self.closed:
            self.closed = True
            await close_writer(self.writer)
