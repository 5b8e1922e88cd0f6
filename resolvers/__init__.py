"""Turn a parsed URL into an access action: a pure plan, a safety check, an async executor.

Public surface::

    plan(url, options)         -> Plan      (pure: what `omniurl plan` prints)
    check(url, options)        -> Plan      (plan + safety policy)
    await resolve(url, options) -> Resource (plan, check, execute, follow)
    async with resolve(url) as resource: …  (the same, closed on leaving)
    await fetch(url, options)  -> bytes | Listing (all of it)
    get(url, options)          -> bytes | Listing (synchronous facade, any thread)
    register("scheme")                      (class decorator for resolvers)
"""

from __future__ import annotations

from . import errors, policy
from .base import Follow, Resolver
from .errors import *  # noqa: F403
from .options import Options
from .plan import Plan, Step, WireValue
from .policy import DEFAULT, STRICT, Policy
from .registry import known, register

# ``plan`` is the core's function, not the submodule the import above bound here (as it was
# when the core's names were imported at once): it is read through __getattr__ below.
globals().pop("plan", None)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .core import Resolving, check, fetch, get, plan, resolve, run
    from .resource import Entry, Listing, Resource, Resumed


_RESOURCE_NAMES = ("Entry", "Listing", "Resource", "Resumed")
#: The core's names, imported when first read: ``omniurl get URL`` reaches the registry, the
#: options, the plan and the policy through this package before its early connect
#: (cli/early.py), and the core only after it (docs/speed.md, *Connecting sooner*).
_CORE_NAMES = ("Resolving", "check", "fetch", "get", "plan", "resolve", "run")


def __getattr__(name: str) -> object:
    # (resolvers/resource.py on first use: ``omniurl plan`` makes no Resource; ~0.4 ms)
    if name in _RESOURCE_NAMES:
        from . import resource

        value = globals()[name] = getattr(resource, name)
        return value
    if name in _CORE_NAMES:
        from . import core

        for each in _CORE_NAMES:
            globals()[each] = getattr(core, each)
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_RESOURCE_NAMES) | set(_CORE_NAMES))


__all__ = [
    "DEFAULT",
    "STRICT",
    "Entry",
    "Follow",
    "Listing",
    "Options",
    "Plan",
    "Policy",
    "Resolver",
    "Resolving",
    "Resource",
    "Resumed",
    "Step",
    "WireValue",
    "check",
    "errors",
    "fetch",
    "get",
    "known",
    "plan",
    "policy",
    "register",
    "resolve",
    "run",
]
