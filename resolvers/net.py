"""The one stream seam every executor shares: connect, bounded reads and writes, TLS, tunnels.

:class:`Stream` is omniurl's ``AsyncNetworkStream`` (httpcore's network backend is the model):
one connected byte stream — plain TCP on a non-blocking socket, TLS over it (from the first
byte, or upgraded in place: ``STARTTLS``, ``AUTH TLS``), through a SOCKS5 or HTTP ``CONNECT``
tunnel when a proxy applies — with ``read``/``readinto``/``write``/``start_tls``/``close``
and nothing protocol-specific.  :func:`connect` opens one.  The protocol machines
(``resolvers/<scheme>/machine.py`` and friends) never see it: an executor pumps bytes
between a :class:`Stream` and its machine.

Every wait is bounded (``Options.connect_timeout`` / ``read_timeout``), every line is bounded
(``Options.max_line``), and every failure comes out as a typed :mod:`resolvers.errors` error —
never a bare ``OSError`` or ``asyncio.TimeoutError`` from deep inside the standard library.

:func:`resolve_addresses` is where the strict policy's address rules are applied: after DNS
(and after the ``--resolve`` mapping), before ``connect()``.
"""

from __future__ import annotations

import asyncio
import errno
import functools
import os
import socket
import sys
from collections.abc import AsyncIterator, Awaitable, Callable

from . import early
from .errors import (
    ConfigurationError,
    ConnectError,
    ConnectionClosed,
    LimitExceeded,
    ProtocolError,
    ResolveTimeout,
    suppress,
)
from .options import Options

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing's import: ~9 ms of a get's start, docs/speed.md)
    import ssl
    from typing import Any, TypeVar

    from .proxy import ProxySpec

    T = TypeVar("T")


class _NoTLSError(Exception):
    """Raised by nothing: what :func:`ssl_errors` gives while no TLS can have happened."""


def ssl_errors() -> type[ssl.SSLError]:
    """``ssl.SSLError``, for an ``except`` clause, without importing the ssl module: while
    it is not loaded, no connection has spoken TLS and no such error exists, so a class
    nothing raises stands in.  A plain connection then never loads OpenSSL (~10 ms CPU of
    a get; the ``omniurl`` command imports asyncio without it: omniurl/sslimport.py)."""
    module = sys.modules.get("ssl")
    return _NoTLSError if module is None else module.SSLError  # type: ignore[return-value]


def authority(host: str, port: int | None) -> str:
    """``host:port`` as a URL writes it: an IPv6 address in brackets (RFC 3986 §3.2.2),
    ``[::1]:7070``, never the ambiguous ``::1:7070``."""
    bare = host.strip("[]")
    shown = f"[{bare}]" if ":" in bare else host
    return shown if port is None else f"{shown}:{port}"


def os_reason(exc: BaseException | None) -> str:
    """Why a connect failed, in the system's words ("Connection refused"), without
    asyncio's "Connect call failed ('::1', 7070, 0, 0)", which repeats the address."""
    if isinstance(exc, OSError) and exc.errno:
        return os.strerror(exc.errno)
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc)


async def with_timeout(awaitable: Awaitable[T], timeout: float, what: str) -> T:
    """Await with a deadline; a timeout becomes :class:`ResolveTimeout` naming ``what``."""
    try:
        return await asyncio.wait_for(awaitable, timeout)
    except TimeoutError:
        raise ResolveTimeout(f"timed out after {timeout:g} s {what}") from None


async def resolve_addresses(
    host: str,
    port: int,
    options: Options,
    *,
    transport: str = "tcp",
    checked_as: str | None = None,
) -> list[tuple[str, int]]:
    """The ``(address, port)`` pairs to try for ``host:port``, checked against the policy.

    The ``--resolve`` mapping is applied first; then DNS (bounded by the connect timeout);
    then every address is checked, so a name that resolves to a forbidden address is refused
    before a connection is attempted.  ``checked_as``: the host the policy checks the
    addresses for (default ``host``) — an FTP data connection goes to the address its control
    connection reached, allowed as the URL's host (``--allow-host NAME``), not as a literal.
    """
    if options.trace is not None:
        options.trace.begin()  # (the clock starts at the first lookup: curl's start)
    policy_host = checked_as or host
    mapped_host, mapped_port = options.map_address(host, port)
    if mapped_host != host or mapped_port != port:
        options.note(
            "*", f"{authority(host, port)} mapped to {mapped_host}:{mapped_port} (--resolve)"
        )
    if mapped_host.startswith(("[v", "[V")):
        raise ConnectError(
            f"{mapped_host} is an IPvFuture address literal (RFC 3986 §3.2.2): omniurl knows "
            "no protocol to reach it, and looks nothing up",
            component="host",
        )
    bare = mapped_host[1:-1] if mapped_host.startswith("[") else mapped_host
    if "%" in bare:
        bare = _zone_index(bare)
    if _is_ip_literal(bare):
        # An address already: no lookup (and no hop through the resolver's thread pool).
        options.policy.check_address(bare, host=policy_host)
        if options.trace is not None:
            options.trace.mark("namelookup")
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
        options.policy.check_address(address, host=policy_host)
        if (address, mapped_port) not in addresses:
            addresses.append((address, mapped_port))
    if not addresses:
        raise ConnectError(f"host {bare} has no address", component="host")
    if options.trace is not None:
        options.trace.mark("namelookup")
    return addresses


def _zone_index(address: str) -> str:
    """``addr%zone`` with the zone as its interface index (RFC 4007 §11.2: an implementation
    may take the index or the interface's name).  glibc's getaddrinfo maps a name only for a
    link-local address (``::1%lo`` fails with "Name or service not known"), so the name is
    mapped here, for every scope the policy lets take a zone (``check_zone``)."""
    head, _, zone = address.partition("%")
    if zone.isdigit():
        return address
    try:
        return f"{head}%{socket.if_nametoindex(zone)}"
    except OSError:
        raise ConnectError(
            f"the zone id {zone!r} of [{head}%25{zone}] names no network interface of this "
            "machine (RFC 6874: the zone is a local interface)",
            component="host",
        ) from None


