"""The I/O half of the Gopher resolver: send exactly the plan's request, pump the reply.

What a reply means — a menu, text, binary, Gopher+'s status line and error codes, a type-3
error item — is :class:`resolvers.gopher.machine.GopherMachine`'s (pure, tested with bytes);
here the bytes move between a :class:`resolvers.net.Stream` and the machine, and its events
become a :class:`Resource`: a menu's entries as they arrive, content streamed, Gopher+
attributes read whole (bounded by ``Options.max_buffered``), a moved item followed.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence

from omniurl import schemes
from omniurl.schemes.errors import URLError
from omniurl.schemes.gopher import GopherURL

from .. import net
from ..base import Follow
from ..errors import (
    InputNeeded,
    LimitExceeded,
    NotFound,
    ProtocolError,
    ReplyError,
    ResolveTimeout,
)
from ..options import Options
from ..plan import Plan
from ..resource import Entry, Resource
from .machine import (
    Data,
    EndOfReply,
    Event,
    GopherMachine,
    MenuLine,
    PlusError,
    Sentinel,
    StatusLine,
)
from .planner import GopherDetails, Mode
from .result import GopherResult

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, NoReturn

    from .gopherplus import AskField
    from .menu import parse_menu

    #: ``await form(fields, url) -> answers`` (one per answered field, ``Note`` fields
    #: skipped): how a library caller fills in a Gopher+ +ASK form (``Options.form``).
    FormCallback = Callable[[Sequence[AskField], Any], Awaitable[Sequence[str]]]
else:

    def __getattr__(name: str) -> object:
        """``FormCallback``, made when first read: its ``Any`` is typing's, whose import
        is ~9 ms of a get's start (docs/speed.md, *Start-up*), and a get never reads it;
        ``parse_menu`` (menu.py's, named here as before): a binary item's get loads
        neither the menu nor the Gopher+ modules (docs/speed.md, *The command's two
        ends*)."""
        if name == "parse_menu":
            from .menu import parse_menu

            return parse_menu
        if name != "FormCallback":
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        from typing import Any

        from .gopherplus import AskField

        alias = Callable[[Sequence[AskField], Any], Awaitable[Sequence[str]]]
        globals()[name] = alias
        return alias


def request_bytes(plan: Plan) -> bytes:
    """The octets the plan's steps put on the wire, in order: ``send`` steps are lines (CRLF
    added), ``message`` steps go as they are, ``info`` steps send nothing."""
    out = bytearray()
    for step in plan.steps:
        if step.kind == "send":
            out += step.data + b"\r\n"
        elif step.kind == "message":
            out += step.data
    return bytes(out)


async def receive(stream: net.Stream, machine: GopherMachine, what: str) -> None:
    """Read the next bytes into the machine; when the machine says a text item may have
    ended at its "." line (``quiet_after``), a silence that long ends it there."""
    quiet = machine.quiet_after()
    if quiet is None:
        machine.receive_data(await stream.read(what))
        return
    bound = stream.options.read_timeout
    if bound is not None and bound <= quiet:
        machine.receive_data(await stream.read(what))
        return
    try:
        data = await stream.read(what, timeout=quiet)
    except ResolveTimeout:
        machine.quiet()
        return
    machine.receive_data(data)


class Pump:
    """The reply's events, reading the stream whenever the machine needs more."""

    def __init__(self, stream: net.Stream, machine: GopherMachine, what: str) -> None:
        self.stream = stream
        self.machine = machine
        self.what = what

    async def next(self) -> Event:
        machine = self.machine
        while True:
            event = machine.next_event()
            if not isinstance(event, Sentinel):
                return event
            await receive(self.stream, machine, self.what)

    async def content(self) -> AsyncIterator[bytes]:
        """The content's octets as they arrive, until the reply's end."""
        while True:
            event = await self.next()
            if isinstance(event, Data):
                yield event.data
            elif isinstance(event, EndOfReply):
                return

    async def close(self) -> None:
        self.stream.close()


async def execute_gopher(plan: Plan, options: Options) -> Resource:
    details = plan.details_as(GopherDetails)
    if details.mode is Mode.ASK_SEARCH:
        await _ask_search(plan, options)
    assert plan.host is not None and plan.port is not None
    tls = None
    if plan.scheme == "gophers":
        from ..tls import ssl_context

        tls = ssl_context(options)
    stream = await net.connect(plan.host, plan.port, options, tls=tls)
    machine = GopherMachine(details, raw=options.raw, max_line=options.max_line)
    if not machine.menu:
        stream.bulk()  # (an item, not a menu: possibly large)
    pump = Pump(stream, machine, "the reply")
    try:
        for step in plan.steps:
            if step.kind in ("send", "message"):
                options.note(">", step.shown)
        await stream.write(request_bytes(plan), "the selector")
        first = await pump.next()
        if isinstance(first, StatusLine):
            options.note("<", first.text)
            return await _plus(pump, plan, options, first)
        return _reply(pump, plan, first, replies=[])
    except BaseException:
        await pump.close()
        raise


