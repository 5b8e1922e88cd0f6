"""The FTP conversation as a pure machine (resolvers/ftp/machine.py): bytes in, events out,
no socket — every reply-code decision of the executor, asserted on the bytes it sends."""

from __future__ import annotations

import datetime
from collections.abc import Callable

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
from omniurl.resolvers.ftp.keys import SessionKey
from omniurl.resolvers.ftp.machine import (
    NEED_DATA,
    PAUSED,
    Done,
    Facts,
    FTPMachine,
    NothingMissing,
    OpenData,
    PasswordWanted,
    Received,
    Send,
    StartTLS,
    State,
    TransferReady,
)
from omniurl.resolvers.ftp.planner import FTPDetails
from omniurl.resolvers.ftp.settings import FTPOptions
from omniurl.resolvers.options import Options, Shared

WELCOME = b"220 ready\r\n"
#: What a plain anonymous RETR of /pub/f.bin hears, command by command.
RETR = {
    "USER anonymous": b"331 send password\r\n",
    "PASS ": b"230 in\r\n",
    "CWD pub": b"250 ok\r\n",
    "TYPE I": b"200 binary\r\n",
    "EPSV": b"229 Entering Extended Passive Mode (|||40001|)\r\n",
    "RETR f.bin": b"150 Opening BINARY mode data connection for f.bin (10 bytes)\r\n",
    "after data": b"226 Transfer complete\r\n",
    "QUIT": b"221 bye\r\n",
}


def plan(url: str, **options: object) -> resolvers.Plan:
    return resolvers.plan(url, Options(**options))  # type: ignore[arg-type]


def converse(
    machine: FTPMachine,
    replies: dict[str, bytes],
    *,
    received: int | Callable[[TransferReady], int] = 10,
    feed: Callable[[bytes], list[bytes]] = lambda b: [b],
) -> tuple[list[str], list[object]]:
    """Run the machine against scripted replies (keyed by the command's first words, or
    "greeting"/"after data"); pauses are answered as an executor would (``received``: the
    bytes each data connection carries, or a function of its transfer giving them).
    Returns the lines sent and the events that needed the executor."""
    sent: list[str] = []
    events: list[object] = []
    for chunk in feed(replies.get("greeting", WELCOME)):
        machine.receive_data(chunk)
    while True:
        event = machine.next_event()
        if event is NEED_DATA:
            raise AssertionError(f"the machine waits for a reply the script lacks: {sent[-1:]}")
        if event is PAUSED:
            assert machine.state is State.DONE
            return sent, events
        if isinstance(event, Received):
            continue
        if isinstance(event, Send):
            assert event.data.endswith(b"\r\n")
            line = event.data[:-2].decode()
            sent.append(line)
            # the last matching key: a test's own replies override the script's
            key = next((k for k in reversed(replies) if line.startswith(k)), None)
            if key is None:
                raise AssertionError(f"unexpected command {line!r}")
            for chunk in feed(replies[key]):
                machine.receive_data(chunk)
            continue
        events.append(event)
        if isinstance(event, StartTLS):
            machine.tls_started()
        elif isinstance(event, PasswordWanted):
            machine.password(b"secret")
        elif isinstance(event, OpenData):
            machine.data_opened()
        elif isinstance(event, TransferReady):
            machine.data_done(received if isinstance(received, int) else received(event))
            for chunk in feed(replies["after data"]):
                machine.receive_data(chunk)


def test_anonymous_retr_sends_exactly_the_plan() -> None:
    m = FTPMachine(plan("ftp://h/pub/f.bin", email="me@example.org"))
    sent, events = converse(m, RETR)
    assert sent == [
        "USER anonymous",
        "PASS me@example.org",
        "CWD pub",
        "TYPE I",
        "EPSV",
        "RETR f.bin",
        "QUIT",
    ]
    opened, ready, done = events
    assert opened == OpenData(40001, opened.reply)  # type: ignore[union-attr]
    assert isinstance(ready, TransferReady)
    assert (ready.size, ready.expected, ready.command) == (10, frozenset({10}), "RETR f.bin")
    assert done == Done(keep=False)
    assert m.replies[0] == "220 ready"


def test_replies_split_anywhere_and_multiline_replies_are_assembled() -> None:
    replies = dict(RETR, greeting=b"220-Welcome\r\n220-to the server\r\n220 ready\r\n")
    m = FTPMachine(plan("ftp://h/pub/f.bin", email="me@example.org"))
    bytewise = converse(m, replies, feed=lambda b: [b[i : i + 1] for i in range(len(b))])
    assert bytewise[0][-1] == "QUIT"
    # (RFC 959 §4.2: the lines between the first and the last are text, kept as they came)
    assert m.replies[0] == "220 Welcome / 220-to the server / ready"


