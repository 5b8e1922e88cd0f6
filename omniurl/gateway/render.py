"""What the gateway shows: a resource as a page (Jinja2, autoescaped) or as a download.

Server text never reaches a page unescaped (a Gopher display string or a news subject may
hold ``<script>``: Jinja2's autoescaping, and a Content-Security-Policy that allows no script
at all), nor a response header unsanitized (the media type must be a plain ``type/subtype``,
the download's file name comes from the URL, RFC 6266-encoded).  What is rendered is bounded
(:class:`GatewayConfig`): a larger text is streamed as a download, a longer listing cut.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup
from starlette.responses import HTMLResponse, Response, StreamingResponse

from omniurl.resolvers.registry import presentation_of
from omniurl.resolvers.resource import Entry, Resource
from omniurl.resolvers.spec import DEFAULT_PRESENTATION
from omniurl.schemes.secrets import mask_passwords, terminal_safe
from omniurl.showing import INLINE_IMAGES, download_name, entry_marker, media_type_of
from omniurl.showing import article_headers as _article_headers

from .config import GatewayConfig

#: No script, no plugin, no frame; styles and images from the gateway only (RFC 7762 §2).
CSP = (
    "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
    "base-uri 'none'; frame-ancestors 'none'"
)


def security_headers() -> dict[str, str]:
    return {
        "Content-Security-Policy": CSP,
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
    }


def gateway_link(url: str | None, *, proxy: bool = False) -> str | None:
    """The gateway's link to ``url``: the URL after "/" (as the gateway reads it back); for
    a proxy client (lynx with gopher_proxy) the URL itself, which it asks the proxy for."""
    if not url or ":" not in url:
        return None
    if proxy:
        return url
    return "/" + quote(
        url, safe="".join(chr(c) for c in range(0x21, 0x7F) if chr(c) not in '"<>\\^`{|}#')
    )


@dataclass
class EntryView:
    name: str
    marker: str
    css: str
    url: str | None
    href: str | None
    detail: str
    search: bool
    #: An item's attributes page (Gopher+: its views, abstract, admin), a gateway link.
    views_href: str | None = None


@dataclass(frozen=True)
class FieldView:
    """One +ASK field as an HTML form control (Gopher+ §2.8)."""

    kind: str
    prompt: str
    name: str | None
    default: str
    choices: tuple[str, ...]
    control: str  # text, password, textarea, select, checkbox, note


_CONTROLS = {
    "Ask": "text",
    "AskP": "password",
    "AskL": "textarea",
    "AskF": "text",
    "Choose": "select",
    "ChooseF": "select",
    "Select": "checkbox",
    "Note": "note",
}


def field_views(fields: list[Any]) -> list[FieldView]:
    """The form's controls: answered fields named ``f0``, ``f1``… in order; Notes unnamed."""
    views, n = [], 0
    for f in fields:
        name = None
        if f.answered:
            name, n = f"f{n}", n + 1
        control = _CONTROLS.get(f.kind, "text")
        views.append(FieldView(f.kind, f.prompt, name, f.default, f.choices, control))
    return views


def _view(entry: Entry, proxy: bool = False, denied: frozenset[str] = frozenset()) -> EntryView:
    """An entry as the page shows it; no link where the policy refuses the entry's scheme
    outright (a Prospero LOCAL method's ``file:``): a click could only be a 403."""
    info = entry.info
    details = []
    for key in ("score", "size", "modify", "from", "date"):
        if info.get(key) not in (None, ""):
            details.append(f"{key} {info[key]}")
    search = entry.kind == "search" and bool(entry.url)
    scheme = (entry.url or "").partition(":")[0].lower()
    presentation = presentation_of(scheme) if scheme else DEFAULT_PRESENTATION
    marker = entry_marker(entry)
    views_href = gateway_link(presentation.attributes_url(entry), proxy=proxy)
    return EntryView(
        name=entry.name,
        marker=marker,
        css=re.sub(r"[^a-z0-9-]", "", entry.kind.lower()) or "entry",
        url=entry.url,
        href=None if search or scheme in denied else gateway_link(entry.url, proxy=proxy),
        detail="; ".join(details),
        search=search,
        views_href=views_href,
    )


def _shown(value: Any) -> Any:
    """Every value a template prints: server text with its control characters (ESC, BEL, …:
    C0 but TAB, CR and LF; DEL; C1) written as escapes (``\\x1b``), as the terminal output
    shows them — a browser would drop them silently or show a box, hiding what the server
    sent.  The gateway's own markup (``Markup``) is its own and passes as it is."""
    if isinstance(value, str) and not isinstance(value, Markup):
        return terminal_safe(value, keep="\t\n\r")
    return value