def _reply(pump: Pump, plan: Plan, first: Event, *, replies: list[str]) -> Resource:
    """A menu (its entries as they arrive) or the content (streamed)."""
    details = plan.details_as(GopherDetails)
    if pump.machine.menu:
        return Resource(
            plan,
            kind="listing",
            entry_stream=_entries(pump, first, _tls_for(plan)),
            media_type=details.media_type if not replies else None,
            replies=replies,
            close=pump.close,
        )
    view = details.view
    media_type = view.split()[0] if view else details.media_type
    status = pump.machine.status
    made: list[Resource] = []  # (the resource, once made: whether its consumer takes views)
    resource = Resource(
        plan,
        body=_body(
            pump,
            first,
            lambda: bool(made) and made[0].views_ok,
            lambda: made[0].sink if made else None,
        ),
        media_type=media_type,
        size=status.length if status is not None and status.length >= 0 else None,
        replies=replies,
        close=pump.close,
    )
    made.append(resource)
    return resource


async def _body(
    pump: Pump,
    first: Event,
    views: Callable[[], bool] = lambda: False,
    sink: Callable[[], int | None] = lambda: None,
) -> AsyncIterator[bytes]:
    """The content as it arrives.  The pump's loop is written out here: for a large item
    this runs once a read (thousands of times), and each layer of generators costs.

    While ``views()`` holds (the consumer writes each chunk before asking for the next:
    ``Resource.views_ok``) and the machine lets bytes past it (binary content:
    ``GopherMachine.raw_wanted``), the content comes as ``memoryview`` chunks of one reused
    buffer, filled straight from the socket (``Stream.fill_into``): 512 MiB from gophernicus
    took ~4,300 chunks of 120 KiB on average, each through the machine; so, ~550.  Where the
    consumer only writes to a file descriptor (``sink()``: ``Resource.sink``), the bytes are
    spliced there (``Stream.splice_into``), chunks standing for them (``net.moved``)."""
    machine, stream, what = pump.machine, pump.stream, pump.what
    buffer: memoryview | None = None
    try:
        event: Event | Sentinel = first
        while not isinstance(event, EndOfReply):
            if isinstance(event, Data):
                yield event.data
            elif isinstance(event, Sentinel):
                want = machine.raw_wanted()
                if want and views():
                    fd = sink()
                    if fd is not None and stream.can_splice:
                        n = await stream.splice_into(fd, min(want, net.BULK_READ), what)
                        machine.raw_received(n)
                        if n:
                            yield net.moved(n)  # type: ignore[misc]
                        event = machine.next_event()
                        continue
                    if buffer is None:
                        buffer = memoryview(bytearray(min(want, net.BULK_READ)))
                    space = buffer[:want] if want < len(buffer) else buffer
                    n = await stream.fill_into(space, what)
                    machine.raw_received(n)
                    if n:
                        yield buffer[:n]  # type: ignore[misc]
                else:
                    await receive(stream, machine, what)
            event = machine.next_event()
    finally:
        await pump.close()


async def _entries(
    pump: Pump, first: Event, tls_for: tuple[str | None, int | None] | None
) -> AsyncIterator[Entry]:
    """A menu's entries as they arrive (never the whole menu in memory: a hostile server
    can send 10⁷ items); the first line was read by ``resolve`` itself, so that a type-3
    error item is raised there."""
    from .menu import line_entry

    machine = pump.machine
    try:
        event: Event | Sentinel = first
        while not isinstance(event, EndOfReply):
            if isinstance(event, MenuLine):
                yield line_entry(event.line, tls_for)
            event = machine.next_event()  # (what is parsed already: no coroutine call)
            if isinstance(event, Sentinel):
                event = await pump.next()
    finally:
        await pump.close()


def _tls_for(plan: Plan) -> tuple[str | None, int | None] | None:
    """The server of a ``gophers:`` menu, whose own items are ``gophers:`` too."""
    return (plan.host, plan.port) if plan.scheme == "gophers" else None


# -- Gopher+ -------------------------------------------------------------------------------


async def _plus(pump: Pump, plan: Plan, options: Options, status: StatusLine) -> Resource:
    """A Gopher+ reply after its status line: an error, the data, or the attributes."""
    pump.what = "the Gopher+ data"
    if not status.status.ok:
        event = await pump.next()
        assert isinstance(event, PlusError)
        await pump.close()
        raise _plus_error(event, plan)
    details = plan.details_as(GopherDetails)
    if details.mode is Mode.GPLUS:
        return _reply(pump, plan, await pump.next(), replies=[status.text])
    from .gopherplus import parse_attributes

    block = await _collect(pump.content(), options, "attributes")
    await pump.close()
    items = parse_attributes(block)
    if details.mode is Mode.ASK:
        await _fill_form(plan, options, items)
    return Resource(
        plan,
        body=_one(block),
        media_type="text/plain",
        size=len(block),
        replies=[status.text],
        result=GopherResult(
            tuple(dict(i.blocks) for i in items), single=details.request == "attributes"
        ),
    )


