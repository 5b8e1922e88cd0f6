"""The I/O half of the Gopher resolver: send exactly the plan's request, read the reply by type.

RFC 1436 has no status line: how to read the reply depends on the item type in the URL.

- Menus (types 1 and 7) become listings; each entry has its type, display string and its own
  URL.  The menu ends at the lone "." line or when the server closes (both happen).
- Text (type 0 and friends) streams, dot-unstuffed, up to the "." line or the close.
- Binary types stream until the server closes.
- A reply that is a type-3 error line is a :class:`~resolvers.errors.NotFound` naming the
  selector, whatever type was asked for (servers answer a missing file with a menu line).
- Gopher+ replies start with a status line (``+length`` or ``-code``; see ``gopherplus``).

Every read is bounded in time (``wire.Connection``: addresses from ``resolvers.net``, each
wait under the read timeout) and in size: menus and attribute blocks, the only replies
buffered whole, by ``Options.max_buffered``; their lines by ``Options.max_line``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, NoReturn

from omniurl import schemes
from omniurl.schemes.errors import URLError
from omniurl.schemes.gopher import GopherURL

from ..base import Follow
from ..errors import (
    InputNeeded,
    LimitExceeded,
    NotFound,
    ProtocolError,
    ReplyError,
)
from ..lines import split_lines
from ..options import Options
from ..plan import Plan
from ..resource import Entry, Resource
from .gopherplus import (
    AskField,
    Status,
    answer_lines,
    form_string,
    parse_ask,
    parse_attributes,
    parse_status,
)
from .menu import error_item, item_url, parse_menu_line, to_entry
from .planner import GopherDetails, Mode
from .text import DotTextDecoder
from .wire import Connection, TLSConnection

#: ``await form(fields, url) -> answers`` (one per answered field, ``Note`` fields skipped):
#: how a library caller fills in a Gopher+ +ASK form (``Options.form``).
FormCallback = Callable[[Sequence[AskField], Any], Awaitable[Sequence[str]]]

#: The most an error reply's text may hold (it is buffered to make the message).
_MAX_ERROR_TEXT = 16 * 1024


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


async def execute_gopher(plan: Plan, options: Options) -> Resource:
    details = plan.details_as(GopherDetails)
    mode = details.mode
    if mode is Mode.ASK_SEARCH:
        await _ask_search(plan, options)
    assert plan.host is not None and plan.port is not None
    opener = TLSConnection if plan.scheme == "gophers" else Connection
    conn = await opener.open(plan.host, plan.port, options)

    async def close() -> None:
        conn.close()

    try:
        await _send(conn, plan, options)
        if mode is Mode.MENU:
            stream = await _menu_stream(
                conn, options, status=None, close=close, tls_for=_tls_for(plan)
            )
            return Resource(
                plan,
                kind="listing",
                entry_stream=stream,
                media_type=details.media_type,
                close=close,
            )
        if mode in (Mode.TEXT, Mode.BINARY):
            first = await _sniff(conn, options)
            if mode is Mode.TEXT and not options.raw:
                body = _dot_text(conn, options, first)
            else:
                conn.unread(first)
                body = conn.chunks("the item")
            return Resource(plan, body=body, media_type=details.media_type, close=close)
        status, status_line = await _read_status(conn, options, plan)
        if mode is Mode.GPLUS:
            return await _gplus_data(conn, options, plan, status, status_line, close)
        block = await _collect(_block(conn, options, status.length, b""), options, "attributes")
        await close()
        items = parse_attributes(block)
        if mode is Mode.ASK:
            await _fill_form(plan, options, items)
        request = details.request
        attrs: Any = [i.blocks for i in items]
        if request == "attributes":
            attrs = items[0].blocks if items else {}
        return Resource(
            plan,
            body=_one(block),
            media_type="text/plain",
            size=len(block),
            replies=[status_line],
            metadata={"attributes": attrs},
        )
    except BaseException:
        await close()
        raise


async def _send(conn: Connection, plan: Plan, options: Options) -> None:
    for step in plan.steps:
        if step.kind in ("send", "message"):
            options.note(">", step.shown)
    await conn.send(request_bytes(plan))


# -- plain Gopher --------------------------------------------------------------------------


async def _sniff(conn: Connection, options: Options) -> bytes:
    """The reply's first bytes; raise if they are a type-3 error line instead of the item."""
    first = await conn.read_some()
    if first.startswith(b"3"):
        while b"\n" not in first and len(first) < options.max_line:
            more = await conn.read_some()
            if not more:
                break
            first += more
        _raise_if_error(first.split(b"\n", 1)[0].rstrip(b"\r"))
    return first


