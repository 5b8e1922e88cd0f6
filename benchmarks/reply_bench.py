"""Reply parsing per second: omniurl's seam (on llhttp, on h11) beside raw httptools and h11.

    python benchmarks/reply_bench.py                 # 100,000 small replies, 3 rounds
    python benchmarks/reply_bench.py --replies 20000 --json

Each round parses the same small replies, one reader per reply (as the executor makes one
per exchange): a 200 with ``Content-Length`` and six fields, a chunked 200 with two chunks,
and a 304 — in turn.  Measured, in one process, interleaved round by round:

- ``omniurl[llhttp]``, ``omniurl[h11]``: :class:`resolvers.http.reply.ReplyReader` from
  bytes to its :class:`End` (the head checked, the framing decided, the body's events);
- ``httptools``: ``HttpResponseParser`` with the callbacks omniurl's seam uses, nothing
  else (the floor of any llhttp-based reader in Python);
- ``h11``: a client ``Connection`` (a request sent, then ``next_event`` to the end).

Figures are replies per second of CPU time (``time.process_time``: robust on a busy
machine), the best of ``--rounds``.  Issue 30 measured the hand-written reader this seam
replaced at 1/22-1/43 of raw httptools and 1.6-4x faster than h11.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

REPLIES = [
    b"HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\nDate: Sat, 28 Nov 2026 13:00:00 GMT\r\n"
    b"Content-Type: text/plain\r\nContent-Length: 12\r\nLast-Modified: Sat, 28 Nov 2026 "
    b'12:00:00 GMT\r\nConnection: keep-alive\r\nETag: "6565f0a0-c"\r\n\r\nhello world\n',
    b"HTTP/1.1 200 OK\r\nServer: x\r\nContent-Type: application/json\r\n"
    b'Transfer-Encoding: chunked\r\n\r\n5\r\n{"a":\r\n3\r\n 1}\r\n0\r\n\r\n',
    b'HTTP/1.1 304 Not Modified\r\nServer: nginx\r\nETag: "6565f0a0-c"\r\n\r\n',
]


def omniurl_seam(parser: str) -> Callable[[bytes], int]:
    from omniurl.resolvers.http.reply import NEED_DATA, Data, End, ReplyReader

    def run(raw: bytes) -> int:
        reader = ReplyReader("GET", parser=parser)
        reader.receive_data(raw)
        size = 0
        while True:
            event = reader.next_event()
            if isinstance(event, Data):
                size += len(event.data)
            elif isinstance(event, End) or event is NEED_DATA:
                return size

    return run


def raw_httptools() -> Callable[[bytes], int]:
    import httptools

    class Protocol:
        def __init__(self) -> None:
            self.fields: list[tuple[bytes, bytes]] = []
            self.body: list[bytes] = []

        def on_status(self, data: bytes) -> None:
            pass

        def on_header(self, name: bytes, value: bytes) -> None:
            self.fields.append((name, value))

        def on_body(self, data: bytes) -> None:
            self.body.append(data)

    def run(raw: bytes) -> int:
        protocol = Protocol()
        httptools.HttpResponseParser(protocol).feed_data(raw)
        return sum(map(len, protocol.body))

    return run


def raw_h11() -> Callable[[bytes], int]:
    import h11

    def run(raw: bytes) -> int:
        conn = h11.Connection(h11.CLIENT)
        conn.send(h11.Request(method="GET", target="/", headers=[("Host", "x")]))
        conn.send(h11.EndOfMessage())
        conn.receive_data(raw)
        size = 0
        while True:
            event = conn.next_event()
            if isinstance(event, h11.Data):
                size += len(event.data)
            elif isinstance(event, h11.EndOfMessage) or event is h11.NEED_DATA:
                return size

    return run


def measure(run: Callable[[bytes], int], replies: int) -> float:
    """Replies per CPU second."""
    batch = [REPLIES[i % len(REPLIES)] for i in range(replies)]
    start = time.process_time()
    for raw in batch:
        run(raw)
    return replies / (time.process_time() - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--replies", type=int, default=100_000, help="per round (100,000)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds; the best counts (3)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args(argv)
    readers = {
        "omniurl[llhttp]": omniurl_seam("llhttp"),
        "omniurl[h11]": omniurl_seam("h11"),
        "httptools": raw_httptools(),
        "h11": raw_h11(),
    }
    for run in readers.values():  # the same bytes, the same body (and a warm-up)
        assert [run(raw) for raw in REPLIES] == [12, 8, 0]
    best = dict.fromkeys(readers, 0.0)
    for _ in range(args.rounds):
        for name, run in readers.items():
            best[name] = max(best[name], measure(run, args.replies))
    if args.json:
        print(json.dumps({k: round(v) for k, v in best.items()}))
        return 0
    floor = best["httptools"]
    print(f"{'reader':<18}{'replies/CPU s':>15}{'vs httptools':>14}")
    for name, rate in best.items():
        print(f"{name:<18}{rate:>15,.0f}{rate / floor:>13.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