def test_pasv_only_when_epsv_refused_and_its_address_is_ignored() -> None:
    replies = dict(
        RETR,
        EPSV=b"500 no EPSV\r\n",
        PASV=b"227 Entering Passive Mode (10,9,8,7,156,65)\r\n",
    )
    sent, events = converse(FTPMachine(plan("ftp://h/pub/f.bin")), replies)
    assert sent[4:6] == ["EPSV", "PASV"]
    assert isinstance(events[0], OpenData) and events[0].port == 156 * 256 + 65


def test_pasv_refused_too_is_an_error() -> None:
    replies = dict(RETR, EPSV=b"500 no\r\n", PASV=b"502 no\r\n")
    with pytest.raises(ReplyError, match="passive mode"):
        converse(FTPMachine(plan("ftp://h/pub/f.bin")), replies)


def test_user_logged_in_at_once_sends_no_pass() -> None:
    replies = dict(RETR, USER=b"230 welcome\r\n")
    sent, _ = converse(FTPMachine(plan("ftp://u:p@h/pub/f.bin")), replies)
    assert sent[:2] == ["USER u", "CWD pub"]


@pytest.mark.parametrize(
    ("user_reply", "pass_reply", "error", "component"),
    [
        (b"530 no\r\n", None, "refused the user u", "user"),
        (b"332 account\r\n", None, "account", "user"),
        (b"331 pw\r\n", b"530 wrong\r\n", "refused the credentials of u", "password"),
        (b"331 pw\r\n", b"332 account\r\n", "account", "user"),
    ],
)
def test_login_refusals_blame_the_component(
    user_reply: bytes, pass_reply: bytes | None, error: str, component: str
) -> None:
    replies = dict(RETR, USER=user_reply)
    if pass_reply is not None:
        replies["PASS"] = pass_reply
    with pytest.raises(AuthError, match=error) as info:
        converse(FTPMachine(plan("ftp://u:p@h/pub/f.bin")), replies)
    assert info.value.component == component


def test_anonymous_refused_asks_for_credentials() -> None:
    with pytest.raises(AuthError, match="refused anonymous login, it needs credentials"):
        converse(FTPMachine(plan("ftp://h/pub/f.bin")), dict(RETR, PASS=b"530 no\r\n"))


def test_a_password_is_asked_for_only_on_331() -> None:
    replies = dict(RETR, USER=b"331 send password\r\n")
    sent, events = converse(FTPMachine(plan("ftp://u@h/pub/f.bin")), replies)
    assert isinstance(events[0], PasswordWanted) and events[0].reply.code == "331"
    assert sent[:2] == ["USER u", "PASS secret"]


def test_greeting_120_waits_for_220_and_other_greetings_refuse() -> None:
    replies = dict(RETR, greeting=b"120 in a minute\r\n220 ready\r\n")
    assert converse(FTPMachine(plan("ftp://h/pub/f.bin")), replies)[0][0] == "USER anonymous"
    with pytest.raises(ReplyError, match="the connection") as info:
        converse(FTPMachine(plan("ftp://h/pub/f.bin")), dict(RETR, greeting=b"421 busy\r\n"))
    assert info.value.component == "host"


def test_cwd_and_retr_refusals() -> None:
    with pytest.raises(NotFound) as info:
        converse(FTPMachine(plan("ftp://h/pub/f.bin")), dict(RETR, CWD=b"550 no dir\r\n"))
    assert info.value.component == "cwd[0]"
    with pytest.raises(NotFound) as info:
        converse(FTPMachine(plan("ftp://h/pub/f.bin")), dict(RETR, RETR=b"550 no file\r\n"))
    assert info.value.component == "name"
    with pytest.raises(ReplyError) as info:
        converse(FTPMachine(plan("ftp://h/pub/f.bin")), dict(RETR, TYPE=b"504 no\r\n"))
    assert info.value.component == "typecode"


def test_a_short_transfer_is_an_error_not_a_complete_file() -> None:
    with pytest.raises(ConnectionClosed, match="closed after 7 bytes; the server announced 10"):
        converse(FTPMachine(plan("ftp://h/pub/f.bin")), RETR, received=7)


