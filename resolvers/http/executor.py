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
import urllib.parse
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator

import httpx

from omniurl import schemes
from omniurl.schemes.errors import URLError
from omniurl.schemes.http import HTTPURL

from ..base import Follow
from ..errors import (
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
from .transport import PolicyTransport

USER_AGENT = "omniurl/0.1"
REDIRECTS = (301, 302, 303, 307, 308)


@contextlib.contextmanager
def typed_errors(what: str) -> Iterator[None]:
    """httpx's exceptions as omniurl's error tree (never a raw library traceback)."""
    try:
        yield
    except ResolveError:
        raise
    except httpx.TimeoutException as exc:
        raise ResolveTimeout(f"timed out {what}: {exc or type(exc).__name__}") from None
    except httpx.ConnectError as exc:
        cause = exc.__context__ or exc.__cause__
        if isinstance(cause, ssl.SSLCertVerificationError) or "CERTIFICATE_VERIFY" in str(exc):
            raise ConnectError(
                f"TLS certificate verification failed {what}: {exc} (--insecure skips it)",
                component="host",
            ) from None
        raise ConnectError(f"cannot connect {what}: {exc}", component="host") from None
    except httpx.RemoteProtocolError as exc:
        text = str(exc)
        if "closed" in text or "disconnected" in text or "incomplete" in text.lower():
            raise ConnectionClosed(f"the server closed the connection {what}: {text}") from None
        # httpx parses a redirect's Location itself (even when not following): its
        # "Invalid URL in location header" blames the server's Location.
        component = "location" if "location header" in text.lower() else None
        raise ProtocolError(f"the server broke HTTP {what}: {text}", component=component) from None
    except httpx.InvalidURL as exc:
        # The request URL was built before sending: inside send(), only the Location httpx
        # parses for its next_request can be invalid ("foo:bar").
        raise ProtocolError(
            f"the server redirected to an invalid URL {what}: {exc}", component="location"
        ) from None
    except httpx.TransportError as exc:
        raise TransportError(f"network failure {what}: {exc or type(exc).__name__}") from None


def _status_line(response: httpx.Response) -> str:
    return f"{response.http_version} {response.status_code} {response.reason_phrase}".rstrip()


async def execute_http(plan: Plan, options: Options) -> Resource:
    url = plan.url
    assert isinstance(url, HTTPURL)
    target: str = plan.get("target")
    try:
        request_url = httpx.URL(
            scheme=plan.scheme,
            host=url.hostname,
            port=url.port,
            raw_path=target.encode("utf-8", "surrogateescape"),
        )
    except httpx.InvalidURL as exc:
        # A leniently parsed host httpx's IDNA 2008 encoder refuses ("☃.example").
        raise PlanError(f"cannot make an HTTP request of {url}: {exc}", component="host") from None
    client = httpx.AsyncClient(
        transport=PolicyTransport(options, scheme=plan.scheme, host=url.hostname),
        timeout=httpx.Timeout(
            connect=options.connect_timeout,
            read=options.read_timeout,
            write=options.read_timeout,
            pool=options.connect_timeout,
        ),
        follow_redirects=False,
        trust_env=False,
        event_hooks={"response": [_opaque_redirect_hook(str(plan.url), options)]},
    )
    request = client.build_request(
        "GET",
        request_url,
        headers={"User-Agent": USER_AGENT, "Accept": "*/*", "Accept-Encoding": "identity"},
    )
    options.note(">", plan.steps[0].shown)
    for name, value in request.headers.items():
        options.note(">", f"{name}: {value}")
    response: httpx.Response | None = None
    try:
        with typed_errors(f"fetching {plan.url}"):
            response = await client.send(request, stream=True)
        replies = [_status_line(response)]
        options.note("<", replies[0])
        for name, value in response.headers.items():
            options.note("<", f"{name}: {value}")
            replies.append(f"{name}: {value}")
        status = response.status_code
        location = response.headers.get("location")
        if status in REDIRECTS and location is not None and options.follow:
            new_url = _redirect_target(str(plan.url), location)
            raise Follow(new_url, reason=f"HTTP {status} redirect", replies=replies)
        if status >= 400:
            raise StatusError(
                f"{plan.url}: the server answered {status} {response.reason_phrase}",
                status=status,
                reply=replies[0],
            )
    except BaseException:
        if response is not None:
            await response.aclose()
        await client.aclose()
        raise

    resp: httpx.Response = response

    async def close() -> None:
        await resp.aclose()
        await client.aclose()

    async def body() -> AsyncIterator[bytes]:
        try:
            with typed_errors(f"reading {plan.url}"):
                async for chunk in resp.aiter_raw():
                    yield chunk
        finally:
            await close()

    content_type = resp.headers.get("content-type")
    length = resp.headers.get("content-length")
    return Resource(
        plan,
        kind="content",
        body=body(),
        media_type=content_type.split(";", 1)[0].strip() if content_type else None,
        size=int(length) if length and length.isdigit() else None,
        replies=replies,
        metadata={
            "status": resp.status_code,
            "headers": dict(resp.headers.items()),
            "location": resp.headers.get("location"),
        },
        close=close,
    )


def _opaque_redirect_hook(
    base: str, options: Options
) -> Callable[[httpx.Response], Awaitable[None]]:
    """A response hook that hands a redirect to a non-HTTP URL (``mailto:``, ``news:``...) to
    the policy as a :class:`Follow` before httpx builds its next request, which it cannot do
    for such a URL (it raised "invalid URL"; issue 14)."""

    async def hook(response: httpx.Response) -> None:
        location = response.headers.get("location")
        if response.status_code not in REDIRECTS or location is None or not options.follow:
            return
        target = _redirect_target(base, location)
        from .. import registry  # the registry imports the resolvers: not at module load

        # A scheme no resolver handles ("foo:bar") stays httpx's invalid Location.
        if target.scheme not in ("http", "https") and target.scheme in registry.known():
            raise Follow(
                target,
                reason=f"HTTP {response.status_code} redirect",
                replies=[f"{name}: {value}" for name, value in response.headers.items()],
            )

    return hook


def _redirect_target(base: str, location: str) -> schemes.URL:
    """The URL a ``Location`` names, resolved against the request URL (RFC 9110 §10.2.2)."""
    try:
        # urljoin raises a bare ValueError itself (an unclosed "[" of an IPv6 literal).
        return schemes.parse(urllib.parse.urljoin(base, location))
    except (URLError, ValueError) as exc:
        raise ProtocolError(
            f"the server redirected to {location!r}, which is not a valid URL: {exc}",
            component="location",
        ) from None


__all__ = ["execute_http"]
