"""Frozen records that are dataclasses to every reader, made without :mod:`dataclasses`.

Why (issue 32 item 3): ``omniurl plan`` and ``parse`` are measured against ``python -c
pass``, and the records on their path (the URL classes, ``Plan``, ``Step``, ``Options``,
``Policy``, ``SchemeSpec``…) were dataclasses: importing :mod:`dataclasses` imports
:mod:`inspect` (with ``ast``, ``dis``, ``tokenize``: ~8-11 ms of a start), and
``@dataclass`` compiles each generated method with its own ``exec`` (~0.7-1 ms a frozen
class; ~25 classes on ``plan``'s path).  :func:`record` makes the same class without
either:

- ``__init__`` is generated as ``@dataclass`` generates it (the same parameters, defaults,
  ``default_factory``, keyword-only fields, ``__post_init__``), but compiled on the class's
  first instantiation (a class the command never instantiates never pays for it);
- ``__repr__``, ``__eq__``, ``__hash__`` and the frozen ``__setattr__``/``__delattr__`` are
  shared functions reading the class's field names (no code compiled per class), with the
  results ``@dataclass`` gives: the same ``repr`` text, equality between instances of the
  same class field by field, the hash of the fields' tuple, ``dataclasses.
  FrozenInstanceError`` on assignment;
- ``dataclasses.fields``, ``replace``, ``asdict``, ``is_dataclass`` and a subclass made with
  ``@dataclass`` work unchanged: ``__dataclass_fields__`` is built (with real
  ``dataclasses.Field`` objects) the first time something reads it, which imports
  :mod:`dataclasses` then — in the programs that use it, never on the command's start.

Only what omniurl's records use is supported (no ``order``, ``slots``, ``unsafe_hash``,
``InitVar``); mypy reads :func:`record` as ``@dataclass`` (PEP 681's
``dataclass_transform``).  This module imports nothing at run time: not even :mod:`typing`.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any, TypeVar, dataclass_transform

    _T = TypeVar("_T")
else:

    def dataclass_transform(**_kwargs: object) -> object:
        return lambda f: f


class _MissingType:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


#: No default (``dataclasses.MISSING`` for a record's field).
MISSING: Any = _MissingType()
#: An ``__init__`` default meaning "call the field's ``default_factory``".
_FACTORY: Any = _MissingType()


class Field:
    """One field of a record (what ``dataclasses.field()`` returns, for :func:`record`)."""

    __slots__ = (
        "compare",
        "default",
        "default_factory",
        "init",
        "kw_only",
        "metadata",
        "name",
        "repr",
        "type",
    )

    def __init__(
        self,
        default: Any = MISSING,
        default_factory: Any = MISSING,
        init: bool = True,
        repr: bool = True,
        compare: bool = True,
        metadata: Mapping[str, Any] | None = None,
        kw_only: Any = MISSING,
    ) -> None:
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.name = ""
        self.type: Any = None
        self.default = default
        self.default_factory = default_factory
        self.init = init
        self.repr = repr
        self.compare = compare
        self.metadata: Mapping[str, Any] = {} if metadata is None else metadata
        self.kw_only = kw_only

    def __repr__(self) -> str:
        return f"Field(name={self.name!r}, default={self.default!r}, kw_only={self.kw_only!r})"


def field(
    *,
    default: Any = MISSING,
    default_factory: Any = MISSING,
    init: bool = True,
    repr: bool = True,
    compare: bool = True,
    metadata: Mapping[str, Any] | None = None,
    kw_only: Any = MISSING,
) -> Any:
    """``dataclasses.field`` for a :func:`record` (the same keywords)."""
    return Field(default, default_factory, init, repr, compare, metadata, kw_only)


def _from_dataclass_field(f: Any) -> Field:
    """A ``dataclasses.Field`` found in a record's body (``spec.flag`` makes one when the
    program has imported :mod:`dataclasses`), as a :class:`Field`."""
    import dataclasses

    def mine(value: Any) -> Any:
        return MISSING if value is dataclasses.MISSING else value

    return Field(
        mine(f.default),
        mine(f.default_factory),
        f.init,
        f.repr,
        True if f.compare is None else f.compare,
        dict(f.metadata),
        mine(f.kw_only),
    )


def _is_class_var(annotation: Any) -> bool:
    if isinstance(annotation, str):
        return annotation.startswith(("ClassVar", "typing.ClassVar", "t.ClassVar"))
    typing = sys.modules.get("typing")
    if typing is None:
        return False
    return annotation is typing.ClassVar or getattr(annotation, "__origin__", None) is (
        typing.ClassVar
    )


class _Params:
    """``__dataclass_params__``: read by ``@dataclass`` when a dataclass subclasses a record
    (a frozen dataclass may only derive from frozen ones)."""

    __slots__ = ("eq", "frozen", "init", "kw_only", "order", "repr", "unsafe_hash")

    def __init__(self, eq: bool, frozen: bool, kw_only: bool) -> None:
        self.init = True
        self.repr = True
        self.eq = eq
        self.order = False
        self.unsafe_hash = False
        self.frozen = frozen
        self.kw_only = kw_only


class _DataclassFields:
    """``__dataclass_fields__``, built on first read (importing :mod:`dataclasses` then)."""

    def __get__(self, obj: object, owner: type | None = None) -> dict[str, Any]:
        cls = type(obj) if owner is None else owner
        made = cls.__dict__.get("__dataclass_fields_made__")
        if made is None:
            made = _dataclass_fields(cls)
            type.__setattr__(cls, "__dataclass_fields_made__", made)
        return made


class _Signature:
    """``__signature__``, what :func:`inspect.signature` reads first: the parameters
    ``@dataclass``'s ``__init__`` has (their annotations, defaults, ``<factory>``, the
    keyword-only ones last), built on first read (importing :mod:`inspect` then).  The
    ``__init__`` a record runs is the generic ``(*args, **kwargs)`` one for its first
    instances (:func:`_lazy_init`), which told ``inspect.signature``, ``help()`` and what
    builds a class from its signature (Hypothesis's ``st.builds``) nothing.  None for a class
    that is not the record itself (a subclass with an ``__init__`` of its own: a
    ``@dataclass``), so that ``inspect`` reads that one's."""

    def __get__(self, obj: object, owner: type | None = None) -> Any:
        cls = type(obj) if owner is None else owner
        if obj is not None or "__record_fields__" not in cls.__dict__:
            return None
        made = cls.__dict__.get("__signature_made__")
        if made is None:
            made = _signature(cls.__dict__["__record_fields__"])
            type.__setattr__(cls, "__signature_made__", made)
        return made


class _FactoryDefault:
    __slots__ = ()

    def __repr__(self) -> str:
        return "<factory>"  # (what ``@dataclass``'s signature shows for a default_factory)


def _signature(fields: tuple[Field, ...]) -> Any:
    import inspect

    def parameter(f: Field, kind: Any) -> Any:
        default = f.default
        if default is MISSING:
            default = _FactoryDefault() if f.default_factory is not MISSING else inspect._empty
        return inspect.Parameter(f.name, kind, default=default, annotation=f.type)

    init = [f for f in fields if f.init]
    positional = inspect.Parameter.POSITIONAL_OR_KEYWORD
    keyword = inspect.Parameter.KEYWORD_ONLY
    parameters = [parameter(f, positional) for f in init if not f.kw_only]
    parameters += [parameter(f, keyword) for f in init if f.kw_only]
    return inspect.Signature(parameters, return_annotation=None)


def _dataclass_fields(cls: type) -> dict[str, Any]:
    import dataclasses

    def theirs(value: Any) -> Any:
        return dataclasses.MISSING if value is MISSING else value

    out: dict[str, Any] = {}
    for mine in getattr(cls, "__record_fields__", ()):
        f: Any = dataclasses.field(
            default=theirs(mine.default),
            default_factory=theirs(mine.default_factory),
            init=mine.init,
            repr=mine.repr,
            compare=mine.compare,
            metadata=mine.metadata or None,
            kw_only=bool(mine.kw_only),
        )
        f.name = mine.name
        f.type = mine.type
        f._field_type = dataclasses._FIELD  # type: ignore[attr-defined]  # (a field, not a ClassVar: what fields() lists)
        out[mine.name] = f
    return out


# -- the shared methods (the same results as @dataclass's generated ones) --------------------


def _repr(self: Any) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in type(self).__record_repr__)
    return f"{type(self).__qualname__}({shown})"


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is self.__class__:
        names = type(self).__record_compare__
        return tuple([getattr(self, n) for n in names]) == tuple([getattr(other, n) for n in names])
    return NotImplemented


