"""``omniurl mirror --dask SCHEDULER``: the file fetches of a mirror on a Dask cluster.

``pip install 'omniurl[dask]'``.  The walk stays on the client — every listing, every
decision of :mod:`omniurl.mirror.walk` (which link is followed, which file is current, the
``HEAD`` a LIST-listed FTP file needs), the SQLite state, the claimed names, the manifest
rows — so the folder and the manifest are the one-process run's.  Only a file's transfer
(the bytes) is a Dask task (:func:`fetch_file`): the worker opens its own
:class:`~omniurl.AsyncClient` (planned and policy-checked as any ``get``), sends the request
the client prepared (with the stored validators: a 304 moves nothing; with FTP's ``MDTM``
in the transfer's conversation for a LIST-listed file) and writes the bytes to the
temporary name the client chose in ``DIR/.omniurl-mirror/tmp`` (or, for a large file — by
its listing's size, or by its response's for a file a link found —, ``-C``'s
``.NAME.part`` in ``DIR/.omniurl-mirror/parts``, continued where a killed attempt stopped,
:func:`_into_part`).  The client then renames the complete file over its final name and sets its
time, exactly as the one-process run (:meth:`omniurl.mirror.run.Mirror._settle`), so DIR
never holds a partial file under a final name: a worker killed mid-transfer leaves a
temporary file only, which Dask's retry of the task (the same temporary name, truncated)
or the next run clears.

DIR must therefore be a folder the workers see at the same absolute path (a shared disk;
the client makes a relative DIR absolute).  A worker's file the client cannot see is a
clear error, not a silent loss.  Transfers at once: ``--parallel-max``/``--parallel-max-host``
(the smaller), which bounds the connections the whole cluster opens to the server.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import datetime
import hashlib
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from omniurl.batch import FetchResult, _failed, _resumable, shown
from omniurl.resolvers.errors import ConfigurationError, NotFollowed, TransportError
from omniurl.resolvers.options import Options
from omniurl.schemes import parse
from omniurl.schemes.errors import OmniurlError

from .walk import Listed

if TYPE_CHECKING:
    from omniurl.partial import Kept
    from omniurl.resolvers.spec import Presentation
    from omniurl.schemes import URL

    from .run import Mirror
    from .state import Item

__all__ = ["FileDone", "FileJob", "RemoteFiles", "fetch_file"]


@dataclass(frozen=True)
class FileJob:
    """One file's transfer, as the client prepared it (picklable: plain data)."""

    index: int
    url: str
    options: Options
    tmp: str
    limit: int | None = None
    #: ``-C -``'s transfer into ``parts_dir`` under ``part_name`` (a large file).
    resumed: bool = False
    parts_dir: str = ""
    part_name: str = ""
    #: A file no listing gave the size of (a link): into ``parts_dir`` too when its response
    #: says it is large, so that a killed transfer is continued (as one process does).
    sized_by_response: bool = False


@dataclass
class FileDone:
    """What a worker did: the bytes' temporary name, count and digest, the facts the
    client records; or that nothing changed (304), or the file was too large, or failed."""

    unchanged: bool = False
    skipped: bool = False
    failed: FetchResult | None = None
    tmp: str = ""
    count: int = 0
    digest: str = ""
    modified: datetime.datetime | None = None
    validators: dict[str, str] = field(default_factory=dict)
    media_type: str | None = None
    #: The charset the server declared (``Resource.charset``): how the page is read.
    charset: str | None = None
    status: int | None = None
    #: Where a redirect led (queued by the client as a link, as one process does).
    moved: str | None = None


class _TooLarge(Exception):
    pass


def fetch_file(job: FileJob) -> FileDone:
    """The Dask task (on a worker): one file fetched to its temporary name."""
    started = time.monotonic()
    try:
        return asyncio.run(_fetch_file(job))
    except NotFollowed as exc:  # a redirect the scheme raises (Gemini's 3x): as one process
        return FileDone(moved=str(exc.target))
    except (OmniurlError, OSError) as exc:
        with contextlib.suppress(OSError):
            os.unlink(job.tmp)
        return FileDone(failed=_failed(job.index, job.url, exc, time.monotonic() - started))
    except Exception as exc:  # a defect: the row a one-process run gives (Mirror._visit)
        with contextlib.suppress(OSError):
            os.unlink(job.tmp)
        row = _failed(job.index, job.url, exc, time.monotonic() - started)
        message = f"{shown(job.url)}: unexpected {type(exc).__name__}: {exc}"
        return FileDone(failed=dataclasses.replace(row, error_message=message))