def _plus_error(event: PlusError, plan: Plan) -> Exception:
    """``-1`` not available, ``-2`` try again later, ``-3`` moved (a menu line follows).

    A moved item is asked for again *the same way*: the Gopher+ request (``+``, ``!``,
    ``$``…) of the URL given goes with the new selector — a plain Gopher request there would
    take the server's next error text for the item's content."""
    from .menu import item_url, parse_menu_line

    status, text = event.status, event.text
    lines = [ln.rstrip(b"\r") for ln in text.split(b"\n") if ln.strip()]
    if status.code == 3:
        for line in lines:
            target = item_url(parse_menu_line(line))
            if target is not None and target.startswith("gopher:"):
                try:
                    moved = schemes.parse(target)
                except URLError as exc:
                    # The server's menu line is to blame, not the URL we were given.
                    return ProtocolError(
                        f"the server says the item moved to {target!r}, which is not a "
                        f"valid URL: {exc}",
                        component="location",
                    )
                plus = getattr(plan.url, "gopher_plus", None)
                if plus is not None and isinstance(moved, GopherURL):
                    moved = moved.replace(gopher_plus=plus, search=moved.search or "")
                return Follow(moved, reason="Gopher+ item moved")
    # Gopher+: the first line names the administrator, the rest is the message.
    message = b" ".join(lines[1:] or lines).decode("utf-8", "replace") or event.status_line
    what = {1: "not available", 2: "try again later", 3: "moved"}.get(status.code, "error")
    cls = NotFound if status.code == 1 else ReplyError
    return cls(
        f"Gopher+ error {status.code} ({what}): {message}",
        component="selector",
        code=-status.code,
        reply=text.decode("utf-8", "replace"),
    )


async def _collect(body: AsyncIterator[bytes], options: Options, what: str) -> bytes:
    """A whole (small) reply in memory, bounded by ``Options.max_buffered``."""
    out = bytearray()
    async for chunk in body:
        out += chunk
        if len(out) > options.max_buffered:
            raise LimitExceeded(f"the {what} is larger than {options.max_buffered} bytes")
    return bytes(out)


async def _one(data: bytes) -> AsyncIterator[bytes]:
    if data:
        yield data


# -- input: search words and +ASK forms ----------------------------------------------------


async def _ask_search(plan: Plan, options: Options) -> NoReturn:
    """Ask for search words (the plan's info step), then follow the URL that carries them."""
    assert options.ask is not None
    url: Any = plan.url
    answer = (await options.ask(f"Search words for {url}: ")).strip()
    if not answer:
        raise InputNeeded("no search words given", component="search")
    raise Follow(url.replace(search=answer), reason="search words given")


async def _fill_form(plan: Plan, options: Options, items: list[Any]) -> NoReturn:
    """§3.4.5: the +ASK form is here; ask its questions, follow the §3.4.9 URL of the answers."""
    from .gopherplus import answer_lines, form_string, parse_ask

    block = items[0].blocks.get("+ASK") if items else None
    if block is None:
        raise ProtocolError(
            "the item is tagged '?' but the server sent no +ASK form", component="gopher_plus"
        )
    fields = parse_ask(block)
    url: Any = plan.url
    callback: FormCallback | None = options.form
    if callback is not None:
        answers = list(await callback(fields, url))
    elif options.ask is not None:
        answers = await _ask_fields(fields, options)
    else:
        questions = "; ".join(f"{f.kind}: {f.prompt}" for f in fields if f.answered)
        raise InputNeeded(
            f"{url} is a Gopher+ form to fill in ({questions})",
            component="gopher_plus",
            prompt=questions,
        )
    answered = [f for f in fields if f.answered]
    if len(answers) != len(answered):
        raise InputNeeded(
            f"the form has {len(answered)} questions but {len(answers)} answers were given",
            component="gopher_plus",
        )
    lines: list[str] = []
    for f, answer in zip(answered, answers, strict=True):
        lines += answer_lines(f, answer)
    target = url.replace(gopher_plus=form_string(lines), search=url.search or "")
    raise Follow(target, reason="Gopher+ form filled in")


async def _ask_fields(fields: Sequence[AskField], options: Options) -> list[str]:
    """One question at a time through ``Options.ask`` (what the CLI plugs a terminal into)."""
    assert options.ask is not None
    answers: list[str] = []
    notes: list[str] = []
    for f in fields:
        if not f.answered:
            notes.append(f.prompt)
            continue
        hint = ""
        if f.choices:
            hint = f" [{'/'.join(f.choices)}]"
        elif f.kind == "Select":
            hint = " [y/n]"
        default = f" ({f.default})" if f.default and not f.secret else ""
        prompt = "".join(n + "\n" for n in notes) + f"{f.prompt}{hint}{default}: "
        notes = []
        answer = await options.ask(prompt, secret=f.secret)
        answers.append(answer if answer else f.default)
    return answers


__all__ = ["FormCallback", "execute_gopher", "parse_menu", "request_bytes"]
