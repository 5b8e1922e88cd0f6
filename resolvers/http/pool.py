"""HTTP connections shared by the resolves of one client (``omniurl.AsyncClient``).

Without a pool every resolve opens its own connection and closes it with the resource:
correct, but each URL pays a new TCP (and TLS) connection.  A client that resolves many URLs
shares a :class:`~resolvers.options.Shared` (``Options.shared``); the executor takes its
connections from its :class:`HTTPPool`, keyed by scheme, proxy and the options they were
checked with — keep-alive connections are reused across URLs, each new one still opened
through the policy (:func:`resolvers.net.connect`), so a new host is checked as always.  Closing the
pool (the client's ``aclose``) closes every connection.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Hashable

from ..errors import ClientClosed
from ..options import ClientLimits, Options
from ..slots import Slots
from .connection import Connections

#: What a pooled set of connections is keyed by: everything its connections were opened and
#: checked with — the scheme and proxy, then the options the stream seam and TLS read.
TransportKey = tuple[Hashable, ...]


def transport_key(options: Options, scheme: str, proxy: str | None) -> TransportKey | None:
    """The key of the connections ``options`` may share, or ``None`` when they cannot be
    compared (an unhashable custom policy or transcript): such a resolve is not pooled.

    A kept-alive connection was checked when it was opened — the address against the
    policy, the ``--resolve`` mapping, the certificate against ``verify_tls`` — so only a
    resolve with the same of all these may ride it: a strict call must not reuse what the
    default policy let through, nor a verifying call an unverified TLS connection.
    """
    key = (
        scheme,
        proxy,
        options.policy,
        options.verify_tls,
        (options.ca_file, options.ca_path, options.client_cert, options.client_key),
        options.tls_min_version,
        frozenset(options.resolve.items()),
        options.connect_timeout,
        options.chunk_size,
        options.transcript,
    )
    try:
        hash(key)
    except TypeError:
        return None
    return key


class _Key:
    """A :data:`TransportKey` hashed once: the pool looks a key up three times a request
    (its connections, a slot taken, the slot given back), and hashing the policy record
    in it each time was ~5% of a small file's CPU in a batch (cProfile, 2,000 files)."""

    __slots__ = ("hash", "key")

    def __init__(self, key: TransportKey) -> None:
        self.key = key
        self.hash = hash(key)

    def __hash__(self) -> int:
        return self.hash

    def __eq__(self, other: object) -> bool:
        return other is self or (isinstance(other, _Key) and other.key == self.key)

    def __repr__(self) -> str:
        return f"_Key({self.key!r})"


class HTTPPool:
    """Kept-alive connections (:class:`~resolvers.http.connection.Connections`) shared by the
    concurrent resolves of one client, one set per :func:`transport_key`.

    Bounded: each set holds at most ``max_connections`` connections, keeps at most
    ``max_keepalive_connections`` idle ones for ``keepalive_expiry`` seconds, and at most
    ``max_transports`` option sets are pooled — a resolve beyond them opens connections of
    its own, closed after it, as without a pool.

    A resolve takes one of a set's ``max_connections`` slots (:mod:`resolvers.slots`) before
    it takes a connection and gives it back when its response is closed: the others queue,
    first come first served, outside their deadlines and bounded only by ``pool_timeout``
    (None: unbounded).
    """

    def __init__(
        self,
        *,
        max_connections: int = 100,
        max_keepalive_connections: int = 20,
        keepalive_expiry: float = 5.0,
        max_transports: int = 8,
        pool_timeout: float | None = None,
    ) -> None:
        self.max_connections = max_connections
        self.max_keepalive_connections = max_keepalive_connections
        self.keepalive_expiry = keepalive_expiry
        self.max_transports = max_transports
        self._transports: dict[_Key, Connections] = {}
        #: The last options' key (the options object, scheme, proxy and ``--resolve``
        #: entries it was made for): a batch or a client's loop passes the same options
        #: again and again.
        self._last: tuple[Options, str, str | None, frozenset[object], _Key | None] | None = None
        self._slots = Slots(
            max_connections, pool_timeout=pool_timeout, what="HTTP connection of the client"
        )
        self._closed = False

    def _key(self, options: Options, scheme: str, host: str) -> _Key | None:
        if self._closed:
            raise ClientClosed("the client is closed", component="client")
        proxy = None
        if options.proxy is not None:  # -x: one set per proxy (and noproxy list)
            proxy = f"{options.proxy} {options.noproxy} {host}"
        mapped = frozenset(options.resolve.items())  # (a mapping may change in place)
        last = self._last
        if (
            last is not None
            and last[0] is options
            and last[1] == scheme
            and last[2] == proxy
            and last[3] == mapped
        ):
            return last[4]
        key = transport_key(options, scheme, proxy)
        made = None if key is None else _Key(key)
        self._last = (options, scheme, proxy, mapped, made)
        return made

    def transport(self, options: Options, scheme: str, host: str) -> Connections | None:
        """The shared connections for these options, or ``None``: then the caller opens
        connections of its own (:class:`Connections`) and closes them after the resolve."""
        key = self._key(options, scheme, host)
        return None if key is None else self._transport(key, options)

    def _transport(self, key: _Key, options: Options) -> Connections | None:
        transport = self._transports.get(key)
        if transport is None:
            if len(self._transports) >= self.max_transports:
                return None
            transport = Connections(
                options,
                max_keepalive=self.max_keepalive_connections,
                keepalive_expiry=self.keepalive_expiry,
            )
            self._transports[key] = transport
        return transport

    @property
    def slots(self) -> Slots:
        """The connection slots (``max_connections`` a set of connections)."""
        return self._slots

    def slot_key(self, options: Options, scheme: str, host: str) -> object | None:
        """The key of the slots a resolve under these options takes (:meth:`lease`), or
        None when it takes none (no shared set for these options): the batch's lean
        engine holds one of the same slots for each of its exchanges, so the client's
        ``max_connections`` bounds its connections and the general path's together."""
        key = self._key(options, scheme, host)
        if key is None or self._transport(key, options) is None:
            return None
        return key

    async def lease(
        self, options: Options, scheme: str, host: str
    ) -> tuple[Connections, Callable[[], Awaitable[None]]] | None:
        """The shared connections for these options once one of their slots is free, and
        the function that gives the slot back (call it once the response is closed; more
        calls do nothing) — or ``None``, as :meth:`transport`."""
        key = self._key(options, scheme, host)
        if key is None:
            return None
        transport = self._transport(key, options)
        if transport is None:
            return None
        await self._slots.acquire(key)
        held = True

        async def give_back() -> None:
            nonlocal held
            if held:
                held = False
                self._slots.release(key)

        return transport, give_back

    async def aclose(self) -> None:
        self._closed = True
        self._last = None
        transports, self._transports = self._transports, {}
        for transport in transports.values():
            await transport.aclose()


def make_pool(limits: ClientLimits) -> HTTPPool:
    """A client's pool, made on its first http(s): URL (``Shared.get``)."""
    return HTTPPool(
        max_connections=limits.max_connections,
        max_keepalive_connections=limits.max_keepalive_connections,
        keepalive_expiry=limits.keepalive_expiry,
        pool_timeout=limits.pool_timeout,
    )


__all__ = ["HTTPPool", "make_pool", "transport_key"]
