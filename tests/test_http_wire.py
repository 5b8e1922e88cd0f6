"""The plan is the wire for HTTP: what a server receives is the planned head, byte for byte.

A recording server (the origin, or the proxy) keeps every byte of the connection; each case
compares them with the head written out here by hand (RFC 9112 §2.1: request line, field
lines, each ended by CRLF, then an empty line) and with the plan's own steps.  Nothing is
added, re-ordered, re-cased or normalised between the plan and the socket.
"""

from __future__ import annotations

import base64
from collections.abc import Callable

import pytest
from _ftphttp import OPTS

from omniurl import resolvers
from omniurl.resolvers.options import Options
from omniurl.testservers.recording import recording_of, start_recording

OK = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
COMMON = b"User-Agent: omniurl/0.1\r\nAccept: */*\r\n"


def _basic(login: bytes) -> bytes:
    return b"Basic " + base64.b64encode(login)


Case = tuple[str, Callable[[int], Options], Callable[[int], bytes]]

CASES: dict[str, Case] = {
    "plain GET": (
        "http://127.0.0.1:{port}/pub/hello.txt",
        lambda port: OPTS,
        lambda port: (
            b"GET /pub/hello.txt HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % port
            + COMMON
            + b"Accept-Encoding: identity\r\n\r\n"
        ),
    ),
    "query and dot segments": (
        "http://127.0.0.1:{port}/a/./b/../c?q=x%26y&z=%20#frag",
        lambda port: OPTS,
        lambda port: (
            b"GET /a/./b/../c?q=x%26y&z=%20 HTTP/1.1\r\n"
            + b"Host: 127.0.0.1:%d\r\n" % port
            + COMMON
            + b"Accept-Encoding: identity\r\n\r\n"
        ),
    ),
    "Range and If-Range (resume)": (
        "http://127.0.0.1:{port}/big.bin",
        lambda port: OPTS.with_(resume_from=1000, resume_validator='"v1"'),
        lambda port: (
            b"GET /big.bin HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % port
            + COMMON
            + b'Accept-Encoding: identity\r\nRange: bytes=1000-\r\nIf-Range: "v1"\r\n\r\n'
        ),
    ),
    "Basic auth": (
        "http://ann:s%3Acret@127.0.0.1:{port}/private",
        lambda port: OPTS,
        lambda port: (
            b"GET /private HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % port
            + COMMON
            + b"Accept-Encoding: identity\r\nAuthorization: "
            + _basic(b"ann:s:cret")
            + b"\r\n\r\n"
        ),
    ),
    "--compressed and -H": (
        "http://127.0.0.1:{port}/page",
        lambda port: OPTS.with_(compressed=True, headers=(("X-Trace", "a  b"),)),
        lambda port: (
            b"GET /page HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % port
            + COMMON
            + b"Accept-Encoding: gzip, deflate\r\nX-Trace: a  b\r\n\r\n"
        ),
    ),
    "through an HTTP proxy (absolute form)": (
        "http://origin.test:8080/a/./b?q#f",
        lambda port: OPTS.with_(proxy=f"http://pat:pw@127.0.0.1:{port}"),
        lambda port: (
            b"GET http://origin.test:8080/a/./b?q HTTP/1.1\r\nHost: origin.test:8080\r\n"
            + COMMON
            + b"Accept-Encoding: identity\r\nProxy-Authorization: "
            + _basic(b"pat:pw")
            + b"\r\n\r\n"
        ),
    ),
}


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
async def test_the_bytes_sent_are_the_planned_bytes(case: str) -> None:
    url, options_for, expected_for = CASES[case]
    server = await start_recording(respond=lambda line: OK if line == b"" else b"")
    try:
        options = options_for(server.port)
        url = url.format(port=server.port)
        async with resolvers.resolve(url, options) as resource:
            await resource.read()
        sent = bytes(recording_of(server).received)
        expected = expected_for(server.port)
        assert sent == expected
        plan = resolvers.plan(url, options)
        # (the unconditional steps: a conditional one is due only after a reply asks for it)
        steps = [step for step in plan.steps if step.when is None]
        assert sent == b"".join(step.data + b"\r\n" for step in steps) + b"\r\n"
    finally:
        await server.close()


async def test_a_digest_answer_is_the_planned_head_and_one_field_more() -> None:
    """RFC 7616: the request again, as planned, with the conditional Authorization step's
    field after the planned ones — on the same kept-alive connection."""
    challenge = (
        b"HTTP/1.1 401 Unauthorized\r\nContent-Length: 4\r\n"
        b'WWW-Authenticate: Digest realm="r", nonce="n1", qop="auth"\r\n\r\nnope'
    )
    answers = [challenge, OK]
    server = await start_recording(
        respond=lambda line: answers.pop(0) if line == b"" and answers else b""
    )
    try:
        url = f"http://ann:pw@127.0.0.1:{server.port}/d?x=1"
        options = OPTS.with_(http_auth="digest")
        async with resolvers.resolve(url, options) as resource:
            assert await resource.read() == b"ok"
        recording = recording_of(server)
        assert recording.connections == 1
        first, second = bytes(recording.received).split(b"\r\n\r\n")[:2]
        planned = b"GET /d?x=1 HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % server.port
        planned += COMMON + b"Accept-Encoding: identity"
        assert first == planned
        assert second.startswith(planned + b'\r\nAuthorization: Digest username="ann", ')
        assert b'uri="/d?x=1"' in second and b"\r\n" not in second[len(planned) + 2 :]
    finally:
        await server.close()
