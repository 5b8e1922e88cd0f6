"""A WAIS conversation (Z39.50-1988 with WAIS's extensions) as a pure machine: bytes in,
events out.

One connection: ``Init`` (an accepting ``Init-Response``, else the server refused us), then a
``Search`` (its hits) or the retrieval of a document chunk by chunk (waisprot.txt §8: each
chunk a Type-1 ``Search`` for bytes ``[start, start + chunk)``, the next one asked for only
while the last filled its chunk: the plan's ``more_due``).  Every message is the 25-byte
header and exactly the APDU length it announces (header.py), bounded per exchange before a
byte of the APDU is taken.  No socket here: the executor feeds bytes
(:meth:`WAISMachine.receive_data`, ``b""`` at end of stream) and writes the :class:`Send`
events; the retrieval's next request is made only when the caller asks for more text
(:meth:`WAISMachine.more`).
"""

from __future__ import annotations

import enum
import re
from collections import deque
from dataclasses import dataclass

from ..errors import ConnectionClosed, LimitExceeded, NotFound, ProtocolError, ReplyError
from ..plan import Plan, Step
from ..sansio import NEED_DATA, PAUSED, Sentinel
from .apdu import (
    APDU,
    Diagnostic,
    DocumentHeader,
    InitResponseAPDU,
    SearchResponseAPDU,
    decode_apdu,
)
from .header import HEADER_LENGTH, parse_header
from .planner import MESSAGE_SIZE, Repeated, WAISDetails, WAISRole, retrieval_message

_CONTROLS = re.compile(r"[\x00-\x1f\x7f]+")


class State(enum.Enum):
    INIT = "init"
    SEARCH = "search"
    CHUNK = "chunk"
    PAUSED = "paused"  # a chunk was handed out; the next is asked for on demand
    DONE = "done"


@dataclass(frozen=True)
class Send:
    shown: str
    data: bytes


@dataclass(frozen=True)
class Received:
    """A reply, summed up for the transcript."""

    summary: str


@dataclass(frozen=True)
class Hits:
    """A search's reply: the document headers, and what the server said about them."""

    headers: tuple[DocumentHeader, ...]
    result_count: int
    seed_words_used: str | None


@dataclass(frozen=True)
class Text:
    """One chunk of the document (never more than the chunk size)."""

    data: bytes


@dataclass(frozen=True)
class Done:
    """Nothing more: the search's hits were handed out, or the document's last chunk."""


Event = Send | Received | Hits | Text | Done


def text(value: bytes | None) -> str | None:
    """A server string for display: UTF-8 (Latin-1 if it is not), controls as spaces."""
    if value is None:
        return None
    try:
        decoded = value.decode("utf-8")
    except UnicodeDecodeError:
        decoded = value.decode("latin-1")
    return _CONTROLS.sub(" ", decoded).strip()


def diagnostic_text(diags: tuple[Diagnostic, ...]) -> str:
    return "; ".join(f"{text(d.code)}: {text(d.addinfo) or '(no details)'}" for d in diags)


def summary(reply: APDU) -> str:
    """A reply in one line, for the transcript (``-v``) and ``Resource.replies``."""
    if isinstance(reply, InitResponseAPDU):
        name = text(reply.implementation_name)
        verdict = "accept" if reply.result else "reject"
        return f"Init-Response ({verdict}{', ' + name if name else ''})"
    if isinstance(reply, SearchResponseAPDU):
        info = reply.info
        parts = [f"status {reply.search_status}", f"{reply.result_count} result(s)"]
        if info is not None and info.texts:
            parts.append(f"{sum(len(t.text) for t in info.texts)} bytes of text")
        if info is not None and info.diagnostics:
            parts.append(f"diagnostic {diagnostic_text(info.diagnostics)}")
        return f"Search-Response ({', '.join(parts)})"
    return type(reply).__name__.removesuffix("APDU")


