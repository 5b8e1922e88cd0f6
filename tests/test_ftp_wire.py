"""FTP against our aioftp-based server: the wire equals the plan; failures are typed."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from _ftphttp import OPTS, transcript
from helpers import cancel_mid_transfer, read_as_writer

from omniurl import resolvers
from omniurl.resolvers.errors import (
    AuthError,
    ConnectionClosed,
    NotFound,
    ProtocolError,
    ResolveTimeout,
)
from omniurl.resolvers.ftp.planner import FTPRole
from omniurl.resolvers.resource import Resource
from omniurl.testservers import RunningServer
from omniurl.testservers.ftp import start_ftp
from omniurl.testservers.recording import recording_of, start_recording


@pytest.fixture
def ftp_root(tmp_path: Path) -> Path:
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc" / "motd").write_bytes(b"message of the day\n")
    (tmp_path / "pub").mkdir()
    (tmp_path / "pub" / "data.bin").write_bytes(bytes(range(256)) * 1024)
    (tmp_path / "pub" / "notes.txt").write_bytes(b"line one\r\nline two\r\n")
    (tmp_path / "pub" / "sub").mkdir()
    return tmp_path


@pytest_asyncio.fixture
async def ftp(ftp_root: Path) -> AsyncIterator[RunningServer]:
    server = await start_ftp(ftp_root, users={"myname": "secret"})
    try:
        yield server
    finally:
        await server.close()


#: The passive steps a server that takes EPSV and names allowed ports never sees.
PASSIVE_AGAIN = (FTPRole.EPSV_AGAIN, FTPRole.PASV, FTPRole.PASV_AGAIN)


def sent(server: RunningServer) -> list[bytes]:
    commands = server.info["commands"]
    assert isinstance(commands, list)
    return list(commands)


def expected(url: str, *, skip: tuple[FTPRole, ...] = PASSIVE_AGAIN) -> list[bytes]:
    """The plan's lines minus the conditional steps our server makes unnecessary (it takes
    EPSV, and its data ports pass the policy)."""
    plan = resolvers.plan(url, OPTS)
    return [s.data for s in plan.steps if s.role not in skip]


async def test_rfc_example_percent_2f_on_the_wire(ftp: RunningServer) -> None:
    url = f"ftp://myname:secret@{ftp.netloc}/%2Fetc/motd"
    async with await resolvers.resolve(url, OPTS) as resource:
        assert await resource.read() == b"message of the day\n"
    assert sent(ftp) == expected(url)
    assert sent(ftp)[2] == b"CWD /etc"


async def test_rfc_example_null_cwd_on_the_wire(ftp: RunningServer) -> None:
    url = f"ftp://myname:secret@{ftp.netloc}//etc/motd"
    async with await resolvers.resolve(url, OPTS) as resource:
        assert await resource.read() == b"message of the day\n"
    assert sent(ftp)[2:4] == [b"CWD ", b"CWD etc"]
    assert sent(ftp) == expected(url)


async def test_anonymous_binary_retrieval_streams_exact_bytes(ftp: RunningServer) -> None:
    url = f"ftp://{ftp.netloc}/pub/data.bin"
    async with await resolvers.resolve(url, OPTS) as resource:
        chunks = [c async for c in resource]
    assert b"".join(chunks) == bytes(range(256)) * 1024
    assert sent(ftp) == [
        b"USER anonymous",
        b"PASS tester@example.org",
        b"CWD pub",
        b"TYPE I",
        b"EPSV",
        b"RETR data.bin",
        b"QUIT",
    ]


async def test_a_consumer_that_writes_at_once_gets_views_of_one_buffer(
    ftp: RunningServer,
) -> None:
    """The bulk path: with ``views_ok`` a TYPE I file comes as views of one reused buffer
    filled from the data connection, each complete when handed out; TYPE A (converted)
    and a consumer that keeps its chunks get bytes."""
    url = f"ftp://{ftp.netloc}/pub/data.bin"
    async with await resolvers.resolve(url, OPTS) as resource:
        written, kinds = await read_as_writer(resource)
    assert written == bytes(range(256)) * 1024 and set(kinds) == {memoryview}
    async with await resolvers.resolve(f"{url};type=a", OPTS) as resource:
        resource.views_ok = True
        assert {type(c) async for c in resource} == {bytes}


async def test_read_takes_views_and_leaves_the_resource_as_it_was(
    ftp: RunningServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``read()`` copies each chunk at once, so it takes the bulk path's views (fewer, fuller
    reads into one buffer): the bytes are exact, and the caller's setting is back after."""
    kinds: set[type] = set()
    chunks = Resource.__aiter__

    async def spy(self: Resource) -> AsyncIterator[bytes]:
        async for chunk in chunks(self):
            kinds.add(type(chunk))
            yield chunk

    monkeypatch.setattr(Resource, "__aiter__", spy)
    async with await resolvers.resolve(f"ftp://{ftp.netloc}/pub/data.bin", OPTS) as resource:
        assert await resource.read() == bytes(range(256)) * 1024
        assert resource.views_ok is False
    assert kinds == {memoryview}


