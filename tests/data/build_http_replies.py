"""Build tests/data/http_replies.json: the HTTP reply corpus of tests/test_http_corpus.py.

    python tests/data/build_http_replies.py LLHTTP_CHECKOUT > tests/data/http_replies.json

Three sources, each case a raw reply with where it comes from:

- llhttp's ``test/response/*.md`` (every ``response`` case, the lenient ones too: they are
  read here as the strict parser reads them), transcribed by the rules of llhttp's own
  ``test/md-test.ts`` (lines joined by CRLF, ``\\r`` ``\\n`` ``\\t`` ``\\f`` ``\\xNN``
  escapes, a backslash ending a line joins it to the next);
- the response cases of h11's tests (``h11/tests/test_io.py``, ``test_connection.py``),
  transcribed by hand below (H11);
- issue 30's checklist of framing tricks and cases of our own (OURS).

Each case's expected readings — llhttp's and h11's — are computed by the parsers themselves
(tests/http_reference.py), never written by hand; the test recomputes them and fails if
an installed parser reads a case differently from what is recorded.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from http_reference import h11_reading, llhttp_reading

LLHTTP_FILES = (
    "connection",
    "content-length",
    "finish",
    "invalid",
    "lenient-version",
    "pausing",
    "pipelining",
    "sample",
    "transfer-encoding",
)

H11_COMMIT = "62c5068c971579d61fa1b55373390e12f25fd856"
C = b"\r\n"
CHUNKED = b"5\r\nhello\r\n0\r\n\r\n"
OK = b"HTTP/1.1 200 OK\r\n"

# (name, raw, method) — h11/tests/test_io.py and test_connection.py, the response side
H11: list[tuple[str, bytes, str]] = [
    ("h11 io: HTTP/1.1 200 with Connection: close", OK + b"Connection: close\r\n\r\n", "GET"),
    ("h11 io: HTTP/1.1 200, no fields (until close)", OK + C, "GET"),
    (
        "h11 io: 101 with Upgrade, unasked",
        b"HTTP/1.1 101 Upgrade\r\nUpgrade: websocket\r\n\r\n",
        "GET",
    ),
    ("h11 io: 101 without Upgrade", b"HTTP/1.1 101 Upgrade\r\n\r\n", "GET"),
    ("h11 io: HTTP/1.0 200 with a field", b"HTTP/1.0 200 OK\r\nSome: header\r\n\r\nbody", "GET"),
    ("h11 io: inner spaces kept in a value", b"HTTP/1.0 200 OK\r\nFoo: a a a a a \r\n\r\n", "GET"),
    ("h11 io: an empty value", b"HTTP/1.0 200 OK\r\nFoo:\r\n\r\n", "GET"),
    ("h11 io: a value of whitespace", b"HTTP/1.0 200 OK\r\nFoo: \t \t \r\n\r\n", "GET"),
    ("h11 io: no reason phrase", b"HTTP/1.0 200\r\nFoo: bar\r\n\r\n", "GET"),
    ("h11 io: a bare LF ends the last field", OK + b"SomeHeader: val\n\r\n", "GET"),
    (
        "h11 io: every line ends in a bare LF",
        b"HTTP/1.1 200 OK\nSomeHeader1: val1\nSomeHeader2: val2\n\n",
        "GET",
    ),
    ("h11 io: mixed CRLF and LF", OK + b"SomeHeader1: val1\nSomeHeader2: val2\n\r\n", "GET"),
    ("h11 io: obs-fold", OK + b"Content-Length: 0\r\nfolded: a\r\n  line\r\n\r\n", "GET"),
    ("h11 io: space before the colon", OK + b"foo  : line\r\nContent-Length: 0\r\n\r\n", "GET"),
    ("h11 io: tab before the colon", OK + b"foo\t: line\r\nContent-Length: 0\r\n\r\n", "GET"),
    ("h11 io: an empty field name", OK + b": line\r\nContent-Length: 0\r\n\r\n", "GET"),
    ("h11 io: Content-Length 0", OK + b"Content-Length: 0\r\n\r\n", "GET"),
    ("h11 io: Content-Length 10", OK + b"Content-Length: 10\r\n\r\n0123456789", "GET"),
    ("h11 io: HTTP/1.0 body until close", b"HTTP/1.0 200 OK\r\n\r\nasdf", "GET"),
    ("h11 io: HTTP/1.0 empty body until close", b"HTTP/1.0 200 OK\r\n\r\n", "GET"),
    (
        "h11 io: chunked, only the last chunk",
        OK + b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        "GET",
    ),
    (
        "h11 io: chunked, a trailer",
        OK + b"Transfer-Encoding: chunked\r\n\r\n0\r\nSome: header\r\n\r\n",
        "GET",
    ),
    (
        "h11 io: chunked, two chunks and a trailer",
        OK
        + b"Transfer-Encoding: chunked\r\n\r\n5\r\n01234\r\n10\r\n0123456789abcdef\r\n"
        + b"0\r\nSome: header\r\n\r\n",
        "GET",
    ),
    (
        "h11 io: chunked, two chunks",
        OK + b"Transfer-Encoding: chunked\r\n\r\n5\r\n01234\r\n10\r\n0123456789abcdef\r\n0\r\n\r\n",
        "GET",
    ),
    (
        "h11 io: chunk size in mixed-case hex",
        OK + b"Transfer-Encoding: chunked\r\n\r\naA\r\n" + b"x" * 0xAA + b"\r\n0\r\n\r\n",
        "GET",
    ),
    (
        "h11 io: a 100-digit chunk size",
        OK + b"Transfer-Encoding: chunked\r\n\r\n" + b"9" * 100 + b"\r\nxxx",
        "GET",
    ),
    (
        "h11 io: a NUL in the chunk size",
        OK + b"Transfer-Encoding: chunked\r\n\r\n10\x00\r\nxxx",
        "GET",
    ),
    (
        "h11 io: chunk extensions",
        OK
        + b"Transfer-Encoding: chunked\r\n\r\n5; hello=there\r\nxxxxx\r\n"
        + b'0; random="junk"; some=more; canbe=lonnnnngg\r\n\r\n',
        "GET",
    ),
    (
        "h11 io: whitespace after the chunk size",
        OK + b"Transfer-Encoding: chunked\r\n\r\n5   \t \r\n01234\r\n0\r\n\r\n",
        "GET",
    ),
    (
        "h11 io: chunk data longer than its size",
        OK + b"Transfer-Encoding: chunked\r\n\r\n3\r\nxxx__1a\r\n",
        "GET",
    ),
    (
        "h11 io: CR then garbage after chunk data",
        OK + b"Transfer-Encoding: chunked\r\n\r\n3\r\nxxx\r_1a\r\n",
        "GET",
    ),
    (
        "h11 io: garbage then LF after chunk data",
        OK + b"Transfer-Encoding: chunked\r\n\r\n3\r\nxxx_\n1a\r\n",
        "GET",
    ),
    ("h11 io: garbage after the status line", b"HTTP/1.0 200 OK\x00xxxx\r\n\r\n", "GET"),
    (
        "h11 io: a NUL in a field value",
        OK + b"Host: foo\x00bar\r\nContent-Length: 0\r\n\r\n",
        "GET",
    ),
    (
        "h11 connection: 100 then 200",
        b"HTTP/1.1 100 \r\n\r\nHTTP/1.1 200 \r\nContent-Length: 11\r\n\r\nhello world",
        "GET",
    ),
    ("h11 connection: HTTP/1.0 200, empty, until close", b"HTTP/1.0 200 OK\r\n\r\n", "GET"),
    (
        "h11 connection: 200 with Connection: close",
        b"HTTP/1.1 200 \r\nConnection: close\r\n\r\n",
        "GET",
    ),
    (
        "h11 connection: a HEAD reply announcing a length",
        OK + b"Content-Length: 100\r\n\r\n",
        "HEAD",
    ),
    ("h11 connection: a HEAD reply, chunked", OK + b"Transfer-Encoding: chunked\r\n\r\n", "HEAD"),
    ("h11 connection: Content-Length cut short", OK + b"Content-Length: 10\r\n\r\n12345", "GET"),
    (
        "h11 connection: chunked cut short",
        OK + b"Transfer-Encoding: chunked\r\n\r\n5\r\nhel",
        "GET",
    ),
    (
        "h11 connection: 204 with Content-Length",
        b"HTTP/1.1 204 No Content\r\nContent-Length: 4\r\n\r\n",
        "GET",
    ),
    ("h11 connection: 304", b'HTTP/1.1 304 Not Modified\r\nETag: "x"\r\n\r\n', "GET"),
]

# issue 30's checklist (each accepted before, the connection kept), and cases of our own
OURS: list[tuple[str, bytes, str]] = [
    (
        "issue30: Transfer-Encoding chun\\u212aed (Kelvin sign)",
        OK + "Transfer-Encoding: chun\u212aed\r\n\r\n".encode() + CHUNKED,
        "GET",
    ),
    (
        "issue30: two Transfer-Encoding fields, chunked then gzip",
        OK + b"Transfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n\r\n" + CHUNKED,
        "GET",
    ),
    (
        "issue30: Transfer-Encoding chunked, gzip",
        OK + b"Transfer-Encoding: chunked, gzip\r\n\r\n" + CHUNKED,
        "GET",
    ),
    (
        "issue30: Transfer-Encoding gzip, chunked",
        OK + b"Transfer-Encoding: gzip, chunked\r\n\r\n" + CHUNKED,
        "GET",
    ),
    (
        "issue30: two fields, gzip then chunked",
        OK + b"Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n" + CHUNKED,
        "GET",
    ),
    (
        "issue30: Transfer-Encoding chunked, chunked",
        OK + b"Transfer-Encoding: chunked, chunked\r\n\r\n" + CHUNKED,
        "GET",
    ),
    ("issue30: Content-Length 5 VT", OK + b"Content-Length: 5\x0b\r\n\r\nhello", "GET"),
    ("issue30: Content-Length 5 US", OK + b"Content-Length: 5\x1f\r\n\r\nhello", "GET"),
    ("issue30: Content-Length NBSP 5", OK + b"Content-Length: \xa05\r\n\r\nhello", "GET"),
    (
        "ours: Content-Length in Arabic-Indic digits",
        OK + "Content-Length: \u0665\r\n\r\nhello".encode(),
        "GET",
    ),
    ("ours: Content-Length +5", OK + b"Content-Length: +5\r\n\r\nhello", "GET"),
    ("ours: Content-Length 0x5", OK + b"Content-Length: 0x5\r\n\r\nhello", "GET"),
    ("ours: Content-Length 5 5 (a space inside)", OK + b"Content-Length: 5 5\r\n\r\nhello", "GET"),
    ("ours: Content-Length with a trailing space", OK + b"Content-Length: 5 \r\n\r\nhello", "GET"),
    ("ours: Content-Length empty", OK + b"Content-Length:\r\n\r\nhello", "GET"),
    (
        "ours: Content-Length 20 digits",
        OK + b"Content-Length: 99999999999999999999\r\n\r\nhello",
        "GET",
    ),
    (
        "ours: two different Content-Length fields",
        OK + b"Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
        "GET",
    ),
    ("ours: Content-Length 5, 6", OK + b"Content-Length: 5, 6\r\n\r\nhello!", "GET"),
    (
        "issue30: bare LF after chunk data",
        OK + b"Transfer-Encoding: chunked\r\n\r\n5\r\nhello\n0\r\n\r\n",
        "GET",
    ),
    (
        "issue30: bare LF ends a chunk-size line",
        OK + b"Transfer-Encoding: chunked\r\n\r\n5\nhello\r\n0\r\n\r\n",
        "GET",
    ),
    (
        "issue30: bare LF ends the last-chunk line",
        OK + b"Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\n\r\n",
        "GET",
    ),
    (
        "ours: bare CR after chunk data",
        OK + b"Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r0\r\n\r\n",
        "GET",
    ),
    (
        "issue30: Content-Length with Transfer-Encoding",
        OK + b"Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n" + CHUNKED,
        "GET",
    ),
    (
        "ours: Transfer-Encoding with Content-Length (after)",
        OK + b"Transfer-Encoding: chunked\r\nContent-Length: 30\r\n\r\n" + CHUNKED,
        "GET",
    ),
    (
        "issue30: a trailer without a colon",
        OK + b"Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nno colon here\r\n\r\n",
        "GET",
    ),
    (
        "issue30: a NUL in a trailer",
        OK + b"Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nX-T: a\x00b\r\n\r\n",
        "GET",
    ),
    (
        "ours: a valid trailer",
        OK
        + b"Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n"
        + b"X-Checksum: 1\r\nX-Other: 2\r\n\r\n",
        "GET",
    ),
    ("issue30: HTTP/5.6", b"HTTP/5.6 200 OK\r\nContent-Length: 5\r\n\r\nhello", "GET"),
    (
        "ours: HTTP/2.0 on an HTTP/1.1 connection",
        b"HTTP/2.0 200 OK\r\nContent-Length: 5\r\n\r\nhello",
        "GET",
    ),
    ("ours: HTTP/1.2", b"HTTP/1.2 200 OK\r\nContent-Length: 5\r\n\r\nhello", "GET"),
    ("ours: HTTP/0.9 status line", b"HTTP/0.9 200 OK\r\nContent-Length: 5\r\n\r\nhello", "GET"),
    ("ours: lower-case http/1.1", b"http/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", "GET"),
    ("ours: HTTP/11 200", b"HTTP/11 200 OK\r\nContent-Length: 5\r\n\r\nhello", "GET"),
    ("issue30: status 099", b"HTTP/1.1 099 Early\r\nContent-Length: 5\r\n\r\nhello", "GET"),
    ("ours: status 000", b"HTTP/1.1 000 Zero\r\nContent-Length: 5\r\n\r\nhello", "GET"),
    ("ours: status 20", b"HTTP/1.1 20 OK\r\nContent-Length: 5\r\n\r\nhello", "GET"),
    ("ours: status 2000", b"HTTP/1.1 2000 OK\r\nContent-Length: 5\r\n\r\nhello", "GET"),
    ("ours: status 2x0", b"HTTP/1.1 2x0 OK\r\nContent-Length: 5\r\n\r\nhello", "GET"),
    (
        "issue30: a NUL in the reason phrase",
        b"HTTP/1.1 200 O\x00K\r\nContent-Length: 5\r\n\r\nhello",
        "GET",
    ),
    (
        "ours: a DEL in the reason phrase",
        b"HTTP/1.1 200 O\x7fK\r\nContent-Length: 5\r\n\r\nhello",
        "GET",
    ),
    (
        "ours: obs-text in the reason phrase",
        b"HTTP/1.1 200 \xc3\xa7a va\r\nContent-Length: 5\r\n\r\nhello",
        "GET",
    ),
    (
        "ours: a tab in the reason phrase",
        b"HTTP/1.1 200 O\tK\r\nContent-Length: 5\r\n\r\nhello",
        "GET",
    ),
    (
        "issue30: an unrequested 101 and its upgraded bytes",
        b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"\r\n\x81\x05hello",
        "GET",
    ),
    (
        "issue30: a head over 100 KiB, complete",
        OK + b"X-Big: " + b"a" * (100 * 1024) + b"\r\nContent-Length: 5\r\n\r\nhello",
        "GET",
    ),
    (
        "ours: a head just under 100 KiB",
        OK + b"X-Big: " + b"a" * (100 * 1024 - 100) + b"\r\nContent-Length: 5\r\n\r\nhello",
        "GET",
    ),
    (
        "ours: bytes after a Content-Length body",
        OK + b"Content-Length: 5\r\n\r\nhelloHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nEVIL!",
        "GET",
    ),
    (
        "ours: bytes after a chunked body",
        OK
        + b"Transfer-Encoding: chunked\r\n\r\n"
        + CHUNKED
        + b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nEVIL!",
        "GET",
    ),
    (
        "ours: CRLF after a chunked body",
        OK + b"Transfer-Encoding: chunked\r\n\r\n" + CHUNKED + b"\r\n",
        "GET",
    ),
    (
        "ours: a second reply smuggled in a body too short for its length",
        OK + b"Content-Length: 2\r\n\r\nhiHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nEVIL!",
        "GET",
    ),
    (
        "ours: a 204 with a body",
        b"HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nEVIL!",
        "GET",
    ),
    (
        "ours: a 304 with Content-Length and bytes",
        b"HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\nEVIL!",
        "GET",
    ),
    (
        "ours: Transfer-Encoding identity",
        OK + b"Transfer-Encoding: identity\r\n\r\nuntil the close",
        "GET",
    ),
    (
        "ours: Transfer-Encoding gzip only (until close)",
        OK + b"Transfer-Encoding: gzip\r\n\r\nuntil the close",
        "GET",
    ),
    (
        "ours: Transfer-Encoding CHUNKED in capitals",
        OK + b"Transfer-Encoding: CHUNKED\r\n\r\n" + CHUNKED,
        "GET",
    ),
    (
        "ours: Transfer-Encoding chunked with OWS",
        OK + b"Transfer-Encoding:  chunked \r\n\r\n" + CHUNKED,
        "GET",
    ),
    (
        "ours: Transfer-Encoding xchunked",
        OK + b"Transfer-Encoding: xchunked\r\n\r\n" + CHUNKED,
        "GET",
    ),
    (
        "ours: Transfer-Encoding chunked;q=1",
        OK + b"Transfer-Encoding: chunked;q=1\r\n\r\n" + CHUNKED,
        "GET",
    ),
    (
        "ours: Transfer-Encoding empty",
        OK + b"Transfer-Encoding:\r\nContent-Length: 5\r\n\r\nhello",
        "GET",
    ),
    (
        "ours: Transfer-Encoding with a vertical tab",
        OK + b"Transfer-Encoding: \x0bchunked\r\n\r\n" + CHUNKED,
        "GET",
    ),
    (
        "ours: a space before the colon of Transfer-Encoding",
        OK + b"Transfer-Encoding : chunked\r\n\r\n" + CHUNKED,
        "GET",
    ),
    (
        "ours: a chunk size of 17 hex digits",
        OK + b"Transfer-Encoding: chunked\r\n\r\n" + b"1" + b"0" * 16 + b"\r\nx",
        "GET",
    ),
    (
        "ours: a negative chunk size",
        OK + b"Transfer-Encoding: chunked\r\n\r\n-5\r\nhello\r\n0\r\n\r\n",
        "GET",
    ),
    (
        "ours: a 0x chunk size",
        OK + b"Transfer-Encoding: chunked\r\n\r\n0x5\r\nhello\r\n0\r\n\r\n",
        "GET",
    ),
    (
        "ours: a chunk size with a leading space",
        OK + b"Transfer-Encoding: chunked\r\n\r\n 5\r\nhello\r\n0\r\n\r\n",
        "GET",
    ),
    (
        "ours: a missing last chunk, then the close",
        OK + b"Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n",
        "GET",
    ),
    (
        "ours: no empty line after the last chunk",
        OK + b"Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n",
        "GET",
    ),
    (
        "ours: 100 Continue, then 200",
        b"HTTP/1.1 100 Continue\r\n\r\n" + OK + b"Content-Length: 5\r\n\r\nhello",
        "GET",
    ),
    (
        "ours: 103 Early Hints, then 200",
        b"HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n"
        + OK
        + b"Content-Length: 5\r\n\r\nhello",
        "GET",
    ),
    (
        "ours: two 1xx, then 200 chunked",
        b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 102 Processing\r\n\r\n"
        + OK
        + b"Transfer-Encoding: chunked\r\n\r\n"
        + CHUNKED,
        "GET",
    ),
    ("ours: only 100 Continue, then the close", b"HTTP/1.1 100 Continue\r\n\r\n", "GET"),
    ("ours: HEAD, a reply with Content-Length", OK + b"Content-Length: 5\r\n\r\n", "HEAD"),
    ("ours: HEAD, then smuggled bytes", OK + b"Content-Length: 5\r\n\r\nhello", "HEAD"),
    (
        "ours: a 404 with a body",
        b"HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\nnot found",
        "GET",
    ),
    (
        "ours: a 500 chunked",
        b"HTTP/1.1 500 Oops\r\nTransfer-Encoding: chunked\r\n\r\n" + CHUNKED,
        "GET",
    ),
    ("ours: a 599", b"HTTP/1.1 599 Edge\r\nContent-Length: 5\r\n\r\nhello", "GET"),
    ("ours: a 600", b"HTTP/1.1 600 Beyond\r\nContent-Length: 5\r\n\r\nhello", "GET"),
    (
        "ours: a field name with a space",
        OK + b"Bad Name: x\r\nContent-Length: 5\r\n\r\nhello",
        "GET",
    ),
    (
        "ours: a field name with a non-token byte",
        OK + b"Bad\x01Name: x\r\nContent-Length: 5\r\n\r\nhello",
        "GET",
    ),
    (
        "ours: a field with obs-text in the value",
        OK + b"X-Latin: caf\xe9\r\nContent-Length: 5\r\n\r\nhello",
        "GET",
    ),
    ("ours: a CR alone inside a value", OK + b"X-A: a\rb\r\nContent-Length: 5\r\n\r\nhello", "GET"),
    (
        "ours: a line without a colon in the head",
        OK + b"no colon\r\nContent-Length: 5\r\n\r\nhello",
        "GET",
    ),
    (
        "ours: a leading space on the first field",
        OK + b" X-A: 1\r\nContent-Length: 5\r\n\r\nhello",
        "GET",
    ),
    (
        "ours: Connection: close and Content-Length",
        OK + b"Connection: close\r\nContent-Length: 5\r\n\r\nhello",
        "GET",
    ),
    (
        "ours: HTTP/1.0 keep-alive and Content-Length",
        b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 5\r\n\r\nhello",
        "GET",
    ),
    (
        "ours: HTTP/1.0 chunked",
        b"HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + CHUNKED,
        "GET",
    ),
    (
        "ours: a large chunked body",
        OK
        + b"Transfer-Encoding: chunked\r\n\r\n"
        + b"".join(b"400\r\n" + bytes([65 + i % 26]) * 1024 + b"\r\n" for i in range(64))
        + b"0\r\n\r\n",
        "GET",
    ),
    (
        "ours: a 1 MiB Content-Length body",
        OK + b"Content-Length: 1048576\r\n\r\n" + b"z" * 1048576,
        "GET",
    ),
    ("ours: nothing at all", b"", "GET"),
    ("ours: the close inside the status line", b"HTTP/1.1 20", "GET"),
    ("ours: the close inside the head", OK + b"Content-Len", "GET"),
    ("ours: not HTTP at all", b"SSH-2.0-OpenSSH_9.2\r\n", "GET"),
    ("ours: an HTTP/0.9-style bare body", b"<html>hello</html>", "GET"),
    ("ours: a request line in place of a status line", b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", "GET"),
    (
        "ours: a leading CRLF before the status line",
        b"\r\n" + OK + b"Content-Length: 5\r\n\r\nhello",
        "GET",
    ),
    (
        "ours: two spaces after the version",
        b"HTTP/1.1  200 OK\r\nContent-Length: 5\r\n\r\nhello",
        "GET",
    ),
    ("ours: a tab after the version", b"HTTP/1.1\t200 OK\r\nContent-Length: 5\r\n\r\nhello", "GET"),
    (
        "ours: a status line ending in a bare CR",
        b"HTTP/1.1 200 OK\rContent-Length: 5\r\n\r\nhello",
        "GET",
    ),
]


def _compact(raw: bytes) -> str | list[object]:
    """The raw bytes as Latin-1 text, runs of 64+ equal bytes written as
    ``{"repeat": byte, "times": n}`` between text parts (a readable file)."""
    if not re.search(rb"(.)\1{63}", raw, re.S):
        return raw.decode("latin-1")
    parts: list[object] = []
    at = 0
    for m in re.finditer(rb"(.)\1{63,}", raw, re.S):
        if m.start() > at:
            parts.append(raw[at : m.start()].decode("latin-1"))
        parts.append({"repeat": m[1].decode("latin-1"), "times": len(m[0])})
        at = m.end()
    if at < len(raw):
        parts.append(raw[at:].decode("latin-1"))
    return parts


def _transcribe(block: str) -> bytes:
    """An ```http block as llhttp's test/md-test.ts turns it into bytes."""
    text = re.sub(r"\n$", "", block)
    text = re.sub(r"\\(\r\n|\r|\n)", "", text)
    text = re.sub(r"\r\n|\r|\n", "\r\n", text)
    text = text.replace("\\r", "\r").replace("\\n", "\n").replace("\\t", "\t").replace("\\f", "\f")
    text = re.sub(r"\\x([0-9a-fA-F]+)", lambda m: chr(int(m[1], 16)), text)
    text = re.sub(r"\\([0-7]{1,3})", lambda m: chr(int(m[1], 8)), text)
    return text.encode("latin-1")


def llhttp_cases(checkout: Path) -> tuple[str, list[tuple[str, bytes, str]]]:
    commit = subprocess.run(
        ["git", "-C", str(checkout), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    cases = []
    for name in LLHTTP_FILES:
        raw = subprocess.run(
            ["git", "-C", str(checkout), "show", f"HEAD:test/response/{name}.md"],
            capture_output=True,
            text=True,
        ).stdout
        title = ""
        meta: dict[str, object] = {}
        for m in re.finditer(
            r"^(#{2,4}) (?P<title>[^\n]+)$"
            r"|<!-- meta=(?P<meta>\{[^\n]*?\}) -->"
            r"|```http\n(?P<http>.*?)```",
            raw,
            re.M | re.S,
        ):
            if m["title"]:
                title = m["title"].strip()
            elif m["meta"]:
                meta = json.loads(m["meta"])
            elif m["http"] is not None and str(meta.get("type", "")).startswith("response"):
                cases.append((f"llhttp {name}.md: {title}", _transcribe(m["http"]), "GET"))
                meta = {}
    return commit, cases


def main() -> None:
    commit, llhttp = llhttp_cases(Path(sys.argv[1]))
    sources = {
        "llhttp": f"github.com/nodejs/llhttp test/response/*.md @ {commit}",
        "h11": (
            f"github.com/python-hyper/h11 h11/tests/test_io.py, test_connection.py @ {H11_COMMIT}"
        ),
        "ours": "issue 30's checklist of framing tricks, and omniurl's own cases",
    }
    cases = []
    seen: set[tuple[bytes, str]] = set()
    for source, group in (("llhttp", llhttp), ("h11", H11), ("ours", OURS)):
        for name, raw, method in group:
            if (raw, method) in seen:
                continue
            seen.add((raw, method))
            case: dict[str, object] = {"name": name, "source": source, "method": method}
            case["raw"] = _compact(raw)
            case["llhttp"] = llhttp_reading(raw, method).to_json()
            case["h11"] = h11_reading(raw, method).to_json()
            cases.append(case)
    json.dump(
        {
            "about": (
                "HTTP/1.1 replies served raw to omniurl (tests/test_http_corpus.py). 'raw' is "
                "the reply's bytes as Latin-1 text; 'llhttp' and 'h11' are how each parser "
                "reads it (tests/http_reference.py), recomputed by the test. Built by "
                "tests/data/build_http_replies.py."
            ),
            "sources": sources,
            "cases": cases,
        },
        sys.stdout,
        indent=1,
        ensure_ascii=True,
    )
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
