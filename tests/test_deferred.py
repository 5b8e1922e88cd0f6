"""omniurl/deferred.py: the ``omniurl`` command imports asyncio with ``inspect``, ``logging``,
``traceback``, ``linecache``, ``subprocess``, ``concurrent.futures``, ``asyncio.staggered``
and ``asyncio.sslproto`` waiting for their first use (issue 32: what only a get pays for).

Each check runs in a fresh interpreter (the deferral is process-wide): a plain get runs none
of their bodies, and asyncio does exactly what it does without the deferral when its paths
that need them run (the same output, byte for byte), with the real modules from then on.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from helpers import bare_path, gopher_ftp_http, modules_run

from omniurl.deferred import DEFERRED, PACKAGES
from omniurl.testservers import RunningServer

ROOT = Path(__file__).resolve().parent.parent

#: What a deferred module's body imports (none of them is imported by anything else a plain
#: get runs): the proof that the bodies did not run.
THEIR_IMPORTS = ("ast", "dis", "tokenize", "string", "textwrap", "concurrent.futures._base")


def python(code: str, *args: str, deferred: bool = True) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh interpreter (no site hook), after asyncio was imported the
    command's way (``deferred``) or the ordinary way."""
    start = (
        "from omniurl import deferred, sslimport\n"
        "WAITING = deferred.import_asyncio(sslimport.defer_ssl)\n"
        if deferred
        else "import asyncio\nWAITING = []\n"
    )
    return subprocess.run(
        [sys.executable, "-S", "-c", start + code, *args],
        capture_output=True, text=True, timeout=60, cwd=ROOT, check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONASYNCIODEBUG": ""},
        stdin=subprocess.DEVNULL,
    )  # fmt: skip


def test_asyncio_is_imported_with_the_modules_waiting() -> None:
    code = (
        "import sys, json\n"
        "from omniurl.deferred import is_deferred\n"
        "print(json.dumps([WAITING, [is_deferred(sys.modules[n]) for n in WAITING],\n"
        f"    [m for m in {THEIR_IMPORTS!r} if m in sys.modules], 'ssl' in sys.modules,\n"
        "    sorted(vars(sys.modules['inspect'])), sorted(vars(sys.modules['logging']))]))\n"
    )
    done = python(code)
    assert done.returncode == 0, done.stderr
    waiting, deferred, imported, ssl, names, logging_names = json.loads(done.stdout)
    # (linecache is loaded by the interpreter's own start from 3.13 on: never deferred then)
    assert waiting == [n for n in DEFERRED if n != "linecache" or sys.version_info < (3, 13)]
    assert deferred == [True] * len(waiting)
    assert imported == [] and ssl is False
    # the names given for asyncio's import were taken back: any name now runs the body
    assert [n for n in names if not n.startswith("__")] == []
    assert [n for n in logging_names if not n.startswith("__")] == []


def test_the_first_name_read_runs_the_real_module_in_the_same_object() -> None:
    code = (
        "import sys, json, types\n"
        "import inspect, logging, subprocess as sp, concurrent.futures as cf\n"
        "held = sys.modules['inspect']\n"
        "from inspect import isgenerator, signature\n"  # (a from-import reads the name)
        "import ast, logging.handlers\n"  # (a submodule under a deferred package)
        "ssl_held = sys.modules['asyncio.sslproto']\n"
        "import ssl, asyncio, traceback, linecache, typing\n"
        "traceback.format_stack, linecache.getline, asyncio.staggered.staggered_race\n"
        "typing.Any, asyncio.Queue\n"
        "print(json.dumps([held is inspect, type(inspect) is types.ModuleType,\n"
        "    isgenerator.__module__, str(signature(lambda a, b=1: 0)),\n"
        "    logging.DEBUG, logging.getLogger('x').getEffectiveLevel(),\n"
        "    [sp.PIPE, sp.STDOUT, sp.DEVNULL] == [asyncio.subprocess.PIPE,\n"
        "        asyncio.subprocess.STDOUT, asyncio.subprocess.DEVNULL],\n"
        "    [cf.FIRST_COMPLETED, cf.FIRST_EXCEPTION, cf.ALL_COMPLETED] ==\n"
        "        [asyncio.FIRST_COMPLETED, asyncio.FIRST_EXCEPTION, asyncio.ALL_COMPLETED],\n"
        "    asyncio.futures.STACK_DEBUG == logging.DEBUG - 1,\n"
        "    cf.ThreadPoolExecutor.__module__, logging.handlers.__name__,\n"
        "    ssl_held is asyncio.sslproto and asyncio.sslproto.ssl is ssl,\n"
        "    asyncio.sslproto.SSLAgainErrors == (ssl.SSLWantReadError, ssl.SSLSyscallError),\n"
        "    [type(sys.modules[n]) is types.ModuleType for n in WAITING]]))\n"
    )
    done = python(code)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [
        True, True, "inspect", "(a, b=1)", 10, 30, True, True, True,
        "concurrent.futures.thread", "logging.handlers", True, True,
        [True] * len(json.loads(python("import json; print(json.dumps(WAITING))").stdout)),
    ]  # fmt: skip