@functools.lru_cache(maxsize=1024)
def _is_ip_literal(host: str) -> bool:
    """A dotted IPv4 or an IPv6 address (what getaddrinfo would hand back unchanged):
    :func:`resolvers.early.is_ip_literal`, which the command asks too before asyncio is
    imported.

    Cached: a pure function of the text, asked once per connection, and ``ip_address``
    costs more than the rest of the address check (many requests go to few hosts).
    """
    return early.is_ip_literal(host)


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
                    f"connecting to {authority(host, port)}",
                )
            except ssl_errors() as exc:
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
                f"connecting to {authority(host, port)}",
            )
        except ResolveTimeout as exc:
            last = exc
        except ssl_errors() as exc:
            raise tls_error(exc, host, port) from None
        except OSError as exc:
            last = exc
    if isinstance(last, ResolveTimeout):
        raise last
    raise ConnectError(
        f"cannot connect to {authority(host, port)}: {os_reason(last)}", component="host"
    )


def tls_name(host: str) -> str:
    """The name a certificate is checked against: the host without brackets or zone id."""
    return host.strip("[]").split("%", 1)[0]


def tls_error(exc: ssl.SSLError, host: str, port: int) -> ConnectError:
    """A failed TLS handshake as omniurl's error, saying whether the certificate was to blame."""
    import ssl  # (loaded: the handshake that failed used it)

    if isinstance(exc, ssl.SSLCertVerificationError):
        return ConnectError(
            f"TLS certificate verification failed for {authority(host, port)}: "
            f"{exc.verify_message or exc} (--cacert FILE trusts a CA; --insecure skips the check)",
            component="host",
        )
    return ConnectError(
        f"TLS handshake with {authority(host, port)} failed: {exc}", component="host"
    )


async def start_tls(
    writer: asyncio.StreamWriter, host: str, port: int, context: ssl.SSLContext, options: Options
) -> None:
    """Upgrade a connection in place (STARTTLS, AUTH TLS), bounded by the connect timeout."""
    try:
        await with_timeout(
            writer.start_tls(context, server_hostname=tls_name(host)),
            options.connect_timeout,
            f"in the TLS handshake with {authority(host, port)}",
        )
    except ssl_errors() as exc:
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
    with suppress(TimeoutError, OSError, ConnectionError):
        await asyncio.wait_for(writer.wait_closed(), 2)


# -- raw sockets for bulk data (FTP data connections, plain HTTP) ---------------------------


async def open_socket(
    host: str, port: int, options: Options, *, checked_as: str | None = None
) -> socket.socket:
    """Connect a non-blocking socket to ``host:port`` (policy-checked addresses, bounded).

    What :func:`connect` wraps in a :class:`Stream`, and what an FTP data connection reads
    straight from (one copy fewer than a ``StreamReader``, no task per read).  ``checked_as``:
    see :func:`resolve_addresses`.
    """
    loop = asyncio.get_running_loop()
    if options.proxy is not None:
        from .proxy import proxy_for

        spec = proxy_for(host, options.proxy, options.noproxy)
        if spec is not None:
            return await _via_proxy(host, port, options, spec)
    addresses = await resolve_addresses(host, port, options, checked_as=checked_as)
    last: Exception | None = None
    for address, to_port in addresses:
        options.note("*", f"connecting to {address} port {to_port}")
        # (a connect the command began while it was still starting: resolvers/early.py;
        # one not yet done is waited for below as any other — a second connect() of it is
        # EALREADY until it ends —, one done already is not connected again: EISCONN on
        # the BSDs and Windows)
        sock = early.take(address, to_port)
        begun = sock is not None and early.connected(sock)
        if sock is None:
            family = socket.AF_INET6 if ":" in address else socket.AF_INET
            try:
                sock = socket.socket(family, socket.SOCK_STREAM)
            except OSError as exc:  # EMFILE/ENFILE: out of file descriptors, a typed error
                raise ConnectError(
                    f"cannot open a socket for {authority(host, port)}: {exc.strerror or exc}",
                    component="host",
                ) from None
            sock.setblocking(False)
        try:
            # asyncio.timeout, not wait_for: the same bound without a task per connect (the
            # cost that shows when many small requests each open a connection).
            if not begun:
                async with asyncio.timeout(options.connect_timeout):
                    await loop.sock_connect(sock, (address, to_port))
            if options.trace is not None:
                peer, own = _address_of(sock.getpeername), _address_of(sock.getsockname)
                options.trace.connected(peer, own)
            return sock
        except TimeoutError:
            sock.close()
            last = ResolveTimeout(
                f"timed out after {options.connect_timeout:g} s connecting to "
                f"{authority(host, port)}"
            )
        except OSError as exc:
            sock.close()
            last = exc
        except BaseException:
            sock.close()
            raise
    if isinstance(last, ResolveTimeout):
        raise last
    raise ConnectError(
        f"cannot connect to {authority(host, port)}: {os_reason(last)}", component="host"
    )


def _address_of(get: Callable[[], Any]) -> tuple[str, int] | None:
    """A socket's peer or own address as (address, port), for ``Options.trace``."""
    try:
        found = get()
        return str(found[0]), int(found[1])
    except (OSError, IndexError, TypeError, ValueError):
        return None


