"""RFC 1738 §3.3 as a pure function: an ``http:``/``https:`` URL in, the request out.

``http://<host>:<port>/<path>?<searchpart>`` is a ``GET`` of ``<path>?<searchpart>`` (still
encoded, exactly as written in the URL: §3.3 says the path and search are sent as they are)
to ``host:port``; an empty path is ``/``.  The fragment is never sent (RFC 1630 §4.2).  HTTP/1.1
is spoken (RFC 9112); the plan's steps are the request line and every header field exactly
as sent.
"""

from __future__ import annotations

import functools

from omniurl.schemes import precompiled
from omniurl.schemes.base import URL
from omniurl.schemes.http import HTTPURL
from omniurl.schemes.records import record

from ..errors import PlanError
from ..options import Options
from ..plan import Condition, Plan, Role, Step, WireValue

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    from ..proxy import ProxySpec

USER_AGENT = "omniurl/0.1"
#: Sent with every request: the body exactly as stored (``identity``, as curl does without
#: ``--compressed``), so ``Content-Length`` is the number of bytes that will arrive.
DEFAULT_HEADERS: tuple[tuple[str, str], ...] = (
    ("User-Agent", USER_AGENT),
    ("Accept", "*/*"),
    ("Accept-Encoding", "identity"),
)


class HTTPRole(Role):
    """The request line, then one step per header field (RFC 9112 §2.1)."""

    REQUEST = "request"
    HEADER = "header"
    #: The Digest answer to a 401 (RFC 7616): sent, with the request again, only then.
    DIGEST = "digest"
    #: A followed redirect's body read and its connection kept for the next hop (nothing
    #: sent): only when :data:`CARRY_ON_REDIRECT` holds.
    CARRY = "carry"


@record(frozen=True)
class HeaderField:
    """A header step's detail: the field's name and value, as its step sends them."""

    name: str
    value: str


@record(frozen=True)
class HTTPDetails:
    """What the HTTP executor needs beyond the steps (typed; never sent)."""

    #: The request target, exactly as sent: the origin form (RFC 9112 §3.2.1), or the
    #: absolute form to an HTTP proxy (§3.2.2).
    target: str
    tls: bool
    #: ``-C``: HTTP can continue a transfer (Range), and from which byte.
    resumable: bool
    offset: int
    #: Digest credentials (user, password) for a 401's challenge (the password is never
    #: in a step: the executor computes the answer, shown masked in the plan).
    digest: tuple[str, str] | None = None
    #: The request method: GET, or HEAD (``-I``).
    method: str = "GET"
    #: An HTTP proxy asked for the URL (``GET http://…`` or, as curl does, ``GET ftp://…``):
    #: its host and port, connected to as the origin (the policy checks its address).
    forward: tuple[str, int] | None = None
    #: The forwarding proxy is an ``https://`` one: TLS to it, its certificate checked.
    forward_tls: bool = False


#: A 401 that asks for Digest (RFC 7616 §3.3): the conditional step's words and decision.
def digest_asked(challenge: str | None) -> bool:
    """RFC 7616 §3.3: the 401's WWW-Authenticate offers the Digest scheme."""
    return challenge is not None and challenge.strip().lower().startswith("digest")


DIGEST_ON_401: Condition[str | None] = Condition(
    "401 with a Digest challenge (RFC 7616): the request again, answered", digest_asked
)


@record(frozen=True)
class RedirectHop:
    """What a followed redirect showed: the facts :data:`CARRY_ON_REDIRECT` decides on."""

    #: The connection is this resolve's own, in a chain of hops the core follows
    #: (``resolvers.hops.HOP_CARRY``): not a client's pool slot (the pool keeps its
    #: connections its own way), nor the batch engine's.
    own: bool
    #: Why the reply's connection may carry no other request (``reply.reuse_refused``:
    #: ``Connection: close`` or HTTP/1.0, a body delimited by the close, both framings),
    #: or None.
    refused: str | None
    #: The body's declared length (``Content-Length``), or None (chunked, or none given).
    length: int | None = None


