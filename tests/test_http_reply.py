"""HTTP's reply handling as a pure machine: bytes in, events out, no socket (RFC 9112 §4-§7).

Every framing (Content-Length, chunked, until close, none), interim replies, premature ends,
malformed heads, and what a head means (redirect, Digest challenge, 401/407, errors).  Each
case runs on both parsers behind the seam (llhttp through httptools, and h11): the ``parser``
fixture.  The tricks of issue 30 (framing a hand-written reader got wrong) are at the end;
tests/test_http_corpus.py holds the field's own suites.
"""

from __future__ import annotations

import time

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
    PARSERS,
    Data,
    End,
    Event,
    Head,
    ReplyReader,
    digest_challenged,
    failure,
    redirect_location,
)


@pytest.fixture(params=PARSERS)
def parser(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def events(
    data: bytes, *, method: str = "GET", step: int = 0, eof: bool = True, parser: str = "llhttp"
) -> list[Event]:
    """Feed ``data`` (all at once, or ``step`` bytes at a time) and collect every event."""
    reader = ReplyReader(method, parser=parser)
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
def test_content_length_body_and_keep_alive(step: int, parser: str) -> None:
    evs = events(
        b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A: 1\r\n\r\nhello",
        step=step,
        eof=False,
        parser=parser,
    )
    head = evs[0]
    assert head == Head("HTTP/1.1", 200, "OK", (("Content-Length", "5"), ("X-A", "1")))
    assert body_of(evs) == b"hello"
    assert evs[-1] == End(keep_alive=True)


@pytest.mark.parametrize("step", [0, 1, 5])
def test_chunked_body_with_extensions_and_trailer(step: int, parser: str) -> None:
    wire = (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"5;name=v\r\nhello\r\n1\r\n \r\nA\r\n0123456789\r\n0\r\nX-Sum: 1\r\n\r\n"
    )
    evs = events(wire, step=step, eof=False, parser=parser)
    assert body_of(evs) == b"hello 0123456789"
    assert evs[-1] == End(keep_alive=True)


def test_body_until_close_and_http_1_0(parser: str) -> None:
    evs = events(b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nall of it", parser=parser)
    assert evs[0] == Head("HTTP/1.0", 200, "OK", (("Content-Type", "text/plain"),))
    assert body_of(evs) == b"all of it"
    assert evs[-1] == End(keep_alive=False)


def test_a_bare_lf_head_is_read_as_each_parser_reads_it(parser: str) -> None:
    """RFC 9112 §2.2 lets a recipient take a bare LF as a line end: h11 does, llhttp (strict,
    as Node runs it) refuses.  Either reading agrees with a hardened parser; neither desyncs."""
    wire = b"HTTP/1.0 200 OK\nContent-Type: text/plain\n\nall of it"
    if parser == "llhttp":
        with pytest.raises(ProtocolError, match="Missing expected CR"):
            events(wire, parser=parser)
        return
    evs = events(wire, parser=parser)
    assert evs[0] == Head("HTTP/1.0", 200, "OK", (("Content-Type", "text/plain"),))
    assert body_of(evs) == b"all of it"


@pytest.mark.parametrize(
    ("wire", "method"),
    [
        (b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n", "HEAD"),
        (b"HTTP/1.1 204 No Content\r\n\r\n", "GET"),
        (b"HTTP/1.1 304 Not Modified\r\nContent-Length: 9\r\n\r\n", "GET"),
    ],
)
def test_replies_without_a_body(wire: bytes, method: str, parser: str) -> None:
    assert events(wire, method=method, eof=False, parser=parser)[1:] == [End(keep_alive=True)]


def test_interim_replies_are_skipped_and_bounded(parser: str) -> None:
    evs = events(
        b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", parser=parser
    )
    assert [type(e) for e in evs] == [Head, End] and isinstance(evs[0], Head)
    assert evs[0].status == 200
    with pytest.raises(LimitExceeded):
        events(b"HTTP/1.1 100 Continue\r\n\r\n" * (MAX_INTERIM + 1), eof=False, parser=parser)


def test_connection_close_and_a_missing_reason(parser: str) -> None:
    evs = events(
        b"HTTP/1.1 200\r\nConnection: keep-alive, close\r\nContent-Length: 0\r\n\r\n", parser=parser
    )
    assert isinstance(evs[0], Head) and evs[0].status_line == "HTTP/1.1 200"
    assert evs[-1] == End(keep_alive=False)


def test_obs_fold_and_repeated_fields(parser: str) -> None:
    """RFC 9112 §5.2: a user agent MUST replace an obs-fold in a response with SP before
    reading the value — on both parsers (llhttp refused it before, exit 6; curl and h11
    join it), whole or cut anywhere; a line with white space first right after the status
    line is no fold (§2.2: refused)."""
    wire = b"HTTP/1.1 200 OK\r\nX-A: 1 \r\n  more\r\nx-a: 2\r\nContent-Length: 0\r\n\r\n"
    for step in (len(wire), 1, 7):
        head = events(wire, step=step, parser=parser)[0]
        assert isinstance(head, Head)
        assert head.headers() == {"x-a": "1 more, 2", "content-length": "0"}, step
        assert head.get("X-A") == "1 more"
    with pytest.raises(ProtocolError):
        events(b"HTTP/1.1 200 OK\r\n X-A: 1\r\nContent-Length: 0\r\n\r\n", parser=parser)


@pytest.mark.parametrize(
    ("wire", "value"),
    [
        (b"HTTP/1.1 200 OK\r\nX-A: 1\r\n \r\n 2\r\nContent-Length: 0\r\n\r\n", "1  2"),
        (b"HTTP/1.1 200 OK\r\nX-A: 1\r\n \r\nContent-Length: 0\r\n\r\n", "1"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nX-A: 1\r\n\t \r\n\r\n", "1"),
    ],
)
def test_obs_fold_of_white_space_alone_read_alike_however_cut(
    parser: str, wire: bytes, value: str
) -> None:
    """A fold whose continuation line is white space alone (RFC 9112 §5.2's obs-fold is
    CRLF 1*(SP / HTAB)) reads the same wherever the bytes were cut: before, a cut right
    after that line's break gave llhttp the line break alone, then a line starting with
    white space (refused: "unexpected whitespace"), and h11 another value."""
    whole = events(wire, parser=parser)[0]
    assert isinstance(whole, Head)
    assert whole.headers()["content-length"] == "0"
    assert (whole.get("X-A") or "").rstrip() == value  # (llhttp keeps a value's last SP)
    for step in range(1, len(wire)):
        head = events(wire, step=step, parser=parser)[0]
        assert isinstance(head, Head), step
        assert head.fields == whole.fields, step


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
def test_broken_replies_are_typed_errors(wire: bytes, error: type[Exception], parser: str) -> None:
    with pytest.raises(error):
        events(wire, parser=parser)


def test_a_known_length_body_can_bypass_the_machine(parser: str) -> None:
    """The executor's bulk path: the machine says how much may be read past it, and counts."""
    reader = ReplyReader(parser=parser)
    reader.receive_data(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nab")
    assert isinstance(reader.next_event(), Head)
    assert reader.raw_wanted() == 0  # two body bytes are buffered: taken as an event first
    assert reader.next_event() == Data(b"ab")
    assert reader.raw_wanted() == 8
    reader.raw_received(8)
    assert reader.next_event() == End(keep_alive=True)
    cut = ReplyReader(parser=parser)
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


# -- issue 30: the framing tricks a hand-written reader took, each with the connection kept --

CHUNKED = b"5\r\nhello\r\n0\r\n\r\n"


@pytest.mark.parametrize(
    ("wire", "error", "match"),
    [
        # "chun\u212aed": a Kelvin sign that str.lower() makes a "k"; no token, no chunked
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chun\xe2\x84\xaaed\r\n\r\n" + CHUNKED,
            ProtocolError,
            "Transfer-Encoding",
        ),
        # two fields: chunked, then gzip — combined, chunked is not last
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n\r\n"
            + CHUNKED,
            ProtocolError,
            "Transfer-Encoding",
        ),
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, identity\r\n\r\n" + CHUNKED,
            ProtocolError,
            "Transfer-Encoding",
        ),
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, chunked\r\n\r\n" + CHUNKED,
            ProtocolError,
            "Transfer-Encoding",
        ),
        # Content-Length with what str.strip() removes, and non-ASCII digits
        (b"HTTP/1.1 200 OK\r\nContent-Length: 5\x0b\r\n\r\nhello", ProtocolError, None),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 5\x1f\r\n\r\nhello", ProtocolError, None),
        (b"HTTP/1.1 200 OK\r\nContent-Length: \xa05\r\n\r\nhello", ProtocolError, None),
        (
            "HTTP/1.1 200 OK\r\nContent-Length: \u0665\r\n\r\nhello".encode(),
            ProtocolError,
            None,
        ),
        # bare LF after chunk data, and ending a chunk-size line (h11 0.16's fix)
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\n0\r\n\r\n",
            ProtocolError,
            None,
        ),
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\nhello\r\n0\r\n\r\n",
            ProtocolError,
            None,
        ),
        # trailers: no colon, a NUL
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n"
            b"no colon\r\n\r\n",
            ProtocolError,
            None,
        ),
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n"
            b"X-T: a\x00b\r\n\r\n",
            ProtocolError,
            None,
        ),
        # the status line: HTTP/5.6, HTTP/2.0, 099, 600, a NUL in the reason phrase
        (b"HTTP/5.6 200 OK\r\nContent-Length: 0\r\n\r\n", ProtocolError, None),
        (b"HTTP/2.0 200 OK\r\nContent-Length: 0\r\n\r\n", ProtocolError, None),
        (b"HTTP/1.1 099 Early\r\nContent-Length: 0\r\n\r\n", ProtocolError, None),
        (b"HTTP/1.1 600 Late\r\nContent-Length: 0\r\n\r\n", ProtocolError, "100-599"),
        (b"HTTP/1.1 200 O\x00K\r\nContent-Length: 0\r\n\r\n", ProtocolError, None),
        # an unrequested 101, the upgraded bytes after it
        (
            b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\nConnection: upgrade\r\n\r\n"
            b"not http at all",
            ProtocolError,
            "(?i)101|switch",
        ),
        # a head over the limit that arrives complete, in one piece
        (
            b"HTTP/1.1 200 OK\r\nX: " + b"a" * (100 * 1024) + b"\r\nContent-Length: 0\r\n\r\n",
            LimitExceeded,
            "head",
        ),
    ],
    ids=[
        "te-kelvin-sign",
        "te-two-fields-chunked-first",
        "te-chunked-identity",
        "te-chunked-twice",
        "cl-vt",
        "cl-us",
        "cl-nbsp",
        "cl-arabic-indic-digit",
        "bare-lf-after-chunk-data",
        "bare-lf-in-chunk-size",
        "trailer-no-colon",
        "trailer-nul",
        "http-5.6",
        "http-2.0",
        "status-099",
        "status-600",
        "reason-nul",
        "unrequested-101",
        "head-over-limit-complete",
    ],
)
def test_framing_tricks_are_refused(
    wire: bytes, error: type[Exception], match: str | None, parser: str
) -> None:
    with pytest.raises(error, match=match):
        events(wire, parser=parser, eof=False)


