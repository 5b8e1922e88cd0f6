"""``LIST -a`` and the plain ``LIST`` after it, byte for byte against a scripted server.

A server without MLST is asked ``LIST -a`` (dotfiles, as MLSD lists them).  One that reads
``-a`` as a path answers the way it answers a listing of a name it does not have: ProFTPD
1.3.8 says ``450 nosuch: No such file or directory``, others 550 or 501 (checked on this
machine, docs/ftp.md).  Then the plain ``LIST`` is asked once, over the data connection
already open, and its reply is the outcome; ``omniurl plan`` shows that step as the
executor takes it (the machine decides it: :func:`resolvers.ftp.replies.list_all_refused`).
"""

from __future__ import annotations

import asyncio

import pytest
from _ftphttp import OPTS

from omniurl import resolvers
from omniurl.resolvers.errors import NotFound, ReplyError
from omniurl.resolvers.ftp.planner import FTPRole
from omniurl.testservers import RunningServer
from omniurl.testservers.recording import recording_of, start_recording

#: What the scripted server lists (one file and one dotfile, Unix ``ls -l`` lines).
LISTING = (
    b"-rw-r--r--    1 0        0               2 Nov 29 10:57 .hidden\r\n"
    b"-rw-r--r--    1 0        0               2 Nov 29 10:57 a.txt\r\n"
)

#: The commands before the listing: anonymous login, the CWD, FEAT (no MLST), EPSV.
SETUP = [b"USER anonymous", b"PASS tester@example.org", b"CWD d", b"FEAT", b"EPSV"]