def test_final_reply_must_be_2xx() -> None:
    replies = dict(RETR, **{"after data": b"426 aborted\r\n"})
    with pytest.raises(ConnectionClosed, match="did not complete"):
        converse(FTPMachine(plan("ftp://h/pub/f.bin")), replies)


def test_explicit_tls_auth_then_handshake_then_protected_login() -> None:
    replies = dict(RETR, AUTH=b"234 go\r\n", PBSZ=b"200 ok\r\n", PROT=b"200 ok\r\n")
    sent, events = converse(
        FTPMachine(plan("ftp://h/pub/f.bin", schemes=(FTPOptions(ssl=True),))), replies
    )
    assert [line.split(" ")[0] for line in sent[:5]] == ["AUTH", "USER", "PASS", "PBSZ", "PROT"]
    assert isinstance(events[0], StartTLS)
    with pytest.raises(ReplyError, match="TLS is required"):
        converse(
            FTPMachine(plan("ftp://h/pub/f.bin", schemes=(FTPOptions(ssl=True),))),
            dict(RETR, AUTH=b"502 no\r\n"),
        )


def test_feat_decides_mlsd_or_list() -> None:
    listing = dict(
        RETR,
        FEAT=b"211-Features:\r\n MLST type*;size*;\r\n211 End\r\n",
        MLSD=b"150 here\r\n",
        LIST=b"150 here\r\n",
    )
    sent, events = converse(FTPMachine(plan("ftp://h/pub/")), listing)
    assert sent[2:6] == ["CWD pub", "FEAT", "EPSV", "MLSD"]
    ready = events[1]
    assert isinstance(ready, TransferReady) and ready.listing_format == "mlsd"
    assert ready.expected is None  # a listing's length is never announced
    sent, events = converse(FTPMachine(plan("ftp://h/pub/")), dict(listing, FEAT=b"500 ?\r\n"))
    assert sent[3:7] == ["FEAT", "EPSV", "LIST -a", "QUIT"]
    assert isinstance(events[1], TransferReady) and events[1].listing_format == "list"
    assert events[1].command == "LIST -a"


@pytest.mark.parametrize(
    "refused",
    [b"500 unknown option\r\n", b"501 ?\r\n", b"550 -a: none\r\n", b"450 -a: No such file\r\n"],
)
def test_list_a_refused_falls_back_to_plain_list(refused: bytes) -> None:
    """``LIST -a`` (dotfiles, as MLSD lists them) from a server without MLST; one that
    refuses it (5xx: takes no ls options, or read ``-a`` as a name; 450: ProFTPD's answer
    to a listing of a name it does not have) gets plain LIST, over
    the data connection already open — the plan's conditional step, as wget falls back."""
    listing = dict(RETR, FEAT=b"500 ?\r\n", LIST=b"150 here\r\n", **{"LIST -a": refused})
    sent, events = converse(FTPMachine(plan("ftp://h/pub/")), listing)
    assert sent[3:8] == ["FEAT", "EPSV", "LIST -a", "LIST", "QUIT"]
    assert [type(e) for e in events][:2] == [OpenData, TransferReady]
    assert events[1].command == "LIST" and events[1].listing_format == "list"


def test_list_a_listing_nothing_asks_plain_list_over_a_new_data_connection() -> None:
    """A server that reads ``-a`` as a name lists nothing for ``LIST -a`` (and says 226),
    where a Unix server's ``-a`` lists ``.`` and ``..`` even in an empty folder: the folder
    is asked for again with plain ``LIST`` over a new data connection (before: the empty
    listing was the folder's, exit 0; curl's plain LIST and wget's second LIST list it)."""
    listing = dict(RETR, FEAT=b"500 ?\r\n", LIST=b"150 here\r\n")
    sent, events = converse(
        FTPMachine(plan("ftp://h/pub/")),
        listing,
        received=lambda ready: 0 if ready.command == "LIST -a" else 120,
    )
    assert sent[3:] == ["FEAT", "EPSV", "LIST -a", "EPSV", "LIST", "QUIT"]
    kinds = [type(e) for e in events]
    assert kinds == [OpenData, TransferReady, OpenData, TransferReady, Done]
    assert [e.command for e in events if isinstance(e, TransferReady)] == ["LIST -a", "LIST"]
    # a listing with anything in it is the folder's; an empty plain LIST is the end
    for received in (1, 0):
        sent, _ = converse(FTPMachine(plan("ftp://h/pub/")), listing, received=received)
        assert sent[3:] == (
            ["FEAT", "EPSV", "LIST -a", "QUIT"]
            if received
            else ["FEAT", "EPSV", "LIST -a", "EPSV", "LIST", "QUIT"]
        )