@record(frozen=True)
class CarryBound:
    """How much of a followed redirect's body the ``HTTPRole.CARRY`` step reads, and for
    how long, before its connection is given up (closed, never kept) and the next hop goes
    on a new one.  The body is never shown (a followed redirect's page is no one's), so
    reading it only pays for the connection it frees; a new connection costs one setup (a
    round trip, TLS's one or two more), so waiting longer than about that is never worth
    it.  Before, a 302 declaring ``Content-Length: 1000`` and sending 10 bytes held the get
    for the whole read timeout (30 s) before the next hop; curl 7.88 hangs on it."""

    #: Bytes read at most (a body declared longer is not read at all: :func:`carries_next_hop`).
    limit: int = 1 << 20
    #: Seconds the rest of the body is waited for, once the head is in.
    within: float = 0.25


CARRY_BOUND = CarryBound()


def carries_next_hop(hop: RedirectHop) -> bool:
    """Whether a followed redirect's body is read (:data:`CARRY_BOUND`: at most 1 MiB, for
    at most 0.25 s) so that its connection carries the next hop, as curl's does
    (``%{num_connects}`` 1 for a redirect to the same server): only a connection of the
    resolve's own that may carry another request (RFC 9112 §9.3), whose body is not declared
    longer than the bound.  A body delimited by the close is never waited for (a server
    that keeps such a connection open would hold the redirect until the read timeout; curl
    goes on at once with a new connection)."""
    return (
        hop.own and hop.refused is None and (hop.length is None or hop.length <= CARRY_BOUND.limit)
    )


CARRY_ON_REDIRECT: Condition[RedirectHop] = Condition(
    "a redirect followed on a connection of this resolve's own (no client's pool) that may "
    "carry another request (RFC 9112 §9.3), its body declared at most 1 MiB if at all",
    carries_next_hop,
)

#: The conditional step of a plan that follows redirects (``Options.follow``): nothing sent.
CARRY_STEP = Step(
    data=b"",
    shown=(
        "(the redirect's body read, at most 1 MiB within 0.25 s, and its connection kept "
        "for the next hop; else the connection is closed)"
    ),
    kind="info",
    when=CARRY_ON_REDIRECT.text,
    role=HTTPRole.CARRY,
    condition=CARRY_ON_REDIRECT,
    detail=CARRY_BOUND,
)


def credentials_for(http: HTTPURL, options: Options) -> tuple[str, str] | None:
    """The user and password sent to ``http``'s host: the URL's own (RFC 3986 §3.2.1;
    deprecated by RFC 9110 §4.2.4, accepted as curl does), else the ones configured for
    the host (``-u``, ~/.netrc) — for that host only: a redirect elsewhere carries none."""
    if http.user is not None:
        if http.password is not None:
            return http.user, http.password
        known = options.user or options.credentials.get(http.hostname)
        if known is not None and known[0] == http.user:
            return known
        return http.user, ""
    return options.user or options.credentials.get(http.hostname)


def basic_credentials(user: str, password: str) -> str:
    """RFC 7617 §2: ``Basic base64(user ":" password)``, UTF-8 (§2.1's charset)."""
    import base64

    token = f"{user}:{password}".encode("utf-8", "surrogateescape")
    return "Basic " + base64.b64encode(token).decode("ascii")


#: RFC 9110 §5.6.2: a field name is a token.
_TOKEN = precompiled.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")