async def test_type_a_converts_crlf_to_local_line_endings(ftp: RunningServer) -> None:
    url = f"ftp://{ftp.netloc}/pub/notes.txt;type=a"
    async with await resolvers.resolve(url, OPTS) as resource:
        assert await resource.read() == b"line one\nline two\n"
    assert b"TYPE A" in sent(ftp)


async def test_type_d_listing_is_nlst_with_child_urls(ftp: RunningServer) -> None:
    url = f"ftp://{ftp.netloc}/pub;type=d"
    async with await resolvers.resolve(url, OPTS) as resource:
        assert resource.kind == "listing"
        names = [e.name for e in resource.entries]
        urls = [e.url for e in resource.entries]
    assert names == ["data.bin", "notes.txt", "sub"]
    assert urls[0] == f"ftp://{ftp.netloc}/pub/data.bin"
    assert sent(ftp)[-2] == b"NLST pub"
    assert sent(ftp) == expected(url)


async def test_directory_listing_is_mlsd_with_types_sizes_and_times(ftp: RunningServer) -> None:
    """Issue 11: a directory URL lists what a person looks at (MLSD, FEAT listing MLST); a
    directory's own URL ends in "/", so following it lists it instead of RETR → 550."""
    url = f"ftp://{ftp.netloc}/pub/"
    async with await resolvers.resolve(url, OPTS) as resource:
        entries = {e.name: e for e in resource.entries}
    assert sorted(entries) == ["data.bin", "notes.txt", "sub"]
    assert (
        entries["sub"].kind == "directory" and entries["sub"].url == f"ftp://{ftp.netloc}/pub/sub/"
    )
    assert entries["data.bin"].kind == "file" and isinstance(entries["data.bin"].info["size"], int)
    assert str(entries["data.bin"].info["modify"]).endswith("Z")
    assert sent(ftp)[-4:] == [b"FEAT", b"EPSV", b"MLSD", b"QUIT"]
    async with await resolvers.resolve(entries["sub"].url, OPTS) as sub:
        assert sub.kind == "listing"


async def test_transcript_shows_the_conversation_with_the_password_masked(
    ftp: RunningServer,
) -> None:
    lines, options = transcript()
    async with await resolvers.resolve(f"ftp://myname:secret@{ftp.netloc}/etc/motd", options) as r:
        await r.read()
    assert "> USER myname" in lines
    assert "> PASS ****" in lines
    assert "< 331 password required" in lines
    assert not any("secret" in line for line in lines)


async def test_password_is_asked_for_when_the_server_wants_one(ftp: RunningServer) -> None:
    prompts: list[tuple[str, bool]] = []

    async def ask(prompt: str, secret: bool = False) -> str:
        prompts.append((prompt, secret))
        return "secret"

    async with await resolvers.resolve(
        f"ftp://myname@{ftp.netloc}/etc/motd", OPTS.with_(ask=ask)
    ) as resource:
        assert await resource.read() == b"message of the day\n"
    assert prompts == [("Password for myname@127.0.0.1: ", True)]
    assert sent(ftp)[1] == b"PASS secret"


