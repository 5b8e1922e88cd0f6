"""FTP reply parsing and the decisions behind the plan's conditional steps, without sockets
(resolvers/ftp/replies.py): what the executor asks about every reply."""

from __future__ import annotations

import pytest

from omniurl.resolvers.errors import LimitExceeded, ProtocolError
from omniurl.resolvers.ftp.replies import (
    MAX_REPLY_LINES,
    Reply,
    ReplyReader,
    after_pass,
    after_user,
    announced_size,
    epsv_port,
    passive_needed,
    pasv_port,
    transfer_started,
)


def read(*lines: bytes) -> Reply | None:
    reader = ReplyReader("the greeting")
    reply = None
    for line in lines:
        assert reply is None, "a line after the reply ended"
        reply = reader.feed(line)
    return reply


def test_a_one_line_reply() -> None:
    reply = read(b"220 ready")
    assert reply is not None and (reply.code, reply.lines, str(reply)) == (
        "220", ["ready"], "220 ready"
    )  # fmt: skip


def test_a_multi_line_reply_ends_at_its_code_and_a_space() -> None:
    # RFC 959 §4.2's example: inner lines may start with digits, even another code.
    reply = read(b"123-First line", b"Second line", b"  234 A line beginning with numbers",
                 b"123 The last line")  # fmt: skip
    assert reply is not None
    assert reply.code == "123"
    assert reply.lines == ["First line", "Second line", "  234 A line beginning with numbers",
                           "The last line"]  # fmt: skip


def test_an_unfinished_multi_line_reply_asks_for_more() -> None:
    reader = ReplyReader("x")
    assert reader.feed(b"220-welcome") is None
    assert reader.feed(b"220-still") is None  # "220-" is not the end
    assert reader.feed(b"220 end") is not None


def test_a_line_that_is_no_reply_is_a_protocol_error() -> None:
    with pytest.raises(ProtocolError, match="not an FTP reply"):
        read(b"SSH-2.0-OpenSSH_9.2")


def test_an_endless_multi_line_reply_is_bounded() -> None:
    reader = ReplyReader("the greeting")
    reader.feed(b"220-flood")
    with pytest.raises(LimitExceeded):
        for _ in range(MAX_REPLY_LINES + 1):
            reader.feed(b"more")


@pytest.mark.parametrize(
    ("text", "port"),
    [("Entering Extended Passive Mode (|||6446|)", 6446), ("ok (!!!21!)", 21)],
)
def test_epsv_port(text: str, port: int) -> None:
    assert epsv_port(Reply("229", [text])) == port


def test_pasv_port_ignores_the_address() -> None:
    reply = Reply("227", ["Entering Passive Mode (10,0,0,9,19,137)"])
    assert pasv_port(reply) == 19 * 256 + 137


@pytest.mark.parametrize(
    "reply",
    [Reply("229", ["no port here"]), Reply("227", ["(1,2,3)"]), Reply("229", ["(|||0|)"])],
)
def test_unreadable_or_impossible_ports_are_protocol_errors(reply: Reply) -> None:
    with pytest.raises(ProtocolError):
        (epsv_port if reply.code == "229" else pasv_port)(reply)


def test_announced_size() -> None:
    assert announced_size(Reply("150", ["Opening BINARY mode for f (1234 bytes)."])) == 1234
    assert announced_size(Reply("150", ["Opening data connection"])) is None


@pytest.mark.parametrize(
    ("code", "after"),
    [("230", "done"), ("331", "password"), ("332", "account"), ("530", "refused")],
)
def test_after_user(code: str, after: str) -> None:
    assert after_user(code) == after


@pytest.mark.parametrize(("code", "after"), [("230", "done"), ("202", "done"),
                                             ("332", "account"), ("530", "refused")])  # fmt: skip
def test_after_pass(code: str, after: str) -> None:
    assert after_pass(code) == after


def test_the_conditions_of_pasv_and_the_transfer() -> None:
    assert not passive_needed("229")
    assert passive_needed("500") and passive_needed("502")
    assert transfer_started("150") and transfer_started("125")
    assert not transfer_started("550")


def test_the_pure_planner_never_imports_live_connections() -> None:
    import subprocess
    import sys

    code = (
        "import sys; import omniurl.resolvers.ftp.planner; "
        "print(sorted(m for m in sys.modules if m.startswith('omniurl.resolvers.ftp.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60).stdout  # fmt: skip
    assert "omniurl.resolvers.ftp.sessions" not in out
    assert "omniurl.resolvers.ftp.executor" not in out
    assert "omniurl.resolvers.ftp.keys" in out


def test_mdtm_time_reads_the_14_digits_as_utc_and_refuses_an_impossible_date() -> None:
    import datetime

    from omniurl.resolvers.ftp.replies import mdtm_time

    when = datetime.datetime(2023, 11, 14, 22, 13, 20, tzinfo=datetime.UTC)
    assert mdtm_time("213 20231114221320") == when
    assert mdtm_time("213 20231114221320.123") == when  # RFC 3659 §2.3: the fraction dropped
    assert mdtm_time("213 20231314221320") is None  # month 13
    assert mdtm_time("213 19991231235960") is None  # second 60
    assert mdtm_time("550 no such file") is None
