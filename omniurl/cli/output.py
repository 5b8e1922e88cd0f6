"""Writing content where ``-o``/``-O`` says, atomically: a temporary file in the same folder,
renamed over the target only once the transfer completed; FIFOs and devices written into."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterable

from omniurl.exitstatus import OutputError
from omniurl.resolvers.errors import suppress
from omniurl.schemes.records import record

from .emit import stdout_error

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing's import: ~9 ms of a get's start, docs/speed.md)
    import argparse
    from typing import Any, BinaryIO

    from omniurl.partial import Kept, Partial
    from omniurl.resolvers.resource import Resource

    from .progress import Progress


@record(frozen=True)
class Written:
    """What the command wrote of a content: ``size`` bytes, to the file ``output`` (None:
    read and counted for ``--json`` on standard output).  Not the resolver's: ``-w``
    reports it, and ``--json`` adds it to the resource's ``"metadata"`` (:meth:`to_json`)."""

    size: int
    output: str | None = None

    def to_json(self) -> dict[str, Any]:
        """``bytes`` and ``output`` (when written to a file), the keys ``--json`` adds."""
        if self.output is None:
            return {"bytes": self.size}
        return {"bytes": self.size, "output": self.output}

    def merged(self, described: dict[str, Any]) -> dict[str, Any]:
        """``described`` (the ``--json`` object) with :meth:`to_json` after its
        ``"metadata"``."""
        return {**described, "metadata": {**(described.get("metadata") or {}), **self.to_json()}}


def show_progress(args: argparse.Namespace) -> bool:
    """A progress bar on a terminal's stderr, unless ``-s``/``--silent`` or
    ``--no-progress``."""
    if getattr(args, "silent", False) or getattr(args, "no_progress", False):
        return False
    return sys.stderr.isatty()


def shown(path: str) -> str:
    """``path`` written as ``pathlib`` writes it (``./a//b/`` is ``a/b``; ``..`` kept, as
    the file system reads it): the file that is written, and its name in messages,
    ``--json``'s ``"output"`` and ``-w %{filename_effective}``.  Strings, not ``pathlib``
    objects: ``pathlib`` (with ``urllib.parse`` and ``fnmatch``) was ~2-4 ms of CPU of
    every ``get -o FILE``."""
    lead = "//" if path[:2] == "//" and path[2:3] != "/" else "/" if path[:1] == "/" else ""
    return lead + "/".join(part for part in path.split("/") if part not in ("", ".")) or "."


def _output_failed(path: str, exc: OSError) -> OutputError:
    return OutputError(f"cannot write {path}: {exc.strerror or exc}", component="output")


def _no_part(path: str, folder: str, exc: OSError) -> OutputError | None:
    """Why no temporary file can be made beside ``path`` (in ``folder``), in the words
    that fit: its folder is missing (``--create-dirs``), or the OS's reason.  None when the
    folder exists and ``path`` is a file there although the folder takes no new file: a
    kernel interface of /proc or /sys (ENOENT), written into as a device is, so that what
    the OS says of the write itself is the error ("Input/output error", "Permission
    denied"), as curl reports it — never the folder's "No such file or directory"."""
    import errno

    if exc.errno == errno.ENOENT and not os.path.isdir(folder):
        return OutputError(
            f"cannot write {path}: the folder {folder} does not exist (--create-dirs makes it)",
            component="output",
        )
    if exc.errno == errno.ENOENT and os.path.isfile(path):
        return None
    return _output_failed(path, exc)


def output_path(args: argparse.Namespace, resource: Resource) -> str | None:
    """The file the content goes to (None: standard output), written as :func:`shown`
    writes it."""
    if args.output == "-":  # curl's -o -: standard output, even a terminal
        return None
    if args.output:
        return shown(args.output)
    if args.remote_name:
        # The URL the user gave, never the one a redirect chose (wget's CVE-2010-2252):
        # resource.chain[0] is where the redirects began.  -J: the server's name, only
        # when asked, sanitised the same way.
        from omniurl.batch import output_name
        from omniurl.schemes import parse

        # (--output-dir: -O paired with one URL of several, as curl's.)
        folder = getattr(args, "output_dir", None) or ""
        if getattr(args, "remote_header_name", False):
            from omniurl.batch import header_name

            named = header_name(resource)
            if named is not None:
                return shown(os.path.join(folder, named))
        given = resource.chain[0] if resource.chain else str(resource.url)
        name = output_name(parse(given), listing=resource.kind == "listing")
        return shown(os.path.join(folder, name))
    return None


def binary_guard(args: argparse.Namespace, first: bytes) -> None:
    """curl's rule: binary content (a NUL in its first bytes) is not written to a terminal
    unless ``-o -`` says so."""
    if args.output != "-" and sys.stdout.isatty() and b"\0" in bytes(first[:4096]):
        raise OutputError(
            "binary output would mess up the terminal: save it with -o FILE or -O, or "
            "write it anyway with -o -",
            component="output",
        )


