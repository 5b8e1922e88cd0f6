"""Bounds at the connection level, below the application: slowloris and connection floods.

uvicorn's h11 server has a keep-alive timeout between requests, but none for the first
request's head: a client that trickles header lines (one every few seconds, never the blank
line) holds its connection for as long as it likes, and 1,100 such connections from one
address all stayed open.  The application never sees a request that has not arrived, so the
guard is in the protocol: :func:`guarded_protocol` makes uvicorn's ``H11Protocol`` with

- a deadline for each request head (``head_timeout``): armed when a connection opens and
  again when the next request's first byte arrives, cancelled once h11 has the whole head;
  past it the client gets ``408 Request Timeout`` and the connection is closed;
- a cap on the connections one client address holds at once (``max_connections_per_client``):
  past it the new connection is answered ``429 Too Many Requests`` and closed at once.

(RFC 9110 §15.5.9 408 "the server did not receive a complete request message within the
time that it was prepared to wait"; RFC 6585 §4 429.)

The requests are read by httptools (llhttp, in C) when it is installed — the gateway extra
declares it — else by h11.  Profiled at 200 keep-alive clients, h11 took a fifth of a page's
CPU for the response and an eighth for the request.  uvicorn's httptools protocol keeps only
the path of an absolute-form target (``GET gopher://h/1/ HTTP/1.1`` became ``/1/``):
:func:`guarded_protocol`'s class keeps the target whole, as h11 hands it over (a path, a raw
path and a query string split at the first "?", nothing else parsed), and refuses with 400
what h11 refuses in a target (a byte outside ``%x21-7E``, RFC 9112 §3.2: visible ASCII).
"""

from __future__ import annotations

import asyncio
import re
from typing import Any
from urllib.parse import unquote

_408 = (
    b"HTTP/1.1 408 Request Timeout\r\nContent-Type: text/plain; charset=utf-8\r\n"
    b"Connection: close\r\nContent-Length: 33\r\n\r\nthe request head came too slowly\n"
)
_429 = (
    b"HTTP/1.1 429 Too Many Requests\r\nContent-Type: text/plain; charset=utf-8\r\n"
    b"Connection: close\r\nContent-Length: 44\r\n\r\ntoo many connections from this address open\n"
)


def guarded_protocol(*, head_timeout: float, max_connections_per_client: int) -> type[Any]:
    """A uvicorn HTTP protocol class with the two bounds (httptools' when installed, else
    h11's); one per server (its own counts)."""
    try:
        import httptools  # noqa: F401
    except ImportError:
        return _h11_protocol(head_timeout, max_connections_per_client)
    return _httptools_protocol(head_timeout, max_connections_per_client)


class _Bounds:
    """One server's bounds: the head timeout, and the connections each client address holds
    (``admit`` when one opens, ``leave`` when it closes)."""

    def __init__(self, head_timeout: float, max_connections_per_client: int) -> None:
        self.head_timeout = head_timeout
        self.max_per_client = max_connections_per_client
        self.per_client: dict[str, int] = {}

    def admit(self, address: str) -> bool:
        if self.per_client.get(address, 0) >= self.max_per_client:
            return False
        self.per_client[address] = self.per_client.get(address, 0) + 1
        return True

    def leave(self, address: str) -> None:
        left = self.per_client[address] - 1
        if left:
            self.per_client[address] = left
        else:
            del self.per_client[address]


class _Guard:
    """The two bounds, mixed into a uvicorn protocol class (before it, so ``super()`` is
    uvicorn's): the per-address cap when a connection opens, the head timer armed then and
    disarmed by the subclass once the head is whole.  ``client``, ``loop``, ``transport``
    and ``_unset_keepalive_if_required`` are the uvicorn protocol's own."""

    bounds: _Bounds
    client: Any
    loop: Any
    transport: Any
    _head_timer: asyncio.TimerHandle | None = None
    _address: str | None = None

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)  # type: ignore[misc]
        address = self.client[0] if self.client else "?"
        if not self.bounds.admit(address):
            transport.write(_429)
            transport.close()
            return
        self._address = address
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._address is not None:
            self.bounds.leave(self._address)
            self._address = None
        super().connection_lost(exc)  # type: ignore[misc]

    def _arm(self) -> None:
        self._disarm()
        self._head_timer = self.loop.call_later(self.bounds.head_timeout, self._head_too_slow)

    def _disarm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _awaiting_head(self) -> bool:
        """Whether the parser still waits for a request head (no request under way)."""
        return True

    def _head_too_slow(self) -> None:
        self._head_timer = None
        if self.transport.is_closing() or not self._awaiting_head():
            return
        self._unset_keepalive_if_required()  # type: ignore[attr-defined]
        self.transport.write(_408)
        self.transport.close()


def _h11_protocol(head_timeout: float, max_connections_per_client: int) -> type[Any]:
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class GuardedH11Protocol(_Guard, H11Protocol):
        bounds = _Bounds(head_timeout, max_connections_per_client)

        def data_received(self, data: bytes) -> None:
            if self._head_timer is None and self.conn.their_state is h11.IDLE:
                self._arm()  # the first byte of the next request on a kept connection
            super().data_received(data)
            if self.conn.their_state is not h11.IDLE:
                self._disarm()  # the head is whole (h11 moved on to the body or its end)

        def _awaiting_head(self) -> bool:
            return self.conn.their_state is h11.IDLE

    return GuardedH11Protocol


#: What h11 takes as a request target (RFC 9112 §3.2, h11's ``request_target``: 1*VCHAR).
_TARGET = re.compile(rb"[\x21-\x7e]+")


class BadTarget(Exception):
    """A request target h11 would refuse (raised inside httptools' callback: uvicorn answers
    400 and closes the connection)."""


def _httptools_protocol(head_timeout: float, max_connections_per_client: int) -> type[Any]:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class GuardedHttpToolsProtocol(_Guard, HttpToolsProtocol):
        bounds = _Bounds(head_timeout, max_connections_per_client)
        _target = b""

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._target = b""
            if self._head_timer is None:
                self._arm()  # the first byte of the next request on a kept connection

        def on_url(self, url: bytes) -> None:
            # The target is kept whole here; uvicorn's own parse (httptools.parse_url) is
            # given "/" and its path, raw path and query are replaced below.
            self._target += url
            self.url = b"/"

        def on_headers_complete(self) -> None:
            self._disarm()  # the head is whole
            target = self._target
            if _TARGET.fullmatch(target) is None:
                raise BadTarget("a request target h11 would refuse")
            super().on_headers_complete()
            # (the request's task has not run yet: the scope it will get is still this one)
            raw_path, _, query = target.partition(b"?")
            path = raw_path.decode("ascii")
            if "%" in path:
                path = unquote(path)
            self.scope["path"] = self.root_path + path
            self.scope["raw_path"] = self.root_path.encode("ascii") + raw_path
            self.scope["query_string"] = query

    return GuardedHttpToolsProtocol


__all__ = ["guarded_protocol"]
