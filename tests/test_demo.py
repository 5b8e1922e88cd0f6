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


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


async def test_demo_fits_80_columns_and_colours_only_a_terminal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 11: the demo fits 80 columns (long errors and plans wrap under their indent)
    and uses colour on a terminal only (never in a pipe, never with NO_COLOR)."""
    from omniurl.demo import run_demo

    monkeypatch.delenv("NO_COLOR", raising=False)
    plain = io.StringIO()
    assert await run_demo(only=["file"], out=plain) == 0
    lines = plain.getvalue().splitlines()
    assert max(len(line) for line in lines if not line.startswith("file:")) <= 80
    assert all(line == line.rstrip() for line in lines)
    assert "\x1b[" not in plain.getvalue()
    assert "  error (PlanError): file://elsewhere.example/ names a file on the machine" in lines
    tty = _Terminal()
    assert await run_demo(only=["file"], out=tty) == 0
    assert "\x1b[1;35m=== file ===\x1b[0m" in tty.getvalue()
    monkeypatch.setenv("NO_COLOR", "1")
    quiet = _Terminal()
    assert await run_demo(only=["file"], out=quiet) == 0
    assert "\x1b[" not in quiet.getvalue()