#: asyncio's paths that use the deferred modules: a callback's error and a task's error
#: never retrieved (logging, traceback, linecache), debug mode (a future's creation stack:
#: ``_asyncio``'s ``traceback.extract_stack``; a slow callback, logged), an executor
#: (concurrent.futures, inspect), a child process (subprocess), ``wait`` (its constants),
#: a bare generator yielded by a task (``_asyncio``'s ``inspect.isgenerator``).
SCENARIO = r"""
import asyncio, gc, sys, time

def boom():
    raise ValueError("in a callback")

def where():
    return asyncio.get_running_loop().create_future()

async def fails():
    raise KeyError("never retrieved")

async def main():
    loop = asyncio.get_running_loop()
    loop.call_soon(boom)
    await asyncio.sleep(0)
    task = loop.create_task(fails())
    await asyncio.sleep(0)
    del task
    gc.collect()
    print(await loop.run_in_executor(None, sum, [1, 2, 3]))
    done, _ = await asyncio.wait([loop.create_task(asyncio.sleep(0))],
                                 return_when=asyncio.FIRST_COMPLETED)
    print(len(done), asyncio.iscoroutinefunction(main))
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-S", "-c", "print('child')", stdout=asyncio.subprocess.PIPE)
    print((await child.communicate())[0].decode().strip(), child.returncode)
    loop.set_debug(True)
    fut = where()
    print([frame.name for frame in fut._source_traceback][-2:])
    fut.cancel()
    loop.slow_callback_duration = 0.001
    loop.call_soon(time.sleep, 0.01)
    await asyncio.sleep(0.05)
    loop.set_debug(False)
    try:
        await asyncio.wait_for(loop.create_task(bare()), 5)
    except RuntimeError as exc:
        print("RuntimeError", exc)

class Bare:
    def __await__(self):
        yield (i for i in ())  # a bare generator: the task refuses it

async def bare():
    await Bare()

asyncio.run(main())
import logging
print(asyncio.log.logger is logging.getLogger("asyncio"))
"""


def _masked(text: str) -> str:
    """Addresses, line numbers of this scenario's frames and timings masked, and debug
    mode's slow-*task* records dropped: with ``slow_callback_duration`` at 1 ms, whether a
    step of ``main()`` itself is logged depends on the machine's load (the mid-session CI of
    2026-11-29, load ~6: one ``Executing <Task pending name='Task-1' …> took`` line in one
    run of the two).  The scenario's own slow callback, ``time.sleep(0.01)``, is a Handle
    and stays compared."""
    text = re.sub(r"(?m)^Executing <Task .*took \d+\.\d+ seconds\n", "", text)
    text = re.sub(r"0x[0-9a-f]+", "0x?", text)
    text = re.sub(r"took \d+\.\d+ seconds", "took ? seconds", text)
    return re.sub(r'File "<string>", line \d+', 'File "<string>", line ?', text)


def test_asyncio_does_the_same_with_its_modules_deferred() -> None:
    """The scenario's output (stdout and stderr: the loggers' records through logging's
    last resort, tracebacks with their source lines, a debug stack) is the same byte for
    byte as asyncio imported the ordinary way, and every module it needed ran for real."""
    plain = python(SCENARIO, deferred=False)
    deferred = python(SCENARIO + "print(WAITING)\n")
    assert plain.returncode == deferred.returncode == 0, (plain.stderr, deferred.stderr)
    assert "Exception in callback boom()" in plain.stderr  # (the positive controls)
    assert "Task exception was never retrieved" in plain.stderr
    assert "Executing <Handle sleep(0.01)" in plain.stderr
    assert "RuntimeError" in plain.stdout and "bare" in plain.stdout.lower()
    assert _masked(deferred.stderr) == _masked(plain.stderr)
    assert _masked(deferred.stdout).rsplit("\n", 2)[0] == _masked(plain.stdout).rstrip("\n")
    assert "['where', 'create_future']" in plain.stdout  # (the stack: where it was made)


