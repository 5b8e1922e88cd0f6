"""HTTP connections shared by the resolves of one client (``omniurl.AsyncClient``).

Without a pool every resolve builds its own ``httpx.AsyncClient`` and closes it with the
resource: correct, but each URL pays a new TCP (and TLS) connection.  A client that
resolves many URLs passes an :class:`HTTPPool` in ``Options.extra[POOL_KEY]``; the executor
then takes its httpx client from the pool, keyed by scheme and proxy, and leaves it open —
keep-alive connections are reused across URLs, still each one opened through the policy's
network backend (:mod:`resolvers.http.transport`), so a new host is checked as always.
Closing the pool (the client's ``aclose``) closes every connection.
"""

from __future__ import annotations

import httpx

from ..options import Options
from .transport import PolicyTransport, env_proxy

#: The ``Options.extra`` key that carries an :class:`HTTPPool`.
POOL_KEY = "http_pool"


def make_client(options: Options, scheme: str, host: str) -> httpx.AsyncClient:
    """An httpx client whose every connection passes the policy (never follows redirects:
    the core re-plans and re-checks each one)."""
    return httpx.AsyncClient(
        transport=PolicyTransport(options, scheme=scheme, host=host),
        timeout=httpx.Timeout(
            connect=options.connect_timeout,
            read=options.read_timeout,
            write=options.read_timeout,
            pool=options.connect_timeout,
        ),
        follow_redirects=False,
        trust_env=False,
    )


class HTTPPool:
    """One httpx client per (scheme, proxy), shared by concurrent resolves."""

    def __init__(self) -> None:
        self._clients: dict[tuple[str, str | None], httpx.AsyncClient] = {}
        self._closed = False

    def client(self, options: Options, scheme: str, host: str) -> httpx.AsyncClient:
        if self._closed:
            raise RuntimeError("the client is closed")
        proxy = env_proxy(scheme, host) if options.trust_env else None
        key = (scheme, proxy)
        client = self._clients.get(key)
        if client is None:
            client = self._clients[key] = make_client(options, scheme, host)
        return client

    async def aclose(self) -> None:
        self._closed = True
        clients, self._clients = self._clients, {}
        for client in clients.values():
            await client.aclose()


__all__ = ["POOL_KEY", "HTTPPool", "make_client"]
