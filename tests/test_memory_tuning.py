"""omniurl.memory: glibc's thresholds raised for the ``omniurl`` process (a subprocess here:
the setting is process-wide)."""

from __future__ import annotations

import platform
import subprocess
import sys
from collections.abc import AsyncIterator

import pytest

GLIBC = sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"


def _tune(chunk_size: int) -> str:
    code = f"from omniurl.memory import tune_for_transfers; print(tune_for_transfers({chunk_size}))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    return out.stdout.strip()


@pytest.mark.skipif(not GLIBC, reason="mallopt thresholds are glibc's")
def test_glibc_accepts_the_thresholds() -> None:
    assert _tune(256 * 1024) == "True"


@pytest.mark.skipif(not GLIBC, reason="mallopt thresholds are glibc's")
def test_huge_chunk_size_is_capped_at_glibcs_maximum() -> None:
    # Uncapped, 2 GiB is past glibc's 32 MiB maximum: mallopt() refuses it (returns 0).
    assert _tune(1 << 30) == "True"


async def test_one_url_tunes_only_once_its_transfer_passes_bulk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``omniurl get`` of one URL raises the thresholds once BULK bytes have passed (a small
    file never imports ctypes); a library caller's chunks pass untouched."""
    from omniurl import memory

    calls: list[int] = []
    monkeypatch.setattr(memory, "tune_for_transfers", lambda size: bool(calls.append(size)))
    monkeypatch.setattr(memory, "_pending", None)

    async def chunks(n: int, size: int) -> AsyncIterator[bytes]:
        for _ in range(n):
            yield b"x" * size

    source = chunks(1, 10)
    assert memory.bulk(source) is source  # nothing pending: the source itself
    memory.tune_when_bulk(256 * 1024)
    seen = [len(c) async for c in memory.bulk(chunks(3, memory.BULK // 4))]
    assert seen == [memory.BULK // 4] * 3 and calls == []  # 3/4 of BULK: not yet
    got = b"".join([c async for c in memory.bulk(chunks(8, memory.BULK // 4))])
    assert len(got) == 2 * memory.BULK and calls == [256 * 1024]  # once, at BULK
    assert memory.bulk(source) is source  # done: nothing pending any more
