"""The I/O half of the WAIS resolver: a byte pump between one connection and the machine.

What each reply means — an Init accepted or refused, a search's hits, a document's chunks and
when they end — is :class:`resolvers.wais.machine.WAISMachine`'s (pure, tested with bytes);
here the messages move over a :class:`resolvers.net.Stream` (each wait bounded), hits become
entries, and a document is streamed: its first chunk is asked for before the resource is
returned (so a bad DocID fails in ``resolve()``), the others while the caller reads.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from .. import net
from ..base import Follow
from ..errors import InputNeeded
from ..options import Options
from ..plan import Plan
from ..resource import Entry, Resource
from .apdu import DocumentHeader
from .machine import (
    NEED_DATA,
    Done,
    Event,
    Hits,
    Received,
    Send,
    Sentinel,
    State,
    Text,
    WAISMachine,
)
from .machine import text as _text
from .planner import DEFAULT_TYPE, WAISDetails, document_url, escape
from .result import WAISResult

#: Media types for the WAIS TYPE strings servers commonly sent.
MEDIA_TYPES = {
    b"TEXT": "text/plain",
    b"WSRC": "text/plain",
    b"HTML": "text/html",
    b"GIF": "image/gif",
    b"JPEG": "image/jpeg",
    b"TIFF": "image/tiff",
    b"PS": "application/postscript",
    b"PDF": "application/pdf",
    b"DVI": "application/x-dvi",
}


class Pump:
    """Moves messages between the stream and the machine; keeps the transcript."""

    def __init__(self, stream: net.Stream, machine: WAISMachine, options: Options) -> None:
        self.stream = stream
        self.machine = machine
        self.options = options
        self.replies: list[str] = []

    async def next(self) -> Event:
        machine, options = self.machine, self.options
        while True:
            event = machine.next_event()
            if event is NEED_DATA:
                machine.receive_data(await self.stream.read("the WAIS reply"))
            elif isinstance(event, Send):
                options.note(">", event.shown)
                await self.stream.write(event.data, event.shown)
            elif isinstance(event, Received):
                self.replies.append(event.summary)
                options.note("<", event.summary)
            else:
                assert not isinstance(event, Sentinel), "the WAIS machine paused unasked"
                return event

    async def close(self) -> None:
        await self.stream.aclose()


def _entry(plan: Plan, header: DocumentHeader) -> Entry:
    wtype = header.types[0] if header.types else DEFAULT_TYPE
    return Entry(
        name=_text(header.headline) or escape(header.document_id),
        kind="document",
        url=document_url(plan.url, header.document_id, wtype),
        info={
            "score": header.score,
            "size": header.document_length,
            "lines": header.lines,
            "types": [_text(t) for t in header.types] or [_text(DEFAULT_TYPE)],
            "source": _text(header.source),
            "date": _text(header.date),
            "docid": escape(header.document_id),
        },
    )


async def execute_wais(plan: Plan, options: Options) -> Resource:
    details = plan.details_as(WAISDetails)
    if details.form == "database":
        return await _ask_for_words(plan, options)
    assert plan.host is not None and plan.port is not None
    stream = await net.connect(plan.host, plan.port, options)
    pump = Pump(stream, WAISMachine(plan, max_buffered=options.max_buffered), options)
    try:
        event = await pump.next()
        if isinstance(event, Hits):
            await pump.close()
            return Resource(
                plan,
                kind="listing",
                entries=[_entry(plan, h) for h in event.headers],
                replies=pump.replies,
                result=WAISResult(event.result_count, event.seed_words_used),
            )
        assert isinstance(event, Text | Done)
    except BaseException:
        await pump.close()
        raise
    wtype = details.wtype or DEFAULT_TYPE
    return Resource(
        plan,
        kind="content",
        body=_body(pump, event),
        media_type=MEDIA_TYPES.get(wtype.upper(), "application/octet-stream"),
        replies=pump.replies,
        result=WAISResult(wtype=_text(wtype), chunk_size=details.chunk_size),
        close=pump.close,
    )


async def _body(pump: Pump, event: Event) -> AsyncIterator[bytes]:
    """The document's chunks; each next one is asked for when the caller reads on."""
    while isinstance(event, Text):
        yield event.data
        if pump.machine.state is State.PAUSED:
            pump.machine.more()
        event = await pump.next()


async def _ask_for_words(plan: Plan, options: Options) -> Resource:
    url: Any = plan.url
    prompt = f"Search words for WAIS database {url.database!r}: "
    if options.ask is None:
        raise InputNeeded(
            f"{plan.url} is a searchable WAIS database: add ?words to search it",
            component="search",
            prompt=prompt,
        )
    words = (await options.ask(prompt)).strip()
    if not words:
        raise InputNeeded("no search words were given", component="search", prompt=prompt)
    raise Follow(url.replace(search=words), reason="search words for a WAIS database")
