"""Helpers shared by the FTP, HTTP, file, policy and CLI tests (not a test module)."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from resolvers import Options

#: Options every resolver test uses: short timeouts, a fixed e-mail, nothing from the caller's
#: environment (no proxies, no ~/.netrc, no terminal).
OPTS = Options(email="tester@example.org", connect_timeout=5, read_timeout=5)

ROOT = Path(__file__).resolve().parent.parent


def transcript() -> tuple[list[str], Options]:
    """Options whose transcript is collected in the returned list."""
    lines: list[str] = []
    return lines, OPTS.with_(transcript=lambda d, t: lines.append(f"{d} {t}"))


async def run_cli(
    *args: str, timeout: float = 60, cwd: Path | None = None
) -> tuple[int, bytes, bytes]:
    """Run ``python -m omniurl ARGS`` (bounded); the test's servers keep serving meanwhile."""
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in [str(ROOT), env.get("PYTHONPATH", "")] if p)
    env["EMAIL"] = "tester@example.org"
    env["HOME"] = str(cwd or ROOT)  # no ~/.netrc of the person running the tests
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "omniurl", *args,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, env=env, cwd=str(cwd or ROOT),
    )  # fmt: skip
    try:
        out, err = await asyncio.wait_for(proc.communicate(), timeout)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise
    assert proc.returncode is not None
    return proc.returncode, out, err
