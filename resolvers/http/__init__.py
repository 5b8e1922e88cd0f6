"""The ``http:`` and ``https:`` resolver (RFC 1738 §3.3), sent as planned; registered here."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from omniurl.schemes.base import URL

from .. import lazy
from ..base import Resolver
from ..options import Options
from ..plan import Plan
from ..spec import MirrorFacts, Presentation, SchemeSpec

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..batching import BatchEngine
    from ..resource import Resource
    from .planner import plan_http

# The planner and the executor are imported on first use (see resolvers/lazy.py):
# every ``omniurl get``/``plan`` imports this package for its command-line options.
__getattr__ = lazy.exports(__name__, {"plan_http": ".planner"})


class HTTPResolver(Resolver):
    """``http://host:port/path?search``: one GET, streamed; redirects through the policy."""

    schemes = ("http", "https")

    def plan(self, url: URL, options: Options) -> Plan:
        from .planner import plan_http

        if options.trust_env:  # (--proxy-env: the environment's proxy, planned as -x's)
            from ..proxy import with_environment_proxy

            options = with_environment_proxy(options, url.scheme, getattr(url, "hostname", None))
        return plan_http(url, options)

    async def execute(self, plan: Plan, options: Options) -> Resource:
        from .executor import execute_http

        if options.trust_env:
            from ..proxy import with_environment_proxy

            options = with_environment_proxy(options, plan.scheme, plan.host)
        return await execute_http(plan, options)

    def prepare(self, options: Options, *, engine: bool) -> None:
        """The general path's executor and, for a batch that asks for it, the lean engine
        (:meth:`batch_engine`): imported before a split batch forks its workers."""
        from . import executor, pool  # noqa: F401
        from .reply import preload

        preload()
        if engine:
            from .batch_engine import eligible

            eligible(options)  # (the engine's module and what it imports)

    def first_connection(self, plan: Plan, options: Options) -> tuple[str, int] | None:
        """A plain ``http:`` request to its origin (not ``https:``, whose TLS context comes
        first; not one forwarded to a proxy)."""
        from .planner import HTTPDetails, origin_of

        if plan.scheme != "http" or plan.host is None or options.trust_env:
            return None
        if not isinstance(plan.details, HTTPDetails) or plan.details.forward is not None:
            return None
        _scheme, host, port = origin_of(plan)
        return host, port

    def batch_engine(self, options: Options) -> BatchEngine | None:
        """The lean engine (resolvers/http/batch_engine.py) for a batch's plain ``http://``
        GETs, when ``options`` allow it (:func:`~resolvers.http.batch_engine.eligible`)."""
        from .batch_engine import Engine, eligible

        return Engine(options) if eligible(options) else None


