"""The WAIS conversation as a pure machine (resolvers/wais/machine.py): framed APDUs in,
requests, hits and text out, no socket — Init, a search, a document chunk by chunk."""

from __future__ import annotations

import pytest

from omniurl import resolvers
from omniurl.resolvers.errors import ConnectionClosed, LimitExceeded, NotFound, ReplyError
from omniurl.resolvers.options import Options
from omniurl.resolvers.wais.apdu import (
    Diagnostic,
    DocumentHeader,
    DocumentText,
    InitResponseAPDU,
    SearchResponseAPDU,
    WAISSearchResponse,
)
from omniurl.resolvers.wais.header import frame
from omniurl.resolvers.wais.machine import (
    NEED_DATA,
    PAUSED,
    Done,
    Hits,
    Received,
    Send,
    State,
    Text,
    WAISMachine,
)
from omniurl.resolvers.wais.settings import WAISOptions

ACCEPT = frame(InitResponseAPDU(result=True, implementation_name=b"test").encode())
REJECT = frame(InitResponseAPDU(result=False).encode())


def text_reply(data: bytes) -> bytes:
    texts = (DocumentText(b"doc", data),) if data else ()
    return frame(SearchResponseAPDU(info=WAISSearchResponse(texts=texts)).encode())


def run(m: WAISMachine, *replies: bytes) -> tuple[list[Send], list[object]]:
    """Answer each Send with the next reply; ask for more text whenever the machine pauses."""
    sent: list[Send] = []
    events: list[object] = []
    queue = list(replies)
    while True:
        event = m.next_event()
        if event is NEED_DATA:
            m.receive_data(queue.pop(0) if queue else b"")
        elif event is PAUSED:
            if m.state is State.DONE:
                return sent, events
            m.more()
        elif isinstance(event, Send):
            sent.append(event)
        elif not isinstance(event, Received):
            events.append(event)


def test_search_sends_init_then_the_planned_search_and_hands_out_the_hits() -> None:
    p = resolvers.plan("wais://h/db?unix")
    hit = DocumentHeader(document_id=b"0 1 /a", headline=b"About unix", types=(b"TEXT",))
    reply = frame(
        SearchResponseAPDU(
            result_count=1, info=WAISSearchResponse(seed_words_used=b"unix", headers=(hit,))
        ).encode()
    )
    sent, events = run(WAISMachine(p), ACCEPT, reply)
    assert [s.data for s in sent] == [s.data for s in p.steps if s.kind == "message"]
    hits = events[0]
    assert isinstance(hits, Hits) and hits.headers[0].headline == b"About unix"
    assert (hits.result_count, hits.seed_words_used) == (1, "unix")
    assert events[1:] == [Done()]


def test_a_document_comes_chunk_by_chunk_until_a_short_one() -> None:
    opts = Options(schemes=(WAISOptions(chunk_size=4),))
    p = resolvers.plan("wais://h/db/TEXT/12%20%2Fa", opts)
    sent, events = run(WAISMachine(p), ACCEPT, text_reply(b"abcd"), text_reply(b"ef"))
    assert events == [Text(b"abcd"), Text(b"ef"), Done()]
    assert len(sent) == 3  # Init, the first chunk, the plan's repeated step once
    planned = [s for s in p.steps if s.kind == "message"]
    assert sent[2].data == planned[-1].data


def test_a_document_whose_size_is_a_multiple_of_the_chunk_ends_on_an_empty_reply() -> None:
    opts = Options(schemes=(WAISOptions(chunk_size=2),))
    p = resolvers.plan("wais://h/db/TEXT/12%20%2Fa", opts)
    _, events = run(WAISMachine(p), ACCEPT, text_reply(b"ab"), text_reply(b"cd"), text_reply(b""))
    assert events == [Text(b"ab"), Text(b"cd"), Done()]


def test_refusals_and_broken_servers() -> None:
    p = resolvers.plan("wais://h/db/TEXT/12%20%2Fa")
    with pytest.raises(ReplyError, match="rejected the Init"):
        run(WAISMachine(p), REJECT)
    failure = frame(
        SearchResponseAPDU(
            search_status=1, info=WAISSearchResponse(diagnostics=(Diagnostic(b"S1", b"gone"),))
        ).encode()
    )
    with pytest.raises(NotFound, match="S1: gone") as info:
        run(WAISMachine(p), ACCEPT, failure)
    assert info.value.component == "wpath"
    with pytest.raises(NotFound) as info:
        run(WAISMachine(resolvers.plan("wais://h/db?x")), ACCEPT, failure)
    assert info.value.component == "database"
    with pytest.raises(LimitExceeded, match="more than our limit"):
        run(WAISMachine(p, max_buffered=10), ACCEPT[:25])
    with pytest.raises(ConnectionClosed, match="in the middle of the reply to Init"):
        run(WAISMachine(p), ACCEPT[:30])
