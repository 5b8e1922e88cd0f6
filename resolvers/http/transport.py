"""The httpx path, for the proxies omniurl's own connections do not speak: a proxy from the
environment (``--proxy-env``: the plan cannot know it) and an ``https://`` proxy (TLS to the
proxy).  Every other request goes out on :mod:`resolvers.http.connection`, byte for byte as
planned; here httpcore serialises the request (the plan's fields, in its order) itself.

httpx resolves and connects by itself; left alone it would skip the strict policy's address
check (and ``--resolve``), and a name that resolves to a public address when checked and to
127.0.0.1 when httpx connects (DNS rebinding) would get through.  So httpcore is given a
network backend whose ``connect_tcp`` asks :func:`resolvers.net.resolve_addresses` — mapping,
DNS and the address check in one place — and connects to the checked address itself.  TLS
still verifies the URL's host name (httpcore passes it as the SNI and checks the
certificate against it), not the address.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl
import typing
import urllib.parse
import urllib.request
from collections.abc import AsyncIterator, Iterator
from contextvars import ContextVar

import httpcore
import httpx

from ..errors import (
    ConfigurationError,
    ConnectError,
    ConnectionClosed,
    ProtocolError,
    ResolveError,
    ResolveTimeout,
    TransportError,
)
from ..net import open_socket, recv_ready, resolve_addresses
from ..options import Options
from .reply import Head

#: Set when the peer of the connection being read closed it (a read gave ``b""``).  The
#: executor resets it before each request and before the body, and tells a premature close
#: (:class:`ConnectionClosed`) from a malformed reply by this state, not by an error's text.
PEER_CLOSED: ContextVar[bool] = ContextVar("omniurl_http_peer_closed", default=False)


def _seen(data: bytes) -> bytes:
    if not data:
        PEER_CLOSED.set(True)
    return data


class EOFWatch(httpcore.AsyncNetworkStream):
    """httpcore's own stream (TLS, proxies), noting the peer's close in :data:`PEER_CLOSED`."""

    def __init__(self, inner: httpcore.AsyncNetworkStream) -> None:
        self.inner = inner

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return _seen(await self.inner.read(max_bytes, timeout))

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        await self.inner.write(buffer, timeout)

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.AsyncNetworkStream:
        return EOFWatch(await self.inner.start_tls(ssl_context, server_hostname, timeout))

    def get_extra_info(self, info: str) -> typing.Any:
        return self.inner.get_extra_info(info)


class SocketStream(httpcore.AsyncNetworkStream):
    """A plain-TCP stream for httpcore straight on a non-blocking socket.

    Bulk reads go through ``loop.sock_recv`` — the same path as FTP's data connection
    (:func:`resolvers.net.recv_chunks`) — instead of anyio's stream layers; every wait is
    bounded by httpcore's timeout.  TLS connections use httpcore's
    anyio backend instead (see :class:`PolicyBackend`).
    """

    def __init__(self, sock: socket.socket, read_size: int) -> None:
        self.sock = sock
        self.read_size = read_size

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        loop = asyncio.get_running_loop()
        # httpcore always asks for 64 KiB; we read up to our (larger) read size: h11 takes any
        # amount, and fewer, larger reads are what make bulk transfers fast (one pass through
        # h11 and httpx per read).  recv fills a new bytes object: one copy.  What the kernel
        # holds already is taken without a deadline to set up (recv_ready); a read that
        # waits is bounded by httpcore's timeout.
        size = max(max_bytes, self.read_size)
        try:
            data = recv_ready(self.sock, size)
            if data is not None:
                return _seen(data)
            async with asyncio.timeout(timeout):
                return _seen(await loop.sock_recv(self.sock, size))
        except TimeoutError:
            raise httpcore.ReadTimeout(f"no data for {timeout} s") from None
        except OSError as exc:
            raise httpcore.ReadError(str(exc)) from None

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not buffer:
            # h11 ends a request without a body with b"": a send(2) of nothing cost 2 of
            # every 3 syscalls of a small GET (profiled: 6,000 sends for 2,000 requests).
            return
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout):
                await loop.sock_sendall(self.sock, buffer)
        except TimeoutError:
            raise httpcore.WriteTimeout(f"could not send for {timeout} s") from None
        except OSError as exc:
            raise httpcore.WriteError(str(exc)) from None

    async def aclose(self) -> None:
        self.sock.close()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.AsyncNetworkStream:
        """TLS on this socket: https through a SOCKS proxy (the socket is the tunnel)."""
        import anyio
        from anyio.streams.tls import TLSStream

        plain = None
        try:
            with anyio.fail_after(timeout):
                plain = await anyio.abc.SocketStream.from_socket(self.sock)
                tls = await TLSStream.wrap(
                    plain,
                    hostname=server_hostname,
                    ssl_context=ssl_context,
                    standard_compatible=False,
                )
        except BaseException as exc:
            # httpcore does not close a stream whose handshake failed: we do (as its anyio
            # stream does), so no socket is left open.
            if plain is not None:
                await plain.aclose()
            self.sock.close()
            if isinstance(exc, TimeoutError):
                raise httpcore.ConnectTimeout(f"no TLS handshake within {timeout} s") from None
            if isinstance(
                exc, (OSError, ssl.SSLError, anyio.BrokenResourceError, anyio.EndOfStream)
            ):
                raise httpcore.ConnectError(str(exc) or type(exc).__name__) from None
            raise
        return TLSSocketStream(tls, self.sock)

    def get_extra_info(self, info: str) -> typing.Any:
        if info == "socket":
            return self.sock
        if info == "client_addr":
            return self.sock.getsockname()
        if info == "server_addr":
            return self.sock.getpeername()
        if info == "is_readable":
            return _readable(self.sock)
        return None


def _readable(sock: socket.socket) -> bool:
    """httpcore's "is_readable": a kept-alive connection that became readable was closed by
    the server.  A non-blocking peek, not select.select: select fails on descriptor numbers
    >= 1024 (FD_SETSIZE), which a program with many files open reaches."""
    try:
        sock.recv(1, socket.MSG_PEEK)
    except BlockingIOError:
        return False
    except OSError:
        return True
    return True


class TLSSocketStream(httpcore.AsyncNetworkStream):
    """An anyio TLS stream as httpcore's stream (what :meth:`SocketStream.start_tls` makes)."""

    def __init__(self, tls: typing.Any, sock: socket.socket) -> None:
        self.tls = tls
        self.sock = sock  # the same descriptor, for a non-blocking peek

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        import anyio

        try:
            with anyio.fail_after(timeout):
                return _seen(await self.tls.receive(max_bytes))
        except anyio.EndOfStream:
            return _seen(b"")
        except TimeoutError:
            raise httpcore.ReadTimeout(f"no data for {timeout} s") from None
        except (OSError, ssl.SSLError, anyio.BrokenResourceError) as exc:
            raise httpcore.ReadError(str(exc) or type(exc).__name__) from None

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        import anyio

        if not buffer:
            return
        try:
            with anyio.fail_after(timeout):
                await self.tls.send(buffer)
        except TimeoutError:
            raise httpcore.WriteTimeout(f"could not send for {timeout} s") from None
        except (OSError, ssl.SSLError, anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
            raise httpcore.WriteError(str(exc) or type(exc).__name__) from None

    async def aclose(self) -> None:
        import anyio

        with anyio.CancelScope(shield=True), anyio.move_on_after(1):
            await self.tls.aclose()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.AsyncNetworkStream:  # pragma: no cover - TLS in TLS: an https proxy
        raise httpcore.ConnectError("TLS inside TLS is not supported")

    def get_extra_info(self, info: str) -> typing.Any:
        import anyio.streams.tls

        if info == "ssl_object":
            return self.tls.extra(anyio.streams.tls.TLSAttribute.ssl_object, None)
        if info == "is_readable":
            return _readable(self.sock)
        return None


class PolicyBackend(httpcore.AsyncNetworkBackend):
    """Connect only to addresses the policy accepted (after ``--resolve`` and DNS).

    ``plain=True`` (an ``http:`` URL without a proxy) connects our own
    :class:`SocketStream`; otherwise httpcore's anyio backend connects to the checked
    address, so TLS works as httpcore expects.
    """

    def __init__(self, options: Options, *, plain: bool = False) -> None:
        self.options = options
        self.plain = plain
        self.inner = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: typing.Iterable[typing.Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        if self.plain:
            try:
                sock = await open_socket(host, port, self.options)
            except ResolveTimeout as exc:
                raise httpcore.ConnectTimeout(str(exc)) from None
            except ConnectError as exc:
                raise httpcore.ConnectError(str(exc)) from None
            return SocketStream(sock, max(self.options.chunk_size, 64 * 1024))
        addresses = await resolve_addresses(host, port, self.options)
        last: Exception | None = None
        for address, to_port in addresses:
            self.options.note("*", f"connecting to {address} port {to_port}")
            try:
                stream = await self.inner.connect_tcp(
                    address,
                    to_port,
                    timeout=timeout,
                    local_address=local_address,
                    socket_options=socket_options,
                )
                return EOFWatch(stream)
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
    """Verified TLS by default; trust anchors, client certificate and floor from resolvers.tls."""
    from ..tls import ssl_context as build

    return build(options)


def env_proxy(scheme: str, host: str) -> str | None:
    """The proxy the environment names for this URL (only used with ``trust_env``)."""
    if urllib.request.proxy_bypass(host):
        return None
    proxy = urllib.request.getproxies().get(scheme)
    if proxy is not None:
        _check_proxy(proxy)
    return proxy


def _check_proxy(proxy: str) -> None:
    """An ``http://`` or ``https://`` URL with a host and a valid port (httpcore speaks only
    the HTTP proxy protocol); anything else is said here, not as a ValueError or KeyError
    from deep inside httpcore."""
    why = ""
    try:
        _port = urllib.parse.urlsplit(proxy).port  # httpcore parses it so: "[", ports checked
        url = httpx.URL(proxy)
        if url.scheme not in ("http", "https"):
            why = "only http:// and https:// proxies are supported"
        elif not url.host:
            why = "it names no host"
    except (httpx.InvalidURL, ValueError) as exc:
        why = str(exc)
    if why:
        raise ConfigurationError(f"the proxy {proxy!r} from the environment is unusable: {why}")


class PolicyTransport(httpx.AsyncHTTPTransport):
    """httpx's transport with our backend: every connection passes ``resolve_addresses``.

    With ``Options.trust_env`` and a proxy in the environment for this URL, requests go
    through that proxy; the address check then applies to the proxy's address (the proxy,
    not omniurl, resolves the URL's host — say so to a user of the strict preset).
    """

    def __init__(
        self, options: Options, *, scheme: str, host: str, limits: httpx.Limits | None = None
    ) -> None:
        proxy = env_proxy(scheme, host) if options.trust_env else None
        given = None
        if options.proxy is not None:  # -x: wins over the environment
            from ..proxy import proxy_for

            given = proxy_for(host, options.proxy, options.noproxy)
            proxy = None
            if given is not None and not given.is_socks:
                proxy = str(given)
        #: The proxy requests go through (an absolute-form request target), or None.
        self.proxy = proxy
        plain = scheme == "http" and proxy is None
        # No TLS context for plain HTTP: building one loads the CA store, which costs more
        # than a small transfer.
        context = None if plain else ssl_context(options)
        super().__init__(verify=context or False, trust_env=False)
        # Through SOCKS (given, not an HTTP proxy) our socket path connects — the SOCKS
        # handshake is resolvers.net's — and https starts TLS on that tunnel.
        backend = PolicyBackend(options, plain=plain or (given is not None and proxy is None))
        # A client's shared pool (resolvers/http/pool.py) passes its bounds; one resolve's
        # own transport keeps httpcore's defaults.
        bounds: dict[str, typing.Any] = {}
        if limits is not None:
            bounds = {
                "max_connections": limits.max_connections,
                "max_keepalive_connections": limits.max_keepalive_connections,
                "keepalive_expiry": limits.keepalive_expiry,
            }
        pool: typing.Any
        if proxy is not None:
            options.note("*", f"using the proxy {proxy}")
            login = (given.user, given.password or "") if given and given.user else None
            pool = httpcore.AsyncHTTPProxy(
                proxy_url=proxy,
                proxy_auth=login,
                ssl_context=context,
                network_backend=backend,
                **bounds,
            )
        else:
            pool = httpcore.AsyncConnectionPool(
                ssl_context=context, network_backend=backend, **bounds
            )
        self._pool = pool


def needed(options: Options, scheme: str, host: str) -> bool:
    """Whether this request takes the httpx path: a proxy from the environment applies
    (``--proxy-env``), or ``-x https://`` (TLS to the proxy)."""
    if options.proxy is not None:
        from ..proxy import proxy_for

        spec = proxy_for(host, options.proxy, options.noproxy)
        return spec is not None and spec.scheme == "https"
    return options.trust_env and env_proxy(scheme, host) is not None


def _caused_by(exc: BaseException, kind: type[BaseException]) -> bool:
    """Whether ``kind`` is anywhere in ``exc``'s chain of causes."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, kind):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


@contextlib.contextmanager
def typed_errors(what: str) -> Iterator[None]:
    """httpx's exceptions as omniurl's error tree (never a raw library traceback), by type:
    the exception class, its chain of causes, and whether the peer closed the connection
    (:data:`PEER_CLOSED`) — never by an error message's words."""
    try:
        yield
    except ResolveError:
        raise
    except httpx.TimeoutException as exc:
        raise ResolveTimeout(f"timed out {what}: {exc or type(exc).__name__}") from None
    except httpx.ConnectError as exc:
        if _caused_by(exc, ssl.SSLCertVerificationError):
            raise ConnectError(
                f"TLS certificate verification failed {what}: {exc} (--insecure skips it)",
                component="host",
            ) from None
        raise ConnectError(f"cannot connect {what}: {exc}", component="host") from None
    except httpx.RemoteProtocolError as exc:
        if PEER_CLOSED.get():
            raise ConnectionClosed(f"the server closed the connection {what}: {exc}") from None
        raise ProtocolError(f"the server broke HTTP {what}: {exc}") from None
    except httpx.ReadError as exc:
        raise ConnectionClosed(f"the connection broke {what}: {exc}") from None
    except httpx.TransportError as exc:
        raise TransportError(f"network failure {what}: {exc or type(exc).__name__}") from None


class HttpxConnection:
    """The httpx path with :class:`~resolvers.http.connection.Connection`'s face: a planned
    head in (taken apart into httpx's request: its target kept as planned), a
    :class:`~resolvers.http.reply.Head` out, then the body."""

    def __init__(self, options: Options, scheme: str, host: str, port: int | None) -> None:
        self.transport = PolicyTransport(options, scheme=scheme, host=host)
        self.options = options
        self.origin = (scheme, host, port)
        self.reusable = False
        self._response: httpx.Response | None = None

    async def exchange(self, head: bytes, method: str) -> tuple[Head, object]:
        scheme, host, port = self.origin
        line, *fields = head.decode("utf-8", "surrogateescape").rstrip("\r\n").split("\r\n")
        target = line.split(" ")[1]
        headers = [(n, v) for n, _, v in (f.partition(": ") for f in fields)]
        extensions: dict[str, object] = {
            "timeout": {
                "connect": self.options.connect_timeout,
                "read": self.options.read_timeout,
                "write": self.options.read_timeout,
                "pool": self.options.connect_timeout,
            }
        }
        if self.transport.proxy is None:  # (through a proxy httpcore builds the target)
            extensions["target"] = target.encode("utf-8", "surrogateescape")
        path = target if target.startswith("/") else "/"
        request = httpx.Request(
            method,
            httpx.URL(
                scheme=scheme,
                host=host,
                port=port,
                raw_path=path.encode("utf-8", "surrogateescape"),
            ),
            headers=headers,
            extensions=extensions,
        )
        await self._close_response()
        PEER_CLOSED.set(False)
        with typed_errors(f"fetching {scheme}://{host}"):
            response = await self.transport.handle_async_request(request)
        self._response = response
        reason = response.extensions.get("reason_phrase", b"")
        head_ = Head(
            response.http_version,
            response.status_code,
            reason.decode("ascii", "ignore") if isinstance(reason, bytes) else str(reason),
            tuple(response.headers.multi_items()),
        )
        return head_, None

    async def body(
        self, reader: object, views: typing.Callable[[], bool] = lambda: False
    ) -> AsyncIterator[bytes]:
        assert self._response is not None
        PEER_CLOSED.set(False)
        with typed_errors(f"reading {self.origin[0]}://{self.origin[1]}"):
            async for chunk in self._response.aiter_raw():
                yield chunk

    async def drain(self, reader: object, limit: int = 1 << 20) -> None:
        await self._close_response()

    async def _close_response(self) -> None:
        if self._response is not None:
            await self._response.aclose()
            self._response = None

    async def aclose(self) -> None:
        await self._close_response()
        await self.transport.aclose()


__all__ = [
    "PEER_CLOSED",
    "EOFWatch",
    "HttpxConnection",
    "PolicyBackend",
    "PolicyTransport",
    "env_proxy",
    "needed",
    "ssl_context",
    "typed_errors",
]
