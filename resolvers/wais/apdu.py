"""WAIS APDUs: the Z39.50-1988 Init and Search facilities with the WAIS extensions.

Layout of every APDU (protspec.txt Appendix B; waisprot.txt §10)::

    Header-Length-Indicator   2 bytes, binary: the length of the header part that follows
    PDU-Type                  1 byte (20 Init, 21 Init-Response, 22 Search, 23 Search-Response)
    fixed fields              binary, per APDU (Search: 3-byte set bounds, replace indicator)
    variable fields           tagged elements (elements.py)
    user information          Init-Response / Search / Search-Response: a tag-99 group holding
                              the WAIS elements; a Type-1 query instead is one tag-21 element

Two *dialects* exist, and we can write both:

* :data:`REFERENCE` — what the Thinking Machines reference library (and so every deployed WAIS
  server and client: wais-8, freeWAIS, Lynx's HTWAIS) writes: Query-Type is tag 20 and tag 19 is
  Element-Set-Names; Implementation-Version is tag 10; the protocol version is a bitmap with
  bit 1 set (``0x80``); a Document-ID-Chunk is tag 107; document headers come in tag-150 groups.
  This is what omniurl sends and what its test server speaks.
* :data:`APPENDIX_B` — what protspec.txt Appendix B prints: Query-Type tag 19 (``0x130133``),
  Implementation-Version tag 16 (``0x1003``), protocol version byte ``0x01``, a Document-ID-Chunk
  written with tag 116, Max-Documents-Retrieved before the documents, bare (ungrouped) document
  headers with Score in 4 bytes and Best-Match / Document-Length in 8.  We encode it only to
  prove the codec against the spec's sample bytes.

Decoders accept what either dialect writes where the two cannot be confused.
"""

from __future__ import annotations

from collections.abc import Iterator

from omniurl.schemes.records import field, record

from . import tags as T
from .compressed import DecodeError, decode_binary, decode_compressed, encode_binary
from .compressed import encode_compressed as _cint
from .elements import as_int, element, iter_elements, number, optional, read_element


@record(frozen=True)
class Dialect:
    """The points where protspec.txt's samples and the deployed protocol differ."""

    name: str
    query_type_tag: int
    implementation_version_tag: int
    protocol_version: bytes
    document_id_chunk_tag: int
    group_headers: bool
    max_documents_first: bool
    #: Fixed widths for numeric elements (tag -> bytes); others use the fewest bytes.
    widths: tuple[tuple[int, int], ...] = ()

    def width(self, tag: int) -> int | None:
        return dict(self.widths).get(tag)


REFERENCE = Dialect(
    name="reference",
    query_type_tag=T.QUERY_TYPE,
    implementation_version_tag=T.IMPLEMENTATION_VERSION,
    protocol_version=b"\x80",
    document_id_chunk_tag=T.DOCUMENT_ID_CHUNK,
    group_headers=True,
    max_documents_first=False,
)

APPENDIX_B = Dialect(
    name="protspec-appendix-b",
    query_type_tag=T.ELEMENT_SET_NAMES,
    implementation_version_tag=16,
    protocol_version=b"\x01",
    document_id_chunk_tag=T.DOCUMENT_ID,
    group_headers=False,
    max_documents_first=True,
    widths=((T.SCORE, 4), (T.BEST_MATCH, 8), (T.DOCUMENT_LENGTH, 8)),
)


def _group(tag: int, content: bytes) -> bytes:
    """A group: tag, compressed length of the content, the content (``writeUserInfoHeader``)."""
    return _cint(tag) + _cint(len(content)) + content


def _apdu(header: bytes, user_information: bytes = b"") -> bytes:
    """Prefix the header part with its 2-byte Header-Length-Indicator."""
    if len(header) > 0xFFFF:
        raise ValueError("an APDU header part longer than 65535 bytes")
    return len(header).to_bytes(2, "big") + header + user_information


