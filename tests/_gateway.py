"""The gateway as a real server for tests (not a test module): ``omniurl serve gateway`` in a
subprocess on a free loopback port, and lynx/curl run against it as proxy clients.

Shared by tests/test_gateway.py (omniurl's own servers) and the interop modules (gophernicus,
INN, vsftpd behind the gateway).  Every wait is bounded; a missing extra or client skips.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import sys
from collections.abc import AsyncIterator, Mapping
from pathlib import Path

import pytest
from helpers import free_port, run

ROOT = Path(__file__).resolve().parent.parent


def need_gateway_extra() -> None:
    """Skip unless the [gateway] extra (Starlette, uvicorn, Jinja2) is installed."""
    for name in ("starlette", "uvicorn", "jinja2"):
        pytest.importorskip(name, reason="the [gateway] extra is not installed")


@contextlib.asynccontextmanager
async def running_gateway(*ports: int) -> AsyncIterator[str]:
    """``omniurl serve gateway`` opened to 127.0.0.1 on ``ports``; yields ``127.0.0.1:PORT``."""
    need_gateway_extra()
    port = free_port()
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "omniurl", "serve", "gateway", "--port", str(port),
        "--allow-host", "127.0.0.1", *(a for p in ports for a in ("--allow-port", str(p))),
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    try:
        for _ in range(150):  # 15 s at most; uvicorn is up in about 0.5 s here
            try:
                _r, w = await asyncio.open_connection("127.0.0.1", port)
                w.close()
                break
            except OSError:
                await asyncio.sleep(0.1)
        else:
            raise TimeoutError(f"the gateway did not listen on port {port} within 15 s")
        yield f"127.0.0.1:{port}"
    finally:
        proc.terminate()
        await asyncio.wait_for(proc.wait(), 10)


async def lynx_dump(url: str, proxies: Mapping[str, str]) -> str:
    """``lynx -dump URL`` with the given ``*_proxy`` variables (e.g. gopher_proxy)."""
    if shutil.which("lynx") is None:
        pytest.skip("lynx is not installed (Debian package lynx; .ci/run installs it)")
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env.update(proxies, HOME="/nonexistent", TERM="dumb")
    _status, out, _err = await run(["lynx", "-dump", url], env=env, timeout=30)
    return out.decode("utf-8", "replace")


async def curl(*args: str) -> tuple[int, bytes]:
    """``curl -s --max-time 20 ARGS`` → (exit status, body)."""
    if shutil.which("curl") is None:
        pytest.skip("curl is not installed")
    status, out, _err = await run(["curl", "-s", "--max-time", "20", *args], timeout=30)
    return status, out
