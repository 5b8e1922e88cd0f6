"""Planning and resolving, the two public operations.

``plan(url)`` asks the scheme's resolver for the steps; ``resolve(url)`` plans, checks the plan
against the safety policy (nothing has been sent yet), executes it, and follows redirects and
referrals through the same two gates, a bounded number of times.
"""

from __future__ import annotations

from collections.abc import Coroutine, Generator

from omniurl import schemes
from omniurl.schemes.base import URL

from . import registry
from .base import Follow
from .errors import (
    NotFollowed,
    PlanError,
    PolicyError,
    ProtocolError,
    RedirectLoop,
    ResolveError,
    TooManyRedirects,
    UnsupportedScheme,
)
from .options import Ask, Options
from .plan import Plan

TYPE_CHECKING = False
if TYPE_CHECKING:
    import asyncio
    from typing import Any, TypeVar

    from .deadline import Guard
    from .resource import Listing, Resource

    T = TypeVar("T")


def _as_url(url: URL | str, options: Options | None = None) -> URL:
    if isinstance(url, URL):
        return url
    return schemes.parse(url, syntax=options.syntax if options is not None else "rfc3986")


def plan(url: URL | str, options: Options | None = None) -> Plan:
    """The access plan for ``url``: exact protocol steps, as data; no I/O, no policy check."""
    options = options or Options()
    parsed = _as_url(url, options)
    return registry.get(parsed.scheme).plan(parsed, options)


def check(url: URL | str, options: Options | None = None) -> Plan:
    """Plan ``url`` and check the plan against the policy; raise if refused."""
    options = options or Options()
    p = plan(url, options)
    options.policy.check_plan(p)
    return p


class Resolving:
    """What :func:`resolve` returns: await it for the :class:`Resource`, or use it directly
    as ``async with resolve(url) as resource:`` (the resource is closed on leaving).

    Nothing starts until it is awaited or entered, so an unused one leaves no coroutine
    behind (no "never awaited" warning).
    """

    def __init__(self, url: URL | str, options: Options | None) -> None:
        self._url = url
        self._options = options
        self._resource: Resource | None = None

    def __await__(self) -> Generator[Any, None, Resource]:
        return _resolve_guarded(self._url, self._options).__await__()

    async def __aenter__(self) -> Resource:
        self._resource = await _resolve_guarded(self._url, self._options)
        return self._resource

    async def __aexit__(self, *exc_info: object) -> None:
        resource, self._resource = self._resource, None
        if resource is not None:
            await resource.aclose()


def resolve(url: URL | str, options: Options | None = None) -> Resolving:
    """Do what ``url`` says: ``async with resolve(url) as resource:`` (or ``resource = await
    resolve(url)``, then ``async with resource``).

    Redirects and referrals are followed (at most ``options.policy.max_redirects``), each new
    URL re-planned and re-checked; the returned resource's ``chain`` lists the URLs passed.
    """
    return Resolving(url, options)


async def _resolve_guarded(url: URL | str, options: Options | None) -> Resource:
    """Resolve under the whole-transfer limits (resolvers.deadline)."""
    options = options or Options()
    from .deadline import PAUSE, Guard  # not at import: ``omniurl plan`` needs no deadlines

    guard = Guard(options.max_time, options.speed_limit, options.speed_time)
    limit = guard.setup_limit()
    if limit is None:
        resource = await _resolve(_as_url(url, options), options)
    else:
        import asyncio  # not at import: ``omniurl plan`` runs no event loop

        try:
            async with asyncio.timeout(limit) as waiting:
                token = PAUSE.set(_Pauser(guard, waiting))
                try:
                    if options.ask is not None:
                        options = options.with_(ask=_paused(options.ask, guard, waiting))
                    resource = await _resolve(_as_url(url, options), options)
                finally:
                    PAUSE.reset(token)
        except TimeoutError:
            if not waiting.expired():
                raise
            guard.check_max_time()
            from .errors import TooSlow

            raise TooSlow(
                f"no content after {options.speed_time:g} s (connect, login, headers, "
                "referrals): --speed-time sets how long that may take, --speed-limit 0 "
                "turns the limit off"
            ) from None
    resource.guard = guard
    resource.max_entries = options.max_entries
    if options.max_filesize is not None and resource.kind == "content":
        try:
            resource.limit_size(options.max_filesize)
        except BaseException:
            await resource.aclose()
            raise
    if resource.streaming and not options.stream_listings:
        await resource.collect_entries(options.max_buffered)
    return resource