#: The receive buffer of a bulk transfer's socket (:meth:`Stream.bulk`).
BULK_RCVBUF = 4 << 20
#: The buffer a bulk transfer reads into (:meth:`Stream.fill_into`), and the most one
#: :meth:`Stream.splice_into` moves before it hands the caller a chunk.
BULK_READ = 1 << 20
#: The low-water mark of a bulk wait (``SO_RCVLOWAT``): the loop wakes once this much has
#: arrived, not at every segment.  Measured, 512 MiB from gophernicus (4 KiB writes) over
#: loopback, the client a raw splice loop, CPU seconds of client / server (medians of 6
#: interleaved rounds, load ~8): no mark 0.49 / 0.57 (~7,700 waits); 64 KiB 0.34 / 0.51;
#: 256 KiB 0.24 / 0.51; 1 MiB 0.23 / 0.64 (curl: 0.36 / 0.55).  A higher mark saves the
#: client little and costs the server: the bytes waiting in the socket for the mark are
#: memory the sender filled and cannot reuse until they are taken (nginx and vsftpd send
#: page-cache pages, sendfile(2), and do not mind).  A read goes on waiting while the
#: marks are met (:meth:`Stream._more`), so a chunk is still up to :data:`BULK_READ`.
BULK_MARK = 256 << 10
#: How long a wait under the low-water mark may last before it takes what has come: a peer
#: that sends less than the mark and pauses (a slow or bursty server) delays its bytes by at
#: most this much a wait (the mark is never above the bytes still expected: the end of a
#: reply on a kept-alive connection is not held back).
BULK_LINGER = 0.02


@functools.cache
def _moved_bytes() -> bytes:
    return bytes(BULK_READ)


def moved(n: int) -> memoryview:
    """A chunk standing for ``n`` bytes that :meth:`Stream.splice_into` already moved to the
    consumer's file descriptor (``Resource.sink``): the length is what counts (progress, the
    deadlines' speed, the bytes received); its bytes are not the content — a consumer that
    set a sink writes every chunk for which :func:`is_moved` is false, and no other."""
    return memoryview(_moved_bytes())[:n]


def is_moved(chunk: bytes | memoryview) -> bool:
    """Whether ``chunk`` stands for bytes already moved to the sink (:func:`moved`)."""
    return isinstance(chunk, memoryview) and chunk.obj is _moved_bytes()


def sink_usable(fd: int) -> bool:
    """Whether content may be spliced to ``fd`` (:meth:`Stream.splice_into`): Linux, and a
    regular file, a pipe or a character device that is no terminal (``/dev/null``)."""
    if not hasattr(os, "splice"):
        return False
    import stat

    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    if stat.S_ISREG(mode) or stat.S_ISFIFO(mode):
        return True
    return stat.S_ISCHR(mode) and not os.isatty(fd)


def _wake(waiter: asyncio.Future[bool], value: bool) -> None:
    if not waiter.done():
        waiter.set_result(value)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    """The running event loop, or None outside one."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _recv_ready(waiter: asyncio.Future[bytes], sock: socket.socket, size: int) -> None:
    """The socket is readable: its bytes are the waiter's result (or the error)."""
    if waiter.done():
        return
    try:
        data = sock.recv(size)
    except (BlockingIOError, InterruptedError):
        return  # (woken for nothing: the reader stays)
    except (SystemExit, KeyboardInterrupt):
        raise
    except BaseException as exc:  # (OSError: raised where the read was awaited)
        waiter.set_exception(exc)
    else:
        waiter.set_result(data)


def _expire(waiter: asyncio.Future[bytes]) -> None:
    if not waiter.done():
        waiter.set_exception(TimeoutError())


def _tls_buffered(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, ciphertext: bool = True
) -> bool:
    """Whether a TLS stream holds bytes from the peer above the socket, or has ended
    (``ciphertext=False``: decrypted bytes only, as :meth:`Stream.spoke_first` asks).

    asyncio's SSL transport keeps them in three places: the StreamReader's buffer
    (decrypted, handed on), the ``SSLObject`` (decrypted, not yet handed on: reading paused)
    and the incoming ``MemoryBIO`` (ciphertext not yet decrypted); a TLS-in-TLS transport
    (an ``https://`` proxy's tunnel) has the last two once per layer.  The transport has no
    public way to ask for them, so its attributes are read where they are (CPython 3.11+'s
    ``asyncio.sslproto``), each missing one counted as empty."""
    if getattr(reader, "_buffer", None) or reader.at_eof() or reader.exception() is not None:
        return True
    transport: object = writer.transport
    if writer.transport.is_closing():
        return True
    for _layer in range(4):  # (a tunnel's TLS inside a proxy's: two; never more than a few)
        protocol = getattr(transport, "_ssl_protocol", None)
        if protocol is None:
            break
        sslobj = getattr(protocol, "_sslobj", None)
        if sslobj is not None and sslobj.pending():
            return True
        if ciphertext:
            incoming = getattr(protocol, "_incoming", None)
            if incoming is not None and incoming.pending:
                return True
        transport = getattr(protocol, "_transport", None)
    return False