def test_the_first_use_from_many_threads_runs_the_body_once() -> None:
    """Threads that read their first name at once all get the real module (a lock: the
    standard library's LazyLoader before 3.12.3 let a second thread see an empty one)."""
    code = (
        "import sys, threading, json\n"
        "import inspect\n"
        "gate = threading.Barrier(8); got = []\n"
        "def use():\n"
        "    gate.wait(); got.append(str(inspect.signature(use)))\n"
        "threads = [threading.Thread(target=use) for _ in range(8)]\n"
        "[t.start() for t in threads]; [t.join(10) for t in threads]\n"
        "print(json.dumps(got))\n"
    )
    done = python(code)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == ["()"] * 8


def test_nothing_is_deferred_once_asyncio_is_loaded_or_on_an_unchecked_python() -> None:
    code = (
        "import sys, json, asyncio\n"
        "from omniurl import deferred, sslimport\n"
        "loaded = deferred.import_asyncio(sslimport.defer_ssl)\n"
        "print(json.dumps(loaded))\n"
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", code], capture_output=True, text=True, timeout=60,
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True,
    )  # fmt: skip
    assert json.loads(done.stdout) == []
    code = (
        "import sys, json\n"
        "from omniurl import deferred, sslimport\n"
        "deferred.CHECKED = ()\n"
        "waiting = deferred.import_asyncio(sslimport.defer_ssl)\n"
        "print(json.dumps([waiting, 'asyncio' in sys.modules, 'ast' in sys.modules]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", code], capture_output=True, text=True, timeout=60,
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True,
    )  # fmt: skip
    assert json.loads(done.stdout) == [[], True, True]


@pytest_asyncio.fixture
async def servers(tmp_path: Path) -> AsyncIterator[dict[str, RunningServer]]:
    (tmp_path / "hello.txt").write_bytes(b"hello, world\r\n")
    async with gopher_ftp_http(tmp_path) as started:
        yield started


@pytest.mark.parametrize(
    ("scheme", "path"), [("gopher", "/0/hello.txt"), ("ftp", "/hello.txt"), ("http", "/hello.txt")]
)
async def test_a_plain_get_runs_none_of_the_deferred_modules(
    servers: dict[str, RunningServer], scheme: str, path: str, tmp_path: Path
) -> None:
    out = tmp_path / "out.txt"
    url = f"{scheme}://{servers[scheme].netloc}{path}"
    status, _stdout, ran = await modules_run("get", "-o", str(out), url)
    assert status == 0
    assert out.read_bytes().replace(b"\r\n", b"\n") == b"hello, world\n"
    assert "asyncio" in ran and f"omniurl.resolvers.{scheme}.executor" in ran  # (control)
    assert not ran & {*DEFERRED, *THEIR_IMPORTS, "ssl"}
    # (typing among them: its import was ~9 ms of every get's start; contextlib, which it
    # imported, was imported for suppress and asynccontextmanager only: resolvers.errors)
    assert not ran & {*PACKAGES, "httptools.parser.protocol", "contextlib"}
    assert "fcntl" not in ran  # (a small body's splice pipe keeps its default size)
    if scheme == "http":  # the reply was read by llhttp, without httptools' package bodies
        assert {"httptools.parser.parser", "httptools.parser.errors"} <= ran


#: What typing's names make of ``asyncio.timeouts`` (it evaluates ``Optional[...]`` and
#: ``Type[...]`` in its annotations as it is imported, and marks ``Timeout`` ``@final``),
#: printed after typing is loaded.
TIMEOUTS = r"""
import sys, json, typing, asyncio.timeouts as t
typing.Any  # (typing runs)
out = {"final": [t.Timeout.__final__, t.final is typing.final, t.Optional is typing.Optional,
                 t.Type is typing.Type]}
for owner in (t, t.Timeout):
    for name, value in sorted(vars(owner).items()):
        hints = getattr(value, "__annotations__", None) if callable(value) else None
        if hints:
            out[f"{owner.__name__}.{name}"] = {k: repr(v) for k, v in hints.items()}
out["hints"] = repr(typing.get_type_hints(t.Timeout.__aexit__))
print(json.dumps(out, sort_keys=True))
"""


