"""Pure URL parsing for every RFC 1738 scheme (no sockets, no protocol knowledge).

Public surface::

    parse(text, strict=True) -> URL subclass of the scheme
    register(name, cls)                       (plugins; also the ``omniurl.schemes`` entry points)
    URLError and its subclasses               (schemes.errors)
    join(base, ref, rfc="3986"|"1630")        (RFC 3986 §5 / RFC 1630 §4.1.3)
    normalize(url), equivalent(a, b)          (RFC 1630 §4.1.2)
    extract(text) -> [Found]                  (RFC 1738 appendix, URLs in context)
    url_safe(text, mode=...)                  (make text safe to put in a URL)
"""

from __future__ import annotations

import importlib
import sys
import types

from .base import URL, InternetURL
from .errors import (
    AuthorityError,
    EncodingError,
    HostError,
    OmniurlError,
    PortError,
    SchemeError,
    SchemeSyntaxError,
    URLError,
)
from .percent import to_octets
from .registry import parse, register, registered, scheme_class
from .rfc3986 import Syntax

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .extract import Found, extract
    from .file import FileURL
    from .ftp import FTPURL
    from .generic import GenericURL
    from .gopher import GopherURL
    from .http import HTTPSURL, HTTPURL
    from .join import join
    from .mailto import MailtoURL
    from .news import NewsURL
    from .nntp import NNTPURL
    from .normalize import equivalent, normalize
    from .prospero import ProsperoURL
    from .rfc1630 import URNURL, CidURL, MidURL
    from .telnet import TelnetURL
    from .urlsafe import url_safe
    from .wais import WAISURL

#: Imported on first use (PEP 562): ``omniurl parse http://…`` needs the http module only,
#: not the eleven others (~20 ms of every start).
_LAZY = {
    "FTPURL": "ftp",
    "HTTPURL": "http",
    "HTTPSURL": "http",
    "GopherURL": "gopher",
    "MailtoURL": "mailto",
    "NewsURL": "news",
    "NNTPURL": "nntp",
    "TelnetURL": "telnet",
    "WAISURL": "wais",
    "FileURL": "file",
    "ProsperoURL": "prospero",
    "MidURL": "rfc1630",
    "CidURL": "rfc1630",
    "URNURL": "rfc1630",
    "url_safe": "urlsafe",
    # (the class of unknown schemes: ~0.4 ms, which a URL of a known scheme has no use for)
    "GenericURL": "generic",
    # Functions that share their module's name: importing join, normalize and extract (and
    # bisect) was ~3 ms CPU of every start, 29% of this package's import (-X importtime).
    "join": "join",
    "normalize": "normalize",
    "equivalent": "normalize",
    "extract": "extract",
    "Found": "extract",
}


class _Package(types.ModuleType):
    """This package's module type: importing a submodule sets the package's attribute of
    its name to the module, which for ``join``, ``normalize`` and ``extract`` would hide
    the function of the same name (imported lazily, :data:`_LAZY`): that one assignment is
    left out, so ``schemes.join`` is the function however the modules were imported."""

    def __setattr__(self, name: str, value: object) -> None:
        if isinstance(value, types.ModuleType) and _LAZY.get(name) == name:
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "FTPURL",
    "HTTPSURL",
    "HTTPURL",
    "NNTPURL",
    "URL",
    "URNURL",
    "WAISURL",
    "AuthorityError",
    "CidURL",
    "EncodingError",
    "FileURL",
    "GenericURL",
    "GopherURL",
    "HostError",
    "InternetURL",
    "MailtoURL",
    "MidURL",
    "NewsURL",
    "OmniurlError",
    "PortError",
    "ProsperoURL",
    "SchemeError",
    "SchemeSyntaxError",
    "Syntax",
    "TelnetURL",
    "URLError",
    "parse",
    "register",
    "registered",
    "scheme_class",
    "to_octets",
]
__all__ += ["Found", "equivalent", "extract", "join", "normalize", "url_safe"]
