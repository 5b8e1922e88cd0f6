"""httpx's connections go through the policy too: a network backend on resolvers.net.

httpx resolves and connects by itself; left alone it would skip the strict policy's address
check (and ``--resolve``), and a name that resolves to a public address when checked and to
127.0.0.1 when httpx connects (DNS rebinding) would get through.  So httpcore is given a
network backend whose ``connect_tcp`` asks :func:`resolvers.net.resolve_addresses` — mapping,
DNS and the address check in one place — and connects to the checked address itself.  TLS
still verifies the URL's host name (httpcore passes it as the SNI and checks the
certificate against it), not the address.
"""

from __future__ import annotations

import ssl
import typing
import urllib.request

import httpcore
import httpx

from ..net import resolve_addresses
from ..options import Options


class PolicyBackend(httpcore.AsyncNetworkBackend):
    """Connect only to addresses the policy accepted (after ``--resolve`` and DNS)."""

    def __init__(self, options: Options) -> None:
        self.options = options
        self.inner = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: typing.Iterable[typing.Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        addresses = await resolve_addresses(host, port, self.options)
        last: Exception | None = None
        for address, to_port in addresses:
            self.options.note("*", f"connecting to {address} port {to_port}")
            try:
                return await self.inner.connect_tcp(
                    address,
                    to_port,
                    timeout=timeout,
                    local_address=local_address,
                    socket_options=socket_options,
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                last = exc
        assert last is not None
        raise last

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: typing.Iterable[typing.Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:  # pragma: no cover - never configured
        raise httpcore.ConnectError("omniurl does not connect to Unix sockets")

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


def ssl_context(options: Options) -> ssl.SSLContext:
    """Verified TLS by default (the system's CA store); ``--insecure`` turns checks off."""
    return httpx.create_ssl_context(verify=options.verify_tls, trust_env=False)


def env_proxy(scheme: str, host: str) -> str | None:
    """The proxy the environment names for this URL (only used with ``trust_env``)."""
    if urllib.request.proxy_bypass(host):
        return None
    return urllib.request.getproxies().get(scheme)


class PolicyTransport(httpx.AsyncHTTPTransport):
    """httpx's transport with our backend: every connection passes ``resolve_addresses``.

    With ``Options.trust_env`` and a proxy in the environment for this URL, requests go
    through that proxy; the address check then applies to the proxy's address (the proxy,
    not omniurl, resolves the URL's host — say so to a user of the strict preset).
    """

    def __init__(self, options: Options, *, scheme: str, host: str) -> None:
        context = ssl_context(options)
        super().__init__(verify=context, trust_env=False)
        backend = PolicyBackend(options)
        proxy = env_proxy(scheme, host) if options.trust_env else None
        pool: typing.Any
        if proxy is not None:
            options.note("*", f"using the proxy {proxy} (from the environment)")
            pool = httpcore.AsyncHTTPProxy(
                proxy_url=proxy, ssl_context=context, network_backend=backend
            )
        else:
            pool = httpcore.AsyncConnectionPool(ssl_context=context, network_backend=backend)
        self._pool = pool


__all__ = ["PolicyBackend", "PolicyTransport", "env_proxy", "ssl_context"]
