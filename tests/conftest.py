"""Shared fixtures: a sample tree and loopback-only servers the tests start themselves."""

from __future__ import annotations

import ssl
from pathlib import Path

import pytest
from hypothesis import settings

# Hypothesis's default 200 ms deadline per example is a timing check on a shared 2-core
# machine, not a check of behaviour: test_gopher_plan's selector test missed it once at
# load 8 and passed on its rerun with the same seed.  Every example still runs; each test's
# own wall-clock bounds stay where a test states one.
settings.register_profile("omniurl", deadline=None)
settings.load_profile("omniurl")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """The demo's sample tree in a fresh temporary folder."""
    from omniurl.demo import build_tree

    build_tree(tmp_path)
    return tmp_path


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> tuple[ssl.SSLContext, str]:
    """A throw-away CA's server context for 127.0.0.1 and the CA's certificate path, one per
    test module (helpers.throwaway_pki; skips without trustme, the test extra)."""
    from helpers import throwaway_pki

    return throwaway_pki(tmp_path_factory.mktemp("pki"), "127.0.0.1")