class Stream:
    """One connected byte stream, every wait bounded by ``Options.read_timeout``.

    A plain stream reads straight from the socket (``loop.sock_recv``: the kernel fills the
    ``bytes`` handed out, no buffer of ours in between; what the kernel holds already is taken
    without a trip through the loop — many small exchanges and bulk data alike).  A TLS
    stream goes through asyncio's SSL transport over the same socket.  ``unread`` gives back
    bytes a reader took too far (a line cut from a chunk); the next read returns them first.
    Failures are typed: :class:`ResolveTimeout`, :class:`ConnectionClosed`.
    """

    def __init__(self, sock: socket.socket, options: Options) -> None:
        self.sock = sock
        self.options = options
        self._loop = asyncio.get_running_loop()
        self._chunk = max(options.chunk_size, 1024)
        self._pending = b""
        self._eof = False
        self._tls: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
        #: Bulk reads may ask the kernel for a low-water mark (:meth:`fill_into`); the mark
        #: now set on the socket (1: none).
        self._bulk = False
        self._lowat = 1
        #: The last bulk wait lapsed before its mark was met: a slower peer, whose bytes a
        #: read takes as they come (:meth:`_more`).
        self._slow = False
        #: The descriptor the loop watches for the waits of one bulk call (-1: none;
        #: :meth:`_wait_readable`, :meth:`_unwatch` at the call's end), and the wait the
        #: loop's callback ends.
        self._watched = -1
        self._waiter: asyncio.Future[bool] | None = None
        #: The last bulk read of the socket ran without the loop running meanwhile (its
        #: bytes were there, no wait): the next one lets it run first (:meth:`_turn`); and
        #: whether the loop ran during the read under way.
        self._owe_turn = False
        self._turned = False
        #: The pipe :meth:`splice_into` moves bytes through (made on first use).
        self._pipe: tuple[int, int] | None = None
        self._pipe_grown = False
        #: The output refused spliced bytes once: the rest is read (:meth:`fill_into`).
        self._refused = False
        #: Bytes were sent and no reply byte has come since (``Options.trace``'s first
        #: byte of the reply, curl's ``time_starttransfer``).
        self._asked = False

    # -- reading ---------------------------------------------------------------------------

    async def read(
        self, what: str, max_bytes: int | None = None, *, timeout: float | None = -1.0
    ) -> bytes:
        """The next bytes (at most ``max_bytes``; ``b""`` at end of stream), one wait bounded
        by ``timeout`` (default ``Options.read_timeout``; None: a person's pace, no bound)."""
        if self._pending:
            data = self._pending
            if max_bytes is not None and len(data) > max_bytes:
                data, self._pending = data[:max_bytes], data[max_bytes:]
            else:
                self._pending = b""
            return data
        if self._eof:
            return b""
        size = self._chunk if max_bytes is None else max_bytes
        wait = self.options.read_timeout if timeout == -1.0 else timeout
        if self._lowat > 1:
            self._set_lowat(1)  # (a plain read takes what comes: no mark)
        try:
            if self._tls is not None:
                async with asyncio.timeout(wait):
                    data = await self._tls[0].read(size)
            else:
                try:
                    data = self.sock.recv(size)
                except (BlockingIOError, InterruptedError):
                    data = await self._recv_waiting(size, wait)
        except TimeoutError:
            raise ResolveTimeout(f"timed out after {wait:g} s waiting for {what}") from None
        except (ConnectionError, OSError) as exc:  # (ssl.SSLError is an OSError)
            raise ConnectionClosed(f"connection lost while reading {what}: {exc}") from None
        if not data:
            self._eof = True
        elif self._asked and self.options.trace is not None:
            self._asked = False
            self.options.trace.mark("starttransfer")  # the reply's first byte
        return data

    async def read_into(self, buffer: memoryview, what: str) -> int:
        """Receive into ``buffer`` (0 at end of stream), one bounded wait: a plain stream's
        bulk path — no new ``bytes`` object a read, the kernel copies into memory already
        touched (a fresh 1 MiB object a read cost ~10⁴ page faults for 512 MiB)."""
        if self._pending or self._eof or self._tls is not None:
            data = await self.read(what, len(buffer))
            buffer[: len(data)] = data
            return len(data)
        if self._lowat > 1:
            self._set_lowat(1)
        try:
            try:
                n = self.sock.recv_into(buffer)
            except (BlockingIOError, InterruptedError):
                async with asyncio.timeout(self.options.read_timeout):
                    n = await self._loop.sock_recv_into(self.sock, buffer)
        except TimeoutError:
            raise ResolveTimeout(
                f"timed out after {self.options.read_timeout:g} s waiting for {what}"
            ) from None
        except (ConnectionError, OSError) as exc:
            raise ConnectionClosed(f"connection lost while reading {what}: {exc}") from None
        if not n:
            self._eof = True
        elif self._asked and self.options.trace is not None:
            self._asked = False
            self.options.trace.mark("starttransfer")
        return n

    async def fill_into(self, buffer: memoryview, what: str) -> int:
        """Receive into ``buffer`` until it is full, the peer closes, or the kernel holds no
        more (after at least one byte): the bulk path's read, 0 at end of stream.

        Fewer, fuller reads: what has arrived is taken read after read without a trip
        through the loop, and a stream marked :meth:`bulk` waits under a low-water mark
        (``SO_RCVLOWAT``, at most what the buffer has room for): the loop wakes once
        :data:`BULK_MARK` bytes have arrived, not at each of the sender's writes, and the
        read goes on while the marks are met (:meth:`_more`).  A peer that sends less and
        pauses costs at most :data:`BULK_LINGER` a wait: then the wait takes what comes.
        Every wait is bounded by the read timeout.  A TLS stream reads as :meth:`read_into` does."""
        if self._pending or self._eof or self._tls is not None:
            return await self.read_into(buffer, what)
        if self._owe_turn:
            await self._turn()
        self._turned = False
        try:
            return await self._fill_into(buffer, what)
        finally:
            self._owe_turn = not self._turned

    async def _fill_into(self, buffer: memoryview, what: str) -> int:
        sock, size, got = self.sock, len(buffer), 0
        try:
            while got < size:
                try:
                    n = sock.recv_into(buffer[got:] if got else buffer)
                except (BlockingIOError, InterruptedError):
                    if got:
                        if await self._more(size - got):
                            continue
                        return got
                    await self._readable(size, what)
                    continue
                if not n:
                    self._eof = True
                    return got
                got += n
        except (ConnectionError, OSError) as exc:
            raise ConnectionClosed(f"connection lost while reading {what}: {exc}") from None
        finally:
            self._unwatch()
        return got

    @property
    def at_end(self) -> bool:
        """Whether the stream has ended and nothing is left to read (no bytes given back with
        :meth:`unread`): a read now would give ``b""``."""
        return self._eof and not self._pending

    @property
    def can_splice(self) -> bool:
        """Whether :meth:`splice_into` may move the next bytes: a plain socket (TLS bytes
        must be decrypted here), nothing given back with :meth:`unread`, Linux."""
        return (
            self._tls is None
            and not self._pending
            and not self._eof
            and not self._refused
            and hasattr(os, "splice")
        )

    async def splice_into(self, fd: int, size: int, what: str) -> int:
        """Move up to ``size`` bytes from the socket to the file descriptor ``fd`` without
        copying them into this process (Linux ``splice(2)``, through a pipe of
        :data:`BULK_READ` bytes), waiting as :meth:`fill_into` does (the low-water mark, every
        wait bounded); 0 at end of stream.  Only where :attr:`can_splice` holds.

        Why: a bulk transfer to a file or ``/dev/null`` is two copies through user memory
        (the kernel's into the buffer, the buffer's into the output); spliced, the pages go
        from the socket to the output in the kernel.  Measured in docs/speed.md (512 MiB,
        the transfer benchmark).  Errors of the output are ``OSError`` as ``os.write``'s
        would be (a full disk, a closed pipe); the socket's are typed as every read's.
        ``fd`` refusing splice (``EINVAL``: some file systems) ends it: the bytes already in
        the pipe are written with ``os.write``, and :attr:`can_splice` is false from then on
        (the caller reads the rest)."""
        if self._owe_turn:
            await self._turn()
        self._turned = False
        try:
            return await self._splice_into(fd, size, what)
        finally:
            self._owe_turn = not self._turned

    async def _splice_into(self, fd: int, size: int, what: str) -> int:
        if self._pipe is None:
            self._pipe = _splice_pipe()
        pipe_r, pipe_w = self._pipe
        sock, got = self.sock.fileno(), 0
        flags = os.SPLICE_F_MOVE | os.SPLICE_F_NONBLOCK
        try:
            while got < size:
                try:
                    n = os.splice(sock, pipe_w, size - got, flags=flags)
                except (BlockingIOError, InterruptedError):
                    if got:
                        if await self._more(size - got):
                            continue
                        return got
                    await self._readable(size, what)
                    continue
                except (ConnectionError, OSError) as exc:
                    raise ConnectionClosed(f"connection lost while reading {what}: {exc}") from None
                if not n:
                    self._eof = True
                    return got
                if n >= _PIPE_DEFAULT and not self._pipe_grown:  # (a bulk body: see below)
                    self._pipe_grown = True
                    _grow_pipe(pipe_w)
                try:
                    _drain_pipe(pipe_r, fd, n)
                except SpliceRefused:
                    self._refused = True
                    return got + n
                got += n
        finally:
            self._unwatch()
        return got

    async def _readable(self, size: int, what: str) -> None:
        """Wait until the socket is readable (under the low-water mark, if any: see
        :meth:`fill_into`).  No bytes are read here: a wait cancelled or timed out loses
        none (a ``sock_recv_into`` cancelled after its read would)."""
        mark = min(size, BULK_MARK) if self._bulk else 1
        if mark != self._lowat:
            self._set_lowat(mark)
        if self._lowat > 1:
            if await self._wait_readable(BULK_LINGER):
                self._slow = False
                return
            self._slow = True
            self._set_lowat(1)  # (a slower peer: this wait takes what comes)
        if not await self._wait_readable(self.options.read_timeout):
            raise ResolveTimeout(
                f"timed out after {self.options.read_timeout:g} s waiting for {what}"
            )

    async def _recv_waiting(self, size: int, wait: float | None) -> bytes:
        """``recv`` as soon as the socket is readable (in the loop's reader callback, as
        ``loop.sock_recv`` does), the wait bounded by ``wait`` seconds (``TimeoutError``;
        None: unbounded).  One reader and one timer of the loop, not ``loop.sock_recv``
        under ``asyncio.timeout`` (a timeout object, the task looked up, a done callback and
        the transport checks for every read of a reply that has not arrived yet:
        ``sock_recv`` alone was 3.8% of the samples of a batch of 2,000 files from nginx,
        py-spy)."""
        loop, fd = self._loop, self.sock.fileno()
        waiter: asyncio.Future[bytes] = loop.create_future()
        loop.add_reader(fd, _recv_ready, waiter, self.sock, size)
        timer = None if wait is None else loop.call_later(wait, _expire, waiter)
        try:
            return await waiter
        finally:
            loop.remove_reader(fd)
            if timer is not None:
                timer.cancel()

    async def _more(self, room: int) -> bool:
        """Whether a bulk read that has taken bytes and found the socket empty should wait
        for more (``room``: what it may still take): only while the peer keeps up — a
        stream marked :meth:`bulk` whose last wait did not lapse, and the next mark is met
        within :data:`BULK_LINGER`.  Otherwise the read ends with what it has (a slower
        peer's bytes are not held back)."""
        if not self._bulk or self._slow or room <= 1:
            return False
        mark = min(room, BULK_MARK)
        if mark != self._lowat:
            self._set_lowat(mark)
        if self._lowat <= 1:  # (no mark on this system)
            return False
        if await self._wait_readable(BULK_LINGER):
            return True
        self._slow = True
        return False

    async def _wait_readable(self, timeout: float | None) -> bool:
        """Whether the socket became readable within ``timeout`` seconds.  The loop watches
        the socket from the first wait of a bulk call to its end (:meth:`_unwatch`), not
        once a wait: measured, a wait that added and removed the reader cost ~43 µs of CPU,
        one on a watched socket ~15 µs (CPython 3.11, a loaded machine)."""
        loop = self._loop
        waiter: asyncio.Future[bool] = loop.create_future()
        if self._watched < 0:
            self._watched = self.sock.fileno()
            loop.add_reader(self._watched, self._wake)
        self._waiter = waiter
        self._turned = True  # (the loop runs while this waits)
        timer = None if timeout is None else loop.call_later(timeout, _wake, waiter, False)
        try:
            return await waiter
        finally:
            self._waiter = None
            if timer is not None:
                timer.cancel()

    async def _turn(self) -> None:
        """One turn of the loop before a bulk read, after one that ran without it: a peer
        that keeps the socket full (a server faster than the output) never makes a read
        wait, and until the read waited nothing else ran — the loop's timers, the other
        tasks, and the cancel that Ctrl-C and SIGTERM hand to the loop (cli/signals.py):
        the command went on to the transfer's end.  Now the loop runs at least once a bulk
        read (at most :data:`BULK_READ` bytes), before any byte of the next is taken, so a
        cancel there loses none."""
        await asyncio.sleep(0)

    def _wake(self) -> None:
        """The loop's callback while the socket is watched: it is readable."""
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(True)

    def _unwatch(self) -> None:
        """The bulk call ends: the loop stops watching the socket (another read may watch
        it its own way: ``sock_recv``)."""
        if self._watched >= 0:
            fd, self._watched = self._watched, -1
            self._loop.remove_reader(fd)

    def _set_lowat(self, mark: int) -> None:
        try:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVLOWAT, mark)
        except (OSError, AttributeError):  # (a system without it: waits wake at any byte)
            self._bulk, mark = False, 1
        self._lowat = mark

    def unread(self, data: bytes) -> None:
        """Give back bytes read too far (the next read returns them first)."""
        if data:
            self._pending = data + self._pending

    async def read_line(self, what: str) -> bytes:
        """One LF- or CRLF-terminated line without its ending, at most ``max_line`` long."""
        limit = self.options.max_line + 1
        line = b""
        while True:
            data = await self.read(what)
            if not data:
                raise ConnectionClosed(
                    f"connection closed in the middle of {what}"
                    if line
                    else f"connection closed while waiting for {what}"
                )
            cut = data.find(b"\n")
            if cut >= 0:
                line += data[:cut]
                self.unread(data[cut + 1 :])
                if len(line) > limit:
                    raise LimitExceeded(f"{what}: line longer than {self.options.max_line} bytes")
                return line[:-1] if line.endswith(b"\r") else line
            line += data
            if len(line) > limit:
                raise LimitExceeded(f"{what}: line longer than {self.options.max_line} bytes")

    async def chunks(self, what: str, size: int | None = None) -> AsyncIterator[bytes]:
        """The rest of the stream (or exactly ``size`` bytes, else :class:`ConnectionClosed`)."""
        remaining = size
        while remaining is None or remaining > 0:
            data = await self.read(what)
            if not data:
                if remaining is not None:
                    raise ConnectionClosed(
                        f"connection closed with {remaining} bytes of {what} still to come"
                    )
                return
            if remaining is not None:
                if len(data) > remaining:
                    self.unread(data[remaining:])
                    data = data[:remaining]
                remaining -= len(data)
            yield data

    def bulk(self) -> None:
        """This stream carries a bulk transfer: a large receive buffer, so that reads come
        fuller and fewer (measured, 512 MiB from vsftpd over loopback: 2,600 reads of 200 KiB
        on average → 2,048 of the full chunk size, CPU 0.47 → 0.37 s, median of 5).  Linux
        grows the buffer on its own only up to ``tcp_rmem``'s maximum as the window opens."""
        with suppress(OSError):
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, BULK_RCVBUF)
        self._bulk = True

    # -- writing ---------------------------------------------------------------------------

    async def write(self, data: bytes, what: str) -> None:
        """Send all of ``data``, bounded by the read timeout (a peer that stops reading)."""
        trace = self.options.trace
        if trace is not None:
            trace.mark("pretransfer")  # (curl's: the request about to go)
            trace.sent += len(data)
            self._asked = True
            if trace.remote is None:  # a kept connection, reused: its addresses all the same
                trace.remote = _address_of(self.sock.getpeername)
                trace.local = _address_of(self.sock.getsockname)
        try:
            if self._tls is not None:
                self._tls[1].write(data)
                async with asyncio.timeout(self.options.read_timeout):
                    await self._tls[1].drain()
                return
            # What the kernel takes at once (almost every request or command line: the send
            # buffer is empty) needs no deadline; only a remainder waits, under the timeout.
            try:
                sent = self.sock.send(data)
            except (BlockingIOError, InterruptedError):
                sent = 0
            if sent == len(data):
                return
            async with asyncio.timeout(self.options.read_timeout):
                await self._loop.sock_sendall(self.sock, memoryview(data)[sent:])
        except TimeoutError:
            raise ResolveTimeout(
                f"timed out after {self.options.read_timeout:g} s sending {what}"
            ) from None
        except (ConnectionError, OSError) as exc:
            raise ConnectionClosed(f"connection lost while sending {what}: {exc}") from None

    # -- TLS and the rest ------------------------------------------------------------------

    async def start_tls(
        self, context: ssl.SSLContext, host: str, port: int, what: str | None = None
    ) -> None:
        """The TLS handshake over this stream (the certificate checked for ``host``), bounded
        by the connect timeout; afterwards every read and write is protected.  Bytes given
        back with :meth:`unread` would be plaintext: a protocol upgrades only between replies
        (RFC 4217 §4, RFC 4642 §2.2.2), so there are none."""
        what = what or f"the TLS handshake with {authority(host, port)}"
        if self._pending:  # (a peer that spoke before the handshake: never plaintext kept)
            raise ProtocolError(f"unasked bytes arrived before {what}")
        try:
            if self._tls is not None:
                # TLS inside TLS (an https:// proxy's tunnel; asyncio does it from 3.11 on):
                # the writer's transport becomes the inner session, the reader reads it.
                await with_timeout(
                    self._tls[1].start_tls(context, server_hostname=tls_name(host)),
                    self.options.connect_timeout,
                    f"in {what}",
                )
                return
            self._tls = await with_timeout(
                asyncio.open_connection(
                    sock=self.sock,
                    ssl=context,
                    server_hostname=tls_name(host),
                    limit=max(self.options.max_line + 2, 2**16),
                ),
                self.options.connect_timeout,
                f"in {what}",
            )
            if self.options.trace is not None:
                self.options.trace.mark("appconnect")
        except ssl_errors() as exc:
            raise tls_error(exc, host, port) from None
        except (ConnectionError, OSError) as exc:
            raise ConnectionClosed(f"the connection broke in {what}: {exc}") from None

    @property
    def tls(self) -> bool:
        return self._tls is not None

    @property
    def closing(self) -> bool:
        """Closed here, or (TLS) the transport is shutting down."""
        if self._tls is not None:
            return self._tls[1].is_closing()
        return self.sock.fileno() < 0

    def idle_ended(self) -> bool:
        """Whether an idle stream can no longer be used: the peer closed it or said
        something unasked (a ``421`` timeout notice, bytes behind an HTTP reply), or it was
        closed here.

        Every buffer between the socket and the caller is looked at (issue 30: a check of
        the socket alone missed the bytes TLS had already decrypted): bytes given back with
        :meth:`unread`; over TLS the :class:`asyncio.StreamReader`'s buffer, each TLS layer's
        decrypted-but-unread bytes (``SSLObject.pending()``) and the ciphertext waiting in its
        incoming ``MemoryBIO`` (a tunnel's TLS inside a proxy's: both layers); then the
        kernel's socket buffer (a non-blocking ``MSG_PEEK``; over TLS too: a record the loop
        has not yet read is a byte nobody asked for all the same).

        A stream made on another event loop than the running one (a client's kept
        connection after ``asyncio.run`` ended the loop it was made on) has ended too: its
        waits belong to that loop.  Before, the next ``asyncio.run`` reused it and failed
        with a bare ``RuntimeError: Event loop is closed``."""
        if self._pending or self._eof or self._loop is not _running_loop():
            return True
        if self._tls is not None and _tls_buffered(*self._tls):
            return True
        try:
            return self.sock.fileno() < 0 or self.sock.recv(1, socket.MSG_PEEK) is not None
        except (BlockingIOError, InterruptedError):
            return False
        except OSError:
            return True

    def spoke_first(self) -> bool:
        """Whether the peer sent something (or closed) before this side's first request:
        asked just before that request is written, on a connection nothing was sent on.

        A reply that comes before its request answers no request: the reply to the request
        then sent is still to come, and would be read as the next request's (RFC 9112 §9.3:
        replies arrive in the order of the requests — a server out of step with that order
        has its connection used no further).  A plain stream looks where
        :meth:`idle_ended` looks; a TLS stream only at the decrypted bytes (the
        StreamReader's buffer, each ``SSLObject``'s): a TLS 1.3 server's session tickets
        come after the handshake as records that decrypt to nothing, so ciphertext waiting
        there says nothing about replies."""
        if self._pending or self._eof:
            return True
        if self._tls is None:
            return self.idle_ended()
        return _tls_buffered(*self._tls, ciphertext=False)

    def tls_session(self) -> ssl.SSLSession | None:
        """The TLS session, for a second connection to resume (RFC 4217 data connections)."""
        obj = None if self._tls is None else self._tls[1].get_extra_info("ssl_object")
        return None if obj is None else obj.session

    def peer_certificate(self) -> bytes | None:
        """The certificate the peer presented (DER), or None on a plain stream: what trust
        on first use pins (it is there even when the context verified nothing)."""
        if self._tls is None:
            return None
        obj = self._tls[1].get_extra_info("ssl_object")
        der = None if obj is None else obj.getpeercert(binary_form=True)
        return der if isinstance(der, bytes) else None

    def peer_address(self) -> str | None:
        """The address this stream reached (after DNS, ``--resolve`` and the policy)."""
        try:
            return str(self.sock.getpeername()[0])
        except OSError:
            return None

    def close(self) -> None:
        """Close now; never raises, never waits.  Over TLS the transport owns the socket: it
        sends close_notify and closes the socket itself (closing it here would free the
        descriptor while the transport still watches it) — unless its loop is closed (a
        kept connection of an ended ``asyncio.run``): then nobody else will close it."""
        with suppress(OSError, RuntimeError, ValueError):
            self._unwatch()
        if self._pipe is not None:
            for end in self._pipe:
                with suppress(OSError):
                    os.close(end)
            self._pipe = None
        if self._tls is not None and not self._loop.is_closed():
            with suppress(OSError, RuntimeError):
                self._tls[1].close()
            return
        with suppress(OSError):
            self.sock.close()

    async def aclose(self) -> None:
        """Close, waiting (at most 2 s) for a TLS close to finish."""
        if self._tls is not None:
            await close_writer(self._tls[1])
            return
        self.close()


