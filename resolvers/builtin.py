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

#: The command-line flags each built-in spec's options declare (:func:`resolvers.spec.flag`),
#: as data: ``plan`` and ``get`` import a spec for its flags only when the command line
#: names one of them, or asks for help, never on every start (importing the eight other
#: packages cost 8.6-9 ms CPU of each ``omniurl get``: their settings dataclasses,
#: datetime, urllib.parse).  tests/test_spec.py holds this equal to what the specs declare.
FLAGS: dict[str, tuple[str, ...]] = {
    "omniurl.resolvers.ftp:SPEC": ("--ftp-ssl",),
    "omniurl.resolvers.nntp:SPEC": ("--nntp-server", "--nntp-max-articles", "--nntp-starttls"),
    "omniurl.resolvers.telnet:SPEC": ("--login", "--login-prompt", "--password-prompt", "--script"),
    "omniurl.resolvers.mailto:SPEC": (
        "--smtp",
        "--starttls",
        "--smtp-tls",
        "--smtp-user",
        "--from",
        "--body",
        "--allow-header",
    ),
    "omniurl.resolvers.wais:SPEC": ("--wais-max-docs", "--wais-chunk"),
    "omniurl.resolvers.prospero:SPEC": ("--access-methods", "--ardp-retry"),
    "omniurl.resolvers.gemini:SPEC": ("--gemini-known-hosts", "--gemini-repin", "--repin"),
}

#: Environment variables that a built-in spec's command-line hook
#: (``Presentation.cli_options``) reads: while one is set, ``plan`` and ``get`` build that
#: spec's options whatever the URLs given (a redirect may lead to one of its URLs), as they
#: do for the schemes of the URLs given and for a spec whose flag is given.  With none of
#: them set, the other specs' command-line options are their defaults (tests/test_spec.py
#: checks each built-in's hooks change nothing then).
ENVIRONMENT: dict[str, str] = {"NNTPSERVER": "omniurl.resolvers.nntp:SPEC"}

__all__ = ["ENVIRONMENT", "FLAGS", "SPECS"]
