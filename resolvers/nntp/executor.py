"""Carry out an NNTP plan: a byte pump between :class:`resolvers.net.Stream` and the machine.

Which step goes next and what each status code means is
:class:`resolvers.nntp.machine.NNTPMachine`'s (pure, tested with bytes); here the bytes move
— replies into the machine, its commands onto the wire, the TLS handshake it pauses for —
and a data block becomes a :class:`Resource`: an article streamed as it arrives
(dot-unstuffed, CRLF line ends, RFC 5536's canonical form), a listing of articles or groups
as entries as they arrive (never held whole).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

from omniurl.resolvers import net
from omniurl.resolvers.errors import LimitExceeded, PlanError, ReplyError, ResolveError
from omniurl.resolvers.options import Options
from omniurl.resolvers.plan import Plan
from omniurl.resolvers.resource import Entry, Resource
from omniurl.schemes.news import NewsURL

from .conditions import NNTPRole
from .grammar import news_url_for_group, news_url_for_message_id, nntp_url, wildmat_matches
from .machine import (
    NEED_DATA,
    BlockEnded,
    BlockStarted,
    Done,
    Event,
    Line,
    NNTPMachine,
    Received,
    Send,
    Sentinel,
    StartTLS,
)
from .planner import NNTPDetails
from .replies import parse_active, parse_article_number, parse_overview
from .result import NNTPResult


class Pump:
    """Moves bytes between the stream and the machine; returns the events that need the
    executor (a block's start, its lines and end, the session's end)."""

    def __init__(self, stream: net.Stream, machine: NNTPMachine, options: Options) -> None:
        self.stream = stream
        self.machine = machine
        self.options = options
        #: Every status line received, in order (``Resource.replies``, ``omniurl get -v``).
        self.replies: list[str] = []
        self.closed = False

    async def next(self) -> Event:
        try:
            return await self._next()
        except ResolveError as exc:
            if not self.machine.quitting:
                raise
            # QUIT (§5.4): a server that hangs up first, or answers oddly, is no error.
            self.options.note("*", f"QUIT: {exc}")
            self.close()
            return Done()

    async def _next(self) -> Event:
        machine, options = self.machine, self.options
        while True:
            event = machine.next_event()
            if event is NEED_DATA:
                machine.receive_data(await self.stream.read(machine.waiting_for))
            elif isinstance(event, Received):
                self.replies.append(event.reply.line)
                options.note("<", event.reply.line)
            elif isinstance(event, Send):
                options.note(">", event.shown)
                await self.stream.write(event.data, event.shown)
            elif isinstance(event, StartTLS):
                await self._start_tls()
            else:
                assert not isinstance(event, Sentinel), "the NNTP machine paused unanswered"
                return event

    async def _start_tls(self) -> None:
        """RFC 4642 §2.2: after ``382``, the TLS handshake on this connection."""
        from omniurl.resolvers.tls import ssl_context

        plan = self.machine.plan
        assert plan.host is not None and plan.port is not None
        await self.stream.start_tls(ssl_context(self.options), plan.host, plan.port)
        self.options.note("*", f"TLS started with {plan.host}")
        self.machine.tls_started()

    async def finish(self) -> None:
        """The rest of the plan after a block (QUIT), then close."""
        try:
            while not isinstance(await self.next(), Done):
                pass
        finally:
            self.close()

    async def quit_after_refusal(self) -> None:
        """The server refused a command but the session is in step: end it with the plan's
        QUIT (RFC 3977 §5.4) rather than hanging up on it."""
        if self.machine.abort():
            await self.finish()
        self.close()

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.stream.close()

    async def aclose(self) -> None:
        self.close()


async def execute(plan: Plan, options: Options) -> Resource:
    """Connect, then pump; return the article (streamed) or a listing (streamed)."""
    if plan.host is None or plan.port is None:
        raise PlanError("an NNTP plan names its server", component="host")
    details = plan.details_as(NNTPDetails)
    context = None
    if details.tls:  # snews: NNTP over TLS from the first byte (RFC 5538)
        from omniurl.resolvers.tls import ssl_context

        context = ssl_context(options)
    stream = await net.connect(plan.host, plan.port, options, tls=context)
    machine = NNTPMachine(plan, max_line=options.max_line, max_buffered=options.max_buffered)
    pump = Pump(stream, machine, options)
    try:
        event = await pump.next()
    except ReplyError:
        await pump.quit_after_refusal()
        raise
    except BaseException:
        pump.close()
        raise
    if isinstance(event, Done):
        pump.close()
        return Resource(plan, kind="listing", entries=[], replies=pump.replies,
                        result=_result(machine))  # fmt: skip
    assert isinstance(event, BlockStarted)
    if event.role is NNTPRole.ARTICLE:
        resource = Resource(
            plan,
            kind="content",
            body=_article_body(pump),
            media_type="message/rfc822",
            result=NNTPResult(reply=event.reply.line),
            close=pump.aclose,
        )
        resource.replies = pump.replies  # the same list: QUIT's reply joins it at the end
        return resource
    return Resource(
        plan,
        kind="listing",
        entry_stream=_entries(pump, _entry_maker(plan, event.role, options)),
        replies=pump.replies,
        result=_result(machine),
        close=pump.aclose,
    )


def _result(machine: NNTPMachine) -> NNTPResult:
    seen = machine.seen
    return NNTPResult(
        greeting=machine.greeting.line if machine.greeting is not None else None,
        capabilities=None if seen.capabilities is None else dict(seen.capabilities),
        starttls=seen.upgraded,
        group=seen.group,
    )


async def _lines(pump: Pump) -> AsyncIterator[bytes]:
    """The block's lines as they arrive; then the rest of the plan (QUIT)."""
    while True:
        event = await pump.next()
        if isinstance(event, Line):
            yield event.data
        else:
            assert isinstance(event, BlockEnded)
            break
    await pump.finish()


