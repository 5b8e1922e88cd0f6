"""Interop: omniurl's client against INN (inn2, a real news server started unprivileged on a
loopback port), and lynx (a real news client) against omniurl's server.

INN's steps follow docs/dependencies.md: a private copy of /etc/news with every
path in a scratch folder, db/active and db/newsgroups written by hand, ``makedbz -i -o``,
``innd -f`` as user news, articles posted over NNTP, ``ctlinnd shutdown`` at the end.  The
tests skip with a reason where inn2 or lynx is absent or the test cannot become user news.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import re
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio
from _gateway import curl, lynx_dump, running_gateway
from helpers import free_port

from omniurl import testservers
from omniurl.resolvers import Options, resolve
from omniurl.resolvers.errors import AuthError, NotFound
from omniurl.resolvers.nntp.settings import NNTPOptions

pytestmark = pytest.mark.interop

INN_BIN = Path("/usr/lib/news/bin")
INN_GROUP = "omniurl.interop"

#: Articles posted to INN: (message-id, subject, body lines).
POSTED = [
    ("<first@omniurl.test>", "First interop article", [b"Hello INN.", b".dotted line"]),
    ("<second@omniurl.test>", "Second: a lone dot", [b"above", b".", b"below"]),
]


@dataclass
class Inn:
    port: int
    folder: Path
    env: dict[str, str]

    @property
    def netloc(self) -> str:
        return f"127.0.0.1:{self.port}"


def _inn_conf(source: str, folder: Path, port: int) -> str:
    """/etc/news/inn.conf with every path in ``folder``, loopback only, on ``port``."""
    settings = {
        "pathdb": folder / "db",
        "pathetc": folder / "etc",
        "pathrun": folder / "run",
        "pathlog": folder / "log",
        "pathspool": folder / "spool",
        "patharticles": folder / "spool/articles",
        "pathoverview": folder / "spool/overview",
        "pathincoming": folder / "spool/incoming",
        "pathtmp": folder / "spool/incoming/tmp",
        "pathoutgoing": folder / "spool/outgoing",
        "patharchive": folder / "spool/archive",
        "pathhttp": folder / "http",
        "port": port,
        "nnrpdpostport": port,
        "server": "127.0.0.1",
        "bindaddress": "127.0.0.1",
        "pathhost": "omniurl.test",
        "domain": "omniurl.test",
        "doinnwatch": "false",
        "pgpverify": "false",
        "htmlstatus": "false",
        "mta": '"/bin/true %s"',
    }
    kept = [
        line
        for line in source.splitlines()
        if not ((m := re.match(r"#?\s*([a-z0-9]+):", line)) and m.group(1) in settings)
    ]
    return "\n".join([*kept, *(f"{k}: {v}" for k, v in settings.items())]) + "\n"


def _converse(port: int, lines: list[bytes], *, expect: list[str]) -> None:
    """Send ``lines`` one at a time and check each reply starts with the expected code."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        f = sock.makefile("rwb")
        greeting = f.readline()
        assert greeting[:1] == b"2", greeting
        for line, code in zip(lines, expect, strict=True):
            f.write(line)
            f.flush()
            reply = f.readline()
            assert reply.startswith(code.encode()), (line[:40], reply)
            if code == "101":
                while f.readline() not in (b".\r\n", b""):
                    pass


def _post_articles(port: int) -> None:
    for message_id, subject, body in POSTED:
        article = (
            f"From: omniurl tests <tests@omniurl.test>\r\nNewsgroups: {INN_GROUP}\r\n"
            f"Subject: {subject}\r\nMessage-ID: {message_id}\r\n\r\n"
        ).encode()
        article += b"".join(
            (b"." + line if line.startswith(b".") else line) + b"\r\n" for line in body
        )
        _converse(
            port,
            [b"MODE READER\r\n", b"POST\r\n", article + b".\r\n", b"QUIT\r\n"],
            expect=["20", "340", "240", "205"],
        )


def _wait_for_port(port: int, proc: subprocess.Popen[bytes], deadline: float) -> None:
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"innd exited with status {proc.returncode}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
            return
        time.sleep(0.1)
    raise RuntimeError("innd did not listen within 15 s")


