"""urllib's ``urlopen`` and pandas' ``read_csv`` of gopher URLs after ``install()``."""

from __future__ import annotations

import asyncio
import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from omniurl import testservers
from omniurl.integrations import urllib as ou
from omniurl.resolvers.errors import PortRefused

CSV = b"x,y\r\n1,2\r\n3,4\r\n"


@pytest.fixture(scope="module")
def gopher(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("gopher")
    (root / "pub").mkdir()
    (root / "pub" / "a.csv").write_text("x,y\n1,2\n3,4\n")
    (root / "pub" / "big.bin").write_bytes(bytes(range(256)) * 4096)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    server: Any = asyncio.run_coroutine_threadsafe(testservers.start("gopher", root), loop).result(
        10
    )
    yield f"gopher://127.0.0.1:{server.port}"
    asyncio.run_coroutine_threadsafe(server.close(), loop).result(10)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(10)
    loop.close()


@pytest.fixture
def installed() -> Iterator[urllib.request.OpenerDirector]:
    opener = ou.install()
    yield opener
    urllib.request.install_opener(None)  # type: ignore[arg-type]


def test_without_install_urllib_does_not_know_gopher(gopher: str) -> None:
    with pytest.raises(urllib.error.URLError, match="unknown url type: gopher"):
        urllib.request.build_opener().open(f"{gopher}/0/pub/a.csv")


def test_urlopen_reads_gopher(gopher: str, installed: Any) -> None:
    with urllib.request.urlopen(f"{gopher}/0/pub/a.csv") as response:
        assert response.read() == CSV
        assert response.geturl() == f"{gopher}/0/pub/a.csv"


def test_urlopen_streams(gopher: str, installed: Any) -> None:
    with urllib.request.urlopen(f"{gopher}/9/pub/big.bin") as response:
        assert response.read(3) == b"\x00\x01\x02"
        assert response.read(256)[-1] == 2  # bytes 3..258: the last is 258 % 256


def test_urlopen_listing_is_json_lines(gopher: str, installed: Any) -> None:
    with urllib.request.urlopen(f"{gopher}/1/pub") as response:
        assert response.headers["Content-Type"] == "application/x-ndjson"
        rows = [json.loads(line) for line in response.read().splitlines()]
    assert {r["url"] for r in rows} == {f"{gopher}/0/pub/a.csv", f"{gopher}/9/pub/big.bin"}


def test_refusal_is_a_urlerror_carrying_the_typed_error(installed: Any) -> None:
    with pytest.raises(urllib.error.URLError) as caught:
        urllib.request.urlopen("gopher://127.0.0.1:25/0/x")
    assert isinstance(caught.value.reason, PortRefused)


def test_only_schemes_urllib_lacks() -> None:
    assert not {"ftp", "http", "https", "file"} & set(ou.SCHEMES)
    handler = ou.OmniurlHandler()
    assert all(hasattr(handler, f"{s}_open") for s in ou.SCHEMES)
    assert not hasattr(handler, "ftp_open")


def test_pandas_read_csv(gopher: str, installed: Any) -> None:
    pd = pytest.importorskip("pandas", reason="the [pandas] extra is not installed")
    frame = pd.read_csv(f"{gopher}/0/pub/a.csv")
    assert frame.to_dict("list") == {"x": [1, 3], "y": [2, 4]}


def test_options_reach_the_handler(installed: Any) -> None:
    from omniurl.integrations.options import options_from

    opener = ou.install(options_from({"allow_port": 25, "connect_timeout": 1}))
    handler = next(h for h in opener.handlers if isinstance(h, ou.OmniurlHandler))
    assert 25 in handler.options.policy.allow_ports
    assert handler.options.connect_timeout == 1.0


def test_urlopen_timeout_argument_is_honoured(installed: Any) -> None:
    """``urlopen(url, timeout=t)`` bounds the connect and every read, as urllib's own
    handlers do; before, the handler ignored it and a silent server held the caller 30 s."""
    import socket
    import time

    from omniurl.resolvers.errors import ResolveTimeout

    with socket.create_server(("127.0.0.1", 0)) as listener:  # accepts (backlog), never answers
        port = listener.getsockname()[1]
        started = time.monotonic()
        with pytest.raises(urllib.error.URLError) as caught:
            urllib.request.urlopen(f"gopher://127.0.0.1:{port}/0/x", timeout=0.5)
        elapsed = time.monotonic() - started
    assert isinstance(caught.value.reason, ResolveTimeout)
    assert "0.5 s" in str(caught.value.reason)
    assert elapsed < 5


def test_urlopen_without_timeout_keeps_the_handlers_options() -> None:
    from omniurl.integrations.options import options_from

    options = options_from({"read_timeout": 7, "connect_timeout": 3})
    assert ou._with_timeout(options, socket_default()) is options
    changed = ou._with_timeout(options, 2)
    assert (changed.connect_timeout, changed.read_timeout) == (2.0, 2.0)


def socket_default() -> object:
    import socket

    return socket._GLOBAL_DEFAULT_TIMEOUT  # type: ignore[attr-defined]


_INTERRUPTED_READ = r"""
import asyncio, os, signal, socket, threading, time, urllib.request
from omniurl.integrations import urllib as ou, _loop

listener = socket.create_server(("127.0.0.1", 0))

def serve():  # 1000 bytes of a binary, then silence
    while True:
        conn, _ = listener.accept()
        conn.recv(1000)
        conn.sendall(b"s" * 1000)

threading.Thread(target=serve, daemon=True).start()
ou.install()
threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
response = urllib.request.urlopen("gopher://127.0.0.1:%d/9/slow" % listener.getsockname()[1])
try:
    response.read()
except KeyboardInterrupt:
    print("interrupted")
print("running", len(asyncio.all_tasks(_loop.loop())))
try:
    response.read()
except urllib.error.URLError as exc:
    print("again", exc.reason)
response.close()
print("closed")
"""


def test_ctrl_c_in_a_read_cancels_the_transfer() -> None:
    """Ctrl-C in ``urlopen(…).read()`` cancels the transfer on the shared loop before the
    KeyboardInterrupt goes on; a later read is an error (never an end that looks complete)
    and ``close()`` is clean.  Before, the read went on in the background and ``close()``
    raised a bare ``RuntimeError`` ("aclose(): asynchronous generator is already running")."""
    from helpers import run_script

    proc = run_script(_INTERRUPTED_READ)
    assert proc.stdout.splitlines() == [
        "interrupted",
        "running 0",
        "again the transfer was interrupted: KeyboardInterrupt()",
        "closed",
    ]
    assert "Traceback" not in proc.stderr
