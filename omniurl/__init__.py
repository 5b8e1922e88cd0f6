"""omniurl: take a URL of any RFC 1738 scheme and do what it says, exactly and safely.

The library's front door::

    import omniurl
    url = omniurl.parse("ftp://ftp.example.org/pub/README;type=a")
    print(omniurl.plan(url).to_json()["steps"])          # what would be sent; sends nothing
    async with omniurl.resolve(url) as resource:          # plan, check, execute
        async for chunk in resource: ...
    data = omniurl.get("gopher://localhost:7070/0/about.txt")   # synchronous, any thread
    async with omniurl.AsyncClient() as client:           # shared connections, batches
        async for result in client.fetch_many(urls): ...

Every error omniurl raises derives from :class:`OmniurlError` and is exported here.
"""

from __future__ import annotations

import importlib

from omniurl.schemes import URL, Syntax, parse
from omniurl.schemes.errors import (
    AuthorityError,
    EncodingError,
    HostError,
    OmniurlError,
    PortError,
    SchemeError,
    SchemeSyntaxError,
    URLError,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from omniurl.batch import FetchResult, fetch_many
    from omniurl.client import AsyncClient, Client
    from omniurl.resolvers.core import Resolving, check, fetch, get, plan, resolve
    from omniurl.resolvers.errors import *  # noqa: F403 - exactly _ERROR_NAMES (a test)
    from omniurl.resolvers.options import Options
    from omniurl.resolvers.plan import Plan, Step, WireValue
    from omniurl.resolvers.policy import DEFAULT, STRICT, Policy
    from omniurl.resolvers.resource import Entry, Listing, Resource
del TYPE_CHECKING  # a switch for the type checker (typing not imported), not a public name

__version__ = "0.1.0"

#: The resolvers' error classes, exported here so a caller catches them from one place: the
#: one list (``__all__`` and the lazy imports below are made from it; tests/test_spec.py
#: holds it equal to ``resolvers.errors.__all__``).
_ERROR_NAMES = [
    "AddressRefused",
    "AuthError",
    "ClientClosed",
    "ConfigurationError",
    "ConnectError",
    "ConnectionClosed",
    "ContentDecodingError",
    "DeadlineExceeded",
    "DelimiterRefused",
    "HeaderRefused",
    "InputNeeded",
    "LimitExceeded",
    "MailAddressRefused",
    "NotFollowed",
    "NotFound",
    "PlanError",
    "PolicyError",
    "PoolTimeout",
    "PortRefused",
    "ProtocolError",
    "RedirectLoop",
    "RedirectRefused",
    "ReplyError",
    "ResolveError",
    "ResolveTimeout",
    "ResumeMismatch",
    "ResumeUnsupported",
    "SchemeRefused",
    "StatusError",
    "TooManyRedirects",
    "TooSlow",
    "TransportError",
    "UnsupportedScheme",
]
# The resolvers (and asyncio with them) are imported on first use of one of these names:
# ``python -m omniurl parse`` imports this package and needs none of them (PEP 562).
_LAZY = {
    "DEFAULT": "omniurl.resolvers.policy",
    "STRICT": "omniurl.resolvers.policy",
    "Policy": "omniurl.resolvers.policy",
    "Options": "omniurl.resolvers.options",
    "Plan": "omniurl.resolvers.plan",
    "Step": "omniurl.resolvers.plan",
    "WireValue": "omniurl.resolvers.plan",
    "Entry": "omniurl.resolvers.resource",
    "Listing": "omniurl.resolvers.resource",
    "Resource": "omniurl.resolvers.resource",
    "Resolving": "omniurl.resolvers.core",
    "check": "omniurl.resolvers.core",
    "fetch": "omniurl.resolvers.core",
    "get": "omniurl.resolvers.core",
    "plan": "omniurl.resolvers.core",
    "resolve": "omniurl.resolvers.core",
    "AsyncClient": "omniurl.client",
    "Client": "omniurl.client",
    "FetchResult": "omniurl.batch",
    "fetch_many": "omniurl.batch",
    **dict.fromkeys(_ERROR_NAMES, "omniurl.resolvers.errors"),
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "DEFAULT",
    "STRICT",
    "URL",
    "AsyncClient",
    "AuthorityError",
    "Client",
    "EncodingError",
    "Entry",
    "FetchResult",
    "HostError",
    "Listing",
    "OmniurlError",
    "Options",
    "Plan",
    "Policy",
    "PortError",
    "Resolving",
    "Resource",
    "SchemeError",
    "SchemeSyntaxError",
    "Step",
    "Syntax",
    "URLError",
    "WireValue",
    "check",
    "fetch",
    "fetch_many",
    "get",
    "parse",
    "plan",
    "resolve",
]
__all__ += _ERROR_NAMES
__all__.sort(key=lambda name: (not name.isupper(), name))
