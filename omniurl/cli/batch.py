"""``omniurl get`` of many URLs: the input list, the manifest, the progress line and the
batch's exit status — the terminal side of :func:`omniurl.batch.fetch_many`.

- ``get URL…``, ``-i FILE`` or ``-Z`` make a batch.  Without ``-Z`` the URLs are fetched one
  at a time (curl's default); ``-Z`` runs up to ``--parallel-max`` at once, at most
  ``--parallel-max-host`` per server.  Several URLs with no ``--output-dir``, ``-O`` or
  ``--manifest`` are written to standard output one after the other, as curl does.

- URLs come from the command line and from ``-i FILE`` / ``-i -`` (one a line; blank lines
  and ``#`` comments skipped), read lazily: a list of 10⁶ URLs is never held at once.
- ``--manifest FILE`` gets one JSON object per URL (:meth:`FetchResult.to_json`), in
  completion order, flushed as it goes, so an interrupted batch keeps what it did.
- The exit status is 0 when every URL succeeded, else the status of the first failure in
  input order (the documented statuses of a single ``get``), whatever order the
  transfers ended in, with the counts on stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import time
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from dataclasses import replace
from typing import IO, TextIO

from omniurl.batch import FetchResult, Opener, Unreadable, fetch_many
from omniurl.exitstatus import EXIT_HTTP_FAIL
from omniurl.resolvers.errors import ConfigurationError
from omniurl.resolvers.options import Options

from .inputs import count_urls, url_source


def read_url_lines(lines: Iterable[str]) -> Iterator[str]:
    """The URLs of an input list: one a line, blank lines and ``#`` comments skipped."""
    for line in lines:
        text = line.strip()
        if text and not text.startswith("#"):
            yield text


async def as_typed(
    urls: AsyncIterable[str | Unreadable], syntax: str, *, strict: bool
) -> AsyncIterator[str | Unreadable]:
    """Each URL as ``get`` reads a typed one (:func:`.text.parse_typed`: a raw space or a
    stray ``%`` encoded as a browser does, with a note; not with ``--strict``), so the
    manifest names the URL actually fetched; one typed without its scheme becomes a failed
    row asking "did you mean http://…" (:func:`.text.no_scheme`).  Others pass as they are
    (a URL parses once more only when it has a space or a stray ``%``)."""
    from omniurl.schemes.errors import URLError

    from .text import browser_form, no_scheme, parse_typed

    async for text in urls:
        if isinstance(text, str) and not strict and browser_form(text) is not None:
            with contextlib.suppress(URLError):
                text = str(parse_typed(text, syntax))
        elif isinstance(text, str) and (refused := no_scheme(text)) is not None:
            # typed without its scheme (localhost:8081/x): the row asks "did you mean
            # http://…", as a single get does, not "no resolver for localhost: URLs"
            text = Unreadable(text, refused)
        yield text


class Manifest:
    """JSON Lines, one row per URL, flushed per row (an interrupted batch keeps its prefix)."""

    def __init__(self, path: str | None) -> None:
        self._file: IO[str] | None = None
        self._path = path
        if path is not None:
            import json  # (here: a batch without a manifest has no JSON to write)

            self._dumps = json.dumps
            try:
                self._file = open(path, "w", encoding="utf-8")  # noqa: SIM115 - closed in close()
            except OSError as exc:
                raise ConfigurationError(
                    f"cannot write the manifest {path}: {exc.strerror or exc}",
                    component="manifest",
                ) from None

    def write(self, result: FetchResult) -> None:
        if self._file is not None:
            try:
                self._file.write(self._dumps(result.to_json(), ensure_ascii=False) + "\n")
                self._file.flush()
            except OSError as exc:
                self._failed(exc)

    def close(self) -> None:
        if self._file is not None:
            try:
                self._file.close()
            except OSError as exc:
                self._failed(exc)
            self._file = None

    def _failed(self, exc: OSError) -> None:
        """A row that cannot be written (a full disk): curl's write error, 23, with the
        operating system's reason, never a traceback; the manifest is closed (no second
        report from :meth:`close`)."""
        from .output import OutputError

        file, self._file = self._file, None
        if file is not None:
            with contextlib.suppress(OSError):
                file.close()  # (the descriptor is closed even when the flush fails)
        raise OutputError(
            f"cannot write the manifest {self._path}: {exc.strerror or exc}", component="manifest"
        ) from None