def test_typing_waits_and_asyncio_timeouts_holds_its_names_once_it_runs() -> None:
    """typing's body waits (asyncio.timeouts reads ``final``, ``Optional`` and ``Type`` as
    it is imported: given for that import); once it runs, asyncio.timeouts holds typing's own
    names and the annotations typing makes, as when typing was imported first."""
    done = python(
        "import sys, json\n"
        "from omniurl.deferred import is_deferred\n"
        "print(json.dumps([is_deferred(sys.modules['typing']), 'contextlib' in sys.modules,\n"
        "    sys.modules['asyncio.timeouts'].Timeout.__final__]))\n"
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [True, False, True]
    plain = python(TIMEOUTS, deferred=False)
    deferred = python(TIMEOUTS)
    assert plain.returncode == deferred.returncode == 0, (plain.stderr, deferred.stderr)
    assert "typing.Optional[typing.Type[BaseException]]" in plain.stdout  # (the control)
    assert json.loads(deferred.stdout) == json.loads(plain.stdout)


#: httptools' names, after the reply reader took its parser (and typing is loaded).
HTTPTOOLS = r"""
import sys, json
from omniurl import sslimport
from omniurl.deferred import defer_packages, import_asyncio, is_deferred
import_asyncio(sslimport.defer_ssl)  # (the command's start)
defer_packages()
from omniurl.resolvers.http import reply
llhttp = reply._llhttp()
waiting = [is_deferred(sys.modules[n]) for n in ("httptools", "httptools.parser", "typing")]
waiting.append("httptools.parser.protocol" in sys.modules)
import httptools, typing
print(json.dumps([waiting, llhttp.HttpResponseParser is httptools.HttpResponseParser,
    llhttp.HttpParserError is httptools.HttpParserError,
    llhttp.HttpParserUpgrade is httptools.HttpParserUpgrade,
    httptools.parser.parser.Optional is typing.Optional,
    sorted(vars(httptools)) == sorted(vars(sys.modules["httptools"])),
    sorted(n for n in vars(httptools) if not n.startswith("__")),
    httptools.HTTPProtocol.__module__, typing.Protocol in httptools.HTTPProtocol.__mro__]))
"""


def test_httptools_packages_wait_and_give_the_same_objects() -> None:
    """The command's reply reader takes llhttp from httptools' own modules while the
    packages' bodies (and typing, which ``httptools.parser.protocol`` imports) wait; read
    later, the package is the real one, with the same objects."""
    done = subprocess.run(
        [sys.executable, "-S", "-c", HTTPTOOLS], capture_output=True, text=True, timeout=60,
        cwd=ROOT, env={**os.environ, "PYTHONPATH": bare_path()}, check=False,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    waiting, *same, names, protocol_module, protocol = json.loads(done.stdout)
    assert waiting == [True, True, True, False]
    assert same == [True, True, True, True, True]
    assert {"HttpResponseParser", "parse_url", "parser", "HTTPProtocol"} <= set(names)
    assert (protocol_module, protocol) == ("httptools.parser.protocol", True)


#: asyncio's names and ``__all__`` (each value described by its type, module and name).
ASYNCIO_NAMES = r"""
import sys, json, types, asyncio
def desc(v):
    if isinstance(v, types.ModuleType):  # (a module, waiting or not: its name)
        return ["module", "", v.__name__]
    name = getattr(v, "__qualname__", getattr(v, "__name__", ""))
    return [type(v).__name__, getattr(v, "__module__", ""), name if isinstance(name, str) else ""]
all_ = list(asyncio.__all__)  # (the first name asyncio does not hold: all are bound)
names = {k: desc(v) for k, v in vars(asyncio).items() if k != "__builtins__"}
print(json.dumps([all_, names, asyncio.Queue.__module__,
                  asyncio.open_connection.__module__]))
"""


def test_asyncio_gets_the_names_of_its_waiting_modules_on_first_use() -> None:
    """asyncio's queues, streams, subprocess, task groups and threads wait (asyncio's
    ``from .X import *`` binds nothing while they do); the first name read from asyncio
    that it does not hold binds them all, and its ``__all__``: the same names, the same
    objects, the same ``__all__`` in the same order as asyncio imported the ordinary way."""
    done = python(
        "import sys, json, asyncio\n"
        "from omniurl.deferred import LATER, is_deferred\n"
        "print(json.dumps([[is_deferred(sys.modules[n]) for n in LATER],\n"
        "    '__all__' in vars(asyncio), 'Queue' in vars(asyncio)]))\n"
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [[True] * 5, False, False]
    plain = python(ASYNCIO_NAMES, deferred=False)
    deferred = python(ASYNCIO_NAMES)
    assert plain.returncode == deferred.returncode == 0, (plain.stderr, deferred.stderr)
    plain_all, plain_names, *plain_where = json.loads(plain.stdout)
    all_, names, *where = json.loads(deferred.stdout)
    assert "Queue" in plain_all and "open_connection" in plain_all  # (the control)
    assert all_ == plain_all and where == plain_where
    assert names == plain_names
