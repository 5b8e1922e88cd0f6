"""omniurl: take a URL of any RFC 1738 scheme and do what it says, exactly and safely.

The library's front door::

    import omniurl
    url = omniurl.parse("ftp://ftp.example.org/pub/README;type=a")
    print(omniurl.plan(url).to_json()["steps"])
    async with await omniurl.resolve(url) as resource:
        async for chunk in resource: ...
    data = omniurl.get("gopher://localhost:7070/0/about.txt")   # synchronous facade
"""

from __future__ import annotations

from resolvers import Options, Policy, check, get, plan, resolve
from resolvers.policy import DEFAULT, STRICT
from schemes import URL, OmniurlError, URLError, parse

__version__ = "0.1.0"

__all__ = [
    "DEFAULT",
    "STRICT",
    "URL",
    "OmniurlError",
    "Options",
    "Policy",
    "URLError",
    "check",
    "get",
    "parse",
    "plan",
    "resolve",
]
