"""A connection begun before the program that uses it has finished starting.

``omniurl get URL`` spends most of its start importing (asyncio, the executor, the writer:
~60-100 ms of a ~100 ms start, docs/speed.md), and only then connects.  A server started
per connection — gophernicus from inetd runs ``lsb_release`` twice before it reads the
selector, 50-140 ms here; vsftpd forks a session — starts only then, and the command waits
for it after its own start.  So the command, once it has checked the plan against the policy,
may :func:`begin` the TCP connection to the address the executor will connect to first (the
resolver's ``first_connection``): the server starts while the imports go on, and
:func:`resolvers.net.open_socket` :func:`take` s the socket instead of making one.

Nothing else changes: the address is the one ``open_socket`` would reach (the ``--resolve``
mapping applied, an IP literal — no lookup here —, the policy's address rule passed), no
byte is sent before the executor sends it, the connect is waited for (and bounded, and its
errors reported) by ``open_socket`` as ever, and a socket nobody takes is closed at exit.
Only for a plain connection (no proxy, ``--proxy-env`` off) and only from the ``omniurl``
command's own process (:func:`omniurl.cli.early.connect_early`).
"""

from __future__ import annotations

# The C module, not :mod:`socket`: importing ``socket`` (its enums made from the C
# module's constants, ``selectors``) was the largest import before the connect, ~3-5 ms of
# CPU of a get's start and 10-15 ms at load 4 (cProfile and ``time.process_time``,
# 2026-11-28); asyncio imports it anyway, after the connect (:func:`take` wraps the socket).
import _socket

TYPE_CHECKING = False
if TYPE_CHECKING:
    import socket

    from .options import Options

#: Sockets whose connect has begun, by the (address, port) they go to.
_begun: dict[tuple[str, int], _socket.socket] = {}


def address_of(host: str, port: int, options: Options) -> tuple[str, int] | None:
    """The address :func:`resolvers.net.open_socket` connects to for ``host:port`` when it
    needs no lookup (an IP literal, after ``--resolve``) and the policy allows it; None
    otherwise (a name, a zone id, a proxy, an address refused: the usual path says so)."""
    if options.proxy is not None or options.trust_env or options.shared is not None:
        return None  # (a proxy's address, or a client's kept connections, come first)
    if not options.connect_timeout > 0:
        # (0 or less: open_socket's connect times out at once, however soon it would end;
        # a socket connected already would not: the usual path reports it)
        return None
    mapped_host, mapped_port = options.map_address(host, port)
    bare = mapped_host[1:-1] if mapped_host.startswith("[") else mapped_host
    if "%" in bare or not is_ip_literal(bare):
        return None
    options.policy.check_address(bare, host=host)  # (refused: raises, nothing begun)
    return bare, mapped_port


def is_ip_literal(host: str) -> bool:
    """A dotted IPv4 or an IPv6 address (what getaddrinfo would hand back unchanged)."""
    if not host or not (host[0].isdigit() or ":" in host):
        return False
    try:
        # A dotted IPv4 address, answered without importing ipaddress (~1 ms of a get's
        # start): glibc's inet_pton takes what ipaddress takes, four decimal octets of at
        # most 255, no leading zero (tests/test_net_literals.py); the rest is ipaddress's.
        _socket.inet_pton(_socket.AF_INET, host)
        return True
    except (OSError, ValueError):  # (ValueError: a NUL in the text)
        pass
    import ipaddress

    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def begin(address: str, port: int) -> bool:
    """Start connecting a non-blocking socket to ``address``; True if one is now waiting
    for :func:`take`.  A connect refused at once begins nothing (the usual path will be
    refused the same way, and report it)."""
    if (address, port) in _begun:
        return True
    try:
        sock = _socket.socket(
            _socket.AF_INET6 if ":" in address else _socket.AF_INET, _socket.SOCK_STREAM
        )
    except OSError:
        return False
    sock.setblocking(False)
    try:
        sock.connect((address, port))
    except (BlockingIOError, InterruptedError):
        pass
    except OSError:
        sock.close()
        return False
    _begun[(address, port)] = sock
    return True


def connected(sock: socket.socket | _socket.socket) -> bool:
    """Whether ``sock``'s connect has ended with a connection (not still under way, not
    refused: those are the usual ``connect()``'s to wait for and report)."""
    try:
        sock.getpeername()
    except OSError:
        return False
    return True


def take(address: str, port: int) -> socket.socket | None:
    """The socket begun for ``(address, port)``, once (None: none was, or the server has
    ended it since: :func:`ended`): the same descriptor, as the :class:`socket.socket`
    every other connection is (non-blocking)."""
    raw = _begun.pop((address, port), None) if _begun else None
    if raw is None:
        return None
    if ended(raw):
        raw.close()
        return None
    import socket

    sock = socket.socket(raw.family, raw.type, raw.proto, raw.detach())
    sock.setblocking(False)
    return sock


def ended(sock: socket.socket | _socket.socket) -> bool:
    """Whether the server has closed or reset ``sock`` before the command sent a byte, or
    its connect was refused.  A server that waits only so long for the request (the corpus
    server of tests/test_http_corpus.py: 0.25 s) gave up while the command was still
    starting, which at load takes longer than that; the usual path would have connected
    only now.  So does the command (:func:`resolvers.net.open_socket` connects a socket of
    its own and reports what it finds), rather than send the request into a connection the
    server has closed.  A greeting waiting (FTP's 220) is no end; a server's last word
    followed by its close (an HTTP 408) is."""
    import select

    if hasattr(select, "poll") and hasattr(select, "POLLRDHUP"):
        poller = select.poll()
        poller.register(sock, select.POLLRDHUP | select.POLLHUP | select.POLLERR)
        return bool(poller.poll(0))
    try:  # (no POLLRDHUP: the end of the stream, or an error, seen without reading)
        return not sock.recv(1, _socket.MSG_PEEK | _socket.MSG_DONTWAIT)
    except (BlockingIOError, InterruptedError):
        return False  # (nothing yet, or still connecting)
    except OSError:
        return True


def discard() -> None:
    """Close every socket begun and not taken."""
    while _begun:
        _key, sock = _begun.popitem()
        sock.close()