async def _article_body(pump: Pump) -> AsyncIterator[bytes]:
    """The article's lines with CRLF, in chunks of up to ``chunk_size``."""
    limit = pump.options.chunk_size
    buffer = bytearray()
    try:
        async for line in _lines(pump):
            buffer += line + b"\r\n"
            if len(buffer) >= limit:
                yield bytes(buffer)
                buffer.clear()
        if buffer:
            yield bytes(buffer)
    finally:
        pump.close()


async def _entries(pump: Pump, make: Callable[[bytes], Entry | None]) -> AsyncIterator[Entry]:
    """A listing's lines as entries, as they arrive (a caller that stops early closes)."""
    try:
        async for line in _lines(pump):
            entry = make(line)
            if entry is not None:
                yield entry
    finally:
        pump.close()


def _entry_maker(plan: Plan, role: NNTPRole, options: Options) -> Callable[[bytes], Entry | None]:
    """How a listing's line becomes an entry (None: left out), bounded in count."""
    details = plan.details_as(NNTPDetails)
    host, port = str(plan.host), int(plan.port or 119)
    group = _group_name(plan)
    asked = details.max_articles
    count = 0

    def overview(line: bytes) -> Entry:
        nonlocal count
        count += 1
        _within(count, asked, f"{role.upper()} (asked for at most {asked} articles)")
        ov = parse_overview(line)
        info: dict[str, object] = {
            "number": ov.number,
            "subject": ov.subject,
            "from": ov.from_,
            "date": ov.date,
            "message_id": ov.message_id.decode("utf-8", "replace"),
            "references": ov.references,
            "bytes": ov.bytes,
            "lines": ov.lines,
            "news_url": news_url_for_message_id(ov.message_id),
        }
        url = nntp_url(host, port, group, ov.number)
        return Entry(name=ov.subject or "(no subject)", kind="article", url=url, info=info)

    def listgroup(line: bytes) -> Entry:
        nonlocal count
        count += 1
        _within(count, asked, f"LISTGROUP (asked for at most {asked} articles)")
        number = parse_article_number(line)
        url = nntp_url(host, port, group, number)
        return Entry(name=f"article {number}", kind="article", url=url, info={"number": number})

    limit, wildmat, server = options.max_entries, details.wildmat, _server_prefix(plan)

    def active(line: bytes) -> Entry | None:
        nonlocal count
        act = parse_active(line)
        # an RFC 977 server listed every group: keep the wildmat's (RFC 3977 §4.2)
        if (
            role is NNTPRole.LIST
            and wildmat is not None
            and not wildmat_matches(wildmat, act.group)
        ):
            return None
        count += 1
        if limit is not None:
            _within(count, limit, "the list of newsgroups (--max-entries)")
        url = news_url_for_group(act.group)
        return Entry(
            name=act.group.decode("utf-8", "replace"),
            kind="group",
            url=url if server is None else server + url[len("news:") :],
            info={"high": act.high, "low": act.low, "status": act.status},
        )

    if role in (NNTPRole.OVER, NNTPRole.XOVER):
        return overview
    return listgroup if role is NNTPRole.LISTGROUP else active


def _server_prefix(plan: Plan) -> str | None:
    """``news://server[:port]/`` (or ``snews://``) when the URL named its server (RFC 5538),
    so that a listed group is read from the same server; None for RFC 1738's ``news:``."""
    url = plan.url
    if not isinstance(url, NewsURL) or url.host is None:
        return None
    port = "" if url.port is None else f":{url.port}"
    return f"{url.scheme}://{url.host}{port}/"


def _within(count: int, limit: int, what: str) -> None:
    """A reply longer than what was asked for is refused, never held (a server can send an
    OVER reply that never ends): :class:`LimitExceeded` at the first entry too many."""
    if count > limit:
        raise LimitExceeded(
            f"{what}: the server sent more than {limit} entries", component="newsgroup"
        )


def _group_name(plan: Plan) -> bytes:
    group = plan.details_as(NNTPDetails).group
    return group if isinstance(group, bytes) else b""