class _Pauser:
    """How :func:`resolvers.deadline.queued` stops this resolve's clocks: the setup timer
    is suspended and the guard's start moved on by the time spent waiting.  A class, not a
    decorated closure: one is made for every resolve, and ``asynccontextmanager``'s
    decoration cost more than the rest of it."""

    __slots__ = ("depth", "guard", "started", "waiting", "when")

    def __init__(self, guard: Guard, waiting: asyncio.Timeout) -> None:
        self.guard = guard
        self.waiting = waiting
        self.depth = 0  # a pause inside a pause (a question while queued) counts once
        self.started = 0.0
        self.when: float | None = None

    def __call__(self) -> _Pauser:
        return self

    def spend(self, seconds: float) -> None:
        """``seconds`` this resolve spent before it began (:func:`deadline.count_spent`):
        its clocks are moved back by as much."""
        self.guard.started -= seconds
        when = self.waiting.when()
        if when is not None:
            self.waiting.reschedule(when - seconds)

    async def __aenter__(self) -> None:
        self.depth += 1
        if self.depth == 1:
            self.started = self.guard.clock()
            self.when = self.waiting.when()
            self.waiting.reschedule(None)

    async def __aexit__(self, *exc_info: object) -> None:
        self.depth -= 1
        if self.depth == 0:
            spent = self.guard.clock() - self.started
            self.guard.started += spent
            if self.when is not None:
                self.waiting.reschedule(self.when + spent)


def _paused(ask: Ask, guard: Guard, waiting: asyncio.Timeout) -> Ask:
    """``ask`` with the time a person takes to answer (a password, search words) left out
    of the deadlines: the server is not slow while we wait for the keyboard."""
    pause = _Pauser(guard, waiting)

    async def asking(*args: Any, **kwargs: Any) -> str:
        async with pause():
            return await ask(*args, **kwargs)

    return asking


def _followable(follow: Follow) -> None:
    """A redirect or referral to a scheme nobody resolves is the server's error (the URL it
    sent cannot be followed), not the caller's unknown scheme."""
    try:
        registry.get(follow.target.scheme)
    except UnsupportedScheme:
        raise ProtocolError(
            f"{follow.reason} to {follow.target}: no resolver for {follow.target.scheme}: URLs",
            component="location",
        ) from None


def _origin_of(url: URL) -> tuple[str, str | None, int | None]:
    """The origin a login belongs to (RFC 6454 §4: scheme, host, port): a redirect from
    ``http://h:A/`` to ``http://h:B/`` reaches another server, which must not get it."""
    hostname = getattr(url, "hostname", None)
    port = getattr(url, "effective_port", None)
    return (
        url.scheme,
        hostname.lower() if isinstance(hostname, str) else None,
        port if isinstance(port, int) else None,
    )


async def _resolve(current: URL, options: Options) -> Resource:
    chain: list[str] = []
    try:
        return await _follow(current, options, chain)
    except PolicyError as exc:
        # A hop after the first is refused after the earlier ones were sent and answered:
        # the refusal says so, never "nothing was sent".
        if chain:
            raise exc.after_sending(f"the request for {hop}" for hop in chain) from None
        raise


async def _follow(current: URL, options: Options, chain: list[str]) -> Resource:
    from .hops import HOP_CARRY

    carry: dict[str, Any] = {}
    token = HOP_CARRY.set(carry)
    try:
        return await _hops(current, options, chain)
    finally:
        HOP_CARRY.reset(token)
        for held in carry.values():  # (kept for a next hop that did not come)
            await held.aclose()