#: Linux's default size of a pipe: a splice that moved this much filled it.
_PIPE_DEFAULT = 1 << 16


def _splice_pipe() -> tuple[int, int]:
    """A pipe for :meth:`Stream.splice_into`, of the system's default size (64 KiB on
    Linux) until a splice fills it (:func:`_grow_pipe`): a small body (a 4 KiB file) never
    loads ``fcntl``, an extension module, ~1.1 million instructions of an FTP or Gopher get
    (callgrind, 2026-11-29; docs/speed.md, *Start-up*)."""
    return os.pipe2(os.O_CLOEXEC)


def _grow_pipe(pipe_w: int) -> None:
    """Make the pipe as large as one bulk read where the system allows (an unprivileged
    process may ask up to ``/proc/sys/fs/pipe-max-size``, 1 MiB by default)."""
    with suppress(OSError, AttributeError, ImportError):
        import fcntl

        fcntl.fcntl(pipe_w, fcntl.F_SETPIPE_SZ, BULK_READ)


class SpliceRefused(OSError):
    """The output took no spliced bytes (``EINVAL``); what was in the pipe was written."""


def _drain_pipe(pipe_r: int, fd: int, n: int) -> None:
    """Move ``n`` bytes from the pipe to ``fd`` (blocking, as a write to the output is;
    an output another process made non-blocking is waited for: :func:`wait_writable`)."""
    while n:
        try:
            m = os.splice(pipe_r, fd, n, flags=os.SPLICE_F_MOVE)
        except BlockingIOError:
            wait_writable(fd)
            continue
        except OSError as exc:
            if exc.errno != errno.EINVAL:
                raise
            while n:  # the output refuses splice: the bytes in the pipe are written
                data = os.read(pipe_r, n)
                view = memoryview(data)
                while view:
                    try:
                        view = view[os.write(fd, view) :]
                    except BlockingIOError:
                        wait_writable(fd)
                n -= len(data)
            raise SpliceRefused(errno.EINVAL, "the output takes no spliced bytes") from None
        n -= m


