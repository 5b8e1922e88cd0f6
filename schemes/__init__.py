"""Pure URL parsing for every RFC 1738 scheme (no sockets, no protocol knowledge).

Public surface::

    parse(text, strict=True) -> URL subclass of the scheme
    register(name, cls)                       (plugins; also the ``omniurl.schemes`` entry points)
    URLError and its subclasses               (schemes.errors)
"""

from __future__ import annotations

from .base import URL, InternetURL
from .errors import OmniurlError, URLError
from .registry import parse, register, scheme_class

__all__ = [
    "URL",
    "InternetURL",
    "OmniurlError",
    "URLError",
    "parse",
    "register",
    "scheme_class",
]
