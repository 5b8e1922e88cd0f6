"""The mirror's decisions, pure (no I/O): which links are followed, the local name of a
remote name, whether a file is fetched again.  :mod:`omniurl.mirror.run` carries them out.

Safety is decided here, once, for every scheme:

- a link is followed only to the *same server* — the same scheme family (one spec: ``ftp``
  and ``ftps``, ``gopher`` and ``gophers``), host and port as the starting URL — and only
  *below* the starting path, segment by segment (``/pub`` does not contain ``/pub2``); a
  Gopher menu line naming port 6379 is never followed, so nothing is sent there;
- each remote segment becomes one local name (:func:`local_name`): ``.`` and ``..`` refuse
  the link, ``/``, ``\\``, NUL and control characters are percent-escaped, so a name is never
  a path and nothing lands outside the folder; where the scheme's listings are saved (a
  Gopher menu, :func:`listing_name`), an item of that name — or one beginning ``%25`` — gets
  its leading ``%`` written ``%25``, so the saved menu cannot collide with an item and every
  other name (``%notes.txt``) is kept as the server has it;
- the folder's one hidden state directory (:data:`STATE_DIR`) cannot be named by a server.
"""

from __future__ import annotations

import datetime
import enum
import fnmatch
from collections.abc import Sequence
from dataclasses import dataclass

from omniurl.resolvers.spec import Presentation, TreePath
from omniurl.schemes import URL

#: The mirror's own state (incremental records, temporary files) inside the target folder.
STATE_DIR = ".omniurl-mirror"

#: Longest local name, in bytes (ext4, XFS, APFS, NTFS: 255).
MAX_NAME = 255


@dataclass(frozen=True)
class Start:
    """The starting URL as the walk compares links with it."""

    spec_names: tuple[str, ...]
    host: str
    port: int | None
    base: tuple[str, ...]
    presentation: Presentation


@dataclass(frozen=True)
class Place:
    """A followed URL: its ``path`` under the folder (local names), and whether it is a
    container (listed or read for links)."""

    url: URL
    path: tuple[str, ...]
    container: bool

    @property
    def text(self) -> str:
        """The local path, "/"-joined ("" for the folder itself)."""
        return "/".join(self.path)


@dataclass(frozen=True)
class Refused:
    """A link not followed, and why (a sentence for the manifest)."""

    reason: str
    #: Whether the link is a hazard (an unsafe name), not merely outside the tree.
    unsafe: bool = False


def _server(url: URL) -> tuple[str, int | None]:
    host = str(getattr(url, "host", "") or "").lower()
    port = getattr(url, "port", None) or getattr(url, "default_port", None)
    return host, port


def start_of(url: URL, presentation: Presentation, spec_names: Sequence[str]) -> Start:
    """The :class:`Start` of a mirror of ``url``; a URL naming a file starts at its folder."""
    tree = presentation.tree_path(url)
    if tree is None:
        from omniurl.resolvers.errors import ConfigurationError

        raise ConfigurationError(
            f"{url}: not a place in a tree (a search, a session): nothing to mirror",
            component="path",
        )
    host, port = _server(url)
    base = tree.segments if tree.container else tree.segments[:-1]
    return Start(tuple(spec_names), host, port, base, presentation)


def local_name(segment: str, *, top: bool = False, reserved: str | None = None) -> str | None:
    """The local file name of one remote path segment, or None when none is safe.

    ``.`` and ``..`` (and the empty name) have none: they name no item of their own.
    ``/``, ``\\``, NUL and other control characters become ``%XX``, so a name is one name on
    every disk; the state directory's name at the top gets ``%2E`` for its dot.  ``reserved``
    (the name a saved listing takes in each folder, :func:`listing_name`): an item of that
    name, or one beginning ``%25``, gets its leading ``%`` written ``%25`` — one-to-one, and
    the saved listing's name is never an item's; any other name beginning ``%`` is kept (a
    server's ``%notes.txt`` is ``%notes.txt`` here, as lftp and wget write it).  Longer than
    :data:`MAX_NAME` bytes: None.
    """
    if segment in ("", ".", ".."):
        return None
    out = []
    for ch in segment:
        code = ord(ch)
        if ch in "/\\" or code < 0x20 or code == 0x7F:
            out.append(f"%{code:02X}")
        elif 0xDC80 <= code <= 0xDCFF:  # an octet that was not UTF-8 (surrogateescape)
            out.append(f"%{code - 0xDC00:02X}")
        else:
            out.append(ch)
    name = "".join(out)
    if reserved is not None and (name == reserved or name.startswith("%25")):
        name = "%25" + name[1:]
    if top and name == STATE_DIR:
        name = "%2E" + name[1:]
    if len(name.encode("utf-8", "surrogatepass")) > MAX_NAME:
        return None
    return name


