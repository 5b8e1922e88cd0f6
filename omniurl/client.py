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
from collections.abc import AsyncIterator, Coroutine, Iterable
from types import TracebackType
from typing import Any, TypeVar

from omniurl.batch import FetchResult, URLSource, fetch_many
from omniurl.resolvers.core import fetch, plan, resolve
from omniurl.resolvers.errors import ClientClosed
from omniurl.resolvers.ftp.sessions import SESSIONS_KEY, FTPSessions
from omniurl.resolvers.http.pool import POOL_KEY, HTTPPool
from omniurl.resolvers.options import Options
from omniurl.resolvers.plan import Plan
from omniurl.resolvers.resource import Listing, Resource
from omniurl.schemes import URL

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
    ) -> None:
        """``max_connections`` bounds the HTTP connections open at once (per set of
        options), ``max_keepalive_connections`` the idle ones kept, for ``keepalive_expiry``
        seconds; ``max_idle_ftp`` the FTP control connections kept (for one server, login
        and directory, and in all)."""
        self.options = options or Options()
        self._http = HTTPPool(
            max_connections=max_connections,
            max_keepalive_connections=max_keepalive_connections,
            keepalive_expiry=keepalive_expiry,
        )
        self._ftp = FTPSessions(max_idle=max_idle_ftp, max_total=max_idle_ftp)
        self._closed = False

    @property
    def is_closed(self) -> bool:
        return self._closed

    def _effective(self, options: Options | None) -> Options:
        """The options a resolve runs with: the client's (or ``options``) plus its pools."""
        if self._closed:
            raise ClientClosed("the client is closed", component="client")
        base = options or self.options
        return base.with_(extra={**base.extra, POOL_KEY: self._http, SESSIONS_KEY: self._ftp})

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
        """The whole content of ``url`` (bytes), or its :class:`Listing`."""
        return await fetch(url, self._effective(options))

    def fetch_many(
        self,
        urls: URLSource,
        *,
        concurrency: int = 50,
        per_host: int = 6,
        output_dir: str | os.PathLike[str] | None = None,
        resume: bool = False,
        window: int | None = None,
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
        )

    async def aclose(self) -> None:
        """Close every kept connection (FTP with QUIT); safe to call more than once."""
        if self._closed:
            return
        self._closed = True
        try:
            await self._ftp.aclose()
        finally:
            await self._http.aclose()

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
        if not self._thread.is_alive():
            coro.close()
            raise ClientClosed("the client is closed", component="client")
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

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


__all__ = ["AsyncClient", "Client", "ClientClosed"]
