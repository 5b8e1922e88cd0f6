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

from .base import URL, InternetURL
from .errors import OmniurlError, URLError
from .registry import parse, register, scheme_class

# isort: split
# -- relative references, equivalence, extraction, URL-safe text (branch schemes-relative) --
from .extract import Found, extract
from .join import join
from .normalize import equivalent, normalize
from .urlsafe import url_safe

__all__ = [
    "URL",
    "InternetURL",
    "OmniurlError",
    "URLError",
    "parse",
    "register",
    "scheme_class",
]

# schemes-relative
__all__ += ["Found", "equivalent", "extract", "join", "normalize", "url_safe"]
