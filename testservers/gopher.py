"""A Gopher and Gopher+ server for the demo, the tests and the benchmark (loopback, port 0).

It serves a directory the way RFC 1436 describes a Gopher server:

- a directory is a menu (type 1); a ``gophermap`` file in it, where present, is the menu
  instead (lines with TABs are items — host and port filled in when missing —, other lines
  are info lines, ``#`` lines are comments);
- a text file is type 0, sent dot-stuffed with the ending "." line (``resolvers.lines``);
  any other file is binary (type 9, ``g``, ``I`` by extension), sent raw until the close;
- ``/search`` (type 7, in the top menu) searches a simple word index of the text files:
  ``/search TAB words`` is a menu of the files holding every word;
- an unknown selector is a type-3 error line.

And Gopher+ (``selector TAB +...``): every menu item is tagged ``+`` (``?`` for the form);

- ``+`` sends the item with a ``+length`` status line (``+-1`` and a dot-terminated menu for
  directories); ``+<view> <language>`` an alternate view: a file ``NAME.<lang>`` next to
  ``NAME`` (e.g. ``hello.txt.Es_ES``) is the ``<lang>`` view of ``NAME``;
- ``!`` and ``!+ATTR +ATTR`` send the item's attribute blocks (+INFO, +ADMIN, +VIEWS,
  +ABSTRACT from ``NAME.abstract``); ``$`` / ``$+ATTR`` those of every item of a directory;
- ``/form`` is an item with a +ASK form; ``/form TAB + TAB 1`` and a data block of answers
  gets a text that repeats them.

Errors are ``--1`` (not available) with the administrator line and a message.
"""

from __future__ import annotations

import asyncio
import mimetypes
import os
import re
import ssl
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omniurl.resolvers.gopher.menu import format_menu_line
from omniurl.resolvers.lines import dot_stuff, dot_unstuff

from .base import ConnectionTasks, RunningServer, close_quietly, register

ADMIN = "omniurl test server <gopher@localhost>"
#: The +ASK block of the built-in form item (Gopher+ §2.8 field kinds).
FORM_ASK = (
    "Note: A small Gopher+ form.",
    "Ask: Your name?\tanonymous",
    "Choose: Favourite protocol?\tgopher\tftp\thttp",
    "Select: Send me the newsletter:0",
)
_MAX_REQUEST = 8192
_MAX_FORM = 64 * 1024
_REQUEST_TIMEOUT = 10.0
_LANG = re.compile(r"\.([A-Za-z]{2}_[A-Z]{2})$")
_BINARY_TYPES = {".gif": "g", ".png": "I", ".jpg": "I", ".jpeg": "I", ".html": "h"}
_HIDDEN = {"gophermap"}


@dataclass
class Item:
    """What a selector names: a directory, a file, or one of the virtual items."""

    gtype: str
    name: str
    selector: str
    path: Path | None = None
    plus: str = "+"


