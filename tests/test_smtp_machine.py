"""The SMTP conversation as a pure machine (resolvers/mailto/machine.py): bytes in, events out,
no socket — the exact lines sent, AUTH's three mechanisms, every refusal typed."""

from __future__ import annotations

import base64
import hmac
from datetime import UTC, datetime

import pytest

from omniurl import resolvers
from omniurl.resolvers.errors import (
    AuthError,
    ConnectionClosed,
    LimitExceeded,
    ProtocolError,
    ReplyError,
)
from omniurl.resolvers.mailto.machine import (
    NEED_DATA,
    Done,
    PasswordWanted,
    Received,
    Send,
    SMTPMachine,
    StartTLS,
)
from omniurl.resolvers.mailto.settings import MailtoOptions
from omniurl.resolvers.options import Options

DATE = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
RELAY = {
    "greeting": b"220 relay ESMTP\r\n",
    "EHLO": b"250-relay\r\n250-AUTH PLAIN LOGIN\r\n250 STARTTLS\r\n",
    "STARTTLS": b"220 go ahead\r\n",
    "MAIL": b"250 ok\r\n",
    "RCPT": b"250 ok\r\n",
    "DATA": b"354 go on\r\n",
    "MESSAGE": b"250 2.0.0 queued\r\n",
    "QUIT": b"221 bye\r\n",
}


def plan(url: str = "mailto:joe@example.org?cc=ann@example.org", **mailto: object):  # type: ignore[no-untyped-def]
    settings = MailtoOptions(**{"smtp": "relay.example:25", "date": DATE, **mailto})  # type: ignore[arg-type]
    return resolvers.plan(url, Options(email="me@example.org").with_scheme(settings))


def converse(
    m: SMTPMachine, replies: dict[str, bytes], password: str = "pw"
) -> tuple[list[bytes], list[object]]:
    sent: list[bytes] = []
    events: list[object] = []
    m.receive_data(replies["greeting"])
    while True:
        event = m.next_event()
        assert event is not NEED_DATA, f"waits after {sent[-1:]}"
        if isinstance(event, Received):
            continue
        if isinstance(event, Send):
            sent.append(event.data)
            if event.shown.startswith("("):  # the message, or an AUTH response
                key = "MESSAGE" if event.data.endswith(b"\r\n.\r\n") else "AUTHSTEP"
            else:
                key = max((k for k in replies if event.data.startswith(k.encode())), key=len)
            m.receive_data(replies[key])
            continue
        events.append(event)
        if isinstance(event, StartTLS):
            m.tls_started()
        elif isinstance(event, PasswordWanted):
            m.password(password)
        elif isinstance(event, Done):
            return sent, events


def test_the_lines_sent_are_the_plans_and_the_message_is_dot_stuffed() -> None:
    p = plan("mailto:joe@example.org?body=.hidden%0D%0Aline")
    sent, events = converse(SMTPMachine(p), RELAY)
    assert sent[:4] == [b"EHLO localhost\r\n", b"MAIL FROM:<me@example.org>\r\n",
                        b"RCPT TO:<joe@example.org>\r\n", b"DATA\r\n"]  # fmt: skip
    message = next(s for s in p.steps if s.kind == "message").data
    assert sent[4] == message.replace(b"\r\n.", b"\r\n..") + b".\r\n"
    assert b"\r\n..hidden\r\n" in sent[4]
    assert sent[5:] == [b"QUIT\r\n"] and events == [Done()]


def test_starttls_then_ehlo_again() -> None:
    sent, events = converse(SMTPMachine(plan(starttls=True)), RELAY)
    assert sent[:3] == [b"EHLO localhost\r\n", b"STARTTLS\r\n", b"EHLO localhost\r\n"]
    assert isinstance(events[0], StartTLS)


def test_auth_plain_is_one_line() -> None:
    sent, _ = converse(SMTPMachine(plan(smtp_user="u")), dict(RELAY, AUTH=b"235 ok\r\n"))
    assert sent[1] == b"AUTH PLAIN " + base64.b64encode(b"\0u\0pw") + b"\r\n"