def test_list_refused_after_list_a_or_list_a_failing_otherwise_is_the_error() -> None:
    both = dict(RETR, FEAT=b"500 ?\r\n", LIST=b"550 no\r\n", **{"LIST -a": b"501 ?\r\n"})
    with pytest.raises(ReplyError, match="550 no"):
        converse(FTPMachine(plan("ftp://h/pub/")), both)
    busy = dict(RETR, FEAT=b"500 ?\r\n", **{"LIST -a": b"425 no data connection\r\n"})
    with pytest.raises(ReplyError, match="425 no data connection"):
        converse(FTPMachine(plan("ftp://h/pub/")), busy)


@pytest.mark.parametrize(
    ("size_reply", "sent_tail", "outcome"),
    [
        (b"213 10\r\n", ["SIZE f.bin", "QUIT"], None),  # nothing missing
        (b"213 30\r\n", ["SIZE f.bin", "EPSV", "REST 20", "RETR f.bin", "QUIT"], "append"),
        (b"213 5\r\n", ["SIZE f.bin", "EPSV", "RETR f.bin", "QUIT"], "restart"),
        (b"502 no\r\n", ["SIZE f.bin", "EPSV", "REST 20", "RETR f.bin", "QUIT"], "append"),
    ],
)
def test_resume_size_and_rest_decisions(
    size_reply: bytes, sent_tail: list[str], outcome: str | None
) -> None:
    offset = 20 if size_reply != b"213 10\r\n" else 10
    replies = dict(RETR, SIZE=size_reply, REST=b"350 ok\r\n")
    m = FTPMachine(plan("ftp://h/pub/f.bin", resume_from=offset))
    sent, events = converse(m, replies, received=5 if outcome == "restart" else 10)
    assert sent[4:] == sent_tail
    if outcome is None:
        assert events == [NothingMissing(10), Done(keep=False)]
    else:
        ready = next(e for e in events if isinstance(e, TransferReady))
        assert ready.outcome == outcome


def test_rest_refused_means_the_whole_file() -> None:
    replies = dict(RETR, SIZE=b"502 no\r\n", REST=b"502 no\r\n")
    _, events = converse(FTPMachine(plan("ftp://h/pub/f.bin", resume_from=4)), replies)
    ready = next(e for e in events if isinstance(e, TransferReady))
    assert ready.outcome == "restart" and ready.expected == frozenset({10})


def test_head_sends_size_and_mdtm_and_reads_their_facts() -> None:
    replies = dict(RETR, SIZE=b"213 1234\r\n", MDTM=b"213 19940101120000\r\n")
    sent, events = converse(FTPMachine(plan("ftp://h/pub/f.bin", head=True)), replies)
    assert sent[3:] == ["TYPE I", "SIZE f.bin", "MDTM f.bin", "QUIT"]
    assert events[0] == Facts(1234, datetime.datetime(1994, 1, 1, 12, 0, 0, tzinfo=datetime.UTC))
    with pytest.raises(NotFound):
        converse(FTPMachine(plan("ftp://h/pub/f.bin", head=True)), dict(RETR, SIZE=b"550 no\r\n"))


def test_head_without_size_asks_only_mdtm() -> None:
    # FTPOptions.head_size=False (a mirror's time of a file it has just counted)
    replies = dict(RETR, MDTM=b"213 19940101120000\r\n")
    p = resolvers.plan(
        "ftp://h/pub/f.bin", Options(head=True).with_scheme(FTPOptions(head_size=False))
    )
    sent, events = converse(FTPMachine(p), replies)
    assert sent[3:] == ["MDTM f.bin", "QUIT"]
    assert events[0] == Facts(None, datetime.datetime(1994, 1, 1, 12, 0, 0, tzinfo=datetime.UTC))


def test_a_kept_connection_does_not_send_its_type_again() -> None:
    # RFC 959 §5.3.2: the type holds until changed; the same TYPE line is not sent again
    p = plan("ftp://h/pub/f.bin;type=i", shared=Shared())
    type_i = next(s.data for s in p.steps if s.data.startswith(b"TYPE"))
    m = FTPMachine(p, reused=True, keep=True)
    assert m.state is State.TYPE and m.type_now is None
    m = FTPMachine(p, reused=True, keep=True, type_now=type_i)
    assert m.state is not State.TYPE and m.type_now == type_i
    # another type is sent; a new connection (not reused) knows no type
    p_a = plan("ftp://h/pub/f.txt;type=a", shared=Shared())
    assert FTPMachine(p_a, reused=True, keep=True, type_now=type_i).state is State.TYPE
    assert FTPMachine(p, keep=True, type_now=type_i).type_now is None


