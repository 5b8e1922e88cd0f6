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

import importlib
from typing import TYPE_CHECKING, Any

from omniurl.schemes import URL, OmniurlError, URLError, parse

if TYPE_CHECKING:
    from omniurl.resolvers.core import check, get, plan, resolve
    from omniurl.resolvers.options import Options
    from omniurl.resolvers.policy import DEFAULT, STRICT, Policy

__version__ = "0.1.0"

# The resolvers (and asyncio with them) are imported on first use of one of these names:
# ``python -m omniurl parse`` imports this package and needs none of them (PEP 562).
_FROM_RESOLVERS = {
    "DEFAULT": "omniurl.resolvers.policy",
    "STRICT": "omniurl.resolvers.policy",
    "Options": "omniurl.resolvers",
    "Policy": "omniurl.resolvers",
    "check": "omniurl.resolvers",
    "get": "omniurl.resolvers",
    "plan": "omniurl.resolvers",
    "resolve": "omniurl.resolvers",
}


def __getattr__(name: str) -> Any:
    module = _FROM_RESOLVERS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


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
