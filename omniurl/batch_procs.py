"""A large ``-Z`` batch on more than one core: the input split across worker processes, each
running the single-process engine (:func:`omniurl.batch.fetch_many`) on its share, the
results merged back into one stream of :class:`~omniurl.batch.FetchResult` (issue 32 item 4).

Why: a small file costs omniurl ~2.4 ms of CPU in a batch against curl's ~1.1 ms (measured on
this 2-core machine, 2,000 files from nginx), spread over many small functions; one Python
process is CPU-bound there while curl is not.  Work on other cores is the way past that.

How it holds the batch's promises (docs/cli.md, "Batches on more than one core"):

- The parent is share 0 itself (its own client, in-process) and starts ``procs - 1`` workers:
  forks of itself where Linux's ``pidfd_open`` reports their end (:data:`FORK`: no start-up,
  every module imported already), else ``python -m omniurl.batch_procs``: no process sits
  idle merging.  A fork lets go of everything of its parent's but the pipes it is given
  (descriptors, signal handlers, the event loop) before it runs a loop of its own.  Each URL
  goes to the share with the fewest URLs in flight, so a slow share is not handed more;
  each share reads at most ``4 ×`` its concurrency ahead.
- ``--parallel-max`` and ``--parallel-max-host`` are divided between the shares (the parts
  add up to the given numbers), so the per-host cap is a cap on the whole batch, whatever
  share a URL lands in.  Fewer shares than that (``procs`` > the cap) would leave one with
  nothing: the number of shares is at most either cap.
- Files are written by the share that fetched them, as in one process: a file with no name
  (``O_TMPFILE``; where there is none, a temporary ``.NAME.PID-N.part``, the pid keeping
  shares apart) linked to a free name, which fails when the name is taken, across processes
  too — a duplicate name in the batch still gets ``a.1.txt``, never an overwrite.
- Rows come back in completion order, as one process gives them; ``index`` is the URL's
  position in the whole input, so the first failure in input order is the batch's status.
- A worker that dies fails the URLs it had (``BatchWorkerError``, naming its exit status)
  and gets no more; the batch goes on.  SIGTERM/SIGINT/SIGHUP to the parent end every
  worker with SIGTERM (each then removes its temporary files, as one process does), waited
  for at most :data:`STOP_WAIT` seconds, then killed.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import AsyncIterable, AsyncIterator, Coroutine, Iterable
from dataclasses import MISSING, dataclass, field
from typing import Any, cast

from omniurl.batch import (
    _ROW_DEFAULTS,
    FetchResult,
    Unreadable,
    _failed,
    _reindexed,
    _row,
    _source,
    shown,
)
from omniurl.resolvers.errors import ResolveError
from omniurl.resolvers.options import Options

#: The smallest batch that is split by default: below it a worker's start (~0.1-0.2 s of
#: CPU, an interpreter and omniurl's imports) costs more than its share saves.
MIN_SPLIT = 200
#: How long a worker holds a finished URL's row before writing it with those that follow.
FLUSH_DELAY = 0.005
#: How long the parent waits for a worker to end after SIGTERM before killing it (seconds).
STOP_WAIT = 5.0


class BatchWorkerError(ResolveError):
    """A worker process of a split batch ended before reporting this URL."""


def default_procs() -> int:
    """The default for a large batch: the cores this process may run on that are idle now
    (their number less the busy ones, rounded; at least 1).  Busy is the lower of the
    1-minute load average and the threads runnable at this moment besides this one
    (:func:`runnable_now`): the average lags a minute behind, so a machine that was busy
    until a moment ago (the benchmark's curl run before this one) still counts as idle
    now.  A worker on a core that is busy anyway only adds its share of the hand-offs: on
    this 2-core machine at load 6-9, two processes cost 15-40% more CPU than one for no
    shorter wall time (docs/speed.md, *Batches*)."""
    try:
        cores = max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        cores = max(1, os.cpu_count() or 1)
    try:
        busy = os.getloadavg()[0]
    except (AttributeError, OSError):
        busy = 0.0
    now = runnable_now()
    if now is not None:
        busy = min(busy, now)
    return max(1, min(cores, round(cores - busy)))


def runnable_now() -> int | None:
    """How many threads of the machine are runnable at this moment besides the one asking
    (``/proc/loadavg``'s fourth field, running/total); None where there is no such file."""
    try:
        with open("/proc/loadavg", "rb") as fh:
            running = int(fh.read().split()[3].split(b"/")[0])
    except (OSError, ValueError, IndexError):
        return None
    return max(0, running - 1)


def parts(total: int, n: int) -> list[int]:
    """``total`` split into ``n`` parts that add up to it (the first ones larger by one)."""
    return [total // n + (1 if i < total % n else 0) for i in range(n)]


@dataclass
class _Share:
    """A share of a split batch: this process's (``queue``) or a worker's (``proc``).
    (A docstring of its own: without one ``dataclass`` imports inspect to make one.)"""

    number: int
    concurrency: int
    per_host: int
    #: index -> URL text of the URLs handed to this share and not yet reported.
    pending: dict[int, str] = field(default_factory=dict)
    alive: bool = True
    proc: _Proc | None = None
    queue: asyncio.Queue[tuple[int, str] | None] | None = None
    #: A worker's URLs not yet written to it.
    outbox: list[bytes] = field(default_factory=list)

    @property
    def window(self) -> int:
        return 4 * self.concurrency


async def fetch_split(
    urls: Iterable[str | Unreadable] | AsyncIterable[str | Unreadable],
    options: Options,
    *,
    procs: int | None,
    concurrency: int,
    per_host: int,
    output_dir: str | None,
    header_names: bool = False,
    full_rows: bool = True,
) -> AsyncIterator[FetchResult]:
    """The batch of ``urls`` on up to ``procs`` processes (None: :func:`default_procs` when
    the batch has at least :data:`MIN_SPLIT` URLs, else one); one result per URL as each
    finishes, ``index`` its position in ``urls``.  ``full_rows=False`` (the command's batch
    without ``--manifest``, where only the counts, the failures and the status are shown):
    no row's ``sha256`` (``digest=False``, :func:`omniurl.batch.fetch_many`), and a
    worker's successful row comes back as its index and size alone (:func:`_counted`), its
    other fields left at their defaults."""
    # (batch's one reader of a sync or async list; this one's items are never URL objects)
    source = cast(AsyncIterator[str | Unreadable], _source(urls).__aiter__())
    ahead: list[str | Unreadable] = []
    exhausted = False
    if procs is None:
        # Read up to MIN_SPLIT items first (lazily: a list on standard input is not counted):
        # a small batch stays in one process.
        while len(ahead) < MIN_SPLIT:
            try:
                ahead.append(await anext(source))
            except StopAsyncIteration:
                exhausted = True
                break
        procs = default_procs() if not exhausted else 1
    n = max(1, min(procs, concurrency, per_host))
    shares = [
        _Share(i, c, h)
        for i, (c, h) in enumerate(zip(parts(concurrency, n), parts(per_host, n), strict=True))
    ]
    if n > 1 and FORK and not ahead:  # (--procs N: the first URL, to warm up before the fork)
        try:
            ahead.append(await anext(source))
        except StopAsyncIteration:
            exhausted = True
    results: asyncio.Queue[Report] = asyncio.Queue()
    tasks: list[asyncio.Task[None]] = []

    async def chained() -> AsyncIterator[str | Unreadable]:
        for item in ahead:
            yield item
        ahead.clear()
        if not exhausted:
            async for item in source:
                yield item

    # (one async generator less a URL where nothing was read ahead)
    items = chained().__aiter__() if ahead else source
    from omniurl.client import AsyncClient

    client = AsyncClient(options, max_keepalive_connections=max(shares[0].concurrency, 20))
    if n == 1:  # (a small batch: the engine itself, no hand-offs)
        batch = client.fetch_many(
            ahead if exhausted else items,  # (a small batch read whole: the list itself)
            concurrency=concurrency,
            per_host=per_host,
            output_dir=output_dir,
            header_names=header_names,
            digest=full_rows,
        )
        try:
            async for result in batch:
                yield result
        finally:
            try:
                await batch.aclose()  # type: ignore[attr-defined]
            finally:
                await client.aclose()
                await source.aclose()  # type: ignore[attr-defined]
        return
    if FORK:
        _warm(ahead, options, header_names)
    try:
        local = shares[0]
        local.queue = asyncio.Queue()
        tasks.append(
            asyncio.create_task(
                _run_local(local, client, output_dir, results, header_names, full_rows)
            )
        )
        for share in shares[1:]:
            await _start_worker(share, options, output_dir, results, tasks, header_names, full_rows)
        index = 0
        done = False
        while True:
            # Results first (they free room), then as many URLs as the shares have room for.
            while not results.empty():
                for finished in _settle(results.get_nowait()):
                    yield finished
            while not done:
                room = [s for s in shares if s.alive and len(s.pending) < s.window]
                if not room:
                    break
                try:
                    item = await anext(items)
                except StopAsyncIteration:
                    done = True
                    for share in shares:
                        await _close_input(share)
                    break
                if isinstance(item, Unreadable):
                    yield _failed(index, item.text, item.error)
                else:
                    _send(min(room, key=lambda s: len(s.pending)), index, item)
                index += 1
            for share in shares:
                await _flush(share)
            if done and not any(share.pending for share in shares):
                for share in shares:  # (their input closed: they end by themselves)
                    await _reap(share)
                return
            for finished in _settle(await results.get()):
                yield finished
    finally:
        for share in shares:
            if share.proc is not None and share.proc.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    share.proc.send_signal(signal.SIGTERM)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for share in shares:
            await _reap(share)
        await client.aclose()
        await source.aclose()  # type: ignore[attr-defined]


def _warm(ahead: Iterable[str | Unreadable], options: Options, header_names: bool) -> None:
    """Import, before the fork, what the shares' first URLs will need: for each scheme
    among them, its resolver, its planner (a plan of its first URL: pure, nothing sent or
    checked here) and what its executor and batch engine import
    (:meth:`~resolvers.base.Resolver.prepare`) — so a forked worker has them in hand
    instead of importing them again on the way to its first request.  Traced
    (docs/speed.md, *Batches*, eighth round): without it the parent and the worker each
    imported the HTTP engine's 16 modules after the fork, ~10-12 ms of CPU each, and the
    worker's first connect came ~25 ms after the fork.  Whatever goes wrong here is the
    batch's to report later, URL by URL: it is ignored."""
    from omniurl.batch import lean_allowed
    from omniurl.resolvers import registry
    from omniurl.resolvers.core import plan
    from omniurl.schemes import parse

    # (the batch asks for engines as fetch_many decides: -J takes the general path)
    engine = lean_allowed(opener=None, resume=False, names=None, trace=False) and not header_names
    seen: set[str] = set()
    for item in ahead:
        if isinstance(item, Unreadable):
            continue
        try:
            url = parse(item.strip(), syntax=options.syntax)
            if url.scheme in seen:
                continue
            seen.add(url.scheme)
            spec = registry.find(url.scheme)
            if spec is None:
                continue
            plan(url, options)
            spec.resolver_type()().prepare(options, engine=engine)
        except Exception:
            continue


#: What a share reports: a result, None (its process or task is gone), or an exception
#: (a defect in this process's share: raised here, as one process raises it).
Report = tuple["_Share", FetchResult | BaseException | None]


def _settle(report: Report) -> list[FetchResult]:
    """A share's report as rows: its result (no longer pending); for a share gone, a failed
    row for every URL it still had, in input order, and it gets no more."""
    share, result = report
    if isinstance(result, FetchResult):
        share.pending.pop(result.index, None)
        return [result]
    if isinstance(result, BaseException):
        raise result
    share.alive = False
    status = share.proc.returncode if share.proc is not None else None
    rows = [
        _failed(
            index,
            text,
            BatchWorkerError(
                f"{text}: batch worker process {share.number} ended (exit status {status}) "
                "before this URL was done",
                component="batch",
            ),
        )
        for index, text in sorted(share.pending.items())
    ]
    share.pending.clear()
    return rows


def _send(share: _Share, index: int, text: str) -> None:
    share.pending[index] = text
    if share.queue is not None:
        share.queue.put_nowait((index, text))
    else:  # (written by _flush: one write for all the URLs handed over in one turn)
        share.outbox.append(url_line(index, text))


def url_line(index: int, text: str) -> bytes:
    """A URL as a worker reads it (:func:`read_url_line`): ``INDEX SPACE TEXT``, the text's
    UTF-8 with an undecodable byte of the list given back as it was (``surrogateescape``:
    a list's ``\\xff`` crashed the parent with a UnicodeEncodeError before); a text with a
    line end in it (a command-line argument) as a JSON array (1-3 µs a URL against 17 for
    JSON both ways, timeit at load 7)."""
    if "\n" in text or "\r" in text:
        import json

        return json.dumps([index, text]).encode()  # (ASCII: a lone surrogate as \\udcff)
    return b"%d %s" % (index, text.encode("utf-8", "surrogateescape"))


def read_url_line(line: bytes) -> tuple[int, str]:
    """:func:`url_line` read back (a ValueError when it is no such line)."""
    if line[:1] == b"[":
        import json

        index, text = json.loads(line)
        if not isinstance(index, int) or not isinstance(text, str):
            raise ValueError("not a URL line")
        return index, text
    head, space, rest = line.removesuffix(b"\n").partition(b" ")
    if not space:
        raise ValueError("not a URL line")
    return int(head), rest.decode("utf-8", "surrogateescape")


async def _flush(share: _Share) -> None:
    proc = share.proc
    if not share.outbox or proc is None or proc.stdin is None:
        return
    data = b"\n".join(share.outbox) + b"\n"
    share.outbox.clear()
    try:
        proc.stdin.write(data)
        if proc.stdin.transport.get_write_buffer_size() > 1 << 16:
            await proc.stdin.drain()
    except (ConnectionError, RuntimeError):
        pass  # a worker gone: its reader reports it, and its URLs fail


async def _close_input(share: _Share) -> None:
    await _flush(share)
    if share.queue is not None:
        if share.alive:
            share.queue.put_nowait(None)
            share.alive = False  # (no more input; it still reports what it has)
        return
    proc = share.proc
    if proc is not None and proc.stdin is not None and not proc.stdin.is_closing():
        with contextlib.suppress(ConnectionError, RuntimeError):
            proc.stdin.close()
        share.alive = False


async def _run_local(
    share: _Share,
    client: Any,
    output_dir: str | None,
    results: asyncio.Queue[Report],
    header_names: bool = False,
    digest: bool = True,
) -> None:
    """Share 0, in this process: the engine over the URLs queued for it."""
    assert share.queue is not None
    queue = share.queue
    positions: dict[int, int] = {}

    async def given() -> AsyncIterator[str]:
        local = 0
        while (item := await queue.get()) is not None:
            positions[local] = item[0]
            local += 1
            yield item[1]

    try:
        async for result in client.fetch_many(
            given(),
            concurrency=share.concurrency,
            per_host=share.per_host,
            output_dir=output_dir,
            header_names=header_names,
            digest=digest,
        ):
            results.put_nowait((share, _reindexed(result, positions.pop(result.index))))
    except asyncio.CancelledError:
        raise
    except BaseException as exc:  # a defect: raised by the batch, as one process raises it
        results.put_nowait((share, exc))


async def _start_worker(
    share: _Share,
    options: Options,
    output_dir: str | None,
    results: asyncio.Queue[Report],
    tasks: list[asyncio.Task[None]],
    header_names: bool = False,
    full_rows: bool = True,
) -> None:
    setup = {
        "header_names": header_names,
        "full_rows": full_rows,
        "options": options,
        "concurrency": share.concurrency,
        "per_host": share.per_host,
        "output_dir": output_dir,
    }
    proc: _Proc | None = await _fork_worker(setup) if FORK else None
    if proc is None:  # (no fork here: a new interpreter, told its setup on its input)
        spawned = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "omniurl.batch_procs",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            limit=1 << 20,
        )
        assert spawned.stdin is not None
        import base64  # (only for a new interpreter: a fork is given its setup in hand)
        import pickle

        spawned.stdin.write(base64.b64encode(pickle.dumps(setup)) + b"\n")
        proc = spawned
    share.proc = proc
    tasks.append(asyncio.create_task(_read_worker(share, output_dir, results)))


#: Whether a worker is this process forked (Linux: ``os.pidfd_open`` tells the event loop
#: when it ends), rather than a new interpreter (``python -m omniurl.batch_procs``).  A fork
#: has every module this process imported already: a new interpreter spent 0.5-1.1 s of
#: wall and 0.15-0.3 s of CPU on its start and imports at load 4 on 2 cores, and its share
#: of a 2,000-file batch began only 1-2 s in, so it fetched 100-900 of the 2,000 files
#: (docs/speed.md, *Batches*).
FORK = hasattr(os, "fork") and hasattr(os, "pidfd_open")


class _Forked:
    """A worker forked from this process, with what the batch uses of asyncio's
    ``Process``: ``pid``, ``returncode``, ``stdin`` (its URLs), ``stdout`` (its rows),
    ``wait``, ``send_signal``, ``kill``.  Its end is seen through a pidfd, without a thread
    or a SIGCHLD handler."""

    def __init__(
        self, pid: int, pidfd: int, stdin: asyncio.StreamWriter, stdout: asyncio.StreamReader
    ) -> None:
        self.pid = pid
        self.returncode: int | None = None
        self.stdin = stdin
        self.stdout = stdout
        self._pidfd = pidfd
        loop = asyncio.get_running_loop()
        self._loop = loop
        self._ended: asyncio.Future[int] = loop.create_future()
        loop.add_reader(pidfd, self._reap)

    def _reap(self) -> None:
        self._loop.remove_reader(self._pidfd)
        os.close(self._pidfd)
        try:
            _pid, status = os.waitpid(self.pid, 0)
            self.returncode = os.waitstatus_to_exitcode(status)
        except ChildProcessError:  # (reaped by someone else: its status is lost)
            self.returncode = 255
        if not self._ended.done():
            self._ended.set_result(self.returncode)

    async def wait(self) -> int:
        return await asyncio.shield(self._ended)

    def send_signal(self, signum: int) -> None:
        if self.returncode is None:  # (not reaped: the pid is still this child's)
            os.kill(self.pid, signum)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


_Proc = asyncio.subprocess.Process | _Forked


async def _fork_worker(setup: dict[str, Any]) -> _Forked | None:
    """A worker forked from this process, its setup in hand (None: this process cannot
    fork one, and a new interpreter is started instead)."""
    import threading

    from omniurl.exitstatus import ENDING

    if threading.active_count() > 1:
        # Another thread (a name lookup's, a program's own) may hold a lock the fork would
        # inherit held: a new interpreter instead.
        return None
    loop = asyncio.get_running_loop()
    urls_r, urls_w = os.pipe()
    rows_r, rows_w = os.pipe()
    ending = {signal.SIGINT, *ENDING}
    for stream in (sys.stdout, sys.stderr):  # (nothing buffered is written twice)
        with contextlib.suppress(OSError, ValueError, AttributeError):
            stream.flush()
    # The signals that end a worker wait until the child has its own handlers: until then
    # it has this process's, which would wake this process's event loop (its wakeup fd).
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, ending)
    try:
        pid = os.fork()
    except OSError:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        for fd in (urls_r, urls_w, rows_r, rows_w):
            os.close(fd)
        return None
    if pid == 0:  # the worker: it never returns into this process's event loop
        status = 1
        try:
            status = _forked(setup, urls_r, rows_w, mask, ending)
        finally:
            os._exit(status)
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    os.close(urls_r)
    os.close(rows_w)
    try:
        pidfd = os.pidfd_open(pid)
        reader = asyncio.StreamReader(limit=1 << 20)
        rows = open(rows_r, "rb", buffering=0)  # noqa: SIM115 - the transport closes it
        urls = open(urls_w, "wb", buffering=0)  # noqa: SIM115 - the transport closes it
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), rows)
        transport, protocol = await loop.connect_write_pipe(
            lambda: asyncio.StreamReaderProtocol(asyncio.StreamReader()), urls
        )
    except BaseException:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        raise
    return _Forked(pid, pidfd, asyncio.StreamWriter(transport, protocol, None, loop), reader)