@pytest.mark.parametrize(
    "wire",
    [
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=" + b"a" * 10_000,
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-T: " + b"a" * 10_000,
    ],
    ids=["chunk-extension", "trailer-field"],
)
def test_endless_chunk_lines_are_bounded(wire: bytes, parser: str) -> None:
    """Neither parser bounds a chunk line (they stream it); ours is :data:`MAX_CHUNK_LINE`
    bytes fed without progress, checked per read (here 1 KiB reads)."""
    with pytest.raises(LimitExceeded, match="chunk line"):
        events(wire, parser=parser, eof=False, step=1024)


@pytest.mark.parametrize("step", [0, 1, 3])
def test_both_lengths_are_read_as_chunked_and_never_reused(step: int, parser: str) -> None:
    """RFC 9112 §6.1 / §6.3 rule 3: Transfer-Encoding overrides Content-Length, and "the
    connection MUST be closed" after such a message: End says not to reuse it, and why."""
    wire = b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n" + CHUNKED
    reader = ReplyReader(parser=parser)
    out: list[Event] = []
    pieces = [wire] if not step else [wire[i : i + step] for i in range(0, len(wire), step)]
    for piece in pieces:
        reader.receive_data(piece)
        while (event := reader.next_event()) is not NEED_DATA:
            out.append(event)
            if isinstance(event, End):
                break
    assert body_of(out) == b"hello"
    assert out[-1] == End(keep_alive=False)
    assert reader.reuse_refused is not None and "Content-Length" in reader.reuse_refused


