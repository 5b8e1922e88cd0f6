"""Proxies for the tests of ``-x``: a SOCKS5 server (RFC 1928; with ``login``, RFC 1929's
username/password) and an HTTP proxy (absolute-form ``http://`` requests forwarded,
``GET ftp://…`` answered by fetching the URL with omniurl as squid would, ``CONNECT``
tunnels; with ``login``, a 407 without the right ``Proxy-Authorization``; with ``tls``, an
``https://`` proxy), each recording
the targets it was asked for — so a test sees whether a name or an address reached the
proxy — and the HTTP proxy every request head as received."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import ssl
import struct
from types import TracebackType


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (OSError, asyncio.CancelledError):
        pass
    finally:
        with contextlib.suppress(OSError):
            writer.close()


async def _splice(
    a: tuple[asyncio.StreamReader, asyncio.StreamWriter],
    b: tuple[asyncio.StreamReader, asyncio.StreamWriter],
) -> None:
    await asyncio.gather(_pipe(a[0], b[1]), _pipe(b[0], a[1]))


def _origin_form(head: bytes) -> bytes:
    """A request head with its absolute-form target (``GET http://h:p/x HTTP/1.1``) in
    origin form (``GET /x HTTP/1.1``), as a proxy forwards it (RFC 9112 §3.2.2)."""
    line, _, rest = head.partition(b"\r\n")
    method, target, version = line.split(b" ", 2)
    if b"://" in target:
        target = b"/" + target.split(b"://", 1)[1].partition(b"/")[2]
    return b" ".join((method, target, version)) + b"\r\n" + rest


class _Server:
    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        #: With a server context, clients speak TLS to the proxy (an ``https://`` proxy).
        self.tls = tls
        self.port = 0
        self.targets: list[tuple[str, int]] = []
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        raise NotImplementedError

    async def _track(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            await self.handle(reader, writer)
        except (OSError, asyncio.IncompleteReadError, asyncio.CancelledError, ValueError):
            pass
        finally:
            self._tasks.discard(task)
            with contextlib.suppress(OSError):
                writer.close()

    async def __aenter__(self) -> _Server:
        self._server = await asyncio.start_server(self._track, "127.0.0.1", 0, ssl=self.tls)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(
        self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        assert self._server is not None
        self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._server.wait_closed(), 2)


class Socks5Server(_Server):
    """RFC 1928: method 0 (no authentication) or, with ``login``, only method 2 (RFC 1929);
    CONNECT to IPv4, IPv6 or a domain name."""

    def __init__(self, login: tuple[str, str] | None = None) -> None:
        super().__init__()
        self.login = login
        #: The (user, password) pairs offered, in order.
        self.logins: list[tuple[str, str]] = []

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readexactly(2)
        methods = await reader.readexactly(head[1])
        if self.login is None:
            writer.write(b"\x05\x00")
        elif 2 not in methods:
            writer.write(b"\x05\xff")
            return
        else:
            writer.write(b"\x05\x02")
            _v, ulen = await reader.readexactly(2)
            user = (await reader.readexactly(ulen)).decode()
            password = (await reader.readexactly((await reader.readexactly(1))[0])).decode()
            self.logins.append((user, password))
            if (user, password) != self.login:
                writer.write(b"\x01\x01")
                return
            writer.write(b"\x01\x00")
        _ver, _cmd, _rsv, kind = await reader.readexactly(4)
        if kind == 1:
            host = str(ipaddress.IPv4Address(await reader.readexactly(4)))
        elif kind == 4:
            host = str(ipaddress.IPv6Address(await reader.readexactly(16)))
        else:
            host = (await reader.readexactly((await reader.readexactly(1))[0])).decode()
        (port,) = struct.unpack("!H", await reader.readexactly(2))
        self.targets.append((host, port))
        try:
            upstream = await asyncio.open_connection(host, port)
        except OSError:
            writer.write(b"\x05\x05\x00\x01\x00\x00\x00\x00\x00\x00")
            return
        writer.write(b"\x05\x00\x00\x01\x7f\x00\x00\x01" + struct.pack("!H", port))
        await writer.drain()
        await _splice((reader, writer), upstream)


class HTTPProxy(_Server):
    """``CONNECT host:port`` tunnels; absolute-form ``GET http://…`` forwarded to the origin
    in origin form, request by request on a kept connection; ``GET ftp://…`` fetched.  The
    login check and the forms are written here from the RFCs, never with omniurl's own
    encoders, so a test of omniurl's bytes is not omniurl checking itself."""

    def __init__(
        self, login: tuple[str, str] | None = None, tls: ssl.SSLContext | None = None
    ) -> None:
        super().__init__(tls)
        self.login = login
        self.request_lines: list[bytes] = []
        #: Every request head as received, CRLFs and all.
        self.heads: list[bytes] = []

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        line = head.split(b"\r\n", 1)[0]
        self.request_lines.append(line)
        self.heads.append(head)
        method, target, _version = line.split(b" ", 2)
        if self.login is not None:
            import base64

            token = base64.b64encode(":".join(self.login).encode()).decode()
            if f"\r\nProxy-Authorization: Basic {token}\r\n".encode() not in head:
                writer.write(
                    b"HTTP/1.1 407 Proxy Authentication Required\r\n"
                    b'Proxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\n\r\n'
                )
                await writer.drain()
                return
        if method == b"GET" and not target.startswith(b"http://"):
            await self._fetch_for_client(target.decode(), writer)
            return
        if method == b"CONNECT":
            host, _, port = target.decode().rpartition(":")
            self.targets.append((host.strip("[]"), int(port)))
            upstream = await asyncio.open_connection(host.strip("[]"), int(port))
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            await writer.drain()
            await _splice((reader, writer), upstream)
            return
        # absolute form: forward to the origin the URL names, each request (GETs, no body) in
        # origin form, the rest as received; the connection kept for the client's next one
        rest = target.decode().split("://", 1)[1]
        authority = rest.partition("/")[0]
        host, _, port = authority.rpartition(":") if ":" in authority else (authority, "", "80")
        self.targets.append((host, int(port)))
        upstream = await asyncio.open_connection(host, int(port))
        answers = asyncio.ensure_future(_pipe(upstream[0], writer))
        try:
            while True:
                upstream[1].write(_origin_form(head))
                await upstream[1].drain()
                head = await reader.readuntil(b"\r\n\r\n")
                self.request_lines.append(head.split(b"\r\n", 1)[0])
                self.heads.append(head)
        finally:
            upstream[1].close()
            await answers

    async def _fetch_for_client(self, url: str, writer: asyncio.StreamWriter) -> None:
        """``GET ftp://…``: fetch the URL (omniurl's resolver, loopback allowed) and send it
        back as one HTTP response, as squid does; an error is a 502 naming it."""
        from omniurl import resolvers
        from omniurl.resolvers.options import Options
        from omniurl.schemes import parse

        self.targets.append((url, 0))
        try:
            async with resolvers.resolve(parse(url), Options()) as resource:
                body = await resource.read()
        except Exception as exc:  # the test proxy says what went wrong, as a 502
            text = f"{type(exc).__name__}: {exc}".encode()
            writer.write(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: %d\r\n\r\n" % len(text))
            writer.write(text)
            await writer.drain()
            return
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
            b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body)
        )
        writer.write(body)
        await writer.drain()


__all__ = ["HTTPProxy", "Socks5Server"]