def _forked(
    setup: dict[str, Any], urls_fd: int, rows_fd: int, mask: set[int], ending: set[int]
) -> int:
    """The forked worker's life: this process's signal handlers and descriptors let go
    (its event loop, its connections, other workers' pipes — a copy of one would keep that
    worker's input open), then the worker on a loop of its own; its exit status."""
    import gc
    import traceback

    try:
        signal.set_wakeup_fd(-1)
        for signum in ending:
            _set_handler(signum, signal.SIG_DFL)
        _set_handler(signal.SIGINT, signal.default_int_handler)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)
        keep = {0, 1, 2, urls_fd, rows_fd}
        for name in os.listdir("/proc/self/fd") if os.path.isdir("/proc/self/fd") else ():
            if name.isdigit() and int(name) not in keep:
                with contextlib.suppress(OSError):
                    os.close(int(name))
        if not gc.isenabled():  # (the command's start turned it off: cli.main.run)
            gc.freeze()
            gc.enable()
        return asyncio.run(_until_signalled(_worker(setup, urls_fd, rows_fd)))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the parent is gone
        return 141
    except BaseException:
        traceback.print_exc()
        return 1


def _set_handler(signum: int, handler: Any) -> None:
    """``signal.signal(signum, handler)``, without its reading of the handler it replaces
    as a ``Handlers`` member: in a forked worker that handler is the parent's SIGINT one,
    asyncio's ``functools.partial`` around the running task, whose repr (in the
    ``ValueError`` the enum's lookup makes) formats the task's callbacks and so imported
    inspect, with ast, dis and tokenize, into every worker on the way to its first request
    (~5 ms at load 14, docs/speed.md, *Batches*, eighth round)."""
    try:
        import _signal  # type: ignore[import-not-found]  # (CPython's: signal's own)
    except ImportError:  # pragma: no cover (another Python)
        signal.signal(signum, handler)
    else:  # (as signal.signal passes them: SIG_DFL and SIG_IGN as the ints they are)
        _signal.signal(int(signum), int(handler) if isinstance(handler, int) else handler)