async def _hops(current: URL, options: Options, chain: list[str]) -> Resource:
    hops: list[tuple[str, ...]] = []  # each followed reply's head (Resource.hops: -I -L)
    requested: dict[tuple[object, ...], str] = {}  # each hop's request (_request_of): its URL
    came_from: tuple[str, str] | None = None  # (the URL that redirected here, and why)
    # The first request asked again, named if the bound is reached: a repeat alone proves no
    # loop (a server may answer differently later: "302 to itself, Retry-After", then 200;
    # curl -L follows it), RFC 9110 §15.4 asks a client to detect *infinite* loops, so the
    # repeats are followed to the bound as curl's and the error then says it was a loop.
    loop: str | None = None
    for _hop in range(options.policy.max_redirects + 1):
        p = plan(current, options)
        request = _request_of(p)
        if loop is None and came_from is not None and request in requested:
            before, reason = came_from
            earlier = requested[request]
            back = "itself" if earlier == before else f"{earlier}, requested already"
            loop = f"{before} redirects back to {back} ({reason})"
        requested.setdefault(request, str(current))
        options.policy.check_plan(p)
        if options.resume_from > 0:  # (else nothing to check: resolvers.resume not loaded)
            from .resume import check_resumable

            check_resumable(p, options.resume_from)
        resolver = registry.get(current.scheme)
        try:
            resource = await resolver.execute(p, options)
        except ResolveError as exc:
            if hops:  # (a 404 after a redirect: -I -L shows the redirect's head first)
                exc.hops = tuple(hops)
            raise
        except Follow as follow:
            if not options.follow:
                raise NotFollowed(
                    f"{follow.reason}: {follow.target} (not followed)",
                    target=follow.target,
                    reason=follow.reason,
                    replies=follow.replies,
                ) from None
            if follow.limit is not None and len(chain) >= follow.limit:
                raise _too_many(
                    f"more than {follow.limit} redirects ({follow.reason}); stopped at "
                    f"{current}, which leads to {follow.target}",
                    loop,
                ) from None
            try:
                options.policy.check_redirect(current, follow.target, kind=follow.reason)
            except PolicyError as exc:
                sent = [*chain, str(current)]
                raise exc.after_sending(f"the request for {url}" for url in sent) from None
            _followable(follow)
            options.note("*", f"{follow.reason}: {follow.target}")
            if (
                options.user is not None
                and not options.location_trusted
                and _origin_of(follow.target) != _origin_of(current)
            ):
                # -u was for the URL given: never sent to another origin — host, port or
                # scheme (curl's rule since CVE-2022-27776); --location-trusted lifts it.
                options = options.with_(user=None)
                options.note(
                    "*", "credentials from -u are not sent to another host, port or scheme"
                )
            chain.append(str(current))
            hops.append(tuple(follow.replies))
            if options.trace is not None:
                options.trace.new_hop()
            came_from = (str(current), follow.reason)
            current = follow.target
            continue
        resource.chain = [*chain, *resource.chain]
        resource.hops = [*hops, *resource.hops]
        return resource
    raise _too_many(
        f"more than {options.policy.max_redirects} redirects or referrals; stopped at {current}",
        loop,
    )


def _too_many(message: str, loop: str | None) -> TooManyRedirects:
    """The bound's error: :class:`RedirectLoop` (a ``TooManyRedirects``, the same exit
    status) naming the first request asked again when the chain went round, else the plain
    one (a chain of ever new URLs)."""
    if loop is None:
        return TooManyRedirects(message, component="location")
    return RedirectLoop(f"{message}: a redirect loop, {loop}", component="location")


def _request_of(p: Plan) -> tuple[object, ...]:
    """What a hop asks: where its steps go and the bytes each holds (RFC 9110 §10.2.2 makes a
    ``Location`` resolve against the request's URI, so ``Location: /a`` answering ``/a`` —
    or a chain back to an earlier URL — plans the very same request).  A hop whose options
    changed (``-u`` dropped at another origin) plans other bytes, and is another request."""
    return (p.scheme, p.host, p.port, p.transport, tuple((s.kind, s.data) for s in p.steps))


def run(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to its end from synchronous code (the facade for scripts).

    Inside a running event loop (a notebook, a sync helper called from async code) a second
    loop cannot run in the same thread: the coroutine then runs on a private loop in a
    worker thread while this thread waits for it.
    """
    import asyncio  # not at import: ``omniurl plan`` never runs an event loop

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _run_on_a_new_loop(coro)
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="omniurl") as worker:
        return worker.submit(_run_on_a_new_loop, coro).result()


def _run_on_a_new_loop(coro: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run`` without its SIGINT handler: in CPython 3.11 that handler (a partial
    holding the main task) costs a full ``repr`` of the task's result when the run ends —
    4× the size of a large ``bytes`` result (measured: a 64 MiB ``get`` peaked at 335 MB
    of traced memory with ``asyncio.run``, 87 MB without).  Ctrl-C still ends the run
    (KeyboardInterrupt), and what is left is cancelled and closed as ``asyncio.run`` does."""
    import asyncio

    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(coro)
    finally:
        try:
            pending = asyncio.all_tasks(loop)
            for task in pending:
                task.cancel()
            if pending:
                loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.run_until_complete(loop.shutdown_default_executor())
        finally:
            loop.close()


async def fetch(url: URL | str, options: Options | None = None) -> bytes | Listing:
    """Resolve ``url`` and return all of it: the content's bytes, or a :class:`Listing`."""
    from .resource import Listing, read_all

    async with resolve(url, options) as resource:
        if resource.kind == "listing":
            return await Listing.collect(resource)
        if resource.kind == "session":
            raise PlanError(
                f"{resource.url.scheme}: an interactive session has no content to get; "
                "use resolve() and its session",
                component="scheme",
            )
        return await read_all(resource)


def get(url: URL | str, options: Options | None = None) -> bytes | Listing:
    """Synchronous facade: the content of ``url`` as bytes, or its :class:`Listing`.

    Works from plain code and from code already inside an event loop (see :func:`run`).
    """
    return run(fetch(url, options))
