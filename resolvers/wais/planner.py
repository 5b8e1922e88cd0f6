"""The pure half of the WAIS resolver: a ``wais:`` URL in, the exact messages out.

RFC 1738 §3.9 gives three forms, and each plans differently:

``wais://host:port/database``
    "designates a WAIS database that is available for searching": nothing to send until there
    are search words.  The plan is one ``info`` step; the executor asks for words through
    ``Options.ask`` and goes on to ``…/database?words`` (re-planned and re-checked by the core),
    or raises :class:`~resolvers.errors.InputNeeded` when nobody can be asked.

``wais://host:port/database?search``
    Init, then a Search with query type "3" (relevance feedback, protspec.txt Appendix A)
    carrying the search words as Seed-Words.  The reply's document headers become a listing.
    The words go as decoded, "+" included: once decoded, a "+" that RFC 1630 reads as a space
    cannot be told from a "%2B", and WAIS servers split seed words on any character that is
    not a letter or digit anyway.

``wais://host:port/database/wtype/wpath``
    Init, then Searches with query type "1" (the Type-1 text retrieval query, waisprot.txt §8):
    ``System-Control-Number = <wpath's octets> AND Data-Type = <wtype> AND bytes >= start AND
    bytes < end``.  The document's size is not in the URL, so the plan shows the first chunk
    request as one step and the repetition as a second step whose ``when`` says when it is
    sent again ("while the previous reply filled its chunk") with the range moving on by the
    chunk size each time; :func:`retrieval_message` builds every one of them, so the executor
    sends exactly what the plan describes.

Every step's ``data`` is the whole message: the 25-byte header and the APDU.  The database
names and search words are checked in the policy's "wais" context (0x1F separates database
names, NUL ends the C strings of deployed servers); the DocID travels length-prefixed and is
opaque (doc-ids.txt), so it is checked in the "binary" context: any octet may be in it.
"""

from __future__ import annotations

from typing import Any, Literal

from omniurl.schemes.base import URL
from omniurl.schemes.percent import to_octets
from omniurl.schemes.records import record

from ..errors import PlanError
from ..options import Options
from ..plan import Condition, Plan, Role, Step, WireValue
from . import tags as T
from .apdu import DocObj, InitAPDU, SearchAPDU, TextQuery, WAISSearch
from .header import frame

# MESSAGE_SIZE, CHUNK_SIZE and MAX_DOCUMENTS (and WAISOptions) live in .settings.
from .settings import CHUNK_SIZE as CHUNK_SIZE
from .settings import MAX_DOCUMENTS as MAX_DOCUMENTS
from .settings import MESSAGE_SIZE, WAISOptions

DEFAULT_TYPE = b"TEXT"

# RFC 1738 §5: database, wtype and wpath are *uchar: unreserved (alpha, digit, safe, extra)
# or an escape.  Everything else — "/" included — is %XX-encoded.
_UNRESERVED = frozenset(
    b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789" + b"$-_.+" + b"!*'(),"
)


def escape(value: bytes) -> str:
    """``*uchar`` for a database, wtype or wpath: every other octet as %XX (§2.2)."""
    return "".join(chr(b) if b in _UNRESERVED else f"%{b:02X}" for b in value)


def document_url(url: Any, document_id: bytes, wtype: bytes | None) -> str:
    """``wais://host[:port]/database/wtype/wpath`` for a document a search returned: the
    DocID escaped octet for octet, so that it round-trips exactly (§3.9, doc-ids.txt)."""
    port = f":{url.port}" if url.port is not None else ""
    return (
        f"wais://{url.host}{port}/{escape(to_octets(url.database))}/"
        f"{escape(wtype or DEFAULT_TYPE)}/{escape(document_id)}"
    )


def _show(value: bytes) -> str:
    return value.decode("utf-8", "backslashreplace")


def init_message() -> tuple[bytes, str]:
    """The Init every connection starts with (protspec.txt §2.1)."""
    apdu = InitAPDU(
        preferred_message_size=MESSAGE_SIZE,
        maximum_record_size=MESSAGE_SIZE,
        implementation_name=b"omniurl",
    ).encode()
    return frame(apdu), f"Init (WAIS protocol 2, max {MESSAGE_SIZE})"


def search_message(database: bytes, words: bytes, max_documents: int) -> tuple[bytes, str]:
    """A relevance-feedback search (query type "3") for ``words`` in ``database``."""
    apdu = SearchAPDU(
        database_names=(database,),
        query_type=T.QT_RELEVANCE_FEEDBACK,
        query=WAISSearch(words, date_factor=1, max_documents=max_documents),
        small_set_upper_bound=max_documents,
        large_set_lower_bound=5000,
        medium_set_present_number=max_documents,
    ).encode()
    shown = f'Search db="{_show(database)}" query-type 3 seed "{_show(words)}" max {max_documents}'
    return frame(apdu), shown


