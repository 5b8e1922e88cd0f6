"""Registration data: the built-in schemes, each one spec, found exactly as a plugin's is.

A plugin names its :class:`~resolvers.spec.SchemeSpec` in the ``omniurl.specs`` entry-point
group (``x-finger = "omniurl_xfinger.spec:SPEC"``); the built-ins are the same one line each,
kept here instead of read from the installed metadata (reading it costs ~12 ms of every
start, and a source checkout has none).  ``pyproject.toml`` declares the same lines
(tests/test_spec.py holds the two equal).  Each spec's module is imported on the first URL of
one of its schemes, and nothing else.

This module and ``schemes/registry.py`` (the parsing side, which may not import resolvers)
are the only places in the code that list the built-in schemes by name.
"""

from __future__ import annotations

#: Scheme name -> the spec that serves it (``"module:attr"``).
SPECS: dict[str, str] = {
    "ftp": "omniurl.resolvers.ftp:SPEC",
    "ftps": "omniurl.resolvers.ftp:SPEC",
    "http": "omniurl.resolvers.http:SPEC",
    "https": "omniurl.resolvers.http:SPEC",
    "file": "omniurl.resolvers.file:SPEC",
    "gopher": "omniurl.resolvers.gopher:SPEC",
    "gophers": "omniurl.resolvers.gopher:SPEC",
    "news": "omniurl.resolvers.nntp:SPEC",
    "snews": "omniurl.resolvers.nntp:SPEC",
    "nntp": "omniurl.resolvers.nntp:SPEC",
    "telnet": "omniurl.resolvers.telnet:SPEC",
    "mailto": "omniurl.resolvers.mailto:SPEC",
    "wais": "omniurl.resolvers.wais:SPEC",
    "prospero": "omniurl.resolvers.prospero:SPEC",
    "gemini": "omniurl.resolvers.gemini:SPEC",
}

__all__ = ["SPECS"]
