"""A small NNTP server (RFC 3977 reader commands) for the demo and the tests.

It serves newsgroups of numbered articles with message-ids, answers ``CAPABILITIES``, ``MODE
READER``, ``GROUP``, ``LISTGROUP``, ``ARTICLE``/``HEAD``/``BODY``/``STAT``, ``OVER``/``XOVER``,
``LIST ACTIVE``/``NEWSGROUPS``/``OVERVIEW.FMT``, ``DATE``, ``HELP`` and ``QUIT``, and can behave
like the servers a client meets in the wild, by keyword::

    credentials=("user", "pass")   every reader command answers 480 until AUTHINFO USER/PASS
    mode_switching=True            a transit server: lists MODE-READER, not READER, and answers
                                   reader commands 502 until MODE READER
    rfc977=True                    no CAPABILITIES, OVER, LIST ACTIVE or LISTGROUP ranges (500)
    over=False                     OVER answers 500 (XOVER still works)
    xover=False                    XOVER answers 500 too (LISTGROUP is left)
    tls=CONTEXT                    STARTTLS offered and honoured (RFC 4642)
    tls=CONTEXT, implicit_tls=True TLS from the first byte (snews, RFC 5538)

Every command line received is recorded in ``RunningServer.info["log"]`` (bytes, without the
line end), so tests assert the exact bytes a client sent.  Dot-stuffing comes from
``resolvers.lines``, the same code the client uses.  Lines are bounded (RFC 3977 §3.1: 512
octets; we allow 2048) and idle clients are dropped after ``idle_timeout`` seconds.
"""

from __future__ import annotations

import asyncio
import re
import ssl
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omniurl.resolvers.lines import dot_stuff
from omniurl.resolvers.nntp.grammar import wildmat_matches

from .base import ConnectionTasks, RunningServer, close_quietly, register

MAX_COMMAND = 2048


@dataclass
class Article:
    """One article: its number in the group, its message-id (with ``<>``), headers, body."""

    number: int
    message_id: str
    headers: list[tuple[str, str]]
    body: list[bytes]

    def header(self, name: str) -> str:
        for key, value in self.headers:
            if key.lower() == name.lower():
                return value
        return ""

    def head_lines(self) -> list[bytes]:
        return [f"{k}: {v}".encode() for k, v in self.headers]

    def lines(self) -> list[bytes]:
        return [*self.head_lines(), b"", *self.body]

    def overview(self) -> bytes:
        """RFC 3977 §8.3: number, Subject, From, Date, Message-ID, References, :bytes, :lines."""
        size = sum(len(line) + 2 for line in self.lines())
        fields = [
            str(self.number),
            self.header("Subject"),
            self.header("From"),
            self.header("Date"),
            self.message_id,
            self.header("References"),
            str(size),
            str(len(self.body)),
        ]
        return "\t".join(f.replace("\t", " ") for f in fields).encode()


@dataclass
class Newsgroup:
    name: str
    articles: dict[int, Article] = field(default_factory=dict)
    status: str = "y"
    description: str = ""

    @property
    def low(self) -> int:
        return min(self.articles, default=1)

    @property
    def high(self) -> int:
        return max(self.articles, default=0)


def make_article(
    group: str, number: int, message_id: str, subject: str, body: str, **headers: str
) -> Article:
    head = [
        ("Path", "omniurl!not-for-mail"),
        ("From", headers.pop("from_", "omniurl test server <news@omniurl.test>")),
        ("Newsgroups", group),
        ("Subject", subject),
        ("Date", headers.pop("date", "Sun, 22 Nov 2026 00:00:00 +0000")),
        ("Message-ID", message_id),
        *headers.items(),
    ]
    return Article(number, message_id, head, body.encode().split(b"\n"))


def sample_groups() -> dict[str, Newsgroup]:
    """The groups every test and the demo can rely on."""
    test = Newsgroup("omniurl.test", description="omniurl's test group")
    for article in (
        make_article(
            "omniurl.test",
            1,
            "<welcome@omniurl.test>",
            "Welcome to omniurl.test",
            "This group is served by omniurl's own NNTP test server.\nRead on!",
        ),
        make_article(
            "omniurl.test",
            2,
            "<dots@omniurl.test>",
            "Dot-stuffing",
            "Lines that start with a dot:\n.\n.hidden\n..two dots\nthe end",
            References="<welcome@omniurl.test>",
        ),
        make_article(
            "omniurl.test",
            3,
            "<utf8@omniurl.test>",
            "=?UTF-8?Q?Gr=C3=BC=C3=9Fe?= from the test server",
            "Grüße, 世界!",
            **{"Content-Type": "text/plain; charset=UTF-8"},
        ),
    ):
        test.articles[article.number] = article
    announce = Newsgroup("omniurl.announce", status="m", description="announcements")
    announce.articles[10] = make_article(
        "omniurl.announce",
        10,
        "<v0.1@omniurl.test>",
        "omniurl 0.1 released",
        "Articles 1-9 have expired; the low water mark is 10.",
    )
    empty = Newsgroup("omniurl.empty", description="a group with no articles")
    return {g.name: g for g in (test, announce, empty)}