async def _read_worker(
    share: _Share, output_dir: str | None, results: asyncio.Queue[Report]
) -> None:
    """A worker's rows, until its output ends (then None: whatever it still had fails)."""
    proc = share.proc
    assert proc is not None and proc.stdout is not None
    try:
        async for line in proc.stdout:
            try:
                if line[:1] == b"{":
                    import json  # (here: a batch without a manifest sends only counts)

                    result = _from_row(json.loads(line))
                else:
                    result = _counted(line, share.pending)
            except (ValueError, TypeError, KeyError):
                break  # not a row: the worker is broken
            results.put_nowait((share, result))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(proc.wait(), STOP_WAIT)
    finally:
        if proc.returncode not in (None, 0) and output_dir is not None:
            _remove_temporaries(output_dir, proc.pid)
        results.put_nowait((share, None))


def _remove_temporaries(folder: str, pid: int) -> None:
    """The ``.NAME.PID-N.part`` files a worker killed outright (SIGKILL, a crash) left: no
    one else writes under its pid while this batch runs."""
    import re

    tail = re.compile(rf"\.{pid}-\d+\.part\Z")
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        for entry in entries:
            if entry.name.startswith(".") and tail.search(entry.name):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


def _counted(line: bytes, pending: dict[int, str]) -> FetchResult:
    """A worker's successful row sent as ``INDEX SPACE BYTES`` (``full_rows=False``): the
    URL's text is this process's own (``pending``); the fields no output shows without a
    manifest keep their defaults (2.4 µs a row both ways against 28 for the JSON row, timeit
    at load 7)."""
    head, size = line.split()
    index = int(head)
    return _row(index=index, url=shown(pending[index]), ok=True, bytes=int(size))


