"""``omniurl mirror``'s executor: walks the tree through an :class:`~omniurl.AsyncClient`
(its kept HTTP and FTP connections, every request planned and checked by the policy as any
``get``), and moves bytes; every decision is :mod:`omniurl.mirror.walk`'s.

Atomic by construction: a file's bytes go to a temporary file in ``DIR/.omniurl-mirror/tmp``
(the same disk, or else copied beside the final name first: :meth:`Mirror._replace`) and are
renamed over the final name only once complete, so a run killed at
any moment (SIGKILL included) leaves old files or new ones, never a partial one under a
final name; the next run clears the temporary files and completes, fetching only what is
not already current (:func:`omniurl.mirror.walk.decide`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import errno
import hashlib
import os
import shutil
import stat
import time
from collections import deque
from collections.abc import AsyncIterable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from omniurl import nameless
from omniurl.batch import FetchResult, _failed, _resumable, shown
from omniurl.nameless import open_in as open_nameless
from omniurl.resolvers.errors import ConfigurationError, LimitExceeded, NotFollowed, NotFound
from omniurl.resolvers.options import Options
from omniurl.resolvers.resource import Resource
from omniurl.resolvers.spec import page_links_of
from omniurl.schemes import URL, parse
from omniurl.schemes.errors import OmniurlError

from .state import CASE_FOLDED, Item, State
from .walk import (
    STATE_DIR,
    Action,
    Listed,
    Local,
    Place,
    Refused,
    Start,
    after_head,
    decide,
    link_target,
    listing_name,
    place,
    selected,
    start_of,
)

if TYPE_CHECKING:
    from omniurl.client import AsyncClient
    from omniurl.partial import Kept, Partial
    from omniurl.resolvers.spec import Presentation

    from .dask import RemoteFiles
    from .warc import WarcLog

#: A listed file at least this large is fetched as ``-C -`` fetches it: a killed run's
#: bytes are kept and continued (the sidecar's validator checked) instead of fetched again.
RESUMED_FROM = 1 << 20

#: ``os.open``'s flags for a new temporary file of the run's own (its name is free).
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)

#: Queued URLs kept parsed from when they are found to when they are visited (a parse saved
#: a file); past this many, a URL is parsed again from the queue's text (bounded memory).
KEPT_URLS = 4096
#: The other URLs kept for one claimed local name (:attr:`Mirror._alternates`).
ALTERNATES = 8

#: A page read whole for its links (an HTML page, a document of links) may be at most this large.
MAX_PAGE = 32 * 1024 * 1024


@dataclass
class Config:
    """What ``omniurl mirror`` was asked (see the command's help)."""

    url: str
    folder: Path
    delete: bool = False
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    max_depth: int | None = None
    max_filesize: int | None = None
    concurrency: int = 1
    warc: str | None = None
    #: ``--dask``: a scheduler address, or ``local:N`` (:mod:`omniurl.mirror.dask`).
    dask: str | None = None


@dataclass
class Counts:
    """Files and bytes done and known to do (the progress line and the summary)."""

    files_done: int = 0
    files_known: int = 0
    bytes_done: int = 0
    bytes_known: int = 0
    fetched: int = 0
    unchanged: int = 0
    deleted: int = 0
    failed: int = 0
    #: Symbolic links made (or found current), and left out (:func:`walk.link_target`).
    links: int = 0
    links_skipped: int = 0
    #: Local folders kept where the server now has a file or a link (no ``--delete``).
    kept_in_the_way: int = 0
    started: float = field(default_factory=time.monotonic)


class _Skip(Exception):
    """A file left out while transferring it (larger than ``--max-filesize``)."""


class _NotAFile(ConfigurationError):
    """A file's URL answered with a listing (a file: folder named without its ``/``)."""


class Mirror:
    """One run of ``omniurl mirror`` (see module doc)."""

    def __init__(
        self,
        config: Config,
        options: Options,
        client: AsyncClient,
        on_result: Callable[[FetchResult], None],
        warc: WarcLog | None = None,
    ) -> None:
        self.config = config
        self.options = options.with_(follow=False, stream_listings=True)
        self.client = client
        self.on_result = on_result
        self.warc = warc
        self.counts = Counts()
        self.folder = config.folder
        self.state_dir = self.folder / STATE_DIR
        self.tmp_dir = self.state_dir / "tmp"
        self.parts_dir = self.state_dir / "parts"
        self.listing_failed = False
        self.first_failure: FetchResult | None = None
        self._made_dirs: set[str] = set()
        self._lock_fd = -1
        self._temp_numbers = 0
        # (strings, not Paths, on the way of every file: pathlib's joins were ~5% of the
        # CPU of a 2,000-file HTTP mirror)
        self._root = str(self.folder)
        self._tmp_prefix = os.path.join(str(self.tmp_dir), "")
        #: The names in ``parts_dir`` when the run started (what killed runs left to continue).
        self._parts: set[str] = set()
        #: Each scheme's presentation and spec names, looked up once a run.
        self._specs: dict[str, tuple[Presentation, tuple[str, ...]]] = {}
        #: Queued URLs as parsed when found, until visited (bounded: :data:`KEPT_URLS`).
        self._urls: dict[str, URL] = {}
        #: Other files' URLs found for a local name already claimed (``docs/a%2Fb.txt`` and
        #: ``docs/a%252Fb.txt`` both name ``docs/a%2Fb.txt``): fetched for it when the URL
        #: that claimed it is refused by the server (bounded: :data:`KEPT_URLS` names,
        #: :data:`ALTERNATES` URLs a name).
        self._alternates: dict[str, list[str]] = {}
        #: The claimed names whose URL the server refused, none other tried yet (bounded).
        self._refused: set[str] = set()
        #: Files are written with no name until complete (:meth:`_temp`) while the disk can.
        self._nameless = True
        self._linker = nameless.Linker()
        self._time_options: Options | None = None
        self._timed_options: Options | None = None
        self._timed_known = False
        #: ``--dask``: the file transfers go to the cluster (:mod:`omniurl.mirror.dask`).
        self.remote: RemoteFiles | None = None
        self._text_args = argparse.Namespace(
            raw=False, output="-mirror-", remote_name=True, json=False
        )

    # -- setting up ---------------------------------------------------------------------

    def _prepare(self) -> tuple[State, Start, URL, Presentation]:
        from omniurl.resolvers.registry import spec_for

        url = parse(self.config.url, syntax=self.options.syntax)
        spec = spec_for(url.scheme)
        presentation = spec.present()
        start = start_of(url, presentation, spec.names)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            self.state_dir.mkdir(exist_ok=True)
            self._lock()
            if self.tmp_dir.exists():
                shutil.rmtree(self.tmp_dir)  # what a killed run was writing
            self.tmp_dir.mkdir()
            if self.parts_dir.is_dir():
                self._parts = set(os.listdir(self.parts_dir))
        except OSError as exc:
            self._unlock()
            raise ConfigurationError(
                f"cannot make the folder {self.folder}: {exc.strerror or exc}",
                component="output",
            ) from None
        state = State(self.state_dir / "state.sqlite", case_insensitive=self._case_insensitive())
        return state, start, url, presentation

    def _lock(self) -> None:
        """One run at a time in a folder (a cron job's run still going when the next
        starts): the second cleared the first's temporary files under it and met the
        state file locked — a traceback.  ``flock`` on ``DIR/.omniurl-mirror/lock``, held
        until the process ends (released by the kernel, SIGKILL included)."""
        try:
            import fcntl
        except ImportError:  # (not on Windows: no lock there)
            return
        fd = os.open(self.state_dir / "lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise ConfigurationError(
                f"{self.folder} is being mirrored by another run (its lock "
                f"{self.state_dir / 'lock'} is held): run again once it has ended",
                component="output",
            ) from None
        self._lock_fd = fd

    def _unlock(self) -> None:
        if self._lock_fd >= 0:
            os.close(self._lock_fd)  # (closing the descriptor releases the flock)
            self._lock_fd = -1

    def _case_insensitive(self) -> bool:
        probe = self.tmp_dir / "Case-probe"
        probe.write_bytes(b"")
        try:
            return (self.tmp_dir / "case-PROBE").exists()
        finally:
            probe.unlink()

    # -- the walk -------------------------------------------------------------------------

    async def run(self) -> int:
        state, start, url, presentation = self._prepare()
        self.state = state
        self.start = start
        self.start_url = url
        self.presentation = presentation
        try:
            state.new_run()
            tree = presentation.tree_path(url)
            assert tree is not None
            if tree.container:
                state.claim("", True)
                state.enqueue(str(url), "", True, 0)
            else:
                first = place(start, url, presentation, start.spec_names)
                assert isinstance(first, Place)
                state.claim(first.text, False)
                state.enqueue(str(url), first.text, False, 0)
            self.counts.files_known += 1
            await self._work(state)
            if self.config.delete and not self.listing_failed:
                self._delete(state)
            self._date_folders(state)
            state.commit()
        finally:
            state.close()
            with contextlib.suppress(OSError):
                shutil.rmtree(self.tmp_dir)
            self._unlock()
            self._linker.close()
        return 0 if self.first_failure is None else self.first_failure.exit_status

    async def _work(self, state: State) -> None:
        """Workers take queued items, files before directories, each kind in the order
        found: a directory's files follow its listing, on the connection that listed it
        (FTP's is kept for its CWDs, RFC 1738 §3.2.5), before the next directory is listed.
        The queue is read a page at a time."""
        files: deque[Item] = deque()
        folders: deque[Item] = deque()
        cursors = {True: 0, False: 0}
        busy = 0
        wake = asyncio.Event()

        def page(buffer: deque[Item], container: bool) -> deque[Item]:
            if not buffer:
                found = state.items_after(cursors[container], 256, container=container)
                if found:
                    cursors[container] = found[-1].seq
                    buffer.extend(found)
            return buffer

        def next_item() -> Item | None:
            for buffer in (page(files, False), page(folders, True)):
                if buffer:
                    return buffer.popleft()
            return None

        async def worker() -> None:
            nonlocal busy
            while True:
                item = next_item()
                if item is None:
                    if busy == 0:
                        wake.set()
                        return
                    wake.clear()
                    await wake.wait()
                    continue
                busy += 1
                try:
                    await self._visit(item)
                finally:
                    busy -= 1
                    wake.set()

        await asyncio.gather(*(worker() for _ in range(max(1, self.config.concurrency))))

    async def _visit(self, item: Item) -> None:
        started = time.monotonic()
        url = self._urls.pop(item.url, None) or parse(item.url, syntax=self.options.syntax)
        try:
            if item.container:
                row = await self._container(item, url, started)
            else:
                row = await self._file(item, url, started)
        except NotFollowed as exc:
            self._redirected(item, str(exc.target))
            row = FetchResult(
                index=item.seq - 1,
                url=shown(item.url),
                ok=True,
                elapsed=time.monotonic() - started,
                chain=(shown(str(exc.target)),),
            )
        except _Skip:
            row = None
        except (OmniurlError, OSError) as exc:
            if item.container:
                self.listing_failed = True
            row = _failed(item.seq - 1, item.url, exc, time.monotonic() - started)
            row = dataclasses.replace(row, path=self._shown_path(item.path))
            start = isinstance(exc, NotFound | _NotAFile) and item.depth == 0
            start = start and not item.container
            if start and self._start_as_folder(item, url):
                row = None  # (queued again as the folder of the same name)
        except Exception as exc:  # a defect (ours, a library's): this URL's row, not the run's end
            if item.container:
                self.listing_failed = True
            row = _failed(item.seq - 1, item.url, exc, time.monotonic() - started)
            row = dataclasses.replace(
                row,
                path=self._shown_path(item.path),
                error_message=f"{shown(item.url)}: unexpected {type(exc).__name__}: {exc}",
            )
        self.counts.files_done += 1
        if row is None:
            return
        if not row.ok and not item.container and row.error_type in ("NotFound", "StatusError"):
            self._alternate(item)
        if not row.ok:
            self.counts.failed += 1
            if self.first_failure is None:
                self.first_failure = row
        self.on_result(row)

    def _alternate(self, item: Item) -> None:
        """The server refused a file's URL: another URL found for the same local name (its
        page or listing spells the name another way) is fetched for it — before, the first
        URL found kept the name and the others were dropped, so a broken link to
        ``a%2Fb.txt`` left out the listed ``a%252Fb.txt`` (both ``a%2Fb.txt`` here) where
        ``wget -m`` saved it."""
        for other in self._alternates.pop(item.path, ()):
            if self.state.enqueue(other, item.path, False, item.depth):
                self.counts.files_known += 1
                return
        if len(self._refused) < KEPT_URLS:  # (one found later is tried then: _found)
            self._refused.add(item.path)

    def _start_as_folder(self, item: Item, url: URL) -> bool:
        """The starting URL names no file (``ftp://h/pub``: ``RETR pub`` answered 550; a file:
        folder's URL without its ``/`` answers with a listing): when
        the same path with a ``/`` is a folder (its tree path the same segments), the mirror
        starts again there, as ``wget -m`` and ``lftp mirror`` take ``ftp://h/pub`` — before,
        the run ended with the 550, nothing mirrored.  False: no such folder form."""
        from omniurl.resolvers.registry import spec_for

        try:
            folder = self._with_password(parse(item.url + "/", syntax=self.options.syntax))
            spec = spec_for(folder.scheme)
        except OmniurlError:
            return False
        tree, was = self.presentation.tree_path(folder), self.presentation.tree_path(url)
        if tree is None or was is None or not tree.container or tree.segments != was.segments:
            return False
        self.start = start_of(folder, self.presentation, spec.names)
        self.state.release(item.path)
        self.state.claim("", True)
        if self.state.enqueue(str(folder), "", True, 0):
            self._urls[str(folder)] = folder
            self.counts.files_known += 1
        return True

    async def _moved(self, resource: Resource) -> None:
        """A redirect given as the result (HTTP's 3xx with ``follow=False``) is no file:
        :class:`NotFollowed`, as the other schemes raise it, so its target is queued as a
        link (:meth:`_redirected`) — the 3xx's page was saved under the URL's name."""
        target = self.presentation.moved_to(resource)
        if target is not None:
            await _read_end(resource)
            raise NotFollowed(
                f"{resource.url}: moved to {target} (not followed)",
                target=target,
                reason=f"redirect {resource.status}",
            )

    def _redirected(self, item: Item, target: str) -> None:
        """A redirect is queued as a link of its own; a file's to the folder of the same
        name (a link to ``sub`` answered "moved to ``sub/``", as nginx and molly-brown
        answer a folder's URL without its slash) first gives up the name the file
        claimed — the folder was refused it, and its whole subtree left out silently."""
        from omniurl.resolvers.registry import spec_for

        if not item.container:
            with contextlib.suppress(OmniurlError):
                url = parse(target, syntax=self.options.syntax)
                spec = spec_for(url.scheme)
                where = place(self.start, url, spec.present(), spec.names)
                if isinstance(where, Place) and where.container and where.text == item.path:
                    self.state.release(item.path)
        self._found(item, target)

    def _shown_path(self, path: str) -> str:
        return str(self.folder / path) if path else str(self.folder)

    def _placed(self, parent: Item, link: str) -> Place | None:
        """Where ``link``, found in ``parent``'s listing or page, sits in the tree
        (:func:`place`), or None: beyond ``--max-depth``, no URL, or not followed."""
        if self.config.max_depth is not None and parent.depth + 1 > self.config.max_depth:
            return None
        from omniurl.resolvers.registry import spec_for

        try:
            url = parse(link, syntax=self.options.syntax)
            known = self._specs.get(url.scheme)
            if known is None:
                spec = spec_for(url.scheme)
                known = self._specs[url.scheme] = (spec.present(), tuple(spec.names))
        except OmniurlError:
            return None
        where = place(self.start, url, known[0], known[1])
        return None if isinstance(where, Refused) else where

    def _found(self, parent: Item, link: str, listed: Listed | None = None) -> None:
        """A link found in a listing or a page: queued when :func:`place` follows it and
        the filters and depth allow it."""
        where = self._placed(parent, link)
        if where is None:
            return
        url = self._with_password(where.url)
        if not selected(where.text, where.container, self.config.include, self.config.exclude):
            return
        taken = self.state.claim(where.text, where.container)
        text = str(url)
        if taken is not None:
            if taken.endswith(CASE_FOLDED):
                self._case_collision(url, where, taken)
            elif where.container:
                pass
            elif where.text in self._refused:  # (its URL already failed: this one now)
                if self.state.enqueue(text, where.text, False, parent.depth + 1):
                    self._refused.discard(where.text)
                    self.counts.files_known += 1
            elif where.text in self._alternates or len(self._alternates) < KEPT_URLS:
                others = self._alternates.setdefault(where.text, [])
                if text not in others and len(others) < ALTERNATES:
                    others.append(text)
            return
        listed = listed or Listed()
        if self.state.enqueue(
            text, where.text, where.container, parent.depth + 1, listed.size, listed.modify
        ):
            if len(self._urls) < KEPT_URLS:
                self._urls[text] = url  # (not parsed again when visited)
            self.counts.files_known += 1
            self.counts.bytes_known += listed.size or 0

    def _symlink(self, parent: Item, link: str, target: object) -> None:
        """A listing's symbolic link ``link`` (its listed ``target``, where the listing
        gave one): made as a relative link where :func:`walk.link_target` allows it (a
        target inside the mirrored tree), else left out with a note — never followed,
        never fetched (the server would resolve it, out of the tree too)."""
        where = self._placed(parent, link)
        if where is None or where.container:
            return
        if not selected(where.text, False, self.config.include, self.config.exclude):
            return
        made = (
            link_target(self.start, where, target)
            if isinstance(target, str)
            else Refused("a symbolic link whose target the listing does not give (MLSD)")
        )
        full = self._target_text(where.text)
        if not isinstance(made, Refused):
            # (defence in depth: what the link names now, links on the way resolved, is
            # inside the folder — a link a person put in the folder is not followed out)
            named = os.path.realpath(os.path.join(os.path.dirname(full), made.text))
            if os.path.commonpath([named, os.path.realpath(self._root)]) != os.path.realpath(
                self._root
            ):
                made = Refused(f"a symbolic link that would lead out of {self.folder}")
        if isinstance(made, Refused):
            self.counts.links_skipped += 1
            note = f"{shown(link)}: not made here: {made.reason}"
            self.options.note("*", note)
            self.options.tell(note)
            return
        if self._folder_kept(where.text, full, "a symbolic link"):
            return
        if self.state.claim(where.text, False) is not None:
            return  # (a name already taken this run)
        with contextlib.suppress(OSError):
            if os.readlink(full) == made.text:
                self.counts.links += 1
                return
        self._temp_numbers += 1
        temp = f"{self._tmp_prefix}{self._temp_numbers}.link"  # (a killed run's: cleared)
        try:
            os.symlink(made.text, temp)
            with contextlib.suppress(FileNotFoundError):
                if stat.S_ISDIR(os.lstat(full).st_mode):
                    shutil.rmtree(full)  # (a folder where the server now has a link: --delete)
            try:
                os.replace(temp, full)  # (atomic: a link there now is replaced, not followed)
            except OSError as exc:
                if exc.errno != errno.EXDEV:
                    raise
                os.unlink(temp)  # (the tree on another disk than the state folder)
                temp = f"{full.rpartition('/')[0]}/.omniurl-mirror-{os.getpid()}.link"
                os.symlink(made.text, temp)
                os.replace(temp, full)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            row = dataclasses.replace(
                _failed(-1, shown(link), exc), path=self._shown_path(where.text)
            )
            self.counts.failed += 1
            if self.first_failure is None:
                self.first_failure = row
            self.on_result(row)
            return
        self.counts.links += 1

    def _case_collision(self, url: URL, where: Place, why: str) -> None:
        """A file (or folder) whose name this disk cannot hold beside one differing only in
        case, found first: not mirrored — a failed row (``index`` -1: it was never queued)
        with the output's error, so the run does not say everything was mirrored."""
        exc = FileExistsError(errno.EEXIST, why)
        row = _failed(-1, str(url), exc)
        row = dataclasses.replace(row, path=self._shown_path(where.text))
        self.counts.failed += 1
        if self.first_failure is None:
            self.first_failure = row
        self.on_result(row)

    def _with_password(self, url: URL) -> URL:
        """A listing's URLs leave the password out (they are shown); the start's login
        goes on with them to the same server."""
        password = getattr(self.start_url, "password", None)
        if password is None or getattr(url, "password", None) is not None:
            return url
        if getattr(url, "user", None) != getattr(self.start_url, "user", None):
            return url
        try:
            return cast(URL, dataclasses.replace(cast(Any, url), password=password))
        except (TypeError, ValueError):
            return url

    # -- containers ------------------------------------------------------------------------

    async def _container(self, item: Item, url: URL, started: float) -> FetchResult:
        self._ensure_dir(item.path)
        count = 0
        kind = media = None
        # A folder's own page saved by an earlier run (index.html: not an autoindex) is
        # asked for conditionally too, its links read from the local copy when unchanged.
        options, index = self.options, self._join(item.path, self.presentation.index_name)
        kept = self.state.record(index) if _local(self.folder / index) is not None else None
        if kept and self._validators(item.url, kept):
            options = self.presentation.revalidate(options, kept["validators"]) or options
        async with self.client.stream(url, options=options) as resource:
            await self._moved(resource)
            kind, media = resource.kind, resource.media_type
            if kept is not None and self.presentation.unchanged(resource):
                if self.state.claim(index, False) is None:
                    self._links_of_kept(item, kept, self.folder / index)
            elif resource.kind == "listing":
                count = await self._listing(item, resource)
            elif resource.kind == "content":
                count = await self._page(item, resource)
            else:
                raise ConfigurationError(
                    f"{url}: a {resource.kind} cannot be mirrored", component="scheme"
                )
        return FetchResult(
            index=item.seq - 1,
            url=shown(item.url),
            ok=True,
            bytes=count,
            kind=kind,
            media_type=media,
            elapsed=time.monotonic() - started,
            path=self._shown_path(item.path),
        )

    async def _listing(self, item: Item, resource: Resource) -> int:
        """A listing's entries, each followed or not as it arrives; a listing the scheme
        keeps (a menu) is written as ``get -o`` writes it, under :func:`listing_name`."""
        from omniurl.saving import listing_line

        saved = self.presentation.saves_listing
        name = self._join(item.path, listing_name(self.presentation)) if saved else None
        if name is not None and self.state.claim(name, False) is not None:
            name = None
        fd, tmp = self._temp() if name is not None else (-1, "")
        digest = hashlib.sha256()
        count = 0
        try:
            async for entry in resource.aiter_entries():
                if fd >= 0:
                    line = listing_line(entry)
                    nameless.write_all(fd, line)
                    digest.update(line)
                    count += len(line)
                if entry.kind == "link" and entry.url is not None:
                    self._symlink(item, entry.url, entry.info.get("target"))
                    continue
                if entry.url is None:
                    continue
                info = entry.info
                size = info.get("size")
                modify = info.get("modify")
                listed = Listed(
                    size if isinstance(size, int) else None,
                    modify if isinstance(modify, str) else None,
                )
                self._found(item, entry.url, listed)
            if fd >= 0:
                os.close(fd)
                fd = -1
                assert name is not None
                await self._archive(resource, tmp)
                self._settle(name, tmp, digest.hexdigest(), count, None, {}, None, Listed())
                tmp = ""
        finally:
            if fd >= 0:
                os.close(fd)
            if tmp:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
        return count

    async def _page(self, item: Item, resource: Resource) -> int:
        """A container's content (a directory's page): read for its links; saved as the
        scheme's index name unless the server generated it (an autoindex)."""
        fd, tmp = self._temp()
        try:
            count, digest = await self._copy(resource, fd, limit=MAX_PAGE)
        finally:
            os.close(fd)
        try:
            with open(tmp, "rb") as fh:
                data = fh.read()
            page = str(resource.url)
            links = page_links_of(
                self.presentation, page, resource.media_type, data, charset=resource.charset
            )
            times = self.presentation.listing_times(page, resource.media_type, data)
            for link in links or ():
                self._found(item, link, Listed(None, times.get(link)) if times else None)
            generated = self.presentation.generated_listing(resource.media_type, data)
            await self._archive(resource, tmp)
            name = self._join(item.path, self.presentation.index_name)
            if not generated and self.state.claim(name, False) is None:
                facts = self.presentation.mirror_facts(resource)
                self._settle(
                    name, tmp, digest, count, facts.modified, dict(facts.validators),
                    resource.media_type, Listed(), charset=resource.charset,
                )  # fmt: skip
                tmp = ""
        finally:
            if tmp:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
        return count

    # -- files -----------------------------------------------------------------------------

    async def _file(self, item: Item, url: URL, started: float) -> FetchResult:
        listed = Listed(item.size, item.modify)
        limit = self.config.max_filesize
        if limit is not None and listed.size is not None and listed.size > limit:
            raise _Skip
        found, url = url, self.presentation.exact_url(url)
        target = self._target_text(item.path)
        local = _local(target)
        if local is None and self._folder_kept(item.path, target, "a file"):
            raise _Skip  # (nothing fetched: a person's folder is in the way)
        # (a record matters only beside a local copy: a first run skips the row's lookup)
        record = self.state.record(item.path) if local is not None else None
        action = decide(local, listed)
        if action is Action.HEAD:
            assert local is not None
            size, modified = await self._head(url)
            action = after_head(local, size, modified)
        if action is Action.SKIP:
            return self._unchanged(item, started)
        if self.remote is not None:
            return await self.remote.file(
                self, item, url, listed, record, local is not None, Path(target), started
            )
        if self.warc is not None:
            # A WARC record is one exchange's bytes: a file continued from a killed run's
            # part would be two.  With --warc every file is fetched whole.
            if self._has_part(item):
                with contextlib.suppress(FileNotFoundError):
                    self._part_of(item).unlink()
        elif (listed.size is not None and listed.size >= RESUMED_FROM) or self._has_part(item):
            return await self._resumed(item, url, listed, started)
        options = self.options
        # A listing's rough time (LIST): the exact one asked with the transfer where the
        # scheme can (FTP: MDTM in the same conversation), else asked after it.
        rough = listed.exact_time is None and listed.size is not None
        timed = self._timed() if rough else None
        if timed is not None:
            options = timed
        validators = self._validators(item.url, record)
        if local is not None and validators:
            # (on the client's effective options: one copy of the options a file, not two)
            effective = self.client._effective(options)
            options = self.presentation.revalidate(effective, validators) or options
        async with self.client.stream(url, options=options) as resource:
            await self._moved(resource)
            if self.presentation.unchanged(resource):
                self._links_of_kept(item, record, target)
                return self._unchanged(item, started)
            if resource.kind != "content":
                raise _NotAFile(f"{url}: a {resource.kind}, not a file", component="scheme")
            total = resource.total if resource.total is not None else resource.size
            if (
                total is not None
                and total >= RESUMED_FROM
                and self.warc is None
                and listed.size is None
                and _resumable(url, options)
            ):
                if limit is not None and total > limit:
                    raise _Skip
                return await self._into_part(item, url, resource, listed, target, started)
            fd, tmp = self._temp(nameless=self.warc is None)
            try:
                text = self.presentation.text_source(resource, self._text_args)
                count, digest = await self._copy(resource, fd, source=text, limit=limit, skip=True)
                if tmp:
                    os.close(fd)
                    fd = -1
                await self._archive(resource, tmp, found)
                facts = self.presentation.mirror_facts(resource)
                modified = facts.modified or listed.exact_time
                if modified is None and rough and timed is None:
                    modified = await self._time_of(url)  # LIST's rough time: MDTM's
                media, charset = resource.media_type, resource.charset
                wrote = self._settle(
                    item.path, tmp, digest, count, modified, dict(facts.validators), media,
                    listed, fd, charset=charset,
                )  # fmt: skip
                tmp = ""
            finally:
                if fd >= 0:
                    os.close(fd)  # (a file with no name is gone with its descriptor)
                if tmp:
                    with contextlib.suppress(OSError):
                        os.unlink(tmp)
        return self._settled(
            item, target, media, count, digest, wrote, started, resource.status, charset
        )

    def _settled(
        self,
        item: Item,
        target: str | Path,
        media: str | None,
        count: int,
        digest: str | None,
        wrote: bool,
        started: float,
        status: int | None,
        charset: str | None = None,
    ) -> FetchResult:
        """A file in place (fetched here or on a Dask worker): its page's links followed
        (read in the ``charset`` the server declared), counted as fetched or unchanged, and
        its manifest row."""
        presentation = self.presentation
        page = page_links_of(presentation, item.url, media, b"", charset=charset) is not None
        if page and count <= MAX_PAGE:
            with open(target, "rb") as fh:
                data = fh.read()
            for link in page_links_of(presentation, item.url, media, data, charset=charset) or ():
                self._found(item, link)
        if wrote:
            self.counts.fetched += 1
        else:
            self.counts.unchanged += 1
        return FetchResult(
            index=item.seq - 1,
            url=shown(item.url),
            ok=True,
            bytes=count,
            sha256=digest,
            media_type=media,
            kind="content",
            elapsed=time.monotonic() - started,
            path=str(target),
            status=status,
        )

    async def _into_part(
        self,
        item: Item,
        url: URL,
        resource: Resource,
        listed: Listed,
        target: str | Path,
        started: float,
        kept: Kept | None = None,
    ) -> FetchResult:
        """A large file whose size only its response told (an HTTP link: no listing gave
        it) goes where ``-C``'s parts go, its validator in the sidecar, so a run killed in
        the middle leaves bytes the next one continues (:meth:`_resumed`: ``Range`` with
        ``If-Range``, RFC 9110 §13.1.5) instead of fetching them again; ``kept``: what a
        continued transfer's response follows (:meth:`_resumed`)."""
        from omniurl.partial import Kept, write_resumed

        self.parts_dir.mkdir(exist_ok=True)
        partial = self._partial(item)

        def counted(n: int) -> None:
            self.counts.bytes_done += n

        await write_resumed(
            partial, kept or Kept(0, None, None), resource, str(url), on_chunk=counted
        )
        count = partial.target.stat().st_size
        with open(partial.target, "rb") as fh:
            digest = hashlib.file_digest(fh, "sha256").hexdigest()
        facts = self.presentation.mirror_facts(resource)
        modified = facts.modified or listed.exact_time
        if modified is None and listed.size is not None:
            modified = await self._time_of(url)  # LIST's rough time: MDTM's
        media = resource.media_type
        wrote = self._settle(
            item.path,
            str(partial.target),
            digest,
            count,
            modified,
            dict(facts.validators),
            media,
            listed,
            charset=resource.charset,
        )
        return self._settled(
            item, target, media, count, digest, wrote, started, resource.status, resource.charset
        )

    def _partial(self, item: Item) -> Partial:
        """``-C``'s part file and sidecar of ``item`` (:meth:`_part_of`)."""
        from omniurl.partial import Partial

        part = self._part_of(item)
        return Partial(part.with_name(part.name[1:].removesuffix(".part")))

    def _has_part(self, item: Item) -> bool:
        """Whether a killed run left a part of ``item`` to continue (the parts folder as
        the run found it: one digest a file only when it holds any)."""
        return bool(self._parts) and self._part_of(item).name in self._parts

    def _part_of(self, item: Item) -> Path:
        """Where a large file's bytes wait until complete, from one run to the next: named
        by a digest of its path (``.NAME.part`` and its sidecar beside it)."""
        name = hashlib.sha256(item.path.encode("utf-8", "surrogateescape")).hexdigest()[:32]
        return self.parts_dir / f".{name}.part"

    async def _resumed(self, item: Item, url: URL, listed: Listed, started: float) -> FetchResult:
        """A large file (or one a killed run left a part of): ``-C -``'s transfer, its
        ``.NAME.part`` and sidecar kept in the state directory, continued with the
        validator recorded (HTTP ``Range`` with ``If-Range``; FTP ``REST``), then renamed
        into the tree with the response's facts (its validators kept for the next run's
        conditional request, as a whole transfer's are)."""
        from omniurl.partial import Kept, resume_facts

        self.parts_dir.mkdir(exist_ok=True)
        kept = self._partial(item).kept(str(url))
        target = self._target(item.path)
        for _attempt in range(2):
            options = self.options.with_(resume_from=kept.offset, resume_validator=kept.validator)
            async with self.client.stream(url, options=options) as resource:
                await self._moved(resource)
                if resume_facts(resource).outcome == "refetch":  # the part is too long
                    kept = Kept(0, None, None)
                    continue
                if resource.kind != "content" and resume_facts(resource).outcome != "complete":
                    raise _NotAFile(f"{url}: a {resource.kind}, not a file", component="scheme")
                return await self._into_part(item, url, resource, listed, target, started, kept)
        raise ConfigurationError(f"{url}: the server refused to continue", component="scheme")

    def _validators(self, url: str, record: dict[str, Any] | None) -> dict[str, str]:
        """The stored validators a conditional request sends — none for a page a run
        from before the declared charset was kept (a record with no "charset" key) saved:
        its 304 would have its links read in a guessed encoding, other links than the
        page's (and --delete remove files it links to), so it is fetched whole once."""
        if record is None:
            return {}
        validators: dict[str, str] = record.get("validators") or {}
        page = page_links_of(self.presentation, url, record.get("media_type"), b"") is not None
        return {} if "charset" not in record and page else validators

    def _links_of_kept(self, item: Item, record: dict[str, Any] | None, target: str | Path) -> None:
        """A page unchanged since the last run (304) still links to its files: read them
        from the local copy."""
        # (the charset the server declared when the page was fetched: read as it was then,
        # the same links; a state file from before it was kept has no "charset": None)
        media, charset = (record or {}).get("media_type"), (record or {}).get("charset")
        if page_links_of(self.presentation, item.url, media, b"", charset=charset) is None:
            return
        with contextlib.suppress(OSError):
            if os.stat(target).st_size <= MAX_PAGE:
                with open(target, "rb") as fh:
                    data = fh.read()
                links = page_links_of(self.presentation, item.url, media, data, charset=charset)
                for link in links or ():
                    self._found(item, link)

    def _unchanged(self, item: Item, started: float) -> FetchResult:
        self.counts.unchanged += 1
        self.counts.bytes_done += item.size or 0
        return FetchResult(
            index=item.seq - 1,
            url=shown(item.url),
            ok=True,
            kind="content",
            elapsed=time.monotonic() - started,
            path=self._target_text(item.path),
        )

    async def _head(self, url: URL) -> tuple[int | None, Any]:
        """``-I``: the exact size and modification time (FTP SIZE and MDTM)."""
        async with self.client.stream(url, options=self.options.with_(head=True)) as resource:
            return resource.total, resource.modified

    def _timed(self) -> Options | None:
        """The presentation's :meth:`~omniurl.resolvers.spec.Presentation.timed_options`
        of this run's options (made once)."""
        if not self._timed_known:
            self._timed_options = self.presentation.timed_options(self.options)
            self._timed_known = True
        return self._timed_options

    async def _time_of(self, url: URL) -> Any:
        """The modification time alone of a file just transferred (FTP: ``MDTM`` without
        ``-I``'s ``TYPE I`` and ``SIZE``, one round trip a file instead of two)."""
        options = self._time_options
        if options is None:
            options = self._time_options = self.presentation.time_options(self.options)
        async with self.client.stream(url, options=options) as resource:
            return resource.modified

    async def _copy(
        self,
        resource: Resource,
        fd: int,
        *,
        source: AsyncIterable[bytes] | None = None,
        limit: int | None = None,
        skip: bool = False,
    ) -> tuple[int, str]:
        """The content to ``fd``, hashed and counted (``limit``: at most so many bytes; a
        longer file is left out, ``skip``, or refused)."""
        digest = hashlib.sha256()
        count = 0
        resource.views_ok = source is None
        async for chunk in source if source is not None else resource:
            count += len(chunk)
            if limit is not None and count > limit:
                if skip:
                    raise _Skip
                raise LimitExceeded(
                    f"{resource.url}: a page larger than {limit} bytes", component="size"
                )
            digest.update(chunk)
            nameless.write_all(fd, chunk)
            self.counts.bytes_done += len(chunk)
        return count, digest.hexdigest()

    async def _archive(self, resource: Resource, tmp: str, url: URL | None = None) -> None:
        """``--warc``: ``resource``'s records, under ``url`` — the URL as the walk found it
        (FTP's ``;type=i``, which only says how it was fetched, left out)."""
        if self.warc is not None:
            await self.warc.record(resource, tmp, url)

    def _settle(
        self,
        path: str,
        tmp: str,
        digest: str,
        count: int,
        modified: Any,
        validators: dict[str, str],
        media: str | None,
        listed: Listed,
        fd: int = -1,
        *,
        charset: str | None = None,
    ) -> bool:
        """Give the complete temporary file its final name — unless the local file already
        holds the same bytes (then it is left as it is, and the temporary file removed).
        ``tmp`` "": the file has no name yet, ``fd`` is it (:meth:`_temp`).  Returns
        whether the file was written."""
        target = self._target_text(path)
        try:
            there = os.lstat(target)
        except FileNotFoundError:
            there = None
        same = False
        if there is not None and stat.S_ISREG(there.st_mode):
            if there.st_size == count:
                record = self.state.record(path) or {}
                same = record.get("sha256") == digest or _sha256(target) == digest
            if same:
                if tmp:
                    os.unlink(tmp)
            else:
                complete = tmp or self._named(fd)
                os.chmod(complete, stat.S_IMODE(there.st_mode))  # (the file keeps its mode)
                self._replace(complete, target)
        else:
            # (a page or a menu saved where a folder is: kept, as a file's, unless --delete;
            # the file's own case is decided before its transfer)
            folder = there is not None and stat.S_ISDIR(there.st_mode)
            if folder and self._folder_kept(path, target, "a file"):
                if tmp:
                    os.unlink(tmp)
                raise _Skip
            if there is not None:
                self._clear_way(target)  # a folder (--delete) or a link where the server has a file
            if tmp:
                self._replace(tmp, target)  # made with a new file's mode (0666 & ~umask)
            else:
                self._link(fd, target)
        if modified is not None:
            stamp = modified.timestamp()
            os.utime(target, (stamp, stamp), follow_symlinks=False)
        self.state.remember(
            path,
            {
                "size": listed.size,
                "listed": listed.modify,
                "sha256": digest,
                "validators": validators,
                "media_type": media,
                "charset": charset,
            },
        )
        return not same

    # -- the local tree ------------------------------------------------------------------

    @staticmethod
    def _join(parent: str, name: str) -> str:
        return f"{parent}/{name}" if parent else name

    def _target(self, path: str) -> Path:
        return Path(self._target_text(path))

    def _target_text(self, path: str) -> str:
        """The local file of ``path`` (its folders made), as a string."""
        parent = path.rpartition("/")[0]
        if parent:
            self._ensure_dir(parent)
        return f"{self._root}/{path}"

    def _ensure_dir(self, path: str) -> None:
        """``path``'s folders under the mirror's, made one by one: an existing file or a
        symbolic link in the way is replaced by a folder (a link is never followed out)."""
        if not path or path in self._made_dirs:
            return
        current = self.folder
        for part in path.split("/"):
            current = current / part
            try:
                info = current.lstat()
            except FileNotFoundError:
                current.mkdir()
                continue
            if stat.S_ISDIR(info.st_mode):
                continue
            current.unlink()  # a file (or a link) where the server now has a folder
            current.mkdir()
        if len(self._made_dirs) > 10_000:
            self._made_dirs.clear()
        self._made_dirs.add(path)

    def _folder_kept(self, path: str, target: str, what: str) -> bool:
        """Whether a local folder at ``target`` stays where the server now has ``what`` (a
        file, a symbolic link): without ``--delete`` it does, with a note, and the file or
        link is not made — nothing of a person's is removed unasked.  ``lftp mirror``
        4.9.2 keeps both folders silently and ``wget -m`` 1.21.3 keeps them ("x: Is a
        directory"), each exiting 0 (measured against vsftpd); with ``--delete`` the folder
        is replaced, as ``lftp mirror --delete`` replaces it.  Before, both were removed
        whole without ``--delete``."""
        if self.config.delete:
            return False
        try:
            if not stat.S_ISDIR(os.lstat(target).st_mode):
                return False
        except OSError:
            return False
        self.counts.kept_in_the_way += 1
        note = (
            f"{self._shown_path(path)}: a folder here, where the server now has {what}: kept "
            "(--delete replaces it)"
        )
        self.options.note("*", note)
        self.options.tell(note)
        return True

    @staticmethod
    def _clear_way(target: str | Path) -> None:
        """A folder where the server now has a file goes (``--delete``: :meth:`_folder_kept`
        keeps it otherwise); a link is replaced, never followed."""
        with contextlib.suppress(FileNotFoundError):
            info = os.lstat(target)
            if stat.S_ISDIR(info.st_mode):
                shutil.rmtree(target)
            else:
                os.unlink(target)

    def _date_folders(self, state: State) -> None:
        """Each folder gets its listing line's time (FTP's MLSD or LIST), as lftp mirror
        gives it — last, once nothing more is written in it (a new name in a folder moves
        its time).  Never through a link: the folders are the run's (:meth:`_ensure_dir`)."""
        for path, modify in state.folder_times():
            when = Listed(None, modify).rough_time
            if when is None:
                continue
            stamp = when.timestamp()
            with contextlib.suppress(OSError):
                os.utime(self.folder / path, (stamp, stamp), follow_symlinks=False)

    def _temp(self, *, nameless: bool = False) -> tuple[int, str]:
        """A temporary file for a transfer's bytes: its descriptor and name — no name ("")
        with ``nameless`` where the disk has Linux's ``O_TMPFILE`` (:mod:`omniurl.nameless`:
        nothing of a failed or killed transfer is left to clear, and one change of a folder a
        new file instead of three), else a new name in the state folder's ``tmp``."""
        if nameless and self._nameless:
            fd = open_nameless(str(self.tmp_dir))
            if fd is not None:
                return fd, ""
            self._nameless = False  # (this disk has none: named ones from now)
        self._temp_numbers += 1
        path = f"{self._tmp_prefix}{self._temp_numbers}.part"
        return os.open(path, _NEW_FILE, 0o666), path

    def _link(self, fd: int, target: str) -> None:
        """Give the complete file with no name ``fd`` the name ``target`` (``linkat`` of
        ``/proc/self/fd/N``: atomic, and it never replaces a file — one there now is
        replaced through a temporary name)."""
        with contextlib.suppress(FileExistsError):
            if self._linker.link(fd, target):
                return
        self._replace(self._named(fd), target)

    def _named(self, fd: int, folder: str = "") -> str:
        """A temporary name for the file with no name ``fd`` (to be renamed over a file), in
        the state folder's ``tmp`` (or in ``folder``, hidden): linked there, or — where
        ``/proc`` cannot link it — its bytes copied out (and named files from now on)."""
        self._temp_numbers += 1
        prefix = f"{folder}/.omniurl-mirror-{os.getpid()}-" if folder else self._tmp_prefix
        path = f"{prefix}{self._temp_numbers}.part"  # (the run's own: free)
        if self._linker.link(fd, path):
            return path
        self._nameless = False
        out = os.open(path, _NEW_FILE, 0o666)
        try:
            nameless.copy_out(fd, out)
            os.fchmod(out, stat.S_IMODE(os.fstat(fd).st_mode))
        finally:
            os.close(out)
        return path

    def _replace(self, complete: str, target: str) -> None:
        """``os.replace(complete, target)`` — or, where the tree is on another file system
        than the state folder's temporary files (a disk mounted inside DIR, a state folder
        linked to another disk: ``EXDEV``, no rename or link crosses it), ``complete``'s
        bytes and mode copied to a file beside ``target`` first (with no name while
        copied: :mod:`omniurl.nameless`), renamed over it from there, so ``target`` is
        never partial then either."""
        try:
            os.replace(complete, target)
            return
        except OSError as exc:
            if exc.errno != errno.EXDEV:
                raise
        folder = target.rpartition("/")[0]
        beside = ""
        with open(complete, "rb") as fh:
            fd = open_nameless(folder) if self._nameless else None
            if fd is None:  # (that disk has no O_TMPFILE: a hidden name from the start)
                self._temp_numbers += 1
                beside = f"{folder}/.omniurl-mirror-{os.getpid()}-{self._temp_numbers}.part"
                fd = os.open(beside, _NEW_FILE, 0o666)
            try:
                nameless.copy_out(fh.fileno(), fd)
                os.fchmod(fd, stat.S_IMODE(os.fstat(fh.fileno()).st_mode))
                if not beside:
                    beside = self._named(fd, folder)
                os.replace(beside, target)
            except BaseException:
                if beside:
                    with contextlib.suppress(OSError):
                        os.unlink(beside)
                raise
            finally:
                os.close(fd)
        os.unlink(complete)

    def _delete(self, state: State) -> None:
        """``--delete``: every file and folder under the mirror's that this run did not
        claim (gone from the source), the state directory excepted.  A folder holding a
        file this run claimed stays, claimed or not: before, a folder reached only through
        page links (``img/`` of ``<img src="img/a.png">``, never listed) was removed whole
        by a re-run with ``--delete``, its current files with it."""
        for root, dirs, files in os.walk(self.folder):
            rel = os.path.relpath(root, self.folder)
            rel = "" if rel == "." else rel.replace(os.sep, "/")
            if not rel:
                dirs[:] = [d for d in dirs if d != STATE_DIR]
            for name in files:
                path = self._join(rel, name)
                if not state.claimed(path):
                    try:
                        os.unlink(os.path.join(root, name))
                    except OSError as exc:
                        self._not_deleted(path, exc)
                        continue
                    state.forget(path)
                    self.counts.deleted += 1
            for name in list(dirs):
                path = self._join(rel, name)
                full = os.path.join(root, name)
                if os.path.islink(full) and state.claimed(path):
                    dirs.remove(name)  # (a link this run made: kept, never walked into)
                    continue
                if os.path.islink(full) or not (state.claimed(path) or state.claimed_under(path)):
                    dirs.remove(name)
                    try:
                        if os.path.islink(full):
                            os.unlink(full)
                        else:
                            shutil.rmtree(full)
                    except OSError as exc:
                        self._not_deleted(path, exc)
                        continue
                    self.counts.deleted += 1

    def _not_deleted(self, path: str, exc: OSError) -> None:
        """A local file ``--delete`` could not remove: its row (``index`` -1, the output's
        error, exit 23) — the run goes on; it ended in a traceback."""
        target = self._shown_path(path)
        row = dataclasses.replace(_failed(-1, target, exc), path=target)
        self.counts.failed += 1
        if self.first_failure is None:
            self.first_failure = row
        self.on_result(row)


def _local(target: str | Path) -> Local | None:
    """The regular file at ``target`` (a link or a folder is no local copy)."""
    try:
        info = os.lstat(target)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    return Local(info.st_size, info.st_mtime)


def _sha256(path: str | Path) -> str | None:
    try:
        with open(path, "rb") as fh:
            return hashlib.file_digest(fh, "sha256").hexdigest()
    except OSError:
        return None


async def _read_end(resource: Resource, limit: int = 64 * 1024) -> None:
    """Read a resource the mirror does not keep (a redirect's page) to its end: a reply read
    to its end hands its connection back for the next request, where one left unread is
    closed.  Past ``limit`` bytes it is not worth it.  (A 304 or 204 needs none of this: the
    HTTP executor reads it to its end, RFC 9110 §15.4.5.)"""
    seen = 0
    async for chunk in resource:
        seen += len(chunk)
        if seen > limit:
            return


async def mirror(
    config: Config,
    options: Options,
    on_result: Callable[[FetchResult], None],
    *,
    on_start: Callable[[Mirror], None] | None = None,
) -> tuple[int, Counts]:
    """Mirror ``config.url`` into ``config.folder``; each URL's row to ``on_result``.
    Returns the exit status (0, or the first failure's) and the counts."""
    from omniurl.client import AsyncClient

    if config.dask is not None and config.warc is not None:
        raise ConfigurationError(
            "--warc with --dask: the WARC records are written from the transfer, which runs "
            "on the workers: mirror without --dask to write a WARC",
            component="warc",
        )
    warc = None
    if config.warc is not None:
        from .warc import WarcLog

        warc = WarcLog(config.warc)
    n = max(1, config.concurrency)
    async with AsyncClient(
        options, max_per_host=n, max_keepalive_connections=max(n, 20), max_idle_ftp=max(n, 4)
    ) as client:
        run = Mirror(config, options, client, on_result, warc)
        if on_start is not None:
            on_start(run)
        try:
            if config.dask is not None:
                from .dask import RemoteFiles

                async with RemoteFiles(config.dask) as remote:
                    run.remote = remote
                    status = await run.run()
            else:
                status = await run.run()
        finally:
            if warc is not None:
                warc.close()
    return status, run.counts


__all__ = ["Config", "Counts", "Mirror", "mirror"]