def test_auth_login_answers_each_334() -> None:
    relay = dict(RELAY, EHLO=b"250-relay\r\n250 AUTH LOGIN\r\n", AUTH=b"334 VXNlcm5hbWU6\r\n")
    relay["AUTHSTEP"] = b"334 UGFzc3dvcmQ6\r\n"
    m = SMTPMachine(plan(smtp_user="u"))
    # the second AUTH response's reply is 235: switch once the user went out
    sent: list[bytes] = []
    m.receive_data(relay["greeting"])
    while not isinstance(event := m.next_event(), Done):
        if isinstance(event, PasswordWanted):
            m.password("pw")
        elif isinstance(event, Send):
            sent.append(event.data)
            if event.data == base64.b64encode(b"pw") + b"\r\n":
                m.receive_data(b"235 ok\r\n")
            elif event.shown.startswith("("):
                key = "MESSAGE" if event.data.endswith(b".\r\n") else "AUTHSTEP"
                m.receive_data(relay[key])
            else:
                m.receive_data(
                    relay[max((k for k in relay if event.data.startswith(k.encode())), key=len)]
                )
    assert sent[1:4] == [b"AUTH LOGIN\r\n", base64.b64encode(b"u") + b"\r\n",
                         base64.b64encode(b"pw") + b"\r\n"]  # fmt: skip


def test_auth_cram_md5_answers_the_challenge_and_is_preferred() -> None:
    challenge = b"<1896.697170952@relay.example>"
    relay = dict(
        RELAY,
        EHLO=b"250-relay\r\n250 AUTH LOGIN CRAM-MD5 PLAIN\r\n",
        AUTH=b"334 " + base64.b64encode(challenge) + b"\r\n",
        AUTHSTEP=b"235 ok\r\n",
    )
    sent, _ = converse(SMTPMachine(plan(smtp_user="tim")), relay, password="tanstaaftanstaaf")
    digest = hmac.new(b"tanstaaftanstaaf", challenge, "md5").hexdigest().encode()
    assert sent[1:3] == [b"AUTH CRAM-MD5\r\n", base64.b64encode(b"tim " + digest) + b"\r\n"]


def test_a_refused_login_is_one_attempt() -> None:
    with pytest.raises(AuthError, match="refused the login: 535"):
        converse(SMTPMachine(plan(smtp_user="u")), dict(RELAY, AUTH=b"535 5.7.8 no\r\n"))
    with pytest.raises(ProtocolError, match="no AUTH mechanism we know"):
        converse(SMTPMachine(plan(smtp_user="u")), dict(RELAY, EHLO=b"250 relay\r\n"))


def test_refusals_name_what_was_refused() -> None:
    with pytest.raises(ReplyError, match=r"refused recipient ann@example\.org") as info:
        converse(SMTPMachine(plan()), dict(RELAY, **{"RCPT TO:<ann": b"550 no such user\r\n"}))
    assert (info.value.code, info.value.component) == (550, "headers[0]")
    with pytest.raises(ReplyError, match="refused sender") as info:
        converse(SMTPMachine(plan()), dict(RELAY, MAIL=b"553 not you\r\n"))
    assert info.value.component == "sender"
    for key in ("greeting", "EHLO", "DATA", "MESSAGE"):
        with pytest.raises(ReplyError, match="refused: 554"):
            converse(SMTPMachine(plan()), dict(RELAY, **{key: b"554 no\r\n"}))


def test_broken_replies() -> None:
    with pytest.raises(ProtocolError, match="invalid reply"):
        converse(SMTPMachine(plan()), dict(RELAY, greeting=b"hello there\r\n"))
    with pytest.raises(LimitExceeded):
        converse(SMTPMachine(plan(), max_line=100), dict(RELAY, greeting=b"2" * 1000))
    m = SMTPMachine(plan())
    m.receive_data(b"220-first line\r\n")
    assert m.next_event() is NEED_DATA
    m.receive_data(b"")
    with pytest.raises(ConnectionClosed, match="in the middle of a reply"):
        m.next_event()