def listing_name(presentation: Presentation) -> str:
    """The name a saved listing (a Gopher menu) takes in its directory: ``%``, the stem of
    the scheme's index name and a saved listing's suffix (``%gophermap.tsv``,
    :data:`omniurl.saving.LISTING_SUFFIX`) — no item's local name begins with ``%``."""
    from omniurl.saving import LISTING_SUFFIX

    stem = presentation.index_name.rsplit(".", 1)[0] or "index"
    return "%" + stem + LISTING_SUFFIX


def place(
    start: Start, url: URL, presentation: Presentation, spec_names: Sequence[str]
) -> Place | Refused:
    """Where ``url`` (a link found while walking) goes, or why it is not followed."""
    if tuple(spec_names) != start.spec_names:
        return Refused(f"another scheme ({url.scheme}:)")
    if _server(url) != (start.host, start.port):
        return Refused("another server (host or port)")
    tree = presentation.tree_path(url)
    if tree is None:
        return Refused("no place in the tree (a search, a session, a query)")
    return place_tree(start, url, tree)


def place_tree(start: Start, url: URL, tree: TreePath) -> Place | Refused:
    """:func:`place` once the server is known to be the starting one."""
    n = len(start.base)
    if tree.segments[:n] != start.base:
        return Refused("outside the starting path")
    presentation = start.presentation
    reserved = listing_name(presentation) if presentation.saves_listing else None
    path = []
    for index, segment in enumerate(tree.segments[n:]):
        name = local_name(segment, top=index == 0, reserved=reserved)
        if name is None:
            return Refused(f"unsafe name {segment!r}", unsafe=True)
        path.append(name)
    if not path and not tree.container:
        return Refused("the starting path itself as a file")
    return Place(url, tuple(path), tree.container)


@dataclass(frozen=True)
class LinkTarget:
    """A symbolic link as the mirror makes it: ``text``, the target written — relative,
    only leading ``..`` segments and then local names —, and ``path``, what it names under
    the folder (local names; empty: the folder itself)."""

    text: str
    path: tuple[str, ...]


def link_target(start: Start, link: Place, target: str) -> LinkTarget | Refused:
    """The symbolic link to make at ``link`` (a listing's ``name -> target``), or why none
    is made.  Only a relative target that stays inside the mirrored tree is made: resolved
    from the link's folder segment by segment (``.`` dropped, ``..`` one folder up — above
    the tree's top: refused), each name made local as :func:`place` makes a fetched one's,
    and written back relative from the link's folder.  The written target holds no ``..``
    but leading ones and no absolute part, and every folder on its way is a real folder of
    the mirror (:meth:`~omniurl.mirror.run.Mirror._ensure_dir` never keeps a link there), so
    it never names anything outside the destination folder — whatever links it passes, each
    made by this same rule.  An absolute target names the server's file system, whose root
    is not the URL's (RFC 1738 §3.2.2: the path is relative to the login's directory):
    refused too.  (``lftp mirror`` recreates every link as listed, ``/etc/passwd`` and
    ``../../..`` included; ``wget -m`` fetches a file's link as a file, the server resolving
    it, and skips a folder's.)"""
    if not target:
        return Refused("a symbolic link with no target")
    if target.startswith("/"):
        return Refused(f"a symbolic link to an absolute path ({target}): not the mirrored tree")
    presentation = start.presentation
    reserved = listing_name(presentation) if presentation.saves_listing else None
    folder = link.path[:-1]
    here = list(folder)
    for segment in target.split("/"):
        if segment in ("", "."):
            continue
        if segment == "..":
            if not here:
                return Refused(f"a symbolic link out of the mirrored tree ({target})")
            here.pop()
            continue
        name = local_name(segment, top=not here, reserved=reserved)
        if name is None:
            return Refused(
                f"a symbolic link whose target has an unsafe name {segment!r}", unsafe=True
            )
        here.append(name)
    common = 0
    while common < min(len(folder), len(here)) and folder[common] == here[common]:
        common += 1
    parts = [".."] * (len(folder) - common) + here[common:]
    return LinkTarget("/".join(parts) or ".", tuple(here))