async def test_no_password_and_no_way_to_ask_is_auth_error_never_an_empty_pass(
    ftp: RunningServer,
) -> None:
    with pytest.raises(AuthError) as info:
        await resolvers.resolve(f"ftp://myname@{ftp.netloc}/etc/motd", OPTS)
    assert info.value.component == "password"
    assert sent(ftp) == [b"USER myname"]


async def test_wrong_password_is_auth_error(ftp: RunningServer) -> None:
    with pytest.raises(AuthError) as info:
        await resolvers.resolve(f"ftp://myname:wrong@{ftp.netloc}/etc/motd", OPTS)
    assert info.value.component == "password"
    assert "530" in str(info.value)


async def test_unknown_user_is_auth_error_naming_the_user(ftp: RunningServer) -> None:
    with pytest.raises(AuthError) as info:
        await resolvers.resolve(f"ftp://nobody:x@{ftp.netloc}/etc/motd", OPTS)
    assert info.value.component == "user"


async def test_missing_directory_is_not_found_naming_the_segment(ftp: RunningServer) -> None:
    with pytest.raises(NotFound) as info:
        await resolvers.resolve(f"ftp://{ftp.netloc}/pub/nope/x.bin", OPTS)
    assert info.value.component == "cwd[1]"
    assert info.value.code == "550"


async def test_missing_file_is_not_found_naming_the_name(ftp: RunningServer) -> None:
    with pytest.raises(NotFound) as info:
        await resolvers.resolve(f"ftp://{ftp.netloc}/pub/nope.bin", OPTS)
    assert info.value.component == "name"


async def test_server_dying_mid_transfer_is_connection_closed(ftp_root: Path) -> None:
    server = await start_ftp(ftp_root, break_retr_after=1000)
    try:
        async with await resolvers.resolve(f"ftp://{server.netloc}/pub/data.bin", OPTS) as r:
            received = bytearray()
            with pytest.raises(ConnectionClosed):
                async for chunk in r:
                    received += chunk
        assert len(received) == 1000
    finally:
        await server.close()


async def test_server_dying_mid_transfer_is_connection_closed_on_the_bulk_path(
    ftp_root: Path,
) -> None:
    server = await start_ftp(ftp_root, break_retr_after=1000)
    try:
        async with await resolvers.resolve(f"ftp://{server.netloc}/pub/data.bin", OPTS) as r:
            r.views_ok = True
            received = bytearray()
            with pytest.raises(ConnectionClosed):
                async for chunk in r:
                    received += chunk
        assert received == (bytes(range(256)) * 4)[:1000]
    finally:
        await server.close()


async def test_silent_server_times_out(tmp_path: Path) -> None:
    async with await start_recording() as silent:
        with pytest.raises(ResolveTimeout):
            await resolvers.resolve(f"ftp://{silent.netloc}/f.bin", OPTS.with_(read_timeout=0.3))


async def test_a_server_that_is_not_ftp_is_a_protocol_error() -> None:
    async with await start_recording(greeting=b"SSH-2.0-OpenSSH_9.2\r\n") as ssh:
        with pytest.raises(ProtocolError):
            await resolvers.resolve(f"ftp://{ssh.netloc}/f.bin", OPTS)


async def test_scripted_server_that_refuses_epsv_gets_pasv_and_its_address_is_ignored() -> None:
    """PASV is sent only because EPSV was refused; the PASV reply's address is ignored
    (curl CVE-2020-8284): the data connection goes to the control connection's peer."""
    data_server = await start_recording(greeting=b"payload")
    data_port = data_server.port

    def respond(line: bytes) -> bytes | None:
        verb = line.split(b" ", 1)[0]
        answers = {
            b"USER": b"331 pw\r\n",
            b"PASS": b"230 ok\r\n",
            b"TYPE": b"200 ok\r\n",
            b"EPSV": b"500 no EPSV here\r\n",
            # the address says 10.9.8.7: it must not be used
            b"PASV": b"227 Entering Passive Mode (10,9,8,7,%d,%d)\r\n"
            % (data_port >> 8, data_port & 0xFF),
            b"RETR": b"150 here it comes\r\n226 done\r\n",
            b"QUIT": b"221 bye\r\n",
        }
        return answers.get(verb)

    control = await start_recording(greeting=b"220 scripted\r\n", respond=respond)
    try:
        resource = await resolvers.resolve(f"ftp://{control.netloc}/f.bin", OPTS)
        # the data server sends "payload" and then we close it: end of data
        read = asyncio.ensure_future(resource.read())
        await recording_of(data_server).wait_for(lambda r: r.connections == 1)
        await data_server.close()
        assert await asyncio.wait_for(read, 10) == b"payload"
        assert recording_of(control).lines() == [
            b"USER anonymous",
            b"PASS tester@example.org",
            b"TYPE I",
            b"EPSV",
            b"PASV",
            b"RETR f.bin",
            b"QUIT",
        ]
    finally:
        await control.close()
        await data_server.close()