#: The longest an output that takes nothing may hold a write up (:func:`wait_writable`).
OUTPUT_WAIT = 60.0


def wait_writable(fd: int, timeout: float = OUTPUT_WAIT) -> None:
    """Wait until ``fd`` takes bytes again, at most ``timeout`` seconds (``TimeoutError``,
    a write error of the output: exit 23): the wait a blocking write makes in ``write(2)``,
    made in ``poll(2)`` for an output whose file description is non-blocking.  Another
    process sharing it may set ``O_NONBLOCK`` (a reader of the pipe, a program sharing the
    terminal), and a write to it then fails with ``EAGAIN`` whenever the reader is behind —
    which ended a get with exit 23 (curl 7.88's too: "Failure writing output to
    destination") while the output would have taken the bytes a moment later.  Bounded:
    a reader that takes nothing for ``timeout`` seconds ends it as before, with the reason.
    Signals meanwhile run their handlers and the wait goes on (PEP 475), as a blocking
    write's does."""
    import select

    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    if not poller.poll(timeout * 1000):
        raise TimeoutError(
            errno.ETIMEDOUT, f"the output took nothing for {timeout:g} s (non-blocking)"
        )


async def connect(
    host: str, port: int, options: Options, *, tls: ssl.SSLContext | None = None
) -> Stream:
    """A :class:`Stream` to ``host:port``: the ``--resolve`` mapping, the policy's address
    rules and the proxy (SOCKS5, HTTP ``CONNECT``) apply before ``connect()``; with ``tls``,
    the handshake (the certificate checked for ``host``) is part of it."""
    spec = None
    if options.proxy is not None:
        from .proxy import proxy_for

        spec = proxy_for(host, options.proxy, options.noproxy)
    if spec is not None and spec.scheme == "https":
        stream = await _via_tls_proxy(host, port, options, spec)
    else:
        stream = Stream(await open_socket(host, port, options), options)
    if tls is not None:
        try:
            await stream.start_tls(tls, host, port)
        except BaseException:
            stream.close()
            raise
    return stream