@dataclass
class GopherServer:
    """The request handler (one instance per running server)."""

    root: Path
    host: str = "127.0.0.1"
    port: int = 0
    #: Every request line received, in order (tests read it).
    requests: list[bytes] = field(default_factory=list)
    _index: dict[str, set[str]] | None = None

    # -- the selector space -----------------------------------------------------------------

    def resolve(self, selector: str) -> Item | None:
        if selector == "/search":
            return Item("7", "Search the text files", "/search")
        if selector == "/form":
            return Item("0", "Fill in a Gopher+ form", "/form", plus="?")
        path = self.path_of(selector)
        if path is None or not path.exists():
            return None
        return self.item_for(path)

    def path_of(self, selector: str) -> Path | None:
        """The file a selector names, never outside the root."""
        rel = selector.strip("/")
        root = self.root.resolve()
        path = (root / rel).resolve() if rel else root
        if not path.is_relative_to(root):
            return None
        return path

    def selector_of(self, path: Path) -> str:
        rel = path.resolve().relative_to(self.root.resolve()).as_posix()
        return "" if rel == "." else "/" + rel

    def item_for(self, path: Path) -> Item:
        sel = self.selector_of(path)
        if path.is_dir():
            return Item("1", path.name or "/", sel, path)
        return Item(self.file_type(path), path.name, sel, path)

    @staticmethod
    def file_type(path: Path) -> str:
        gtype = _BINARY_TYPES.get(path.suffix.lower())
        if gtype is not None:
            return gtype
        with path.open("rb") as fh:
            head = fh.read(4096)
        if b"\x00" in head:
            return "9"
        try:
            head.decode("utf-8")
        except UnicodeDecodeError as exc:
            if exc.start < len(head) - 4:  # not just a character cut at 4096
                return "9"
        return "0"

    @staticmethod
    def hidden(path: Path) -> bool:
        """Dot files, gophermaps, abstracts and language views are not items of their own."""
        name = path.name
        return (
            name.startswith(".")
            or name in _HIDDEN
            or path.suffix in (".abstract", ".ask")
            or _LANG.search(name) is not None
        )

    def children(self, directory: Path) -> list[Item]:
        items = []
        root = self.root.resolve()
        for child in sorted(directory.iterdir()):
            if self.hidden(child):
                continue
            target = child.resolve()
            if not target.exists() or not target.is_relative_to(root):
                continue  # (a link out of the root, or a dangling one: no item, as path_of)
            items.append(self.item_for(child))
        if directory.resolve() == self.root.resolve():
            items += [self.resolve("/search"), self.resolve("/form")]  # type: ignore[list-item]
        return items

    # -- menus --------------------------------------------------------------------------------

    def menu_lines(self, directory: Path, *, plus: bool) -> list[bytes]:
        gophermap = directory / "gophermap"
        if gophermap.is_file():
            return self.gophermap_lines(gophermap, plus=plus)
        return [self.menu_line(item, plus=plus) for item in self.children(directory)]

    def menu_line(self, item: Item, *, plus: bool) -> bytes:
        return format_menu_line(
            item.gtype,
            item.name,
            item.selector.encode("utf-8", "surrogateescape"),
            self.host,
            self.port,
            item.plus if plus else None,
        )

    def gophermap_lines(self, gophermap: Path, *, plus: bool) -> list[bytes]:
        """A gophermap (Bucktooth style): TAB lines are items, the rest info lines."""
        out = []
        for raw in gophermap.read_bytes().splitlines():
            if raw.startswith(b"#"):
                continue
            if b"\t" not in raw:
                out.append(b"i" + raw + b"\t\t" + self.host.encode() + b"\t" + b"%d" % self.port)
                continue
            fields = raw.split(b"\t")
            while len(fields) < 4:
                fields.append(b"")
            display, selector, host, port = fields[:4]
            if not selector:
                selector = display[1:]
            if not selector.startswith(b"/") and b":" not in selector:
                base = self.selector_of(gophermap.parent)
                selector = f"{base}/".encode() + selector
            host = host or self.host.encode()
            port = port or b"%d" % self.port
            line = b"\t".join([display, selector, host, port])
            out.append(line + b"\t+" if plus else line)
        return out

    # -- search -------------------------------------------------------------------------------

    def index(self) -> dict[str, set[str]]:
        """word -> selectors of the text files that hold it (built once)."""
        if self._index is None:
            index: dict[str, set[str]] = {}
            for dirpath, _dirs, files in os.walk(self.root):
                for name in files:
                    path = Path(dirpath) / name
                    if self.hidden(path) or self.file_type(path) != "0":
                        continue
                    words = re.findall(r"\w+", path.read_text("utf-8", "replace").lower())
                    for word in set(words):
                        index.setdefault(word, set()).add(self.selector_of(path))
            self._index = index
        return self._index

    def search(self, words: str) -> list[bytes]:
        terms = re.findall(r"\w+", words.lower())
        if not terms:
            return [error_line("give at least one word to search for", self.host, self.port)]
        index = self.index()
        hits = set.intersection(*(index.get(t, set()) for t in terms))
        lines = [
            self.menu_line(self.item_for(self.path_of(sel)), plus=False)  # type: ignore[arg-type]
            for sel in sorted(hits)
        ]
        if not lines:
            lines.append(info_line(f"no file holds: {words}", self.host, self.port))
        return lines

    # -- Gopher+ attributes -----------------------------------------------------------------

    def attributes(self, item: Item, names: Iterable[str] = ()) -> list[str]:
        """The attribute blocks of an item, +INFO first (Gopher+ §2.4)."""
        wanted = {n.upper() for n in names}
        info = self.menu_line(item, plus=True).decode("utf-8", "surrogateescape")
        blocks: list[tuple[str, list[str]]] = [("+INFO", [info])]
        mtime = item.path.stat().st_mtime if item.path is not None else time.time()
        stamp = time.strftime("%Y%m%d%H%M%S", time.gmtime(mtime))
        blocks.append(("+ADMIN", [f"Admin: {ADMIN}", f"Mod-Date: {time.ctime(mtime)} <{stamp}>"]))
        views = self.views(item)
        if views:
            blocks.append(("+VIEWS", [f"{v}: <{max(1, s // 1024)}k>" for v, (_p, s) in views]))
        if item.path is not None:
            abstract = item.path.with_name(item.path.name + ".abstract")
            if abstract.is_file():
                blocks.append(("+ABSTRACT", abstract.read_text("utf-8", "replace").splitlines()))
        if item.plus == "?":
            blocks.append(("+ASK", list(FORM_ASK)))
        out = []
        for name, lines in blocks:
            if wanted and name != "+INFO" and name not in wanted:
                continue
            if name == "+INFO":
                out.append(f"+INFO: {lines[0]}")
            else:
                out.append(f"{name}:")
                out += [" " + line for line in lines]
        return out

    def views(self, item: Item) -> list[tuple[str, tuple[Path, int]]]:
        """``"type language"`` -> (file, size): the item itself, then ``NAME.<lang>`` files."""
        if item.path is None or item.path.is_dir():
            return []
        media = mimetypes.guess_type(item.path.name)[0] or (
            "text/plain" if item.gtype == "0" else "application/octet-stream"
        )
        out = [(f"{media} En_US", (item.path, item.path.stat().st_size))]
        for sibling in sorted(item.path.parent.glob(item.path.name + ".*")):
            m = _LANG.search(sibling.name)
            if m is not None and sibling.name == f"{item.path.name}.{m[1]}":
                out.append((f"{media} {m[1]}", (sibling, sibling.stat().st_size)))
        return out

    # -- one connection -----------------------------------------------------------------------

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            try:
                raw = await asyncio.wait_for(reader.readuntil(b"\n"), _REQUEST_TIMEOUT)
            except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError):
                return
            line = raw.rstrip(b"\r\n")
            self.requests.append(line)
            await self.answer(line, reader, writer)
            await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            await close_quietly(writer, 2)

    async def answer(
        self, line: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        fields = line.split(b"\t")
        selector = fields[0].decode("utf-8", "surrogateescape")
        rest = [f.decode("utf-8", "surrogateescape") for f in fields[1:]]
        at = next((i for i, r in enumerate(rest) if r[:1] in ("+", "!", "$")), None)
        item = self.resolve(selector)
        if at is None:
            await self.plain(item, selector, rest[0] if rest else None, writer)
            return
        search = rest[0] if at > 0 else None
        data_follows = rest[at + 1 : at + 2] == ["1"]
        await self.gopher_plus(item, selector, search, rest[at], data_follows, reader, writer)

    async def plain(
        self, item: Item | None, selector: str, search: str | None, writer: asyncio.StreamWriter
    ) -> None:
        if item is None:
            writer.write(
                dot_stuff([error_line(f"'{selector}' does not exist", self.host, self.port)])
            )
        elif item.gtype == "7":
            writer.write(dot_stuff(self.search(search or "")))
        elif item.selector == "/form":
            writer.write(dot_stuff([b"This item is a Gopher+ form: ask with TAB ! for it."]))
        elif item.gtype == "1":
            assert item.path is not None
            writer.write(dot_stuff(self.menu_lines(item.path, plus=False)))
        elif item.gtype == "0":
            assert item.path is not None
            await send_text(writer, item.path)
        else:
            assert item.path is not None
            await send_file(writer, item.path)

    async def gopher_plus(
        self,
        item: Item | None,
        selector: str,
        search: str | None,
        plus: str,
        data_follows: bool,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> None:
        if item is None:
            self.gplus_error(writer, 1, f"'{selector}' does not exist")
            return
        kind, names = plus[0], plus[1:].split()
        if kind == "!":
            body = "".join(line + "\r\n" for line in self.attributes(item, names))
            writer.write(b"+-2\r\n" + body.encode("utf-8", "surrogateescape"))
            return
        if kind == "$":
            if item.gtype != "1" or item.path is None:
                self.gplus_error(writer, 1, f"'{selector}' is not a directory")
                return
            out = []
            for child in self.children(item.path):
                out += self.attributes(child, names)
            writer.write(b"+-1\r\n" + dot_stuff(x.encode("utf-8", "surrogateescape") for x in out))
            return
        view = plus[1:].strip()
        if item.selector == "/form":
            await self.form(reader, writer, data_follows)
        elif item.gtype == "7":
            writer.write(b"+-1\r\n" + dot_stuff(self.search(search or "")))
        elif item.gtype == "1":
            assert item.path is not None
            writer.write(b"+-1\r\n" + dot_stuff(self.menu_lines(item.path, plus=True)))
        else:
            views = dict(self.views(item))
            if view and view not in views and " " not in view:
                view = next((v for v in views if v.split()[0] == view), view)
            if view and view not in views:
                self.gplus_error(writer, 1, f"no view {view!r} of '{selector}'")
                return
            path = views[view][0] if view else item.path
            assert path is not None
            size = path.stat().st_size
            writer.write(b"+%d\r\n" % size)
            await send_file(writer, path)

    async def form(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, data_follows: bool
    ) -> None:
        """The built-in +ASK item: read the data block of answers, send them back as text."""
        if not data_follows:
            writer.write(b"+-1\r\n" + dot_stuff([b"Send the form's answers (TAB + TAB 1)."]))
            return
        answers: list[bytes] = []
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\n"), _REQUEST_TIMEOUT)
            if head.rstrip(b"\r\n") != b"+-1":
                self.gplus_error(writer, 1, "the form's data block must be dot-terminated (+-1)")
                return
            total = 0
            while True:
                raw = await asyncio.wait_for(reader.readuntil(b"\n"), _REQUEST_TIMEOUT)
                total += len(raw)
                if total > _MAX_FORM:
                    self.gplus_error(writer, 1, "the form's answers are too long")
                    return
                answer = dot_unstuff(raw.rstrip(b"\r\n"))
                if answer is None:
                    break
                answers.append(answer)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError):
            self.gplus_error(writer, 1, "the form's data block ended early")
            return
        self.requests.extend(answers)
        lines = [b"Thank you. Your answers:"]
        lines += [b"%d: " % i + a for i, a in enumerate(answers, 1)]
        writer.write(b"+-1\r\n" + dot_stuff(lines))

    def gplus_error(self, writer: asyncio.StreamWriter, code: int, message: str) -> None:
        writer.write(b"--%d\r\n" % code + dot_stuff([ADMIN.encode(), message.encode()]))


def error_line(message: str, host: str, port: int) -> bytes:
    return format_menu_line("3", message, b"", "error.host", 1)


def info_line(message: str, host: str, port: int) -> bytes:
    return format_menu_line("i", message, b"", "error.host", 1)


async def send_text(writer: asyncio.StreamWriter, path: Path) -> None:
    """A text file, dot-stuffed by ``resolvers.lines`` (in batches of lines)."""
    with path.open("rb") as fh:
        pending = b""
        while True:
            chunk = fh.read(1 << 20)
            if not chunk:
                break
            data = pending + chunk
            cut = data.rfind(b"\n") + 1
            pending = data[cut:]
            lines = [ln.rstrip(b"\r") for ln in data[:cut].split(b"\n")[:-1]]
            writer.write(dot_stuff(lines)[:-3])  # the "." line goes once, at the end
            await writer.drain()
    writer.write(dot_stuff([pending.rstrip(b"\r")] if pending else []))


async def send_file(writer: asyncio.StreamWriter, path: Path) -> None:
    """A file's bytes as they are (sendfile where the transport allows)."""
    await writer.drain()
    loop = asyncio.get_running_loop()
    with path.open("rb") as fh:
        await loop.sendfile(writer.transport, fh)


@register(
    "gopher",
    "serve a directory as Gopher menus (gophermap-aware), text, binaries, a word-index "
    "search, and Gopher+ attributes, views and an ASK form",
)
async def start(
    root: Path,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    tls: ssl.SSLContext | None = None,
    **kw: Any,
) -> RunningServer:
    """Start the server; ``info["server"]`` is the :class:`GopherServer` (its requests).
    With ``tls`` (a server SSLContext) it speaks Gopher over TLS (``gophers:``)."""
    handler = GopherServer(Path(root), host=host)
    connections = ConnectionTasks()
    server = await asyncio.start_server(
        connections.track(handler.handle), host, port, limit=_MAX_REQUEST, backlog=512, ssl=tls
    )
    handler.port = server.sockets[0].getsockname()[1]

    async def close() -> None:
        await connections.close(server)

    return RunningServer("gopher", host, handler.port, close, info={"server": handler})


__all__ = ["FORM_ASK", "GopherServer", "start"]
