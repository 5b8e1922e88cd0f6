"""Options for planning and resolving: one immutable object the caller builds once.

Everything a resolver may need from outside the URL lives here, so that planning stays a pure
function of ``(url, options)``.  Callbacks (``ask``, ``transcript``) are how the library asks a
person for input and reports the conversation; the CLI plugs a terminal into them.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping

from omniurl.schemes.records import field, record, replace

from .errors import ConfigurationError
from .policy import DEFAULT, Policy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeVar

    from .trace import Trace

    T = TypeVar("T")

#: ``ask(prompt, secret=False) -> answer``: asks a person (or a program) for input.
Ask = Callable[..., Awaitable[str]]
#: ``transcript(direction, text)``: direction is ``">"`` (sent), ``"<"`` (received), ``"*"``
#: (a note: connecting, following a redirect).  What ``omniurl get -v`` prints.
Transcript = Callable[[str, str], None]
#: ``notice(text)``: something a person should hear of without ``-v`` — trust given on
#: first use (a certificate pinned) or changed.  ``omniurl get`` prints it on stderr.
Notice = Callable[[str], None]


def default_email() -> str:
    """The anonymous-FTP password RFC 1738 §3.2.1 asks for: the user's e-mail address."""
    email = os.environ.get("EMAIL")
    if email:
        return email
    user = os.environ.get("USER") or os.environ.get("LOGNAME") or "omniurl"
    return f"{user}@localhost"


ResolveKey = tuple[str, int | None]


@record(frozen=True)
class ClientLimits:
    """Bounds of the connections a client keeps (:class:`Shared`): HTTP connections open
    at once per set of options, idle ones kept and for how long; control connections of a
    session protocol (FTP) kept idle, for one server and in all."""

    max_connections: int = 100
    max_keepalive_connections: int = 20
    keepalive_expiry: float = 5.0
    max_idle_sessions: int = 4
    #: How long a resolve may wait for a free connection slot (None: as long as it takes).
    pool_timeout: float | None = None


class Shared:
    """Connections kept across the resolves of one client (``omniurl.AsyncClient``): one
    holder per type (an HTTP pool, an FTP session cache), made by its resolver on first use
    with :meth:`get` and closed with the client.  Typed: a resolver asks for its own class,
    never for a string key."""

    def __init__(self, *held: Any, limits: ClientLimits | None = None) -> None:
        self.limits = limits or ClientLimits()
        self._held: dict[type, Any] = {type(h): h for h in held}
        self.closed = False

    def get(self, kind: type[T], make: Callable[[ClientLimits], T]) -> T:
        """The ``kind`` this client holds, made with ``make(limits)`` the first time."""
        found = self._held.get(kind)
        if found is None:
            if self.closed:
                from .errors import ClientClosed

                raise ClientClosed("the client is closed", component="client")
            found = self._held[kind] = make(self.limits)
        return found

    def find(self, kind: type[T]) -> T | None:
        """The ``kind`` this client holds, if it made one."""
        return self._held.get(kind)

    async def aclose(self) -> None:
        """Close everything held (each holder's ``aclose``), the last made first."""
        self.closed = True
        errors: list[BaseException] = []
        for held in reversed(list(self._held.values())):
            try:
                await held.aclose()
            except Exception as exc:  # close the others all the same
                errors.append(exc)
        if errors:
            raise errors[0]


