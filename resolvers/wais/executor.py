"""The I/O half of the WAIS resolver: carry out the plan's messages on one TCP connection.

Each step of kind ``message`` is sent exactly as planned and answered by one message (read
with :func:`transport.read_message`: the header's length, bounded by ``Options.max_buffered``).
A search becomes a listing; a document is streamed chunk by chunk — the first chunk is asked
for before the resource is returned (so a bad DocID fails in ``resolve()``), the others while
the caller reads, each one the repetition the plan's last step describes.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from typing import Any

from ..base import Follow
from ..errors import InputNeeded, LimitExceeded, NotFound, ProtocolError, ReplyError
from ..net import close_writer, open_tcp
from ..options import Options
from ..plan import Plan, Step
from ..resource import Entry, Resource
from .apdu import (
    APDU,
    Diagnostic,
    DocumentHeader,
    InitResponseAPDU,
    SearchResponseAPDU,
    decode_apdu,
)
from .planner import (
    DEFAULT_TYPE,
    MESSAGE_SIZE,
    Repeated,
    WAISDetails,
    WAISRole,
    document_url,
    escape,
    retrieval_message,
)
from .transport import read_message, send

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

_CONTROLS = re.compile(r"[\x00-\x1f\x7f]+")


def _text(value: bytes | None) -> str | None:
    """A server string for display: UTF-8 (Latin-1 if it is not), controls as spaces."""
    if value is None:
        return None
    try:
        text = value.decode("utf-8")
    except UnicodeDecodeError:
        text = value.decode("latin-1")
    return _CONTROLS.sub(" ", text).strip()


def _diagnostic_text(diags: tuple[Diagnostic, ...]) -> str:
    return "; ".join(f"{_text(d.code)}: {_text(d.addinfo) or '(no details)'}" for d in diags)


class _Conversation:
    """One connection and its transcript."""

    def __init__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, options: Options
    ) -> None:
        self.reader = reader
        self.writer = writer
        self.options = options
        self.replies: list[str] = []

    async def exchange(self, data: bytes, shown: str, *, maximum: int | None = None) -> APDU:
        """Send one planned message and read its reply: at most ``maximum`` bytes (default
        ``Options.max_buffered``), whatever the reply's header announces."""
        self.options.note(">", shown)
        await send(self.writer, data, timeout=self.options.read_timeout, what=shown)
        limit = self.options.max_buffered if maximum is None else maximum
        apdu_bytes = await read_message(
            self.reader,
            timeout=self.options.read_timeout,
            maximum=min(limit, self.options.max_buffered),
            what=f"the reply to {shown.split(' ', 1)[0]}",
        )
        reply = decode_apdu(apdu_bytes)
        summary = _summary(reply)
        self.replies.append(summary)
        self.options.note("<", summary)
        return reply

    async def close(self) -> None:
        await close_writer(self.writer)


def _summary(reply: APDU) -> str:
    if isinstance(reply, InitResponseAPDU):
        name = _text(reply.implementation_name)
        verdict = "accept" if reply.result else "reject"
        return f"Init-Response ({verdict}{', ' + name if name else ''})"
    if isinstance(reply, SearchResponseAPDU):
        info = reply.info
        parts = [f"status {reply.search_status}", f"{reply.result_count} result(s)"]
        if info is not None and info.texts:
            parts.append(f"{sum(len(t.text) for t in info.texts)} bytes of text")
        if info is not None and info.diagnostics:
            parts.append(f"diagnostic {_diagnostic_text(info.diagnostics)}")
        return f"Search-Response ({', '.join(parts)})"
    return type(reply).__name__.removesuffix("APDU")


def _expect_search_response(reply: APDU) -> SearchResponseAPDU:
    if not isinstance(reply, SearchResponseAPDU):
        raise ProtocolError(f"the server answered a Search with {type(reply).__name__}")
    return reply


async def _init(conv: _Conversation, step: Step) -> None:
    reply = await conv.exchange(step.data, step.shown, maximum=MESSAGE_SIZE)
    if not isinstance(reply, InitResponseAPDU):
        raise ProtocolError(f"the server answered Init with {type(reply).__name__}")
    if not reply.result:
        raise ReplyError("the WAIS server rejected the Init", code="reject", reply=conv.replies[-1])


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


def _step(plan: Plan, role: WAISRole) -> Step:
    """The plan's step for ``role`` (each WAIS role appears once)."""
    return next(step for step in plan.steps if step.role is role)