async def _fetch_file(job: FileJob) -> FileDone:
    from omniurl.client import AsyncClient
    from omniurl.resolvers.registry import spec_for

    from .run import RESUMED_FROM

    url = parse(job.url, syntax=job.options.syntax)
    presentation = spec_for(url.scheme).present()
    async with AsyncClient(job.options) as client:
        if job.resumed:
            return await _resumed(job, url, client, presentation)
        async with client.stream(url, options=job.options) as resource:
            moved = presentation.moved_to(resource)
            if moved is not None:  # (HTTP's 3xx given as the result: no file)
                return FileDone(moved=moved, status=resource.status)
            if presentation.unchanged(resource):
                return FileDone(unchanged=True)
            if resource.kind != "content":
                raise ConfigurationError(
                    f"{url}: a {resource.kind}, not a file", component="scheme"
                )
            total = resource.total if resource.total is not None else resource.size
            if (
                job.sized_by_response
                and total is not None
                and total >= RESUMED_FROM
                and _resumable(url, job.options)
            ):
                if job.limit is not None and total > job.limit:
                    return FileDone(skipped=True)
                return await _into_part(job, url, resource, presentation)
            args = argparse.Namespace(raw=False, output="-mirror-", remote_name=True, json=False)
            text = presentation.text_source(resource, args)
            resource.views_ok = text is None
            digest = hashlib.sha256()
            count = 0
            flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0)
            fd = os.open(job.tmp, flags, 0o666)  # a retried task truncates its own
            try:
                async for chunk in text if text is not None else resource:
                    count += len(chunk)
                    if job.limit is not None and count > job.limit:
                        raise _TooLarge
                    digest.update(chunk)
                    view = memoryview(chunk)
                    while view:
                        view = view[os.write(fd, view) :]
            except _TooLarge:
                os.close(fd)
                fd = -1
                os.unlink(job.tmp)
                return FileDone(skipped=True)
            finally:
                if fd >= 0:
                    os.close(fd)
            facts = presentation.mirror_facts(resource)
            return FileDone(
                tmp=job.tmp,
                count=count,
                digest=digest.hexdigest(),
                modified=facts.modified,
                validators=dict(facts.validators),
                media_type=resource.media_type,
                charset=resource.charset,
                status=resource.status,
            )


async def _resumed(job: FileJob, url: URL, client: Any, presentation: Presentation) -> FileDone:
    """``-C -``'s transfer of a large file (or one a killed attempt left a part of), as the
    one-process mirror runs it (:meth:`omniurl.mirror.run.Mirror._resumed`): continued with
    the sidecar's validator, fetched whole when the part is longer than the file."""
    from omniurl.partial import Kept, Partial, resume_facts

    kept = Partial(Path(job.parts_dir) / job.part_name).kept(str(url))
    for _attempt in range(2):
        options = job.options.with_(resume_from=kept.offset, resume_validator=kept.validator)
        async with client.stream(url, options=options) as resource:
            moved = presentation.moved_to(resource)
            if moved is not None:
                return FileDone(moved=moved, status=resource.status)
            outcome = resume_facts(resource).outcome
            if outcome == "refetch":  # the part is too long
                kept = Kept(0, None, None)
                continue
            if resource.kind != "content" and outcome != "complete":
                raise ConfigurationError(
                    f"{url}: a {resource.kind}, not a file", component="scheme"
                )
            return await _into_part(job, url, resource, presentation, kept)
    raise ConfigurationError(f"{url}: the server refused to continue", component="scheme")


async def _into_part(
    job: FileJob, url: URL, resource: Any, presentation: Presentation, kept: Kept | None = None
) -> FileDone:
    """The bytes to ``-C``'s ``.NAME.part`` in ``parts_dir`` (its validator in the sidecar,
    what a killed attempt leaves to continue), ``NAME`` once complete; the response's
    facts (time, validators) for the client, as :meth:`Mirror._into_part` keeps them."""
    from omniurl.partial import Kept, Partial, write_resumed

    parts = Path(job.parts_dir)
    parts.mkdir(exist_ok=True)
    partial = Partial(parts / job.part_name)
    await write_resumed(partial, kept or Kept(0, None, None), resource, str(url))
    with open(partial.target, "rb") as fh:
        digest = hashlib.file_digest(fh, "sha256").hexdigest()
    facts = presentation.mirror_facts(resource)
    return FileDone(
        tmp=str(partial.target),
        count=partial.target.stat().st_size,
        digest=digest,
        modified=facts.modified,
        validators=dict(facts.validators),
        media_type=resource.media_type,
        charset=resource.charset,
        status=resource.status,
    )


def _portable(options: Options) -> Options:
    """Options a worker can receive: no callbacks (no terminal there), no live pools."""
    return dataclasses.replace(options, ask=None, transcript=None, form=None, shared=None)


