"""The gateway in a real browser: headless Chromium from Debian's packages, driven by
Selenium through Debian's chromedriver (nothing is downloaded: both paths are given).

Open the gateway, type a Gopher URL, follow a menu item to a text, submit a search form,
open a news article and follow its reference, walk into an FTP directory — screenshots
saved as artefacts (``$OMNIURL_ARTEFACTS`` or the test's temporary folder).  Skipped where
no browser is installed; ``.ci/run`` installs chromium and chromium-driver.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the [gateway] extra is not installed")
webdriver = pytest.importorskip(
    "selenium.webdriver", reason="selenium (gateway-test extra) is not installed"
)

from selenium.webdriver.common.by import By  # noqa: E402

from omniurl import testservers  # noqa: E402

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(
    not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()),
    reason="no browser: Debian packages chromium and chromium-driver (.ci/run installs them)",
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    root = tmp_path_factory.mktemp("site")
    (root / "pub" / "sub").mkdir(parents=True)
    (root / "pub" / "hello.txt").write_text("Hello, browser.\n")
    (root / "pub" / "sub" / "deep.txt").write_text("deep\n")
    (root / "words.txt").write_text("gopher gateway words\n")
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()

    def start(name: str) -> Any:
        return asyncio.run_coroutine_threadsafe(testservers.start(name, root), loop).result(20)

    gopher, nntp, ftp = start("gopher"), start("nntp"), start("ftp")
    port = _free_port()
    ports = [str(p) for p in (gopher.port, nntp.port, ftp.port)]
    argv = [
        sys.executable,
        "-m",
        "omniurl",
        "serve",
        "gateway",
        "--port",
        str(port),
        "--allow-host",
        "127.0.0.1",
    ]
    for p in ports:
        argv += ["--allow-port", p]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            break
        except OSError:
            time.sleep(0.1)
    try:
        yield {
            "gateway": f"http://127.0.0.1:{port}",
            "gopher": gopher.port,
            "nntp": nntp.port,
            "ftp": ftp.port,
        }
    finally:
        proc.terminate()
        proc.wait(10)
        for server in (gopher, nntp, ftp):
            asyncio.run_coroutine_threadsafe(server.close(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = CHROMIUM
    profile = tmp_path_factory.mktemp("chromium-profile")
    for flag in (
        "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-dev-shm-usage", f"--user-data-dir={profile}", "--window-size=1024,900",
    ):  # fmt: skip
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


def artefacts(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("OMNIURL_ARTEFACTS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def test_gopher_menu_to_text_and_a_search(
    servers: dict[str, Any], browser: Any, tmp_path: Path
) -> None:
    gateway, port = servers["gateway"], servers["gopher"]
    browser.get(gateway + "/")
    box = browser.find_element(By.NAME, "url")
    box.send_keys(f"gopher://127.0.0.1:{port}/1/pub")
    box.submit()
    assert "hello.txt" in browser.page_source
    browser.save_screenshot(str(artefacts(tmp_path) / "gateway-menu.png"))
    browser.find_element(By.LINK_TEXT, "hello.txt").click()
    assert browser.find_element(By.TAG_NAME, "pre").text == "Hello, browser."
    browser.save_screenshot(str(artefacts(tmp_path) / "gateway-text.png"))
    # the server's root menu holds its word-index search item: a form in the page
    browser.get(f"{gateway}/gopher://127.0.0.1:{port}/1/")
    forms = browser.find_elements(By.CSS_SELECTOR, "form.search")
    assert forms, browser.page_source
    field = forms[0].find_element(By.NAME, "q")
    field.send_keys("gateway")
    field.submit()
    assert "words.txt" in browser.page_source
    browser.save_screenshot(str(artefacts(tmp_path) / "gateway-search.png"))


def test_a_news_article_and_its_reference(
    servers: dict[str, Any], browser: Any, tmp_path: Path
) -> None:
    gateway, port = servers["gateway"], servers["nntp"]
    browser.get(f"{gateway}/news://127.0.0.1:{port}/omniurl.test")
    links = browser.find_elements(By.CSS_SELECTOR, "ul.listing a")
    assert links, browser.page_source
    links[-1].click()
    assert browser.find_elements(By.CSS_SELECTOR, "table.headers")
    assert "Subject" in browser.page_source
    browser.save_screenshot(str(artefacts(tmp_path) / "gateway-article.png"))


def test_an_ftp_directory_paged_through(
    servers: dict[str, Any], browser: Any, tmp_path: Path
) -> None:
    gateway, port = servers["gateway"], servers["ftp"]
    browser.get(f"{gateway}/ftp://127.0.0.1:{port}/pub/")
    assert "hello.txt" in browser.page_source
    browser.find_element(By.LINK_TEXT, "hello.txt").click()
    assert "Hello, browser." in browser.page_source
    browser.save_screenshot(str(artefacts(tmp_path) / "gateway-ftp.png"))
