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
from .core import Resolving, check, fetch, get, plan, resolve, run
from .errors import *  # noqa: F403
from .options import Options
from .plan import Plan, Step, WireValue
from .policy import DEFAULT, STRICT, Policy
from .registry import known, register

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .resource import Entry, Listing, Resource, Resumed


_RESOURCE_NAMES = ("Entry", "Listing", "Resource", "Resumed")


def __getattr__(name: str) -> object:
    # (resolvers/resource.py on first use: ``omniurl plan`` makes no Resource; ~0.4 ms)
    if name in _RESOURCE_NAMES:
        from . import resource

        value = globals()[name] = getattr(resource, name)
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_RESOURCE_NAMES))


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
