"""Network plumbing every executor shares: connect, bounded reads, timeouts.

Every wait is bounded (``Options.connect_timeout`` / ``read_timeout``), every line is bounded
(``Options.max_line``), and every failure comes out as a typed :mod:`resolvers.errors` error —
never a bare ``OSError`` or ``asyncio.TimeoutError`` from deep inside the standard library.

:func:`resolve_addresses` is where the strict policy's address rules are applied: after DNS
(and after the ``--resolve`` mapping), before ``connect()``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import ipaddress
import socket
import ssl
from collections.abc import AsyncIterator, Awaitable
from typing import TypeVar

from .errors import (
    ConnectError,
    ConnectionClosed,
    LimitExceeded,
    ResolveTimeout,
)
from .options import Options

T = TypeVar("T")


async def with_timeout(awaitable: Awaitable[T], timeout: float, what: str) -> T:
    """Await with a deadline; a timeout becomes :class:`ResolveTimeout` naming ``what``."""
    try:
        return await asyncio.wait_for(awaitable, timeout)
    except TimeoutError:
        raise ResolveTimeout(f"timed out after {timeout:g} s {what}") from None


async def resolve_addresses(
    host: str, port: int, options: Options, *, transport: str = "tcp"
) -> list[tuple[str, int]]:
    """The ``(address, port)`` pairs to try for ``host:port``, checked against the policy.

    The ``--resolve`` mapping is applied first; then DNS (bounded by the connect timeout);
    then every address is checked, so a name that resolves to a forbidden address is refused
    before a connection is attempted.
    """
    mapped_host, mapped_port = options.map_address(host, port)
    if mapped_host != host or mapped_port != port:
        options.note("*", f"{host}:{port} mapped to {mapped_host}:{mapped_port} (--resolve)")
    if mapped_host.startswith(("[v", "[V")):
        raise ConnectError(
            f"{mapped_host} is an IPvFuture address literal (RFC 3986 §3.2.2): omniurl knows "
            "no protocol to reach it, and looks nothing up",
            component="host",
        )
    bare = mapped_host[1:-1] if mapped_host.startswith("[") else mapped_host
    if _is_ip_literal(bare):
        # An address already: no lookup (and no hop through the resolver's thread pool).
        options.policy.check_address(bare, host=host)
        return [(bare, mapped_port)]
    loop = asyncio.get_running_loop()
    kind = socket.SOCK_DGRAM if transport == "udp" else socket.SOCK_STREAM
    try:
        infos = await with_timeout(
            loop.getaddrinfo(bare, mapped_port, type=kind),
            options.connect_timeout,
            f"looking up {bare}",
        )
    except socket.gaierror as exc:
        raise ConnectError(
            f"cannot resolve host {bare}: {exc.strerror}", component="host"
        ) from None
    except UnicodeError as exc:
        # The IDNA codec refuses the name before any query (RFC 1035 §2.3.4: a label is at
        # most 63 octets, and none is empty; or a character IDNA does not allow).
        raise ConnectError(
            f"cannot resolve host {bare}: DNS cannot carry the name ({exc})", component="host"
        ) from None
    addresses: list[tuple[str, int]] = []
    for _family, _type, _proto, _canon, sockaddr in infos:
        address = str(sockaddr[0])
        options.policy.check_address(address, host=host)
        if (address, mapped_port) not in addresses:
            addresses.append((address, mapped_port))
    if not addresses:
        raise ConnectError(f"host {bare} has no address", component="host")
    return addresses


@functools.lru_cache(maxsize=1024)
def _is_ip_literal(host: str) -> bool:
    """A dotted IPv4 or an IPv6 address (what getaddrinfo would hand back unchanged).

    Cached: a pure function of the text, asked once per connection, and ``ip_address``
    costs more than the rest of the address check (many requests go to few hosts).
    """
    if not host or not (host[0].isdigit() or ":" in host):
        return False
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


async def open_tcp(
    host: str,
    port: int,
    options: Options,
    *,
    limit: int | None = None,
    tls: ssl.SSLContext | None = None,
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Connect to ``host:port`` (policy-checked addresses, bounded), as asyncio streams;
    with ``tls``, the TLS handshake (the certificate checked for ``host``) is part of it."""
    if options.proxy is not None:
        from .proxy import proxy_for

        if proxy_for(host, options.proxy, options.noproxy) is not None:
            sock = await open_socket(host, port, options)  # (through the proxy)
            try:
                return await with_timeout(
                    asyncio.open_connection(
                        sock=sock,
                        limit=limit or options.max_line + 2,
                        ssl=tls,
                        server_hostname=tls_name(host) if tls is not None else None,
                    ),
                    options.connect_timeout,
                    f"connecting to {host}:{port}",
                )
            except ssl.SSLError as exc:
                sock.close()
                raise tls_error(exc, host, port) from None
    addresses = await resolve_addresses(host, port, options)
    last: Exception | None = None
    for address, to_port in addresses:
        options.note("*", f"connecting to {address} port {to_port}")
        try:
            return await with_timeout(
                asyncio.open_connection(
                    address,
                    to_port,
                    limit=limit or options.max_line + 2,
                    ssl=tls,
                    server_hostname=tls_name(host) if tls is not None else None,
                ),
                options.connect_timeout,
                f"connecting to {host}:{port}",
            )
        except ResolveTimeout as exc:
            last = exc
        except ssl.SSLError as exc:
            raise tls_error(exc, host, port) from None
        except OSError as exc:
            last = exc
    if isinstance(last, ResolveTimeout):
        raise last
    reason = last.strerror if isinstance(last, OSError) and last.strerror else str(last)
    raise ConnectError(f"cannot connect to {host}:{port}: {reason}", component="host")


