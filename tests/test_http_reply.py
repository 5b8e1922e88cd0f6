"""HTTP's reply handling as a pure machine: bytes in, events out, no socket (RFC 9112 §4-§7).

Every framing (Content-Length, chunked, until close, none), interim replies, premature ends,
malformed heads, and what a head means (redirect, Digest challenge, 401/407, errors).
"""

from __future__ import annotations

import pytest

from omniurl.resolvers.errors import (
    AuthError,
    ConnectionClosed,
    LimitExceeded,
    ProtocolError,
    StatusError,
)
from omniurl.resolvers.http.reply import (
    MAX_INTERIM,
    NEED_DATA,
    Data,
    End,
    Event,
    Head,
    ReplyReader,
    digest_challenged,
    failure,
    redirect_location,
)


def events(data: bytes, *, method: str = "GET", step: int = 0, eof: bool = True) -> list[Event]:
    """Feed ``data`` (all at once, or ``step`` bytes at a time) and collect every event."""
    reader = ReplyReader(method)
    pieces = [data] if not step else [data[i : i + step] for i in range(0, len(data), step)]
    if eof:
        pieces.append(b"")
    out: list[Event] = []
    for piece in pieces:
        reader.receive_data(piece)
        while True:
            event = reader.next_event()
            if event is NEED_DATA:
                break
            out.append(event)
            if isinstance(event, End):
                return out
    return out


def body_of(evs: list[Event]) -> bytes:
    return b"".join(e.data for e in evs if isinstance(e, Data))


@pytest.mark.parametrize("step", [0, 1, 7])
def test_content_length_body_and_keep_alive(step: int) -> None:
    evs = events(
        b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A: 1\r\n\r\nhello", step=step, eof=False
    )
    head = evs[0]
    assert head == Head("HTTP/1.1", 200, "OK", (("Content-Length", "5"), ("X-A", "1")))
    assert body_of(evs) == b"hello"
    assert evs[-1] == End(keep_alive=True)


@pytest.mark.parametrize("step", [0, 1, 5])
def test_chunked_body_with_extensions_and_trailer(step: int) -> None:
    wire = (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"5;name=v\r\nhello\r\n1\r\n \r\nA\r\n0123456789\r\n0\r\nX-Sum: 1\r\n\r\n"
    )
    evs = events(wire, step=step, eof=False)
    assert body_of(evs) == b"hello 0123456789"
    assert evs[-1] == End(keep_alive=True)


def test_body_until_close_and_http_1_0() -> None:
    evs = events(b"HTTP/1.0 200 OK\nContent-Type: text/plain\n\nall of it")
    assert evs[0] == Head("HTTP/1.0", 200, "OK", (("Content-Type", "text/plain"),))
    assert body_of(evs) == b"all of it"
    assert evs[-1] == End(keep_alive=False)


@pytest.mark.parametrize(
    ("wire", "method"),
    [
        (b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n", "HEAD"),
        (b"HTTP/1.1 204 No Content\r\n\r\n", "GET"),
        (b"HTTP/1.1 304 Not Modified\r\nContent-Length: 9\r\n\r\n", "GET"),
    ],
)
def test_replies_without_a_body(wire: bytes, method: str) -> None:
    assert events(wire, method=method, eof=False)[1:] == [End(keep_alive=True)]


def test_interim_replies_are_skipped_and_bounded() -> None:
    evs = events(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
    assert [type(e) for e in evs] == [Head, End] and isinstance(evs[0], Head)
    assert evs[0].status == 200
    with pytest.raises(LimitExceeded):
        events(b"HTTP/1.1 100 Continue\r\n\r\n" * (MAX_INTERIM + 1), eof=False)


def test_connection_close_and_a_missing_reason() -> None:
    evs = events(b"HTTP/1.1 200\r\nConnection: keep-alive, close\r\nContent-Length: 0\r\n\r\n")
    assert isinstance(evs[0], Head) and evs[0].status_line == "HTTP/1.1 200"
    assert evs[-1] == End(keep_alive=False)


def test_obs_fold_and_repeated_fields() -> None:
    head = events(b"HTTP/1.1 200 OK\r\nX-A: 1\r\n  more\r\nx-a: 2\r\nContent-Length: 0\r\n\r\n")[0]
    assert isinstance(head, Head)
    assert head.headers() == {"x-a": "1 more, 2", "content-length": "0"}
    assert head.get("X-A") == "1 more"


@pytest.mark.parametrize(
    ("wire", "error"),
    [
        (b"", ConnectionClosed),  # closed without a reply
        (b"HTTP/1.1 200 OK\r\nContent-Le", ConnectionClosed),  # inside the head
        (b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nshort", ConnectionClosed),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", ConnectionClosed),
        (b"ICY 200 OK\r\n\r\n", ProtocolError),
        (b"HTTP/1.1 200 OK\r\nbad field\r\n\r\n", ProtocolError),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", ProtocolError),
        (b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", ProtocolError),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", ProtocolError),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n", ProtocolError),
        (b"HTTP/1.1 200 OK\r\nX: " + b"a" * 200_000, LimitExceeded),
    ],
)
def test_broken_replies_are_typed_errors(wire: bytes, error: type[Exception]) -> None:
    with pytest.raises(error):
        events(wire)


def test_a_known_length_body_can_bypass_the_machine() -> None:
    """The executor's bulk path: the machine says how much may be read past it, and counts."""
    reader = ReplyReader()
    reader.receive_data(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nab")
    assert isinstance(reader.next_event(), Head)
    assert reader.raw_wanted() == 0  # two body bytes are buffered: taken as an event first
    assert reader.next_event() == Data(b"ab")
    assert reader.raw_wanted() == 8
    reader.raw_received(8)
    assert reader.next_event() == End(keep_alive=True)
    cut = ReplyReader()
    cut.receive_data(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n")
    cut.next_event()
    cut.raw_received(3)
    cut.raw_received(0)  # the peer closed
    assert cut.raw_wanted() == 0
    with pytest.raises(ConnectionClosed, match="7 bytes"):
        cut.next_event()


def _head(status: int, *fields: tuple[str, str]) -> Head:
    return Head("HTTP/1.1", status, "Reason", fields)


def test_what_a_head_means() -> None:
    assert redirect_location(_head(302, ("Location", "/x")), follow=True) == "/x"
    assert redirect_location(_head(302, ("Location", "/x")), follow=False) is None
    assert redirect_location(_head(300, ("Location", "/x")), follow=True) is None
    digest = _head(401, ("WWW-Authenticate", 'Digest realm="r", nonce="n"'))
    assert digest_challenged(digest, has_digest=True)
    assert not digest_challenged(digest, has_digest=False)
    assert not digest_challenged(_head(401, ("WWW-Authenticate", "Basic")), has_digest=True)
    assert isinstance(failure(_head(407), "u"), AuthError)
    error = failure(_head(404), "u")
    assert isinstance(error, StatusError) and error.status == 404
    assert failure(_head(206), "u") is None
