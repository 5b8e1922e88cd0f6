"""The screenshots of ``omniurl browse`` in docs/browse.md (SVG, Textual's own
``save_screenshot``): run ``python docs/browse_screenshots.py`` from the repository's root
with the ``[browse]`` extra installed.  The pages are the snapshot tests'
(tests/test_browse_snapshots.py): fixed entries, nothing fetched."""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from test_browse_snapshots import MENU  # noqa: E402

from omniurl.browse.app import Browser  # noqa: E402
from omniurl.browse.model import listing_page  # noqa: E402


async def main() -> None:
    with tempfile.TemporaryDirectory() as data:
        for name, keys in (("browse-menu", ("j",)), ("browse-plan", ("j", "p"))):
            app = Browser(None, folder=Path(data))
            async with app.run_test(size=(80, 24)) as pilot:
                await pilot.pause()
                app.show_page(listing_page("gopher://gopher.example.org/1/", MENU), push=True)
                await pilot.pause()
                await pilot.press(*keys)
                await pilot.pause()
                app.save_screenshot(f"{name}.svg", path=str(ROOT / "docs" / "img"))


if __name__ == "__main__":
    asyncio.run(main())
