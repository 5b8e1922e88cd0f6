"""``omniurl demo``: its --only filter."""

from __future__ import annotations

import io


async def test_only_with_a_scheme_that_has_no_demo_says_so_and_fails() -> None:
    from omniurl.demo import run_demo

    out = io.StringIO()
    assert await run_demo(only=["gopher", "nosuch"], out=out) == 2
    text = out.getvalue()
    assert text.startswith("omniurl demo: no demo for nosuch (there are: ")
    assert "gopher" in text.splitlines()[0]
    assert "=== gopher ===" not in text  # nothing was started