def _raise_if_error(line: bytes) -> None:
    item = error_item(line)
    if item is not None:
        raise NotFound(
            f"the server says: {item.display.strip() or 'error'}",
            component="selector",
            code=3,
            reply=item.display,
        )


async def _raw_body(conn: Connection, options: Options, first: bytes) -> AsyncIterator[bytes]:
    if first:
        yield first
        async for chunk in conn.chunks("the item"):
            yield chunk


async def _dot_text(conn: Connection, options: Options, first: bytes) -> AsyncIterator[bytes]:
    """Dot-terminated text, unstuffed; a close before the "." line is accepted."""
    decoder = DotTextDecoder(max_line=options.max_line)
    out = decoder.feed(first)
    if out:
        yield out
    if decoder.done:
        return
    async for chunk in conn.chunks("the text"):
        out = decoder.feed(chunk)
        if out:
            yield out
        if decoder.done:
            return
    tail = decoder.close()
    if tail:
        yield tail


async def _collect(body: AsyncIterator[bytes], options: Options, what: str) -> bytes:
    """A whole (small) reply in memory, bounded by ``Options.max_buffered``."""
    out = bytearray()
    async for chunk in body:
        out += chunk
        if len(out) > options.max_buffered:
            raise LimitExceeded(f"the {what} is larger than {options.max_buffered} bytes")
    return bytes(out)


async def _menu_stream(
    conn: Connection,
    options: Options,
    *,
    status: Status | None,
    close: Callable[[], Awaitable[None]],
    tls_for: tuple[str | None, int | None] | None = None,
) -> AsyncIterator[Entry]:
    """A menu's entries as they arrive (never the whole menu in memory: a hostile server
    can send 10⁷ items).  The first line is read here, so that a type-3 error item is
    raised by ``resolve`` itself; the rest is read as the caller iterates."""
    body = (
        _dot_text(conn, options, b"")
        if status is None
        else _block(conn, options, status.length, b"")
    )
    lines = split_lines(body, options.max_line, what="menu line")
    try:
        first = await anext(lines, None)
        if first is not None:
            _raise_if_error(first)
    except BaseException:
        await lines.aclose()
        await close()
        raise

    async def entries() -> AsyncIterator[Entry]:
        try:
            if first is not None:
                yield to_entry(parse_menu_line(first), tls_for)
            async for line in lines:
                yield to_entry(parse_menu_line(line), tls_for)
        finally:
            await lines.aclose()
            await close()

    return entries()


def _tls_for(plan: Plan) -> tuple[str | None, int | None] | None:
    """The server of a ``gophers:`` menu, whose own items are ``gophers:`` too."""
    return (plan.host, plan.port) if plan.scheme == "gophers" else None


def parse_menu(data: bytes, options: Options) -> list[Entry]:
    """A whole menu's bytes (framing removed) -> entries; a leading error line raises."""
    entries: list[Entry] = []
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    for number, raw in enumerate(lines, 1):
        line = raw[:-1] if raw.endswith(b"\r") else raw
        if len(line) > options.max_line:
            raise LimitExceeded(f"menu line {number} is longer than {options.max_line} bytes")
        if not entries:
            _raise_if_error(line)
        entries.append(to_entry(parse_menu_line(line)))
    return entries