class HTTPPresentation(Presentation):
    """``-I`` prints the status line and header fields as received; a login in the URL is
    warned about; a bare host or a directory is saved as ``index.html``."""

    index_name = "index.html"
    #: A ";" in a path segment is the name's (RFC 3986 §3.3): "a;b.txt" is saved so, as
    #: curl and wget save it; the query is none of it.
    name_ends = "?"
    unchanged_statuses = frozenset({304})
    head_size_limited = True

    def warnings(self, url: URL) -> Iterable[str]:
        if getattr(url, "user", None) is not None:
            yield (
                "a user name and password in an http URL are deprecated (RFC 9110 §4.2.4) "
                "and may be logged by every proxy and server on the way; prefer -u or "
                "~/.netrc"
            )

    def head_lines(self, resource: Resource) -> list[str]:
        return list(resource.replies)

    def suggested_name(self, resource: Resource) -> str | None:
        """``Content-Disposition``'s file name (RFC 6266 §4.3: ``filename*`` wins)."""
        from .result import HTTPResult

        result = resource.result_as(HTTPResult)
        value = result.headers.get("content-disposition") if result else None
        if not value:
            return None
        from email.message import Message

        message = Message()
        message["Content-Disposition"] = value
        return message.get_filename()

    # -- omniurl mirror: wget -m's reading of a site ---------------------------------------

    def page_links(
        self, url: str, media_type: str | None, data: bytes, *, charset: str | None = None
    ) -> Iterable[str] | None:
        """An HTML page's links and what a style sheet loads (resolvers/http/links.py), read
        in ``charset`` (else one ``media_type`` carries, else the page's own ``<meta>``);
        other media have none."""
        kind = (media_type or "").split(";", 1)[0].strip().lower()
        if kind != "text/css" and kind not in ("text/html", "application/xhtml+xml"):
            return None
        from ..mediatype import charset_param
        from .links import css_links, html_links, page_text

        text = page_text(data, charset if charset is not None else charset_param(media_type))
        return (css_links if kind == "text/css" else html_links)(text, url)

    def generated_listing(self, media_type: str | None, data: bytes) -> bool:
        """nginx's and Apache's autoindex pages say "Index of /path" in their title: a
        listing, not a document of the tree (lftp mirror does not keep them either)."""
        return b"<title>Index of " in data[:4096]

    def listing_times(self, url: str, media_type: str | None, data: bytes) -> Mapping[str, str]:
        """An autoindex page's times (resolvers/http/links.py, :func:`autoindex_times`)."""
        if not self.generated_listing(media_type, data):
            return {}
        from .links import autoindex_times

        return autoindex_times(data.decode("utf-8", "replace"), url)

    def revalidate(self, options: Options, validators: Mapping[str, str]) -> Options | None:
        """RFC 9110 §13.1.2 If-None-Match with the stored entity tag, and §13.1.3
        If-Modified-Since with the stored Last-Modified (a server ignores the second when
        it evaluates the first)."""
        fields = []
        if validators.get("etag"):
            fields.append(("If-None-Match", validators["etag"]))
        if validators.get("last-modified"):
            fields.append(("If-Modified-Since", validators["last-modified"]))
        if not fields:
            return None
        return options.with_(headers=(*options.headers, *fields))

    def moved_to(self, resource: Resource) -> str | None:
        """RFC 9110 §15.4: a 301, 302, 303, 307 or 308 with a ``Location`` (§10.2.2), the
        reference resolved against the request's URL (``follow=False`` gives the 3xx as
        the result, as curl without ``-L``): :meth:`redirect_url` without its fragment."""
        target = self.redirect_url(resource)
        return None if target is None else target.split("#", 1)[0]

    def redirect_url(self, resource: Resource) -> str | None:
        """The URL a redirect given as the result leads to, fragment included (``-w
        %{redirect_url}``, as curl's), encoded as the ``Location`` is followed
        (``executor._redirect_target``): a space as %20 and Latin-1 octets as their own
        %XX (``location_reference``), an IRI's other characters as their UTF-8 %XX (RFC
        3987 §3.1).  A target the follow would refuse (a ``"`` in the fragment) is given
        resolved but as it came, as curl gives it."""
        from .reply import REDIRECTS, location_reference
        from .result import HTTPResult

        result = resource.result_as(HTTPResult)
        if result is None or resource.status not in REDIRECTS:
            return None
        location = result.headers.get("location")
        if not location:
            return None
        from omniurl.schemes import parse
        from omniurl.schemes.errors import URLError
        from omniurl.schemes.join import join

        try:
            target = join(str(resource.url), location_reference(location), check=False)
        except (URLError, ValueError):
            return None
        try:
            return str(parse(target))
        except (URLError, ValueError):
            return target

    def unchanged(self, resource: Resource) -> bool:
        """RFC 9110 §15.4.5: 304 Not Modified (no content is sent)."""
        return resource.status == 304

    def wire_exchange(self, resource: Resource) -> tuple[bytes, bytes] | None:
        """The planned request head (every byte sent, resolvers/http/planner.py) and the
        response's status line and fields as received; a ``Transfer-Encoding`` field is
        left out, since the content archived is the de-chunked one (as wget's WARCs)."""
        from .planner import request_head

        if not resource.replies:
            return None
        lines = [
            line for line in resource.replies if not line.lower().startswith("transfer-encoding:")
        ]
        head = "\r\n".join([*lines, "", ""]).encode("latin-1", "replace")
        return request_head(resource.plan), head

    def mirror_facts(self, resource: Resource) -> MirrorFacts:
        """Last-Modified (RFC 9110 §8.8.2) as the file's time; ETag and Last-Modified as
        the validators a later run sends back."""
        from .result import HTTPResult

        result = resource.result_as(HTTPResult)
        if result is None:
            return MirrorFacts(resource.modified)
        validators = {
            name: result.headers[name]
            for name in ("etag", "last-modified")
            if result.headers.get(name)
        }
        modified = None
        if "last-modified" in validators:
            import email.utils

            try:
                modified = email.utils.parsedate_to_datetime(validators["last-modified"])
            except (TypeError, ValueError):
                modified = None
        return MirrorFacts(modified, validators)


SPEC = SchemeSpec(
    names=("http", "https"),
    title="http",
    resolver=HTTPResolver,
    presentation=HTTPPresentation,
    default_port=80,
    # fsspec and urllib ship their own http(s): registering ours would replace theirs.
    fsspec=False,
    urllib=False,
    head=True,
    test_server="http",
    result="omniurl.resolvers.http.result:HTTPResult",
)

__all__ = ["SPEC", "HTTPResolver", "plan_http"]
