"""Base classes shared by every scheme's URL class.

URL objects are immutable and hashable (the yarl lesson): every field is decoded once at
parse time, derived values are cheap properties, and "changing" a URL means building a new
one with :func:`dataclasses.replace`.  The built-in classes are frozen dataclasses whose
fields are stored in a tuple (:func:`tuple_backed`: a URL is built in one allocation); a
plugin's class is an ordinary frozen dataclass subclassing :class:`URL`.

Decoded components are ``str``.  Octets that are not UTF-8 are kept losslessly with the
``surrogateescape`` error handler, so :func:`schemes.percent.to_octets` gives back exactly the
octets the URL encoded — which is what goes on the wire (a Gopher selector may hold any octet
but TAB, CR and LF).
"""

from __future__ import annotations

from . import precompiled, records
from .authority import split_fragment
from .percent import LazilyDecoded, display
from .records import MISSING, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar, Final, TypeVar

    _U = TypeVar("_U", bound="URL")
    _C = TypeVar("_C", bound=type)


def class_constants(cls: _C) -> _C:
    """Keep a built-in class's constants (``schemes``, ``DEFAULT_PORT`` and the other
    upper-case names) out of its dataclass fields where mypyc compiled the module (setup.py).

    mypyc gives each assignment in a non-native class's body an annotation of its type with
    ``ClassVar[...]`` dropped, so ``@dataclass`` would take the constants for fields; this
    decorator, applied first, marks them ``ClassVar`` again.  In the pure package every
    annotation is a string (``from __future__ import annotations``) and nothing changes.
    (Being a decorator mypyc does not know, it also keeps each class an ordinary Python class,
    as a subclass built at run time needs.)
    """
    # (the class's own dict, changed in place: inspect.get_annotations returns a copy)
    annotations = cls.__dict__.get("__annotations__", {})  # noqa: RUF063
    for name, annotation in annotations.items():
        if not isinstance(annotation, str) and (name == "schemes" or name.isupper()):
            annotations[name] = "ClassVar"  # (as the pure package reads it: records.py)
    return cls


#: An ordinary Python class even where mypyc compiles this module (setup.py; a class with a
#: decorator of its own, ``class_constants``, is never a native one): plugins subclass it with
#: ``@dataclass``, and :func:`tuple_backed` rebuilds the built-in classes as tuples.
@record(frozen=True, kw_only=True)
@class_constants
class URL:
    """A parsed URL of any scheme.

    Subclasses add their decoded components as fields.  ``str(url)`` gives the canonical
    form, and ``schemes.parse(str(url)) == url`` always holds.

    A plugin class implements :meth:`from_text` (it receives the URL without its fragment),
    ``__str__`` (ending with ``schemes.authority.format_fragment(self.fragment)``) and
    :meth:`components`; its scheme spec names it (``SchemeSpec.url_class``, registered
    through the ``omniurl.specs`` entry-point group: the plugin guide,
    examples/omniurl-x-finger/README.md).  ``schemes.register(name, cls)`` and the older
    ``omniurl.schemes`` group still register a parser alone.
    """

    scheme: str
    #: The fragment after ``#`` (RFC 1630 §4.2): split off at parse time, never sent to a
    #: server; ``None`` when the text had no ``#``.
    fragment: str | None = None

    #: The registered scheme name(s) a subclass parses (lower case).
    schemes: ClassVar[tuple[str, ...]] = ()
    #: The port used when the URL names none (None: the scheme has no network port).
    DEFAULT_PORT: ClassVar[int | None] = None

    @classmethod
    def _make(cls: type[_U], fields: dict[str, Any]) -> _U:
        """Build an instance from already-validated fields without the frozen dataclass's
        per-field ``object.__setattr__`` calls (measured ~2.5x cheaper for eight fields).
        Fields not given take their defaults."""
        names: tuple[str, ...] | None = getattr(cls, "_tuple_fields", None)
        if names is not None:  # a built-in class (see tuple_backed)
            values = cls._field_defaults() | fields
            return _tnew(cls, [values[name] for name in names])
        obj = object.__new__(cls)
        d = obj.__dict__
        d.update(cls._field_defaults())
        d.update(fields)
        return obj

    @classmethod
    def _field_defaults(cls) -> dict[str, Any]:
        defaults = cls.__dict__.get("_defaults_cache")
        if defaults is None:
            defaults = {f.name: f.default for f in records.fields(cls) if f.default is not MISSING}
            type.__setattr__(cls, "_defaults_cache", defaults)
        return defaults

    @classmethod
    def from_text(cls, text: str, *, scheme: str, rest: str, strict: bool = True) -> URL:
        """Parse ``rest`` (everything after ``scheme:``); ``text`` is the whole URL for offsets.

        Offsets in errors are relative to ``text``: the scheme-specific part starts at
        ``len(scheme) + 1``.
        """
        raise NotImplementedError

    @classmethod
    def _parse_at(cls, text: str, start: int, scheme: str, strict: bool) -> URL:
        """The registry's entry point: parse ``text[start:]`` (what follows ``scheme:``).

        Built-in classes override it with a one-match fast path.  The default serves plugins:
        it splits the fragment off (RFC 1630 §4.2: the same for every scheme), calls
        :meth:`from_text` — the contract a plugin implements — on the rest, and sets
        ``fragment`` on the result.
        """
        end, fragment = split_fragment(text, start, strict)
        url = cls.from_text(text[:end], scheme=scheme, rest=text[start:end], strict=strict)
        if fragment is not None and url.fragment is None:
            url = records.replace(url, fragment=fragment)
        return url

    @classmethod
    def reads_alike(cls, text: str, start: int) -> bool:
        """Whether RFC 1738's letter reads ``text[start:]`` as the default reading does (so
        that :func:`schemes.parse` may ask the letter's faster parser first).  A class whose
        successor RFC gives some RFC 1738 URL another meaning says where (news, file)."""
        return True

    def __str__(self) -> str:  # pragma: no cover - every concrete class overrides it
        raise NotImplementedError

    @property
    def default_port(self) -> int | None:
        return self.DEFAULT_PORT

    def components(self) -> dict[str, Any]:
        """The scheme-specific keys of the ``omniurl parse`` JSON contract, in order."""
        raise NotImplementedError

    def to_json(self) -> dict[str, Any]:
        """The whole ``omniurl parse`` object for this URL (a stable contract)."""
        out: dict[str, Any] = {"scheme": self.scheme}
        out.update(self.components())
        out["fragment"] = None if self.fragment is None else display(self.fragment)
        return out

    def replace(self, **changes: Any) -> URL:
        """A new URL with some fields changed (the object itself never changes)."""
        return records.replace(self, **changes)