async def _via_proxy(host: str, port: int, options: Options, spec: ProxySpec) -> socket.socket:
    """A socket connected to ``host:port`` through a SOCKS5 proxy or an HTTP ``CONNECT``
    tunnel (resolvers.proxy).  The proxy's address passes the policy as any connection
    does; so does the URL's host where omniurl resolves it (socks5) or it is an address
    literal (socks5h, CONNECT: the proxy resolves a name)."""
    from .proxy import (
        connect_request,
        parse_connect_reply,
        parse_http_connect_reply,
        parse_login_reply,
        parse_method_reply,
        socks_greeting,
        socks_login,
    )

    if spec.scheme == "https":
        raise ConfigurationError(
            f"the proxy {spec}: this connection reads a plain socket, which an https:// "
            "proxy's TLS cannot carry (use an http:// or socks5:// proxy for it)",
            component="proxy",
        )
    target, port = await _tunnel_target(host, port, options, spec)
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
                request = _connect_request(target, port, spec, options)
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


async def _tunnel_target(
    host: str, port: int, options: Options, spec: ProxySpec
) -> tuple[str, int]:
    """What a tunnel asks the proxy to connect to, after the policy: an address omniurl
    resolved (socks5), or the URL's host as a name (socks5h, CONNECT: the proxy resolves
    it; only an address literal can be checked here)."""
    if spec.scheme == "socks5":
        mapped = await resolve_addresses(host, port, options)  # (the policy, here)
        target, port = mapped[0]
    else:
        mapped_host, port = options.map_address(host, port)
        target = mapped_host.strip("[]")
        if _is_ip_literal(target.split("%", 1)[0]):
            options.policy.check_address(target, host=host)
    options.note("*", f"through the proxy {spec} to {target} port {port}")
    return target, port


