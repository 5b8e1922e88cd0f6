"""schemes/records.py: a record behaves as the dataclass it replaces (issue 32 item 3).

Each record class here has a twin made with ``@dataclass`` from the same body; every reader
of a dataclass (``repr``, ``==``, ``hash``, assignment, ``dataclasses.fields``/``replace``/
``asdict``, pickling, a ``@dataclass`` subclass) must see the same thing in both.
"""

from __future__ import annotations

import copy
import dataclasses
import os
import pickle
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import pytest

from omniurl.schemes import records
from omniurl.schemes.records import record

ROOT = Path(__file__).resolve().parent.parent


@record(frozen=True, kw_only=True)
class Pickled:
    a: int
    b: tuple[int, ...] = ()


def test_a_record_pickles_and_copies() -> None:
    one = Pickled(a=1, b=(2,))
    assert pickle.loads(pickle.dumps(one)) == one
    assert copy.copy(one) == one == copy.deepcopy(one)


def _twins(frozen: bool, kw_only: bool) -> tuple[type[Any], type[Any]]:
    def body() -> dict[str, Any]:
        return {
            "__annotations__": {
                "a": "int",
                "b": "str",
                "c": "list[int]",
                "d": "int",
                "K": "ClassVar[int]",
            },
            "b": "x",
            "K": 3,
            "__module__": __name__,
        }

    made = []
    for decorate, field in (
        (dataclasses.dataclass(frozen=frozen, kw_only=kw_only), dataclasses.field),
        (record(frozen=frozen, kw_only=kw_only), records.field),
    ):
        ns = body()
        ns["c"] = field(default_factory=list)
        ns["d"] = field(default=7, compare=False, repr=False)
        made.append(decorate(type("Thing", (), ns)))
    return made[0], made[1]


@pytest.mark.parametrize("frozen", [True, False])
@pytest.mark.parametrize("kw_only", [True, False])
def test_a_record_is_its_dataclass_twin(frozen: bool, kw_only: bool) -> None:
    theirs, mine = _twins(frozen, kw_only)
    for cls in (theirs, mine):
        one = cls(a=1) if kw_only else cls(1)
        assert repr(one) == "Thing(a=1, b='x', c=[])"
        assert one == cls(a=1, d=99)  # (d is not compared)
        assert one != cls(a=2)
        assert (one == 1) is False and one.__eq__(1) is NotImplemented
        assert one.c == [] and one.c is not cls(a=1).c  # a fresh list each
        assert cls.K == 3 and cls.b == "x" and "c" not in cls.__dict__
        assert [f.name for f in dataclasses.fields(cls)] == ["a", "b", "c", "d"]
        assert dataclasses.is_dataclass(one) and dataclasses.is_dataclass(cls)
        assert dataclasses.asdict(one) == {"a": 1, "b": "x", "c": [], "d": 7}
        two = dataclasses.replace(one, b="y")
        assert (type(two), two.a, two.b) == (cls, 1, "y")
        assert copy.deepcopy(one) == one
        if frozen:
            with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'a'"):
                one.a = 2
            with pytest.raises(dataclasses.FrozenInstanceError):
                del one.b
        else:
            assert cls.__hash__ is None
            one.a = 5
            assert one.a == 5
    if kw_only:
        with pytest.raises(TypeError):
            mine(1)
    else:
        assert mine.__match_args__ == theirs.__match_args__ == ("a", "b", "c", "d")
    if frozen:  # the same hash as the dataclass (the compared fields' tuple)
        assert hash(mine(a=1, c=())) == hash(theirs(a=1, c=())) == hash((1, "x", ()))
    with pytest.raises(TypeError):
        mine()  # a is required


