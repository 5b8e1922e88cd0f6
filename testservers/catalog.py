"""The built-in test servers by name, with their one-line help, and nothing else.

``omniurl --help`` lists them (``serve``'s help): this module imports nothing, so neither does
that (the servers' modules import aioftp, aiosmtpd, telnetlib3, asyncio...).  The registry,
:mod:`testservers.base`, imports a server's module when it is started.
"""

from __future__ import annotations

#: Built-in server name -> (the module whose import registers it, its one-line help).  The
#: help is the same text the module passes to ``@register`` (a test checks that they agree),
#: and every module of ``testservers.base.BUILTIN_MODULES`` is here.
#: The adversary server's modes (``serve adversary --mode``), named here for ``--help``
#: without importing the server (a test checks they are exactly its modes).
ADVERSARY_MODES: tuple[str, ...] = (
    "endless-nntp-over",
    "escape-ftp-550",
    "escape-gopher-error",
    "ftp-220-flood",
    "ftp-short",
    "gopher-plus-moved",
    "http-100-flood",
    "http-redirect-dotfile",
    "huge-ftp-nlst",
    "huge-gopher-menu",
    "huge-nntp-list",
    "telnet-negotiation-flood",
    "trickle-ftp-greeting",
    "trickle-gopher-menu",
    "trickle-gopher-text",
    "trickle-http-body",
    "trickle-http-headers",
    "trickle-http-status",
    "trickle-nntp-greeting",
)

BUILTIN_SERVERS: dict[str, tuple[str, str]] = {
    "ftp": (
        "omniurl.testservers.ftp",
        "serve a directory over FTP (aioftp + NLST/SIZE/NOOP; anonymous login)",
    ),
    "adversary": (
        "omniurl.testservers.adversary.server",
        "misbehave on purpose: trickles, floods, huge listings, lies (--mode)",
    ),
    "ftp-tls": (
        "omniurl.testservers.ftp_tls",
        "serve a directory over FTP with explicit TLS (AUTH TLS, PBSZ, PROT P)",
    ),
    "http": (
        "omniurl.testservers.http",
        "serve a directory over HTTP/1.1 (h11; GET and HEAD, directory indexes)",
    ),
    "gopher": (
        "omniurl.testservers.gopher",
        "serve a directory as Gopher menus (gophermap-aware), text, binaries, a word-index "
        "search, and Gopher+ attributes, views and an ASK form",
    ),
    "nntp": (
        "omniurl.testservers.nntp",
        "serve newsgroups of articles over NNTP (sample groups + ROOT/news/GROUP/N)",
    ),
    "telnet": (
        "omniurl.testservers.telnet",
        "telnet with login/password prompts (demo/demo), a banner and a tiny shell",
    ),
    "smtp": (
        "omniurl.testservers.smtp",
        "aiosmtpd capturing messages to ROOT/mail/ (AUTH demo/demo)",
    ),
    "wais": (
        "omniurl.testservers.wais",
        "a WAIS server: each subdirectory of --root is a searchable database",
    ),
    "prospero": (
        "omniurl.testservers.prospero",
        "a Prospero directory server (ARDP over UDP) with a sample object table",
    ),
    "gemini": (
        "omniurl.testservers.gemini",
        "serve a directory over Gemini (TLS, throw-away certificates; input, redirect and "
        "client-certificate paths)",
    ),
    "recording": (
        "omniurl.testservers.recording",
        "record every byte received on TCP (nothing is answered)",
    ),
}


#: The servers that speak TLS when started with a certificate (``omniurl serve --tls``).
TLS_SERVERS: tuple[str, ...] = ("gopher", "ftp", "nntp", "ftp-tls")


def builtin() -> dict[str, str]:
    """Built-in server name -> one-line help, sorted by name."""
    return {name: text for name, (_module, text) in sorted(BUILTIN_SERVERS.items())}