# -- Gopher+ -------------------------------------------------------------------------------


async def _read_status(conn: Connection, options: Options, plan: Plan) -> tuple[Status, str]:
    line = await conn.read_line("the Gopher+ status line")
    text = line.decode("utf-8", "replace")
    options.note("<", text)
    status = parse_status(line)
    if status is None:
        # A plain Gopher server answers a Gopher+ request for a missing item with its
        # usual type-3 error line: that is "not found", not a broken protocol.
        _raise_if_error(line)
        raise ProtocolError(
            f"not a Gopher+ reply (a Gopher+ server starts with +length or -code): {text[:80]!r}",
            component="gopher_plus",
        )
    if not status.ok:
        await _gplus_error(conn, options, status, text, plan)
    return status, text


async def _gplus_error(
    conn: Connection, options: Options, status: Status, status_line: str, plan: Plan
) -> None:
    """``-1`` not available, ``-2`` try again later, ``-3`` moved (a menu line follows).

    A moved item is asked for again *the same way*: the Gopher+ request (``+``, ``!``,
    ``$``…) of the URL given goes with the new selector — a plain Gopher request there would
    take the server's next error text for the item's content."""
    capped = options.with_(max_buffered=_MAX_ERROR_TEXT)
    try:
        text = await _collect(_dot_text(conn, capped, b""), capped, "error text")
    except LimitExceeded:
        text = b""
    lines = [ln.rstrip(b"\r") for ln in text.split(b"\n") if ln.strip()]
    if status.code == 3:
        for line in lines:
            item = parse_menu_line(line)
            target = item_url(item)
            if target is not None and target.startswith("gopher:"):
                try:
                    moved = schemes.parse(target)
                except URLError as exc:
                    # The server's menu line is to blame, not the URL we were given.
                    raise ProtocolError(
                        f"the server says the item moved to {target!r}, which is not a "
                        f"valid URL: {exc}",
                        component="location",
                    ) from None
                plus = getattr(plan.url, "gopher_plus", None)
                if plus is not None and isinstance(moved, GopherURL):
                    moved = moved.replace(gopher_plus=plus, search=moved.search or "")
                raise Follow(moved, reason="Gopher+ item moved")
    # Gopher+: the first line names the administrator, the rest is the message.
    message = b" ".join(lines[1:] or lines).decode("utf-8", "replace") or status_line
    what = {1: "not available", 2: "try again later", 3: "moved"}.get(status.code, "error")
    cls = NotFound if status.code == 1 else ReplyError
    raise cls(
        f"Gopher+ error {status.code} ({what}): {message}",
        component="selector",
        code=-status.code,
        reply=text.decode("utf-8", "replace"),
    )


def _block(conn: Connection, options: Options, length: int, first: bytes) -> AsyncIterator[bytes]:
    """A Gopher+ data block's content: ``length`` bytes, or dot-terminated (-1), or to close."""
    if length == -1:
        return _dot_text(conn, options, first)
    if length >= 0:
        return conn.chunks("the Gopher+ data", size=length)
    return _raw_body(conn, options, first) if first else conn.chunks("the Gopher+ data")


async def _gplus_data(
    conn: Connection,
    options: Options,
    plan: Plan,
    status: Status,
    status_line: str,
    close: Callable[[], Awaitable[None]],
) -> Resource:
    details = plan.details_as(GopherDetails)
    if details.reading == "menu":
        stream = await _menu_stream(
            conn, options, status=status, close=close, tls_for=_tls_for(plan)
        )
        return Resource(
            plan, kind="listing", entry_stream=stream, replies=[status_line], close=close
        )
    view = details.view
    media_type = view.split()[0] if view else details.media_type
    return Resource(
        plan,
        body=_block(conn, options, status.length, b""),
        media_type=media_type,
        size=status.length if status.length >= 0 else None,
        replies=[status_line],
        close=close,
    )


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
