"""Helpers the test modules share (not a test module): running the ``omniurl`` command in a
subprocess or on a pty, free ports, a transfer cancelled midway.

The servers a test starts run on the test's own event loop, so a client command must run as
an asyncio subprocess (a blocking ``subprocess.run`` would starve them); every wait here is
bounded, and a command that overstays is killed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import site
import socket
import ssl
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from omniurl import resolvers
from omniurl.resolvers import Options
from omniurl.resolvers.resource import Resource

if TYPE_CHECKING:
    from omniurl.testservers import RunningServer

#: The worktree root: where ``python -m omniurl`` finds the packages.
ROOT = Path(__file__).resolve().parent.parent


async def run(
    argv: Sequence[str],
    *,
    stdin: bytes | None = None,
    timeout: float = 30,
    cwd: Path | str = ROOT,
    env: Mapping[str, str] | None = None,
) -> tuple[int, bytes, bytes]:
    """Run ``argv`` to its end (bounded: killed after ``timeout`` s); (status, stdout, stderr).

    ``stdin`` is written to the command's standard input; None gives it /dev/null, so a
    command never waits on the terminal of the person running the tests.
    """
    proc = await asyncio.create_subprocess_exec(
        *argv,
        cwd=cwd,
        env=env,
        stdin=asyncio.subprocess.DEVNULL if stdin is None else asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(proc.communicate(stdin), timeout)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise
    assert proc.returncode is not None
    return proc.returncode, out, err


async def run_omniurl(
    *args: str,
    stdin: bytes | None = None,
    timeout: float = 30,
    cwd: Path | str = ROOT,
    env: Mapping[str, str] | None = None,
) -> tuple[int, bytes, bytes]:
    """``python -m omniurl ARGS`` in a subprocess (see :func:`run`)."""
    return await run(
        [sys.executable, "-m", "omniurl", *args], stdin=stdin, timeout=timeout, cwd=cwd, env=env
    )


def connected_sockets() -> set[int]:
    """The inodes of this process's connected TCP sockets (Linux: /proc), listeners left out.

    The test servers run in this process too, so a connection shows up twice (our end and
    the server's); the server closes its end when ours closes.
    """
    mine: set[int] = set()
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):
            link = os.readlink(f"/proc/self/fd/{fd}")
            if link.startswith("socket:["):
                mine.add(int(link[8:-1]))
    found: set[int] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError), open(table) as fh:
            for row in fh.readlines()[1:]:
                fields = row.split()
                # st 0A is LISTEN; field 9 is the inode
                if fields[3] != "0A" and int(fields[9]) in mine:
                    found.add(int(fields[9]))
    return found


async def assert_no_new_connections(before: set[int], what: str, timeout: float = 3) -> None:
    """Wait (bounded) until every TCP connection opened since ``before`` is closed."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while connected_sockets() - before:
        if loop.time() > deadline:
            raise AssertionError(f"{what}: connections still open after {timeout} s")
        await asyncio.sleep(0.02)


async def cancel_mid_transfer(url: str, options: Options) -> None:
    """Resolve ``url``, cancel the task once the first chunk has arrived, and check that the
    cancellation comes out as ``CancelledError`` and that every connection it opened is
    closed (the resource is kept referenced meanwhile, so no garbage collector closes them
    for us)."""
    started = asyncio.Event()
    held: list[object] = []
    before = connected_sockets()

    async def fetch() -> None:
        async with await resolvers.resolve(url, options) as r:
            held.append(r)
            async for _chunk in r:
                started.set()
                await asyncio.sleep(10)

    task = asyncio.ensure_future(fetch())
    await asyncio.wait_for(started.wait(), 5)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        await assert_no_new_connections(before, f"cancelling the transfer of {url}")
        return
    raise AssertionError(f"cancelling the transfer of {url} raised no CancelledError")


def tcp_pair() -> tuple[socket.socket, socket.socket]:
    """A loopback TCP connection: ours (non-blocking, the side a ``Stream`` reads) and
    theirs (blocking, the peer's).  TCP, not a socketpair: the low-water mark is TCP's."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        ours = socket.create_connection(listener.getsockname())
        theirs, _ = listener.accept()
    ours.setblocking(False)
    return ours, theirs


def race(work: Callable[[int], None], threads: int = 6, timeout: float = 120) -> list[str]:
    """``work(k)`` for k in ``range(threads)``, each in its own thread, with the interpreter
    switching threads every microsecond (so a check-then-act on shared state is interleaved
    often); the repr of every exception a thread raised, for the test to assert empty.
    Every thread ends within ``timeout`` s or the test fails."""
    errors: list[str] = []

    def run(k: int) -> None:
        try:
            work(k)
        except Exception as exc:  # (collected: the caller's assertion names it)
            errors.append(repr(exc))

    saved = sys.getswitchinterval()
    try:
        sys.setswitchinterval(1e-6)
        started = [threading.Thread(target=run, args=(k,)) for k in range(threads)]
        for thread in started:
            thread.start()
        for thread in started:
            thread.join(timeout=timeout)
        assert not any(thread.is_alive() for thread in started)
    finally:
        sys.setswitchinterval(saved)
    return errors


def run_script(script: str, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``python -X dev -W error::ResourceWarning -c SCRIPT ARGS`` in the checkout (a fresh
    interpreter: a real SIGINT, a warning at exit, a loop left running show there), run to
    its end within ``timeout`` s; asserts it exited 0 (its stderr as the message) and returns
    it for the caller's assertions on stdout and stderr."""
    proc = subprocess.run(
        [sys.executable, "-X", "dev", "-W", "error::ResourceWarning", "-c", script, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert proc.returncode == 0, proc.stderr
    return proc


def free_port() -> int:
    """A port free on loopback right now (for daemons that cannot bind port 0 themselves)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.asynccontextmanager
async def omniurl_on_a_pty(*args: str) -> AsyncIterator[tuple[asyncio.subprocess.Process, int]]:
    """``python -m omniurl ARGS`` with a pty as its terminal (stdin, stdout and stderr), in a
    session of its own; yields (process, the pty's master fd).  On exit a process still
    running is killed, and the master is closed."""
    master, slave = os.openpty()
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "omniurl",
        *args,
        cwd=ROOT,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        start_new_session=True,
    )
    os.close(slave)
    try:
        yield proc, master
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        os.close(master)


async def read_until(fd: int, needle: bytes, seen: bytearray, timeout: float = 10) -> None:
    """Read ``fd`` into ``seen`` until ``needle`` is in it (bounded: AssertionError after
    ``timeout`` s, or when the other side closes the pty)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while needle not in seen:
        if loop.time() > deadline:
            raise AssertionError(f"never saw {needle!r}; got {bytes(seen)!r}")
        ready = asyncio.Event()
        loop.add_reader(fd, ready.set)
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(ready.wait(), 0.2)
        finally:
            loop.remove_reader(fd)
        if ready.is_set():
            try:
                seen += os.read(fd, 4096)
            except OSError:  # EIO: the child closed the pty
                raise AssertionError(f"pty closed; got {bytes(seen)!r}") from None


def on_a_terminal(
    *args: str,
    cwd: Path,
    columns: int = 100,
    timeout: float = 30,
    env: dict[str, str] | None = None,
    stderr_too: bool = True,
) -> tuple[int, bytes]:
    """``python -m omniurl ARGS`` with stdout and stderr on a pty (stdin ``/dev/null``), run
    to its end: its exit status and every byte it wrote.  Blocking (call it through
    ``asyncio.to_thread`` when the servers run on the test's loop); at most ``timeout`` s,
    then the command is killed and the test fails with what it wrote.  ``env`` replaces
    ``os.environ`` as the command's environment (``PYTHONPATH`` and ``COLUMNS`` still set);
    ``stderr_too=False`` sends stderr to ``/dev/null``, the pty then holds stdout alone."""
    import pty
    import select
    import subprocess
    import time

    leader, follower = pty.openpty()
    env = {**(os.environ if env is None else env), "PYTHONPATH": str(ROOT)}
    env["COLUMNS"] = str(columns)
    proc = subprocess.Popen(
        [sys.executable, "-m", "omniurl", *args], stdout=follower,
        stderr=follower if stderr_too else subprocess.DEVNULL, stdin=subprocess.DEVNULL,
        cwd=cwd, env=env,
    )  # fmt: skip
    os.close(follower)
    out = bytearray()
    deadline = time.monotonic() + timeout
    try:
        while (left := deadline - time.monotonic()) > 0:
            if not select.select([leader], [], [], left)[0]:
                break  # (the deadline)
            try:
                data = os.read(leader, 65536)
            except OSError:  # EIO: the command closed the pty
                break
            if not data:
                break
            out += data
    finally:
        os.close(leader)
    try:
        return proc.wait(max(deadline - time.monotonic(), 0.5)), bytes(out)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise AssertionError(
            f"omniurl {' '.join(args)} overstayed {timeout:g} s: {out!r}"
        ) from None


def throwaway_pki(folder: Path, host: str = "localhost") -> tuple[ssl.SSLContext, str]:
    """A server TLS context with a certificate for ``host`` from a fresh CA (trustme, the
    test extra: skips without it), and the path of that CA's certificate for ``ca_file``."""
    import pytest

    trustme = pytest.importorskip("trustme", reason="trustme (the test extra) is not installed")
    ca = trustme.CA()
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert(host).configure_cert(context)
    path = folder / "ca.pem"
    ca.cert_pem.write_to_path(str(path))
    return context, str(path)


async def read_as_writer(resource: Resource) -> tuple[bytes, list[type]]:
    """Read ``resource`` as the CLI's writers do (``views_ok``: each chunk written before the
    next is asked for, so an executor may hand out views of one reused buffer): the bytes,
    and each chunk's type in order."""
    resource.views_ok = True
    written = bytearray()
    kinds: list[type] = []
    async for chunk in resource:
        kinds.append(type(chunk))
        written += chunk  # (written before the next chunk is asked for)
    return bytes(written), kinds


class StallingGopher:
    """A Gopher server (for the Dask tests' killed workers) whose ``slow`` item, 256 KiB,
    stalls half way the first time it is asked for — ``half_sent`` (a thread's event, so a
    test on another loop can wait for it) is set then, and ``release`` ends the stall — and
    is served whole afterwards; any other selector is answered ``item SELECTOR`` at once.
    With ``menu_items``, the empty selector is a menu of ``slow`` and that many items."""

    SLOW = bytes(range(256)) * 1024  # 256 KiB

    def __init__(self, menu_items: int = 0) -> None:
        self.menu_items = menu_items
        self.half_sent = threading.Event()
        self.slow_asked = 0
        self.port = 0
        self.server: asyncio.Server | None = None

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            selector = (await reader.readline()).rstrip(b"\r\n")
            if selector == b"" and self.menu_items:
                port = str(self.port).encode()
                names = [b"slow"] + [b"item%d" % i for i in range(self.menu_items)]
                for name in names:
                    writer.write(b"9" + name + b"\t" + name + b"\t127.0.0.1\t" + port + b"\r\n")
                writer.write(b".\r\n")
            elif selector == b"slow":
                self.slow_asked += 1
                if self.slow_asked == 1:
                    writer.write(self.SLOW[: 64 * 1024])
                    await writer.drain()
                    self.half_sent.set()
                    with contextlib.suppress(TimeoutError):  # the worker dies meanwhile
                        await asyncio.wait_for(self.release.wait(), 60)
                    return
                writer.write(self.SLOW)
            else:
                writer.write(b"item " + selector + b"\n")
            await writer.drain()
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    async def start(self) -> None:
        self.release = asyncio.Event()
        self.server = await asyncio.start_server(self.handle, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        self.release.set()
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()


@contextlib.asynccontextmanager
async def gopher_ftp_http(root: Path) -> AsyncIterator[dict[str, RunningServer]]:
    """omniurl's own Gopher, FTP and HTTP test servers, all three serving ``root``, for the
    block (by name); each one started is closed however the block ends."""
    from omniurl import testservers

    started: dict[str, RunningServer] = {}
    try:
        for name in ("gopher", "ftp", "http"):
            started[name] = await testservers.start(name, root)
        yield started
    finally:
        for server in started.values():
            await server.close()


#: ``omniurl ARGS`` as the console script runs it; the last line of stderr lists the modules
#: whose bodies ran since the interpreter started (a deferred one's has not: deferred.py).
PROBE = """\
import sys
before = set(sys.modules)
import atexit
def report():
    from omniurl.deferred import is_deferred
    ran = sorted(m for m, mod in sys.modules.items()
                 if m not in before and mod is not None and not is_deferred(mod))
    import json
    sys.stderr.write("\\n" + json.dumps(ran) + "\\n")
atexit.register(report)
sys.argv = ["omniurl", *sys.argv[1:]]
from omniurl.cli.main import run
run()
"""


def bare_path() -> str:
    """The PYTHONPATH of an interpreter run bare (``-S``: no site hook imports a module
    first): the worktree, then the site-packages directories ``site`` would have added."""
    paths = [str(ROOT), *site.getsitepackages(), site.getusersitepackages()]
    return os.pathsep.join(p for p in paths if os.path.isdir(p))


async def modules_run(*args: str) -> tuple[int, bytes, set[str]]:
    """(exit status, stdout, modules run) of ``omniurl ARGS``, bare (``-S``: no site hook
    imports a module first; the libraries on PYTHONPATH: :func:`bare_path`)."""
    done = await asyncio.to_thread(
        subprocess.run, [sys.executable, "-S", "-c", PROBE, *args],
        capture_output=True, timeout=60, cwd=ROOT, check=False, stdin=subprocess.DEVNULL,
        env={**os.environ, "HOME": str(ROOT), "PYTHONPATH": bare_path()},
    )  # fmt: skip
    ran = json.loads(done.stderr.decode().rstrip("\n").rsplit("\n", 1)[-1])
    return done.returncode, done.stdout, set(ran)


@contextlib.asynccontextmanager
async def loopback_server(
    handle: Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]],
) -> AsyncIterator[int]:
    """A scripted TCP server on 127.0.0.1 (port 0) serving each connection with ``handle``
    for the block; yields its port.  Closed (not waited for) when the block ends: a
    handler still running is the test's to bound."""
    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