def selected(path: str, container: bool, include: Sequence[str], exclude: Sequence[str]) -> bool:
    """``--include``/``--exclude`` (fnmatch globs on the path under the folder, "/"-joined;
    a directory also as ``path/``): an excluded directory is not walked; ``--include``
    chooses among files only (every directory is walked to find them)."""
    names = (path, path + "/") if container else (path,)
    if any(fnmatch.fnmatchcase(n, g) for g in exclude for n in names):
        return False
    if container or not include:
        return True
    return any(fnmatch.fnmatchcase(path, g) for g in include)


def fold(path: str) -> str:
    """The key two paths share on a case-insensitive disk."""
    return path.casefold()


class Action(enum.StrEnum):
    """What to do with a listed file (see :func:`decide`)."""

    SKIP = "skip"  # the local copy is current: nothing is transferred
    FETCH = "fetch"  # transfer it
    HEAD = "head"  # ask its exact size and time first (SIZE, MDTM), then decide again


@dataclass(frozen=True)
class Local:
    """The local file as found: its size and modification time (seconds)."""

    size: int
    mtime: float


@dataclass(frozen=True)
class Listed:
    """What the listing said of a file: its size and time (ISO 8601; ``Z``: exact UTC, as
    MLSD's; otherwise a LIST line's, to the minute or the day)."""

    size: int | None = None
    modify: str | None = None

    @property
    def exact_time(self) -> datetime.datetime | None:
        if self.modify is None or not self.modify.endswith("Z"):
            return None
        try:
            return datetime.datetime.fromisoformat(self.modify.replace("Z", "+00:00"))
        except ValueError:
            return None

    @property
    def rough_time(self) -> datetime.datetime | None:
        """The listing's time however rough (a folder's, which has no ``MDTM``): exact
        (MLSD), or the middle of the minute or day it names — lftp mirror's choice (a day
        is read as its noon, a minute as its 30th second), the nearest guess whatever the
        server's zone (a LIST line carries none, RFC 959 §4.1.3 leaves its format to the
        server; nor does an autoindex page; UTC assumed)."""
        exact = self.exact_time
        if exact is not None or self.modify is None:
            return exact
        try:
            when = datetime.datetime.fromisoformat(self.modify)
        except ValueError:
            return None
        if "T" not in self.modify:
            when += datetime.timedelta(hours=12)
        else:  # (a LIST line's "16:23" is written 16:23:00)
            when = when.replace(second=30, microsecond=0)
        return when.replace(tzinfo=datetime.UTC) if when.tzinfo is None else when


def decide(local: Local | None, listed: Listed) -> Action:
    """Whether a listed file is fetched (lftp mirror's rule: same size and same time is the
    same file).

    - exact size and time in the listing (MLSD): compared with the local file;
    - a LIST line's size and rough time: its exact time and size are asked
      (:attr:`Action.HEAD`: SIZE and MDTM) when there is a local file to compare them with;
    - nothing listed (a menu, a page): fetched (and compared byte for byte by the caller).
    """
    if local is None:
        return Action.FETCH
    exact = listed.exact_time
    if listed.size is not None and exact is not None:
        same = listed.size == local.size and abs(exact.timestamp() - local.mtime) < 1
        return Action.SKIP if same else Action.FETCH
    if listed.size is not None:
        # A LIST line's time is to the minute, or the day for an older file: a file
        # rewritten with its size kept looks the same there (a rule of "same listing line
        # as last run" missed vsftpd's changed files).  Only MDTM's time can tell.
        return Action.HEAD
    return Action.FETCH


def after_head(local: Local, size: int | None, modified: datetime.datetime | None) -> Action:
    """:attr:`Action.HEAD` answered: the same size and time (to the second) as the local
    file is the same file."""
    if size is None or modified is None:
        return Action.FETCH
    same = size == local.size and abs(modified.timestamp() - local.mtime) < 1
    return Action.SKIP if same else Action.FETCH


__all__ = [
    "MAX_NAME",
    "STATE_DIR",
    "Action",
    "LinkTarget",
    "Listed",
    "Local",
    "Place",
    "Refused",
    "Start",
    "after_head",
    "decide",
    "fold",
    "link_target",
    "listing_name",
    "local_name",
    "place",
    "place_tree",
    "selected",
    "start_of",
]