def request_headers(given: tuple[tuple[str, str], ...]) -> list[tuple[str, str]]:
    """The default fields with the caller's (``-H``/``-A``/``-e``) applied: a field of the
    same name (case-insensitive) replaces the default in its place, an empty value removes
    it, the others follow in the order given.  ``Host`` is the URL's, never replaced."""
    fields = list(DEFAULT_HEADERS)
    for name, value in given:
        if not _TOKEN.fullmatch(name) or name.lower() == "host":
            raise PlanError(
                f"{name!r} is not a header field name a request may set (RFC 9110 §5.6.2)",
                component="header",
            )
        at = next((i for i, (n, _v) in enumerate(fields) if n.lower() == name.lower()), None)
        if at is None:
            if value:
                fields.append((name, value))
        elif value:
            fields[at] = (name, value)
        else:
            del fields[at]
    return fields


if TYPE_CHECKING:

    class _HostAndPort(Protocol):
        @property
        def hostname(self) -> str: ...
        @property
        def port(self) -> int | None: ...
        @property
        def default_port(self) -> int | None: ...


def host_header(url: _HostAndPort) -> str:
    """RFC 9112 §3.2 / RFC 9110 §7.2 ``Host``: the host (an IPv6 literal in brackets) and
    the port unless it is the scheme's default.  An IPv6 zone id is not sent: it names an
    interface of this machine, meaningless to the server (RFC 6874 §4)."""
    host = url.hostname.split("%", 1)[0]
    if ":" in host:
        host = f"[{host}]"
    if url.port is not None and url.port != url.default_port:
        host += f":{url.port}"
    return host


def request_line_around(method: str) -> tuple[bytes, bytes]:
    """The request line's bytes before and after its target (RFC 9112 §3: ``method SP
    request-target SP HTTP-version``): the one layout of the line, which :func:`request_line`
    fills and the batch's lean engine fills with each URL's target (its template)."""
    return method.encode("ascii") + b" ", b" HTTP/1.1"


def request_line(method: str, target: str) -> bytes:
    """The request line for ``target`` (as sent: UTF-8, an undecodable byte kept)."""
    before, after = request_line_around(method)
    return before + target.encode("utf-8", "surrogateescape") + after


def request_target(url: HTTPURL) -> str:
    """The origin-form request target (RFC 9112 §3.2.1): path (``/`` if empty) and ``?search``."""
    target = url.path or "/"
    if url.search is not None:
        target += "?" + url.search
    return target


def shown_field(name: str, value: str) -> str | None:
    """How a header field is shown (plan, ``-v``) when it differs from the wire: credentials
    (``Authorization``, ``Proxy-Authorization``) as their scheme and ``****``."""
    if name.lower() in ("authorization", "proxy-authorization"):
        return f"{name}: {value.split(' ', 1)[0]} ****"
    return None


def header_steps(fields: list[tuple[str, str]]) -> list[Step]:
    """One step per header field, as sent; credentials shown masked."""
    return [
        _field_step(name, value) if name.lower() not in _UNCACHED else _make_field_step(name, value)
        for name, value in fields
    ]


#: Fields whose steps are never kept in :func:`_field_step`'s cache: credentials (a
#: long-lived process should not hold every password it sent) and cookies.
_UNCACHED = frozenset({"authorization", "proxy-authorization", "cookie"})


def _make_field_step(name: str, value: str) -> Step:
    line = f"{name}: {value}".encode("utf-8", "surrogateescape")
    return Step.line(
        line,
        shown=shown_field(name, value),
        values=[WireValue(name.lower(), line, "header")],
        role=HTTPRole.HEADER,
        detail=HeaderField(name, value),
    )


#: A field's step, made once: a batch sends the same ``Host``, ``User-Agent``, ``Accept``
#: and ``Accept-Encoding`` with every URL, and a step is frozen (as are its values and
#: detail), so one object serves them all (measured, 20,000 plans of
#: ``http://127.0.0.1:8080/batch/fNNNNN.txt``, interleaved: 45–46 → 20 µs CPU a plan).
_field_step = functools.lru_cache(maxsize=512)(_make_field_step)