def retrieval_message(
    database: bytes, wtype: bytes | None, document_id: bytes, start: int, end: int
) -> tuple[bytes, str]:
    """A Type-1 retrieval of bytes ``[start, end)`` of one document (waisprot.txt §8)."""
    apdu = SearchAPDU(
        database_names=(database,),
        query_type=T.QT_TEXT_RETRIEVAL,
        query=TextQuery((DocObj(document_id, wtype, T.CT_BYTE, start, end),)),
        small_set_upper_bound=10,
        large_set_lower_bound=16,
        medium_set_present_number=15,
        element_set_names=b" " + T.DB_DELIMITER + T.ES_DOCUMENT_TEXT,
    ).encode()
    shown = (
        f'Search db="{_show(database)}" query-type 1 docid {escape(document_id)} '
        f"type {_show(wtype or b'-')} bytes [{start}, {end})"
    )
    return frame(apdu), shown


WAISForm = Literal["document", "search", "database"]


@record(frozen=True)
class WAISDetails:
    """What the WAIS executor needs beyond the messages (typed; never sent)."""

    #: A retrieval by DocID, a search, or a bare database (asks for words).
    form: WAISForm
    database: bytes
    #: Bytes asked for per retrieval message (``--wais-chunk-size``).
    chunk_size: int
    wtype: bytes | None
    document_id: bytes | None
    max_documents: int


class WAISRole(Role):
    """What each WAIS message is for (Z39.50-1988 with WAIS's extensions)."""

    INIT = "init"
    SEARCH = "search"
    RETRIEVE = "retrieve"
    RETRIEVE_MORE = "retrieve-more"


@record(frozen=True)
class Repeated:
    """The detail of the repeated retrieval step: how its first repetition is shown (later
    ones ask for the next chunk, built the same way from the plan's details)."""

    request: str


def more_due(last: tuple[int, int]) -> bool:
    """Another retrieval only while the previous reply filled its chunk: ``last`` is the
    (bytes received, bytes asked for) of that reply; a shorter one was the document's end."""
    received, chunk = last
    return received >= chunk


def plan_wais(url: URL, options: Options) -> Plan:
    """The plan for a ``wais:`` URL (see the module docstring)."""
    u: Any = url
    database = to_octets(u.database)
    mine = options.of(WAISOptions)
    chunk = int(mine.chunk_size)
    max_documents = int(mine.max_documents)
    if chunk <= 0 or max_documents <= 0:
        raise PlanError("wais_chunk_size and wais_max_documents must be positive")
    db_value = WireValue("database", database, "wais")
    wtype: bytes | None = None
    docid: bytes | None = None
    steps: list[Step] = []
    form: WAISForm
    if u.wpath is not None:
        form = "document"
        wtype = to_octets(u.wtype) if u.wtype else None
        docid = to_octets(u.wpath)
        if not docid:
            raise PlanError("a WAIS document URL needs a DocID in its wpath", component="wpath")
        values = (
            db_value,
            WireValue("wtype", wtype or b"", "wais"),
            WireValue("wpath", docid, "binary"),
        )
        init, init_shown = init_message()
        first, first_shown = retrieval_message(database, wtype, docid, 0, chunk)
        again, again_shown = retrieval_message(database, wtype, docid, chunk, 2 * chunk)
        more = Condition(f"while the previous reply filled its {chunk}-byte chunk", more_due)
        steps = [
            Step(init, init_shown, kind="message", role=WAISRole.INIT),
            Step(first, first_shown, kind="message", values=values, role=WAISRole.RETRIEVE),
            Step(
                again,
                f"{again_shown}, then [{2 * chunk}, {3 * chunk}), … (repeated)",
                kind="message",
                when=more.text,
                values=values,
                role=WAISRole.RETRIEVE_MORE,
                detail=Repeated(again_shown),
                condition=more,
            ),
        ]
    elif u.search:
        form = "search"
        words = to_octets(u.search)
        init, init_shown = init_message()
        search, search_shown = search_message(database, words, max_documents)
        steps = [
            Step(init, init_shown, kind="message", role=WAISRole.INIT),
            Step(
                search,
                search_shown,
                kind="message",
                role=WAISRole.SEARCH,
                values=(db_value, WireValue("search", words, "wais")),
            ),
        ]
    else:
        form = "database"
        steps = [
            Step(
                b"",
                f'database "{_show(database)}" is searchable: ask for search words, then '
                "resolve the same URL with ?words (nothing is sent before)",
                kind="info",
                values=(db_value,),
            )
        ]
    return Plan(
        url=url,
        scheme="wais",
        host=u.hostname,
        port=u.effective_port,
        transport="tcp",
        steps=tuple(steps),
        explicit_port=u.port is not None,
        details=WAISDetails(
            form=form,
            database=database,
            chunk_size=chunk,
            wtype=wtype,
            document_id=docid,
            max_documents=max_documents,
        ),
    )
