"""Hints for what a person most likely meant when a URL cannot be used as typed.

``omniurl get 127.0.0.1:8081/x`` parses (RFC 3986 §3.1) as the scheme ``127.0.0.1`` — no
resolver has it, and the plain error does not say why.  curl and browsers read such text as
an http URL; we do not guess silently (the plan must be what the user wrote) but say what was
probably meant.
"""

from __future__ import annotations

import re

# host[:port] at the start of the text, where host is a name with a dot, ``localhost``, an
# IPv4 address or a bracketed IPv6 literal (RFC 3986 §3.2.2), then the end, "/", "?" or "#".
_HOSTPORT = re.compile(
    r"^(?:localhost|\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+)(?::[0-9]*)?(?:[/?#]|$)"
)


def missing_scheme_hint(text: str) -> str | None:
    """``http://`` + ``text`` when ``text`` looks like a host[:port][/path] with no scheme.

    ``127.0.0.1:8081/x`` → ``http://127.0.0.1:8081/x``; a text with ``://`` or one that
    starts with a real scheme (``mailto:a@b``, ``news:comp.x``) gives ``None``.
    """
    if "://" in text or not _HOSTPORT.match(text):
        return None
    return f"http://{text}"
