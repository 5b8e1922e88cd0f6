"""The one scheme registry: name -> :class:`~resolvers.spec.SchemeSpec`.

A scheme joins it in one of three ways, all ending in :func:`register_spec`:

* a built-in: one line in :mod:`resolvers.builtin` (``"ftp": "omniurl.resolvers.ftp:SPEC"``),
  imported on the first URL of that scheme;
* a plugin: one line in the ``omniurl.specs`` entry-point group, the same shape
  (``x-finger = "omniurl_xfinger.spec:SPEC"``), read on the first scheme that is not built in;
* in-process: ``register_spec(spec)``.

The older way — a resolver class in the ``omniurl.resolvers`` group (and its URL class in
``omniurl.schemes``), or the ``@register("scheme")`` class decorator — still works: it makes
a spec with the default presentation and no options.  Its resolver's command-line hooks
(``add_arguments``, ``options_from_args``) are not called: registering a class that defines
them warns (:class:`PluginDeprecationWarning`), naming the way to a spec.  A plugin never
replaces a built-in through an entry point; an in-process registration always wins (on
purpose).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from .base import Resolver
from .builtin import SPECS as BUILTIN_SPECS
from .errors import UnsupportedScheme
from .spec import DEFAULT_PRESENTATION, Presentation, SchemeSpec, load

TYPE_CHECKING = False
if TYPE_CHECKING:
    from importlib.metadata import EntryPoints
    from typing import TypeVar

    from .resource import Resource

    R = TypeVar("R", bound=type[Resolver])

#: The entry-point group of a plugin's spec.
ENTRY_POINT_GROUP = "omniurl.specs"
#: The older group: a resolver class (its URL class in ``omniurl.schemes``).
LEGACY_GROUP = "omniurl.resolvers"

#: Built-in scheme -> its spec's module (what ``get(name)`` imports, and nothing else).
BUILTIN_SCHEMES: dict[str, str] = {
    name: ref.partition(":")[0] for name, ref in BUILTIN_SPECS.items()
}
#: Modules whose import registers the built-in specs.
BUILTIN_MODULES: tuple[str, ...] = tuple(dict.fromkeys(BUILTIN_SCHEMES.values()))

_specs: dict[str, SchemeSpec] = {}
_loaded = False


def register_spec(spec: SchemeSpec) -> SchemeSpec:
    """Make ``spec`` serve its schemes (a later registration of a name replaces an earlier
    one).  Its URL class is handed to the parsing side (``schemes.register``), by reference
    when it is one (imported on the first URL); its own wire contexts (``delimiters``) join
    the policy's."""
    from omniurl.schemes import registry as parsing

    if isinstance(spec.resolver, type):
        _warn_legacy_hooks(spec.resolver, spec.names)
    _add_contexts(spec)
    for name in spec.names:
        _specs[name.lower()] = spec
        if spec.url_class is not None and name.lower() not in parsing.BUILTIN_SCHEMES:
            parsing.register_lazy(name, spec.url_class)
    return spec


def _add_contexts(spec: SchemeSpec) -> None:
    """The spec's own wire contexts join the policy's (``resolvers.policy.add_context``)."""
    if spec.delimiters:
        from .policy import add_context

        for context, octets in spec.delimiters.items():
            add_context(context, octets)


class PluginDeprecationWarning(FutureWarning):
    """A plugin uses a way of joining omniurl that no longer does all it did.  A
    ``FutureWarning``, shown by default: the person running ``omniurl`` is the one who
    finds its flags missing."""


#: The command-line hooks an older resolver class defined; nothing calls them any more.
LEGACY_HOOKS = ("add_arguments", "options_from_args")


def _warn_legacy_hooks(cls: type[Resolver], names: tuple[str, ...]) -> None:
    """Say once, when an older resolver is registered, that its command-line hooks are not
    called: its flags would otherwise vanish in silence ("unrecognized arguments")."""
    hooks = [hook for hook in LEGACY_HOOKS if hasattr(cls, hook)]
    if not hooks:
        return
    import warnings

    warnings.warn(
        PluginDeprecationWarning(
            f"{cls.__module__}.{cls.__qualname__} ({', '.join(names)}:) defines "
            f"{' and '.join(hooks)}, which omniurl no longer calls (Options.extra is gone): "
            "its URLs still parse, plan and resolve, but without its flags.  Declare them "
            "as flag() fields of an options dataclass in a SchemeSpec, registered in the "
            "'omniurl.specs' entry-point group (see the plugin guide, "
            "examples/omniurl-x-finger/README.md)."
        ),
        stacklevel=3,
    )


def register(*schemes: str) -> Callable[[R], R]:
    """Class decorator (the older way): ``@register("x-demo")`` makes the class resolve
    ``x-demo:`` URLs, with a spec of defaults.  A class that still defines the older
    command-line hooks (:data:`LEGACY_HOOKS`) gets a :class:`PluginDeprecationWarning`:
    they are not called."""

    def decorate(cls: R) -> R:
        names = schemes or cls.schemes
        if not names:
            raise ValueError(f"{cls.__name__} names no scheme")
        cls.schemes = tuple(n.lower() for n in names)
        _warn_legacy_hooks(cls, cls.schemes)
        for name in cls.schemes:
            _specs[name] = SchemeSpec(names=(name,), url_class=None, resolver=cls)
        return cls

    return decorate