def test_a_kept_connection_skips_setup_and_is_not_quit() -> None:
    p = plan("ftp://h/pub/f.bin", shared=Shared())
    assert FTPMachine(p, reused=True, keep=True).state is State.TYPE  # no greeting awaited
    sent: list[str] = []
    m = FTPMachine(p, reused=True, keep=True)
    while True:
        event = m.next_event()
        if isinstance(event, Send):
            line = event.data[:-2].decode()
            sent.append(line)
            key = next(k for k in RETR if line.startswith(k))
            m.receive_data(RETR[key])
        elif isinstance(event, OpenData):
            m.data_opened()
        elif isinstance(event, TransferReady):
            m.data_done(10)
            m.receive_data(RETR["after data"])
        elif isinstance(event, Done):
            assert event.keep
            break
    assert sent == ["TYPE I", "EPSV", "RETR f.bin"]


def test_end_of_stream_and_garbage_are_typed_errors() -> None:
    m = FTPMachine(plan("ftp://h/pub/f.bin"))
    m.receive_data(b"220-still talking\r\n")
    assert m.next_event() is NEED_DATA
    m.receive_data(b"")
    with pytest.raises(ConnectionClosed, match="in the middle of the greeting"):
        m.next_event()
    m = FTPMachine(plan("ftp://h/pub/f.bin"))
    m.receive_data(b"HTTP/1.1 400 Bad Request\r\n")
    with pytest.raises(ProtocolError, match="not an FTP reply"):
        m.next_event()
    m = FTPMachine(plan("ftp://h/pub/f.bin"), max_line=100)
    m.receive_data(b"220 " + b"x" * 200)
    with pytest.raises(LimitExceeded):
        m.next_event()


def test_quit_reply_may_never_come() -> None:
    m = FTPMachine(plan("ftp://h/pub/f.bin", head=True))
    m.receive_data(WELCOME + b"230 in\r\n250 ok\r\n200 ok\r\n213 1\r\n500 no\r\n")
    events = []
    while (event := m.next_event()) is not NEED_DATA:
        events.append(event)
    assert m.quitting
    m.receive_data(b"")
    assert m.next_event() == Done(keep=False)


def test_session_key_is_built_from_the_urls_components() -> None:
    key = plan("ftp://u:p%40@h:2121/a/%2Fb/;type=d").details_as(FTPDetails).session
    assert key == SessionKey("h", 2121, b"u", b"p@", (b"a", b"/b"), "")
    anonymous = plan("ftp://h/f", email="me@x").details_as(FTPDetails).session
    assert anonymous == SessionKey("h", 21, b"anonymous", b"me@x", (), "")
    asked = plan("ftps://u@h/f").details_as(FTPDetails).session
    assert asked == SessionKey("h", 990, b"u", b"", (), "implicit")


def test_a_transfer_that_asks_the_time_sends_mdtm_before_epsv() -> None:
    """``FTPOptions.mdtm`` (a mirror whose LIST gave a rough time): ``MDTM name`` in the
    transfer's own conversation, its time on :class:`TransferReady`; a server that does not
    say one (502) is no error, the time is None."""
    p = plan("ftp://h/pub/f.bin", email="me@example.org", schemes=(FTPOptions(mdtm=True),))
    assert [s.shown for s in p.steps][3:6] == ["TYPE I", "MDTM f.bin", "EPSV"]
    replies = dict(RETR, MDTM=b"213 20231114221320\r\n")
    sent, events = converse(FTPMachine(p), replies)
    assert sent[3:7] == ["TYPE I", "MDTM f.bin", "EPSV", "RETR f.bin"]
    ready = next(e for e in events if isinstance(e, TransferReady))
    assert ready.modified == datetime.datetime(2023, 11, 14, 22, 13, 20, tzinfo=datetime.UTC)
    _, events = converse(FTPMachine(p), dict(RETR, MDTM=b"502 no\r\n"))
    assert next(e for e in events if isinstance(e, TransferReady)).modified is None
    # without the option: no MDTM
    assert "MDTM f.bin" not in [s.shown for s in plan("ftp://h/pub/f.bin").steps]
