"""What the command prints for programs: one JSON object per line, and errors either as JSON
(``--json``) or as one line on stderr, with the documented exit status."""

from __future__ import annotations

import sys

from omniurl.exitstatus import EXIT_HTTP_FAIL, exit_status
from omniurl.schemes.errors import OmniurlError
from omniurl.schemes.secrets import mask_passwords, terminal_safe

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable
    from typing import Any

#: :func:`_string_encoder`'s answer, once asked (False: not yet).
_encode_str: Callable[[str], str] | bool | None = False


def _string_encoder() -> Callable[[str], str] | None:
    """json's own C string encoder (``json.dumps(s, ensure_ascii=False)`` of a str is it),
    loaded on the first JSON printed (a get to a file prints none: ~0.3 ms of its start);
    None without it (no _json, or one without it: PyPy, a build without json's accelerator;
    json.dumps does it all, tests/test_cli_emit.py)."""
    global _encode_str
    if _encode_str is False:
        try:
            from _json import encode_basestring
        except ImportError:
            _encode_str = None
        else:
            _encode_str = encode_basestring
    return _encode_str  # type: ignore[return-value]


def print_json(obj: Any) -> None:
    write_stdout(dumps(obj) + "\n")


def write_stdout(text: str, *, flush: bool = False) -> None:
    """``text`` to standard output; a write that fails (a full disk behind a redirection,
    ``> /dev/full``, an I/O error) is curl's write error, 23, with the operating system's
    reason (:func:`stdout_error`), never a traceback.  A reader gone away (``| head``) is
    left to ``cli.main``, which ends quietly with 23."""
    try:
        sys.stdout.write(text)
        if flush:
            sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise stdout_error(exc) from None


def stdout_error(exc: OSError) -> OmniurlError:
    """The typed error (``cli.output.OutputError``, exit status 23) for a failed write to
    standard output."""
    from .output import OutputError

    return OutputError(f"cannot write standard output: {exc.strerror or exc}", component="output")


def dumps(obj: Any) -> str:
    """``json.dumps(obj, ensure_ascii=False)``, character for character, without importing
    ``json`` for the values ``parse`` and ``plan`` print (dicts with text keys, lists and
    tuples, text, integers, booleans and None): ``import json`` (its decoder and scanner,
    four regular expressions) was ~2 ms of the ~30 ms an ``omniurl plan`` spends on its own
    (fresh venv, 2026-11-28).  Anything else (a float, another type, a nesting deeper than
    :data:`_DEPTH`, a cycle) is handed to ``json.dumps`` whole, errors included.  The text
    is json's own C encoder's (``_json.encode_basestring``); tests/test_cli_emit.py compares
    the two on every value kind."""
    encode_str = _string_encoder()
    if encode_str is not None:
        out: list[str] = []
        if _encode(obj, out.append, encode_str, 0):
            return "".join(out)
    import json

    return json.dumps(obj, ensure_ascii=False)


#: How deep :func:`dumps` follows containers itself (a cycle ends here and is json's).
_DEPTH = 64


def _encode(obj: Any, put: Callable[[str], None], text: Callable[[str], str], depth: int) -> bool:
    """Put ``obj``'s JSON (json's separators ``", "`` and ``": "``); False when ``obj`` holds
    anything :func:`dumps` leaves to ``json`` (what was put is then thrown away)."""
    if isinstance(obj, str):
        put(text(obj))
    elif obj is None:
        put("null")
    elif obj is True:
        put("true")
    elif obj is False:
        put("false")
    elif isinstance(obj, int):
        put(int.__repr__(obj))  # (as json: an int subclass, an IntEnum, prints its number)
    elif depth >= _DEPTH:
        return False
    elif type(obj) is dict:
        put("{")
        first = True
        for key, value in obj.items():
            if type(key) is not str:
                return False
            if first:
                first = False
            else:
                put(", ")
            put(text(key))
            put(": ")
            if not _encode(value, put, text, depth + 1):
                return False
        put("}")
    elif type(obj) is list or type(obj) is tuple:
        put("[")
        first = True
        for value in obj:
            if first:
                first = False
            else:
                put(", ")
            if not _encode(value, put, text, depth + 1):
                return False
        put("]")
    else:
        return False
    return True


def error_json(exc: OmniurlError) -> dict[str, Any]:
    return {"error": exc.to_json()}


def report(args: argparse.Namespace, exc: OmniurlError) -> int:
    status = exit_status(exc)
    http_status = getattr(exc, "status", None)
    if getattr(args, "fail", False) and isinstance(http_status, int) and http_status >= 400:
        status = EXIT_HTTP_FAIL
    transfer = getattr(args, "transfer", None)
    if transfer is not None:  # what -w reports
        transfer.errormsg = str(exc)
        if isinstance(http_status, int):
            transfer.http_code = http_status
    if getattr(args, "json", False):
        print_json(error_json(exc))
    elif not getattr(args, "silent", False) or getattr(args, "show_error", False):
        # -s hides the error line (the exit status still tells), -S shows it again (curl).
        sys.stderr.write(f"omniurl: {terminal_safe(mask_passwords(str(exc)))}\n")
    return status