@pytest.fixture(scope="module")
def inn() -> Iterator[Inn]:
    if not (INN_BIN / "innd").exists():
        pytest.skip("inn2 not installed (apt-get install inn2)")
    try:
        news = pwd.getpwnam("news")
    except KeyError:
        pytest.skip("no user news to run innd as")
    if os.geteuid() != 0:
        pytest.skip("innd must run as user news: starting it needs root")
    folder = Path(tempfile.mkdtemp(prefix="omniurl-inn-"))
    folder.chmod(0o755)
    port = free_port()
    for sub in ("db", "run", "log", "http", *(f"spool/{s}" for s in ("articles", "overview",
                "incoming/tmp", "outgoing", "archive"))):  # fmt: skip
        (folder / sub).mkdir(parents=True, exist_ok=True)
    shutil.copytree("/etc/news", folder / "etc")
    conf = folder / "etc" / "inn.conf"
    conf.write_text(_inn_conf(conf.read_text(), folder, port))
    (folder / "db" / "active").write_text(
        "control 0000000000 0000000001 n\ncontrol.cancel 0000000000 0000000001 n\n"
        f"junk 0000000000 0000000001 n\n{INN_GROUP} 0000000000 0000000001 y\n"
    )
    (folder / "db" / "newsgroups").write_text(f"{INN_GROUP}\tomniurl interop tests\n")
    (folder / "db" / "history").touch()
    for path in [folder, *folder.rglob("*")]:
        os.chown(path, news.pw_uid, news.pw_gid)
    env = {"INNCONF": str(conf), "PATH": "/usr/bin:/bin", "HOME": str(folder)}
    as_news = {"user": news.pw_uid, "group": news.pw_gid, "extra_groups": [], "env": env}
    subprocess.run(
        [str(INN_BIN / "makedbz"), "-i", "-o"],
        cwd=folder / "db",
        check=True,
        timeout=15,
        capture_output=True,
        **as_news,  # type: ignore[arg-type]
    )
    log = (folder / "innd.out").open("wb")
    proc = subprocess.Popen(
        [str(INN_BIN / "innd"), "-f"],
        cwd=folder,
        stdout=log,
        stderr=subprocess.STDOUT,
        **as_news,  # type: ignore[arg-type]
    )
    try:
        _wait_for_port(port, proc, time.monotonic() + 15)
        _post_articles(port)
        yield Inn(port, folder, env)
    finally:
        with contextlib.suppress(subprocess.SubprocessError, OSError):
            subprocess.run(
                [str(INN_BIN / "ctlinnd"), "-t", "5", "shutdown", "omniurl tests done"],
                timeout=10,
                capture_output=True,
                **as_news,  # type: ignore[arg-type]
            )
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
        log.close()
        shutil.rmtree(folder, ignore_errors=True)


def inn_options(inn: Inn, transcript: list[str] | None = None, **kw: object) -> Options:
    note = (lambda d, t: transcript.append(f"{d} {t}")) if transcript is not None else None
    return Options(
        schemes=(NNTPOptions(server=inn.netloc),),
        transcript=note,
        read_timeout=10,
        connect_timeout=5,
        **kw,  # type: ignore[arg-type]
    )


async def test_inn_article_by_message_id(inn: Inn) -> None:
    transcript: list[str] = []
    async with await resolve("news:first@omniurl.test", inn_options(inn, transcript)) as res:
        article = await res.read()
    head, _, body = article.partition(b"\r\n\r\n")
    assert b"Message-ID: <first@omniurl.test>" in head.split(b"\r\n")
    assert body == b"Hello INN.\r\n.dotted line\r\n"  # INN stuffed it; we unstuffed it
    # INN greets 127.0.0.1 as a feeding peer (transit mode, MODE-READER): MODE READER is due.
    sent = [t[2:] for t in transcript if t.startswith(">")]
    assert sent == ["CAPABILITIES", "MODE READER", "ARTICLE <first@omniurl.test>", "QUIT"]
    assert any(t.startswith("< 200 ") and "NNRP" in t for t in transcript)