@record(frozen=True, kw_only=True)
@class_constants
class InternetURL(URL):
    """A URL in the Common Internet Scheme Syntax of §3.1: ``//<user>:<password>@<host>:<port>/``.

    ``user`` and ``password`` keep the RFC's distinctions: ``ftp://@host/`` has user ``""``
    and password ``None``; ``ftp://host/`` has user ``None``; ``ftp://foo:@host/`` has user
    ``"foo"`` and password ``""``.  ``host`` is as written (case kept; ``[v6]`` literals keep
    their brackets); ``port`` is the explicit port or ``None``.
    """

    user: str | None = None
    password: str | None = None
    host: str = ""
    port: int | None = None

    @property
    def effective_port(self) -> int | None:
        """The port a connection goes to: the explicit one, else the scheme's default."""
        return self.port if self.port is not None else self.DEFAULT_PORT

    @property
    def hostname(self) -> str:
        """The host for a socket: lower case, IPv6 brackets removed; an IPv6 zone id (RFC
        6874: ``[fe80::1%25eth0]``) decoded to the ``fe80::1%eth0`` that getaddrinfo takes,
        its case kept (interface names are case-sensitive)."""
        h = self.host
        if h.startswith("[") and h.endswith("]"):
            if h[1:2] in ("v", "V"):  # IPvFuture (RFC 3986 §3.2.2): no socket form, and
                return h.lower()  # never a name to look up: the brackets stay
            h = h[1:-1]
            address, sep, zone = h.partition("%25")
            if sep:
                from .percent import decode

                return f"{address.lower()}%{decode(zone)}"
        return h.lower()

    def authority_json(self) -> dict[str, Any]:
        return {
            "user": None if self.user is None else display(self.user),
            "password": None if self.password is None else display(self.password),
            "host": display(self.host),
            "port": self.port,
            "default_port": self.DEFAULT_PORT,
        }


# -- the built-in classes' object model --------------------------------------------------------

#: ``tuple.__new__``: what a built-in class's fast path builds its instance with, the fields in
#: ``dataclasses.fields`` order (see :func:`tuple_backed`).  ``Final``: compiled, a static the
#: fast paths read, where a module global is a dictionary look-up at every URL.
_tnew: Final[Any] = tuple.__new__
_teq = tuple.__eq__
_tne = tuple.__ne__

try:  # the C descriptor behind collections.namedtuple's fields
    from _collections import _tuplegetter  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - another interpreter
    import operator

    def _tuplegetter(index: int, doc: str | None) -> Any:
        return property(operator.itemgetter(index), doc=doc)


def _rebuild(cls: type[Any], values: tuple[Any, ...]) -> Any:
    """Unpickle a built-in URL (``__reduce__`` of :func:`tuple_backed` classes)."""
    return _tnew(cls, values)