async def test_leaving_early_closes_both_connections(ftp: RunningServer) -> None:
    async with await resolvers.resolve(f"ftp://{ftp.netloc}/pub/data.bin", OPTS) as resource:
        async for _chunk in resource:
            break
    server = ftp.info["server"]
    for _ in range(200):  # the server notices the closed control connection (bounded)
        if not server.connections:
            break
        await asyncio.sleep(0.01)
    assert not server.connections
    assert sent(ftp)[-1] == b"RETR data.bin"  # no QUIT after an abandoned transfer


async def test_cancelling_a_transfer_cleans_up(ftp: RunningServer) -> None:
    await cancel_mid_transfer(f"ftp://{ftp.netloc}/pub/data.bin", OPTS)


async def test_ascii_conversion_holds_a_cr_split_across_chunks() -> None:
    from omniurl.resolvers.ftp.executor import _ascii_to_local

    async def chunks() -> AsyncGenerator[bytes, None]:
        for chunk in (b"one\r", b"\ntwo\r", b"three\r\n\r", b"\n", b"\r"):
            yield chunk

    out = b"".join([c async for c in _ascii_to_local(chunks())])
    assert out == b"one\ntwo\rthree\n\n\r"


# -- §3.2.5: kept control connections, only where provably safe -----------------------------


async def test_kept_connection_is_reused_only_for_the_same_login_and_cwds(
    ftp: RunningServer,
) -> None:
    from omniurl.resolvers.ftp import FTPSessions
    from omniurl.resolvers.options import Shared

    async with FTPSessions() as sessions:
        options = OPTS.with_(shared=Shared(sessions))
        for url in (
            f"ftp://{ftp.netloc}/etc/motd",  # new connection
            f"ftp://{ftp.netloc}/etc/motd;type=a",  # same server, login, CWDs: reused
            f"ftp://{ftp.netloc}/pub/data.bin",  # other CWDs: new connection
            f"ftp://myname:secret@{ftp.netloc}/etc/motd",  # other login: new connection
        ):
            async with await resolvers.resolve(url, options) as resource:
                await resource.read()
        assert sessions.reused == 1
    assert sent(ftp) == [
        b"USER anonymous", b"PASS tester@example.org", b"CWD etc", b"TYPE I", b"EPSV",
        b"RETR motd",
        b"TYPE A", b"EPSV", b"RETR motd",  # reused: no USER, PASS or CWD
        b"USER anonymous", b"PASS tester@example.org", b"CWD pub", b"TYPE I", b"EPSV",
        b"RETR data.bin",
        b"USER myname", b"PASS secret", b"CWD etc", b"TYPE I", b"EPSV", b"RETR motd",
        b"QUIT", b"QUIT", b"QUIT",  # the kept connections, let go
    ]  # fmt: skip


def test_plan_marks_setup_steps_conditional_only_when_connections_are_kept() -> None:
    from omniurl.resolvers.ftp import FTPSessions
    from omniurl.resolvers.options import Shared

    plain = resolvers.plan("ftp://h/a/f.bin", OPTS).to_json()["when"]
    assert plain == [None, "reply 331", None, None, None,
                     "the policy refused the port EPSV named; at most 3 times", "EPSV refused",
                     "the policy refused the port PASV named; at most 3 times", None,
                     "after a complete transfer"]  # fmt: skip
    kept = resolvers.plan("ftp://h/a/f.bin", OPTS.with_(shared=Shared(FTPSessions())))
    assert kept.to_json()["when"][:3] == [
        "a new connection",
        "a new connection; reply 331",
        "a new connection",
    ]


