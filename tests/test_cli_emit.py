"""``omniurl.cli.emit.dumps``: exactly ``json.dumps(obj, ensure_ascii=False)`` (the ``parse``
and ``plan`` JSON contract), without importing ``json`` for what those commands print."""

from __future__ import annotations

import enum
import json
import subprocess
import sys
from pathlib import Path

import pytest

from omniurl.cli import emit

ROOT = Path(__file__).resolve().parent.parent


class Color(enum.IntEnum):
    RED = 1


class Kind(enum.StrEnum):
    MENU = "menu"


class Text(str):
    pass


def _nested(depth: int) -> object:
    value: object = "deep"
    for _ in range(depth):
        value = [value]
    return value


TEXTS = [
    "",
    "plain",
    'quote " and backslash \\',
    "controls \x00\x01\x1f\x7f\n\r\t\b\f",
    "non-ASCII é € 𝄞 \u2028\u2029",
    "octets kept \udc80\udcff",
    "a lone \ud800 surrogate",
    "</script>",
]
VALUES: list[object] = [
    *TEXTS,
    0,
    -1,
    2**80,
    True,
    False,
    None,
    Color.RED,
    Kind.MENU,
    Text("sub"),
    [],
    (),
    {},
    [1, "a", None, True, [2, (3, {"k": "v"})]],
    {"url": "ftp://h/x", "steps": ["USER anonymous", "PASS ****"], "when": [None, "reply 331"]},
    {t: t for t in TEXTS},
    {"error": {"type": "PortRefused", "offset": 12, "component": "port"}},
    # json's own way for the rest (all of them handed over whole)
    1.5,
    float("nan"),
    {"n": [1, 2.0]},
    {1: "int key"},
    {None: 1, True: 2},
    _nested(70),  # (deeper than dumps follows: json.dumps does it)
]


@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
def test_dumps_is_json_dumps(value: object) -> None:
    assert emit.dumps(value) == json.dumps(value, ensure_ascii=False)


@pytest.mark.parametrize("value", [{"s": {1, 2}}, [object()], {(1, 2): "tuple key"}])
def test_what_json_refuses_is_refused_the_same_way(value: object) -> None:
    with pytest.raises(TypeError) as ours:
        emit.dumps(value)
    with pytest.raises(TypeError) as theirs:
        json.dumps(value, ensure_ascii=False)
    assert str(ours.value) == str(theirs.value)


def test_a_cycle_is_jsons_error() -> None:
    loop: list[object] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference detected"):
        emit.dumps(loop)


def test_print_json_imports_no_json_for_a_plan() -> None:
    code = (
        "import sys; from omniurl.cli import emit; "
        "emit.print_json({'url': 'ftp://h/x', 'port': 21, 'steps': ['USER anonymous'], "
        "'when': [None], 'ok': True}); "
        "sys.stdout.write(str('json' in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60,
        check=True,
    )  # fmt: skip
    assert done.stdout == (
        '{"url": "ftp://h/x", "port": 21, "steps": ["USER anonymous"], "when": [null], '
        '"ok": true}\nFalse'
    )


#: What ``emit`` imports of json's accelerator made unavailable before it is imported: no
#: ``_json`` at all (PyPy, a build without it), or one without the string encoder.
WITHOUT_ACCELERATOR = {
    "no _json": "sys.modules['_json'] = None",
    "_json without encode_basestring": (
        "import types; sys.modules['_json'] = types.ModuleType('_json')"
    ),
}
#: The values of VALUES a literal can carry to another process (repr -> literal_eval).
LITERALS = [v for v in VALUES if type(v) in (str, int, bool, type(None), float, list, tuple, dict)]


@pytest.mark.parametrize("block", WITHOUT_ACCELERATOR.values(), ids=WITHOUT_ACCELERATOR.keys())
def test_dumps_without_jsons_accelerator_is_json_dumps(block: str) -> None:
    """Without ``_json``'s ``encode_basestring``, :func:`emit.dumps` is ``json.dumps`` (the
    pure-Python encoder) and prints the very text CPython's C encoder prints."""
    values = [v for v in LITERALS if v == v]  # (nan has no literal)
    code = (
        f"import ast, sys; {block}\n"
        "from omniurl.cli import emit\n"
        "import json.encoder\n"
        "assert emit._string_encoder() is None and json.encoder.c_make_encoder is None\n"
        "for value in ast.literal_eval(sys.stdin.read()):\n"
        "    print(ascii(emit.dumps(value)))\n"  # (lone surrogates: any stdout takes it)
    )
    done = subprocess.run(
        [sys.executable, "-c", code], input=ascii(values), capture_output=True, text=True,
        cwd=ROOT, timeout=60, check=True,
    )  # fmt: skip
    assert done.stdout.splitlines() == [ascii(json.dumps(v, ensure_ascii=False)) for v in values]