def _hash(self: Any) -> int:
    return hash(tuple([getattr(self, n) for n in type(self).__record_compare__]))


def _frozen_error(name: str) -> Exception:
    from dataclasses import FrozenInstanceError

    return FrozenInstanceError(f"cannot assign to field {name!r}")


def _make_frozen(cls: Any, names: frozenset[str]) -> tuple[Any, Any]:
    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise _frozen_error(name)
        super(cls, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise _frozen_error(name)
        super(cls, self).__delattr__(name)

    __setattr__.__qualname__ = f"{cls.__qualname__}.__setattr__"
    __delattr__.__qualname__ = f"{cls.__qualname__}.__delattr__"
    return __setattr__, __delattr__


def _init_source(cls: type, fields: tuple[Field, ...], frozen: bool) -> tuple[str, dict[str, Any]]:
    """``__init__``'s source, as ``@dataclass`` writes it, and its globals."""
    env: dict[str, Any] = {"_FACTORY": _FACTORY, "_set": object.__setattr__}
    positional: list[str] = []
    keyword: list[str] = []
    body: list[str] = []
    for f in fields:
        if f.init:
            if f.default is not MISSING:
                env[f"_d_{f.name}"] = f.default
                param = f"{f.name}=_d_{f.name}"
            elif f.default_factory is not MISSING:
                env[f"_f_{f.name}"] = f.default_factory
                param = f"{f.name}=_FACTORY"
            else:
                param = f.name
            (keyword if f.kw_only else positional).append(param)
            if f.default_factory is not MISSING:
                value = f"_f_{f.name}() if {f.name} is _FACTORY else {f.name}"
            else:
                value = f.name
        elif f.default is not MISSING:
            env[f"_d_{f.name}"] = f.default
            value = f"_d_{f.name}"
        elif f.default_factory is not MISSING:
            env[f"_f_{f.name}"] = f.default_factory
            value = f"_f_{f.name}()"
        else:
            continue
        if frozen:
            body.append(f"    _set(self, {f.name!r}, {value})")
        else:
            body.append(f"    self.{f.name} = {value}")
    if hasattr(cls, "__post_init__"):
        body.append("    self.__post_init__()")
    params = ["self", *positional]
    if keyword:
        params += ["*", *keyword]
    source = f"def __init__({', '.join(params)}):\n" + ("\n".join(body) or "    pass") + "\n"
    return source, env


#: Instantiations of a record made by the generic ``__init__`` before its own is compiled: a
#: command makes most of its records once or twice (13 classes on ``plan ftp://h/x``, ~2 ms
#: of ``exec`` had each compiled its ``__init__``), a program that makes many compiles it.
#: 24, not 8: an FTP plan has ~12 steps and a get plans twice (the early connect, then the
#: core), so ``Step`` and ``Condition`` were compiled in every FTP get and plan (~1.2-1.5
#: million of their ~200 and ~110 million instructions, callgrind, 2026-11-28); 16 more
#: generic calls cost a class a few microseconds once.
COMPILE_AFTER = 24


def _lazy_init(cls: type, fields: tuple[Field, ...], frozen: bool) -> Callable[..., None]:
    """``__init__``: the generic one (:func:`_bind`, no code compiled) for the class's first
    :data:`COMPILE_AFTER` instances, then the one ``@dataclass`` would have written, compiled
    and installed (``exec`` is the cost: ~0.1-0.6 ms a class)."""
    positional = tuple(f for f in fields if f.init and not f.kw_only)
    names = frozenset(f.name for f in fields if f.init)
    made = [0]

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        made[0] += 1
        if made[0] <= COMPILE_AFTER:
            _bind(self, cls, fields, positional, names, frozen, args, kwargs)
            return
        real = cls.__dict__["__init__"]
        if real is __init__:  # (compile it once)
            source, env = _init_source(cls, fields, frozen)
            exec(source, env)
            real = env["__init__"]
            real.__qualname__ = f"{cls.__qualname__}.__init__"
            real.__module__ = cls.__module__
            type.__setattr__(cls, "__init__", real)
        real(self, *args, **kwargs)

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__


def _bind(
    self: Any,
    cls: type,
    fields: tuple[Field, ...],
    positional: tuple[Field, ...],
    names: frozenset[str],
    frozen: bool,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> None:
    """What the generated ``__init__`` does, read from the fields: the same values, the same
    ``TypeError`` for a wrong call (the messages name the class's ``__init__`` as Python's
    do), then ``__post_init__``."""
    where = f"{cls.__qualname__}.__init__()"
    if len(args) > len(positional):
        raise TypeError(
            f"{where} takes {len(positional) + 1} positional arguments but {len(args) + 1} "
            "were given"
        )
    for f, value in zip(positional, args, strict=False):
        if f.name in kwargs:
            raise TypeError(f"{where} got multiple values for argument {f.name!r}")
        kwargs[f.name] = value
    for name in kwargs:
        if name not in names:
            raise TypeError(f"{where} got an unexpected keyword argument {name!r}")
    missing = [
        f.name
        for f in fields
        if f.init and f.name not in kwargs and f.default is MISSING and f.default_factory is MISSING
    ]
    if missing:
        kind = "keyword-only " if all(f.kw_only for f in fields if f.name in missing) else ""
        shown = " and ".join(repr(n) for n in missing)
        raise TypeError(f"{where} missing {len(missing)} required {kind}argument: {shown}")
    put = object.__setattr__ if frozen else setattr
    for f in fields:
        if f.init and f.name in kwargs:
            value = kwargs[f.name]
        elif f.default is not MISSING:
            value = f.default
        elif f.default_factory is not MISSING:
            value = f.default_factory()
        else:
            continue
        put(self, f.name, value)
    if hasattr(cls, "__post_init__"):
        self.__post_init__()


# -- the decorator ------------------------------------------------------------------------


def _process(cls: Any, *, frozen: bool, kw_only: bool, eq: bool, init: bool) -> type:
    inherited: dict[str, Field] = {}
    for base in reversed(cls.__mro__[1:]):
        for f in base.__dict__.get("__record_fields__", ()):
            inherited[f.name] = f
    own: dict[str, Field] = {}
    annotations = cls.__dict__.get("__annotations__", {})  # noqa: RUF063 (the class's own)
    for name, annotation in annotations.items():
        if _is_class_var(annotation):
            continue
        value = cls.__dict__.get(name, MISSING)
        if isinstance(value, Field):
            f = value
        elif type(value).__name__ == "Field" and type(value).__module__ == "dataclasses":
            f = _from_dataclass_field(value)
        else:
            f = Field(default=value)
        if f.default is not MISSING and type(f.default).__hash__ is None:
            raise ValueError(
                f"mutable default {type(f.default)} for field {name} is not allowed: "
                "use default_factory"
            )
        f.name = name
        f.type = annotation
        if f.kw_only is MISSING:
            f.kw_only = kw_only
        own[name] = f
        # the class attribute is the default, as @dataclass leaves it (or none)
        if value is not f.default:
            if f.default is MISSING:
                type.__delattr__(cls, name)
            else:
                type.__setattr__(cls, name, f.default)
    fields = tuple({**inherited, **own}.values())
    setattr_ = type.__setattr__
    setattr_(cls, "__record_fields__", fields)
    setattr_(cls, "__record_repr__", tuple(f.name for f in fields if f.repr))
    compare = tuple(f.name for f in fields if f.compare)
    setattr_(cls, "__record_compare__", compare)
    setattr_(cls, "__dataclass_fields__", _DataclassFields())
    setattr_(cls, "__dataclass_params__", _Params(eq, frozen, kw_only))
    setattr_(cls, "__match_args__", tuple(f.name for f in fields if f.init and not f.kw_only))
    own_dict = cls.__dict__
    if sys.version_info >= (3, 13) and "__replace__" not in own_dict:
        # (``copy.replace``, as ``@dataclass`` gives it on 3.13: raised TypeError for a record)
        setattr_(cls, "__replace__", _replace_method)
    if init:
        setattr_(cls, "__init__", _lazy_init(cls, fields, frozen))
        setattr_(cls, "__signature__", _Signature())
    if "__repr__" not in own_dict:
        setattr_(cls, "__repr__", _repr)
    if eq:
        if "__eq__" not in own_dict:
            setattr_(cls, "__eq__", _eq)
        if "__hash__" not in own_dict or own_dict["__hash__"] is None:
            setattr_(cls, "__hash__", _hash if frozen else None)
    if frozen:
        names = frozenset(f.name for f in fields)
        set_, del_ = _make_frozen(cls, names)
        setattr_(cls, "__setattr__", set_)
        setattr_(cls, "__delattr__", del_)
    return cls


@dataclass_transform(field_specifiers=(field, Field))
def record(
    *, frozen: bool = False, kw_only: bool = False, eq: bool = True, init: bool = True
) -> Callable[[type[_T]], type[_T]]:
    """``@dataclass(frozen=..., kw_only=..., eq=..., init=...)``, made without
    :mod:`dataclasses` (this module's docstring)."""

    def wrap(cls: type[_T]) -> type[_T]:
        return _process(cls, frozen=frozen, kw_only=kw_only, eq=eq, init=init)

    return wrap


def fields(cls_or_obj: Any) -> tuple[Field, ...]:
    """A record's fields (or a dataclass's, as :class:`Field`), without importing
    :mod:`dataclasses` for a record."""
    cls = cls_or_obj if isinstance(cls_or_obj, type) else type(cls_or_obj)
    # (the class's own: a dataclass subclassing a record inherits the record's attribute)
    found = cls.__dict__.get("__record_fields__")
    if found is not None:
        return tuple(found)
    import dataclasses

    out = []
    for f in dataclasses.fields(cls_or_obj):
        mine = _from_dataclass_field(f)
        mine.name = f.name
        mine.type = f.type
        out.append(mine)
    return tuple(out)


def replace(obj: _T, /, **changes: Any) -> _T:
    """``dataclasses.replace`` for a record, without importing :mod:`dataclasses`."""
    cls: Any = type(obj)
    for f in fields(cls):
        if not f.init:
            if f.name in changes:
                raise ValueError(f"field {f.name} is declared with init=False, it cannot be "
                                 "specified with replace()")  # fmt: skip
            continue
        if f.name not in changes:
            changes[f.name] = getattr(obj, f.name)
    made: _T = cls(**changes)
    return made


def _replace_method(self: Any, /, **changes: Any) -> Any:
    """``__replace__``: what :func:`copy.replace` calls (Python 3.13, PEP-less; a
    dataclass's is ``dataclasses.replace``)."""
    return replace(self, **changes)


def is_dataclass(obj: Any) -> bool:
    """``dataclasses.is_dataclass``, without importing :mod:`dataclasses` for a record."""
    cls = obj if isinstance(obj, type) else type(obj)
    if hasattr(cls, "__record_fields__"):
        return True
    dataclasses = sys.modules.get("dataclasses")  # (no dataclass without it)
    return dataclasses is not None and dataclasses.is_dataclass(obj)


class Generic:
    """``typing.Generic`` at run time, for a record whose type parameters only the type
    checker reads (``from typing import Generic`` under ``if TYPE_CHECKING:``, this one
    otherwise): ``C[X]`` is ``C``, and :mod:`typing` is not imported for it."""

    __slots__ = ()

    def __class_getitem__(cls, params: object) -> Any:
        return cls