@pytest.mark.parametrize(
    ("wire", "method", "body"),
    [
        (b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloHTTP/1.1 200 OK\r\n", "GET", b"hello"),
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + CHUNKED + b"extra",
            "GET",
            b"hello",
        ),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", "HEAD", b""),
        (b"HTTP/1.1 204 No Content\r\n\r\nsurprise", "GET", b""),
    ],
)
def test_bytes_after_the_end_forbid_reuse(
    wire: bytes, method: str, body: bytes, parser: str
) -> None:
    """Bytes the server sent past the reply's end are never the next reply: the reply is
    complete, and the connection is not kept (the pool closes it)."""
    evs = events(wire, method=method, parser=parser, eof=False)
    assert body_of(evs) == body
    assert evs[-1] == End(keep_alive=False)


def test_what_both_parsers_skip_between_replies_is_not_a_reply(parser: str) -> None:
    """A CRLF after a chunked reply's end: llhttp skips it silently (as RFC 9112 §2.2's
    robustness rule), h11 reports it; either way no byte of it reaches the body."""
    evs = events(
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + CHUNKED + b"\r\n",
        parser=parser,
        eof=False,
    )
    assert body_of(evs) == b"hello" and isinstance(evs[-1], End)


@pytest.mark.parametrize(
    ("value", "framing"),
    [
        (b"Transfer-Encoding: gzip", b"abc"),  # §6.3 rule 4: read until the close
        (b"Transfer-Encoding: chunkedchunked", b"abc"),
    ],
)
def test_a_last_coding_other_than_chunked_reads_until_the_close(
    value: bytes, framing: bytes, parser: str
) -> None:
    wire = b"HTTP/1.1 200 OK\r\n" + value + b"\r\n\r\n" + framing
    if parser == "h11":  # h11 supports only chunked, and refuses the reply
        with pytest.raises(ProtocolError):
            events(wire, parser=parser)
        return
    evs = events(wire, parser=parser)
    assert body_of(evs) == framing and evs[-1] == End(keep_alive=False)