def plan_forwarded(
    url: URL,
    options: Options,
    *,
    proxy: tuple[str, int],
    proxy_authorization: str | None,
    host: str,
    proxy_tls: bool = False,
    shown_target: str,
    values: list[WireValue],
) -> Plan:
    """A URL of another scheme asked of an HTTP proxy (RFC 9112 §3.2.2's absolute form):
    ``GET ftp://host/path HTTP/1.1`` to the proxy, which speaks the URL's protocol itself.
    ``values`` are what the proxy will send on (an FTP CWD's decoded segment…): the policy
    checks them as if omniurl sent them, so a URL it refuses reaches no proxy either."""
    target = str(url).split("#", 1)[0]
    method = "HEAD" if options.head else "GET"
    data = request_line(method, target)
    step = Step.line(
        data,
        shown=f"{method} {shown_target} HTTP/1.1",
        values=[
            WireValue("path", target.encode("utf-8", "surrogateescape"), "http-target"),
            *values,
        ],
        role=HTTPRole.REQUEST,
    )
    ranges = _range_headers(options)
    fields = [("Host", host), *request_headers(options.headers), *ranges]
    if proxy_authorization is not None:
        fields.append(("Proxy-Authorization", proxy_authorization))
    steps = [step, *header_steps(fields)]
    if options.follow:
        steps.append(CARRY_STEP)
    return Plan(
        url=url,
        scheme=url.scheme,
        host=getattr(url, "hostname", None),
        port=getattr(url, "effective_port", None),
        transport="tcp",
        steps=tuple(steps),
        explicit_port=getattr(url, "port", None) is not None,
        details=HTTPDetails(
            target=target,
            tls=False,
            resumable=True,
            offset=options.resume_from if ranges else 0,
            method=method,
            forward=proxy,
            forward_tls=proxy_tls,
        ),
    )


def plan_http(url: URL, options: Options) -> Plan:
    """The plan for an ``http:`` or ``https:`` URL (pure)."""
    if not isinstance(url, HTTPURL):
        raise PlanError(f"not an http: URL: {url}", component="scheme")
    http = url
    if not http.host:
        raise PlanError(f"an {http.scheme}: URL needs a host (§3.3)", component="host")
    credentials = credentials_for(http, options)
    target = request_target(http)
    proxy = _forwarding_proxy(http, options)
    if proxy is not None:
        # RFC 9112 §3.2.2: to a proxy, the absolute form (no userinfo: §4.2.4 of RFC 9110)
        target = f"http://{host_header(http)}{target}"
    method = "HEAD" if options.head else "GET"
    data = request_line(method, target)
    step = Step.line(
        data,
        values=[WireValue("path", target.encode("utf-8", "surrogateescape"), "http-target")],
        role=HTTPRole.REQUEST,
    )
    # Every header field the executor sends, in order, as it goes on the wire (the executor
    # sends exactly these: resolvers.http.connection).  -C adds RFC 9110 §14.2
    # Range from the kept bytes on and If-Range with the first response's validator.
    ranges = _range_headers(options)
    given = options.headers
    # (-C from a kept part: its bytes are the decoded content, so the rest is asked of the
    # identity representation — a Range counts the bytes of the representation sent, RFC
    # 9110 §14.1.2, and the gzip one's would have been appended to decoded bytes)
    compressed = options.compressed and not ranges
    if compressed and not any(n.lower() == "accept-encoding" for n, _ in given):
        given = (*given, ("Accept-Encoding", "gzip, deflate"))  # (resolvers.http.decoding)
    fields = [("Host", host_header(http)), *request_headers(given), *ranges]
    if proxy is not None and proxy.authorization is not None:
        fields.append(("Proxy-Authorization", proxy.authorization))
    digest = None
    if credentials is not None and not any(n.lower() == "authorization" for n, _ in fields):
        if options.http_auth == "digest":
            digest = credentials
        else:
            fields.append(("Authorization", basic_credentials(*credentials)))
    steps = [step, *header_steps(fields)]
    if digest is not None:
        user = digest[0].encode("utf-8", "surrogateescape")
        steps.append(
            Step.line(
                b'Authorization: Digest username="' + user + b'", ...',
                shown=f'Authorization: Digest username="{digest[0]}", response=****',
                when=DIGEST_ON_401,
                values=[WireValue("user", user, "header")],
                role=HTTPRole.DIGEST,
            )
        )
    if options.follow:
        steps.append(CARRY_STEP)
    return Plan(
        url=url,
        scheme=http.scheme,
        host=http.hostname,
        port=http.effective_port,
        transport="tcp",
        steps=tuple(steps),
        explicit_port=http.port is not None,
        details=HTTPDetails(
            target=target,
            tls=http.scheme == "https",
            resumable=True,
            offset=options.resume_from if ranges else 0,
            digest=digest,
            method=method,
            forward=None if proxy is None else (proxy.host, proxy.port),
            forward_tls=proxy is not None and proxy.scheme == "https",
        ),
    )


