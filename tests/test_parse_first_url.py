"""The first URL of a scheme in a process, and the reading spelt as text (``"rfc3986"``: the
command line's and ``Options.syntax``'s), take the class's one-match default reading.

(A file of its own: it runs fresh interpreters, and .ci/run's pure pass leaves out the test
files that start processes; tests/test_parse_fast_default.py stays in it.)
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from omniurl import schemes

_FIRST_URL = """\
import sys
from omniurl import schemes
from omniurl.schemes import {module} as m
url = schemes.parse(sys.argv[1], syntax=sys.argv[2])
print(repr(url), m._FAST._compiled is None)
"""


@pytest.mark.parametrize("syntax", ["rfc3986", "Syntax.RFC3986"])
@pytest.mark.parametrize(
    ("text", "module"),
    [("ftp://h/x", "ftp"), ("http://a/b?c", "http"), ("gopher://h/1/", "gopher")],
)
def test_the_first_url_of_a_scheme_takes_the_default_reading(
    text: str, module: str, syntax: str
) -> None:
    """The first URL of a scheme in a process (its class imported by that parse), and the
    reading spelt as text (``"rfc3986"``: the command line's and ``Options.syntax``'s), take
    the class's one-match default reading: the letter's pattern (``_FAST``) is never
    compiled for them (it was: ~1 ms of every ``omniurl parse``/``plan`` of one URL)."""
    code = _FIRST_URL.format(module=module)
    if syntax.startswith("Syntax."):
        code = code.replace("syntax=sys.argv[2]", "syntax=schemes.Syntax.RFC3986")
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run(
        [sys.executable, "-c", code, text, syntax], capture_output=True, text=True, cwd=root,
        timeout=60, check=True,
    )  # fmt: skip
    assert done.stdout == f"{schemes.parse(text)!r} True\n"