def entry_points(*, group: str) -> EntryPoints:
    """``importlib.metadata.entry_points``, imported on first call (it costs ~12 ms)."""
    from importlib.metadata import entry_points as scan

    return scan(group=group)


def _import_builtin(name: str) -> None:
    """Import a built-in spec; one registered in-process for one of its schemes before it
    was imported keeps precedence (a later ``register_spec`` always wins).

    Every built-in exists, so any import error is a defect (a missing dependency, a broken
    module) and propagates: swallowing it would turn it into "no resolver for ftp"."""
    ref = BUILTIN_SPECS.get(name)
    module = BUILTIN_SCHEMES.get(name)
    if module is None:
        return
    if ref is None:  # (a table entry naming only a module: it registers on import)
        importlib.import_module(module)
        return
    spec = load(ref)
    _add_contexts(spec)
    for scheme in spec.names:
        _specs.setdefault(scheme, spec)


def _load() -> None:
    """Every spec: all the built-ins, then the entry points (never over a built-in)."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    for name in BUILTIN_SCHEMES:
        _import_builtin(name)
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        spec = ep.load()
        if not isinstance(spec, SchemeSpec):
            raise TypeError(f"entry point {ep.name} = {ep.value} is not a SchemeSpec")
        if not any(n.lower() in _specs for n in spec.names):
            register_spec(spec)
    for ep in entry_points(group=LEGACY_GROUP):
        cls = ep.load()
        if not (isinstance(cls, type) and issubclass(cls, Resolver)):
            raise TypeError(f"entry point {ep.name} = {ep.value} is not a Resolver class")
        if ep.name.lower() not in _specs:
            register(ep.name)(cls)


def spec_for(scheme: str) -> SchemeSpec:
    """The spec serving ``scheme``, or :class:`UnsupportedScheme`.

    Imports only what this scheme needs: its built-in spec's module, or — for a scheme that
    is not built in — the entry points."""
    name = scheme.lower()
    spec = _specs.get(name)
    if spec is None and not _loaded:
        if name in BUILTIN_SCHEMES:
            _import_builtin(name)
            spec = _specs.get(name)
        if spec is None:
            _load()
            spec = _specs.get(name)
    if spec is None:
        raise UnsupportedScheme(
            f"no resolver is registered for {scheme}: URLs (known: {', '.join(known())})",
            component="scheme",
        )
    return spec


def find(scheme: str) -> SchemeSpec | None:
    """The spec serving ``scheme``, or None."""
    try:
        return spec_for(scheme)
    except UnsupportedScheme:
        return None


def presentation_of(scheme: str) -> Presentation:
    """How ``scheme``'s resources are shown: its spec's :class:`Presentation`, or the
    defaults for a scheme without a spec."""
    spec = find(scheme)
    return spec.present() if spec is not None else DEFAULT_PRESENTATION


def unchanged(resource: Resource) -> bool:
    """Whether ``resource`` is a reply saying the copy the client holds is current (a status
    of its scheme's ``Presentation.unchanged_statuses``: HTTP's 304 Not Modified, RFC 9110
    §15.4.5): it has no content, and ``-o``, ``-O`` and the batch make or replace no file
    for it, as curl makes none.  Here, beside :func:`presentation_of`, so that the
    command's output (cli/output.py) and the batch (omniurl/batch.py) ask the one rule —
    the command's get may not import omniurl.batch for it (``mimetypes`` at every start,
    tests/test_get_startup.py)."""
    status = resource.status
    return status is not None and status in presentation_of(resource.url.scheme).unchanged_statuses


def get(scheme: str) -> Resolver:
    """A resolver instance for ``scheme``, or :class:`UnsupportedScheme`."""
    return spec_for(scheme).resolver_type()()


def known() -> list[str]:
    """Every scheme with a resolver, sorted."""
    _load()
    return sorted(_specs)


def all_specs(*, plugins: bool = True) -> list[SchemeSpec]:
    """Every spec, once each (the CLI's flags, fsspec's and urllib's scheme lists).

    ``plugins=False`` leaves the entry points unread (the built-ins, and what was registered
    in-process): ``omniurl get`` on a built-in scheme needs no plugin's flags."""
    if plugins:
        _load()
    elif not _loaded:
        for name in BUILTIN_SCHEMES:
            _import_builtin(name)
    return list({id(s): s for s in _specs.values()}.values())


def all_classes(*, plugins: bool = True) -> list[type[Resolver]]:
    """Every resolver class, once each."""
    return list(dict.fromkeys(s.resolver_type() for s in all_specs(plugins=plugins)))


__all__ = [
    "BUILTIN_MODULES",
    "BUILTIN_SCHEMES",
    "ENTRY_POINT_GROUP",
    "LEGACY_GROUP",
    "LEGACY_HOOKS",
    "PluginDeprecationWarning",
    "all_classes",
    "all_specs",
    "find",
    "get",
    "known",
    "presentation_of",
    "register",
    "register_spec",
    "spec_for",
]
