"""Exit statuses of the ``omniurl`` command: one number per class of failure, documented in
``--help`` and the README, so that scripts can tell "nothing was sent" (2) from "the server
said no" (5).  The one error → status mapping, :func:`exit_status`: the command's (``cli/``)
and the batch manifest's rows (``omniurl/batch.py``) alike, so it lives beside the batch,
not in the CLI the batch would otherwise import."""

from __future__ import annotations

from omniurl.schemes.errors import OmniurlError, URLError

TYPE_CHECKING = False
if TYPE_CHECKING:
    #: The signals that end a command, and the batch's worker processes, the way Ctrl-C
    #: does: SIGTERM and SIGHUP (none on Windows), exit status 128 + the number
    #: (``cli/signals.py``, ``omniurl/batch_procs.py``).  Made on first read
    #: (:func:`__getattr__`).
    ENDING: tuple[int, ...]  # (signal.Signals members)
    import asyncio
    from collections.abc import Callable
    from typing import Any

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_REFUSED = 2  # invalid URL, bad usage, or refused by the safety policy: nothing was sent
EXIT_UNSUPPORTED = 3  # no resolver, missing configuration, input needed
EXIT_TRANSPORT = 4  # could not connect, timed out, connection closed early
EXIT_REPLY = 5  # the server refused (not found, HTTP error status, Gopher error item)
EXIT_PROTOCOL = 6  # the server broke the protocol or a limit
EXIT_AUTH = 7  # credentials missing or refused
EXIT_HTTP_FAIL = 22  # -f/--fail and an HTTP status of 400 or above (curl's 22)
EXIT_WRITE = 23  # the output cannot be written (a full disk, no such folder, | head): curl's
EXIT_RESUME = 36  # -C cannot continue: the part kept is longer than the file now (curl's 36)
EXIT_INTERRUPTED = 130

EXIT_STATUS_HELP = """\
exit status:
  0  success
  1  any other failure
  2  the URL is invalid or names nothing omniurl can do, or the safety policy
     refused it (nothing was sent)
  3  no resolver for the scheme, configuration missing, or input needed
  4  network failure: cannot connect, timed out, connection closed early
  5  the server refused: not found, HTTP error status (its body is still shown or
     saved, as curl does; -f writes nothing and exits 22), Gopher error item
  6  the server broke the protocol (or exceeded a size limit, or redirected in a loop)
  7  credentials missing or refused
 22  with -f/--fail: the HTTP server answered 400 or above (as curl)
 23  the output could not be written (a full disk, a missing folder, a folder or
     a read-only file in the way, a file size limit, its reader went away: | head),
     as curl; nothing is left looking complete
 36  -C could not continue: the part kept is longer than the file now (it changed;
     the part is kept, nothing else written), as curl's "bad download resume"
130  interrupted (Ctrl-C); 143 / 129: ended by SIGTERM / SIGHUP (temporary files
     removed, the old file kept, a batch's manifest complete so far)
"""


class OutputError(OmniurlError):
    """The content arrived but cannot be written where ``-o``/``-O`` says (no such folder, a
    folder in the way, a full disk, a file size limit): exit status 23 (curl's write
    error), the operating system's own reason, never a traceback.  (Raised by the
    command's output, ``omniurl.cli.output``, which names it too.)"""


def exit_status(exc: BaseException) -> int:
    """The documented exit status for an error."""
    from omniurl.resolvers.errors import (
        AuthError,
        ConfigurationError,
        InputNeeded,
        PlanError,
        PolicyError,
        ProtocolError,
        ReplyError,
        ResumeMismatch,
        TransportError,
        UnsupportedScheme,
    )

    if isinstance(exc, OSError):
        # Resolvers raise typed errors, never OSError: one that reaches here is the
        # output's (a batch's file: a full disk, a folder gone), curl's write error.
        return EXIT_WRITE
    for cls, status in (
        (OutputError, EXIT_WRITE),
        (URLError, EXIT_REFUSED),
        (PolicyError, EXIT_REFUSED),
        (UnsupportedScheme, EXIT_UNSUPPORTED),
        (ConfigurationError, EXIT_UNSUPPORTED),
        (InputNeeded, EXIT_UNSUPPORTED),
        (PlanError, EXIT_REFUSED),
        (TransportError, EXIT_TRANSPORT),
        (ReplyError, EXIT_REPLY),
        (ProtocolError, EXIT_PROTOCOL),
        (AuthError, EXIT_AUTH),
        (ResumeMismatch, EXIT_RESUME),
    ):
        if isinstance(exc, cls):
            return status
    return EXIT_FAILURE


def __getattr__(name: str) -> object:
    """:data:`ENDING`, made when it is first read: beside the exit statuses (outside
    ``cli/``, so the batch names it without importing the CLI), but ``signal``'s import
    (its enum classes built: ~2 ms) stays a get's and a batch's, never a ``parse``'s, whose
    start loads this module.  (A module of its own cost every get ~0.13-0.17 ms of CPU to
    import, process_time around the import, fresh venv, load 14, 2026-11-29.)"""
    if name == "ENDING":
        return _ending()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _ending() -> tuple[int, ...]:
    """:data:`ENDING`, made from ``signal``'s numbers and kept as the module's attribute."""
    import signal

    global ENDING
    ENDING = tuple(getattr(signal, n) for n in ("SIGTERM", "SIGHUP") if hasattr(signal, n))
    return ENDING


def cancel_on_ending(
    loop: asyncio.AbstractEventLoop, stop: Callable[[int], object]
) -> list[tuple[int, Any]]:
    """Make each :data:`ENDING` signal call ``stop(signum)`` on ``loop``: the command's
    (``cli/signals.py``) and a batch worker's (``omniurl/batch_procs.py``) one way, whose
    ``stop`` cancels their task.  Python's handlers (``signal.signal``) hand it to the loop
    with ``call_soon_threadsafe`` — asyncio's own way with SIGINT (``asyncio.Runner``) — not
    ``loop.add_signal_handler``, whose check that the callback is no coroutine function
    imports ``inspect`` (with ``ast``, ``dis``, ``tokenize``: ~5-9 ms of CPU, docs/speed.md,
    *Batches*, eighth round), with SA_RESTART as asyncio sets it.  Returns each handler set
    with the one it replaced (None: one not set from Python), for the caller to put back;
    none is set outside the main thread."""
    import signal

    def handler(signum: int, frame: object) -> None:
        loop.call_soon_threadsafe(stop, signum)

    installed: list[tuple[int, Any]] = []
    for signum in _ending():
        try:
            installed.append((signum, signal.signal(signum, handler)))
            signal.siginterrupt(signum, False)  # (SA_RESTART, as asyncio sets it)
        except (OSError, RuntimeError, ValueError):  # not the main thread
            pass
    return installed