def test_a_dataclass_may_subclass_a_frozen_record_and_a_record_a_record() -> None:
    @record(frozen=True, kw_only=True)
    class Base:
        scheme: str
        fragment: str | None = None

    @dataclasses.dataclass(frozen=True, kw_only=True)
    class Plugin(Base):  # as a plugin's URL class subclasses schemes.base.URL
        host: str = ""

    @record(frozen=True, kw_only=True)
    class Mine(Base):
        host: str = ""
        fragment: str | None = "f"  # declared again: keeps its place, takes the new default

    p = Plugin(scheme="x", host="h")
    assert [f.name for f in dataclasses.fields(p)] == ["scheme", "fragment", "host"]
    assert [f.name for f in records.fields(p)] == ["scheme", "fragment", "host"]
    assert records.replace(p, fragment="f") == Plugin(scheme="x", host="h", fragment="f")
    assert repr(p).endswith("<locals>.Plugin(scheme='x', fragment=None, host='h')")
    m = Mine(scheme="y", host="h")
    assert [f.name for f in records.fields(m)] == ["scheme", "fragment", "host"]
    assert (m.fragment, records.replace(m, host="g").host) == ("f", "g")
    assert m != Base(scheme="y") and Base(scheme="y") == Base(scheme="y")
    with pytest.raises(TypeError):

        @dataclasses.dataclass  # a non-frozen dataclass may not derive from a frozen one
        class Thawed(Base):
            pass


def test_post_init_and_a_dataclass_field_in_a_records_body() -> None:
    calls: list[Callable[[], None]] = []

    @record(frozen=True)
    class Checked:
        n: int = dataclasses.field(default=1, metadata={"flag": "--n"})
        K: ClassVar[int] = 2

        def __post_init__(self) -> None:
            calls.append(lambda: None)
            if self.n < 0:
                raise ValueError("negative")

    assert Checked().n == 1 and len(calls) == 1
    with pytest.raises(ValueError, match="negative"):
        Checked(-1)
    assert records.fields(Checked)[0].metadata == {"flag": "--n"}
    assert dataclasses.fields(Checked)[0].metadata["flag"] == "--n"
    with pytest.raises(ValueError, match="mutable default"):

        @record()
        class Bad:
            items: list[int] = []  # noqa: RUF012


def test_records_import_neither_dataclasses_nor_typing() -> None:
    code = (
        "import sys; sys.path.insert(0, 'schemes'); from records import record, field\n"
        "@record(frozen=True, kw_only=True)\n"
        "class P:\n    a: int\n    b: list = field(default_factory=list)\n"
        "p = P(a=1); assert repr(p) == 'P(a=1, b=[])' and p == P(a=1)\n"
        "print(sorted({'dataclasses', 'typing', 'inspect'} & set(sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", code], capture_output=True, text=True, timeout=60,
        cwd=ROOT, check=True,
    )  # fmt: skip
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize("kw_only", [True, False])
def test_the_generic_init_and_the_compiled_one_agree_with_the_dataclass(kw_only: bool) -> None:
    """A record's first instances are made by the generic ``__init__`` (no code compiled:
    most records of a command are made once), the later ones by the compiled one: the same
    values and the same refusals either way, as the dataclass's."""
    theirs, mine = _twins(True, kw_only)
    first_init = mine.__dict__["__init__"]
    good: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
        ((), {"a": 1}),
        ((), {"a": 1, "b": "y", "c": [3], "d": 4}),
    ]
    bad: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
        ((), {}),  # a is required
        ((), {"a": 1, "z": 2}),  # no such field
        ((1, "x", [], 4, 5), {}),  # too many
    ]
    if not kw_only:
        good += [((1,), {}), ((1, "y"), {"d": 4}), ((1, "y", [2], 5), {})]
        bad += [((1,), {"a": 1})]  # a given twice
    else:
        bad += [((1,), {})]  # keyword-only
    for _round in range(records.COMPILE_AFTER + 2):
        for args, kwargs in good:
            one, two = mine(*args, **dict(kwargs)), theirs(*args, **dict(kwargs))
            assert (repr(one), one.d) == (repr(two), two.d)
        for args, kwargs in bad:
            with pytest.raises(TypeError):
                theirs(*args, **dict(kwargs))
            with pytest.raises(TypeError):
                mine(*args, **dict(kwargs))
    assert mine.__dict__["__init__"] is not first_init  # (the compiled one was installed)