def groups_from_tree(root: Path) -> dict[str, Newsgroup]:
    """``root/news/<group>/<n>`` files (each a whole article, headers then body) as groups;
    what ``omniurl serve nntp --root DIR`` serves besides the sample groups."""
    groups: dict[str, Newsgroup] = {}
    spool = root / "news"
    if not spool.is_dir():
        return groups
    for folder in sorted(p for p in spool.iterdir() if p.is_dir()):
        group = Newsgroup(folder.name)
        for file in sorted(p for p in folder.iterdir() if p.name.isdigit()):
            raw = file.read_bytes().replace(b"\r\n", b"\n").rstrip(b"\n").split(b"\n")
            split = raw.index(b"") if b"" in raw else len(raw)
            headers = []
            for line in raw[:split]:
                key, _, value = line.decode("utf-8", "replace").partition(":")
                headers.append((key.strip(), value.strip()))
            mid = next((v for k, v in headers if k.lower() == "message-id"), "")
            mid = mid or f"<{folder.name}.{file.name}@omniurl.test>"
            group.articles[int(file.name)] = Article(int(file.name), mid, headers, raw[split + 1 :])
        groups[group.name] = group
    return groups


@dataclass
class Behaviour:
    credentials: tuple[str, str] | None = None
    #: A server SSLContext: with ``implicit_tls``, TLS from the first byte (snews, port
    #: 563 style); otherwise offered by STARTTLS (RFC 4642).
    tls: ssl.SSLContext | None = None
    implicit_tls: bool = False
    mode_switching: bool = False
    rfc977: bool = False
    over: bool = True
    xover: bool = True
    posting: bool = False
    idle_timeout: float = 30.0


_RANGE = re.compile(r"(?P<first>[0-9]{1,10})(?P<dash>-(?P<last>[0-9]{1,10})?)?")