class Tally:
    """Counts for the progress line and the closing summary."""

    def __init__(self, total: int | None = None) -> None:
        self.total = total
        self.done = 0
        self.failed = 0
        self.bytes = 0
        self.started = time.monotonic()
        self.first_failure: FetchResult | None = None

    def add(self, result: FetchResult) -> None:
        self.done += 1
        self.bytes += result.bytes
        if not result.ok:
            self.failed += 1
            # The first in input order, not in completion order: under -Z a later URL
            # that fails fast must not decide the status ahead of an earlier one.
            first = self.first_failure
            if first is None or result.index < first.index:
                self.first_failure = result

    def line(self) -> str:
        elapsed = max(time.monotonic() - self.started, 1e-9)
        rate = self.bytes / elapsed
        of = f" of {self.total}" if self.total is not None else ""
        return (
            f"{self.done}{of} URLs: {self.done - self.failed} ok, {self.failed} failed, "
            f"{_size(self.bytes)} in {elapsed:.1f} s ({_size(rate)}/s)"
        )

    @property
    def status(self) -> int:
        return 0 if self.first_failure is None else self.first_failure.exit_status


def _size(n: float) -> str:
    from .progress import human_size

    return human_size(n)


async def run_batch(
    urls: Iterable[str | Unreadable] | AsyncIterable[str | Unreadable],
    options: Options,
    *,
    concurrency: int,
    per_host: int,
    output_dir: str | None,
    manifest: str | None,
    show_progress: bool,
    quiet: bool = False,
    opener: Opener | None = None,
    stderr: TextIO | None = None,
    resume: bool = False,
    total: int | None = None,
    results: AsyncIterator[FetchResult] | None = None,
    write_out: str | None = None,
    fail: bool = False,
    show_error: bool = False,
    header_names: bool = False,
) -> int:
    """Fetch every URL; write the manifest; return the batch's exit status.  ``total`` (when
    known) makes the progress line say "done of total"; ``write_out`` is ``-w``'s format,
    printed for each URL as it finishes; ``fail`` (``-f``) makes an HTTP status of 400 or
    above exit 22, as curl's and a single ``get -f``; ``show_error`` (``-S``) prints each
    failure's line even when ``quiet`` (``-s``) hides the rest, as curl's ``-sS``."""
    err = stderr or sys.stderr
    tally = Tally(total)
    rows = Manifest(manifest)
    last_draw = 0.0
    client = None
    if results is None and opener is None:
        # One client for the batch: HTTP keep-alive connections and FTP control connections
        # (§3.2.5) reused across its URLs.  Without it every URL opened its own connection
        # and transport (2,000 files from nginx: 2,000 connects, 14 s; with it 6 per host).
        from omniurl.client import AsyncClient

        client = AsyncClient(options, max_keepalive_connections=max(concurrency, 20))
        results = client.fetch_many(
            urls,
            concurrency=concurrency,
            per_host=per_host,
            output_dir=output_dir,
            resume=resume,
            trace=write_out is not None,  # (-w's phases and addresses, per URL)
            header_names=header_names,
            digest=manifest is not None,  # (only the manifest shows a row's sha256)
        )
    elif results is None:
        results = fetch_many(
            urls,
            options=options,
            concurrency=concurrency,
            per_host=per_host,
            output_dir=output_dir,
            opener=opener,
            resume=resume,
            header_names=header_names,
            digest=manifest is not None,
        )
    try:
        async for result in results:
            if fail and not result.ok and (result.status or 0) >= 400:
                result = replace(result, exit_status=EXIT_HTTP_FAIL)
            tally.add(result)
            rows.write(result)
            if not result.ok and (show_error or not quiet):
                _clear(err, show_progress)
                message = result.error_message or ""
                # Most messages name their URL already: never "URL: URL: …".
                named = message if result.url in message else f"{result.url}: {message}"
                err.write(f"omniurl: {named}\n")
            if write_out is not None:
                _clear(err, show_progress)
                _write_out(write_out, result, err)
            now = time.monotonic()
            if show_progress and now - last_draw > 0.1:
                last_draw = now
                err.write("\r\x1b[K" + tally.line())
                err.flush()
    finally:
        try:
            await results.aclose()  # type: ignore[attr-defined]
        finally:
            if client is not None:
                await client.aclose()
        rows.close()
        _clear(err, show_progress)
        if not quiet:
            err.write(f"omniurl: {tally.line()}\n")
            err.flush()
    return tally.status


