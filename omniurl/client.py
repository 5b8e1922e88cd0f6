"""``AsyncClient`` and ``Client``: one set of options and shared connections for many URLs.

Modelled on httpx's clients.  ``omniurl.resolve(url)`` is complete by itself, but every call
opens its own connections; a client keeps what can safely be kept between URLs:

- HTTP: one pool of keep-alive connections (:mod:`resolvers.http.pool`), every new
  connection still opened through the policy's address check;
- FTP: idle control connections, reused only for the same server, login *and* ``CWD``
  sequence — the one case RFC 1738 §3.2.5 leaves safe (:mod:`resolvers.ftp.sessions`).

Closing the client (``aclose()``, or leaving ``async with``) closes them all.  Concurrent
resolves through one client are fine: the pools are only touched between awaits on one
event loop, and ``fetch_many`` (the batch) runs through the client's own connections.

Many at once: ``get`` holds one of ``max_per_host`` slots of the server it connects to
(after ``--resolve``; every scheme, as the CLI's ``--parallel-max-host``), and an HTTP
request one of the pool's ``max_connections``; the rest wait their turn, first come first
served (:mod:`resolvers.slots`).  The wait is not counted against a resolve's deadlines
(``read_timeout``, ``max_time``, ``speed_time`` start when it has its slot);
``pool_timeout`` bounds it (None, the default: unbounded).  So ``asyncio.gather`` of
10,000 gets to one server opens at most ``max_per_host`` connections and every get
succeeds (before, 1,000 HTTP gets gave 676 ``ResolveTimeout``).

    async with omniurl.AsyncClient(Options(read_timeout=10)) as client:
        plan = client.plan("ftp://h/pub/f.txt")
        async with client.stream("http://h/big.iso") as resource:
            async for chunk in resource: ...
        listing = await client.get("gopher://h/1/")
        async for result in client.fetch_many(urls, concurrency=50, per_host=6): ...

``Client`` is the same for synchronous code: it runs a private event loop in a thread of
its own, so it also works where a loop is already running (a notebook).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import AsyncIterator, Coroutine, Iterable, Sequence
from types import TracebackType
from typing import Any, TypeVar

from omniurl.batch import FetchResult, HostKey, URLSource, fetch_many, host_key
from omniurl.resolvers.core import fetch, plan, resolve
from omniurl.resolvers.errors import ClientClosed, PoolTimeout
from omniurl.resolvers.options import ClientLimits, Options, Shared
from omniurl.resolvers.plan import Plan
from omniurl.resolvers.resource import Listing, Resource
from omniurl.resolvers.slots import Slots
from omniurl.schemes import URL, parse
from omniurl.schemes.errors import OmniurlError
from omniurl.threadwait import run_on

T = TypeVar("T")


class AsyncClient:
    """Options and shared connections for many resolves (see module doc)."""

    def __init__(
        self,
        options: Options | None = None,
        *,
        max_idle_ftp: int = 4,
        max_connections: int = 100,
        max_keepalive_connections: int = 20,
        keepalive_expiry: float = 5.0,
        max_per_host: int | None = 6,
        pool_timeout: float | None = None,
    ) -> None:
        """``max_connections`` bounds the HTTP connections open at once (per set of
        options), ``max_keepalive_connections`` the idle ones kept, for ``keepalive_expiry``
        seconds; ``max_idle_ftp`` the FTP control connections kept (for one server, login
        and directory, and in all).  ``max_per_host`` bounds the :meth:`get` calls running
        at once to one server — the address connected to, after ``--resolve`` — for every
        scheme (6, the CLI's ``--parallel-max-host``; None: no bound): a hundred concurrent
        gets to one FTP server must not meet its connection cap (vsftpd's
        ``max_per_ip``: "421 There are too many connections from your internet address").
        A get waiting for its turn or for an HTTP connection waits outside its deadlines,
        for at most ``pool_timeout`` seconds (None: as long as it takes; then
        :class:`PoolTimeout`)."""
        if max_per_host is not None and max_per_host < 1:
            raise ValueError("max_per_host must be at least 1 (or None)")
        self.options = options or Options()
        self.max_per_host = max_per_host
        #: A semaphore per host key while gets hold or wait for it (dropped when nobody
        #: does, so the table never outgrows the hosts in flight).
        self._hosts = Slots(max_per_host or 1, pool_timeout=pool_timeout, what="per-host slot")
        # Each scheme's resolver makes what it keeps (an HTTP pool, FTP sessions) in here on
        # its first URL, within these bounds; the client closes them all.
        self._shared = Shared(
            limits=ClientLimits(
                max_connections=max_connections,
                max_keepalive_connections=max_keepalive_connections,
                keepalive_expiry=keepalive_expiry,
                max_idle_sessions=max_idle_ftp,
                pool_timeout=pool_timeout,
            )
        )
        self._closed = False
        self._last_effective: tuple[Options, Options] | None = None

    @property
    def is_closed(self) -> bool:
        return self._closed

    def _effective(self, options: Options | None) -> Options:
        """The options a resolve runs with: the client's (or ``options``) plus its pools."""
        if self._closed:
            raise ClientClosed("the client is closed", component="client")
        base = options or self.options
        # The same (frozen) options again — every URL of a mirror, every get of a loop —
        # give the same effective options: one ``dataclasses.replace`` of ~40 fields (0.2
        # to 0.3 ms, profiled over 1,000 mirrored files) instead of one a resolve.
        cached = self._last_effective
        if cached is not None and cached[0] is base:
            return cached[1]
        if base.shared is self._shared:  # (made from effective options: a mirror's
            return base  # conditional request, its validators added to them)
        effective = base.with_(shared=self._shared)
        self._last_effective = (base, effective)
        return effective

    def plan(self, url: URL | str) -> Plan:
        """The plan of ``url`` under the client's options (pure; nothing is sent)."""
        return plan(url, self.options)

    def stream(
        self, url: URL | str, *, options: Options | None = None
    ) -> contextlib.AbstractAsyncContextManager[Resource]:
        """``async with client.stream(url) as resource:`` — content streamed, closed on
        leaving (the connection goes back to the client's pool when it can be kept)."""
        return resolve(url, self._effective(options))

    async def get(self, url: URL | str, *, options: Options | None = None) -> bytes | Listing:
        """The whole content of ``url`` (bytes), or its :class:`Listing`; at most
        ``max_per_host`` at once to one server (the others wait their turn)."""
        self._effective(options)  # a closed client refuses at once, not after the queue
        parsed, key = self._host_of(url, options or self.options)
        if key is None:
            return await fetch(parsed, self._effective(options))
        # A waiting get holds only its URL and its place in the queue: its options (with
        # the pools) are made once it has its turn — 10,000 waiting gets took 6 KB each
        # with the options, context managers and a second parse; now 2.7 KB.
        await self._hosts.acquire(key)
        try:
            return await fetch(parsed, self._effective(options))
        finally:
            self._hosts.release(key)

    def _host_of(self, url: URL | str, options: Options) -> tuple[URL | str, HostKey | None]:
        """``url`` parsed once, and the server it connects to (``stream`` takes no turn: its
        caller holds the resource, and waiting there could deadlock code that opens
        several); None when there is no per-host bound or the URL does not parse (the
        resolve reports the URL's error itself)."""
        if self.max_per_host is None:
            return url, None
        try:
            parsed = url if isinstance(url, URL) else parse(url, syntax=options.syntax)
            return parsed, host_key(parsed, options)
        except OmniurlError:
            return url, None

    def fetch_many(
        self,
        urls: URLSource,
        *,
        concurrency: int = 50,
        per_host: int = 6,
        output_dir: str | os.PathLike[str] | None = None,
        resume: bool = False,
        window: int | None = None,
        names: Sequence[str | None] | None = None,
        trace: bool = False,
        header_names: bool = False,
        digest: bool = True,
    ) -> AsyncIterator[FetchResult]:
        """Fetch many URLs through this client's connections: an async iterator of
        :class:`FetchResult` as each finishes (see :func:`omniurl.batch.fetch_many`)."""
        return fetch_many(
            urls,
            options=self._effective(None),
            concurrency=concurrency,
            per_host=per_host,
            output_dir=output_dir,
            resume=resume,
            window=window,
            names=names,
            trace=trace,
            header_names=header_names,
            digest=digest,
        )

    async def aclose(self) -> None:
        """Close every kept connection (FTP with QUIT); safe to call more than once."""
        if self._closed:
            return
        self._closed = True
        await self._shared.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()


class Client:
    """A synchronous :class:`AsyncClient`: its own event loop in a thread of its own, so it
    works from plain scripts and from code already inside a running loop alike."""

    def __init__(self, options: Options | None = None, **limits: Any) -> None:
        """``limits``: :class:`AsyncClient`'s keywords (``max_connections``…)."""
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="omniurl-client", daemon=True
        )
        self._thread.start()
        self._async = self._call(_make_client(options, limits))

    def _call(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the client's loop and wait for it; interrupted (Ctrl-C), the work
        is cancelled and waited for before the interrupt goes on (see
        :func:`omniurl.threadwait.run_on`: nothing downloads on with nobody to read
        it)."""
        if not self._thread.is_alive():
            coro.close()
            raise ClientClosed("the client is closed", component="client")
        return run_on(self._loop, coro, None)

    @property
    def options(self) -> Options:
        return self._async.options

    def plan(self, url: URL | str) -> Plan:
        return self._async.plan(url)

    def get(self, url: URL | str, *, options: Options | None = None) -> bytes | Listing:
        """The whole content of ``url`` (bytes), or its :class:`Listing`."""
        return self._call(self._async.get(url, options=options))

    def fetch_many(self, urls: Iterable[str | URL], **kwargs: Any) -> list[FetchResult]:
        """Every URL's :class:`FetchResult`, in completion order (see
        :meth:`AsyncClient.fetch_many`; for a stream of results use the async client)."""

        async def collect() -> list[FetchResult]:
            return [r async for r in self._async.fetch_many(urls, **kwargs)]

        return self._call(collect())

    def close(self) -> None:
        """Close the connections and stop the client's thread; safe to call more than once."""
        if not self._thread.is_alive():
            return
        try:
            self._call(self._async.aclose())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)
            if not self._thread.is_alive():
                self._loop.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


async def _make_client(options: Options | None, limits: dict[str, Any]) -> AsyncClient:
    """Built on the client's loop (its pools belong to that loop)."""
    return AsyncClient(options, **limits)


__all__ = ["AsyncClient", "Client", "ClientClosed", "PoolTimeout"]
