"""The NNTP conversation as a pure machine (resolvers/nntp/machine.py): bytes in, events out,
no socket — every status-code decision, asserted on the command lines it sends."""

from __future__ import annotations

import pytest

from omniurl import resolvers
from omniurl.resolvers.errors import (
    AuthError,
    ConnectionClosed,
    LimitExceeded,
    NotFound,
    ProtocolError,
    ReplyError,
)
from omniurl.resolvers.nntp.conditions import NNTPRole
from omniurl.resolvers.nntp.machine import (
    NEED_DATA,
    PAUSED,
    BlockEnded,
    BlockStarted,
    Done,
    Line,
    NNTPMachine,
    Received,
    Send,
    StartTLS,
    State,
)
from omniurl.resolvers.nntp.settings import NNTPOptions
from omniurl.resolvers.nntp.settings import StartTLS as Mode
from omniurl.resolvers.options import Options

CAPS = b"101 caps\r\nVERSION 2\r\nREADER\r\nOVER\r\n.\r\n"
#: A reader server (RFC 3977) answering a group listing and an article.
SERVER = {
    "greeting": b"200 hello\r\n",
    "CAPABILITIES": CAPS,
    "GROUP": b"211 3 1 3 g.x\r\n",
    "OVER": b"224 overview\r\n1\tOne\ta@b\td\t<1@x>\t\t10\t1\r\n.\r\n",
    "ARTICLE": b"220 1 <1@x> article\r\nSubject: x\r\n\r\n..dot\r\nbody\r\n.\r\n",
    "LIST ACTIVE": b"215 list\r\ng.x 3 1 y\r\n.\r\n",
    "QUIT": b"205 bye\r\n",
}


def plan(url: str, **nntp: object) -> resolvers.Plan:
    """The plan with the NNTP options given (the server of news: URLs is h)."""
    settings = NNTPOptions(**{"server": "h", **nntp})  # type: ignore[arg-type]
    return resolvers.plan(url, Options().with_scheme(settings))


def reply_to(replies: dict[str, bytes], line: str) -> bytes:
    """The reply scripted for the longest key the command starts with."""
    key = max((k for k in replies if line.startswith(k)), key=len, default=None)
    if key is None:
        raise AssertionError(f"unexpected command {line!r}")
    return replies[key]


def converse(
    machine: NNTPMachine, replies: dict[str, bytes], *, bytewise: bool = False
) -> tuple[list[str], list[object]]:
    """Run the machine against scripted replies (the longest key a command starts with);
    returns the lines sent and the events that are not sends or replies."""
    sent: list[str] = []
    events: list[object] = []

    def feed(data: bytes) -> None:
        for i in range(len(data)) if bytewise else [None]:
            machine.receive_data(data if i is None else data[i : i + 1])

    feed(replies["greeting"])
    while True:
        event = machine.next_event()
        if event is PAUSED and machine.state is State.DONE:
            return sent, events
        if event is NEED_DATA or event is PAUSED:
            raise AssertionError(f"the machine waits ({event}) after {sent[-1:]}")
        if isinstance(event, Received):
            continue
        if isinstance(event, Send):
            line = event.data[:-2].decode()
            sent.append(event.shown)
            feed(reply_to(replies, line))
            continue
        events.append(event)
        if isinstance(event, StartTLS):
            machine.tls_started()


def test_group_listing_sends_capabilities_group_over_quit() -> None:
    m = NNTPMachine(plan("nntp://h/g.x"))
    sent, events = converse(m, SERVER)
    assert sent == ["CAPABILITIES", "GROUP g.x", "OVER 1-3", "QUIT"]
    assert isinstance(events[0], BlockStarted) and events[0].role is NNTPRole.OVER
    assert events[1] == Line(b"1\tOne\ta@b\td\t<1@x>\t\t10\t1")
    assert events[2:] == [BlockEnded(), Done()]
    assert m.seen.capabilities is not None and "OVER" in m.seen.capabilities
    assert (m.seen.group.count, m.seen.group.low, m.seen.group.high) == (3, 1, 3)  # type: ignore[union-attr]


def test_article_lines_are_dot_unstuffed_even_when_fed_byte_by_byte() -> None:
    sent, events = converse(NNTPMachine(plan("news:1@x")), SERVER, bytewise=True)
    assert sent == ["CAPABILITIES", "ARTICLE <1@x>", "QUIT"]
    assert [e.data for e in events if isinstance(e, Line)] == [b"Subject: x", b"", b".dot", b"body"]


