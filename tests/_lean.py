"""What tests/test_batch_lean.py and tests/test_batch_lean_qa.py share: how the batch's lean
HTTP engine (resolvers/http/batch_engine.py) took each URL, and a batch's rows and files as
the general path's are compared with them."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

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
