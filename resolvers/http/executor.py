"""Carry out an HTTP plan: the planned head sent as planned, the reply pumped through a pure
machine, what it means decided by pure functions (:mod:`resolvers.http.reply`).

Redirects are never followed here: a 3xx with a ``Location`` raises
:class:`resolvers.base.Follow`, and the core re-plans the new URL and puts it through the
same policy (ports, schemes, ``file:`` never).  Error statuses become :class:`StatusError`
carrying the status (401/407: :class:`AuthError`).  The body is streamed exactly as received
(``Accept-Encoding: identity``, as curl does without ``--compressed``), so ``size`` is the
number of bytes that will arrive.  Connections come from :mod:`resolvers.http.connection`
(a client's shared pool when it has one), through any proxy (resolvers.net), so the bytes
sent are the plan's on every path.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextvars import ContextVar

from omniurl import schemes
from omniurl.schemes.errors import URLError
from omniurl.schemes.http import HTTPURL
from omniurl.schemes.records import record

from ..base import Follow
from ..errors import PlanError, ProtocolError, ResolveError
from ..hops import HOP_CARRY
from ..mediatype import charset_param
from ..options import Options
from ..plan import Plan
from ..resource import Resource, Resumed
from .connection import Connection, Connections, StaleConnection
from .planner import (
    CarryBound,
    HeaderField,
    HTTPDetails,
    HTTPRole,
    RedirectHop,
    origin_of,
    request_head,
    request_target,
)
from .ranges import Outcome, parse_content_range, range_outcome, validator_of
from .reply import (
    REDIRECTS,
    Head,
    ReplyReader,
    digest_challenged,
    empty_location,
    failure,
    location_reference,
    redirect_location,
    reuse_refused,
    transfer_codings,
)
from .result import HTTPResult

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing's import: ~9 ms of a get's start, docs/speed.md)
    from typing import Any


@record()
class _Link:
    """The connection a resolve uses, and where it goes back to when the resolve ends."""

    conn: Connection
    connections: Connections
    options: Options
    #: Gives the client's connection slot back (resolvers.slots); None: the connections are
    #: this resolve's own, closed after it.
    give_back: Callable[[], Awaitable[None]] | None = None
    released: bool = False
    #: Called once released: the batch's lean engine gives back the connection slot it
    #: held for an exchange it handed over (:attr:`Prepared.give_back`).
    then: Callable[[], None] | None = None

    async def reopen(self) -> None:
        """A new connection to the same origin (the old one cannot carry another request)."""
        self.connections.release(self.conn)
        self.conn = await self.connections.connect(*self.conn.origin, self.options)

    async def release(self) -> None:
        if self.released:
            return
        self.released = True
        try:
            self.connections.release(self.conn)
            if self.give_back is None:
                await self.connections.aclose()
        finally:
            if self.then is not None:
                self.then()
            if self.give_back is not None:
                await self.give_back()  # the slot, for the next resolve in the queue


class Prepared:
    """An exchange begun by the batch's lean engine (:mod:`resolvers.http.batch_engine`) and handed
    to this executor as it stands: the request ``sent`` on ``conn`` to ``origin``, the
    ``reader`` holding what was read of the reply (its ``head`` when complete; ``answered``:
    a byte of it came), or the ``error`` the exchange met before its head was complete —
    raised here where :func:`_exchange` would have raised it; without a ``conn``, the
    engine's connect failed (``error``, raised where :func:`_connect` would raise it) or
    outlasted the setup window (this path goes on, the time counted): it never connects
    twice for one URL.  So a reply the engine does not
    take (a redirect, an error status, a large or chunked body, a malformed head, a slow
    server) goes on through this path without its request being sent again (but by the
    stale-connection rule, :func:`_exchange`'s), and the batch's row is this path's own.
    Taken once (:data:`PREPARED`, set by the engine around the general path's resolve)."""

    __slots__ = (
        "answered",
        "conn",
        "error",
        "give_back",
        "head",
        "origin",
        "reader",
        "sent",
        "started",
        "taken",
    )

    def __init__(
        self,
        origin: tuple[str, str, int],
        sent: bytes,
        conn: Connection | None,
        reader: ReplyReader | None,
        head: Head | None = None,
        error: BaseException | None = None,
        answered: bool = False,
        started: float | None = None,
    ) -> None:
        #: When the request was sent (the loop's clock): the time since counts against
        #: the resolve's deadlines (:func:`resolvers.deadline.count_spent`).
        self.started = started
        self.origin = origin
        self.sent = sent
        self.conn = conn
        self.reader = reader
        self.head = head
        self.error = error
        self.answered = answered
        self.taken = False
        #: Gives back the client's connection slot the engine held for this exchange
        #: (once; :meth:`Engine.fetch`): when the link over ``conn`` is released, or when
        #: the hand-over ends.  None: no slot is held.
        self.give_back: Callable[[], None] | None = None


#: The exchange the lean engine hands to the next :func:`execute_http` of this task.
PREPARED: ContextVar[Prepared | None] = ContextVar("omniurl_http_prepared", default=None)


async def _continue_prepared(plan: Plan, options: Options) -> Resource | None:
    """The resource of the prepared exchange for ``plan``, once (None: there is none)."""
    prepared = PREPARED.get()
    if prepared is None or prepared.taken:
        return None
    prepared.taken = True
    if origin_of(plan) != prepared.origin or request_head(plan) != prepared.sent:
        # (a defect: the engine sends the plan's head; never a second request for it)
        if prepared.conn is not None:
            prepared.conn.close()
        raise RuntimeError(f"{plan.url}: the lean engine's exchange is not this plan's")
    if prepared.started is not None:
        import asyncio

        from ..deadline import count_spent

        count_spent(asyncio.get_running_loop().time() - prepared.started)
    if prepared.conn is None:
        # The engine's connect failed (its error, raised where _connect raises it) or took
        # the setup window: the core's setup timer, moved back by the time spent, is due
        # now and ends this resolve at its next wait (TooSlow), before a second connect.
        if prepared.error is not None:
            raise prepared.error
        import asyncio

        await asyncio.sleep(0)
        return None
    assert prepared.reader is not None
    link = _Link(prepared.conn, Connections(options), options, None, then=prepared.give_back)
    try:
        if prepared.error is not None:
            raise prepared.error
        head, reader = prepared.head, prepared.reader
        if head is None:
            try:
                head = await link.conn.read_head(reader, prepared.answered)
            except StaleConnection:  # (_exchange's rule: sent again on a new connection)
                link.options.note("*", "the kept connection was closed by the server")
                await link.reopen()
                head, reader = await _exchange(link, prepared.sent, "GET")
        return await _resource(plan, options, link, reader, head)
    except BaseException:
        await link.release()
        raise


async def execute_http(plan: Plan, options: Options) -> Resource:
    if PREPARED.get() is not None:
        resource = await _continue_prepared(plan, options)
        if resource is not None:
            return resource
    details = plan.details_as(HTTPDetails)
    if details.forward is not None:
        # GET http://… or ftp://… to an HTTP proxy: the proxy is the origin connected to
        # (its address passes the policy; TLS to an https:// one), the absolute URL the
        # request target.
        scheme, (host, port) = "https" if details.forward_tls else "http", details.forward
        options = options.with_(proxy=None)
    else:
        assert isinstance(plan.url, HTTPURL) and plan.host is not None
        scheme, host, port = origin_of(plan)
    if options.transcript is not None:  # (-v: what goes out, as planned)
        for step in plan.steps:
            # (the Digest answer shown when a 401 makes it due; the carry sends nothing)
            if step.role is not HTTPRole.DIGEST and step.kind == "send":
                options.note(">", step.shown)
    link = await _connect(scheme, host, port, options)
    try:
        head, reader = await _exchange(link, request_head(plan), details.method)
        if digest_challenged(head, details.digest is not None):
            head, reader = await _answer_digest(plan, link, reader, head)
        return await _resource(plan, options, link, reader, head)
    except BaseException:
        await link.release()
        raise


#: The most content codings one reply may stack (``Content-Encoding: gzip, gzip``): curl's
#: bound (CVE-2022-32206, a reply of thousands of layers made it allocate a decoder each).
MAX_CODINGS = 5


def _listed(codings: list[str]) -> str:
    """Codings named in an error: a hostile reply's thousands shown as their first few."""
    if len(codings) <= MAX_CODINGS + 1:
        return ", ".join(codings)
    return f"{', '.join(codings[: MAX_CODINGS + 1])}, … ({len(codings)} in all)"


#: RFC 9110 §9.2.2: the methods whose request may be sent again after a connection failed.
IDEMPOTENT = frozenset({"GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"})


async def _exchange(link: _Link, head: bytes, method: str) -> tuple[Head, Any]:
    """Send ``head`` and read the reply's head; a kept-alive connection that turns out to
    have been closed while idle (:class:`StaleConnection`: not a byte of reply) is replaced
    by another and an idempotent request sent again (RFC 9112 §9.3.1).  Each retry drops one
    kept connection, and a new connection is never stale, so this ends."""
    while True:
        try:
            return await link.conn.exchange(head, method)
        except StaleConnection:
            if method not in IDEMPOTENT:
                raise
            link.options.note("*", "the kept connection was closed by the server; reconnecting")
            await link.reopen()


async def _connect(scheme: str, host: str, port: int, options: Options) -> _Link:
    """A connection to the origin: from the client's pool (once one of its slots is free),
    or of this resolve's own."""
    pool = None
    if options.shared is not None:  # (a client's: the command's one URL has none)
        from .pool import HTTPPool, make_pool

        pool = options.shared.get(HTTPPool, make_pool)
    lease = await pool.lease(options, scheme, host) if pool is not None else None
    if lease is not None:
        connections, give_back = lease
    else:
        # This resolve's own, or those the redirect before it kept (_keep_for_next_hop)
        carry = HOP_CARRY.get()
        kept = carry.pop("http", None) if carry is not None else None
        connections, give_back = (kept or Connections(options)), None
    try:
        conn = await connections.connect(scheme, host, port, options)
    except BaseException:
        if give_back is not None:
            await give_back()
        raise
    return _Link(conn, connections, options, give_back)


async def _answer_digest(plan: Plan, link: _Link, reader: Any, head: Head) -> tuple[Head, Any]:
    """RFC 7616: a 401 that asks for Digest, when the plan has Digest credentials, is answered
    once — the planned head again with the plan's conditional Authorization step."""
    details = plan.details_as(HTTPDetails)
    step = next(s for s in plan.steps if s.role is HTTPRole.DIGEST)
    authorization = digest_authorization(plan, head)
    link.options.note("<", f"{head.status} (Digest challenge)")
    link.options.note(">", step.shown)
    await link.conn.drain(reader)
    if not link.conn.reusable:
        await link.reopen()
    field = b"Authorization: " + authorization.encode("latin-1")
    return await _exchange(link, request_head(plan, field), details.method)


def digest_authorization(plan: Plan, head: Head) -> str:
    """The Digest ``Authorization`` value answering ``head``'s challenge, computed by httpx's
    DigestAuth flow (sans-I/O: a response in, the request out).  Its ``uri`` is the URL's
    own path (RFC 7616 §3.4), as the origin server receives it, even through a proxy."""
    import httpx

    details = plan.details_as(HTTPDetails)
    assert details.digest is not None
    url = plan.url
    path = request_target(url) if isinstance(url, HTTPURL) else "/"
    try:
        request = httpx.Request(
            details.method,
            httpx.URL(
                scheme=plan.scheme,
                host=getattr(url, "hostname", ""),
                port=getattr(url, "port", None),
                raw_path=path.encode("utf-8", "surrogateescape"),
            ),
        )
    except httpx.InvalidURL as exc:
        raise PlanError(
            f"cannot answer a Digest challenge for {url}: {exc}", component="host"
        ) from None
    response = httpx.Response(401, headers=list(head.fields), request=request)
    flow = httpx.DigestAuth(*details.digest).auth_flow(request)
    next(flow)
    try:
        return flow.send(response).headers["Authorization"]
    except (StopIteration, httpx.ProtocolError, KeyError, ValueError) as exc:
        raise ProtocolError(f"{url}: an unusable Digest challenge: {exc}") from None


async def _resource(plan: Plan, options: Options, link: _Link, reader: Any, head: Head) -> Resource:
    """The reply as a resource: followed (``Follow``), refused (a typed error), or content."""
    headers = head.headers()
    # The field names as received ("Content-Type"), each field on its own line, as -I and
    # -v show them.
    replies = [head.status_line, *head.field_lines()]
    if options.transcript is not None:
        for line in replies:
            options.note("<", line)
    location = redirect_location(head, options.follow)
    if location is not None:
        new_url = _redirect_target(str(plan.url), location, options.syntax)
        await _keep_for_next_hop(plan, link, reader, head)
        raise Follow(new_url, reason=f"HTTP {head.status} redirect", replies=replies)
    given = head.get("location")
    if options.follow and head.status in REDIRECTS and given is not None and empty_location(given):
        # (said even without -v: omniurl follows redirects by default, so a 3xx page
        # printed with exit 0 and no word would surprise; -s silences it, as curl's is)
        said = (
            f"HTTP {head.status} redirect with an empty Location (RFC 9110 §10.2.2: it names "
            "this same URL): not followed; the reply is the result"
        )
        options.note("*", said)
        options.tell(said)
    details = plan.details_as(HTTPDetails)
    offset = details.offset
    outcome: Outcome | None = None
    if offset:
        outcome = range_outcome(head.status, headers.get("content-range"), offset)
        if outcome in ("complete", "refetch"):
            await link.release()
            return _no_body(plan, replies, head, outcome, offset)
    error: Exception | None = None
    if not 200 <= head.status < 400:  # (a success makes no error: nothing to gather)
        fields = (s.detail_as(HeaderField) for s in plan.steps if s.role is HTTPRole.HEADER)
        sent = frozenset(f.name.lower() for f in fields)
        if details.digest is not None:
            sent |= {"authorization"}
        error = failure(head, str(plan.url), sent=sent)
        if error is not None and not options.error_body:
            raise error
    length = headers.get("content-length")
    size = int(length) if length and length.isdigit() else None
    made: list[Resource] = []  # (the resource, once made: whether its consumer takes views)
    applied: list[str] = []
    # (a reply to HEAD has no content to decode, whatever coding its fields name: RFC 9110
    # §9.3.2 — before, ``-I --compressed`` of a ``br`` resource failed, exit 6, curl's 0)
    head_only = details.method == "HEAD"
    if options.compressed and not head_only and headers.get("content-encoding"):
        from .decoding import codings  # (only --compressed decodes: zlib, the decoders)

        # "identity" names no coding at all (RFC 9110 §8.4.1: a synonym for none): a server
        # that sends it sends the content as stored, which curl, wget and urllib3 save as is.
        applied = [c for c in codings(headers.get("content-encoding")) if c != "identity"]
        if offset and applied:
            # (the part holds decoded content and the identity was asked for: a coded rest
            # cannot be joined to it — appended, it made a corrupt file with exit 0)
            raise ProtocolError(
                f"{plan.url}: the server sent the rest of the content in the coding "
                f"{_listed(applied)}, though the identity was asked for: it cannot follow the "
                "decoded part kept (remove the part, or resume without --compressed)",
                component="content-encoding",
            )
    # RFC 9112 §6.1, §7: the transfer codings other than chunked (which the reader undoes)
    # are the message's, not the content's: gzip and deflate are undone here, always, and a
    # coding omniurl does not know is an error (as curl's exit 61) — before, the still-coded
    # bytes were saved as the content with exit 0.
    transfer = [c for c in transfer_codings(head) if c != "chunked"]
    no_body = head_only or head.status in (204, 304)
    if transfer and not no_body:
        unknown = [c for c in transfer if c not in ("gzip", "x-gzip", "deflate")]
        if unknown:
            await link.release()
            raise ProtocolError(
                f"{plan.url}: the server sent the transfer coding {_listed(unknown)}, which "
                "omniurl cannot decode (it knows chunked, gzip, deflate: RFC 9112 §7)",
                component="transfer-encoding",
            )
        if len(transfer) > MAX_CODINGS:
            # (before: a decoder a layer, nested — 3,000 layers of gzip in one field were a
            # RecursionError's traceback, exit 1)
            await link.release()
            raise ProtocolError(
                f"{plan.url}: the server sent {len(transfer)} transfer codings "
                f"({_listed(transfer)}): omniurl undoes at most {MAX_CODINGS} (RFC 9112 §7)",
                component="transfer-encoding",
            )
    else:
        transfer = []
    decoding = bool(applied) or bool(transfer)
    body = _body(
        link,
        reader,
        lambda: not decoding and bool(made) and made[0].views_ok,
        lambda: made[0].sink if made else None,
    )
    if head.status in (204, 304):
        # No content, whatever the fields say (RFC 9110 §15.3.5, §15.4.5): the reply ended
        # with its head.  Read to that end now (``_body`` then gives the connection back),
        # so the next request can use it even when the caller never reads the empty body:
        # a mirror's re-run of 2,000 unchanged files opened 2,001 connections at nginx.
        async for _ in body:
            pass
        body, size, decoding = _nothing(), 0, False
        applied, transfer = [], []
    # Several content codings are undone last applied first (RFC 9110 §8.4: "listed in the
    # order in which they were applied"), as curl does, at most MAX_CODINGS of them (curl's
    # bound since CVE-2022-32206: each layer is one more decoder a reply makes us run).  A
    # coding we never asked for is refused, never saved still coded.
    if len(applied) > MAX_CODINGS or any(c not in ("gzip", "x-gzip", "deflate") for c in applied):
        raise ProtocolError(
            f"{plan.url}: the server sent the content coding {_listed(applied)}, which "
            "omniurl did not ask for (--compressed asks for gzip, deflate"
            f"{f', at most {MAX_CODINGS} layers' if len(applied) > MAX_CODINGS else ''})",
            component="content-encoding",
        )
    if decoding:
        from .decoding import decoded

        # One chain, last applied first undone: the transfer codings were applied to the
        # message after the content codings to the content (RFC 9112 §7, RFC 9110 §8.4), so
        # the transfer's are undone first, each list from its end.
        for coding in reversed(applied + transfer):
            body = decoded(
                body,
                coding,
                limit=options.max_decoded,
                chunk_size=options.chunk_size,
                ratio=options.max_expansion,
            )
        size = None  # the size on the wire is not the content's
    result = _result(head, headers, outcome, offset, size)
    content_type = headers.get("content-type")
    resource = Resource(
        plan,
        kind="content",
        body=body,
        media_type=content_type.split(";", 1)[0].strip() if content_type else None,
        charset=charset_param(content_type),
        size=size,
        replies=replies,
        close=link.release,
        result=result,
        status=head.status,
        total=result.total,
        validator=result.validator,
        resumed=result.resumed,
    )
    resource.failure = error  # (Options.error_body: the caller raises it after the body)
    made.append(resource)
    return resource


async def _keep_for_next_hop(plan: Plan, link: _Link, reader: Any, head: Head) -> None:
    """The plan's conditional step for a followed redirect (``HTTPRole.CARRY``, due by
    ``planner.carries_next_hop``): its body read within the step's bound
    (:class:`~resolvers.http.planner.CarryBound`: at most 1 MiB, for at most 0.25 s) and
    the connection kept, with this resolve's own, for the next hop (``HOP_CARRY``) — a
    redirect to the same server then rides it, as curl's does (before: a new connection
    each hop).  Not due (a client's pool, the lean engine's slot, a reply whose connection
    cannot carry another request, a body declared longer than the bound): the link is
    released as before, by the caller.  A body that does not end within the bound (a
    ``Content-Length`` the server never fulfils), or breaks: the connection is closed,
    never kept, and the next hop goes on a new one (before: the read timeout, 30 s, was
    waited out first)."""
    step = next((s for s in plan.steps if s.role is HTTPRole.CARRY), None)
    if step is None:
        return
    carry = HOP_CARRY.get()
    own = carry is not None and link.give_back is None and link.then is None
    length = head.get("content-length")
    hop = RedirectHop(
        own,
        reuse_refused(head, reader.framing),
        int(length) if length is not None and length.isdigit() else None,
    )
    if link.released or not step.due(hop):
        return
    bound = step.detail_as(CarryBound)
    import asyncio

    try:
        async with asyncio.timeout(bound.within):
            complete = await link.conn.drain(reader, bound.limit)
    except (ResolveError, TimeoutError):
        complete = False
    if not complete or not link.conn.reusable:
        link.conn.close()  # (the rest of that body would come first on it)
        link.options.note(
            "*",
            f"the redirect's body did not end within {bound.within:g} s (at most "
            f"{bound.limit} bytes read): its connection is closed, the next hop gets a new one",
        )
        return  # (released by the caller)
    assert carry is not None  # (own)
    link.released = True
    link.connections.release(link.conn)
    carry["http"] = link.connections


async def _body(
    link: _Link, reader: Any, views: Callable[[], bool], sink: Callable[[], int | None]
) -> AsyncIterator[bytes]:
    """The body off the connection; the connection goes back (or is closed) at its end."""
    try:
        async for chunk in link.conn.body(reader, views, sink):
            yield chunk
    finally:
        await link.release()


async def _nothing() -> AsyncIterator[bytes]:
    """The body of a reply that has none."""
    return
    yield b""


def _no_body(plan: Plan, replies: list[str], head: Head, outcome: Outcome, offset: int) -> Resource:
    """A 416 to a resumed request: nothing is missing (``complete``), or the kept part is
    longer than the resource now is (``refetch``: the caller starts again from byte 0)."""
    resumed = Resumed(outcome, offset if outcome is Outcome.COMPLETE else 0)
    total = offset if outcome is Outcome.COMPLETE else None
    result = HTTPResult(head.status, head.headers(), resumed=resumed, total=total, unsatisfied=True)
    return Resource(
        plan,
        kind="content",
        body=_nothing(),
        size=0,
        replies=replies,
        result=result,
        status=head.status,
        total=total,
        resumed=resumed,
    )


def _result(
    head: Head, headers: dict[str, str], outcome: Outcome | None, offset: int, size: int | None
) -> HTTPResult:
    """The typed result of a response with content; under ``-C``, what the range came to
    and the complete length (``Content-Range``'s, else the size of the whole sent)."""
    resumed: Resumed | None = None
    total: int | None = None
    if outcome is not None:
        resumed = Resumed(outcome, offset if outcome is Outcome.APPEND else 0)
        total = size
        if outcome is Outcome.APPEND:
            total = parse_content_range(headers["content-range"]).complete_length
    return HTTPResult(
        head.status,
        headers,
        location=headers.get("location"),
        validator=validator_of(headers),
        resumed=resumed,
        total=total,
    )


def _redirect_target(base: str, location: str, syntax: str = "rfc3986") -> schemes.URL:
    """The URL a ``Location`` names, resolved against the request URL (RFC 9110 §10.2.2:
    a URI-reference, resolved per RFC 3986 §5 — :func:`schemes.join`).  A space inside it
    is taken as ``%20``, the recovery §10.2.2's note allows and curl, wget and browsers
    make (servers send ``Location: /my file.pdf``; before, the redirect was refused, exit
    6, where curl followed it); other white space and controls are still refused."""
    try:
        # The lenient reading judges the target itself (it takes what RFC 3986 refuses).
        # (octets that are not UTF-8 go out as their own %XX, as curl sends them — read as
        # characters, a Latin-1 "caf\xe9.txt" went out as %C3%A9, another name)
        target = schemes.join(base, location_reference(location), check=syntax != "lenient")
        return schemes.parse(target, syntax=syntax)
    except URLError as exc:
        raise ProtocolError(
            f"the server redirected to {location!r}, which is not a valid URL: {exc}",
            component="location",
        ) from None


__all__ = ["digest_authorization", "execute_http"]
