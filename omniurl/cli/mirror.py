"""``omniurl mirror URL DIR``: the terminal side of :mod:`omniurl.mirror` — its options,
the manifest (the batch's rows, one per URL), the progress line (files and bytes done and
known to do) and the exit status (0, or the first failure's, as a batch's)."""

from __future__ import annotations

import argparse
import sys
import time

from omniurl.exitstatus import EXIT_INTERRUPTED, EXIT_REFUSED
from omniurl.schemes.errors import OmniurlError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from omniurl.batch import FetchResult
    from omniurl.mirror.run import Counts, Mirror


def add_mirror_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("url", metavar="URL", help="the top of the tree: a directory, menu or page")
    p.add_argument("folder", metavar="DIR", help="where the tree goes (made when missing)")
    g = p.add_argument_group("mirror")
    g.add_argument(
        "--delete",
        action="store_true",
        help="remove local files and folders gone from the source (only after a run whose "
        "every listing was read)",
    )
    g.add_argument(
        "--include",
        metavar="GLOB",
        action="append",
        default=[],
        help="mirror only files whose path under DIR matches GLOB (repeatable)",
    )
    g.add_argument(
        "--exclude",
        metavar="GLOB",
        action="append",
        default=[],
        help="leave out files and folders whose path under DIR matches GLOB (a folder also "
        "as 'path/'; repeatable)",
    )
    g.add_argument("--max-depth", metavar="N", type=int, help="follow links at most N levels down")
    g.add_argument(
        "--warc",
        metavar="FILE.warc.gz",
        help="also write every fetched resource as WARC/1.1 records (ISO 28500)",
    )
    g.add_argument(
        "-Z", "--parallel", action="store_true", help="run transfers at once (one at a time "
        "otherwise)",
    )  # fmt: skip
    g.add_argument(
        "--parallel-max", metavar="N", type=int, default=50, help="with -Z: at most N at once"
    )
    g.add_argument(
        "--parallel-max-host",
        metavar="N",
        type=int,
        default=6,
        help="at most N at once to the server (6: RFC 9112 §9.4; 0: no limit but "
        "--parallel-max, curl's default)",
    )
    g.add_argument(
        "--manifest",
        metavar="FILE",
        help="one JSON line per URL as it finishes (the keys of get's --manifest)",
    )
    g.add_argument(
        "--dask",
        metavar="SCHEDULER",
        help="fetch the files on a Dask cluster: a scheduler address (tcp://host:8786) or "
        "local:N (N local worker processes); the walk, the state and the manifest stay here, "
        "DIR must be on a disk the workers share at the same path; transfers at once as -Z's "
        "(needs pip install 'omniurl[dask]'; not with --warc; see docs/mirror.md)",
    )
    g.add_argument("-v", "--verbose", action="store_true", help="the protocol conversation")
    g.add_argument("-s", "--silent", action="store_true", help="no progress and no summary")
    g.add_argument("--no-progress", action="store_true", help="no progress line")


def cmd_mirror(args: argparse.Namespace) -> int:
    from pathlib import Path

    from omniurl.cli.batch import Manifest
    from omniurl.mirror.run import Config, mirror

    from .arguments import options_from_args
    from .batch import PARALLEL_LIMITS, no_host_limit
    from .signals import run_command

    if args.parallel_max < 1 or args.parallel_max_host < 0:
        sys.stderr.write(f"omniurl: {PARALLEL_LIMITS}\n")
        return EXIT_REFUSED
    no_host_limit(args)
    if args.dask is not None and args.warc is not None:
        sys.stderr.write(
            "omniurl: mirror --dask with --warc: the records are written from the transfers, "
            "which run on the workers (mirror without --dask to write a WARC)\n"
        )
        return EXIT_REFUSED
    if args.max_depth is not None and args.max_depth < 0:
        sys.stderr.write("omniurl: --max-depth must be 0 or more\n")
        return EXIT_REFUSED
    limit = args.max_filesize
    try:
        # (a mirror leaves a file over --max-filesize out, mirror.run's rule, not an error)
        options = options_from_args(args).with_(max_filesize=None)
        manifest = Manifest(args.manifest)
    except OmniurlError as exc:
        from omniurl.exitstatus import exit_status

        sys.stderr.write(f"omniurl: {exc}\n")
        return exit_status(exc)
    config = Config(
        url=args.url,
        folder=Path(args.folder),
        delete=args.delete,
        include=tuple(args.include),
        exclude=tuple(args.exclude),
        max_depth=args.max_depth,
        max_filesize=limit,
        concurrency=(
            min(args.parallel_max, args.parallel_max_host)
            if args.parallel or args.dask is not None
            else 1
        ),
        warc=args.warc,
        dask=args.dask,
    )
    quiet = bool(args.silent)
    show = sys.stderr.isatty() and not quiet and not args.no_progress
    running: list[Mirror] = []
    last = [0.0]

    def on_result(row: FetchResult) -> None:
        manifest.write(row)
        if not row.ok and not quiet:
            _clear(show)
            message = row.error_message or ""
            named = message if row.url in message else f"{row.url}: {message}"
            sys.stderr.write(f"omniurl: {named}\n")
        now = time.monotonic()
        if show and running and now - last[0] > 0.1:
            last[0] = now
            sys.stderr.write("\r\x1b[K" + progress_line(running[0].counts))
            sys.stderr.flush()

    ended: list[Counts] = []

    async def go() -> int:
        status, counts = await mirror(config, options, on_result, on_start=running.append)
        ended.append(counts)
        return status

    try:
        status = run_command(go())
    except KeyboardInterrupt:
        sys.stderr.write("omniurl: interrupted\n")
        return EXIT_INTERRUPTED
    except OmniurlError as exc:
        from omniurl.exitstatus import exit_status

        sys.stderr.write(f"omniurl: {exc}\n")
        return exit_status(exc)
    finally:
        manifest.close()
        _clear(show)
    if not quiet and (ended or running):
        sys.stderr.write(f"omniurl: {summary_line(ended[0] if ended else running[0].counts)}\n")
    return status


def progress_line(counts: Counts) -> str:
    """Files and bytes done, and known to do (a listing may still add to them)."""
    from .progress import human_size

    return (
        f"{counts.files_done}/{counts.files_known} URLs, "
        f"{human_size(counts.bytes_done)}/{human_size(max(counts.bytes_known, counts.bytes_done))}"
    )


def summary_line(counts: Counts) -> str:
    from .progress import human_size

    elapsed = max(time.monotonic() - counts.started, 1e-9)
    # (symbolic links, only where the tree had some: FTP listings)
    links = (
        f"{counts.links} symbolic links, {counts.links_skipped} left out, "
        if counts.links or counts.links_skipped
        else ""
    )
    # (a local folder where the server now has a file or a link, kept: no --delete)
    kept = f"{counts.kept_in_the_way} folders kept in the way, " if counts.kept_in_the_way else ""
    return (
        f"mirrored {counts.files_done} URLs: {counts.fetched} written, {counts.unchanged} "
        f"unchanged, {counts.deleted} deleted, {counts.failed} failed, {links}{kept}"
        f"{human_size(counts.bytes_done)} in {elapsed:.1f} s"
    )


def _clear(show: bool) -> None:
    if show:
        sys.stderr.write("\r\x1b[K")


__all__ = ["add_mirror_arguments", "cmd_mirror", "progress_line", "summary_line"]
