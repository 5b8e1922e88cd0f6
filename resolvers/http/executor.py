"""Carry out an HTTP plan with httpx: one GET, streamed, redirects handed back to the core.

httpx never follows a redirect here (``follow_redirects=False``): a 3xx with a ``Location``
raises :class:`resolvers.base.Follow`, and the core re-plans the new URL and puts it through
the same policy (ports, schemes, ``file:`` never).  Error statuses become
:class:`StatusError` carrying the status; every httpx failure becomes a typed
:mod:`resolvers.errors` error.  The body is streamed exactly as received
(``Accept-Encoding: identity``, as curl does without ``--compressed``), so ``size`` is the
number of bytes that will arrive.
"""

from __future__ import annotations

import contextlib
import ssl
from collections.abc import AsyncIterator, Iterator

import httpx

from omniurl import schemes
from omniurl.schemes.errors import URLError
from omniurl.schemes.http import HTTPURL

from ..base import Follow
from ..errors import (
    AuthError,
    ConnectError,
    ConnectionClosed,
    PlanError,
    ProtocolError,
    ResolveError,
    ResolveTimeout,
    StatusError,
    TransportError,
)
from ..options import Options
from ..plan import Plan
from ..resource import Resource
from .decoding import codings, decoded
from .planner import HeaderField, HTTPDetails, HTTPRole, request_target
from .pool import HTTPPool, make_pool, make_transport, timeouts
from .ranges import Outcome, parse_content_range, range_outcome, validator_of
from .transport import PEER_CLOSED

REDIRECTS = (301, 302, 303, 307, 308)


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
    (:data:`~resolvers.http.transport.PEER_CLOSED`) — never by an error message's words."""
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


def _status_line(response: httpx.Response) -> str:
    return f"{response.http_version} {response.status_code} {response.reason_phrase}".rstrip()


async def execute_http(plan: Plan, options: Options) -> Resource:
    url = plan.url
    details = plan.details_as(HTTPDetails)
    target = details.target
    scheme, host, port = plan.scheme, getattr(url, "hostname", ""), getattr(url, "port", None)
    if details.forward is not None:
        # GET http://… or ftp://… to an HTTP proxy: the proxy is the origin connected to
        # (its address passes the policy), the absolute URL the request target.
        scheme, (host, port) = "http", details.forward
        options = options.with_(proxy=None)
    else:
        assert isinstance(url, HTTPURL)
    # The URL's own path (what httpx's Digest answer names as its "uri", RFC 7616 §3.4, as
    # the origin server receives it from a proxy); what is sent is the planned target.
    path = request_target(url) if isinstance(url, HTTPURL) else "/"
    try:
        request_url = httpx.URL(
            scheme=scheme,
            host=host,
            port=port,
            raw_path=path.encode("utf-8", "surrogateescape"),
        )
    except httpx.InvalidURL as exc:
        # A leniently parsed host httpx's IDNA 2008 encoder refuses ("☃.example").
        raise PlanError(f"cannot make an HTTP request of {url}: {exc}", component="host") from None
    pool = options.shared.get(HTTPPool, make_pool) if options.shared is not None else None
    # A client's shared connections (resolvers.http.pool) for these options, if it has
    # them; otherwise a transport of this resolve's own, closed after it.
    lease = await pool.lease(options, scheme, host) if pool is not None else None
    transport = lease[0] if lease is not None else make_transport(options, scheme, host)

    async def release() -> None:
        if lease is None:
            await transport.aclose()
        else:
            await lease[1]()  # the connection slot, for the next resolve in the queue

    try:
        # The plan's header fields, in its order, nothing else (resolvers.http.planner).
        fields = (s.detail_as(HeaderField) for s in plan.steps if s.role is HTTPRole.HEADER)
        headers = [(field.name, field.value) for field in fields]
        offset = details.offset
        extensions: dict[str, object] = {"timeout": timeouts(options)}
        if getattr(transport, "proxy", None) is None:
            # httpx.URL removes dot segments ("/a/./b/../c" -> "/a/c"); httpcore's "target"
            # extension sends the planned request target as it is: the plan is the wire.
            # (Through a proxy the target is the absolute URL, which httpcore builds.)
            extensions["target"] = target.encode("utf-8", "surrogateescape")
        request = httpx.Request(details.method, request_url, headers=headers, extensions=extensions)
        for step in plan.steps:
            if step.role is not HTTPRole.DIGEST:  # (shown when a 401 makes it due)
                options.note(">", step.shown)
    except BaseException:
        await release()
        raise
    response: httpx.Response | None = None
    try:
        PEER_CLOSED.set(False)
        with typed_errors(f"fetching {plan.url}"):
            response = await transport.handle_async_request(request)
            response = await _answer_digest(plan, request, response, transport, options)
        replies = [_status_line(response)]
        options.note("<", replies[0])
        # The field names as received (h11 keeps them: "Content-Type", not httpx's
        # lower-cased keys), each field on its own line, as -I and -v show them.
        encoding = response.headers.encoding
        for raw_name, raw_value in response.headers.raw:
            line = f"{raw_name.decode(encoding)}: {raw_value.decode(encoding)}"
            options.note("<", line)
            replies.append(line)
        status = response.status_code
        location = response.headers.get("location")
        if status in REDIRECTS and location is not None and options.follow:
            new_url = _redirect_target(str(plan.url), location, options.syntax)
            raise Follow(new_url, reason=f"HTTP {status} redirect", replies=replies)
        outcome: Outcome | None = None
        if offset:
            outcome = range_outcome(status, response.headers.get("content-range"), offset)
            if outcome in ("complete", "refetch"):
                await response.aclose()
                await release()
                return _no_body(plan, replies, response, outcome, offset)
        if status in (401, 407):
            # RFC 9110 §15.5.2/§15.5.8: credentials missing or refused (exit 7), not a
            # missing resource.
            who = "the proxy" if status == 407 else "the server"
            field = "proxy-authorization" if status == 407 else "authorization"
            sent = any(name.lower() == field for name, _ in headers) or (
                status == 401 and details.digest is not None
            )
            # A wrong password is not a missing one: say which (curl says neither).
            said = (
                f"{who} refused the credentials"
                if sent
                else f"{who} needs credentials (give -u USER:PASSWORD or a netrc login)"
            )
            raise AuthError(
                f"{plan.url}: {said} ({status} {response.reason_phrase})",
                component="user",
                status=status,
                replies=tuple(replies),
            )
        if status >= 400:
            raise StatusError(
                f"{plan.url}: the server answered {status} {response.reason_phrase}",
                status=status,
                reply=replies[0],
                replies=tuple(replies),
            )
    except BaseException:
        if response is not None:
            await response.aclose()
        await release()
        raise

    resp: httpx.Response = response

    async def close() -> None:
        await resp.aclose()
        await release()

    async def raw() -> AsyncIterator[bytes]:
        PEER_CLOSED.set(False)
        try:
            with typed_errors(f"reading {plan.url}"):
                async for chunk in resp.aiter_raw():
                    yield chunk
        finally:
            await close()

    content_type = resp.headers.get("content-type")
    length = resp.headers.get("content-length")
    size = int(length) if length and length.isdigit() else None
    body: AsyncIterator[bytes] = raw()
    applied = codings(resp.headers.get("content-encoding"))
    if options.compressed and applied and not offset:
        if len(applied) != 1 or applied[0] not in ("gzip", "x-gzip", "deflate"):
            await close()
            raise ProtocolError(
                f"{plan.url}: the server sent the content coding {', '.join(applied)}, which "
                "omniurl did not ask for (--compressed asks for gzip, deflate)"
            )
        body = decoded(
            body,
            applied[0],
            limit=options.max_decoded,
            chunk_size=options.chunk_size,
            ratio=options.max_expansion,
        )
        size = None  # the size on the wire is not the content's
    metadata: dict[str, object] = {
        "status": resp.status_code,
        "headers": dict(resp.headers.items()),
        "location": resp.headers.get("location"),
        "validator": validator_of(dict(resp.headers.items())),
    }
    if outcome is not None:
        metadata.update(resume=outcome, offset=offset if outcome == "append" else 0)
        total = size
        if outcome == "append":
            total = parse_content_range(resp.headers["content-range"]).complete_length
        if total is not None:
            metadata["total"] = total
    return Resource(
        plan,
        kind="content",
        body=body,
        media_type=content_type.split(";", 1)[0].strip() if content_type else None,
        size=size,
        replies=replies,
        metadata=metadata,
        close=close,
    )