class RemoteFiles:
    """The client's side: a connection to the scheduler (or a ``local:N`` LocalCluster of
    N worker processes, as ``get -i --dask``), each file's task submitted and its result
    settled into the tree by the :class:`~omniurl.mirror.run.Mirror`."""

    def __init__(self, scheduler: str) -> None:
        self.scheduler = scheduler
        self._client: Any = None
        self._cluster: Any = None

    async def __aenter__(self) -> RemoteFiles:
        try:
            from distributed import Client, LocalCluster
        except ImportError as exc:
            raise ConfigurationError(
                f"--dask needs the dask extra: pip install 'omniurl[dask]' ({exc.name} is missing)",
                component="dask",
            ) from None
        address: Any = self.scheduler
        try:
            if self.scheduler.startswith("local:"):
                workers = int(self.scheduler.split(":", 1)[1] or "2")
                self._cluster = await LocalCluster(
                    n_workers=workers,
                    threads_per_worker=1,
                    processes=True,
                    # the scheduler's HTTP server on a free port: 8787 may be another
                    # cluster's (taken, distributed warns and picks one anyway)
                    dashboard_address=":0",
                    asynchronous=True,
                )
                address = self._cluster
            self._client = await asyncio.wait_for(Client(address, asynchronous=True), 60)
        except (OSError, ValueError, TimeoutError) as exc:
            await self._close()
            raise ConfigurationError(
                f"--dask {self.scheduler}: cannot reach the scheduler: {exc}", component="dask"
            ) from None
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._close()

    async def _close(self) -> None:
        if self._client is not None:
            with contextlib.suppress(Exception):
                await self._client.close()
            self._client = None
        if self._cluster is not None:
            with contextlib.suppress(Exception):
                await self._cluster.close()
            self._cluster = None

    async def _run(self, job: FileJob) -> FileDone:
        future = self._client.submit(fetch_file, job, pure=False)
        try:
            done: FileDone = await future
        except Exception as exc:  # the cluster lost the task: KilledWorker, a lost scheduler…
            raise TransportError(
                f"{shown(job.url)}: --dask: the cluster did not run the transfer "
                f"({type(exc).__name__}: {exc})",
                component="dask",
            ) from None
        return done

    async def file(
        self,
        run: Mirror,
        item: Item,
        url: URL,
        listed: Listed,
        record: dict[str, Any] | None,
        have_local: bool,
        target: Path,
        started: float,
    ) -> FetchResult:
        """One file: its transfer on a worker, then settled here as the one-process run
        settles it (the same names, bytes, times, state and manifest row)."""
        from .run import RESUMED_FROM, _Skip

        limit = run.config.max_filesize
        part = run._part_of(item)
        resumed = (listed.size is not None and listed.size >= RESUMED_FROM) or part.exists()
        # A listing's rough time (LIST): the exact one asked in the transfer's own
        # conversation where the scheme can (FTP: MDTM before EPSV), as one process does.
        rough = listed.exact_time is None and listed.size is not None
        timed = run._timed() if rough and not resumed else None
        options = timed if timed is not None else run.options
        validators = run._validators(item.url, record)
        if have_local and validators and not resumed:
            options = run.presentation.revalidate(options, validators) or options
        job = FileJob(
            index=item.seq - 1,
            url=str(url),
            options=_portable(options),
            tmp=str((run.tmp_dir / f"dask-{item.seq}.part").absolute()),
            limit=limit,
            resumed=resumed,
            parts_dir=str(part.parent.absolute()),
            part_name=part.name[1:].removesuffix(".part"),
            sized_by_response=listed.size is None,
        )
        done = await self._run(job)
        if done.moved is not None:
            raise NotFollowed(
                f"{shown(job.url)}: moved to {done.moved} (not followed)",
                target=done.moved,
                reason="redirect",
            )
        if done.failed is not None:
            return dataclasses.replace(done.failed, url=shown(item.url), path=str(target))
        if done.skipped:
            raise _Skip
        if done.unchanged:
            run._links_of_kept(item, record, target)
            return run._unchanged(item, started)
        if not os.path.exists(done.tmp):
            raise ConfigurationError(
                f"--dask: a worker wrote {done.tmp}, which this machine does not see: DIR "
                "must be on a disk the workers share at the same path",
                component="dask",
            )
        run.counts.bytes_done += done.count
        modified = done.modified or listed.exact_time
        if modified is None and rough and timed is None:
            modified = await run._time_of(url)  # LIST's rough time: MDTM's, asked after
        wrote = run._settle(
            item.path, done.tmp, done.digest, done.count, modified, done.validators,
            done.media_type, listed, charset=done.charset,
        )  # fmt: skip
        return run._settled(
            item, target, done.media_type, done.count, done.digest, wrote, started, done.status,
            done.charset,
        )  # fmt: skip