@pytest.mark.parametrize("frozen", [True, False])
@pytest.mark.parametrize("kw_only", [True, False])
def test_inspect_reads_the_signature_the_dataclass_has(frozen: bool, kw_only: bool) -> None:
    """Before a record's first instances (its generic ``(*args, **kwargs)`` ``__init__``)
    and after (the compiled one), ``inspect.signature`` gives the dataclass twin's: what
    ``help()`` shows and what builds a class from its signature reads (Hypothesis)."""
    import inspect

    theirs, mine = _twins(frozen, kw_only)
    expected = str(inspect.signature(theirs))
    assert expected.endswith("c: 'list[int]' = <factory>, d: 'int' = 7) -> None")
    assert str(inspect.signature(mine)) == expected
    for _ in range(records.COMPILE_AFTER + 2):
        mine(a=1)
    assert str(inspect.signature(mine)) == expected

    @dataclasses.dataclass(frozen=frozen, kw_only=kw_only)
    class Sub(mine):  # type: ignore[misc,valid-type]  # (its own __init__: its own signature)
        e: int = 0

    assert list(inspect.signature(Sub).parameters) == ["a", "b", "c", "d", "e"]


def test_the_real_records_show_their_fields_to_inspect() -> None:
    import inspect

    from omniurl.resolvers.plan import Step
    from omniurl.schemes.http import HTTPURL

    params = list(inspect.signature(HTTPURL).parameters.values())
    assert [p.name for p in params[:3]] == ["scheme", "fragment", "user"]
    assert {p.kind for p in params} == {inspect.Parameter.KEYWORD_ONLY}
    assert params[1].default is None
    # The annotation as the class holds it: the source's text, or under mypyc (which keeps
    # evaluated annotations on a compiled class) the type itself.
    assert params[0].annotation in ("str", str)
    assert list(inspect.signature(Step).parameters)[:3] == ["data", "shown", "kind"]


def _python313() -> str | None:
    """An interpreter of Python 3.13 or later: this one, else an installed python3.13."""
    import shutil

    if sys.version_info >= (3, 13):
        return sys.executable
    found = shutil.which("python3.13")
    candidates = [found, *sorted(Path.home().glob(".pyenv/versions/3.13.*/bin/python"))]
    for python in candidates:
        if python is None:
            continue
        done = subprocess.run([str(python), "-c", "pass"], capture_output=True, timeout=30)
        if done.returncode == 0:
            return str(python)
    return None


def test_copy_replace_of_python_3_13_works_on_a_record_as_on_its_twin() -> None:
    """``copy.replace(record, field=value)`` (Python 3.13) calls ``__replace__``, which
    ``@dataclass`` defines there: a record raised "replace() does not support HTTPURL
    objects"."""
    python = _python313()
    if python is None:
        pytest.skip("no Python 3.13 here (copy.replace is 3.13's)")
    code = (
        "import copy, dataclasses, sys\n"
        "from omniurl.schemes.records import record\n"
        "@record(frozen=True, kw_only=True)\n"
        "class Mine:\n    a: int\n    b: str = 'x'\n"
        "@dataclasses.dataclass(frozen=True, kw_only=True)\n"
        "class Theirs:\n    a: int\n    b: str = 'x'\n"
        "for cls in (Mine, Theirs):\n"
        "    one = copy.replace(cls(a=1), b='y')\n"
        "    print(type(one).__name__, one.a, one.b)\n"
        "from omniurl.schemes.http import HTTPURL\n"
        "u = HTTPURL(scheme='http', host='h', path='/x')\n"
        "print(copy.replace(u, host='g'))\n"
    )
    done = subprocess.run(
        [python, "-S", "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False,
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (0, "Mine 1 y\nTheirs 1 y\nhttp://g/x\n"), done.stderr[
        -500:
    ]