def test_rfc977_server_gets_mode_reader_and_the_fallbacks() -> None:
    old = dict(
        SERVER,
        CAPABILITIES=b"500 what?\r\n",
        **{"MODE READER": b"200 ok\r\n", "OVER": b"500 what?\r\n", "XOVER": b"501 no\r\n"},
        LISTGROUP=b"211 list\r\n2\r\n3\r\n.\r\n",
    )
    m = NNTPMachine(plan("nntp://h/g.x", max_articles=2))
    sent, events = converse(m, old)
    assert sent == [
        "CAPABILITIES",
        "MODE READER",
        "GROUP g.x",
        "OVER 2-3",
        "XOVER 2-3",
        "LISTGROUP g.x 2-3",
        "QUIT",
    ]
    assert isinstance(events[0], BlockStarted) and events[0].role is NNTPRole.LISTGROUP


def test_an_empty_group_is_an_empty_listing_without_over() -> None:
    sent, events = converse(
        NNTPMachine(plan("nntp://h/g.x")), dict(SERVER, GROUP=b"211 0 0 0 g.x\r\n")
    )
    assert sent == ["CAPABILITIES", "GROUP g.x", "QUIT"]
    assert events == [Done()]


def test_list_active_falls_back_to_list() -> None:
    replies = dict(
        SERVER, **{"LIST ACTIVE": b"500 no\r\n", "LIST": b"215 all\r\ng.x 3 1 y\r\n.\r\n"}
    )
    sent, _ = converse(NNTPMachine(plan("news:*")), replies)
    assert sent[-3:] == ["LIST ACTIVE", "LIST", "QUIT"]


def test_480_is_answered_with_the_plans_authinfo_and_the_command_sent_again() -> None:
    p = resolvers.plan("nntp://h/g.x", Options(credentials={"h": ("u", "p")}))
    group_once = {"GROUP": b"480 auth please\r\n"}
    m = NNTPMachine(p)
    replies = dict(
        SERVER,
        **group_once,
        **{"AUTHINFO USER": b"381 more\r\n", "AUTHINFO PASS": b"281 ok\r\n"},
    )
    # the second GROUP is answered 211: swap the reply once AUTHINFO PASS went out
    sent: list[str] = []
    m.receive_data(SERVER["greeting"])
    while (event := m.next_event()) is not PAUSED:
        if isinstance(event, Send):
            sent.append(event.shown)
            line = event.data.decode()
            if line.startswith("AUTHINFO PASS"):
                replies["GROUP"] = SERVER["GROUP"]
            m.receive_data(reply_to(replies, line))
        assert event is not NEED_DATA
    assert sent == [
        "CAPABILITIES",
        "GROUP g.x",
        "AUTHINFO USER u",
        "AUTHINFO PASS ****",
        "GROUP g.x",
        "OVER 1-3",
        "QUIT",
    ]


def test_480_without_credentials_or_twice_is_an_auth_error() -> None:
    with pytest.raises(AuthError, match="no credentials are configured for h"):
        converse(NNTPMachine(plan("nntp://h/g.x")), dict(SERVER, GROUP=b"480 auth\r\n"))
    p = resolvers.plan("nntp://h/g.x", Options(credentials={"h": ("u", "p")}))
    replies = dict(SERVER, GROUP=b"480 auth\r\n", **{"AUTHINFO USER": b"281 ok\r\n"})
    with pytest.raises(AuthError, match="still asks for authentication"):
        converse(NNTPMachine(p), replies)
    with pytest.raises(AuthError, match="refused the credentials"):
        converse(NNTPMachine(p), dict(replies, **{"AUTHINFO USER": b"481 no\r\n"}))
    with pytest.raises(AuthError, match="requires TLS first"):
        converse(NNTPMachine(plan("nntp://h/g.x")), dict(SERVER, GROUP=b"483 tls\r\n"))


