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
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

_408 = (
    b"HTTP/1.1 408 Request Timeout\r\nContent-Type: text/plain; charset=utf-8\r\n"
    b"Connection: close\r\nContent-Length: 33\r\n\r\nthe request head came too slowly\n"
)
_429 = (
    b"HTTP/1.1 429 Too Many Requests\r\nContent-Type: text/plain; charset=utf-8\r\n"
    b"Connection: close\r\nContent-Length: 44\r\n\r\ntoo many connections from this address open\n"
)


def guarded_protocol(*, head_timeout: float, max_connections_per_client: int) -> type[Any]:
    """An ``H11Protocol`` class with the two bounds; one per server (its own counts)."""
    per_client: dict[str, int] = {}

    class GuardedH11Protocol(H11Protocol):
        _head_timer: asyncio.TimerHandle | None = None
        _address: str | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            address = self.client[0] if self.client else "?"
            if per_client.get(address, 0) >= max_connections_per_client:
                transport.write(_429)
                transport.close()
                return
            self._address = address
            per_client[address] = per_client.get(address, 0) + 1
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            if self._address is not None:
                left = per_client[self._address] - 1
                if left:
                    per_client[self._address] = left
                else:
                    del per_client[self._address]
                self._address = None
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            if self._head_timer is None and self.conn.their_state is h11.IDLE:
                self._arm()  # the first byte of the next request on a kept connection
            super().data_received(data)
            if self.conn.their_state is not h11.IDLE:
                self._disarm()  # the head is whole (h11 moved on to the body or its end)

        def _arm(self) -> None:
            self._disarm()
            self._head_timer = self.loop.call_later(head_timeout, self._head_too_slow)

        def _disarm(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _head_too_slow(self) -> None:
            self._head_timer = None
            if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
                return
            self._unset_keepalive_if_required()
            self.transport.write(_408)
            self.transport.close()

    return GuardedH11Protocol


__all__ = ["guarded_protocol"]
