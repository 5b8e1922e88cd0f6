"""Shared fixtures: a sample tree and loopback-only servers the tests start themselves."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """The demo's sample tree in a fresh temporary folder."""
    from omniurl.demo import build_tree

    build_tree(tmp_path)
    return tmp_path
