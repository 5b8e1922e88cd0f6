"""How the ``omniurl`` process ends (``omniurl.cli.main.run``/``end``): without the
interpreter's teardown, but with everything a command owes still done — its output flushed,
the ``atexit`` callbacks run, its exit status kept, a thread still working waited for, and a
reader gone away reported as curl's write error (23) rather than a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: Runs ``omniurl ARGS`` the way the console script does, after the set-up lines ``pre``.
SCRIPT = """\
import atexit, sys
{pre}
sys.argv = ["omniurl", *sys.argv[1:]]
from omniurl.cli.main import run
run()
"""


#: The variables asking the interpreter to report on its teardown (``cli.main._teardown_asked``).
ASKING = (
    "PYTHONDEVMODE", "PYTHONMALLOCSTATS", "PYTHONDUMPREFS", "PYTHONWARNINGS", "PYTHONTRACEMALLOC"
)  # fmt: skip


def omniurl(
    pre: str,
    *args: str,
    flags: list[str] | None = None,
    extra_env: dict[str, str] | None = None,
    **kw: object,
) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    for name in ASKING:
        env.pop(name, None)
    env["PYTHONPATH"] = str(ROOT)
    env.update(extra_env or {})
    return subprocess.run(  # type: ignore[call-overload,no-any-return]
        [sys.executable, *(flags or []), "-c", SCRIPT.format(pre=pre), *args],
        capture_output=True, cwd=ROOT, env=env, timeout=60, check=False,
        stdin=subprocess.DEVNULL, **kw,
    )  # fmt: skip


#: Set-up lines making an object whose release by the interpreter's teardown writes
#: "teardown" on descriptor 2: held by a module made at exit (an ``atexit`` callback, so
#: after the start's objects were frozen, ``gc.freeze``, which the teardown never frees).
TEARDOWN_MARK = (
    "import os\n"
    "class Noisy:\n"
    "    def __del__(self, write=os.write): write(2, b'teardown\\n')\n"
    "def mark():\n"
    "    import types\n"
    "    sys.modules['teardown_mark'] = held = types.ModuleType('teardown_mark')\n"
    "    held.keep = Noisy()\n"
    "atexit.register(mark)\n"
)


def test_the_teardown_is_skipped_but_output_and_atexit_are_not() -> None:
    pre = (
        TEARDOWN_MARK + "atexit.register(lambda: sys.stderr.write('atexit ran\\n'))\n"
        "sys.stdout.write('x' * 100000)\n"  # still in the buffer when the command ends
    )
    done = omniurl(pre, "parse", "http://a/b")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(b"x" * 100000)
    assert done.stdout[100000:].startswith(b'{"scheme": "http"')
    # atexit's callbacks ran; the teardown (which frees ``keep``) did not
    assert done.stderr == b"atexit ran\n"


@pytest.mark.parametrize(
    ("flags", "env"),
    [
        (["-X", "dev"], {}),
        ([], {"PYTHONDEVMODE": "1"}),
        ([], {"PYTHONMALLOCSTATS": "1"}),
        (["-X", "showrefcount"], {}),
        (["-W", "default"], {}),
        (["-W", "error::ResourceWarning"], {}),
        (["-W", "ignore::DeprecationWarning", "-W", "a"], {}),  # (one that shows: "always")
        ([], {"PYTHONWARNINGS": "always::ResourceWarning"}),
        ([], {"PYTHONWARNINGS": ":::"}),  # (no action: "default")
        (["-X", "tracemalloc"], {}),
        ([], {"PYTHONTRACEMALLOC": "1"}),
    ],
)
def test_the_teardown_runs_where_python_was_asked_to_report_on_it(
    flags: list[str], env: dict[str, str]
) -> None:
    """``-X dev`` (a file left open is reported when the teardown frees it) and
    ``PYTHONMALLOCSTATS`` (pymalloc's figures at exit) ask for what only the interpreter's
    ordinary exit shows: the command then ends that way (``end`` keeps its status)."""
    pre = TEARDOWN_MARK
    done = omniurl(pre, "parse", "http://a/b", flags=flags, extra_env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(b'{"scheme": "http"')
    assert b"teardown\n" in done.stderr
    done = omniurl(pre, "parse", "http://[::1/", flags=flags, extra_env=env)
    assert done.returncode == 2 and b"teardown\n" in done.stderr


@pytest.mark.parametrize(
    ("flags", "env"),
    [
        (["-W", "ignore"], {}),
        (["-W", "i::DeprecationWarning", "-W", "ignore::ResourceWarning"], {}),
        ([], {"PYTHONWARNINGS": "ignore"}),
        ([], {"PYTHONTRACEMALLOC": "0"}),
        (["-E"], {"PYTHONWARNINGS": "default", "PYTHONDEVMODE": "1"}),  # (not read)
    ],
)
def test_filters_that_only_ignore_ask_for_no_teardown(
    flags: list[str], env: dict[str, str]
) -> None:
    """A warning filter that ignores shows nothing the teardown could emit: the command
    still ends without it."""
    done = omniurl(TEARDOWN_MARK, "parse", "http://a/b", flags=flags, extra_env=env)
    assert done.returncode == 0, done.stderr
    assert done.stderr == b""


#: Set-up lines making an object whose release by the teardown emits a ``ResourceWarning``
#: (as a file or socket left open does), held as :data:`TEARDOWN_MARK`'s is.
LEFT_OPEN = (
    "import warnings\n"
    "class LeftOpen:\n"
    "    def __del__(self, warn=warnings.warn):\n"
    "        warn('unclosed thing', ResourceWarning)\n"
    "def mark():\n"
    "    import types\n"
    "    sys.modules['teardown_mark'] = held = types.ModuleType('teardown_mark')\n"
    "    held.keep = LeftOpen()\n"
    "atexit.register(mark)\n"
)


@pytest.mark.parametrize(
    ("flags", "env", "shown"),
    [
        (["-W", "always::ResourceWarning"], {}, b"ResourceWarning: unclosed thing\n"),
        ([], {"PYTHONWARNINGS": "default"}, b"ResourceWarning: unclosed thing\n"),
        (["-W", "error"], {}, b"Exception ignored in"),
    ],
)
def test_a_warning_filter_shows_what_the_teardown_emits(
    flags: list[str], env: dict[str, str], shown: bytes
) -> None:
    """``-W``/``PYTHONWARNINGS``: the ``ResourceWarning`` the teardown emits is shown (or,
    under ``error``, its exception reported) as Python's ordinary exit shows it; without a
    filter it is ignored either way (Python's default for ``ResourceWarning``)."""
    done = omniurl(LEFT_OPEN, "parse", "http://a/b", flags=flags, extra_env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(b'{"scheme": "http"')
    assert shown in done.stderr and b"unclosed thing" in done.stderr
    done = omniurl(LEFT_OPEN, "parse", "http://a/b")
    assert done.returncode == 0 and done.stderr == b""


def test_exit_statuses_are_kept() -> None:
    done = omniurl("", "parse", "http://[::1/")
    assert done.returncode == 2 and b'"component": "host", "offset": 7' in done.stdout
    done = omniurl("", "plan", "--max-redirs", "many", "http://h/")
    assert done.returncode == 2  # (argparse's own exit, through SystemExit)


def test_a_thread_still_working_is_waited_for() -> None:
    pre = (
        "import threading, time\n"
        "def late():\n"  # (from when the command's module is in: it is about to end)
        "    while 'omniurl.cli.text' not in sys.modules: time.sleep(0.01)\n"
        "    time.sleep(0.3); sys.stdout.write('thread done\\n'); sys.stdout.flush()\n"
        "threading.Thread(target=late).start()\n"
    )
    done = omniurl(pre, "parse", "http://a/b")
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith(b"thread done\n")


def test_a_reader_gone_away_at_the_end_is_a_write_error_not_a_traceback() -> None:
    """The output is still buffered when the command returns; its reader has closed the pipe
    by then: the last flush fails, as curl's write, 23 (the interpreter's own exit printed a
    BrokenPipeError and exited 120)."""
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env["PYTHONPATH"] = str(ROOT)
    proc = subprocess.Popen(
        [sys.executable, "-c", SCRIPT.format(pre="import time; time.sleep(0.2)"), "parse",
         "http://a/b"],
        cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )  # fmt: skip
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # before the command has written a byte (it sleeps first)
    try:
        err = proc.stderr.read()
        status = proc.wait(60)
    finally:
        proc.kill()
        proc.wait()
        proc.stderr.close()
    assert status == 23
    assert b"Traceback" not in err and b"BrokenPipe" not in err and b"Exception" not in err


def test_the_collector_is_off_for_the_start_and_on_once_a_command_runs() -> None:
    """``run`` turns the cyclic garbage collector off for the start; ``plan`` (any command
    but ``get``) turns it on once its arguments are read, ``get`` once it has run a while
    (``cli.main.COLLECT_AFTER``: a small transfer ends before)."""
    pre = "import gc\natexit.register(lambda: sys.stderr.write(f'collecting: {gc.isenabled()}'))"
    done = omniurl(pre, "plan", "ftp://h/x")
    assert done.returncode == 0 and done.stderr == b"collecting: True"
    done = omniurl(pre, "get", "-o", "-", f"file://{ROOT}/pyproject.toml")
    assert done.returncode == 0 and done.stderr == b"collecting: False"


def test_a_get_that_runs_a_while_collects_from_then_on() -> None:
    import gc
    import time

    from omniurl.cli.main import COLLECT_AFTER
    from omniurl.cli.signals import run_command

    async def lasting(seconds: float) -> int:
        import asyncio

        await asyncio.sleep(seconds)
        return int(gc.isenabled())

    gc.disable()
    try:
        assert run_command(lasting(0)) == 0  # (a quick command: still off)
        started = time.monotonic()
        assert run_command(lasting(COLLECT_AFTER + 0.2)) == 1
        assert time.monotonic() - started < 30
    finally:
        gc.unfreeze()  # (what collect_from_now froze: this process goes on)
        gc.enable()
    assert run_command(lasting(0)) == 1  # (a program's own collector is left alone)