class Pages:
    def __init__(self, config: GatewayConfig) -> None:
        self.config = config
        #: The gateway's own address for its forms and style sheet: "" (relative) for a
        #: browser, ``http://host:port`` for a proxy client, whose page URL is the item's.
        self.base = ""
        self.proxy = False
        self.env = Environment(
            loader=FileSystemLoader(Path(__file__).parent / "templates"),
            autoescape=select_autoescape(["html"], default=True),
            finalize=_shown,
            # The templates are the package's own: never stat them again for every page.
            auto_reload=False,
        )

    def page(self, template: str, status: int = 200, **context: Any) -> HTMLResponse:
        context.setdefault("base", self.base)
        html = self.env.get_template(template).render(**context)
        return HTMLResponse(html, status_code=status, headers=security_headers())

    def index(self) -> Response:
        """The URL box, and every scheme the registry knows (a plugin's too)."""
        from omniurl.resolvers.registry import known

        return self.page("index.html", schemes=known())

    def message(
        self, url: str, status: int, title: str, message: str, **extra: Any
    ) -> HTMLResponse:
        css = "error" if status >= 400 else "ok"
        return self.page(
            "message.html", status, url=url, title=title, message=message, css=css, **extra
        )

    def refused(self, url: str, exc: Any) -> HTMLResponse:
        """A refusal (policy or syntax): 403, naming the rule; nothing was sent upstream —
        unless the refusal came mid-session (an FTP data port, a redirect), when its
        message says what was sent (PolicyError.sent)."""
        return self.message(
            url,
            403,
            "Refused",
            exc.message if getattr(exc, "sent", ()) else f"{exc.message} — nothing was sent.",
            rule=type(exc).__name__,
            component=getattr(exc, "component", None),
        )

    def busy(self, url: str) -> HTMLResponse:
        return self.message(url, 429, "Busy", "Too many requests at once; try again shortly.")

    def upstream_error(self, url: str, exc: Any, status: int = 502) -> HTMLResponse:
        title = {404: "Not found", 504: "Timed out"}.get(status, "Upstream error")
        message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
        return self.message(url, status, title, message, rule=type(exc).__name__)

    def search_form(self, url: str, prompt: str) -> HTMLResponse:
        return self.page("search.html", url=url, prompt=prompt)

    def ask_form(self, url: str, fields: list[Any]) -> HTMLResponse:
        """A Gopher+ +ASK form (§2.8) as an HTML form; sent back by POST (an AskP answer is
        a password: never in a URL the browser keeps)."""
        return self.page("ask.html", url=url, fields=field_views(fields))

    async def render(self, url: str, resource: Resource, *, head_only: bool = False) -> Response:
        """The page or download of ``resource``; ``head_only`` (a HEAD request): a download's
        headers only, its transfer closed unread (RFC 9110 §9.3.2: no content is sent, so
        none is fetched)."""
        if resource.kind == "listing":
            return await self._listing(url, resource)
        media = media_type_of(resource)
        if media.startswith(("text/", "message/")) and not media.startswith("text/html"):
            return await self._text(url, resource, media, head_only=head_only)
        return self._download(url, resource, media, head_only=head_only)

    def _chain(self, resource: Resource) -> list[dict[str, str | None]]:
        """The redirects or referrals (a Prospero chain, an HTTP redirect) that led here,
        each a link, then where they ended."""
        hops = [*resource.chain, str(resource.url)] if resource.chain else []
        return [
            {"text": mask_passwords(hop), "href": gateway_link(hop, proxy=self.proxy)}
            for hop in hops
        ]

    async def _listing(self, url: str, resource: Resource) -> Response:
        views: list[EntryView] = []
        truncated = False
        try:
            async for entry in resource.aiter_entries():
                if len(views) >= self.config.max_entries:
                    truncated = True
                    break
                views.append(_view(entry, self.proxy, self.config.policy().denied_schemes))
        finally:
            await resource.aclose()
        return self.page(
            "listing.html", url=url, entries=views, truncated=truncated, chain=self._chain(resource)
        )

    async def _text(
        self, url: str, resource: Resource, media: str, *, head_only: bool = False
    ) -> Response:
        limit = self.config.max_render_bytes
        held = bytearray()
        chunks = resource.__aiter__()
        try:
            async for chunk in chunks:
                held += chunk
                if len(held) > limit:
                    return self._download(
                        url, resource, media, prefix=bytes(held), chunks=chunks, head_only=head_only
                    )
        except BaseException:
            await resource.aclose()
            raise
        await resource.aclose()
        text = bytes(held).decode("utf-8", "replace")
        headers: list[tuple[str, dict[str, str | None]]] = []
        presentation = presentation_of(resource.url.scheme)
        if presentation.article_headers(resource):
            head, _, rest = text.replace("\r\n", "\n").partition("\n\n")
            headers = [
                (n, {**v, "href": gateway_link(v["href"], proxy=self.proxy)})
                for n, v in _article_headers(head, presentation)
            ]
            text = rest if headers else text
        views = presentation.views(resource)
        # (control characters shown as escapes, as everywhere on the page, before the
        # scheme's own markup is made of the text)
        fragment = presentation.gateway_html(
            resource,
            terminal_safe(text, keep="\t\n\r"),
            lambda target: gateway_link(target, proxy=self.proxy),
        )
        return self.page(
            "text.html",
            url=url,
            text=text,
            document=None if fragment is None else Markup(fragment),
            headers=headers,
            chain=self._chain(resource),
            views=views,
        )

    def _download(
        self,
        url: str,
        resource: Resource,
        media: str,
        *,
        prefix: bytes = b"",
        chunks: AsyncIterator[bytes] | None = None,
        head_only: bool = False,
    ) -> Response:
        source = chunks if chunks is not None else resource.__aiter__()

        async def body() -> AsyncIterator[bytes]:
            try:
                if head_only:
                    return  # (the server sends no body to a HEAD: nothing is read for it)
                if prefix:
                    yield prefix
                async for chunk in source:
                    yield chunk
            finally:
                await resource.aclose()

        name = download_name(url)
        inline = media in INLINE_IMAGES
        disposition = "inline" if inline else "attachment"
        ascii_name = re.sub(r"[^A-Za-z0-9._-]", "_", name) or "download"
        headers = {
            **security_headers(),
            "Content-Disposition": f'{disposition}; filename="{ascii_name}"; '
            f"filename*=UTF-8''{quote(name, safe='')}",
        }
        return StreamingResponse(body(), media_type=media, headers=headers)


__all__ = ["CSP", "Pages", "download_name", "gateway_link", "media_type_of", "security_headers"]