class _Connection:
    """One client's session state and the command handlers."""

    def __init__(
        self,
        groups: dict[str, Newsgroup],
        behaviour: Behaviour,
        writer: asyncio.StreamWriter,
        log: list[bytes],
    ) -> None:
        self.groups = groups
        self.b = behaviour
        self.writer = writer
        self.log = log
        self.authenticated = behaviour.credentials is None
        self.pending_user: str | None = None
        self.reader_mode = not behaviour.mode_switching
        self.group: Newsgroup | None = None
        self.current: int | None = None
        #: TLS is on (implicit, or after STARTTLS); a STARTTLS answered 382 awaits it.
        self.secure = behaviour.implicit_tls
        self.upgrade_pending = False

    def send(self, status: str, block: list[bytes] | None = None) -> None:
        self.writer.write(status.encode("utf-8", "surrogateescape") + b"\r\n")
        if block is not None:
            self.writer.write(dot_stuff(block))

    # -- dispatch ------------------------------------------------------------------------

    def handle(self, line: bytes) -> bool:
        """Answer one command line; ``False`` ends the session."""
        words = line.decode("utf-8", "surrogateescape").split()
        if not words:
            self.send("501 empty command")
            return True
        verb, args = words[0].upper(), words[1:]
        if verb == "QUIT":
            self.send("205 closing connection")
            return False
        if verb == "AUTHINFO":
            self.authinfo(args)
            return True
        if verb == "STARTTLS":
            if self.b.tls is None or self.secure:
                self.send("502 STARTTLS not available")
            else:
                self.send("382 continue with TLS negotiation")
                self.upgrade_pending = True
            return True
        if verb == "MODE" and args[:1] and args[0].upper() == "READER":
            self.reader_mode = True
            self.send("201 reader mode, posting prohibited")
            return True
        handler = _COMMANDS.get(verb)
        if handler is None or (self.b.rfc977 and verb in _RFC3977_ONLY):
            self.send("500 unknown command")
            return True
        if verb not in ("CAPABILITIES", "HELP", "DATE"):
            if not self.authenticated:
                self.send("480 authentication required")
                return True
            if not self.reader_mode:
                self.send("502 transit service only; send MODE READER")
                return True
        handler(self, args)
        return True

    def authinfo(self, args: list[str]) -> None:
        if len(args) < 2 or args[0].upper() not in ("USER", "PASS"):
            self.send("501 AUTHINFO USER name | AUTHINFO PASS password")
            return
        if self.b.credentials is None or self.authenticated:
            self.send("502 no authentication needed")
            return
        if args[0].upper() == "USER":
            self.pending_user = " ".join(args[1:])
            self.send("381 password required")
            return
        if self.pending_user is None:
            self.send("482 AUTHINFO USER first")
            return
        if (self.pending_user, " ".join(args[1:])) == self.b.credentials:
            self.authenticated = True
            self.send("281 authentication accepted")
        else:
            self.pending_user = None
            self.send("481 authentication failed")

    # -- commands ------------------------------------------------------------------------

    def capabilities(self, args: list[str]) -> None:
        caps = [b"VERSION 2", b"IMPLEMENTATION omniurl-testserver"]
        caps.append(b"READER" if self.reader_mode else b"MODE-READER")
        if self.reader_mode:
            caps += [b"LIST ACTIVE NEWSGROUPS OVERVIEW.FMT", b"HDR"]
            if self.b.over:
                caps.append(b"OVER")
        if not self.authenticated:
            caps.append(b"AUTHINFO USER")
        if self.b.tls is not None and not self.secure:
            caps.append(b"STARTTLS")
        self.send("101 capability list follows", caps)

    def cmd_group(self, args: list[str]) -> None:
        if len(args) != 1:
            self.send("501 GROUP newsgroup")
            return
        group = self._select(args[0])
        if group is None:
            return
        count = len(group.articles)
        self.send(f"211 {count} {group.low} {group.high} {group.name}")

    def _select(self, name: str) -> Newsgroup | None:
        """Make ``name`` the current group, its first article the current one (RFC 3977
        §6.1.1, §6.1.2); answer 411 and keep the selection when there is no such group."""
        group = self.groups.get(name)
        if group is None:
            self.send("411 no such newsgroup")
            return None
        self.group = group
        self.current = group.low if group.articles else None
        return group

    def listgroup(self, args: list[str]) -> None:
        if args and self._select(args[0]) is None:
            return
        if self.group is None:
            self.send("412 no newsgroup selected")
            return
        numbers = sorted(self.group.articles)
        if len(args) > 1:
            if self.b.rfc977:
                self.send("501 LISTGROUP takes no range here")
                return
            span = self._range(args[1])
            if span is None:
                self.send("501 bad range")
                return
            numbers = [n for n in numbers if span[0] <= n <= span[1]]
        g = self.group
        self.send(
            f"211 {len(g.articles)} {g.low} {g.high} {g.name} list follows",
            [str(n).encode() for n in numbers],
        )

    def article(self, verb: str, args: list[str]) -> None:
        found = self._find(args)
        if found is None:
            return
        art, number = found
        code, block = {
            "ARTICLE": (220, art.lines()),
            "HEAD": (221, art.head_lines()),
            "BODY": (222, art.body),
            "STAT": (223, None),
        }[verb]
        self.send(f"{code} {number} {art.message_id}", block)

    def overview(self, verb: str, args: list[str]) -> None:
        if (verb == "OVER" and not self.b.over) or (verb == "XOVER" and not self.b.xover):
            self.send("500 unknown command")
            return
        if args and args[0].startswith("<"):
            found = self._find(args[:1])
            if found is not None:
                self.send("224 overview follows", [found[0].overview()])
            return
        if self.group is None:
            self.send("412 no newsgroup selected")
            return
        if args:
            span = self._range(args[0])
            if span is None:
                self.send("501 bad range")
                return
        elif self.current is None:
            self.send("420 no current article")
            return
        else:
            span = (self.current, self.current)
        arts = [a for n, a in sorted(self.group.articles.items()) if span[0] <= n <= span[1]]
        if not arts:
            self.send("423 no articles in that range")
            return
        self.send("224 overview information follows", [a.overview() for a in arts])

    def cmd_list(self, args: list[str]) -> None:
        keyword = args[0].upper() if args else "ACTIVE"
        if self.b.rfc977 and args:
            self.send("501 LIST takes no arguments here")
            return
        pattern = args[1] if len(args) > 1 else "*"
        groups = [
            g for g in self.groups.values() if wildmat_matches(pattern.encode(), g.name.encode())
        ]
        if keyword == "ACTIVE":
            lines = [f"{g.name} {g.high} {g.low} {g.status}".encode() for g in groups]
            self.send("215 list of newsgroups follows", lines)
        elif keyword == "NEWSGROUPS":
            lines = [f"{g.name}\t{g.description}".encode() for g in groups]
            self.send("215 descriptions follow", lines)
        elif keyword == "OVERVIEW.FMT":
            fmt = [b"Subject:", b"From:", b"Date:", b"Message-ID:", b"References:"]
            self.send("215 order of fields follows", [*fmt, b":bytes", b":lines"])
        else:
            self.send("501 unknown LIST keyword")

    def date(self, args: list[str]) -> None:
        self.send("111 " + time.strftime("%Y%m%d%H%M%S", time.gmtime()))

    def help(self, args: list[str]) -> None:
        self.send("100 help text follows", [b"This is omniurl's NNTP test server."])

    # -- helpers -------------------------------------------------------------------------

    def _find(self, args: list[str]) -> tuple[Article, int] | None:
        """RFC 3977 §6.2.1: by message-id (430), by number (412, 423), or current (420)."""
        if args and args[0].startswith("<"):
            for group in self.groups.values():
                for number, art in group.articles.items():
                    if art.message_id == args[0]:
                        return art, (number if group is self.group else 0)
            self.send("430 no article with that message-id")
            return None
        if self.group is None:
            self.send("412 no newsgroup selected")
            return None
        if args:
            if not args[0].isdigit():
                self.send("501 bad article number")
                return None
            number = int(args[0])
            if number not in self.group.articles:
                self.send("423 no article with that number")
                return None
            self.current = number
            return self.group.articles[number], number
        if self.current is None:
            self.send("420 no current article")
            return None
        return self.group.articles[self.current], self.current

    @staticmethod
    def _range(text: str) -> tuple[int, int] | None:
        match = _RANGE.fullmatch(text)
        if match is None:
            return None
        first = int(match["first"])
        if not match["dash"]:
            return first, first
        return first, int(match["last"]) if match["last"] else 2**31 - 1