def _connect_request(target: str, port: int, spec: ProxySpec, options: Options) -> bytes:
    """RFC 9110 §9.3.6's ``CONNECT`` head, each line shown (``-v``) as it will be sent, the
    proxy's login masked."""
    from .http.planner import shown_field
    from .proxy import http_connect_request

    request = http_connect_request(target, port, spec.authorization)
    for line in request.decode("latin-1").split("\r\n"):
        name, _, value = line.partition(": ")
        if line:
            options.note(">", shown_field(name, value) or line)
    return request


async def _via_tls_proxy(host: str, port: int, options: Options, spec: ProxySpec) -> Stream:
    """A stream to ``host:port`` through an ``https://`` proxy: TLS to the proxy (its
    certificate checked for the proxy's name, with the same trust anchors as any other
    TLS: ``--cacert``, ``-k``), then ``CONNECT`` inside it.  What goes through the tunnel
    is protected by the proxy's TLS; an ``https:`` origin's own TLS starts inside it
    (:meth:`Stream.start_tls`), so the proxy sees only ciphertext."""
    from .proxy import parse_http_connect_reply
    from .tls import ssl_context

    target, port = await _tunnel_target(host, port, options, spec)
    stream = await connect(
        spec.host, spec.port, options.with_(proxy=None), tls=ssl_context(options)
    )
    what = f"the CONNECT reply of the proxy {spec}"
    try:
        async with asyncio.timeout(options.connect_timeout):
            await stream.write(_connect_request(target, port, spec, options), what)
            reply = b""
            while b"\r\n\r\n" not in reply:
                chunk = await stream.read(what)
                if not chunk or len(reply) > 16384:
                    raise ConnectionClosed("the proxy ended its CONNECT reply early")
                reply += chunk
            reply, _, after = reply.partition(b"\r\n\r\n")
            stream.unread(after)  # (a proxy that sends before it is asked: the peer's bytes)
            options.note("<", reply.split(b"\r\n", 1)[0].decode("latin-1"))
            parse_http_connect_reply(reply + b"\r\n\r\n")
    except TimeoutError:
        stream.close()
        raise ResolveTimeout(
            f"timed out after {options.connect_timeout:g} s in the proxy handshake with {spec}"
        ) from None
    except BaseException:
        stream.close()
        raise
    return stream