def test_equal_content_lengths(parser: str) -> None:
    """RFC 9110 §8.6: equal duplicates may be read as one (h11 does); llhttp refuses any
    duplicate.  Different ones are refused by both."""
    same = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nhi"
    if parser == "llhttp":
        with pytest.raises(ProtocolError):
            events(same, parser=parser)
    else:
        assert body_of(events(same, parser=parser)) == b"hi"
    with pytest.raises(ProtocolError):
        events(same.replace(b": 2\r\n\r\n", b": 3\r\n\r\n"), parser=parser)


def test_the_parser_is_chosen_by_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from omniurl.resolvers.errors import ConfigurationError
    from omniurl.resolvers.http import reply

    monkeypatch.setattr(reply, "_default", None)
    monkeypatch.setenv("OMNIURL_HTTP_PARSER", "h11")
    assert reply.default_parser() == "h11" and ReplyReader().parser == "h11"
    monkeypatch.setattr(reply, "_default", None)
    monkeypatch.delenv("OMNIURL_HTTP_PARSER")
    assert reply.default_parser() == "llhttp"
    monkeypatch.setattr(reply, "_default", None)
    monkeypatch.setenv("OMNIURL_HTTP_PARSER", "picohttp")
    with pytest.raises(ConfigurationError, match="OMNIURL_HTTP_PARSER"):
        reply.default_parser()
    monkeypatch.setattr(reply, "_default", None)


def test_bytes_a_parser_took_past_a_chunked_end_count_as_trailing(parser: str) -> None:
    """The pool's check (``ReplyReader.trailing``) sees bytes the parser consumed past the
    last chunk, not only those still buffered (llhttp reads a whole feed at once)."""
    reader = ReplyReader(parser=parser)
    reader.receive_data(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + CHUNKED + b"X")
    while not isinstance(event := reader.next_event(), End):
        assert event is not NEED_DATA
    assert event == End(keep_alive=False) and reader.trailing() >= 1


def test_white_space_dripped_a_byte_at_a_time_costs_a_step_a_byte(parser: str) -> None:
    """The obs-fold hold-back (a head's trailing CR, LF, SP and HTAB wait for the next byte)
    looks only at the bytes come since the last look: a server dripping a head's white
    space one byte a read cost a scan of the whole run at each byte before — quadratic,
    ~2 minutes of CPU for 70,000 bytes; now a step a byte (bounded here in CPU time, with
    room for a loaded machine: ~0.05 s)."""
    reader = ReplyReader("GET", parser=parser)
    reader.receive_data(b"HTTP/1.1 200 OK\r\nX-A: 1")
    started = time.process_time()
    for i in range(30000):
        reader.receive_data(b" \r\n"[i % 3 : i % 3 + 1])
        assert reader.next_event() is NEED_DATA
    assert time.process_time() - started < 3
    reader.receive_data(b" x\r\nContent-Length: 0\r\n\r\n")
    head = reader.next_event()
    assert isinstance(head, Head)
    assert head.get("Content-Length") == "0"


def test_a_start_line_dripped_a_byte_at_a_time_is_searched_once(parser: str) -> None:
    """Where the field lines begin (the obs-fold seam's start line's end) is searched from
    where the last search ended: a status line dripped one byte a read was searched from
    its first byte at each — quadratic, ~10 s of CPU for 100,000 bytes on llhttp (0.3 s
    before the seam); now ~0.5 s (bounded here in CPU time, with room for a loaded
    machine)."""
    reader = ReplyReader("GET", parser=parser)
    reader.receive_data(b"HTTP/1.1 200 ")
    started = time.process_time()
    for _ in range(100000):
        reader.receive_data(b"a")
        assert reader.next_event() is NEED_DATA
    assert time.process_time() - started < 4
    reader.receive_data(b"\r\nContent-Length: 0\r\n\r\n")
    head = reader.next_event()
    assert isinstance(head, Head)
    assert (head.status, len(head.reason)) == (200, 100000)
