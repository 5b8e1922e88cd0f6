"""``omniurl demo``: its --only filter."""

from __future__ import annotations

import io

import pytest


async def test_only_with_a_scheme_that_has_no_demo_says_so_and_fails() -> None:
    from omniurl.demo import run_demo

    out = io.StringIO()
    assert await run_demo(only=["gopher", "nosuch"], out=out) == 2
    text = out.getvalue()
    assert text.startswith("omniurl demo: no demo for nosuch (there are: ")
    assert "gopher" in text.splitlines()[0]
    assert "=== gopher ===" not in text  # nothing was started


def test_demo_help_says_what_the_demo_does(capsys: pytest.CaptureFixture[str]) -> None:
    from omniurl.cli.main import main

    with pytest.raises(SystemExit) as exit_info:
        main(["demo", "--help"])
    out = capsys.readouterr().out
    assert exit_info.value.code == 0
    assert "A tour of omniurl that needs no network" in out
    assert "omniurl demo --only ftp --only gopher" in out
    assert max(len(line) for line in out.splitlines()) <= 80