#: Where a request goes: scheme, host and port (a connection's key).
Origin = tuple[str, str, int]


def origin_of(plan: Plan) -> Origin:
    """The origin ``plan``'s request goes to: its scheme, host (``""`` for none) and port —
    the plan's own, port 0 included (``http://h:0/`` connects to port 0: the plan says so
    in its ``Host``), 80 only when the plan names none.  The one rule of the executor,
    the lean batch engine and :meth:`HTTPResolver.first_connection`."""
    return (plan.scheme, plan.host or "", 80 if plan.port is None else plan.port)


def request_head(plan: Plan, *extra: bytes) -> bytes:
    """The bytes sent for ``plan``: its request line and header steps, each exactly as the
    step holds it, CRLF after each, then the empty line (RFC 9112 §2.1); ``extra`` field
    lines (a Digest answer, when a 401 made it due) after the planned ones."""
    lines = [s.data for s in plan.steps if s.role in (HTTPRole.REQUEST, HTTPRole.HEADER)]
    return b"\r\n".join([*lines, *extra, b"", b""])


def _forwarding_proxy(url: HTTPURL, options: Options) -> ProxySpec | None:
    """The ``-x http://`` or ``https://`` proxy an ``http:`` URL is asked of, or None.  Its
    request — the absolute form, ``Proxy-Authorization`` — is planned here and sent by
    omniurl's own connection, so the plan shows every byte.  An ``https:`` URL goes through
    a ``CONNECT`` tunnel and SOCKS carries the connection (resolvers.net): the request inside
    is the origin form, as planned."""
    if url.scheme != "http" or options.proxy is None:  # (no import without a proxy)
        return None
    from ..proxy import http_proxy_for

    return http_proxy_for(url.hostname, options.proxy, options.noproxy)


__all__ = [
    "CARRY_BOUND",
    "CARRY_ON_REDIRECT",
    "CARRY_STEP",
    "DEFAULT_HEADERS",
    "USER_AGENT",
    "CarryBound",
    "HTTPDetails",
    "HTTPRole",
    "HeaderField",
    "RedirectHop",
    "carries_next_hop",
    "header_steps",
    "host_header",
    "plan_forwarded",
    "plan_http",
    "request_head",
    "request_target",
    "shown_field",
]


def _range_headers(options: Options) -> tuple[tuple[str, str], ...]:
    """``-C``'s ``Range`` and ``If-Range`` (RFC 9110 §14.2, :func:`.ranges.range_headers`);
    none at offset 0, where :mod:`.ranges` (with :mod:`resolvers.resume`'s enum) is not
    imported: a plain get plans its request before its early connect, and the executor
    imports it after (docs/speed.md, *Connecting sooner*)."""
    if options.resume_from <= 0:
        return ()
    from .ranges import range_headers

    return tuple(range_headers(options.resume_from, options.resume_validator))