def tls_name(host: str) -> str:
    """The name a certificate is checked against: the host without brackets or zone id."""
    return host.strip("[]").split("%", 1)[0]


def tls_error(exc: ssl.SSLError, host: str, port: int) -> ConnectError:
    """A failed TLS handshake as omniurl's error, saying whether the certificate was to blame."""
    if isinstance(exc, ssl.SSLCertVerificationError):
        return ConnectError(
            f"TLS certificate verification failed for {host}:{port}: "
            f"{exc.verify_message or exc} (--cacert FILE trusts a CA; --insecure skips the check)",
            component="host",
        )
    return ConnectError(f"TLS handshake with {host}:{port} failed: {exc}", component="host")


async def start_tls(
    writer: asyncio.StreamWriter, host: str, port: int, context: ssl.SSLContext, options: Options
) -> None:
    """Upgrade a connection in place (STARTTLS, AUTH TLS), bounded by the connect timeout."""
    try:
        await with_timeout(
            writer.start_tls(context, server_hostname=tls_name(host)),
            options.connect_timeout,
            f"in the TLS handshake with {host}:{port}",
        )
    except ssl.SSLError as exc:
        raise tls_error(exc, host, port) from None
    except (ConnectionError, OSError) as exc:
        raise ConnectionClosed(f"the connection broke in the TLS handshake: {exc}") from None


async def read_line(reader: asyncio.StreamReader, options: Options, *, what: str) -> bytes:
    """One CRLF- or LF-terminated line without its ending; bounded in length and time.

    Raises :class:`ConnectionClosed` at end of stream, :class:`LimitExceeded` for a line longer
    than ``options.max_line``.
    """
    try:
        line = await with_timeout(
            reader.readuntil(b"\n"), options.read_timeout, f"waiting for {what}"
        )
    except asyncio.IncompleteReadError as exc:
        if exc.partial:
            raise ConnectionClosed(
                f"connection closed in the middle of {what} (after {len(exc.partial)} bytes)"
            ) from None
        raise ConnectionClosed(f"connection closed while waiting for {what}") from None
    except asyncio.LimitOverrunError:
        raise LimitExceeded(f"{what}: line longer than {options.max_line} bytes") from None
    except (ConnectionError, OSError) as exc:
        raise ConnectionClosed(f"connection lost while waiting for {what}: {exc}") from None
    if len(line) > options.max_line + 2:
        raise LimitExceeded(f"{what}: line longer than {options.max_line} bytes")
    return line[:-2] if line.endswith(b"\r\n") else line[:-1]