def _count_line(index: int, result: FetchResult) -> bytes:
    """:func:`_counted`'s line."""
    return b"%d %d\n" % (index, result.bytes)


def _to_row(result: FetchResult) -> dict[str, Any]:
    row = result.to_json()
    row["elapsed"] = result.elapsed
    row["status"] = result.status
    row["effective_url"] = result.effective_url
    return row


def _from_row(row: dict[str, Any]) -> FetchResult:
    """A worker's row as its :class:`FetchResult` (made as :func:`omniurl.batch._row` makes
    one: 11.5 µs a row with ``json.loads`` against 8, timeit); a key that is no field, or
    one of the three without a default missing, is no row (KeyError: the worker is broken,
    as ``FetchResult(**row)`` said with a TypeError)."""
    if not _ROW_KEYS.issuperset(row) or not _ROW_NEEDED.issubset(row):
        raise KeyError("not a row")
    row["chain"] = tuple(row["chain"])
    return _row(**row)


#: The keys a worker's row may have (the fields), and those it must (no default).
_ROW_KEYS = frozenset(FetchResult.__dataclass_fields__)
_ROW_NEEDED = frozenset(name for name, default in _ROW_DEFAULTS.items() if default is MISSING)


async def _reap(share: _Share) -> None:
    proc = share.proc
    if proc is None:
        return
    try:
        await asyncio.wait_for(proc.wait(), STOP_WAIT)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        await proc.wait()


