"""omniurl.memory: glibc's thresholds raised for the ``omniurl`` process (a subprocess here:
the setting is process-wide)."""

from __future__ import annotations

import platform
import subprocess
import sys

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
