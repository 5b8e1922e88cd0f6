"""Planning and resolving, the two public operations.

``plan(url)`` asks the scheme's resolver for the steps; ``resolve(url)`` plans, checks the plan
against the safety policy (nothing has been sent yet), executes it, and follows redirects and
referrals through the same two gates, a bounded number of times.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from omniurl import schemes
from omniurl.schemes.base import URL

from . import registry
from .base import Follow
from .deadline import Guard, TooSlow
from .errors import PolicyError
from .options import Ask, Options
from .plan import Plan
from .resource import Resource
from .resume import check_resumable

if TYPE_CHECKING:
    import asyncio

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
    guard = Guard(options.max_time, options.speed_limit, options.speed_time)
    limit = guard.setup_limit()
    if limit is None:
        resource = await _resolve(_as_url(url), options)
    else:
        import asyncio  # not at import: ``omniurl plan`` runs no event loop

        try:
            async with asyncio.timeout(limit) as waiting:
                if options.ask is not None:
                    options = options.with_(ask=_paused(options.ask, guard, waiting))
                resource = await _resolve(_as_url(url), options)
        except TimeoutError:
            if not waiting.expired():
                raise
            guard.check_max_time()
            raise TooSlow(
                f"no content after {options.speed_time:g} s (connect, login, headers, "
                "referrals): --speed-time sets how long that may take, --speed-limit 0 "
                "turns the limit off"
            ) from None
    resource.guard = guard
    return resource


def _paused(ask: Ask, guard: Guard, waiting: asyncio.Timeout) -> Ask:
    """``ask`` with the time a person takes to answer (a password, search words) left out
    of the deadlines: the server is not slow while we wait for the keyboard."""

    async def asking(*args: Any, **kwargs: Any) -> str:
        started = guard.clock()
        when = waiting.when()
        waiting.reschedule(None)  # paused while the person answers
        try:
            return await ask(*args, **kwargs)
        finally:
            spent = guard.clock() - started
            guard.started += spent
            if when is not None:
                waiting.reschedule(when + spent)

    return asking


async def _resolve(current: URL, options: Options) -> Resource:
    chain: list[str] = []
    for _hop in range(options.policy.max_redirects + 1):
        p = plan(current, options)
        options.policy.check_plan(p)
        check_resumable(p, options.resume_from)
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
    import asyncio  # not at import: ``omniurl plan`` never runs an event loop

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
