"""mailto through a real MTA: Debian's OpenSMTPD on loopback, delivering every message to a
folder through an MDA (as ``nobody``) and refusing recipients at ``refused.invalid``."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import tempfile
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import pytest_asyncio
from helpers import free_port

from omniurl.resolvers import Options, check, resolve
from omniurl.resolvers.errors import ReplyError
from omniurl.resolvers.mailto.settings import MailtoOptions

pytestmark = pytest.mark.interop

SMTPD = "/usr/sbin/smtpd"
DATE = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)

CONFIG = """\
table vusers {{ "@" = "nobody" }}
listen on 127.0.0.1 port {port}
action "capture" mda "/bin/sh -c 'cat > {out}/msg.$$'" virtual <vusers>
match from any for rcpt-to regex "refused\\.invalid$" reject
match from any for any action "capture"
"""


async def _wait_listening(port: int, proc: asyncio.subprocess.Process, log: Path) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 10
    while True:
        if proc.returncode is not None:
            pytest.fail(f"OpenSMTPD exited: {log.read_text(errors='replace')}")
        try:
            _reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 1)
        except (OSError, TimeoutError):
            if loop.time() > deadline:
                pytest.fail(f"OpenSMTPD never listened: {log.read_text(errors='replace')}")
            await asyncio.sleep(0.1)
            continue
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
        return


@pytest_asyncio.fixture(scope="module")
async def opensmtpd() -> AsyncIterator[tuple[int, Path]]:
    """One OpenSMTPD for the module: it has one control socket and one spool per host."""
    if not os.path.exists(SMTPD):
        pytest.skip("opensmtpd not installed")
    if os.geteuid() != 0:
        pytest.skip("OpenSMTPD needs root for its privilege separation")
    # Outside pytest's 0700 tmp tree: the MDA runs as nobody and must reach the folder.
    base = Path(tempfile.mkdtemp(prefix="omniurl-opensmtpd-"))
    base.chmod(0o755)
    out = base / "out"
    out.mkdir()
    out.chmod(0o777)
    port = free_port()
    config = base / "smtpd.conf"
    config.write_text(CONFIG.format(port=port, out=out))
    with (base / "smtpd.log").open("wb") as log:
        proc = await asyncio.create_subprocess_exec(
            SMTPD,
            "-d",
            "-f",
            str(config),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
        )
    try:
        await _wait_listening(port, proc, base / "smtpd.log")
        yield port, out
    finally:
        # smtpd forks its privilege-separated processes into the session we started.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            await asyncio.wait_for(proc.wait(), 5)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            await proc.wait()
        shutil.rmtree(base, ignore_errors=True)


def _clear(out: Path) -> None:
    for p in out.iterdir():
        p.unlink()


async def test_message_delivered_by_opensmtpd_is_the_planned_one(opensmtpd) -> None:
    port, out = opensmtpd
    _clear(out)
    options = Options(
        email="me@example.org",
        read_timeout=10,
        schemes=(MailtoOptions(smtp=f"127.0.0.1:{port}", date=DATE),),
    )
    url = "mailto:joe@example.org?subject=Interop&body=Hello%0D%0A.leading%20dot%0D%0Aend"
    planned = next(s for s in check(url, options).steps if s.kind == "message").data
    async with await resolve(url, options) as r:
        assert r.replies[-2].startswith("250 2.0.0") and "accepted" in r.replies[-2]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 10
    while not list(out.iterdir()):
        log = (out.parent / "smtpd.log").read_text(errors="replace")
        assert loop.time() < deadline, f"OpenSMTPD delivered nothing: {log}"
        await asyncio.sleep(0.1)
    await asyncio.sleep(0.2)  # let the MDA finish writing
    [delivered] = [p.read_bytes() for p in out.iterdir()]
    # The MTA adds its trace fields on top; below them, our message unchanged (the MDA
    # gets local line ends), dot-stuffing undone.
    assert delivered.startswith(b"Return-Path: <me@example.org>\nDelivered-To: joe@example.org\n")
    assert delivered.endswith(planned.replace(b"\r\n", b"\n"))


async def test_opensmtpd_refusal_is_a_reply_error(opensmtpd) -> None:
    port, out = opensmtpd
    _clear(out)
    options = Options(
        email="me@example.org", read_timeout=10, schemes=(MailtoOptions(smtp=f"127.0.0.1:{port}"),)
    )
    with pytest.raises(ReplyError) as info:
        await resolve("mailto:joe@example.org?cc=x@refused.invalid", options)
    assert (info.value.code, info.value.component) == (550, "headers[0]")
    await asyncio.sleep(0.3)
    assert list(out.iterdir()) == []