async def _on_dask(
    urls: AsyncIterable[str | Unreadable],
    options: Options,
    scheduler: str,
    *,
    concurrency: int,
    per_host: int,
    output_dir: str | None,
) -> AsyncIterator[FetchResult]:
    """``--dask``: the batch on a cluster (omniurl.integrations.dask), its rows as the
    single-machine batch's, in input order."""
    try:
        from omniurl.integrations.dask import run_cli
    except ImportError as exc:
        raise ConfigurationError(
            f"--dask needs the dask extra: pip install 'omniurl[dask]' ({exc.name} is missing)",
            component="dask",
        ) from None
    from dataclasses import replace

    from omniurl.batch import _failed

    items = [item async for item in urls]  # (the cluster is given a list)
    texts = [item for item in items if isinstance(item, str)]
    positions = [index for index, item in enumerate(items) if isinstance(item, str)]
    rows = await asyncio.to_thread(
        lambda: list(
            run_cli(
                texts,
                options,
                scheduler=scheduler,
                concurrency=concurrency,
                per_host=per_host,
                output_dir=output_dir,
            )
        )
    )
    ordered = [replace(row, index=positions[row.index]) for row in rows]
    ordered += [
        _failed(index, item.text, item.error)
        for index, item in enumerate(items)
        if isinstance(item, Unreadable)
    ]
    for row in sorted(ordered, key=lambda row: row.index):
        yield row


def _write_out(fmt: str, result: FetchResult, err: TextIO) -> None:
    """``-w`` for one URL of a batch, from its result."""
    from .writeout import Transfer, write_out

    transfer = Transfer(
        url=result.effective_url or result.url,
        given=result.url,
        http_code=result.status,
        size=result.bytes,
        seconds=result.elapsed,
        exitcode=result.exit_status,
        errormsg=result.error_message or "",
        content_type=result.media_type or "",
        num_redirects=len(result.chain),
        filename=result.path or "",
        trace=result.trace,
    )
    transfer.heads(result.heads)
    try:
        write_out(fmt, transfer, stdout=sys.stdout, stderr=err)
    except BrokenPipeError:
        raise
    except OSError as exc:  # (a full disk behind a redirection: 23, as a single get's)
        from .emit import stdout_error

        raise stdout_error(exc) from None


def _clear(err: TextIO, show_progress: bool) -> None:
    if show_progress:
        err.write("\r\x1b[K")


def batch_usage_error(args: argparse.Namespace) -> str | None:
    """What is wrong with a batch's options (a usage error, exit 2), or None."""
    if not args.urls and not args.input:
        return "get needs a URL (or -i FILE with one URL a line)"
    nowhere = args.output_dir is None and not args.remote_name and args.manifest is None
    if args.parallel and nowhere:
        return (
            "parallel transfers would interleave on standard output: give --output-dir "
            "DIR or -O (each content saved under its URL's name), or --manifest FILE "
            "(contents only counted and hashed)"
        )
    continue_at = getattr(args, "continue_at", None)
    if continue_at is not None and continue_at != "-":
        return "-C N names one offset: in a batch use -C - (each file continues its own part)"
    if continue_at is not None and args.output_dir is None and not args.remote_name:
        return "-C - continues files: give --output-dir DIR or -O"
    if args.parallel_max < 1 or args.parallel_max_host < 0:
        return PARALLEL_LIMITS
    procs = getattr(args, "procs", None)
    if procs is not None and procs < 1:
        return "--procs must be at least 1"
    if procs is not None and procs > 1 and not args.parallel:
        return "--procs N splits a -Z batch: add -Z (without it the URLs run one at a time)"
    return None


#: Descriptors a running transfer may hold at once: its connection, an FTP data connection,
#: the file it writes, and the kept connection it may leave idle (the client keeps up to
#: ``max(concurrency, 20)``).  And what the process holds besides: standard streams, the
#: loop's selector and wake-up pipe, the list read, the manifest, ``--procs``' pipes, and a
#: module imported on first use (an import opens its file).
DESCRIPTORS_A_TRANSFER = 4
DESCRIPTORS_BESIDE = 64


