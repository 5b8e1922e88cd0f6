"""Masking of passwords in URLs that are shown to a person or a program.

RFC 1738 §3.1 puts a password in the URL's login (``//user:password@host``), and RFC 3986
§3.2.1 / RFC 9110 §4.2.4 say it should not be rendered in clear text.  Every place that
shows a URL (``get --json``, error messages, manifests) passes it through the one function
here, so the rule lives in a single place.
"""

from __future__ import annotations

import re
from typing import Any

#: The text shown instead of a password.
MASK = "***"

# scheme "://" user ":" password "@" — the user and password may not hold "/", "?", "#",
# "@" or white space (§3.1: those are encoded inside a login), so the match stays inside
# one URL's authority even when the URL is embedded in a longer message.
_LOGIN = re.compile(r"(?P<pre>\b[A-Za-z][A-Za-z0-9+.\-]*://[^/?#@\s:]*:)(?P<password>[^/?#@\s]+)@")


def mask_url(text: str) -> str:
    """Return ``text`` with the password of every URL login in it replaced by ``***``.

    ``ftp://u:SECRET@h/`` → ``ftp://u:***@h/``; a URL without a password, and text without a
    URL, come back unchanged.  Works on whole messages that quote a URL too.
    """
    if "@" not in text:
        return text
    return _LOGIN.sub(lambda m: f"{m.group('pre')}{MASK}@", text)


def mask_json(obj: Any) -> Any:
    """``mask_url`` applied to every string inside a JSON-shaped value (dicts, lists)."""
    if isinstance(obj, str):
        return mask_url(obj)
    if isinstance(obj, dict):
        return {key: mask_json(value) for key, value in obj.items()}
    if isinstance(obj, list | tuple):
        return [mask_json(value) for value in obj]
    return obj