async def test_inn_group_listing(inn: Inn) -> None:
    async with await resolve(f"news:{INN_GROUP}", inn_options(inn)) as res:
        entries = res.entries
    assert [(e.name, e.url) for e in entries] == [
        ("First interop article", f"nntp://{inn.netloc}/{INN_GROUP}/1"),
        ("Second: a lone dot", f"nntp://{inn.netloc}/{INN_GROUP}/2"),
    ]
    assert entries[1].info["message_id"] == "<second@omniurl.test>"
    assert entries[1].info["news_url"] == "news:second@omniurl.test"


async def test_inn_article_by_number_with_a_lone_dot(inn: Inn) -> None:
    async with await resolve(f"nntp://{inn.netloc}/{INN_GROUP}/2", Options()) as res:
        body = (await res.read()).partition(b"\r\n\r\n")[2]
    assert body == b"above\r\n.\r\nbelow\r\n"


async def test_inn_list_active(inn: Inn) -> None:
    async with await resolve("news:*", inn_options(inn)) as res:
        groups = {e.name: e for e in res.entries}
    assert groups[INN_GROUP].url == f"news:{INN_GROUP}"
    assert groups[INN_GROUP].info == {"high": 2, "low": 1, "status": "y"}


@pytest.mark.parametrize(
    ("url", "component", "code"),
    [
        ("news:no.such.group", "newsgroup", 411),
        ("news:nothere@omniurl.test", "message_id", 430),
        ("nntp://{netloc}/omniurl.interop/999", "article", 423),
    ],
)
async def test_inn_not_found(inn: Inn, url: str, component: str, code: int) -> None:
    with pytest.raises(NotFound) as info:
        await resolve(url.format(netloc=inn.netloc), inn_options(inn))
    assert (info.value.component, info.value.code) == (component, code)


#: readers.conf for the AUTHINFO test: no default identity, so nnrpd answers 480 until the
#: client authenticates (readers.conf(5), "Here's a similar example ... requires the user to
#: specify a username and password"); ckpasswd checks a file of crypt(3) hashes.
READERS_AUTH = """\
auth "omniurl" {
    hosts: "localhost, 127.0.0.1, ::1"
    auth: "ckpasswd -f %s"
}
access "omniurl" {
    users: "fred"
    newsgroups: "*"
    access: RP
}
"""
#: ``openssl passwd -6 -salt omniurl 'open sesame'``
NEWSUSERS = (
    "fred:$6$omniurl$4KZHMji2BoLwpWJJ03FYXel8pTjKHq6tWCwvX2DmYseqTMINxi2qlionViTs3xXNNZhbQrK54V"
    ".F6x2K/dJ67.\n"
)


@contextlib.contextmanager
def _readers_conf_requiring_auth(inn: Inn) -> Iterator[None]:
    """nnrpd reads readers.conf for each connection: swap it in, put the original back."""
    readers = inn.folder / "etc" / "readers.conf"
    users = inn.folder / "db" / "newsusers"
    original = readers.read_bytes()
    users.write_text(NEWSUSERS)
    readers.write_text(READERS_AUTH % users)
    try:
        yield
    finally:
        readers.write_bytes(original)


async def test_inn_authinfo_after_480(inn: Inn) -> None:
    transcript: list[str] = []
    options = inn_options(inn, transcript, credentials={"127.0.0.1": ("fred", "open sesame")})
    with _readers_conf_requiring_auth(inn):
        async with await resolve(f"news:{INN_GROUP}", options) as res:
            assert [e.info["number"] for e in res.entries] == [1, 2]
        with pytest.raises(AuthError, match="481"):
            await resolve(
                f"news:{INN_GROUP}",
                inn_options(inn, credentials={"127.0.0.1": ("fred", "wrong")}),
            )
        with pytest.raises(AuthError, match="no credentials"):
            await resolve(f"news:{INN_GROUP}", inn_options(inn))
    sent = [t[2:] for t in transcript if t.startswith(">")]
    refused = sent.index("AUTHINFO USER fred") - 1
    assert sent[refused + 1 : refused + 4] == [
        "AUTHINFO USER fred",
        "AUTHINFO PASS ****",
        sent[refused],  # the command INN answered 480 is sent again
    ]
    assert any(t.startswith("< 480") for t in transcript)
    assert any(t.startswith("< 281") for t in transcript)