async def test_a_dead_data_port_is_not_blamed_on_the_urls_host() -> None:
    """The EPSV reply names a port where nothing listens: the server's data connection failed,
    not the host the URL names (which answered on the control connection)."""
    gone = await start_recording()
    dead_port = gone.port
    await gone.close()
    answers = {
        b"USER": b"230 in\r\n",
        b"TYPE": b"200 ok\r\n",
        b"EPSV": b"229 Extended Passive Mode (|||%d|)\r\n" % dead_port,
    }
    control = await start_recording(
        greeting=b"220 scripted\r\n", respond=lambda line: answers.get(line.split(b" ", 1)[0])
    )
    try:
        with pytest.raises(resolvers.errors.ConnectError) as info:
            await resolvers.resolve(f"ftp://{control.netloc}/f.bin", OPTS)
        assert info.value.component is None
        assert "data connection" in info.value.message
        assert str(dead_port) in info.value.message
    finally:
        await control.close()


async def test_a_transfer_shorter_than_announced_is_an_error_not_a_file() -> None:
    """The 150 reply announces 1,000,000 bytes, the data connection closes after 7, control
    says 226: a ConnectionClosed naming both sizes, never a truncated "complete" file."""
    data_server = await start_recording(greeting=b"payload")
    data_port = data_server.port

    def respond(line: bytes) -> bytes | None:
        verb = line.split(b" ", 1)[0]
        answers = {
            b"USER": b"331 pw\r\n",
            b"PASS": b"230 ok\r\n",
            b"TYPE": b"200 ok\r\n",
            b"EPSV": b"229 Entering Extended Passive Mode (|||%d|)\r\n" % data_port,
            b"RETR": b"150 Opening BINARY mode data connection (1000000 bytes)\r\n226 done\r\n",
            b"QUIT": b"221 bye\r\n",
        }
        return answers.get(verb)

    control = await start_recording(greeting=b"220 scripted\r\n", respond=respond)
    try:
        resource = await resolvers.resolve(f"ftp://{control.netloc}/f.bin", OPTS)
        read = asyncio.ensure_future(resource.read())
        await recording_of(data_server).wait_for(lambda r: r.connections == 1)
        await data_server.close()
        with pytest.raises(ConnectionClosed) as info:
            await asyncio.wait_for(read, 10)
    finally:
        await control.close()
        await data_server.close()
    assert "closed after 7 bytes; the server announced 1000000" in info.value.message
    assert info.value.component == "name"


@pytest.mark.parametrize("where", ["--netrc-file", "~/.netrc"])
async def test_netrc_login_when_the_url_has_no_user(
    ftp: RunningServer, tmp_path: Path, where: str
) -> None:
    """As HTTP and curl do: a URL without a user logs in with the machine's netrc entry,
    not anonymously; the server records exactly that USER and PASS."""
    from _ftphttp import run_cli

    home = tmp_path / "home"
    home.mkdir()
    netrc = home / ".netrc"
    netrc.write_text("machine 127.0.0.1 login myname password secret\n")
    netrc.chmod(0o600)
    extra = ["--netrc-file", str(netrc)] if where == "--netrc-file" else []
    status, out, err = await run_cli("get", *extra, f"ftp://{ftp.netloc}/etc/motd", cwd=home)
    assert (status, out) == (0, b"message of the day\n"), err
    assert sent(ftp)[:2] == [b"USER myname", b"PASS secret"]


def test_netrc_login_is_planned_for_a_url_without_user() -> None:
    opts = OPTS.with_(credentials={"h": ("joe", "pw")})
    steps = resolvers.plan("ftp://H/f.bin", opts).steps
    assert [steps[0].data, steps[1].data] == [b"USER joe", b"PASS pw"]
    assert steps[1].shown == "PASS ****"
    assert resolvers.plan("ftp://other/f.bin", opts).steps[0].data == b"USER anonymous"
