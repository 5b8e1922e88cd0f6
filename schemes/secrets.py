"""Passwords never shown: every URL text omniurl prints, logs or puts in an error has the
password of its userinfo (RFC 1738 §3.1 ``user:password@``) replaced by ``****``.

One function for every place a URL is shown — JSON, ``-v``, error messages, manifests — so
that none can be forgotten: ``get --json ftp://u:SECRET@h/`` and an error about
``nntp://u:SECRET@h/`` print ``u:****@``.
"""

from __future__ import annotations

from . import grammar

#: ``scheme://user:password@`` — the password is what follows the first ":" of the userinfo
#: (no "/", "?", "#", "@" or whitespace inside it, as §3.1 requires them encoded).
#: (Compiled on first use, grammar.Lazy: only a text with an "@" is searched.)
_USERINFO_PASSWORD = grammar.Lazy(
    r"(?P<keep>\b[A-Za-z][A-Za-z0-9+.\-]*://[^/?#@\s:\[\]]*:)(?P<password>[^/?#@\s]*)@"
)

MASK = "****"


def mask_passwords(text: str) -> str:
    """``text`` with every URL's userinfo password replaced by ``****``."""
    if "@" not in text:
        return text
    return _USERINFO_PASSWORD.sub(lambda m: f"{m['keep']}{MASK}@", text)


__all__ = ["MASK", "mask_passwords"]