def parse_resolve(spec: str) -> tuple[ResolveKey, ResolveKey]:
    """Parse ``HOST[:PORT]:ADDR[:PORT]`` (curl's ``--resolve``; IPv6 addresses in brackets)
    into a ``(host, port) -> (address, port)`` entry of :attr:`Options.resolve`."""
    parts: list[str] = []
    buf = ""
    depth = 0
    for ch in spec:
        depth += (ch == "[") - (ch == "]")
        if ch == ":" and depth == 0:
            parts.append(buf)
            buf = ""
        else:
            buf += ch
    parts.append(buf)

    def port_of(text: str) -> int:
        if not (text.isascii() and text.isdigit()) or not 0 < int(text) < 65536:
            raise ConfigurationError(f"resolve {spec!r}: bad port {text!r}", component="port")
        return int(text)

    def name_of(text: str, what: str) -> str:
        text = text.strip("[]")
        if not text:
            raise ConfigurationError(f"resolve {spec!r}: the {what} is empty", component="host")
        return text

    if len(parts) in (2, 3, 4):
        host = name_of(parts[0], "host").lower()
        port = port_of(parts[1]) if len(parts) >= 3 else None
        address = name_of(parts[-2] if len(parts) == 4 else parts[-1], "address")
        to_port = port_of(parts[3]) if len(parts) == 4 else None
        return (host, port), (address, to_port)
    raise ConfigurationError(
        f"resolve wants HOST[:PORT]:ADDR[:PORT], not {spec!r}", component="host"
    )


