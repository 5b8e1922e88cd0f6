"""``omniurl get/plan mailto:…``: the draft on stdout, --smtp sends, --allow-header, and the
body asked for on a terminal (under a pty)."""

from __future__ import annotations

import asyncio
import email
import email.policy
import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from helpers import omniurl_on_a_pty, read_until, run_omniurl

from omniurl import testservers


@pytest_asyncio.fixture
async def smtp(tmp_path: Path) -> AsyncIterator[testservers.RunningServer]:
    async with await testservers.start("smtp", tmp_path) as srv:
        yield srv


async def test_get_without_relay_prints_the_draft() -> None:
    status, out, err = await run_omniurl(
        "get", "--from", "me@example.org", "mailto:joe@example.org?subject=Hi&body=Hello"
    )
    assert status == 0, err
    msg = email.message_from_bytes(out, policy=email.policy.default)
    assert (msg["From"], msg["To"], msg["Subject"]) == ("me@example.org", "joe@example.org", "Hi")
    assert msg.get_content() == "Hello\r\n"  # the draft keeps the wire form (CRLF)


async def test_get_with_smtp_sends_and_reports(smtp) -> None:
    status, out, err = await run_omniurl(
        "get",
        "--smtp",
        smtp.netloc,
        "--email",
        "me@example.org",
        "mailto:joe@example.org?subject=CLI&body=sent%20by%20the%20CLI",
    )
    assert status == 0, err
    assert out == b""
    assert b"omniurl: sent <" in err and b"to joe@example.org via 127.0.0.1:" in err
    [captured] = smtp.info["messages"]
    assert captured["mail_from"] == "me@example.org"
    assert captured["data"].endswith(b"\r\n\r\nsent by the CLI\r\n")


async def test_smtp_refusal_exit_status(smtp) -> None:
    status, _out, err = await run_omniurl(
        "get", "--smtp", smtp.netloc, "mailto:x@refused.invalid?body=x"
    )
    assert status == 5
    assert b"550" in err


async def test_plan_refuses_bcc_unless_allowed() -> None:
    status, out, _err = await run_omniurl("plan", "mailto:a@example.org?bcc=spy@example.org")
    assert status == 2
    assert json.loads(out)["error"]["type"] == "HeaderRefused"
    status, out, _err = await run_omniurl(
        "plan",
        "--allow-header",
        "bcc",
        "--smtp",
        "mx.example:587",
        "mailto:a@example.org?bcc=spy@example.org",
    )
    assert status == 0
    steps = json.loads(out)["steps"]
    assert "RCPT TO:<spy@example.org>" in steps
    assert "spy" not in steps[-2]  # the message itself has no Bcc field


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")
async def test_body_is_asked_on_a_terminal(smtp) -> None:
    seen = bytearray()
    async with omniurl_on_a_pty(
        "get", "--smtp", smtp.netloc, "mailto:joe@example.org?subject=asked"
    ) as (proc, master):
        await read_until(master, b"Body of the message", seen, timeout=15)
        os.write(master, b"typed line one\n.typed dot\n.\n")
        status = await asyncio.wait_for(proc.wait(), 15)
    assert status == 0
    [captured] = smtp.info["messages"]
    assert captured["data"].endswith(b"\r\n\r\ntyped line one\r\n.typed dot\r\n")


async def test_demo_covers_mailto() -> None:
    import io

    from omniurl.demo import run_demo

    out = io.StringIO()
    assert await run_demo(only=["mailto"], out=out) == 0
    text = " ".join(out.getvalue().split())  # (the demo wraps at 80 columns)
    assert "the server captured" in text and "for joe@example.org, ann@example.org" in text
    assert "error (HeaderRefused)" in text and "error (DelimiterRefused)" in text