_COMMANDS: dict[str, Any] = {
    "CAPABILITIES": _Connection.capabilities,
    "GROUP": _Connection.cmd_group,
    "LISTGROUP": _Connection.listgroup,
    "ARTICLE": lambda c, a: c.article("ARTICLE", a),
    "HEAD": lambda c, a: c.article("HEAD", a),
    "BODY": lambda c, a: c.article("BODY", a),
    "STAT": lambda c, a: c.article("STAT", a),
    "OVER": lambda c, a: c.overview("OVER", a),
    "XOVER": lambda c, a: c.overview("XOVER", a),
    "LIST": _Connection.cmd_list,
    "DATE": _Connection.date,
    "HELP": _Connection.help,
}
#: What an RFC 977 server does not know (``rfc977=True``).
_RFC3977_ONLY = frozenset({"CAPABILITIES", "OVER", "DATE"})


@register("nntp", "serve newsgroups of articles over NNTP (sample groups + ROOT/news/GROUP/N)")
async def start(
    root: Path,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    groups: dict[str, Newsgroup] | None = None,
    **behaviour: Any,
) -> RunningServer:
    """Start the server; ``groups`` replaces the sample groups, ``behaviour`` keywords are
    listed in the module's docstring."""
    served = groups if groups is not None else {**sample_groups(), **groups_from_tree(root)}
    b = Behaviour(**behaviour)
    log: list[bytes] = []
    connections = ConnectionTasks()
    info: dict[str, Any] = {"log": log, "connections": 0, "groups": served}

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        info["connections"] += 1
        conn = _Connection(served, b, writer, log)
        try:
            ready = "200 posting allowed" if b.posting else "201 posting prohibited"
            writer.write(f"{ready} (omniurl NNTP test server)\r\n".encode())
            while True:
                try:
                    raw = await asyncio.wait_for(reader.readuntil(b"\n"), b.idle_timeout)
                except asyncio.LimitOverrunError:
                    writer.write(b"501 command line too long\r\n")
                    break
                except (asyncio.IncompleteReadError, TimeoutError):
                    break
                line = raw.rstrip(b"\r\n")
                log.append(line)
                if not conn.handle(line):
                    break
                await writer.drain()
                if conn.upgrade_pending and b.tls is not None:
                    conn.upgrade_pending = False
                    await writer.start_tls(b.tls)
                    conn.secure = True
                    log.append(b"<TLS started>")
            await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            await close_quietly(writer, 2)

    server = await asyncio.start_server(
        connections.track(serve),
        host,
        port,
        limit=MAX_COMMAND,
        ssl=b.tls if b.implicit_tls else None,
    )
    bound = server.sockets[0].getsockname()

    async def close() -> None:
        await connections.close(server)

    return RunningServer("nntp", str(bound[0]), int(bound[1]), close, info=info)
