"""What tests/test_batch_lean.py and tests/test_batch_lean_qa.py share: how the batch's lean
HTTP engine (resolvers/http/batch_engine.py) took each URL, and a batch's rows and files as
the general path's are compared with them; and the raw scripted HTTP server (answers by
target, each connection's request heads recorded) that tests/test_batch_lean_qa.py and
tests/test_qa_peers.py both use."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from helpers import loopback_server

from omniurl.batch import FetchResult

#: What the engine did with each URL since the test began: "whole" (its row made by the
#: engine), "handed" (the exchange continued by the general path), "afresh" (nothing sent yet).
TAKEN: list[str] = []


def count_the_engines_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Record each :meth:`Engine.fetch`'s outcome in :data:`TAKEN` (emptied first)."""
    from omniurl.resolvers.http import batch_engine

    fetch = batch_engine.Engine.fetch

    async def counted(self: batch_engine.Engine, *args: object) -> object:
        result, prepared = await fetch(self, *args)  # type: ignore[arg-type]
        TAKEN.append("whole" if result is not None else "handed" if prepared else "afresh")
        return result, prepared

    monkeypatch.setattr(batch_engine.Engine, "fetch", counted)
    TAKEN.clear()


def rows(results: list[FetchResult], out: Path) -> list[tuple[object, ...]]:
    """Each result as the batch writes it (the manifest row without its timing, the status,
    URL and heads -w reads), with the folder's path taken out."""
    shown = []
    for r in results:
        row = r.to_json()
        row.pop("elapsed")
        if row["path"] is not None:
            row["path"] = os.path.relpath(str(row["path"]), out)
        shown.append((json.dumps(row, sort_keys=True), r.status, r.effective_url, r.heads))
    return shown


def files(out: Path) -> dict[str, bytes]:
    """Every file of the folder (hidden ones too: nothing partial may be left)."""
    return {p.name: p.read_bytes() for p in sorted(out.iterdir())}


def manifest_rows(manifest: Path, out: Path) -> list[dict[str, object]]:
    """The rows of a batch's ``--manifest`` file in URL order, without their timing and with
    the folder's path taken out (the two runs' rows then compare as equal)."""
    shown = sorted(
        (json.loads(line) for line in manifest.read_text().splitlines()),
        key=lambda row: row["index"],
    )
    for row in shown:
        row.pop("elapsed")
        row["path"] = row["path"] and os.path.relpath(row["path"], out)
    return shown


def proof_of(proof: Path, on: bool) -> list[str]:
    """Check the lines a command's batches left in ``proof`` (``OMNIURL_BATCH_PROOF``,
    omniurl/batch.py): an engine was asked about URLs (``on``: ``OMNIURL_BATCH_LEAN=1`` and
    options the engine allows), or none was (``OMNIURL_BATCH_LEAN=0``, or options that
    turn it off) — a run that silently took the other path fails here, where its rows
    alone could not tell (both paths give the same rows)."""
    assert proof.exists(), "no batch wrote its proof (OMNIURL_BATCH_PROOF not honoured)"
    lines = proof.read_text().splitlines()
    counts = [
        dict(zip(line.split()[::2], map(int, line.split()[1::2]), strict=True)) for line in lines
    ]
    assert counts and sum(c["urls"] for c in counts) > 0, lines
    asked = sum(c["asked"] for c in counts)
    assert (asked > 0) if on else (asked == 0), (on, lines)
    return lines


#: How long a server waits for a connection's next request: a bound on a broken test only.
#: A server closes a connection when its script says (after a reply, or at the client's
#: close), never on an idle timer: a timer made whether a kept connection was still open
#: when the client reused it depend on the machine's load, so the two runs of a comparison
#: could meet different servers (a request the stale rule sends again on one run and not
#: on the other, RFC 9112 §9.3.1).  A passing test never reaches it: each server counts
#: the times it was reached (:attr:`RawServer.timed_out`), and :func:`raw_servers` and the
#: corpus's test check that count is 0.
BOUND = 60.0

Answer = Callable[[bytes], "tuple[bytes | None, bool]"]


@dataclass
class RawServer:
    """Answers each request by its target with raw bytes (``answer``: what to send and
    whether to close the connection after it); records each connection's requests."""

    answer: Answer
    connections: list[list[bytes]] = field(default_factory=list)
    bound: float = BOUND
    #: The connections closed because no request came for ``bound`` seconds.
    timed_out: int = 0

    @property
    def requests(self) -> list[bytes]:
        return [r for conn in self.connections for r in conn]

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        mine: list[bytes] = []
        self.connections.append(mine)
        try:
            while True:
                try:
                    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), self.bound)
                except TimeoutError:
                    self.timed_out += 1
                    return
                except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
                    return
                mine.append(head)
                data, close = self.answer(head.split(b" ", 2)[1])
                if data:
                    writer.write(data)
                    await writer.drain()
                if close or data is None:
                    return
        except ConnectionError:
            return
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()


@contextlib.asynccontextmanager
async def raw_servers(answer: Answer, count: int = 1) -> AsyncIterator[list[tuple[RawServer, str]]]:
    async with contextlib.AsyncExitStack() as stack:
        out = []
        for _ in range(count):
            server = RawServer(answer)
            port = await stack.enter_async_context(loopback_server(server.handle))
            out.append((server, f"http://127.0.0.1:{port}"))
        yield out
        assert [s.timed_out for s, _ in out] == [0] * len(out)