async def read_chunks(
    reader: asyncio.StreamReader, options: Options, *, what: str, size: int | None = None
) -> AsyncIterator[bytes]:
    """Stream the rest of the connection (or exactly ``size`` bytes), bounded per read."""
    remaining = size
    while remaining is None or remaining > 0:
        n = options.chunk_size if remaining is None else min(options.chunk_size, remaining)
        try:
            chunk = await with_timeout(reader.read(n), options.read_timeout, f"reading {what}")
        except (ConnectionError, OSError) as exc:
            raise ConnectionClosed(f"connection lost while reading {what}: {exc}") from None
        if not chunk:
            if remaining is not None:
                raise ConnectionClosed(
                    f"connection closed with {remaining} bytes of {what} still to come"
                )
            return
        if remaining is not None:
            remaining -= len(chunk)
        yield chunk


async def close_writer(writer: asyncio.StreamWriter) -> None:
    """Close a stream writer without ever raising or hanging."""
    writer.close()
    with contextlib.suppress(TimeoutError, OSError, ConnectionError):
        await asyncio.wait_for(writer.wait_closed(), 2)


# -- raw sockets for bulk data (FTP data connections, plain HTTP) ---------------------------


async def open_socket(host: str, port: int, options: Options) -> socket.socket:
    """Connect a non-blocking socket to ``host:port`` (policy-checked addresses, bounded).

    For bulk transfers, where :func:`recv_chunks` reads straight from the socket instead of
    going through a ``StreamReader`` (one copy fewer, no task per read).
    """
    loop = asyncio.get_running_loop()
    if options.proxy is not None:
        from .proxy import proxy_for

        spec = proxy_for(host, options.proxy, options.noproxy)
        if spec is not None:
            return await _via_proxy(host, port, options, spec)
    addresses = await resolve_addresses(host, port, options)
    last: Exception | None = None
    for address, to_port in addresses:
        options.note("*", f"connecting to {address} port {to_port}")
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        try:
            sock = socket.socket(family, socket.SOCK_STREAM)
        except OSError as exc:  # EMFILE/ENFILE: out of file descriptors, a typed error
            raise ConnectError(
                f"cannot open a socket for {host}:{port}: {exc.strerror or exc}",
                component="host",
            ) from None
        sock.setblocking(False)
        try:
            # asyncio.timeout, not wait_for: the same bound without a task per connect (the
            # cost that shows when many small requests each open a connection).
            async with asyncio.timeout(options.connect_timeout):
                await loop.sock_connect(sock, (address, to_port))
            return sock
        except TimeoutError:
            sock.close()
            last = ResolveTimeout(
                f"timed out after {options.connect_timeout:g} s connecting to {host}:{port}"
            )
        except OSError as exc:
            sock.close()
            last = exc
        except BaseException:
            sock.close()
            raise
    if isinstance(last, ResolveTimeout):
        raise last
    reason = last.strerror if isinstance(last, OSError) and last.strerror else str(last)
    raise ConnectError(f"cannot connect to {host}:{port}: {reason}", component="host")


