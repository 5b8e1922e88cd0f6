"""HTTP connections shared by the resolves of one client (``omniurl.AsyncClient``).

Without a pool every resolve builds its own transport and closes it with the resource:
correct, but each URL pays a new TCP (and TLS) connection.  A client that resolves many URLs
passes an :class:`HTTPPool` in ``Options.extra[POOL_KEY]``; the executor then takes its
transport from the pool, keyed by scheme and proxy, and leaves it open — keep-alive
connections are reused across URLs, each new one still opened through the policy's network
backend (:mod:`resolvers.http.transport`), so a new host is checked as always.  Closing the
pool (the client's ``aclose``) closes every connection.
"""

from __future__ import annotations

from ..options import Options
from .transport import PolicyTransport, env_proxy

#: The ``Options.extra`` key that carries an :class:`HTTPPool`.
POOL_KEY = "http_pool"


def make_transport(options: Options, scheme: str, host: str) -> PolicyTransport:
    """An httpx transport whose every connection passes the policy.  The executor sends
    through the transport itself, not an ``httpx.AsyncClient``: no default headers, no
    redirect handling (the core re-plans and re-checks each redirect; httpx would parse the
    ``Location`` even when not following), no cookies — only what the plan shows."""
    return PolicyTransport(options, scheme=scheme, host=host)


def timeouts(options: Options) -> dict[str, float]:
    """The per-request timeouts httpcore reads from ``request.extensions["timeout"]``."""
    return {
        "connect": options.connect_timeout,
        "read": options.read_timeout,
        "write": options.read_timeout,
        "pool": options.connect_timeout,
    }


class HTTPPool:
    """One transport (a pool of keep-alive connections) per (scheme, proxy), shared by the
    concurrent resolves of one client."""

    def __init__(self) -> None:
        self._transports: dict[tuple[str, str | None], PolicyTransport] = {}
        self._closed = False

    def transport(self, options: Options, scheme: str, host: str) -> PolicyTransport:
        if self._closed:
            raise RuntimeError("the client is closed")
        proxy = env_proxy(scheme, host) if options.trust_env else None
        key = (scheme, proxy)
        transport = self._transports.get(key)
        if transport is None:
            transport = self._transports[key] = make_transport(options, scheme, host)
        return transport

    async def aclose(self) -> None:
        self._closed = True
        transports, self._transports = self._transports, {}
        for transport in transports.values():
            await transport.aclose()


__all__ = ["POOL_KEY", "HTTPPool", "make_transport", "timeouts"]
