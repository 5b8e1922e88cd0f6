"""``omniurl serve gateway``: every RFC 1738 scheme in a web browser, safely.

The CERN httpd of 1994 let any browser reach FTP, Gopher, WAIS and news; lynx still sends
``GET gopher://…`` to a ``gopher_proxy``.  This gateway is both:

* a web page: ``/`` has a URL box; ``/<url>`` (``/gopher://host/1/``) resolves the URL and
  renders it — menus and directories as lists whose every link is a gateway link, text in
  ``<pre>``, searches as forms, binaries as downloads;
* a proxy: absolute-form requests (``GET gopher://host/1/ HTTP/1.1``) get the same pages, so
  ``lynx`` with ``gopher_proxy``/``ftp_proxy`` and ``curl -x`` work through it.  ``CONNECT``
  is refused.

URLs from untrusted input resolved on a server are exactly what the ``--strict`` policy is
for, so it is the default: public addresses only (after DNS), default ports only, no
``file:``; ``--allow-host``/``--allow-port`` open what an operator chooses.  Every refusal is
a 403 page naming the rule, with nothing sent upstream.  All server text is escaped (Jinja2
autoescaping), the Content-Security-Policy allows no script at all, and concurrency, time
and rendered size are bounded (:class:`GatewayConfig`).

Built on Starlette and uvicorn with Jinja2 templates: ``pip install 'omniurl[gateway]'``.
"""

from __future__ import annotations

from .config import GatewayConfig

TYPE_CHECKING = False
if TYPE_CHECKING:  # (the type a reader sees; at run time, __getattr__ imports it)
    from .app import create_app

__all__ = ["GatewayConfig", "create_app"]


def __getattr__(name: str) -> object:
    if name == "create_app":  # (imports starlette: only when a gateway is built)
        from .app import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
