"""The ``omniurl`` entry point."""

from __future__ import annotations

import io
import sys
from collections.abc import Sequence

from omniurl.exitstatus import EXIT_WRITE
from omniurl.schemes.errors import OmniurlError, suppress

from .commands import cmd_get

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, NoReturn, TextIO

    from _typeshed import ReadableBuffer


UNUSED_OPTIONAL_IMPORTS = ("httpx._main", "trio")


def _skip_unused_optional_imports() -> None:
    """Tell Python the modules of :data:`UNUSED_OPTIONAL_IMPORTS` are absent (a ``None`` entry
    in ``sys.modules`` makes their import raise ImportError), unless already imported.  Only
    for the ``omniurl`` process itself: never inside a program that calls ``main([...])``."""
    for name in UNUSED_OPTIONAL_IMPORTS:
        sys.modules.setdefault(name, None)  # type: ignore[arg-type]


def _plain_plugin_warnings() -> None:
    """Show a plugin's deprecation (``resolvers.registry.PluginDeprecationWarning``: its
    command-line hooks are not called) as one ``omniurl: warning:`` line, as the command's
    other messages are, not as Python's file-and-line report.  Only for the ``omniurl``
    process itself (the category is matched by name: nothing imported for it)."""
    import warnings

    shown = warnings.showwarning

    def show(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> None:
        if category.__name__ == "PluginDeprecationWarning":
            (file or sys.stderr).write(f"omniurl: warning: {message}\n")
            return
        shown(message, category, filename, lineno, file, line)

    warnings.showwarning = show


def main(argv: Sequence[str] | None = None) -> int:
    """The ``omniurl`` command; ``argv`` (default ``sys.argv[1:]``) without the program name."""
    if argv is None:
        _skip_unused_optional_imports()
        _plain_plugin_warnings()
    words = sys.argv[1:] if argv is None else list(argv)
    # ``parse URL…`` and ``plan URL…`` without options: argparse's namespace, without
    # argparse (cli/quick.py); else only the parser of the command named first (a command
    # line that names none, or an unknown one, gets them all: the help and the error list
    # every command)
    from .quick import quick_args

    args: Any = quick_args(words)  # (an argparse.Namespace's behaviour either way)
    if args is None:
        from .parser import COMMANDS, build_parser

        parser = build_parser(words[0] if words and words[0] in COMMANDS else None)
        args = parser.parse_args(words)
    if args.func is not cmd_get:
        collect_from_now()  # (a get does it once it has run a while: cli.signals)
    if argv is None and args.func is cmd_get:
        from .early import connect_early, is_batch

        # First, before anything the connect does not need is imported: the server starts
        # while asyncio and the rest are (docs/speed.md, *Bulk transfers*)
        connect_early(args)
        from omniurl import deferred, memory
        from omniurl.resolvers.options import Options
        from omniurl.sslimport import defer_ssl

        # asyncio imported without OpenSSL (loaded when a connection speaks TLS) and without
        # the modules only some of its paths run (inspect, logging, …): not for every get
        deferred.import_asyncio(defer_ssl)
        # and httptools without its package bodies (typing, for a Protocol class)
        deferred.defer_packages()

        if is_batch(args):
            memory.tune_for_transfers(Options.chunk_size)
        else:  # one URL: once its transfer proves large (no ctypes for a small file)
            memory.tune_when_bulk(Options.chunk_size)
    try:
        return int(args.func(args))
    except BrokenPipeError:
        # The reader went away (| head): curl's write error, 23.  Standard output is
        # pointed at /dev/null so that the interpreter's last flush raises nothing more.
        import os

        with suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        return EXIT_WRITE
    except OmniurlError as exc:  # a bad option value found while building the options
        from omniurl.exitstatus import exit_status

        sys.stderr.write(f"omniurl: {exc}\n")
        return exit_status(exc)


def run() -> NoReturn:
    """The ``omniurl`` process (the console script and ``python -m omniurl``): :func:`main`,
    then :func:`end`.  A program that calls :func:`main` keeps its interpreter.

    The cyclic garbage collector is off while the command starts (:func:`collect_from_now`
    turns it on): a start allocates tens of thousands of objects (modules, classes,
    functions), almost none of them garbage, and the collector scanned them ~40 times over
    for a ``get`` of 4 KiB: 6-9 ms of its ~120-140 ms of CPU (``gc.callbacks``, fresh
    venv, load 8, 2026-11-28)."""
    import gc

    gc.disable()
    _standard_streams()
    end(main())


class _PatientFile(io.FileIO):
    """Standard output's descriptor, whose writes wait while it takes nothing: a file
    description another process made non-blocking (a reader of the pipe, a program sharing
    the terminal) gives ``EAGAIN`` whenever its reader is behind, and the get ended with 23
    where a blocking write would have waited.  The wait is ``resolvers.net.wait_writable``'s
    (``poll(2)``, bounded: a reader that takes nothing for a minute ends it as before).
    It writes all it is given, as a blocking write to a pipe does: a non-blocking one takes
    what fits, and under ``python -u`` this file is standard output's only layer, whose
    callers do not write the rest again."""

    def write(self, data: ReadableBuffer, /) -> int:
        view = memoryview(data).cast("B")
        done = 0
        while done < len(view):
            written: int | None = super().write(view[done:])
            if written is not None:  # (None: EAGAIN, nothing written)
                done += written
                continue
            from omniurl.resolvers.net import wait_writable  # (imported only then)

            wait_writable(self.fileno())
        return done


class _LossyFile(_PatientFile):
    """Standard error's descriptor, whose failed writes are dropped (:func:`_standard_streams`)
    and whose writes wait while a non-blocking one takes nothing, as standard output's.
    ``FileIO.write`` gives None for ``EAGAIN``, never ``BlockingIOError``, and the buffer
    above it does not wait but raises ``BlockingIOError`` for that None: a get whose
    standard error was a full non-blocking pipe (``2>&1 | less``, its progress line)
    ended with exit 23, the message lost, where a blocking descriptor would have waited."""

    def write(self, data: ReadableBuffer, /) -> int:
        try:
            return super().write(data)
        except OSError:  # (a full disk, a closed descriptor, no reader for a minute)
            return memoryview(data).nbytes  # lost, as a message nobody can read is


def _standard_streams() -> None:
    """Make the standard streams what the commands can rely on, in the ``omniurl``
    process only.  A descriptor the command was started without (``>&-``, ``2>&-``) is held
    by ``/dev/null`` opened for reading: no file or socket the command opens takes its
    number, and a write to it fails as curl's does (EBADF: standard output is curl's write
    error, 23).  Standard error drops what it cannot write (a full disk, ``2>/dev/full``,
    a closed descriptor), as curl does: a message, or the progress line, that cannot be
    shown is no reason to end the command another way than it would have (the interpreter
    raised it from whatever line wrote, and a get's exit status became 1).  Standard output
    waits while a non-blocking descriptor is full (:class:`_PatientFile`)."""
    import os

    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            held = os.open(os.devnull, os.O_RDONLY)
            if held != fd:
                os.dup2(held, fd)
                os.close(held)
    if sys.stdin is None:
        sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115
    out = sys.stdout
    if out is None:
        sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
    else:
        with suppress(OSError, ValueError):
            out.flush()
        patient = _PatientFile(1, "w", closefd=False)
        # (unbuffered as it was under ``python -u`` / PYTHONUNBUFFERED, whose standard output
        # has no buffer between the text and the descriptor: a BufferedWriter here held a
        # line printed, write_through or not, until the next 8 KiB or the exit)
        raw = not isinstance(getattr(out, "buffer", None), io.BufferedWriter)
        sys.stdout = io.TextIOWrapper(
            patient if raw else io.BufferedWriter(patient),
            encoding=getattr(out, "encoding", None) or "utf-8",
            errors=getattr(out, "errors", None) or "strict",
            line_buffering=getattr(out, "line_buffering", False),
            write_through=getattr(out, "write_through", False),
        )
    old = sys.stderr
    if old is not None:
        with suppress(OSError, ValueError):
            old.flush()
    sys.stderr = io.TextIOWrapper(
        io.BufferedWriter(_LossyFile(2, "w", closefd=False)),
        encoding=getattr(old, "encoding", None) or "utf-8",
        errors="backslashreplace",
        line_buffering=True,
        write_through=getattr(old, "write_through", False),
    )


def collect_from_now() -> None:
    """Turn the cyclic garbage collector back on, if :func:`run` turned it off: what the
    start made is frozen first (``gc.freeze``: the modules, classes and functions it
    loaded are never scanned again), so that the first collection does not go through all
    of it.  Every command but ``get`` calls it once its arguments are read; a ``get`` once
    it has run :data:`COLLECT_AFTER` seconds (``cli.signals.run_command``), so that a small
    transfer ends before it, and a long one — a large file, a session, a batch — collects
    as any program does."""
    import gc

    if not gc.isenabled():
        gc.freeze()
        gc.enable()


#: Seconds a ``get`` runs before its garbage is collected (:func:`collect_from_now`).
COLLECT_AFTER = 0.25


def end(status: int) -> NoReturn:
    """End the process with ``status`` once everything it owes is out, without the
    interpreter's teardown.

    The teardown (every module's objects freed, one by one, and the event loop's and the
    modules' finalizers) does nothing a finished command needs: measured in a fresh venv
    (2026-11-28, 2 cores), ``os._exit`` after the same work saved a ``get`` of 4 KiB ~19 ms
    of CPU of ~194 at load 4.  What a command does need still happens, in the order the
    interpreter keeps: standard output and error are flushed (a reader gone away, ``| head``,
    is curl's write error, 23, as in :func:`main`), then the ``atexit`` callbacks run
    (``logging``'s flush, ``tempfile``'s and ``weakref.finalize``'s clean-ups, a coverage
    run's data), then both streams are flushed again.  Temporary files are the commands' own
    to remove (their ``finally`` blocks have run by now; a part file is never left under its
    final name, docs/saving.md).  While another thread that is not a daemon still runs, the
    interpreter's own exit waits for it, as it always did; and where the person running the
    command asked the interpreter for what only its teardown shows (:func:`_teardown_asked`),
    the ordinary exit runs.  Measured again in the seventh round (2026-11-29, load 7,
    15 interleaved runs): the teardown would add 7-9 ms of CPU to a 4 KiB get and
    ~15 ms to a 512 MiB one (docs/speed.md, *The command's two ends*)."""
    import atexit
    import os

    status = _flush_streams(status)
    threading = sys.modules.get("threading")
    if threading is not None and any(
        t is not threading.main_thread() and t.is_alive() and not t.daemon
        for t in threading.enumerate()
    ):
        raise SystemExit(status)  # (the ordinary exit: it joins them)
    if _teardown_asked():
        raise SystemExit(status)  # (the ordinary exit: what was asked for is shown)
    atexit._run_exitfuncs()
    status = _flush_streams(status)
    os._exit(status & 0xFF)  # (as the shell sees a SystemExit(status))


def _teardown_asked() -> bool:
    """Whether the interpreter was asked to report on its own teardown, which :func:`end`
    otherwise skips: Python's development mode (``-X dev``, ``PYTHONDEVMODE``: the
    ``ResourceWarning`` of a file or socket left open, shown when the teardown frees it),
    a warning filter that shows or raises something (``-W``, ``PYTHONWARNINGS``: both in
    ``sys.warnoptions``; ``-W default``/``always``/``error`` show a ``ResourceWarning`` the
    teardown emits, and ``error`` an exception raised in a finalizer, as the ordinary exit
    does; only ``ignore`` filters ask for nothing), tracemalloc (``-X tracemalloc``,
    ``PYTHONTRACEMALLOC``: where such an object was allocated), ``-X showrefcount`` (a
    debug build's totals at exit), ``PYTHONMALLOCSTATS`` (pymalloc's statistics at exit) or
    ``PYTHONDUMPREFS`` (a debug build's live objects at exit); the variables only where
    ``-E``/``-I`` leave the environment read.  Someone asking for those is measuring Python,
    not the command's speed.  (A coverage run needs no teardown: its data is saved by its
    ``atexit`` callback, which :func:`end` runs.)"""
    if sys.flags.dev_mode or "showrefcount" in sys._xoptions:
        return True
    for option in sys.warnoptions:  # ("action:message:category:module:lineno")
        action = option.partition(":")[0].strip()
        if not action or not "ignore".startswith(action):  # (warnings' abbreviations)
            return True
    try:
        import _tracemalloc  # (built in: no file read)
    except ImportError:
        pass
    else:
        if _tracemalloc.is_tracing():
            return True
    if sys.flags.ignore_environment:
        return False
    import os

    return any(os.environ.get(name) for name in ("PYTHONMALLOCSTATS", "PYTHONDUMPREFS"))


def _flush_streams(status: int) -> int:
    """Flush standard output, then standard error; the status, or curl's write error (23)
    for a command that succeeded but whose standard output could not be written."""
    import os

    for stream in (sys.stdout, sys.stderr):
        if stream is None:
            continue
        try:
            stream.flush()
        except (OSError, ValueError) as exc:
            # A reader gone away (EPIPE), a full disk, a closed stream: what was not
            # written is lost either way; the interpreter's exit would print a traceback
            # for it.  Point the stream at /dev/null so that nothing tries again.
            with suppress(OSError, ValueError):
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, stream.fileno())
            if stream is sys.stdout and status == 0:
                status = EXIT_WRITE
                if not isinstance(exc, BrokenPipeError):  # (| head: quiet, as in main)
                    reason = getattr(exc, "strerror", None) or exc
                    _say(f"omniurl: cannot write standard output: {reason}")
    return status


def _say(line: str) -> None:
    """``line`` on standard error, if it can still be written."""
    with suppress(OSError, ValueError, AttributeError):
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
