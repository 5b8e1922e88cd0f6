"""The gateway's ASGI application (Starlette): routes, bounds, and the proxy's absolute form.

How a URL reaches the gateway, and how it is read back exactly:

* ``/<url>`` as typed or linked: the URL is the request's *raw* path after the first "/"
  (never percent-decoded: ``%09`` in a Gopher URL must stay ``%09``) and its query string —
  the gateway's own links are the item's canonical URL after "/";
* absolute form (a proxy request, ``GET gopher://h/1/ HTTP/1.1``): uvicorn's h11 hands the
  target over whole; :class:`AbsoluteForm` turns it into the same ``/<url>``;
* ``/_/…`` is the gateway's own: the URL box (``/_/go``), search forms (``/_/search``), the
  mailto: form (``/_/send``), the style sheet.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import (
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from omniurl import schemes
from omniurl.resolvers import check, resolve
from omniurl.resolvers.errors import (
    InputNeeded,
    NotFound,
    PlanError,
    PolicyError,
    ResolveError,
    ResolveTimeout,
)
from omniurl.resolvers.options import Options
from omniurl.resolvers.registry import presentation_of
from omniurl.resolvers.spec import Presentation
from omniurl.schemes.errors import URLError

from .config import GatewayConfig
from .render import Pages, security_headers

STATIC = Path(__file__).parent / "templates"


class AbsoluteForm:
    """Proxy requests: ``CONNECT`` refused (a gateway renders, it does not tunnel), and an
    absolute-form target (``gopher://h/1/``) served as ``/gopher://h/1/``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":  # not a scheme: ASGI's scope type
            if scope["method"] == "CONNECT":
                response = PlainTextResponse(
                    "CONNECT is refused: this gateway renders URLs, it does not tunnel\n",
                    status_code=405,
                    headers={"Allow": "GET, HEAD, POST", **security_headers()},
                )
                await response(scope, receive, send)
                return
            path: str = scope["path"]
            scope = dict(scope)
            if not path.startswith("/"):
                scope["raw_path"] = b"/" + scope.get("raw_path", path.encode("latin-1"))
                scope["omniurl_proxy"] = True
                path = "/" + path
            if path != "/" and not path.startswith("/_/"):
                # A URL to resolve: read from raw_path (target_of); routing must not see the
                # decoded path, which may hold CR LF that no route pattern matches.
                path = "/_/url"
            scope["path"] = path
        await self.app(scope, receive, send)


class Limits:
    """Requests resolved at once: in all (waiting at most ``queue_timeout``) and per
    client address (beyond it: 429 at once)."""

    def __init__(self, config: GatewayConfig) -> None:
        self.config = config
        self.all = asyncio.Semaphore(config.max_concurrent)
        self.clients: dict[str, int] = {}

    @contextlib.asynccontextmanager
    async def slot(self, client: str) -> AsyncIterator[bool]:
        if self.clients.get(client, 0) >= self.config.max_per_client:
            yield False
            return
        self.clients[client] = self.clients.get(client, 0) + 1
        try:
            try:
                # (asyncio.timeout, not wait_for: wait_for ran the acquire as a task of its
                # own, a task and a loop turn more for every page)
                async with asyncio.timeout(self.config.queue_timeout):
                    await self.all.acquire()
            except TimeoutError:
                yield False
                return
            try:
                yield True
            finally:
                self.all.release()
        finally:
            self.clients[client] -= 1
            if not self.clients[client]:
                del self.clients[client]


def target_of(request: Request) -> str:
    """The URL a request names: the raw path after "/", and the query string."""
    raw: bytes = request.scope.get("raw_path") or request.scope["path"].encode("utf-8")
    url = raw.decode("utf-8", "surrogateescape")[1:]
    query = request.scope.get("query_string", b"")
    if query:
        url += "?" + query.decode("utf-8", "surrogateescape")
    return url


class FormNeeded(Exception):
    """A form (a Gopher+ item's +ASK), to be shown as a page (raised through
    ``Options.form`` when no answers came with the request)."""

    def __init__(self, fields: Any) -> None:
        super().__init__("a Gopher+ form")
        self.fields = list(fields)


def create_app(config: GatewayConfig | None = None) -> ASGIApp:
    """The gateway as an ASGI application (``uvicorn`` runs it: ``omniurl serve gateway``)."""
    config = config or GatewayConfig()
    options = config.resolve_options()
    pages = Pages(config)
    limits = Limits(config)

    async def show_the_form(fields: Any, _url: Any) -> list[str]:
        raise FormNeeded(fields)  # (the page shows the form; its answers come to /_/ask)

    form_options = options.with_(form=show_the_form)

    def _pages_for(request: Request) -> Pages:
        """A proxy client's pages link items by their own URLs and the gateway's forms by
        its address (its page URL is the item's, so "/_/…" would name the item's host)."""
        if not request.scope.get("omniurl_proxy"):
            return pages
        proxied = Pages.__new__(Pages)
        proxied.__dict__.update(pages.__dict__)
        server = request.scope.get("server") or ("127.0.0.1", 80)
        proxied.base = f"http://{server[0]}:{server[1]}"  # not a scheme: the gateway's own
        proxied.proxy = True
        return proxied

    async def index(request: Request) -> Response:
        return pages.index()

    async def style(request: Request) -> Response:
        return Response(
            (STATIC / "style.css").read_bytes(),
            media_type="text/css",
            headers=security_headers(),
        )

    async def go(request: Request) -> Response:
        url = request.query_params.get("url", "").strip()
        if not url:
            return RedirectResponse("/", status_code=303, headers=security_headers())
        return RedirectResponse("/" + _link_safe(url), status_code=303, headers=security_headers())

    async def search(request: Request) -> Response:
        """A search form's answer: the words appended as the scheme says (its
        presentation's ``search_url``: Gopher after an encoded TAB, §3.4; WAIS ``?search``,
        §3.9)."""
        url = request.query_params.get("url", "")
        words = request.query_params.get("q", "")
        try:
            parsed = schemes.parse(url)
        except URLError as exc:
            return pages.refused(url, exc)
        target = presentation_of(parsed.scheme).search_url(parsed, words)
        if target is None:
            return pages.message(url, 400, "Not a search", "This URL takes no search words.")
        return RedirectResponse("/" + target, status_code=303, headers=security_headers())

    async def send(request: Request) -> Response:
        # (an urlencoded form of two fields: parsed here rather than with python-multipart)
        raw = await request.body()
        form = parse_qs(raw[: 1 << 20].decode("utf-8", "replace"), keep_blank_values=True)
        url = form.get("url", [""])[0]
        try:
            presentation = presentation_of(schemes.parse(url).scheme)
        except URLError as exc:
            return pages.refused(url, exc)
        posted = {name: values[0] for name, values in form.items()}
        send_options = presentation.gateway_post(
            url, posted, presentation.gateway_options(options, config), config
        )
        if isinstance(send_options, str):
            return pages.message(url, 403, "Not sent", send_options)
        async with limits.slot(_client(request)) as ok:
            if not ok:
                return pages.busy(url)
            try:
                async with asyncio.timeout(config.max_time):
                    resource = await resolve(url, send_options)
                    await resource.aclose()
            except (URLError, PolicyError) as exc:
                return pages.refused(url, exc)
            except (ResolveError, TimeoutError) as exc:
                return pages.upstream_error(url, exc)
        return pages.message(url, 200, "Sent", f"The message to {url} was handed to the relay.")

    async def ask(request: Request) -> Response:
        """A Gopher+ +ASK form's answers (POST ``url``, ``f0``, ``f1``…): resolved with them,
        which follows §3.4.9's URL of the filled-in form."""
        raw = await request.body()
        form = parse_qs(raw[: 1 << 20].decode("utf-8", "replace"), keep_blank_values=True)
        url = form.get("url", [""])[0]
        answers: list[str] = []
        while f"f{len(answers)}" in form:
            answers.append(form[f"f{len(answers)}"][-1])  # (a checkbox: its hidden 0, then 1)

        async def filled(fields: Any, _url: Any) -> list[str]:
            return answers

        return await show_url(request, url, options.with_(form=filled))

    async def view(request: Request) -> Response:
        """An item in the view chosen from its views (Gopher+ +VIEWS: ``+text/plain`` …)."""
        url = request.query_params.get("url", "")
        chosen = _presentation(url).view_url(url, request.query_params.get("view", ""))
        if chosen is None:
            return pages.message(url, 400, "No views", "This URL has no other views.")
        return RedirectResponse(
            "/" + _link_safe(chosen), status_code=303, headers=security_headers()
        )

    async def show(request: Request) -> Response:
        return await show_url(request, target_of(request), form_options)

    async def show_url(request: Request, url: str, options: Options) -> Response:
        pages = _pages_for(request)
        if not url:
            return pages.index()
        presentation = _presentation(url)
        options = presentation.gateway_options(options, config)
        try:
            plan = check(url, options)  # the policy, before anything is sent
        except InputNeeded as exc:
            return pages.search_form(url, exc.message)
        except (URLError, PolicyError) as exc:
            return pages.refused(url, exc)
        except PlanError as exc:
            return pages.message(url, 400, "Cannot resolve", exc.message)
        own = await presentation.gateway_page(url, plan, pages, options, config)
        if own is not None:  # a page of the scheme's own (a session, a compose form)
            return own
        # The slot is held until the response is sent, a streamed download's body included
        # (its upstream connection is open all along): "at most max_concurrent at once".
        slot = contextlib.AsyncExitStack()
        ok = await slot.enter_async_context(limits.slot(_client(request)))
        try:
            if not ok:
                return pages.busy(url)
            try:
                async with asyncio.timeout(config.max_time):
                    resource = await resolve(url, options)
            except FormNeeded as exc:
                return pages.ask_form(url, exc.fields)
            except InputNeeded as exc:
                return pages.search_form(url, exc.message)
            except (URLError, PolicyError) as exc:
                return pages.refused(url, exc)
            except NotFound as exc:
                return pages.upstream_error(url, exc, status=404)
            except (ResolveTimeout, TimeoutError) as exc:
                return pages.upstream_error(url, exc, status=504)
            except ResolveError as exc:
                return pages.upstream_error(url, exc)
            response = await pages.render(url, resource, head_only=request.method == "HEAD")
            if isinstance(response, StreamingResponse):
                return _HeldUntilSent(response, slot.pop_all().aclose)  # (handed over)
            return response
        finally:
            await slot.aclose()

    routes = [
        Route("/", index),
        Route("/_/style.css", style),
        Route("/_/go", go),
        Route("/_/search", search),
        Route("/_/send", send, methods=["POST"]),
        Route("/_/ask", ask, methods=["POST"]),
        Route("/_/view", view),
        Route("/_/url", show, methods=["GET", "HEAD"]),
    ]
    return AbsoluteForm(Starlette(routes=routes))


class _HeldUntilSent(Response):
    """A streamed response that frees what it holds (the gateway's slot) once it has been
    sent, or the client went away: its body closed first (which closes the upstream
    transfer), then ``release``."""

    def __init__(self, inner: StreamingResponse, release: Callable[[], Awaitable[Any]]) -> None:
        # (not Response.__init__: the inner response has its status, headers and body)
        self.inner = inner
        self.release = release
        self.status_code = inner.status_code
        self.background = None
        self.raw_headers = inner.raw_headers  # (``headers`` is made of them)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await self.inner(scope, receive, send)
        finally:
            try:
                aclose = getattr(self.inner.body_iterator, "aclose", None)
                if aclose is not None:
                    await aclose()
            finally:
                await self.release()


def _presentation(url: str) -> Presentation:
    """The presentation of ``url``'s scheme (the defaults for text that is no URL)."""
    return presentation_of(url.partition(":")[0])


def _client(request: Request) -> str:
    return request.client.host if request.client is not None else "?"


def _link_safe(url: str) -> str:
    """A typed URL as a gateway path: as it is, but for characters no path may hold raw."""
    return quote(
        url, safe="".join(chr(c) for c in range(0x21, 0x7F) if chr(c) not in '"<>\\^`{|}#')
    )


def run(
    config: GatewayConfig, host: str, port: int, *, sock: socket.socket | None = None, **kw: Any
) -> None:
    """Serve until interrupted (httptools, else h11; an absolute-form target kept whole),
    each request head bounded in time and each client address in connections
    (:mod:`omniurl.gateway.guard`).  ``sock``: a socket already bound (so known to be
    free) to serve on: a busy port is found before anything is announced."""
    import uvicorn

    from .guard import guarded_protocol

    http = guarded_protocol(
        head_timeout=config.head_timeout,
        max_connections_per_client=config.max_connections_per_client,
    )
    settings = uvicorn.Config(
        create_app(config), host=host, port=port, http=http, log_level="warning", **kw
    )
    uvicorn.Server(settings).run(sockets=None if sock is None else [sock])


__all__ = ["AbsoluteForm", "create_app", "run", "target_of"]