def test_starttls_when_listed_then_capabilities_again() -> None:
    caps = b"101 caps\r\nVERSION 2\r\nSTARTTLS\r\nREADER\r\n.\r\n"
    replies = dict(SERVER, CAPABILITIES=caps, STARTTLS=b"382 go\r\n")
    m = NNTPMachine(plan("nntp://h/g.x", starttls=Mode.AUTO))
    sent, events = converse(m, replies)
    assert sent[:4] == ["CAPABILITIES", "STARTTLS", "CAPABILITIES", "GROUP g.x"]
    assert isinstance(events[0], StartTLS) and m.seen.upgraded
    # (the capabilities after TLS list STARTTLS again; it is never sent twice)
    with pytest.raises(AuthError, match="does not offer STARTTLS"):
        converse(NNTPMachine(plan("nntp://h/g.x", starttls=Mode.REQUIRE)), SERVER)
    with pytest.raises(ReplyError, match="refused STARTTLS"):
        converse(
            NNTPMachine(plan("nntp://h/g.x", starttls=Mode.REQUIRE)),
            dict(replies, STARTTLS=b"580 no\r\n"),
        )
    sent, _ = converse(
        NNTPMachine(plan("nntp://h/g.x", starttls=Mode.AUTO)),
        dict(replies, STARTTLS=b"580 no\r\n"),
    )
    assert sent[:3] == ["CAPABILITIES", "STARTTLS", "GROUP g.x"]  # auto: stays plain


@pytest.mark.parametrize(
    ("url", "replies", "error", "component"),
    [
        ("nntp://h/g.x", {"GROUP": b"411 no group\r\n"}, NotFound, "newsgroup"),
        ("news:1@x", {"ARTICLE": b"430 no such\r\n"}, NotFound, "message_id"),
        ("nntp://h/g.x/9", {"ARTICLE": b"423 no such\r\n"}, NotFound, "article"),
        ("nntp://h/g.x", {"greeting": b"502 go away\r\n"}, ReplyError, "host"),
        ("nntp://h/g.x", {"OVER": b"503 hm\r\n", "XOVER": b"599 x\r\n"}, ReplyError, "newsgroup"),
    ],
)
def test_refusals_are_typed_and_the_session_ends_with_quit(
    url: str, replies: dict[str, bytes], error: type[Exception], component: str
) -> None:
    m = NNTPMachine(plan(url))
    with pytest.raises(error) as info:
        converse(m, dict(SERVER, **replies))
    assert getattr(info.value, "component", None) == component
    # the reply that refused was handed out before the error (for the transcript)
    if "greeting" in replies:
        assert m.abort() is False  # no session to end
        return
    assert m.abort() is True
    quit_event = m.next_event()
    assert isinstance(quit_event, Send) and quit_event.data == b"QUIT\r\n"


def test_bounds_and_broken_servers() -> None:
    m = NNTPMachine(plan("news:1@x"), max_buffered=40)
    with pytest.raises(LimitExceeded, match="the article is larger than 40 bytes"):
        converse(m, dict(SERVER, ARTICLE=b"220 a\r\n" + b"x" * 30 + b"\r\n" + b"y" * 30 + b"\r\n"))
    m = NNTPMachine(plan("news:1@x"), max_line=20)
    with pytest.raises(LimitExceeded, match="line longer than 20"):
        converse(m, dict(SERVER, greeting=b"200 " + b"x" * 40 + b"\r\n"))
    with pytest.raises(ProtocolError, match="not an NNTP reply"):
        converse(NNTPMachine(plan("news:1@x")), dict(SERVER, greeting=b"SSH-2.0-OpenSSH\r\n"))
    m = NNTPMachine(plan("news:1@x"))
    m.receive_data(b"200 hi\r\n")
    assert isinstance(m.next_event(), Received)
    assert isinstance(m.next_event(), Send)
    m.receive_data(b"101 caps\r\nREADER\r\n")
    m.receive_data(b"")
    assert isinstance(m.next_event(), Received)  # the 101, then the list cut short
    with pytest.raises(ConnectionClosed, match="capability list"):
        m.next_event()


def test_a_server_that_hangs_up_after_quit_ends_the_session() -> None:
    m = NNTPMachine(plan("nntp://h/g.x"))
    replies = dict(SERVER, GROUP=b"211 0 0 0 g.x\r\n", QUIT=b"")
    sent: list[str] = []
    m.receive_data(replies["greeting"])
    while True:
        event = m.next_event()
        if isinstance(event, Send):
            sent.append(event.shown)
            answer = reply_to(replies, event.data.decode())
            m.receive_data(answer)
            if not answer:
                break
    assert m.quitting and m.next_event() == Done()
