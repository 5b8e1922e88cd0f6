"""Planning and resolving, the two public operations.

``plan(url)`` asks the scheme's resolver for the steps; ``resolve(url)`` plans, checks the plan
against the safety policy (nothing has been sent yet), executes it, and follows redirects and
referrals through the same two gates, a bounded number of times.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

from omniurl import schemes
from omniurl.schemes.base import URL

from . import deadline, registry
from .base import Follow
from .errors import PolicyError
from .options import Options
from .plan import Plan
from .resource import Resource

T = TypeVar("T")


def _as_url(url: URL | str) -> URL:
    return url if isinstance(url, URL) else schemes.parse(url)


def plan(url: URL | str, options: Options | None = None) -> Plan:
    """The access plan for ``url``: exact protocol steps, as data; no I/O, no policy check."""
    options = options or Options()
    parsed = _as_url(url)
    return registry.get(parsed.scheme).plan(parsed, options)


def check(url: URL | str, options: Options | None = None) -> Plan:
    """Plan ``url`` and check the plan against the policy; raise if refused."""
    options = options or Options()
    p = plan(url, options)
    options.policy.check_plan(p)
    return p


async def resolve(url: URL | str, options: Options | None = None) -> Resource:
    """Do what ``url`` says and return the resource (use it as ``async with``).

    Redirects and referrals are followed (at most ``options.policy.max_redirects``), each new
    URL re-planned and re-checked; the returned resource's ``chain`` lists the URLs passed.
    """
    options = options or Options()
    # One whole-transfer guard for the URL, its redirects and referrals, and the reading of
    # its content (--max-time, --speed-limit/--speed-time: resolvers/deadline.py).
    deadline.start(options)
    current = _as_url(url)
    chain: list[str] = []
    for _hop in range(options.policy.max_redirects + 1):
        p = plan(current, options)
        options.policy.check_plan(p)
        resolver = registry.get(current.scheme)
        try:
            resource = await resolver.execute(p, options)
        except Follow as follow:
            if not options.follow:
                raise
            options.policy.check_redirect(current, follow.target, kind=follow.reason)
            options.note("*", f"{follow.reason}: {follow.target}")
            chain.append(str(current))
            current = follow.target
            continue
        resource.chain = [*chain, *resource.chain]
        return resource
    raise PolicyError(
        f"more than {options.policy.max_redirects} redirects or referrals; stopped at {current}",
        component="location",
    )


def run(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine from synchronous code (the facade for scripts)."""
    return asyncio.run(coro)


def get(url: URL | str, options: Options | None = None) -> bytes:
    """Synchronous facade: resolve ``url`` and return its content (or listing as text)."""

    async def go() -> bytes:
        async with await resolve(url, options) as resource:
            if resource.kind == "listing":
                return "".join(
                    f"{e.kind}\t{e.name}\t{e.url or ''}\n" for e in resource.entries
                ).encode()
            return await resource.read()

    return run(go())
