"""``omniurl browse`` on gemini: through the spec's hooks only (rendered_text for gemtext,
search_url for a 1x input) — gemtext's links are followable absolute URLs, and a server
asking for input gets the words typed at the prompt."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

pytest.importorskip("textual", reason="the [browse] extra (Textual) is not installed")

from test_browse import SIZE, browser, rows, settle

from omniurl import testservers
from omniurl.browse.app import Prompt


@pytest_asyncio.fixture
async def gemini(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[testservers.RunningServer]:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    root = tmp_path / "root"
    root.mkdir()
    (root / "index.gmi").write_text("# Capsule\n=> /input Say hello\n=> docs/ Docs\n")
    server = await testservers.start("gemini", root)
    try:
        yield server
    finally:
        await server.close()


async def test_gemtext_links_are_followable_and_input_is_asked(
    gemini: testservers.RunningServer, tmp_path: Path
) -> None:
    base = f"gemini://127.0.0.1:{gemini.port}"
    app = browser(f"{base}/", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        assert [link.url for link in app.view.page.links] == [f"{base}/input", f"{base}/docs/"]
        assert rows(app)[:3] == ["Capsule", "=======", f"[1] Say hello  <URL:{base}/input>"]
        await pilot.press("enter")  # the first link: the server asks for input
        for _ in range(100):  # (bounded: 5 s)
            if isinstance(app.screen, Prompt):
                break
            await pilot.pause(0.05)
        assert isinstance(app.screen, Prompt)
        assert "What is your name?" in app.screen.question
        await pilot.press(*"Ada", "enter")
        await settle(pilot, app)
        assert app.view.page.url == f"{base}/input?Ada"
        assert "Hello, Ada!" in rows(app)
    # First contact was said (issue 31 item 17), once: the later fetches were trusted.
    known = tmp_path / "xdg" / "omniurl" / "gemini_known_hosts"
    assert len(app.notices) == 1 and app.notices[0].startswith(
        f"pinned 127.0.0.1:{gemini.port} sha256:"
    )
    assert app.notices[0].endswith(f" in {known}")
