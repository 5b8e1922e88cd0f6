"""A WAIS server for the demo and the tests: each subdirectory of the root is a database.

It speaks what deployed WAIS servers spoke (the reference dialect of ``resolvers.wais.apdu``):
Init is answered with an Init-Response; a Search with query type "3" runs a relevance search
over a simple word index of the database's files (score = how often the seed words occur,
scaled so the best hit scores 1000) and answers with one Document-Header per hit; a Search with
query type "1" retrieves the byte range of one document its Type-1 query names; a search of a
database that does not exist, or a retrieval of a DocID or type it never issued, is answered
with a failed Search-Response and a diagnostic record, as Z39.50-1988 says.

DocIDs look like freeWAIS's — ``"<size> /<database>/<path>"`` — so they hold spaces and slashes
(and whatever octets the file name has): good for proving that clients treat them as opaque.
Every read is bounded (header length, maximum request size, idle timeout); a client that
breaks the protocol is disconnected.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omniurl.resolvers.errors import LimitExceeded
from omniurl.resolvers.wais import tags as T
from omniurl.resolvers.wais.apdu import (
    APDU,
    Diagnostic,
    DocumentHeader,
    DocumentText,
    InitAPDU,
    InitResponseAPDU,
    SearchAPDU,
    SearchResponseAPDU,
    TextQuery,
    WAISInitResponse,
    WAISSearch,
    WAISSearchResponse,
    decode_apdu,
)
from omniurl.resolvers.wais.header import HEADER_LENGTH, frame, parse_header
from omniurl.resolvers.wais.transport import read_exactly
from omniurl.schemes.errors import OmniurlError

from .base import RunningServer, register

#: The largest request we read (a Search with a few documents is a few hundred bytes).
MAX_REQUEST = 1024 * 1024
#: How long a connection may sit idle between requests.
IDLE_TIMEOUT = 60.0
#: The most bytes of text one retrieval reply carries, whatever range was asked for.
MAX_CHUNK = 1024 * 1024
SERVER_NAME = b"omniurl"

_WORD = re.compile(rb"[A-Za-z0-9]+")
_TYPES = {".html": b"HTML", ".htm": b"HTML", ".gif": b"GIF", ".ps": b"PS", ".pdf": b"PDF"}


@dataclass
class Document:
    """One indexed file."""

    database: str
    path: Path
    relative: bytes
    document_id: bytes
    size: int
    wtype: bytes
    words: Counter[bytes]
    lines: int

    @property
    def headline(self) -> bytes:
        return self.relative


@dataclass
class Database:
    name: str
    documents: list[Document] = field(default_factory=list)


def _wtype(path: Path, data: bytes) -> bytes:
    if path.suffix.lower() in _TYPES:
        return _TYPES[path.suffix.lower()]
    if b"\x00" in data:
        return b"BINARY"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return b"BINARY"
    return b"TEXT"


def index_directory(root: Path) -> dict[str, Database]:
    """Build the word index: every subdirectory of ``root`` is a database of its files."""
    databases: dict[str, Database] = {}
    for sub in sorted(p for p in root.iterdir() if p.is_dir()):
        db = Database(sub.name)
        for path in sorted(p for p in sub.rglob("*") if p.is_file()):
            data = path.read_bytes()
            relative = os.fsencode(path.relative_to(sub))
            wtype = _wtype(path, data)
            text = data if wtype in (b"TEXT", b"HTML") else b""
            words = Counter(w.lower() for w in _WORD.findall(text + b" " + relative))
            docid = b"%d /%s/%s" % (len(data), os.fsencode(sub.name), relative)
            db.documents.append(
                Document(
                    sub.name, path, relative, docid, len(data), wtype, words, text.count(b"\n")
                )
            )
        databases[sub.name] = db
    return databases


class WAISServer:
    """The protocol logic: one decoded request in, one reply APDU out (no I/O)."""

    def __init__(self, databases: dict[str, Database]) -> None:
        self.databases = databases
        self.by_id = {d.document_id: d for db in databases.values() for d in db.documents}
        #: Every request APDU received, decoded, in order (for tests).
        self.requests: list[APDU] = []
        #: Every byte received, all connections, in arrival order (headers included).
        self.received = bytearray()
        #: Connections accepted so far.
        self.connections = 0

    def reply(self, request: APDU) -> APDU:
        self.requests.append(request)
        if isinstance(request, InitAPDU) and not isinstance(request, InitResponseAPDU):
            return InitResponseAPDU(
                result=True,
                preferred_message_size=request.preferred_message_size,
                maximum_record_size=request.maximum_record_size,
                implementation_name=b"omniurl WAIS test server",
                implementation_version=b"1",
                reference_id=request.reference_id,
                info=WAISInitResponse(chunk_code=T.CT_BYTE),
            )
        if isinstance(request, SearchAPDU):
            if request.query_type == T.QT_TEXT_RETRIEVAL and isinstance(request.query, TextQuery):
                return self.retrieve(request, request.query)
            if request.query_type == T.QT_RELEVANCE_FEEDBACK and isinstance(
                request.query, WAISSearch
            ):
                return self.search(request, request.query)
            return _failure(request, b"S3", b"unsupported query type")
        return SearchResponseAPDU(
            search_status=1, info=WAISSearchResponse(diagnostics=(Diagnostic(b"S1", b"?"),))
        )

    def _database(self, request: SearchAPDU) -> Database | None:
        names = request.database_names or ()
        if len(names) != 1:
            return None
        return self.databases.get(names[0].decode("utf-8", "surrogateescape"))

    def search(self, request: SearchAPDU, query: WAISSearch) -> SearchResponseAPDU:
        db = self._database(request)
        if db is None:
            names = b", ".join(request.database_names or ())
            return _failure(request, b"S1", b"database not found: " + names)
        seeds = [w.lower() for w in _WORD.findall(query.seed_words)]
        raw = [(sum(doc.words[w] for w in seeds), doc) for doc in db.documents]
        hits = sorted((h for h in raw if h[0] > 0), key=lambda h: (-h[0], h[1].relative))
        best = hits[0][0] if hits else 1
        limit = query.max_documents or 40
        headers = tuple(
            DocumentHeader(
                document_id=doc.document_id,
                version_number=0,
                score=max(1, round(1000 * score / best)),
                best_match=0,
                document_length=doc.size,
                lines=doc.lines,
                types=(doc.wtype,),
                source=db.name.encode(),
                date=b"19940101",
                headline=doc.headline,
            )
            for score, doc in hits[:limit]
        )
        used = b" ".join(w for w in dict.fromkeys(seeds) if any(d.words[w] for _, d in hits))
        return SearchResponseAPDU(
            result_count=len(hits),
            records_returned=len(headers),
            reference_id=request.reference_id,
            info=WAISSearchResponse(seed_words_used=used, headers=headers),
        )

    def retrieve(self, request: SearchAPDU, query: TextQuery) -> SearchResponseAPDU:
        db = self._database(request)
        if db is None:
            return _failure(request, b"S1", b"database not found")
        texts = []
        for obj in query.documents:
            doc = self.by_id.get(obj.document_id)
            if doc is None or doc.database != db.name:
                return _failure(request, b"S1", b"no such document: " + obj.document_id)
            if obj.type is not None and obj.type.upper() != doc.wtype:
                return _failure(request, b"S1", b"type not available: " + obj.type)
            data = doc.path.read_bytes()
            if obj.chunk_code == T.CT_DOCUMENT:
                start, end = 0, len(data)
            elif obj.chunk_code == T.CT_BYTE and isinstance(obj.start, int):
                start, end = obj.start, obj.end if isinstance(obj.end, int) else len(data)
            else:
                return _failure(request, b"S3", b"only byte chunks are supported")
            end = min(end, start + MAX_CHUNK)
            texts.append(DocumentText(doc.document_id, data[max(start, 0) : max(end, 0)], 0))
        return SearchResponseAPDU(
            result_count=len(texts),
            records_returned=len(texts),
            reference_id=request.reference_id,
            info=WAISSearchResponse(texts=tuple(texts)),
        )


def _failure(request: SearchAPDU, code: bytes, addinfo: bytes) -> SearchResponseAPDU:
    return SearchResponseAPDU(
        search_status=1,
        present_status=5,
        reference_id=request.reference_id,
        info=WAISSearchResponse(diagnostics=(Diagnostic(code, addinfo),)),
    )


async def _serve(
    server: WAISServer, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> None:
    try:
        while True:
            try:
                raw = await read_exactly(reader, HEADER_LENGTH, IDLE_TIMEOUT, what="a request")
                server.received += raw
                header = parse_header(raw)
                if header.length > MAX_REQUEST:
                    raise LimitExceeded(f"a request of {header.length} bytes")
                apdu = await read_exactly(reader, header.length, IDLE_TIMEOUT, what="a request")
                server.received += apdu
                request = decode_apdu(apdu)
            except OmniurlError:
                return  # closed, timed out, or not WAIS: hang up
            writer.write(frame(server.reply(request).encode(), server=SERVER_NAME))
            await asyncio.wait_for(writer.drain(), IDLE_TIMEOUT)
    except (ConnectionError, OSError, TimeoutError):
        return
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError, OSError, TimeoutError):
            await asyncio.wait_for(writer.wait_closed(), 2)


@register("wais", "a WAIS server: each subdirectory of --root is a searchable database")
async def start(root: Path, *, host: str = "127.0.0.1", port: int = 0, **kw: Any) -> RunningServer:
    """Index ``root`` and serve it on ``host:port`` (0: a free port)."""
    wais = WAISServer(index_directory(Path(root)))
    tasks: set[asyncio.Task[None]] = set()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        wais.connections += 1
        task = asyncio.current_task()
        if task is not None:
            tasks.add(task)
        try:
            await _serve(wais, reader, writer)
        finally:
            if task is not None:
                tasks.discard(task)

    srv = await asyncio.start_server(handle, host, port)
    bound = srv.sockets[0].getsockname()

    async def close() -> None:
        srv.close()
        for task in list(tasks):
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(*tasks, return_exceptions=True)
        await srv.wait_closed()

    return RunningServer(
        name="wais",
        host=str(bound[0]),
        port=int(bound[1]),
        close_fn=close,
        info={
            "server": wais,
            "databases": sorted(wais.databases),
            "document_ids": {
                (db.name, d.relative): d.document_id
                for db in wais.databases.values()
                for d in db.documents
            },
        },
    )