async def _via_proxy(host: str, port: int, options: Options, spec: object) -> socket.socket:
    """A socket connected to ``host:port`` through a SOCKS5 proxy or an HTTP ``CONNECT``
    tunnel (resolvers.proxy).  The proxy's address passes the policy as any connection
    does; so does the URL's host where omniurl resolves it (socks5) or it is an address
    literal (socks5h, CONNECT: the proxy resolves a name)."""
    from .http.planner import shown_field
    from .proxy import (
        ProxySpec,
        connect_request,
        http_connect_request,
        parse_connect_reply,
        parse_http_connect_reply,
        parse_login_reply,
        parse_method_reply,
        socks_greeting,
        socks_login,
    )

    assert isinstance(spec, ProxySpec)
    target = host
    if spec.scheme == "socks5":
        mapped = await resolve_addresses(host, port, options)  # (the policy, here)
        target, port = mapped[0]
    else:
        mapped_host, port = options.map_address(host, port)
        bare = mapped_host.strip("[]")
        target = bare
        if _is_ip_literal(bare.split("%", 1)[0]):
            options.policy.check_address(bare, host=host)
    options.note("*", f"through the proxy {spec} to {target} port {port}")
    sock = await open_socket(spec.host, spec.port, options.with_(proxy=None))
    loop = asyncio.get_running_loop()

    async def exchange(data: bytes, size: int) -> bytes:
        if data:
            await loop.sock_sendall(sock, data)
        got = b""
        while len(got) < size:
            chunk = await loop.sock_recv(sock, size - len(got))
            if not chunk:
                raise ConnectionClosed("the proxy closed the connection in its handshake")
            got += chunk
        return got

    try:
        async with asyncio.timeout(options.connect_timeout):
            if spec.is_socks:
                login = spec.user is not None
                method = parse_method_reply(await exchange(socks_greeting(login), 2), login=login)
                if method == 2:
                    parse_login_reply(
                        await exchange(socks_login(spec.user or "", spec.password or ""), 2)
                    )
                options.note(">", f"SOCKS5 CONNECT {target} port {port}")
                head = await exchange(connect_request(target, port), 5)
                await exchange(b"", parse_connect_reply(head))
                options.note("<", "SOCKS5 succeeded")
            else:
                request = http_connect_request(target, port, spec.authorization)
                for line in request.decode("latin-1").split("\r\n"):
                    name, _, value = line.partition(": ")
                    if line:
                        options.note(">", shown_field(name, value) or line)
                await loop.sock_sendall(sock, request)
                reply = b""
                while b"\r\n\r\n" not in reply:
                    chunk = await loop.sock_recv(sock, 1)  # (never past the reply's end)
                    if not chunk or len(reply) > 16384:
                        raise ConnectionClosed("the proxy ended its CONNECT reply early")
                    reply += chunk
                options.note("<", reply.split(b"\r\n", 1)[0].decode("latin-1"))
                parse_http_connect_reply(reply)
    except TimeoutError:
        sock.close()
        raise ResolveTimeout(
            f"timed out after {options.connect_timeout:g} s in the proxy handshake with {spec}"
        ) from None
    except BaseException:
        sock.close()
        raise
    return sock


def recv_ready(sock: socket.socket, size: int) -> bytes | None:
    """Up to ``size`` bytes the non-blocking ``sock`` holds already (``b""`` at EOF), or None
    when a read would have to wait; ``OSError`` as ``recv`` raises it."""
    try:
        return sock.recv(size)
    except (BlockingIOError, InterruptedError):
        return None


async def recv_chunks(
    sock: socket.socket, options: Options, *, what: str, size: int | None = None
) -> AsyncIterator[bytes]:
    """Stream what ``sock`` receives until EOF (or exactly ``size`` bytes), each wait bounded
    by the read timeout; ``ConnectionClosed`` if EOF comes before ``size`` bytes."""
    loop = asyncio.get_running_loop()
    remaining = size
    while remaining is None or remaining > 0:
        want = options.chunk_size if remaining is None else min(options.chunk_size, remaining)
        try:
            # What the kernel already holds is taken at once (loop.sock_recv tries the same
            # first, without yielding): no deadline to set up and cancel for a read that
            # cannot wait.  Only a read that must wait gets one — a fresh deadline per wait
            # (asyncio.timeout: no task per read, unlike wait_for), and none while the consumer
            # holds a chunk: the timeout bounds our waits only.  recv fills a new bytes object
            # straight from the kernel: one copy.
            chunk = recv_ready(sock, want)
            if chunk is None:
                async with asyncio.timeout(options.read_timeout):
                    chunk = await loop.sock_recv(sock, want)
        except TimeoutError:
            raise ResolveTimeout(
                f"timed out after {options.read_timeout:g} s reading {what}"
            ) from None
        except (ConnectionError, OSError) as exc:
            raise ConnectionClosed(f"connection lost while reading {what}: {exc}") from None
        if not chunk:
            if remaining is not None:
                raise ConnectionClosed(
                    f"connection closed with {remaining} bytes of {what} still to come"
                )
            return
        if remaining is not None:
            remaining -= len(chunk)
        yield chunk