def _bitmap(*bits: bool) -> bytes:
    """Pack booleans MSB first (``makeBitMap``): bit 0 is the leftmost bit of the first byte."""
    out = bytearray((len(bits) + 7) // 8)
    for i, bit in enumerate(bits):
        if bit:
            out[i // 8] |= 0x80 >> (i % 8)
    return bytes(out)


def _bit(bitmap: bytes, pos: int) -> bool:
    return pos // 8 < len(bitmap) and bool(bitmap[pos // 8] & (0x80 >> (pos % 8)))


# -- Init / Init-Response ----------------------------------------------------------------------


@record(frozen=True)
class InitOptions:
    """The Options bitmap (Table A2): which facilities the origin will use."""

    search: bool = True
    present: bool = False
    delete: bool = False
    access_control: bool = False
    resource_control: bool = False

    def encode(self) -> bytes:
        return _bitmap(
            self.search, self.present, self.delete, self.access_control, self.resource_control
        )

    @classmethod
    def decode(cls, bitmap: bytes) -> InitOptions:
        return cls(*(_bit(bitmap, i) for i in range(5)))


@record(frozen=True)
class InitAPDU:
    """Init (protspec.txt §2.1, Appendix B.1): asks for the service's parameters."""

    preferred_message_size: int = 65536
    maximum_record_size: int = 65536
    options: InitOptions = InitOptions()
    id_authentication: bytes | None = None
    implementation_id: bytes | None = None
    implementation_name: bytes | None = None
    implementation_version: bytes | None = None
    reference_id: bytes | None = None
    #: The Protocol-Version bitmap as received (``None``: the dialect's own when encoding).
    protocol_version: bytes | None = None

    PDU_TYPE = T.PDU_INIT

    def _variable(self, d: Dialect) -> bytes:
        return (
            element(T.PROTOCOL_VERSION, self.protocol_version or d.protocol_version)
            + element(T.OPTIONS, self.options.encode())
            + number(T.PREFERRED_MESSAGE_SIZE, self.preferred_message_size)
            + number(T.MAXIMUM_RECORD_SIZE, self.maximum_record_size)
            + optional(T.ID_AUTHENTICATION, self.id_authentication)
            + optional(T.IMPLEMENTATION_ID, self.implementation_id)
            + optional(T.IMPLEMENTATION_NAME, self.implementation_name)
            + optional(d.implementation_version_tag, self.implementation_version)
            + optional(T.REFERENCE_ID, self.reference_id)
        )

    def encode(self, dialect: Dialect = REFERENCE) -> bytes:
        return _apdu(bytes([self.PDU_TYPE]) + self._variable(dialect))


@record(frozen=True)
class WAISInitResponse:
    """The WAIS user information of an Init-Response (protspec.txt §2.2.1-2.2.2)."""

    chunk_code: int | None = None
    chunk_id_length: int | None = None
    chunk_marker: bytes | None = None
    highlight_marker: bytes | None = None
    dehighlight_marker: bytes | None = None
    newline_characters: bytes | None = None
    search_chunk_code_bitmap: bytes | None = None
    present_chunk_code_bitmap: bytes | None = None

    def encode(self) -> bytes:
        return _group(
            T.USER_INFORMATION_LENGTH,
            optional(T.SEARCH_CHUNK_CODE_BITMAP, self.search_chunk_code_bitmap)
            + optional(T.PRESENT_CHUNK_CODE_BITMAP, self.present_chunk_code_bitmap)
            + number(T.CHUNK_CODE, self.chunk_code)
            + number(T.CHUNK_ID_LENGTH, self.chunk_id_length)
            + optional(T.CHUNK_MARKER, self.chunk_marker)
            + optional(T.HIGHLIGHT_MARKER, self.highlight_marker)
            + optional(T.DEHIGHLIGHT_MARKER, self.dehighlight_marker)
            + optional(T.NEWLINE_CHARACTERS, self.newline_characters),
        )

    @classmethod
    def decode(cls, content: bytes) -> WAISInitResponse:
        values: dict[str, object] = {}
        names = {
            T.SEARCH_CHUNK_CODE_BITMAP: "search_chunk_code_bitmap",
            T.PRESENT_CHUNK_CODE_BITMAP: "present_chunk_code_bitmap",
            T.CHUNK_MARKER: "chunk_marker",
            T.HIGHLIGHT_MARKER: "highlight_marker",
            T.DEHIGHLIGHT_MARKER: "dehighlight_marker",
            T.NEWLINE_CHARACTERS: "newline_characters",
        }
        for tag, value in iter_elements(content):
            if tag == T.CHUNK_CODE:
                values["chunk_code"] = as_int(tag, value)
            elif tag == T.CHUNK_ID_LENGTH:
                values["chunk_id_length"] = as_int(tag, value)
            elif tag in names:
                values[names[tag]] = value
            # protspec.txt §1.3.1: unknown elements of an Init are ignored.
        return cls(**values)  # type: ignore[arg-type]


@record(frozen=True)
class InitResponseAPDU(InitAPDU):
    """Init-Response (protspec.txt §2.2, Appendix B.2): ``result`` True is "accept"."""

    result: bool = True
    info: WAISInitResponse | None = None

    PDU_TYPE = T.PDU_INIT_RESPONSE

    def encode(self, dialect: Dialect = REFERENCE) -> bytes:
        return _apdu(
            bytes([self.PDU_TYPE, 1 if self.result else 0]) + self._variable(dialect),
            self.info.encode() if self.info is not None else b"",
        )


# -- documents, queries --------------------------------------------------------------------


@record(frozen=True)
class DocObj:
    """A document or a part of one (waisprot.txt §7 ``DocObj``): ``chunk_code`` 0 is the
    whole document; 1 (bytes) and 2 (lines) take integer ``start``/``end``, 3 (paragraphs)
    takes chunk IDs."""

    document_id: bytes
    type: bytes | None = None
    chunk_code: int = T.CT_DOCUMENT
    start: int | bytes | None = None
    end: int | bytes | None = None

    def encode(self, dialect: Dialect = REFERENCE) -> bytes:
        """As an element of a Type-3 query (``writeDocObj``)."""
        tag = T.DOCUMENT_ID if self.chunk_code == T.CT_DOCUMENT else dialect.document_id_chunk_tag
        out = element(tag, self.document_id) + optional(T.TYPE, self.type)
        if self.chunk_code != T.CT_DOCUMENT:
            out += number(T.CHUNK_CODE, self.chunk_code)
            for t, v in ((T.CHUNK_START_ID, self.start), (T.CHUNK_END_ID, self.end)):
                out += number(t, v) if isinstance(v, int) else optional(t, v)
        return out


@record(frozen=True)
class WAISSearch:
    """The Type-3 relevance-feedback query (protspec.txt Appendix A) in a tag-99 group."""

    seed_words: bytes
    documents: tuple[DocObj, ...] = ()
    date_factor: int | None = None
    begin_date_range: bytes | None = None
    end_date_range: bytes | None = None
    max_documents: int | None = None

    def encode(self, dialect: Dialect = REFERENCE) -> bytes:
        docs = b"".join(d.encode(dialect) for d in self.documents)
        dates = (
            number(T.DATE_FACTOR, self.date_factor)
            + optional(T.BEGIN_DATE_RANGE, self.begin_date_range)
            + optional(T.END_DATE_RANGE, self.end_date_range)
        )
        most = number(T.MAX_DOCUMENTS_RETRIEVED, self.max_documents)
        body = element(T.SEED_WORDS, self.seed_words)
        body += most + docs + dates if dialect.max_documents_first else docs + dates + most
        return _group(T.USER_INFORMATION_LENGTH, body)

    @classmethod
    def decode(cls, content: bytes) -> WAISSearch:
        seed = b""
        docs: list[DocObj] = []
        extra: dict[str, object] = {}
        for tag, value in iter_elements(content):
            if tag == T.SEED_WORDS:
                seed = value
            elif tag in (T.DOCUMENT_ID, T.DOCUMENT_ID_CHUNK):
                code = T.CT_DOCUMENT if tag == T.DOCUMENT_ID else T.CT_BYTE
                docs.append(DocObj(value, chunk_code=code))
            elif tag in (T.TYPE, T.CHUNK_CODE, T.CHUNK_START_ID, T.CHUNK_END_ID):
                if not docs:
                    raise DecodeError(f"element with tag {tag} before any Document-ID")
                d = docs[-1]
                if tag == T.TYPE:
                    d = DocObj(d.document_id, value, d.chunk_code, d.start, d.end)
                elif tag == T.CHUNK_CODE:
                    d = DocObj(d.document_id, d.type, as_int(tag, value), d.start, d.end)
                else:
                    v: int | bytes = (
                        as_int(tag, value) if d.chunk_code in (T.CT_BYTE, T.CT_LINE) else value
                    )
                    d = (
                        DocObj(d.document_id, d.type, d.chunk_code, v, d.end)
                        if tag == T.CHUNK_START_ID
                        else DocObj(d.document_id, d.type, d.chunk_code, d.start, v)
                    )
                docs[-1] = d
            elif tag == T.DATE_FACTOR:
                extra["date_factor"] = as_int(tag, value)
            elif tag == T.BEGIN_DATE_RANGE:
                extra["begin_date_range"] = value
            elif tag == T.END_DATE_RANGE:
                extra["end_date_range"] = value
            elif tag == T.MAX_DOCUMENTS_RETRIEVED:
                extra["max_documents"] = as_int(tag, value)
        return cls(seed_words=seed, documents=tuple(docs), **extra)  # type: ignore[arg-type]


# The Type-1 query's attribute lists: use, relation, position, structure, truncation,
# completeness, two letters each (waisprot.txt §8; the reference library's ZType1.c).
_USE_DOCID = b"un"  # System-Control-Number
_USE_TYPE = b"wt"
_CHUNK_USE = {T.CT_BYTE: b"wb", T.CT_LINE: b"wl", T.CT_PARAGRAPH: b"wp"}
_USE_CHUNK = {v: k for k, v in _CHUNK_USE.items()}
_IGNORE4 = b" ig ig ig ig"


def _attribute(use: bytes, relation: bytes, term: bytes) -> bytes:
    return element(T.ATTRIBUTE_LIST, use + b" " + relation + _IGNORE4) + element(T.TERM, term)


_AND = element(T.OPERATOR, b"a")
_OR = element(T.OPERATOR, b"o")


@record(frozen=True)
class TextQuery:
    """The Type-1 query WAIS uses to retrieve text (waisprot.txt §8): per document
    ``un = docID [wt = type AND] [chunk >= start AND chunk < end AND]``, joined by OR."""

    documents: tuple[DocObj, ...]

    def encode(self) -> bytes:
        out = b""
        for i, d in enumerate(self.documents):
            out += _attribute(_USE_DOCID, b"re", d.document_id)
            if d.type is not None:
                out += _attribute(_USE_TYPE, b"re", d.type) + _AND
            if d.chunk_code != T.CT_DOCUMENT:
                use = _CHUNK_USE.get(d.chunk_code)
                if use is None:
                    raise ValueError(f"unknown chunk code {d.chunk_code}")
                for relation, v in ((b"ro", d.start), (b"rl", d.end)):
                    term = b"%d" % v if isinstance(v, int) else (v or b"")
                    out += _attribute(use, relation, term) + _AND
            if i:
                out += _OR
        return out

    @classmethod
    def decode(cls, data: bytes) -> TextQuery:
        terms = list(_terms(data))
        docs: list[DocObj] = []
        i = 0

        def attr(at: int) -> tuple[bytes, bytes, bytes] | None:
            if at < len(terms) and terms[at][0] == "attr":
                _, attrs, term = terms[at]
                words = attrs.split()
                return words[0] if words else b"", words[1] if len(words) > 1 else b"", term
            return None

        def op(at: int, code: bytes) -> bool:
            return at < len(terms) and terms[at] == ("op", code, b"")

        while i < len(terms):
            head = attr(i)
            if head is None or head[0] != _USE_DOCID:
                raise DecodeError("a text query term list must start each document with un=")
            docid, wtype, chunk, start, end = head[2], None, T.CT_DOCUMENT, None, None
            i += 1
            t = attr(i)
            if t is not None and t[0] == _USE_TYPE and op(i + 1, b"a"):
                wtype, i = t[2], i + 2
            a, b = attr(i), attr(i + 2)
            if a is not None and b is not None and a[0] in _USE_CHUNK and op(i + 1, b"a"):
                if not op(i + 3, b"a") or b[0] != a[0]:
                    raise DecodeError("a chunk range needs 'start AND end AND'")
                chunk = _USE_CHUNK[a[0]]
                start, end = a[2], b[2]
                i += 4
            if chunk in (T.CT_BYTE, T.CT_LINE):
                try:
                    docs.append(DocObj(docid, wtype, chunk, int(start or b""), int(end or b"")))
                except ValueError:
                    raise DecodeError("a byte or line range that is not decimal") from None
            else:
                docs.append(DocObj(docid, wtype, chunk, start, end))
            if op(i, b"o"):
                i += 1
        return cls(tuple(docs))


def _terms(data: bytes) -> Iterator[tuple[str, bytes, bytes]]:
    offset = 0
    while offset < len(data):
        tag, value, offset = read_element(data, offset, len(data))
        if tag == T.ATTRIBUTE_LIST:
            t2, term, offset = read_element(data, offset, len(data))
            if t2 != T.TERM:
                raise DecodeError(f"an attribute list followed by tag {t2}, not a term")
            yield "attr", value, term
        elif tag == T.OPERATOR:
            yield "op", value, b""
        else:
            raise DecodeError(f"tag {tag} in a Type-1 query")


# -- Search / Search-Response --------------------------------------------------------------


@record(frozen=True)
class SearchAPDU:
    """Search (protspec.txt §3.1, Appendix B.3): a Type-3 search or a Type-1 retrieval."""

    database_names: tuple[bytes, ...] | None
    query_type: bytes
    query: WAISSearch | TextQuery | None = None
    small_set_upper_bound: int = 1024
    large_set_lower_bound: int = 2048
    medium_set_present_number: int = 2048
    replace_indicator: bool = True
    result_set_name: bytes | None = b""
    #: Raw Element-Set-Names (``" " 0x1F "Document Text"`` for a retrieval); reference only.
    element_set_names: bytes | None = None
    reference_id: bytes | None = None

    def encode(self, dialect: Dialect = REFERENCE) -> bytes:
        dbs = None if self.database_names is None else T.DB_DELIMITER.join(self.database_names)
        header = (
            bytes([T.PDU_SEARCH])
            + encode_binary(self.small_set_upper_bound, 3)
            + encode_binary(self.large_set_lower_bound, 3)
            + encode_binary(self.medium_set_present_number, 3)
            + bytes([1 if self.replace_indicator else 0])
            + optional(T.RESULT_SET_NAME, self.result_set_name)
            + optional(T.DATABASE_NAMES, dbs)
            + element(dialect.query_type_tag, self.query_type)
            + optional(T.ELEMENT_SET_NAMES, self.element_set_names)
            + optional(T.REFERENCE_ID, self.reference_id)
        )
        if isinstance(self.query, TextQuery):
            info = element(T.QUERY, self.query.encode())
        elif isinstance(self.query, WAISSearch):
            info = self.query.encode(dialect)
        else:
            info = b""
        return _apdu(header, info)


@record(frozen=True)
class DocumentHeader:
    """One hit of a search (protspec.txt §4.3 Document-Header; a tag-150 group)."""

    document_id: bytes
    version_number: int | None = None
    score: int | None = None
    best_match: int | None = None
    document_length: int | None = None
    lines: int | None = None
    types: tuple[bytes, ...] = ()
    source: bytes | None = None
    date: bytes | None = None
    headline: bytes | None = None
    origin_city: bytes | None = None

    def encode(self, dialect: Dialect = REFERENCE) -> bytes:
        w = dialect.width
        body = (
            element(T.DOCUMENT_ID, self.document_id)
            + number(T.VERSION_NUMBER, self.version_number)
            + number(T.SCORE, self.score, w(T.SCORE))
            + number(T.BEST_MATCH, self.best_match, w(T.BEST_MATCH))
            + number(T.DOCUMENT_LENGTH, self.document_length, w(T.DOCUMENT_LENGTH))
            + number(T.LINES, self.lines)
        )
        if self.types:
            body += _group(T.TYPE_BLOCK, b"".join(element(T.TYPE, t) for t in self.types))
        body += (
            optional(T.SOURCE, self.source)
            + optional(T.DATE, self.date)
            + optional(T.HEADLINE, self.headline)
            + optional(T.ORIGIN_CITY, self.origin_city)
        )
        return _group(T.DOCUMENT_HEADER_GROUP, body) if dialect.group_headers else body

    @classmethod
    def from_elements(cls, elements: list[tuple[int, bytes]]) -> DocumentHeader:
        values: dict[str, object] = {}
        ints = {
            T.VERSION_NUMBER: "version_number",
            T.SCORE: "score",
            T.BEST_MATCH: "best_match",
            T.DOCUMENT_LENGTH: "document_length",
            T.LINES: "lines",
        }
        strs = {
            T.DOCUMENT_ID: "document_id",
            T.SOURCE: "source",
            T.DATE: "date",
            T.HEADLINE: "headline",
            T.ORIGIN_CITY: "origin_city",
        }
        for tag, value in elements:
            if tag in ints:
                values[ints[tag]] = as_int(tag, value)
            elif tag in strs:
                values[strs[tag]] = value
            elif tag == T.TYPE_BLOCK:
                values["types"] = tuple(v for t, v in iter_elements(value) if t == T.TYPE)
            # Long headers carry codes (128-130): not ours to show; skipped.
        if "document_id" not in values:
            raise DecodeError("a document header without a Document-ID")
        return cls(**values)  # type: ignore[arg-type]


@record(frozen=True)
class DocumentText:
    """Retrieved text (protspec.txt §4.4 Document-Text; a tag-153 group)."""

    document_id: bytes
    text: bytes
    version_number: int | None = None

    def encode(self) -> bytes:
        return _group(
            T.DOCUMENT_TEXT_GROUP,
            element(T.DOCUMENT_ID, self.document_id)
            + number(T.VERSION_NUMBER, self.version_number)
            + element(T.DOCUMENT_TEXT, self.text),
        )


@record(frozen=True)
class Diagnostic:
    """A Z39.50-1988 diagnostic record (its Appendix D): a two-letter code ("S1" permanent
    system error...), additional information, the surrogate flag."""

    code: bytes
    addinfo: bytes = b""
    surrogate: bool = False

    def encode(self) -> bytes:
        length = 3 + len(self.addinfo)
        if length > 0xFFFE:
            raise ValueError("diagnostic additional information too long")
        return (
            _cint(T.DATABASE_DIAGNOSTIC_RECORDS)
            + length.to_bytes(2, "big")
            + self.code[:2].ljust(2, b" ")
            + self.addinfo
            + bytes([1 if self.surrogate else 0, T.END_OF_RECORD])
        )


@record(frozen=True)
class WAISSearchResponse:
    """The user information of a Search-Response: hits, text, diagnostics."""

    seed_words_used: bytes | None = None
    headers: tuple[DocumentHeader, ...] = ()
    texts: tuple[DocumentText, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()

    def encode(self, dialect: Dialect = REFERENCE) -> bytes:
        return _group(
            T.USER_INFORMATION_LENGTH,
            optional(T.SEED_WORDS_USED, self.seed_words_used)
            + b"".join(h.encode(dialect) for h in self.headers)
            + b"".join(t.encode() for t in self.texts)
            + b"".join(d.encode() for d in self.diagnostics),
        )

    @classmethod
    def decode(cls, content: bytes) -> WAISSearchResponse:
        seed: bytes | None = None
        headers: list[DocumentHeader] = []
        texts: list[DocumentText] = []
        diags: list[Diagnostic] = []
        bare: list[tuple[int, bytes]] = []  # an ungrouped header (Appendix B.4)
        offset, end = 0, len(content)

        def flush() -> None:
            if bare:
                headers.append(DocumentHeader.from_elements(bare))
                bare.clear()

        while offset < end:
            tag, after_tag = decode_compressed(content, offset)
            if tag == T.DATABASE_DIAGNOSTIC_RECORDS:
                flush()
                diag, offset = _read_diagnostic(content, after_tag)
                diags.append(diag)
                continue
            tag, value, offset = read_element(content, offset, end)
            if tag == T.SEED_WORDS_USED:
                flush()
                seed = value
            elif tag in (
                T.DOCUMENT_HEADER_GROUP,
                T.DOCUMENT_SHORT_HEADER_GROUP,
                T.DOCUMENT_LONG_HEADER_GROUP,
            ):
                flush()
                headers.append(DocumentHeader.from_elements(list(iter_elements(value))))
            elif tag == T.DOCUMENT_TEXT_GROUP:
                flush()
                texts.append(_text_from(value))
            elif tag in (T.DOCUMENT_HEADLINE_GROUP, T.DOCUMENT_CODE_GROUP):
                flush()
            elif T.DOCUMENT_ID <= tag <= T.INDUSTRY_CODES or tag in (T.LINES, T.TYPE_BLOCK):
                if tag == T.DOCUMENT_ID:
                    flush()
                bare.append((tag, value))
            else:
                raise DecodeError(f"unexpected tag {tag} in a Search-Response")
        flush()
        return cls(seed, tuple(headers), tuple(texts), tuple(diags))


def _text_from(group: bytes) -> DocumentText:
    docid, text, version = None, None, None
    for tag, value in iter_elements(group):
        if tag == T.DOCUMENT_ID:
            docid = value
        elif tag == T.DOCUMENT_TEXT:
            text = value
        elif tag == T.VERSION_NUMBER:
            version = as_int(tag, value)
    if docid is None or text is None:
        raise DecodeError("a Document-Text group without its Document-ID or text")
    return DocumentText(docid, text, version)


def _read_diagnostic(data: bytes, offset: int) -> tuple[Diagnostic, int]:
    """Tag 28's odd layout (``writeDiag``): 2-byte length L, code (2), addinfo (L-3),
    surrogate (1), end-of-record 0x1D."""
    if offset + 2 > len(data):
        raise DecodeError("truncated diagnostic record")
    length = int.from_bytes(data[offset : offset + 2], "big")
    body = data[offset + 2 : offset + 2 + length + 1]
    if length < 3 or len(body) != length + 1:
        raise DecodeError("truncated diagnostic record")
    return (
        Diagnostic(body[:2], body[2 : length - 1], bool(body[length - 1])),
        offset + 2 + length + 1,
    )


@record(frozen=True)
class SearchResponseAPDU:
    """Search-Response (protspec.txt §3.2, Appendix B.4)."""

    search_status: int = 0
    result_count: int = 0
    records_returned: int = 0
    next_result_set_position: int = 0
    result_set_status: int | None = None
    present_status: int | None = 0
    reference_id: bytes | None = None
    info: WAISSearchResponse | None = field(default=None)

    def encode(self, dialect: Dialect = REFERENCE) -> bytes:
        header = (
            bytes([T.PDU_SEARCH_RESPONSE, self.search_status & 0xFF])
            + encode_binary(self.result_count, 3)
            + encode_binary(self.records_returned, 3)
            + encode_binary(self.next_result_set_position, 3)
            + number(T.RESULT_SET_STATUS, self.result_set_status)
            + number(T.PRESENT_STATUS, self.present_status)
            + optional(T.REFERENCE_ID, self.reference_id)
        )
        return _apdu(header, self.info.encode(dialect) if self.info is not None else b"")


APDU = InitAPDU | InitResponseAPDU | SearchAPDU | SearchResponseAPDU


# -- decoding ---------------------------------------------------------------------------------


def pdu_type(data: bytes) -> int:
    """The PDU-Type of an APDU (byte 3, after the Header-Length-Indicator)."""
    if len(data) < 3:
        raise DecodeError(f"an APDU of {len(data)} bytes is too short")
    return data[2]


def decode_apdu(data: bytes, dialect: Dialect = REFERENCE) -> APDU:
    """Decode one APDU (the bytes after the 25-byte message header)."""
    kind = pdu_type(data)
    header_end = 2 + int.from_bytes(data[:2], "big")
    if header_end > len(data):
        raise DecodeError(
            f"Header-Length-Indicator says {header_end - 2} bytes, the APDU has {len(data) - 2}"
        )
    if kind in (T.PDU_INIT, T.PDU_INIT_RESPONSE):
        return _decode_init(data, kind, header_end, dialect)
    if kind == T.PDU_SEARCH:
        return _decode_search(data, header_end, dialect)
    if kind == T.PDU_SEARCH_RESPONSE:
        return _decode_search_response(data, header_end)
    raise DecodeError(f"PDU type {kind} is not one WAIS uses (20-23)")


def _fixed(data: bytes, offset: int, width: int, end: int, what: str) -> tuple[int, int]:
    if offset + width > end:
        raise DecodeError(f"APDU header too short for {what}")
    return decode_binary(data[offset : offset + width]), offset + width


def _user_info(data: bytes, offset: int) -> bytes | None:
    """The content of the tag-99 group at ``offset`` (``None`` when absent)."""
    if offset >= len(data):
        return None
    tag, value, end = read_element(data, offset, len(data))
    if tag != T.USER_INFORMATION_LENGTH:
        raise DecodeError(f"user information starts with tag {tag}, expected 99")
    if end != len(data):
        raise DecodeError(f"{len(data) - end} bytes after the user information")
    return value


def _decode_init(data: bytes, kind: int, end: int, d: Dialect) -> InitAPDU:
    offset = 3
    result = True
    if kind == T.PDU_INIT_RESPONSE:
        flag, offset = _fixed(data, offset, 1, end, "Result")
        result = bool(flag)
    values: dict[str, object] = {}
    names = {
        T.ID_AUTHENTICATION: "id_authentication",
        T.IMPLEMENTATION_ID: "implementation_id",
        T.IMPLEMENTATION_NAME: "implementation_name",
        d.implementation_version_tag: "implementation_version",
        T.IMPLEMENTATION_VERSION: "implementation_version",
        T.REFERENCE_ID: "reference_id",
        T.PROTOCOL_VERSION: "protocol_version",
    }
    for tag, value in iter_elements(data, offset, end):
        if tag == T.OPTIONS:
            values["options"] = InitOptions.decode(value)
        elif tag == T.PREFERRED_MESSAGE_SIZE:
            values["preferred_message_size"] = as_int(tag, value)
        elif tag == T.MAXIMUM_RECORD_SIZE:
            values["maximum_record_size"] = as_int(tag, value)
        elif tag in names:
            values[names[tag]] = value
        # §1.3.1: unknown elements of an Init are ignored.
    if kind == T.PDU_INIT:
        # An Init's user information (none in WAIS) is ignored, like its unknown elements.
        return InitAPDU(**values)  # type: ignore[arg-type]
    info = _user_info(data, end)
    return InitResponseAPDU(
        result=result,
        info=WAISInitResponse.decode(info) if info is not None else None,
        **values,  # type: ignore[arg-type]
    )


def _decode_search(data: bytes, end: int, d: Dialect) -> SearchAPDU:
    small, offset = _fixed(data, 3, 3, end, "Small-Set-Upper-Bound")
    large, offset = _fixed(data, offset, 3, end, "Large-Set-Lower-Bound")
    medium, offset = _fixed(data, offset, 3, end, "Medium-Set-Present-Number")
    replace, offset = _fixed(data, offset, 1, end, "Replace-Indicator")
    names: tuple[bytes, ...] | None = None
    query_type: bytes | None = None
    rest: dict[str, bytes] = {}
    for tag, value in iter_elements(data, offset, end):
        if tag == T.DATABASE_NAMES:
            names = tuple(value.split(T.DB_DELIMITER))
        elif tag == d.query_type_tag:
            query_type = value
        elif tag == T.ELEMENT_SET_NAMES:
            rest["element_set_names"] = value
        elif tag == T.RESULT_SET_NAME:
            rest["result_set_name"] = value
        elif tag == T.REFERENCE_ID:
            rest["reference_id"] = value
        else:
            raise DecodeError(f"unexpected tag {tag} in a Search APDU")
    if query_type is None:
        raise DecodeError("a Search APDU without a Query-Type")
    query: WAISSearch | TextQuery | None = None
    if end < len(data):
        tag, value, after = read_element(data, end, len(data))
        if after != len(data):
            raise DecodeError(f"{len(data) - after} bytes after the query")
        if tag == T.QUERY:
            query = TextQuery.decode(value)
        elif tag == T.USER_INFORMATION_LENGTH:
            query = WAISSearch.decode(value)
        else:
            raise DecodeError(f"a Search query with tag {tag}")
    return SearchAPDU(
        database_names=names,
        query_type=query_type,
        query=query,
        small_set_upper_bound=small,
        large_set_lower_bound=large,
        medium_set_present_number=medium,
        replace_indicator=bool(replace),
        result_set_name=rest.get("result_set_name"),
        element_set_names=rest.get("element_set_names"),
        reference_id=rest.get("reference_id"),
    )


def _decode_search_response(data: bytes, end: int) -> SearchResponseAPDU:
    status, offset = _fixed(data, 3, 1, end, "Search-Status")
    count, offset = _fixed(data, offset, 3, end, "Result-Count")
    returned, offset = _fixed(data, offset, 3, end, "Number-of-Records-Returned")
    nextpos, offset = _fixed(data, offset, 3, end, "Next-Result-Set-Position")
    values: dict[str, object] = {}
    for tag, value in iter_elements(data, offset, end):
        if tag == T.RESULT_SET_STATUS:
            values["result_set_status"] = as_int(tag, value)
        elif tag == T.PRESENT_STATUS:
            values["present_status"] = as_int(tag, value)
        elif tag == T.REFERENCE_ID:
            values["reference_id"] = value
        else:
            raise DecodeError(f"unexpected tag {tag} in a Search-Response APDU")
    values.setdefault("present_status", None)
    info = _user_info(data, end)
    return SearchResponseAPDU(
        search_status=status,
        result_count=count,
        records_returned=returned,
        next_result_set_position=nextpos,
        info=WAISSearchResponse.decode(info) if info is not None else None,
        **values,  # type: ignore[arg-type]
    )
