"""mailto through the local aiosmtpd server: the exact captured message and envelope, AUTH,
STARTTLS, SMTP refusals as typed errors, drafts, and zero bytes for refused URLs."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from omniurl import testservers
from omniurl.resolvers import Options, check, resolve
from omniurl.resolvers.errors import (
    AuthError,
    ConnectError,
    DelimiterRefused,
    HeaderRefused,
    MailAddressRefused,
    ReplyError,
    ResolveTimeout,
)
from omniurl.resolvers.mailto.settings import Draft, MailtoOptions, Sent
from omniurl.testservers.recording import recording_of, start_recording

DATE = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def relay_options(server: testservers.RunningServer, **mine: Any) -> Options:
    return Options(
        email="me@example.org",
        read_timeout=5,
        connect_timeout=5,
        schemes=(MailtoOptions(date=DATE, smtp=server.netloc, **mine),),
    )


@pytest_asyncio.fixture
async def smtp(tmp_path: Path) -> AsyncIterator[testservers.RunningServer]:
    async with await testservers.start("smtp", tmp_path) as srv:
        yield srv


async def test_sent_message_is_exactly_the_planned_one(smtp) -> None:
    url = (
        "mailto:joe@example.org?cc=ann@example.org&subject=Hello&body=Hi%20Joe%2C%0D%0A"
        ".dot%20line%0D%0A..two%20dots"
    )
    options = relay_options(smtp)
    planned = next(s for s in check(url, options).steps if s.kind == "message").data
    async with await resolve(url, options) as resource:
        sent = resource.result_as(Sent)
        assert sent is not None
        assert (sent.sender, sent.recipients) == (
            "me@example.org",
            ("joe@example.org", "ann@example.org"),
        )
        assert resource.metadata["envelope"] == {
            "mail_from": "me@example.org",
            "rcpt_to": ["joe@example.org", "ann@example.org"],
        }
        assert resource.replies[0].startswith("220 omniurl.test")
        assert resource.replies[-2] == "250 2.0.0 OK: queued as 0001"
        assert resource.replies[-1].startswith("221")
    [captured] = smtp.info["messages"]
    assert captured["mail_from"] == "me@example.org"
    assert captured["rcpt_to"] == ["joe@example.org", "ann@example.org"]
    # Byte for byte, after the server undid the dot-stuffing (RFC 5321 §4.5.2).
    assert captured["data"] == planned
    assert planned.endswith(b"\r\n\r\nHi Joe,\r\n.dot line\r\n..two dots\r\n")
    folder: Path = smtp.info["folder"]
    assert (folder / "0001.eml").read_bytes() == planned
    assert json.loads((folder / "0001.json").read_text()) == {
        "mail_from": "me@example.org",
        "rcpt_to": ["joe@example.org", "ann@example.org"],
    }


async def test_auth_with_credentials_from_netrc(smtp) -> None:
    options = relay_options(smtp, smtp_user="demo").with_(
        credentials={"127.0.0.1": ("demo", "demo")}
    )
    async with await resolve("mailto:joe@example.org?body=x", options) as r:
        assert any(reply.startswith("235") for reply in r.replies)
    assert len(smtp.info["messages"]) == 1


async def test_auth_password_is_asked_and_a_wrong_one_is_an_auth_error(smtp) -> None:
    asked: list[tuple[str, bool]] = []

    async def ask(prompt: str, secret: bool = False) -> str:
        asked.append((prompt, secret))
        return "wrong"

    options = relay_options(smtp, smtp_user="demo").with_(ask=ask)
    with pytest.raises(AuthError) as info:
        await resolve("mailto:joe@example.org?body=x", options)
    assert asked == [(f"SMTP password for demo@{smtp.host}: ", True)]
    assert "535" in str(info.value)
    assert smtp.info["messages"] == []


async def test_auth_without_a_password_source_is_an_auth_error(smtp) -> None:
    with pytest.raises(AuthError):
        await resolve("mailto:joe@example.org", relay_options(smtp, smtp_user="demo"))
    assert smtp.info["messages"] == []


async def test_starttls(tmp_path: Path) -> None:
    async with await testservers.start("smtp", tmp_path, starttls=True) as srv:
        options = relay_options(srv, starttls=True).with_(verify_tls=False)
        async with await resolve("mailto:joe@example.org?subject=tls", options) as r:
            assert any(reply.startswith("220") and "TLS" in reply for reply in r.replies[1:])
        assert srv.info["messages"][0]["rcpt_to"] == ["joe@example.org"]
        # With verification on, the self-signed certificate is refused, nothing is sent.
        with pytest.raises(ConnectError) as info:
            await resolve("mailto:joe@example.org", relay_options(srv, starttls=True))
        assert "TLS" in str(info.value)
        assert len(srv.info["messages"]) == 1


async def test_implicit_tls(tmp_path: Path) -> None:
    async with await testservers.start("smtp", tmp_path, tls=True) as srv:
        options = relay_options(srv, tls=True).with_(verify_tls=False)
        async with await resolve("mailto:joe@example.org?subject=smtps", options) as r:
            assert r.replies[0].startswith("220 omniurl.test")
        assert srv.info["messages"][0]["data"].startswith(b"From: me@example.org\r\n")
        with pytest.raises(ConnectError) as info:
            await resolve("mailto:joe@example.org", relay_options(srv, tls=True))
        assert "certificate" in str(info.value).lower()
        assert len(srv.info["messages"]) == 1


async def test_refused_recipient_is_a_reply_error_naming_the_component(smtp) -> None:
    with pytest.raises(ReplyError) as info:
        await resolve("mailto:joe@example.org?cc=nobody@refused.invalid", relay_options(smtp))
    assert info.value.code == 550
    assert info.value.component == "headers[0]"
    assert smtp.info["messages"] == []


async def test_draft_without_relay(tmp_path: Path) -> None:
    options = Options(email="me@example.org", schemes=(MailtoOptions(date=DATE),))
    url = "mailto:joe@example.org?subject=Draft"
    async with await resolve(url, options) as r:
        assert (r.kind, r.media_type) == ("content", "message/rfc822")
        assert r.result_as(Draft) is not None and r.result_as(Sent) is None
        data = await r.read()
    assert data == next(s for s in check(url, options).steps if s.kind == "message").data
    assert r.size == len(data)


async def test_connection_refused_is_a_connect_error(tmp_path: Path) -> None:
    srv = await testservers.start("smtp", tmp_path)
    await srv.close()
    with pytest.raises(ConnectError):
        await resolve("mailto:joe@example.org", relay_options(srv))


async def test_silent_relay_times_out() -> None:
    async with await start_recording() as rec:
        options = relay_options(rec).with_(read_timeout=0.3, connect_timeout=0.3)
        with pytest.raises(ResolveTimeout):
            await resolve("mailto:joe@example.org", options)


@pytest.mark.parametrize(
    ("url", "error"),
    [
        ("mailto:joe@example.org?subject=x%0D%0ABcc:%20spy@example.org", DelimiterRefused),
        ("mailto:joe@example.org?bcc=spy@example.org", HeaderRefused),
        ("mailto:joe@example.org?From=ceo@example.org", HeaderRefused),
        ("mailto:Joe%20%3Cjoe@example.org%3E", MailAddressRefused),
        ("mailto:joe@example.org%0D%0ADATA", DelimiterRefused),
    ],
)
async def test_refused_urls_send_zero_bytes(url: str, error: type[Exception]) -> None:
    async with await start_recording(greeting=b"220 recorder\r\n") as rec:
        with pytest.raises(error):
            await resolve(url, relay_options(rec))
        await asyncio.sleep(0.05)
        assert recording_of(rec).connections == 0
        assert recording_of(rec).received == b""


def _smtp_responder(line: bytes) -> bytes:
    """A relay that accepts everything (for checking the exact command lines sent)."""
    verb = line.split(b" ", 1)[0].upper()
    if verb == b"EHLO":
        return b"250 relay\r\n"
    if verb == b"DATA":
        return b"354 go on\r\n"
    if verb == b"QUIT":
        return b"221 bye\r\n"
    if verb in (b"MAIL", b"RCPT") or line == b".":
        return b"250 ok\r\n"
    return b""


@pytest.mark.parametrize(
    ("url", "sender"),
    [
        # RFC 5322 quoted-pairs: aiosmtplib's parseaddr() turned "a\b" into "ab" (another
        # mailbox than the plan shows) ...
        ("mailto:%22a%5Cb%22@example.org", "me@example.org"),
        # ... and refused this sender with a raw ValueError.
        ("mailto:joe@example.org", '"\\R6\\V"@["Q]'),
    ],
)
async def test_mail_and_rcpt_lines_are_exactly_the_planned_ones(url: str, sender: str) -> None:
    async with await start_recording(greeting=b"220 r\r\n", respond=_smtp_responder) as rec:
        options = relay_options(rec).with_(email=sender)
        planned = [s.data for s in check(url, options).steps if s.role in ("mail", "rcpt")]
        async with await resolve(url, options) as r:
            assert r.result_as(Sent) is not None
        lines = recording_of(rec).received.split(b"\r\n")
    assert [ln for ln in lines if ln.startswith((b"MAIL ", b"RCPT "))] == planned
    assert planned[0] == f"MAIL FROM:<{sender}>".encode()


@pytest.mark.parametrize("helo", ["my host", "host\r\nRSET", "höst"])
async def test_a_helo_name_that_cannot_go_on_the_ehlo_line_is_a_plan_error(helo: str) -> None:
    from omniurl.resolvers.errors import PlanError

    async with await start_recording(greeting=b"220 r\r\n", respond=_smtp_responder) as rec:
        options = relay_options(rec, helo=helo)
        with pytest.raises(PlanError) as info:
            await resolve("mailto:joe@example.org", options)
        assert info.value.component == "helo"
        assert recording_of(rec).connections == 0


@pytest.mark.parametrize(
    ("greeting", "error"),
    [
        (b"2" * 100_000, "LimitExceeded"),  # a reply line longer than aiosmtplib's bound
        (b"hello there\r\n", "ProtocolError"),  # no reply code at all
    ],
)
async def test_a_relay_that_breaks_the_reply_syntax_is_a_protocol_error(
    greeting: bytes, error: str
) -> None:
    from omniurl.resolvers.errors import ProtocolError

    async with await start_recording(greeting=greeting) as rec:
        with pytest.raises(ProtocolError) as info:
            await resolve("mailto:joe@example.org", relay_options(rec))
    assert type(info.value).__name__ == error  # not a ReplyError "refused: -1 ..." (exit 5)


async def test_a_refused_login_is_one_auth_attempt_as_planned() -> None:
    """The plan shows one AUTH step: a refused login must not be retried with the next
    mechanism (aiosmtplib's login() tries them all, sending the password again each time)."""

    def relay(line: bytes) -> bytes:
        if line.upper().startswith(b"EHLO"):
            return b"250-relay\r\n250 AUTH CRAM-MD5 PLAIN LOGIN\r\n"
        if line.upper().startswith(b"AUTH"):
            return b"535 5.7.8 no\r\n"
        return b""

    async with await start_recording(greeting=b"220 r\r\n", respond=relay) as rec:
        options = relay_options(rec, smtp_user="demo").with_(
            credentials={"127.0.0.1": ("demo", "wrong")}
        )
        with pytest.raises(AuthError):
            await resolve("mailto:joe@example.org", options)
        auths = [ln for ln in recording_of(rec).lines() if ln.upper().startswith(b"AUTH")]
    assert auths == [b"AUTH CRAM-MD5"]  # the preferred mechanism, once


async def test_a_sent_message_is_a_typed_result(smtp: testservers.RunningServer) -> None:
    """What the relay took is ``Resource.result_as(Sent)`` (the JSON keeps its metadata)."""
    from omniurl.resolvers.mailto.settings import Sent

    async with await resolve("mailto:joe@example.org?body=hi", relay_options(smtp)) as res:
        sent = res.result_as(Sent)
    assert sent is not None
    assert (sent.recipients, sent.relay) == (("joe@example.org",), smtp.netloc)
    assert sent.last_reply.startswith("250")
    assert res.metadata["message_id"] == sent.message_id
    async with await resolve("mailto:joe@example.org?body=hi", Options()) as draft:
        assert draft.result_as(Sent) is None