def _no_body(
    plan: Plan, replies: list[str], response: httpx.Response, outcome: Outcome, offset: int
) -> Resource:
    """A 416 to a resumed request: nothing is missing (``complete``), or the kept part is
    longer than the resource now is (``refetch``: the caller starts again from byte 0)."""

    async def nothing() -> AsyncIterator[bytes]:
        return
        yield b""

    metadata: dict[str, object] = {
        "status": response.status_code,
        "headers": dict(response.headers.items()),
        "resume": outcome,
        "offset": offset if outcome == "complete" else 0,
    }
    if outcome == "complete":
        metadata["total"] = offset
    return Resource(
        plan, kind="content", body=nothing(), size=0, replies=replies, metadata=metadata
    )


async def _answer_digest(
    plan: Plan,
    request: httpx.Request,
    response: httpx.Response,
    transport: httpx.AsyncBaseTransport,
    options: Options,
) -> httpx.Response:
    """RFC 7616: a 401 that asks for Digest, when the plan has Digest credentials, is answered
    once — the request again with the plan's conditional Authorization step.  The answer is
    computed by httpx's DigestAuth flow (sans-I/O: it takes the response, gives the request)."""
    details = plan.details_as(HTTPDetails)
    if response.status_code != 401 or details.digest is None:
        return response
    step = next((s for s in plan.steps if s.role is HTTPRole.DIGEST), None)
    challenge = response.headers.get("www-authenticate")
    if step is None or not step.due(challenge):
        return response
    await response.aread()
    await response.aclose()
    response.request = request  # (httpx's flow reads the request back from the response)
    flow = httpx.DigestAuth(*details.digest).auth_flow(request)
    next(flow)
    try:
        answered = flow.send(response)
    except (StopIteration, httpx.ProtocolError, KeyError, ValueError) as exc:
        raise ProtocolError(f"{plan.url}: an unusable Digest challenge: {exc}") from None
    options.note("<", f"{response.status_code} (Digest challenge)")
    options.note(">", step.shown)
    return await transport.handle_async_request(answered)


def _redirect_target(base: str, location: str, syntax: str = "rfc3986") -> schemes.URL:
    """The URL a ``Location`` names, resolved against the request URL (RFC 9110 §10.2.2:
    a URI-reference, resolved per RFC 3986 §5 — :func:`schemes.join`)."""
    try:
        return schemes.parse(schemes.join(base, location.strip()), syntax=syntax)
    except URLError as exc:
        raise ProtocolError(
            f"the server redirected to {location!r}, which is not a valid URL: {exc}",
            component="location",
        ) from None


__all__ = ["execute_http"]
