"""How the two hardened parsers read a raw HTTP/1.1 reply: the yardstick of the corpus
(tests/data/http_replies.json, tests/test_http_corpus.py).

Each reading is the parser's own, in its default (strict) mode, with nothing of omniurl's:
``Reading(outcome, body)`` where ``outcome`` is ``"ok"`` (a complete final reply; ``body``
its content), ``"error"`` (refused, or cut short at the end of the stream) or ``"upgrade"``
(llhttp handing the connection over after a 101).  The first final reply only: what follows
it is the next reply's, or garbage — never this one's.

llhttp's end of stream: httptools has no ``llhttp_finish``, so the rule it applies is
repeated here (a body with neither ``Content-Length`` nor chunked framing ends at the close;
any other state at the close is an error).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass


@dataclass(frozen=True)
class Reading:
    outcome: str  # "ok", "error", "upgrade"
    body: bytes = b""

    def to_json(self) -> dict[str, object]:
        """``{"outcome"}``, and the body: as Latin-1 text up to 256 bytes, else its length
        and SHA-256 (a readable file)."""
        out: dict[str, object] = {"outcome": self.outcome}
        if self.outcome == "ok":
            if len(self.body) <= 256:
                out["body"] = self.body.decode("latin-1")
            else:
                out["body_length"] = len(self.body)
                out["body_sha256"] = hashlib.sha256(self.body).hexdigest()
        return out


def raw_bytes(raw: str | list[object]) -> bytes:
    """A corpus case's ``raw``: Latin-1 text, or parts of text and ``{"repeat", "times"}``."""
    if isinstance(raw, str):
        return raw.encode("latin-1")
    out = bytearray()
    for part in raw:
        if isinstance(part, str):
            out += part.encode("latin-1")
        else:
            assert isinstance(part, dict)
            out += str(part["repeat"]).encode("latin-1") * int(part["times"])
    return bytes(out)


class _Collector:
    def __init__(self, method: str) -> None:
        self.method = method
        self.status = 0
        self.fields: list[tuple[bytes, bytes]] = []
        self.body: list[bytes] = []
        self.headers_done = False
        self.final: bytes | None = None
        self.chunked_seen = False
        self.parser: object = None

    def on_message_begin(self) -> None:
        self.fields, self.body, self.headers_done = [], [], False

    def on_header(self, name: bytes, value: bytes) -> None:
        if not self.headers_done:
            self.fields.append((name.lower(), value))

    def on_headers_complete(self) -> None:
        self.headers_done = True
        self.status = self.parser.get_status_code()  # type: ignore[attr-defined]
        if self.method == "HEAD" and self.status >= 200:
            self.final = b""  # (llhttp cannot know the request was HEAD: stop here)
            raise _Stop

    def on_chunk_header(self) -> None:
        self.chunked_seen = True

    def on_body(self, data: bytes) -> None:
        self.body.append(data)

    def on_message_complete(self) -> None:
        if self.final is None and not (100 <= self.status < 200):
            self.final = b"".join(self.body)
            raise _Stop


class _Stop(Exception):
    pass


def _needs_eof(collector: _Collector) -> bool:
    """llhttp_message_needs_eof for a response: a body framed by neither Content-Length
    nor chunked (the last coding of the last Transfer-Encoding field)."""
    if not collector.headers_done or collector.status in (204, 304) or collector.status < 200:
        return False
    te = [v for n, v in collector.fields if n == b"transfer-encoding"]
    if te and te[-1].split(b",")[-1].strip(b" \t").lower() == b"chunked":
        return False
    return bool(te) or not any(n == b"content-length" for n, _ in collector.fields)


def llhttp_reading(raw: bytes, method: str = "GET") -> Reading:
    """The reply as llhttp (httptools.HttpResponseParser, strict) reads it."""
    import httptools

    collector = _Collector(method)
    parser = httptools.HttpResponseParser(collector)
    collector.parser = parser
    try:
        parser.feed_data(raw)
    except httptools.HttpParserUpgrade:
        return Reading("upgrade")
    except httptools.HttpParserCallbackError as exc:
        if isinstance(exc.__context__, _Stop) and collector.final is not None:
            return Reading("ok", collector.final)
        return Reading("error")
    except httptools.HttpParserError:
        return Reading("error")
    if collector.final is not None:
        return Reading("ok", collector.final)
    if _needs_eof(collector):
        return Reading("ok", b"".join(collector.body))
    return Reading("error")


def h11_reading(raw: bytes, method: str = "GET") -> Reading:
    """The reply as h11 (a client's Connection, after a ``method`` request) reads it."""
    import h11

    conn = h11.Connection(h11.CLIENT)
    conn.send(h11.Request(method=method, target="/", headers=[("Host", "example")]))
    conn.send(h11.EndOfMessage())
    conn.receive_data(raw)
    conn.receive_data(b"")
    body: list[bytes] = []
    try:
        while True:
            event = conn.next_event()
            if isinstance(event, h11.Data):
                body.append(bytes(event.data))
            elif isinstance(event, h11.EndOfMessage):
                return Reading("ok", b"".join(body))
            elif (
                event is h11.NEED_DATA
                or event is h11.PAUSED
                or isinstance(event, h11.ConnectionClosed)
            ):
                return Reading("error")
    except h11.RemoteProtocolError:
        return Reading("error")