class Scripted:
    """A control connection answering each listing command from ``answers`` (a command
    line to the reply and the bytes the data connection then carries), and one data server
    that sends those bytes on each connection and closes it."""

    def __init__(self, answers: dict[bytes, tuple[bytes, bytes]], *, epsv: bool = True) -> None:
        self.answers = answers
        self.epsv = epsv
        self.pending: list[bytes] = []
        self.data: asyncio.Server | None = None
        self.control: RunningServer | None = None

    async def __aenter__(self) -> Scripted:
        async def data(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                for _ in range(500):  # the listing command follows the connection (bounded)
                    if self.pending:
                        break
                    await asyncio.sleep(0.01)
                writer.write(self.pending.pop(0) if self.pending else b"")
                await writer.drain()
            except (asyncio.CancelledError, ConnectionError):
                pass  # (the server closing, or no listing on this connection)
            finally:
                writer.close()

        self.data = await asyncio.start_server(data, "127.0.0.1", 0)
        port = self.data.sockets[0].getsockname()[1]

        def respond(line: bytes) -> bytes | None:
            if line in self.answers:
                reply, body = self.answers[line]
                if reply.startswith(b"150"):
                    self.pending.append(body)
                    return reply + b"\r\n226 done\r\n"
                return reply + b"\r\n"
            verb = line.split(b" ", 1)[0]
            return {
                b"USER": b"331 pw\r\n",
                b"PASS": b"230 ok\r\n",
                b"CWD": b"250 ok\r\n",
                b"FEAT": b"211-Features:\r\n SIZE\r\n211 End\r\n",
                b"EPSV": b"229 Extended Passive Mode (|||%d|)\r\n" % port
                if self.epsv
                else b"500 EPSV not understood\r\n",
                b"PASV": b"227 Entering Passive Mode (127,0,0,1,%d,%d)\r\n"
                % (port >> 8, port & 0xFF),
                b"QUIT": b"221 bye\r\n",
            }.get(verb, b"502 not here\r\n")

        self.control = await start_recording(greeting=b"220 scripted\r\n", respond=respond)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.control is not None
        await self.control.close()
        assert self.data is not None
        self.data.close()
        await self.data.wait_closed()

    @property
    def url(self) -> str:
        assert self.control is not None
        return f"ftp://{self.control.netloc}/d/"

    def sent(self) -> list[bytes]:
        assert self.control is not None
        return recording_of(self.control).lines()


async def names(url: str) -> list[str]:
    listing = await asyncio.wait_for(resolvers.fetch(url, OPTS), 20)
    assert isinstance(listing, resolvers.Listing)
    return [entry.name for entry in listing]


@pytest.mark.parametrize(
    "refusal",
    [b"450 -a: No such file or directory", b"550 -a: No such file", b"501 Unknown option"],
)
async def test_list_a_refused_is_followed_by_one_plain_list(refusal: bytes) -> None:
    """450 (ProFTPD's "no such file" for a listing), 550 and 501: the plain ``LIST`` next,
    over the data connection already open; its listing is the answer."""
    answers = {b"LIST -a": (refusal, b""), b"LIST": (b"150 here", LISTING)}
    async with Scripted(answers) as server:
        assert await names(server.url) == [".hidden", "a.txt"]
        assert server.sent() == [*SETUP, b"LIST -a", b"LIST", b"QUIT"]


@pytest.mark.parametrize("refusal", [b"450 -a: No such file or directory", b"501 Unknown option"])
async def test_when_the_plain_list_is_refused_too_its_reply_is_the_error(refusal: bytes) -> None:
    answers = {b"LIST -a": (refusal, b""), b"LIST": (b"550 No listing here", b"")}
    async with Scripted(answers) as server:
        with pytest.raises(NotFound) as info:  # 550: not found, the plain LIST's reply
            await names(server.url)
        assert "550 No listing here" in str(info.value)
        assert "LIST -a" not in str(info.value)
        assert server.sent() == [*SETUP, b"LIST -a", b"LIST"]


async def test_list_a_answered_is_the_listing_and_no_plain_list_is_sent() -> None:
    answers = {b"LIST -a": (b"150 here", LISTING)}
    async with Scripted(answers) as server:
        assert await names(server.url) == [".hidden", "a.txt"]
        assert server.sent() == [*SETUP, b"LIST -a", b"QUIT"]


@pytest.mark.parametrize("reply", [b"425 Can't open data connection", b"451 Local error"])
async def test_other_4xx_replies_say_nothing_of_the_option_and_are_the_error(
    reply: bytes,
) -> None:
    """A 425 (the data connection) or 451 (the server's own trouble) is no verdict on
    ``-a``: no second command, the reply is the error."""
    async with Scripted({b"LIST -a": (reply, b"")}) as server:
        with pytest.raises(ReplyError, match=reply.decode()):
            await names(server.url)
        assert server.sent() == [*SETUP, b"LIST -a"]


def test_the_plan_shows_the_plain_list_on_the_condition_the_machine_decides() -> None:
    plan = resolvers.plan("ftp://h/d/", OPTS)
    plain = next(step for step in plan.steps if step.role is FTPRole.LIST_PLAIN)
    when = "LIST -a refused (450 or a 5xx reply)"
    assert (plain.data, plain.when) == (b"LIST", when)
    assert [plain.due(code) for code in ("450", "500", "501", "550")] == [True] * 4
    assert [plain.due(code) for code in ("150", "421", "425", "426", "451")] == [False] * 5
    shown = plan.to_json()  # (what `omniurl plan --json` prints: the same step and words)
    at = shown["steps"].index("LIST")
    assert shown["steps"][at - 1 : at + 1] == ["LIST -a", "LIST"]
    assert shown["when"][at] == when


# -- a LIST -a that lists nothing, or only "-a" ------------------------------------------

#: What vsftpd, ProFTPD and Pure-FTPd list for an empty folder with ``LIST -a``.
DOTS = (
    b"drwxr-xr-x    2 0        0            4096 Nov 29 10:57 .\r\n"
    b"drwxr-xr-x    4 0        0            4096 Nov 29 10:57 ..\r\n"
)
DASH_A = b"-rw-r--r--    1 0        0               2 Nov 29 10:57 -a\r\n"
B_TXT = b"-rw-r--r--    1 0        0               2 Nov 29 10:57 b.txt\r\n"


@pytest.mark.parametrize(
    "listed",
    [b"", b"total 0\r\n", DASH_A, b"total 4\r\n" + DASH_A],
    ids=["nothing", "total 0", "-a", "total and -a"],
)
async def test_list_a_listing_nothing_or_only_dash_a_is_asked_again_plainly(listed: bytes) -> None:
    """A server that read ``-a`` as a name lists nothing (vsftpd and Pure-FTPd list a name
    they lack so: ``LIST nosuch`` is 150, no line, 226 — measured) or the file ``-a``:
    one plain ``LIST``, over a new data connection, and its listing is the answer (wget
    asks ``LIST`` after the first ``LIST -a`` of a session and keeps the longer)."""
    answers = {b"LIST -a": (b"150 here", listed), b"LIST": (b"150 here", LISTING + DASH_A)}
    async with Scripted(answers) as server:
        assert await names(server.url) == [".hidden", "a.txt", "-a"]
        assert server.sent() == [*SETUP, b"LIST -a", b"EPSV", b"LIST", b"QUIT"]


async def test_the_re_list_opens_its_data_connection_as_the_first_was() -> None:
    """EPSV refused: PASV for ``LIST -a``, and PASV again for the plain ``LIST`` (no
    second EPSV that would be refused too)."""
    answers = {b"LIST -a": (b"150 here", b""), b"LIST": (b"150 here", LISTING)}
    async with Scripted(answers, epsv=False) as server:
        assert await names(server.url) == [".hidden", "a.txt"]
        assert server.sent() == [
            *SETUP, b"PASV", b"LIST -a", b"PASV", b"LIST", b"QUIT"
        ]  # fmt: skip


@pytest.mark.parametrize(
    ("listed", "expected"),
    [
        (DOTS, []),
        (DOTS + DASH_A, ["-a"]),
        (DASH_A + B_TXT, ["-a", "b.txt"]),
        (LISTING, [".hidden", "a.txt"]),
    ],
    ids=["an empty folder", "-a in a folder", "-a and another", "files"],
)
async def test_a_listing_that_names_anything_else_is_the_answer(
    listed: bytes, expected: list[str]
) -> None:
    """``.`` and ``..`` (an empty folder, as the three servers list it with ``-a``), or a
    second name beside ``-a``: the listing is ``LIST -a``'s, nothing asked again."""
    async with Scripted({b"LIST -a": (b"150 here", listed)}) as server:
        assert await names(server.url) == expected
        assert server.sent() == [*SETUP, b"LIST -a", b"QUIT"]


async def test_a_truly_empty_folder_costs_one_command_and_stays_empty() -> None:
    answers = {b"LIST -a": (b"150 here", b""), b"LIST": (b"150 here", b"")}
    async with Scripted(answers) as server:
        assert await names(server.url) == []
        assert server.sent() == [*SETUP, b"LIST -a", b"EPSV", b"LIST", b"QUIT"]


async def test_the_plain_list_refused_after_an_empty_list_a_is_its_error() -> None:
    answers = {b"LIST -a": (b"150 here", b""), b"LIST": (b"550 No listing here", b"")}
    async with Scripted(answers) as server:
        with pytest.raises(NotFound, match="550 No listing here"):
            await names(server.url)
        assert server.sent() == [*SETUP, b"LIST -a", b"EPSV", b"LIST"]


async def test_json_and_the_transcript_name_the_command_that_listed() -> None:
    lines: list[str] = []
    options = OPTS.with_(transcript=lambda d, t: lines.append(f"{d} {t}"))
    answers = {b"LIST -a": (b"150 here", b""), b"LIST": (b"150 here", LISTING)}
    async with (
        Scripted(answers) as server,
        await resolvers.resolve(server.url, options) as resource,
    ):
        assert [e.name async for e in resource.aiter_entries()] == [".hidden", "a.txt"]
        assert resource.metadata == {"command": "LIST"}
    assert "* LIST -a listed nothing but -a: LIST" in lines


def test_the_plan_shows_the_re_list_on_the_conditions_the_machine_decides() -> None:
    from omniurl.resolvers.ftp.listing import Seen, parse_list_line

    plan = resolvers.plan("ftp://h/d/", OPTS)
    by_role = {step.role: step for step in plan.steps}
    relist = [by_role[r] for r in (FTPRole.RELIST_EPSV, FTPRole.RELIST_PASV, FTPRole.RELIST)]
    what = "LIST -a listed nothing, or only a file named -a"
    assert [(s.data, s.when) for s in relist] == [
        (b"EPSV", f"{what}; EPSV opened its data connection"),
        (b"PASV", f"{what}; PASV opened its data connection"),
        (b"LIST", what),
    ]
    assert [relist[0].due("EPSV"), relist[0].due("PASV")] == [True, False]
    assert [relist[1].due("EPSV"), relist[1].due("PASV")] == [False, True]

    def seen(listing: bytes) -> Seen:
        facts = Seen()
        for line in listing.decode().splitlines():
            facts.add(line, parse_list_line(line))
        return facts

    listings = (b"", b"total 0\r\n", DASH_A, DOTS, DASH_A + B_TXT)
    due = [relist[2].due((len(x), seen(x))) for x in listings]
    assert due == [True, True, True, False, False]
    # without the executor's facts (the machine alone), no byte at all is the sign
    assert [relist[2].due((0, None)), relist[2].due((5, None))] == [True, False]