async def execute_wais(plan: Plan, options: Options) -> Resource:
    form = plan.details_as(WAISDetails).form
    if form == "database":
        return await _ask_for_words(plan, options)
    assert plan.host is not None and plan.port is not None
    reader, writer = await open_tcp(plan.host, plan.port, options)
    conv = _Conversation(reader, writer, options)
    try:
        await _init(conv, _step(plan, WAISRole.INIT))
        if form == "search":
            resource = await _search(conv, plan)
            await conv.close()
            return resource
        return await _retrieve(conv, plan, options)
    except BaseException:
        await conv.close()
        raise


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


async def _search(conv: _Conversation, plan: Plan) -> Resource:
    step = _step(plan, WAISRole.SEARCH)
    details = plan.details_as(WAISDetails)
    reply = _expect_search_response(await conv.exchange(step.data, step.shown))
    info = reply.info
    diagnostics = info.diagnostics if info is not None else ()
    headers = info.headers if info is not None else ()
    if reply.search_status != 0 or (diagnostics and not headers):
        # The search words cannot be wrong in WAIS (relevance feedback finds what it finds):
        # a failing search is the database's.
        raise NotFound(
            f"the WAIS server could not search database {_text(details.database)!r}: "
            f"{_diagnostic_text(diagnostics) or 'search failed'}",
            component="database",
            code=_text(diagnostics[0].code) if diagnostics else reply.search_status,
            reply=conv.replies[-1],
        )
    asked = details.max_documents
    if len(headers) > asked:
        # The search asked for at most this many documents (MaxDocumentsRetrieved): a reply
        # with more (10⁶ hits took 817 MB) is the server's error, not a longer listing.
        raise LimitExceeded(
            f"the WAIS server sent {len(headers)} hits; the search asked for at most {asked}",
            component="search",
        )
    return Resource(
        plan,
        kind="listing",
        entries=[_entry(plan, h) for h in headers],
        replies=conv.replies,
        metadata={
            "result_count": reply.result_count,
            "seed_words_used": _text(info.seed_words_used) if info is not None else None,
        },
    )


async def _retrieve(conv: _Conversation, plan: Plan, options: Options) -> Resource:
    details = plan.details_as(WAISDetails)
    chunk = details.chunk_size
    retrieve, more = _step(plan, WAISRole.RETRIEVE), _step(plan, WAISRole.RETRIEVE_MORE)
    first = await _chunk(conv, plan, retrieve.data, retrieve.shown, 0, chunk)
    if first is None:
        raise NotFound(
            f"the WAIS server returned no text for {plan.url}", component="wpath", reply=""
        )

    async def body() -> AsyncIterator[bytes]:
        text: bytes | None = first
        start = 0
        while text is not None:
            if text:
                yield text
            if not more.due((len(text), chunk)):
                return
            start += chunk
            if start == chunk:  # the plan's repeated step, exactly as planned
                data, shown = more.data, more.detail_as(Repeated).request
            else:
                assert details.document_id is not None
                data, shown = retrieval_message(
                    details.database, details.wtype, details.document_id, start, start + chunk
                )
            text = await _chunk(conv, plan, data, shown, start, chunk)

    wtype = details.wtype or DEFAULT_TYPE
    return Resource(
        plan,
        kind="content",
        body=body(),
        media_type=MEDIA_TYPES.get(wtype.upper(), "application/octet-stream"),
        replies=conv.replies,
        metadata={"wtype": _text(wtype), "chunk_size": chunk},
        close=conv.close,
    )


async def _chunk(
    conv: _Conversation, plan: Plan, data: bytes, shown: str, start: int, chunk: int
) -> bytes | None:
    """One chunk's text; ``None`` when the server has none to give (past the end).

    The reply may be the chunk plus its framing (DocID, tags), never much more: it is read
    with a maximum of the chunk size and one more message size."""
    reply = _expect_search_response(await conv.exchange(data, shown, maximum=chunk + MESSAGE_SIZE))
    info = reply.info
    texts = info.texts if info is not None else ()
    diagnostics = info.diagnostics if info is not None else ()
    if not texts:
        if start == 0:
            raise NotFound(
                f"the WAIS server has no document {plan.url}: "
                f"{_diagnostic_text(diagnostics) or 'no text returned'}",
                component="wpath",
                code=_text(diagnostics[0].code) if diagnostics else reply.search_status,
                reply=conv.replies[-1],
            )
        return None  # past the end of a document whose size was a multiple of the chunk
    text = b"".join(t.text for t in texts)
    if len(text) > chunk:
        raise ProtocolError(
            f"the WAIS server sent {len(text)} bytes for a {chunk}-byte chunk at {start}"
        )
    return text