#: The methods :func:`tuple_backed` gives a class, as Python functions: where mypyc compiles
#: this module (setup.py) a function defined here is a built-in function, which a class does
#: not bind as a method (``self`` would never be passed); ``exec`` makes plain functions, as
#: ``collections.namedtuple`` builds its methods.
_METHODS_SOURCE = """\
def _frozen(self, name, value=None):
    raise _frozen_error(name)

def _eq(self, other):
    if other.__class__ is self.__class__:
        return _teq(self, other)
    # (not NotImplemented for a tuple: Python would then ask tuple.__eq__, which says yes)
    return False if isinstance(other, tuple) else NotImplemented

def _ne(self, other):
    if other.__class__ is self.__class__:
        return _tne(self, other)
    return True if isinstance(other, tuple) else NotImplemented

def _unordered(self, other):
    return NotImplemented  # (a dataclass without order=True: "<" is a TypeError)

def _iter(self):
    # (a field a fast path decodes on first read is read as its value: tuple(url), unpacking
    # and json.dumps(url) (json's encoder iterates a tuple subclass) see what the URL built
    # decoded shows, never a LazilyDecoded, which json refused)
    return iter([value.value() if isinstance(value, _Lazy) else value for value in _titer(self)])

def _reduce(self):
    # (a field a fast path decodes on first read is pickled as its value (_iter): the same
    # pickle as the URL built decoded, which a cache keyed by pickles (Dask's tokenize)
    # compares)
    return _rebuild, (self.__class__, tuple(_iter(self)))
"""
_METHODS: dict[str, Any] = {
    "_frozen_error": records._frozen_error,
    "_teq": _teq,
    "_tne": _tne,
    "_titer": tuple.__iter__,
    "_rebuild": _rebuild,
    "_Lazy": LazilyDecoded,
}
exec(precompiled.code(_METHODS_SOURCE), _METHODS)  # (compile's code, from a table)


def tuple_backed(cls: type[_U]) -> type[_U]:
    """The built-in frozen dataclass ``cls`` with its fields stored in a tuple.

    Why: parsing is mostly building the result (issue 21).  A frozen dataclass instance is
    an object and its ``__dict__``, filled key by key; a tuple is one allocation, filled in
    C from the values the fast path has in hand (``tuple.__new__(cls, (...))``), and each
    field is read by ``collections.namedtuple``'s C descriptor.  Measured on the http URLs of
    ``benchmarks/parse_bench.py``: building the object after the match ~0.45-0.64 us with a
    dict, ~0.25-0.33 us as a tuple.

    Everything public stays a dataclass's: ``dataclasses.fields``/``replace``/``asdict``,
    keyword construction with the same defaults, ``repr``, equality only between instances of
    the same class (field by field), the same ``hash`` (a dataclass hashes the tuple of its
    fields), immutability (``FrozenInstanceError``), ``<`` refused, pickling and copying.
    What a tuple adds (``len``, iteration, indexing) is not part of the API; iteration (and so
    ``json.dumps(url)``, a list) gives the decoded values, as for a URL built decoded.
    Plugin classes keep subclassing :class:`URL` or :class:`InternetURL` with ``@dataclass``
    as before; a subclass of a built-in class must be decorated with ``tuple_backed`` too.
    """
    fields = records.fields(cls)
    names = tuple(f.name for f in fields)
    skip = {"__dict__", "__weakref__", "__init__", "__setattr__", "__delattr__", *names}
    ns: dict[str, Any] = {k: v for k, v in cls.__dict__.items() if k not in skip}
    bases = cls.__bases__
    if not any(issubclass(b, tuple) for b in bases):
        bases = (tuple, *bases)
    params: list[str] = []
    env: dict[str, Any] = {"_tnew": _tnew}
    for f in fields:
        if f.default is not MISSING:
            env[f"_d_{f.name}"] = f.default
            params.append(f"{f.name}=_d_{f.name}")
        elif f.default_factory is not MISSING:  # pragma: no cover
            raise TypeError(f"{cls.__name__}.{f.name}: default_factory is not supported")
        else:
            params.append(f.name)
    source = (
        f"def __new__(cls, *, {', '.join(params)}):\n    return _tnew(cls, ({', '.join(names)},))\n"
    )
    exec(precompiled.code(source), env)  # (as collections.namedtuple builds its __new__)
    new = env["__new__"]
    new.__qualname__ = f"{cls.__qualname__}.__new__"
    ns.update(
        __slots__=(),
        __new__=new,
        __init__=object.__init__,
        __setattr__=_METHODS["_frozen"],
        __delattr__=_METHODS["_frozen"],
        __eq__=_METHODS["_eq"],
        __ne__=_METHODS["_ne"],
        __hash__=tuple.__hash__,
        __lt__=_METHODS["_unordered"],
        __le__=_METHODS["_unordered"],
        __gt__=_METHODS["_unordered"],
        __ge__=_METHODS["_unordered"],
        __reduce__=_METHODS["_reduce"],
        __iter__=_METHODS["_iter"],
        _tuple_fields=names,
    )
    for i, name in enumerate(names):
        ns[name] = _tuplegetter(i, None)
    out = type(cls.__name__, bases, ns)
    return out