def summary(args: argparse.Namespace, size: int, path: str, seconds: float) -> None:
    """One line on a terminal's stderr after a transfer to a file: size, time, rate, where."""
    if getattr(args, "silent", False) or not sys.stderr.isatty():
        return
    from .progress import human_size

    rate = size / seconds if seconds > 0 else 0.0
    sys.stderr.write(
        f"omniurl: {human_size(size)} in {seconds:.1f} s ({human_size(rate)}/s) -> {path}\n"
    )


def _progress(resource: Resource) -> Progress:
    """A progress bar (its module imported only for a terminal's stderr: a get to a file
    from a program or a script shows none)."""
    from .progress import Progress

    return Progress(resource)


#: What a listing is in a file, for -o, -O and standard output alike (omniurl.saving,
#: imported for a listing only).
_SAVING = {"listing_line": "listing_line", "listing_lines": "listing_bytes"}


def __getattr__(name: str) -> Any:
    if name in _SAVING:
        from omniurl import saving

        return getattr(saving, _SAVING[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


async def write_content(
    args: argparse.Namespace,
    resource: Resource,
    chunks: AsyncIterable[bytes] | None = None,
    resume: tuple[Partial, Kept] | None = None,
) -> Written | None:
    """Stream the body (or ``chunks``) to stdout or to a file, atomically: a temporary file in
    the same folder, renamed over the target only once the transfer completed.  What was
    written (None: the content went to standard output as it is)."""
    from omniurl.memory import bulk
    from omniurl.resolvers.net import is_moved
    from omniurl.resolvers.registry import unchanged

    source = bulk(resource if chunks is None else chunks)
    if resume is not None:
        return await _write_resumed(resume[0], resume[1], resource, source)
    # Each chunk below is written before the next is asked for: the resource may hand out
    # views of one buffer it reuses (resolvers.resource.Resource.views_ok).
    resource.views_ok = chunks is None
    path = output_path(args, resource)
    if path is not None and unchanged(resource):  # (no file: as curl makes none)
        async for _chunk in source:  # (none: RFC 9110 §15.4.5)
            pass
        return None
    if path is None and args.json:
        # stdout carries the metadata JSON: the content is read (to know it arrived whole)
        # and counted, not printed.
        async for _chunk in bulk(resource):
            pass
        return Written(resource.bytes_read)
    if path is None:
        out = sys.stdout.buffer
        # Content redirected to a file or pipe while a person watches stderr: show progress
        # (as curl does); never when the content itself goes to the terminal.
        bar = _progress(resource) if show_progress(args) and not sys.stdout.isatty() else None
        first = True
        try:
            sink = _sink(resource, chunks, out)
            async for chunk in source:
                if first:
                    binary_guard(args, chunk)
                    first = False
                if sink:
                    if not is_moved(chunk):
                        out.write(chunk)
                        out.flush()  # (before the next bytes spliced past this buffer)
                else:
                    out.write(chunk)
                if bar:
                    bar.update()
            out.flush()
        except BrokenPipeError:
            raise  # the reader went away (| head): main() ends quietly
        except OSError as exc:  # a full disk behind a redirection
            raise stdout_error(exc) from None
        finally:
            if bar:
                bar.stop()
        return None
    if _is_special(path):
        return await _write_special(path, source)
    if os.path.isdir(path):  # before a byte is read: the content could never go there
        raise OutputError(f"cannot write {path}: Is a directory", component="output")
    # A link is written through for a name the user gave (-o), never for one the URL or the
    # server gave (-O, -J): a link there is replaced, as a file is.
    real = through_links(path) if args.output not in (None, "-") else path
    if real is None:  # /dev/stdout, /dev/fd/N: a descriptor, written into as a device is
        return await _write_special(path, source)
    folder, name = os.path.split(real)
    folder = folder or "."
    try:
        if getattr(args, "create_dirs", False):
            os.makedirs(folder, exist_ok=True)
        fd, tmp = make_part(folder, name)
    except OSError as exc:
        refused = _no_part(path, folder, exc)
        if refused is not None:
            raise refused from None
        return await _write_special(path, source)
    progress = _progress(resource) if show_progress(args) else None
    written = 0
    import time

    started = time.monotonic()
    try:
        try:
            with os.fdopen(fd, "wb") as fh:
                sink = _sink(resource, chunks, fh)
                async for chunk in source:  # resources raise typed errors, never OSError
                    if not sink:
                        fh.write(chunk)
                    elif not is_moved(chunk):
                        fh.write(chunk)
                        fh.flush()  # (before the next bytes spliced past this buffer)
                    written += len(chunk)
                    if progress:
                        progress.update()
        except OSError as exc:  # the write or the final flush (a full disk)
            raise _output_failed(path, exc) from None
        # mkstemp made the file private (0600): the target keeps its own mode, a new file
        # gets the mode a new file normally gets.
        from omniurl.finished import finish  # (not omniurl.partial: -C's own)

        try:
            finish(tmp, real)
        except OSError as exc:
            raise _output_failed(path, exc) from None
        if progress:
            progress.stop()
            progress = None
        summary(args, written, path, time.monotonic() - started)
        return Written(written, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(tmp)
        raise
    finally:
        if progress:
            progress.stop()


def _sink(resource: Resource, chunks: AsyncIterable[bytes] | None, out: BinaryIO) -> bool:
    """Let the resource's executor splice its bulk body into ``out``'s descriptor
    (``Resource.sink``) where the content goes there unchanged (the resource's own chunks,
    not a text or listing rendering) and the descriptor takes spliced bytes
    (``net.sink_usable``: a file, a pipe, ``/dev/null``); whether it may."""
    if chunks is not None or os.environ.get("OMNIURL_NO_SPLICE"):
        return False
    from omniurl.resolvers.net import sink_usable

    try:
        fd = out.fileno()
    except (OSError, ValueError):  # (a replaced sys.stdout: no descriptor)
        return False
    if not sink_usable(fd):
        return False
    sys.stdout.flush()
    out.flush()
    resource.sink = fd
    return True


async def _write_resumed(
    partial: Partial, kept: Kept, resource: Resource, source: AsyncIterable[bytes]
) -> Written:
    """``-C``: the bytes go to ``.NAME.part`` (appended to the kept ones when the server
    sent a range), which becomes ``NAME`` once its size is the server's.  A failure or an
    interruption keeps the part and its sidecar for the next ``-C -``."""
    from omniurl.partial import write_resumed

    progress = _progress(resource) if sys.stderr.isatty() else None
    try:
        written = await write_resumed(
            partial,
            kept,
            resource,
            str(resource.url),
            source,
            on_chunk=(lambda _n: progress.update()) if progress else None,
        )
    except OSError as exc:
        raise _output_failed(str(partial.target), exc) from None
    finally:
        if progress:
            progress.stop()
    return Written(written, str(partial.target))


def make_part(folder: str, name: str) -> tuple[int, str]:
    """A new private file ``.NAME.XXXXXXXX.part`` in ``folder``, open for writing: its
    descriptor and absolute path.  ``tempfile.mkstemp``'s way (``O_EXCL``, never through a
    symbolic link, mode 0600, a random name tried again if taken), without importing
    tempfile, which imports shutil (bz2, lzma) and random: 3-4.7 ms CPU of every ``get -o``."""
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL
    flags |= getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    for _attempt in range(100):
        tmp = os.path.abspath(os.path.join(folder, f".{name}.{os.urandom(5).hex()}.part"))
        try:
            return os.open(tmp, flags, 0o600), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name for {name} in {folder}")


def through_links(path: str) -> str | None:
    """The file ``-o PATH`` replaces: ``PATH`` itself, or the file a symbolic link there
    points to (made if the link dangles), so that the link stays a link — curl and wget
    write through it; the file was renamed over the link, which ``-o /dev/stdout > FILE``
    as root made a regular file in /dev.  None for a link to an open descriptor
    (``/dev/stdout``, ``/dev/fd/N``, ``/proc/self/fd/N``, whatever it is open on): written
    into, as curl does, never replaced."""
    given = path
    for _hop in range(40):  # (the kernel's own bound, then ELOOP)
        if not os.path.islink(path):
            return path
        folder, name = os.path.split(path)
        path = os.path.join(os.path.realpath(folder or "."), name)
        if path.startswith("/proc/"):  # (a descriptor's link names no file to replace)
            return None
        path = os.path.join(os.path.dirname(path), os.readlink(path))
    import errno

    raise _output_failed(given, OSError(errno.ELOOP, os.strerror(errno.ELOOP)))


def written_into(path: str, *, links: bool = True) -> bool:
    """Whether ``-o PATH`` is written into, never replaced by a file: a FIFO, a device, or
    (``links``: a name the user gave) a link to an open descriptor (``/dev/stdout``)."""
    return _is_special(path) or (links and through_links(path) is None)


def _is_special(path: str) -> bool:
    """A FIFO or a device (``-o /dev/null``): written into, never replaced by a file."""
    import stat

    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode) or stat.S_ISBLK(mode)


async def _write_special(path: str, source: AsyncIterable[bytes]) -> Written:
    """Stream into a FIFO or a device as it is: there is no file to swap in atomically.  The
    wait for a FIFO's reader, and for room in it, is the event loop's (cli.fifo): a
    blocking open() or write() there would leave SIGTERM and Ctrl-C unanswered."""
    from .fifo import open_for_writing, write_all

    written = 0
    try:
        fd = await open_for_writing(path, truncate=not _is_special(path))
        try:
            async for chunk in source:  # resources raise typed errors, never OSError
                await write_all(fd, chunk)
                written += len(chunk)
        finally:
            os.close(fd)
    except OSError as exc:
        raise _output_failed(path, exc) from None
    return Written(written, path)