def descriptor_bound(limit: int | None = None) -> int | None:
    """The most transfers at once that the soft descriptor limit (``ulimit -n``) leaves room
    for, or None when it sets none.  Past it, a batch ran out of descriptors half way: a
    socket refused (a typed error) and then an import on the error's path failed, a
    traceback with files missing (250 URLs at ``--parallel-max 300``, ``ulimit -n 128``).
    curl does not check; a batch here lowers ``--parallel-max`` to it and says so."""
    if limit is None:
        try:
            import resource
        except ImportError:  # (no such module off POSIX)
            return None
        limit, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if limit == resource.RLIM_INFINITY:
            return None
    return max(1, (limit - DESCRIPTORS_BESIDE) // DESCRIPTORS_A_TRANSFER)


#: The usage error of a limit out of range (exit 2).
PARALLEL_LIMITS = (
    "--parallel-max must be at least 1 and --parallel-max-host at least 0 (0: no limit per server)"
)


def no_host_limit(args: argparse.Namespace) -> None:
    """``--parallel-max-host 0`` as curl reads it (its default, 8.16+: no limit per
    server): the transfers to one server bounded only by ``--parallel-max``."""
    if args.parallel_max_host == 0:
        args.parallel_max_host = args.parallel_max


def bound_parallel_max(args: argparse.Namespace, err: TextIO) -> None:
    """Lower a ``-Z`` batch's ``--parallel-max`` to :func:`descriptor_bound`, with a note on
    stderr (not under ``-s``)."""
    bound = descriptor_bound() if args.parallel else None
    if bound is not None and args.parallel_max > bound:
        if not getattr(args, "silent", False):
            print(
                f"omniurl: --parallel-max {args.parallel_max} lowered to {bound}: the limit "
                "of open files (ulimit -n) leaves room for that many transfers at once",
                file=err,
            )
        args.parallel_max = bound


def to_stdout(args: argparse.Namespace) -> bool:
    """A plain sequence of URLs with nowhere else to go: each written to stdout in turn."""
    return (
        not args.parallel
        and args.output_dir is None
        and not args.remote_name
        and args.manifest is None
    )


async def run_from_args(args: argparse.Namespace, options: Options) -> int:
    """``omniurl get`` of a batch (see :func:`omniurl.cli.early.is_batch`), with its documented
    exit status."""
    folder = args.output_dir if args.output_dir is not None else "." if args.remote_name else None
    fail = bool(getattr(args, "fail", False))
    if not (fail or getattr(args, "continue_at", None) is not None):
        # curl's way, as a single get (cli.early.curl_manners): an HTTP error reply's body is
        # saved under the URL's name and the row keeps its typed status (5); -f saves nothing
        # and exits 22; -C - keeps a part for the resource's own bytes only
        options = options.with_(error_body=True)
    bound_parallel_max(args, sys.stderr)
    no_host_limit(args)
    urls = as_typed(url_source(args.urls, args.input), options.syntax, strict=args.strict)
    silent = bool(getattr(args, "silent", False))
    show = sys.stderr.isatty() and not silent
    scheduler = getattr(args, "dask", None)
    if scheduler is not None:
        return await run_batch(
            urls,
            options,
            concurrency=args.parallel_max if args.parallel else 1,
            per_host=args.parallel_max_host,
            output_dir=folder,
            manifest=args.manifest,
            show_progress=False,
            quiet=silent,
            show_error=bool(getattr(args, "show_error", False)),
            write_out=args.write_out,
            fail=fail,
            results=_on_dask(
                urls,
                options,
                scheduler,
                concurrency=args.parallel_max,
                per_host=args.parallel_max_host,
                output_dir=folder,
            ),
        )
    resume = getattr(args, "continue_at", None) is not None
    procs = getattr(args, "procs", None)
    # -J: the name the server suggests, as a single get -J -O takes it (before, a batch
    # ignored it: get -J -O URL1 URL2 saved both under their URLs' names).
    header_names = bool(getattr(args, "remote_header_name", False)) and folder is not None
    if args.parallel and not resume and args.write_out is None and procs != 1:
        # A large -Z batch on more than one core (omniurl.batch_procs).  Not with -C -
        # (names given in input order over the whole list) nor -w (its per-URL trace).
        from omniurl.batch_procs import fetch_split

        return await run_batch(
            urls,
            options,
            concurrency=args.parallel_max,
            per_host=args.parallel_max_host,
            output_dir=folder,
            manifest=args.manifest,
            show_progress=show,
            quiet=silent,
            show_error=bool(getattr(args, "show_error", False)),
            total=count_urls(args.urls, args.input) if show else None,
            fail=fail,
            results=fetch_split(
                urls,
                options,
                procs=procs,
                concurrency=args.parallel_max,
                per_host=args.parallel_max_host,
                output_dir=folder,
                header_names=header_names,
                # (only the manifest shows a sha256, and a successful row's other fields)
                full_rows=args.manifest is not None,
            ),
        )
    return await run_batch(
        urls,
        options,
        concurrency=args.parallel_max if args.parallel else 1,
        per_host=args.parallel_max_host,
        output_dir=folder,
        manifest=args.manifest,
        show_progress=show,
        quiet=silent,
        show_error=bool(getattr(args, "show_error", False)),
        resume=resume,
        total=count_urls(args.urls, args.input) if show else None,
        write_out=args.write_out,
        fail=fail,
        header_names=header_names,
    )


__all__ = [
    "Manifest",
    "Tally",
    "as_typed",
    "batch_usage_error",
    "count_urls",
    "read_url_lines",
    "run_batch",
    "run_from_args",
    "to_stdout",
    "url_source",
]
