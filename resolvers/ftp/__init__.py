"""The ``ftp:`` resolver (RFC 1738 §3.2): a pure planner and an executor, registered here."""

from __future__ import annotations

from omniurl.schemes.base import URL

from .. import lazy
from ..base import Resolver
from ..options import Options
from ..plan import Plan
from ..spec import Presentation, SchemeSpec, TreePath
from .settings import FTPOptions

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..resource import Entry, Resource
    from .executor import execute_ftp
    from .planner import plan_ftp
    from .sessions import FTPSessions

# The planner, the executor and the session cache are imported on first use (see
# resolvers/lazy.py): every ``omniurl get``/``plan`` imports this package for its options.
__getattr__ = lazy.exports(
    __name__,
    {
        "execute_ftp": ".executor",
        "plan_ftp": ".planner",
        "FTPSessions": ".sessions",
    },
)


class FTPResolver(Resolver):
    """``ftp://user:password@host:port/cwd1/cwd2/name;type=X``: login, CWDs, RETR or NLST."""

    schemes = ("ftp", "ftps")

    def plan(self, url: URL, options: Options) -> Plan:
        from .planner import plan_ftp

        return plan_ftp(url, options)

    async def execute(self, plan: Plan, options: Options) -> Resource:
        if options.proxy is not None:
            # GET ftp://… asked of an HTTP proxy (-x http://, resolvers.proxy.http_proxy_for)
            # is an HTTP plan (resolvers.http.planner.plan_forwarded): only -x makes one, so
            # a plain ftp get never imports the http resolver.
            from ..http.planner import HTTPDetails

            if isinstance(plan.details, HTTPDetails):
                from ..http.executor import execute_http

                return await execute_http(plan, options)
        from .executor import execute_ftp

        return await execute_ftp(plan, options)

    def first_connection(self, plan: Plan, options: Options) -> tuple[str, int] | None:
        """A plain ``ftp:`` plan's control connection (not ``ftps:``, whose TLS context
        comes first; not through a proxy)."""
        from .planner import FTPDetails

        if plan.scheme != "ftp" or plan.host is None or plan.port is None:
            return None
        if not isinstance(plan.details, FTPDetails) or plan.details.tls is not None:
            return None
        return plan.host, plan.port


class FTPPresentation(Presentation):
    """A directory's listing saved as ``index.txt``; an FTP file may be anything (the
    gateway marks it ``[FILE]``, not ``[TEXT]``)."""

    index_name = "index.txt"
    index_lists = True

    def entry_marker(self, entry: Entry) -> str | None:
        return "[FILE]" if entry.kind == "file" else None

    def response_code(self, status: int | None, replies: Sequence[str]) -> int | None:
        """curl's response_code of an FTP transfer: the last reply's code (226 once
        complete), not QUIT's 221, which ends the session after it (curl's comes later)."""
        if status is not None:
            return status
        codes = [x[:3] for x in replies if x[:3].isdigit() and x[:3] != "221"]
        return int(codes[-1]) if codes else None

    def exact_url(self, url: URL) -> URL:
        """A file without ``;type=`` as ``;type=i`` (RFC 1738 §3.2.3: image), never the
        ASCII transfer the guess gives a ``.txt`` (line ends rewritten): lftp mirror's
        binary transfers."""
        from omniurl.schemes.ftp import FTPURL

        if isinstance(url, FTPURL) and url.typecode is None and url.name:
            return url.replace(typecode="i")
        return url

    def time_options(self, options: Options) -> Options:
        """``MDTM`` alone (RFC 3659 §3): ``-I``'s ``TYPE I`` and ``SIZE`` left out."""
        import dataclasses

        head = options.with_(head=True)
        return head.with_scheme(dataclasses.replace(head.of(FTPOptions), head_size=False))

    def timed_options(self, options: Options) -> Options:
        """``MDTM`` asked before the transfer, in its conversation (``FTPOptions.mdtm``)."""
        import dataclasses

        return options.with_scheme(dataclasses.replace(options.of(FTPOptions), mdtm=True))

    def tree_path(self, url: URL) -> TreePath | None:
        """RFC 1738 §3.2.2: the CWD segments and the name (decoded: a segment may hold a
        "/" of its own, which the mirror escapes); a URL without a name is a directory."""
        cwd = tuple(getattr(url, "cwd", ()))
        name = getattr(url, "name", "")
        segments = tuple(s for s in (*cwd, name) if s)
        return TreePath(segments, not name or getattr(url, "typecode", None) == "d")


SPEC = SchemeSpec(
    names=("ftp", "ftps"),
    title="ftp",
    resolver=FTPResolver,
    options=FTPOptions,
    presentation=FTPPresentation,
    default_port=21,
    # fsspec and urllib ship their own ftp: registering ours would replace theirs.
    fsspec=False,
    urllib=False,
    head=True,
    test_server="ftp",
    result="omniurl.resolvers.ftp.result:FTPResult",
)

__all__ = ["SPEC", "FTPOptions", "FTPResolver", "FTPSessions", "execute_ftp", "plan_ftp"]