async def _worker(
    setup: dict[str, Any] | None = None, urls_fd: int | None = None, rows_fd: int | None = None
) -> int:
    """A worker: its setup (given, or one line first), then ``[index, url]`` lines on stdin
    (``urls_fd``); one JSON row per URL on stdout (``rows_fd``) as each finishes."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 20)
    source = sys.stdin if urls_fd is None else open(urls_fd, "rb", buffering=0)  # noqa: SIM115
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), source)
    if setup is None:
        import base64
        import pickle

        setup = pickle.loads(base64.b64decode(await reader.readline()))
    positions: dict[int, int] = {}

    async def given() -> AsyncIterator[str]:
        local = 0
        async for line in reader:
            index, text = read_url_line(line)
            positions[local] = index
            local += 1
            yield text

    out = sys.stdout.buffer if rows_fd is None else open(rows_fd, "wb")  # noqa: SIM115
    try:
        return await _work(loop, out, setup, given(), positions)
    finally:
        if rows_fd is not None:  # (the rows pipe; not left to the collector: ResourceWarning)
            with contextlib.suppress(OSError):
                out.close()


async def _work(
    loop: asyncio.AbstractEventLoop,
    out: Any,
    setup: dict[str, Any],
    given: AsyncIterator[str],
    positions: dict[int, int],
) -> int:
    """:func:`_worker`'s transfers: one JSON row per URL to ``out`` as each finishes."""
    from omniurl.client import AsyncClient

    rows: list[bytes] = []
    timer: asyncio.TimerHandle | None = None
    full = setup.get("full_rows", True)

    def flush() -> None:
        nonlocal timer
        timer = None
        if rows:
            out.write(b"".join(rows))
            out.flush()
            rows.clear()

    async with AsyncClient(
        setup["options"], max_keepalive_connections=max(setup["concurrency"], 20)
    ) as client:
        async for result in client.fetch_many(
            given,
            concurrency=setup["concurrency"],
            per_host=setup["per_host"],
            output_dir=setup["output_dir"],
            header_names=setup.get("header_names", False),
            digest=full,  # (a sha256 is a full row's)
        ):
            index = positions.pop(result.index)
            if result.ok and not full:
                rows.append(_count_line(index, result))
            else:
                import json  # (here: without a manifest a successful row is its count)

                row = _to_row(result)
                row["index"] = index
                # (ASCII: a URL's undecodable byte, \\udcff, crossed as an error before)
                rows.append(json.dumps(row).encode() + b"\n")
            # Rows go out in one write a few ms apart (or 64 at a time), not one write each.
            if len(rows) >= 64:
                flush()
            elif timer is None:
                timer = loop.call_later(FLUSH_DELAY, flush)
    if timer is not None:
        timer.cancel()
    flush()
    return 0


async def _until_signalled(work: Coroutine[Any, Any, int] | None = None) -> int:
    """``work`` (:func:`_worker` on stdin and stdout), cancelled by SIGTERM/SIGHUP (so every
    temporary file is removed, as in one process); then 128 + the signal, silently (the
    parent says why it ended)."""
    from omniurl.exitstatus import cancel_on_ending

    loop = asyncio.get_running_loop()
    task = asyncio.ensure_future(_worker() if work is None else work)
    received: list[int] = []

    def stop(signum: int) -> None:
        received.append(signum)
        task.cancel()

    cancel_on_ending(loop, stop)  # (as the command's own: no inspect in a worker)
    try:
        return await task
    except asyncio.CancelledError:
        if not received:
            raise
        return 128 + received[0]


def main() -> int:
    try:
        return asyncio.run(_until_signalled())
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the parent is gone
        return 141


if __name__ == "__main__":
    sys.exit(main())
