"""The ``http:`` and ``https:`` resolver (RFC 1738 §3.3), sent as planned; registered here."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from omniurl.schemes.base import URL

from .. import lazy
from ..base import Resolver
from ..options import Options
from ..plan import Plan
from ..resource import Resource
from ..spec import Presentation, SchemeSpec

if TYPE_CHECKING:
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


class HTTPPresentation(Presentation):
    """``-I`` prints the status line and header fields as received; a login in the URL is
    warned about; a bare host or a directory is saved as ``index.html``."""

    index_name = "index.html"

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


SPEC = SchemeSpec(
    names=("http", "https"),
    title="http",
    resolver=HTTPResolver,
    presentation=HTTPPresentation,
    default_port=80,
    # fsspec and urllib ship their own http(s): registering ours would replace theirs.
    fsspec=False,
    urllib=False,
    test_server="http",
    result="omniurl.resolvers.http.result:HTTPResult",
)

__all__ = ["SPEC", "HTTPResolver", "plan_http"]
