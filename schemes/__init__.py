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

# -- parsing (schemes-parse) ---------------------------------------------------------------
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
from .file import FileURL
from .ftp import FTPURL
from .generic import GenericURL
from .gopher import GopherURL
from .http import HTTPSURL, HTTPURL
from .mailto import MailtoURL
from .news import NewsURL
from .nntp import NNTPURL
from .percent import to_octets
from .prospero import ProsperoURL
from .registry import parse, register, registered, scheme_class
from .rfc1630 import URNURL, CidURL, MidURL
from .telnet import TelnetURL
from .wais import WAISURL

# isort: split
# -- relative references, equivalence, extraction, URL-safe text --------------------------
from .extract import Found, extract
from .join import join
from .normalize import equivalent, normalize
from .urlsafe import url_safe

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
    "TelnetURL",
    "URLError",
    "parse",
    "register",
    "registered",
    "scheme_class",
    "to_octets",
]
# -- end of parsing exports --------------------------------------------------------------------

# -- relative references, equivalence, extraction, URL-safe text (schemes-relative) --------
__all__ += ["Found", "equivalent", "extract", "join", "normalize", "url_safe"]