# -- lynx, a real client, reads omniurl's server ---------------------------------------------


@pytest_asyncio.fixture
async def our_server(tmp_path: Path) -> AsyncIterator[testservers.RunningServer]:
    srv = await testservers.start("nntp", tmp_path)
    yield srv
    await srv.close()


async def _lynx_dump(url: str, server: str) -> str:
    import asyncio

    if shutil.which("lynx") is None:
        pytest.skip("lynx not installed (apt-get install lynx)")
    env = {**os.environ, "NNTPSERVER": server, "HOME": tempfile.gettempdir(), "TERM": "dumb"}
    proc = await asyncio.create_subprocess_exec(
        "lynx", "-dump", "-nolist", url, env=env, stdout=asyncio.subprocess.PIPE
    )
    out, _ = await asyncio.wait_for(proc.communicate(), 20)
    return out.decode("utf-8", "replace")


async def test_lynx_reads_an_article_from_our_server(
    our_server: testservers.RunningServer,
) -> None:
    text = await _lynx_dump(f"nntp://{our_server.netloc}/omniurl.test/2", our_server.netloc)
    assert "Dot-stuffing" in text
    assert text.split("Lines that start with a dot:\n", 1)[1].splitlines()[:4] == [
        ".",
        ".hidden",
        "..two dots",
        "the end",
    ]
    # lynx says "mode reader" in lower case (RFC 3977 §3.1: commands are case-insensitive).
    assert our_server.info["log"][-2:] == [b"GROUP omniurl.test", b"ARTICLE 2"]


async def test_lynx_lists_a_group_from_our_server(our_server: testservers.RunningServer) -> None:
    text = await _lynx_dump("news:omniurl.test", our_server.netloc)
    assert "omniurl.test, Articles 1-3" in text
    assert '"Welcome to omniurl.test"' in text and '"Dot-stuffing"' in text


async def test_inn_group_through_an_rfc5538_news_url(inn: Inn) -> None:
    """RFC 5538: ``news://server/group`` names INN itself; no --nntp-server is needed, and a
    configured one loses to the URL's."""
    url = f"news://{inn.netloc}/{INN_GROUP}"
    configured = Options(read_timeout=10, schemes=(NNTPOptions(server="127.0.0.1:1"),))
    for options in (Options(read_timeout=10), configured):
        async with await resolve(url, options) as res:
            assert [e.name for e in res.entries] == ["First interop article", "Second: a lone dot"]


async def test_inn_wildmat_through_list_active(inn: Inn) -> None:
    async with await resolve(f"news://{inn.netloc}/omniurl.*,!control*", Options()) as res:
        names = [e.name for e in res.entries]
    assert INN_GROUP in names and all(n.startswith("omniurl.") for n in names)
    assert res.entries[0].url.startswith(f"news://{inn.netloc}/omniurl.")


async def test_inn_through_the_gateway(inn: Inn) -> None:
    """Issue 13: INN's group and article through ``serve gateway``, read by lynx (news_proxy,
    nntp_proxy) and curl."""
    async with running_gateway(inn.port) as gateway:
        group = await lynx_dump(
            f"news://{inn.netloc}/{INN_GROUP}", {"news_proxy": f"http://{gateway}/"}
        )
        article = await lynx_dump(
            f"nntp://{inn.netloc}/{INN_GROUP}/2", {"nntp_proxy": f"http://{gateway}/"}
        )
        _status, page = await curl(f"http://{gateway}/news://{inn.netloc}/%3Cfirst@omniurl.test%3E")
    assert "[ART]" in group and "First interop article" in group and "Second: a lone dot" in group
    assert f"nntp://{inn.netloc}/{INN_GROUP}/2" in group  # the article's own URL
    assert "Subject   Second: a lone dot" in article
    assert article.split("Message-Id <second@omniurl.test>\n", 1)[1].startswith("\nabove\n.\nbelow")
    html = page.decode().replace("\r\n", "\n")
    assert "<th>Subject</th><td>First interop article</td>" in html
    assert "<pre>Hello INN.\n.dotted line\n</pre>" in html  # un-dot-stuffed