class WAISMachine:
    """One connection's conversation for one plan (see the module's docstring)."""

    def __init__(self, plan: Plan, *, max_buffered: int = 1 << 26) -> None:
        self.plan = plan
        self.details = plan.details_as(WAISDetails)
        self.max_buffered = max_buffered
        self.last_summary = ""
        self._steps = {s.role: s for s in plan.steps if isinstance(s.role, WAISRole)}
        self._buffer = bytearray()
        self._eof = False
        self._length: int | None = None  # the APDU length the header announced
        self._maximum = MESSAGE_SIZE
        self._what = ""
        self._start = 0
        self._events: deque[Event] = deque()
        self.state = State.INIT
        self._send(self._steps[WAISRole.INIT], MESSAGE_SIZE)

    def receive_data(self, data: bytes) -> None:
        if data:
            self._buffer += data
        else:
            self._eof = True

    def next_event(self) -> Event | Sentinel:
        while not self._events:
            if self.state in (State.PAUSED, State.DONE):
                return PAUSED
            apdu = self._next_message()
            if apdu is None:
                return NEED_DATA
            reply = decode_apdu(apdu)
            self.last_summary = summary(reply)
            self._events.append(Received(self.last_summary))
            self._on_reply(reply)
        return self._events.popleft()

    def more(self) -> None:
        """The caller wants the document's next chunk."""
        assert self.state is State.PAUSED
        chunk = self.details.chunk_size
        self._start += chunk
        more = self._steps[WAISRole.RETRIEVE_MORE]
        if self._start == chunk:  # the plan's repeated step, exactly as planned
            self._send_raw(more.detail_as(Repeated).request, more.data, chunk + MESSAGE_SIZE)
        else:
            d = self.details
            assert d.document_id is not None
            data, shown = retrieval_message(
                d.database, d.wtype, d.document_id, self._start, self._start + chunk
            )
            self._send_raw(shown, data, chunk + MESSAGE_SIZE)
        self.state = State.CHUNK

    # -- framing ---------------------------------------------------------------------------

    def _next_message(self) -> bytes | None:
        """One message's APDU: the header, its length checked, exactly that many bytes."""
        if self._length is None:
            if len(self._buffer) < HEADER_LENGTH:
                self._check_eof(HEADER_LENGTH)
                return None
            header = parse_header(bytes(self._buffer[:HEADER_LENGTH]))
            del self._buffer[:HEADER_LENGTH]
            if header.length > self._maximum:
                raise LimitExceeded(
                    f"{self._what}: the server announces {header.length} bytes, more than our "
                    f"limit of {self._maximum}"
                )
            self._length = header.length
        if len(self._buffer) < self._length:
            self._check_eof(self._length)
            return None
        apdu = bytes(self._buffer[: self._length])
        del self._buffer[: self._length]
        self._length = None
        return apdu

    def _check_eof(self, n: int) -> None:
        if not self._eof:
            return
        if self._buffer:
            raise ConnectionClosed(
                f"connection closed in the middle of {self._what} ({len(self._buffer)} of "
                f"{n} bytes)"
            )
        raise ConnectionClosed(f"connection closed while waiting for {self._what}")

    # -- decisions -------------------------------------------------------------------------

    def _on_reply(self, reply: APDU) -> None:
        if self.state is State.INIT:
            if not isinstance(reply, InitResponseAPDU):
                raise ProtocolError(f"the server answered Init with {type(reply).__name__}")
            if not reply.result:
                raise ReplyError(
                    "the WAIS server rejected the Init", code="reject", reply=self.last_summary
                )
            if self.details.form == "search":
                self.state = State.SEARCH
                self._send(self._steps[WAISRole.SEARCH], self.max_buffered)
            else:
                self.state = State.CHUNK
                self._send(self._steps[WAISRole.RETRIEVE], self.details.chunk_size + MESSAGE_SIZE)
            return
        if not isinstance(reply, SearchResponseAPDU):
            raise ProtocolError(f"the server answered a Search with {type(reply).__name__}")
        if self.state is State.SEARCH:
            self._on_hits(reply)
        else:
            self._on_chunk(reply)

    def _on_hits(self, reply: SearchResponseAPDU) -> None:
        info = reply.info
        diagnostics = info.diagnostics if info is not None else ()
        headers = info.headers if info is not None else ()
        if reply.search_status != 0 or (diagnostics and not headers):
            # The search words cannot be wrong in WAIS (relevance feedback finds what it
            # finds): a failing search is the database's.
            raise NotFound(
                f"the WAIS server could not search database {text(self.details.database)!r}: "
                f"{diagnostic_text(diagnostics) or 'search failed'}",
                component="database",
                code=text(diagnostics[0].code) if diagnostics else reply.search_status,
                reply=self.last_summary,
            )
        asked = self.details.max_documents
        if len(headers) > asked:
            # The search asked for at most this many documents (MaxDocumentsRetrieved): a
            # reply with more (10⁶ hits took 817 MB) is the server's error.
            raise LimitExceeded(
                f"the WAIS server sent {len(headers)} hits; the search asked for at most {asked}",
                component="search",
            )
        seed = text(info.seed_words_used) if info is not None else None
        self._events.append(Hits(tuple(headers), reply.result_count, seed))
        self._done()

    def _on_chunk(self, reply: SearchResponseAPDU) -> None:
        info = reply.info
        texts = info.texts if info is not None else ()
        diagnostics = info.diagnostics if info is not None else ()
        chunk = self.details.chunk_size
        if not texts:
            if self._start == 0:
                raise NotFound(
                    f"the WAIS server has no document {self.plan.url}: "
                    f"{diagnostic_text(diagnostics) or 'no text returned'}",
                    component="wpath",
                    code=text(diagnostics[0].code) if diagnostics else reply.search_status,
                    reply=self.last_summary,
                )
            self._done()  # past the end of a document whose size was a multiple of the chunk
            return
        data = b"".join(t.text for t in texts)
        if len(data) > chunk:
            raise ProtocolError(
                f"the WAIS server sent {len(data)} bytes for a {chunk}-byte chunk at {self._start}"
            )
        if data:
            self._events.append(Text(data))
        if self._steps[WAISRole.RETRIEVE_MORE].due((len(data), chunk)):
            self.state = State.PAUSED
        else:
            self._done()

    def _done(self) -> None:
        self.state = State.DONE
        self._events.append(Done())

    def _send(self, step: Step, maximum: int) -> None:
        self._send_raw(step.shown, step.data, maximum)

    def _send_raw(self, shown: str, data: bytes, maximum: int) -> None:
        self._maximum = min(maximum, self.max_buffered)
        self._what = f"the reply to {shown.split(' ', 1)[0]}"
        self._events.append(Send(shown, data))


__all__ = [
    "NEED_DATA",
    "PAUSED",
    "Done",
    "Event",
    "Hits",
    "Received",
    "Send",
    "State",
    "Text",
    "WAISMachine",
    "diagnostic_text",
    "summary",
    "text",
]