@record(frozen=True)
class Options:
    """How to plan and resolve.

    ``resolve`` maps a ``(host, port)`` to the ``(address, port)`` to connect to instead, like
    curl's ``--resolve HOST:PORT:ADDR``; a port of ``None`` on either side means "any" /
    "unchanged".  Each scheme's own options are a typed dataclass (its spec's ``options``:
    ``MailtoOptions``, ``NNTPOptions``…), set with :meth:`with_scheme` and read with
    :meth:`of`; connections a client keeps across resolves are in ``shared``.
    """

    policy: Policy = DEFAULT
    connect_timeout: float = 10.0
    read_timeout: float = 30.0
    resolve: Mapping[tuple[str, int | None], tuple[str, int | None]] = field(default_factory=dict)
    #: E-mail address sent as the anonymous FTP password (§3.2.1).
    email: str = field(default_factory=default_email)
    #: Credentials by host, for servers that ask (NNTP AUTHINFO, FTP, SMTP AUTH): host ->
    #: (user, password).  The CLI fills it from ~/.netrc.
    credentials: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    ask: Ask | None = None
    #: ``await form(fields, url) -> answers``: fills in a form a URL's item asks for (a
    #: Gopher+ +ASK form, §2.8: one answer per answered field) — a program's or the
    #: gateway's page; without one, ``ask`` asks field by field.
    form: Callable[[Any, Any], Awaitable[Any]] | None = None
    transcript: Transcript | None = None
    notice: Notice | None = None
    #: Records when each phase of a transfer ended and the addresses connected
    #: (:class:`resolvers.trace.Trace`: ``-w``'s ``time_connect``, ``remote_ip``…); None:
    #: nothing recorded.  Marked by the connections a resolve opens (a kept-alive one,
    #: reused, marks the trace of the resolve that opened it).
    trace: Trace | None = None
    #: How many bytes a resolver reads at a time when streaming content.
    chunk_size: int = 256 * 1024
    #: The longest protocol line (reply, menu line, header) omniurl accepts.
    max_line: int = 64 * 1024
    #: The largest reply omniurl buffers whole (a menu, a listing, an attribute block).
    max_buffered: int = 64 * 1024 * 1024
    #: Follow redirects (HTTP) and referrals (Prospero) through the policy.
    follow: bool = True
    verify_tls: bool = True
    #: Use proxies from the environment (HTTP_PROXY...); off unless the caller opts in.
    trust_env: bool = False
    #: Whether the command line made these options (``omniurl/cli/arguments.py``): an
    #: error then names its flags and environment variables (news: ``--nntp-server``,
    #: ``$NNTPSERVER``), and a program's errors the arguments it has (``NNTPOptions(server=
    #: ...)``: a library call reads no environment variable).  Nothing else reads it.
    command_line: bool = False
    #: Each scheme's typed options, by their type (:meth:`of`, :meth:`with_scheme`); may be
    #: given as a sequence of options instances (``schemes=(NNTPOptions(server="h"),)``).
    schemes: Mapping[type, Any] = field(default_factory=dict)
    #: A client's kept connections (:class:`Shared`); None: each resolve has its own.
    shared: Shared | None = None
    #: Resume a transfer at this byte offset (``-C``): FTP ``REST``, HTTP ``Range``.  0 is a
    #: whole transfer; a scheme that cannot start at an offset refuses a plan with one.
    resume_from: int = 0
    #: The validator (strong ETag or Last-Modified) of the first response, for HTTP's
    #: ``If-Range`` (RFC 9110 §13.1.5): a resource that changed comes back whole.
    resume_validator: str | None = None
    #: The whole transfer (connect to last byte, redirects and referrals included) ends
    #: after this many seconds (``--max-time``; None: no limit).  resolvers.deadline.
    max_time: float | None = None
    #: A transfer slower than ``speed_limit`` bytes/s for ``speed_time`` seconds ends
    #: (``--speed-limit``/``--speed-time``; 0 turns it off).  The default stops a trickle.
    speed_limit: int = 1
    speed_time: float = 60.0
    #: A listing with more entries ends with LimitExceeded (``--max-entries``; None: no
    #: bound but ``max_buffered`` for a listing read whole).
    max_entries: int | None = None
    #: Leave listings on the wire, to be read with ``Resource.aiter_entries()`` as they
    #: arrive (the CLI, ``fetch_many``, the clients' ``stream``); otherwise ``resolve``
    #: reads a streaming listing whole into ``Resource.entries`` before returning.
    stream_listings: bool = False
    #: Trust these CA certificates (PEM file, ``--cacert``) instead of the system's store.
    ca_file: str | None = None
    #: Trust the hashed CA certificates in this directory (``--capath``, ``c_rehash`` names).
    ca_path: str | None = None
    #: A client certificate (PEM, ``--cert``) and its key (``--key``; None: in the cert file).
    client_cert: str | None = None
    client_key: str | None = None
    #: The lowest TLS version offered (``--tlsv1.2``/``--tlsv1.3``): "1.2" or "1.3".
    tls_min_version: str = "1.2"

    #: Request header fields the caller adds or replaces (HTTP: ``-H``, ``-A``, ``-e``), in
    #: order; an empty value removes a default field (curl's ``-H 'Name:'``).  The plan
    #: shows each; the policy refuses CR, LF and NUL in them.
    headers: tuple[tuple[str, str], ...] = ()
    #: How URL text is read (schemes.rfc3986.Syntax): ``"rfc3986"`` (RFC 3986, IRIs and the
    #: successor RFCs, the default) or ``"rfc1738"`` (the letter of RFC 1738, ``--rfc1738``).
    #: It is about how a URL is written; where a URL may go is the ``policy``.
    syntax: str = "rfc3986"
    #: HTTP authentication with the credentials found for the host (the URL's user and
    #: password, ``-u``, ~/.netrc): ``"basic"`` (sent with the request, as curl does) or
    #: ``"digest"`` (RFC 7616: only in answer to a 401 that asks for it; ``--digest``).
    http_auth: str = "basic"
    #: ``-u user:password``: the login for the URL given — not for a redirect or referral
    #: to another origin (scheme, host or port: resolvers.core drops it there), as curl
    #: does since CVE-2022-27776.
    user: tuple[str, str] | None = None
    #: ``--location-trusted``: send ``-u``'s login to wherever a redirect leads (curl's).
    location_trusted: bool = False
    #: ``-I``: only what the server says about the resource (HTTP ``HEAD``; FTP ``SIZE`` and
    #: ``MDTM``, as curl does), never its content.
    head: bool = False
    #: Hand over the body of an error reply (HTTP 404 and the like) instead of dropping
    #: it: the resource comes back with its content and ``Resource.failure`` set to the
    #: typed error the status means, for the caller to raise once the body is shown (what
    #: ``omniurl get`` does without ``-f``, as curl prints a 404's page).  Off: the error
    #: is raised and the body never read.
    error_body: bool = False
    #: ``--compressed``: ask for gzip/deflate (HTTP) and decode it as it streams.
    compressed: bool = False
    #: The most bytes a body may expand to when decoded (``--max-filesize``): past it, a
    #: decompression bomb is refused with LimitExceeded (1 GiB).
    max_decoded: int = 1 << 30
    #: ``--max-filesize``: a content larger than this many bytes ends with LimitExceeded
    #: (curl's exit 63) — before its transfer when its size is known (HTTP's
    #: Content-Length, FTP's SIZE), during it otherwise, whatever the scheme; None: no bound.
    max_filesize: int | None = None
    #: ``--max-expansion``: past its first MiB, a decoded body may be at most this many times
    #: the compressed bytes it came from (resolvers.http.decoding; 0: no ratio bound).
    max_expansion: int = 1000
    #: ``--raw``: a Gopher text item exactly as on the wire (dot-stuffing and the closing
    #: "." line kept) rather than its text.
    raw: bool = False
    #: ``-x``/``--proxy``: ``socks5://``, ``socks5h://`` or ``http://host:port`` (see
    #: resolvers.proxy); ``--noproxy`` hosts or domains (``*``: all) connect directly.
    proxy: str | None = None
    noproxy: tuple[str, ...] = ()
    #: ``-p``/``--proxytunnel``: ftp through an HTTP proxy by CONNECT (FTP end to end), not
    #: as the proxy's ``GET ftp://…`` (curl's default, and omniurl's).
    proxy_tunnel: bool = False

    def with_(self, **changes: Any) -> Options:
        return replace(self, **changes)

    def __post_init__(self) -> None:
        if not isinstance(self.schemes, Mapping):
            object.__setattr__(self, "schemes", {type(v): v for v in self.schemes})
        elif not all(isinstance(k, type) and isinstance(v, k) for k, v in self.schemes.items()):
            # (the string-keyed bag of earlier versions must not pass silently)
            raise TypeError("Options.schemes maps an options type to its instance")

    def of(self, kind: type[T]) -> T:
        """The options of type ``kind`` (a scheme's options dataclass): the ones set with
        :meth:`with_scheme`, else its defaults."""
        found = self.schemes.get(kind)
        return found if found is not None else kind()

    def with_scheme(self, *values: Any) -> Options:
        """These options with ``values`` (scheme options instances) set, each replacing any
        of its type: ``options.with_scheme(MailtoOptions(smtp="relay:25"))``."""
        table = dict(self.schemes)
        table.update((type(v), v) for v in values)
        return replace(self, schemes=table)

    def note(self, direction: str, text: str) -> None:
        if self.transcript is not None:
            self.transcript(direction, text)

    def tell(self, text: str) -> None:
        """A :data:`Notice`: said even without ``-v``."""
        if self.notice is not None:
            self.notice(text)

    def resolving(self, *specs: str) -> Options:
        """These options with curl-style ``HOST[:PORT]:ADDR[:PORT]`` mappings added.

        ``Options().resolving("ds.internic.net:21:127.0.0.1:2121")`` sends every connection
        for ``ds.internic.net`` port 21 to ``127.0.0.1`` port 2121; without the first port the
        mapping holds for every port of the host; without the second the port is kept.
        """
        mapping = dict(self.resolve)
        mapping.update(parse_resolve(spec) for spec in specs)
        return replace(self, resolve=mapping)

    def map_address(self, host: str, port: int) -> tuple[str, int]:
        """Apply the ``resolve`` mapping (curl's ``--resolve``) to a host and port."""
        for key in ((host.lower(), port), (host.lower(), None)):
            if key in self.resolve:
                address, new_port = self.resolve[key]
                return address, port if new_port is None else new_port
        return host, port
