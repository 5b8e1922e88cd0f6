"""Passwords never shown: every URL text omniurl prints, logs or puts in an error has the
password of its userinfo (RFC 1738 §3.1 ``user:password@``) replaced by ``****``.

One function for every place a URL is shown — JSON, ``-v``, error messages, manifests — so
that none can be forgotten: ``get --json ftp://u:SECRET@h/`` and an error about
``nntp://u:SECRET@h/`` print ``u:****@``.

And a server's control characters never reach a terminal (:func:`terminal_safe`).  Both are
here, in the bottom layer, because every layer shows text: the CLI, the gateway, ``omniurl
browse`` and the schemes' presentation hooks (``resolvers/<scheme>/present.py``), and a
resolver never imports the CLI layer (docs/ARCHITECTURE.md; tests/test_spec.py).
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


def terminal_safe(text: str, keep: str = "\t") -> str:
    """``text`` with control characters (C0, DEL, C1 — all but those in ``keep``: TAB) shown
    as escapes: a server's words (an FTP 550, a Gopher error item, an HTTP reason) can carry
    terminal escape sequences that would otherwise reach the terminal and act there.  The
    gateway shows a page's text through it too, keeping line ends (``keep="\t\n\r"``)."""
    if text.isprintable() or text.translate(_dropping(keep)).isprintable():
        # (both in C: a page of text with line ends was escaped character by character in
        # Python — 45% of the gateway's CPU a request, profiled at 200 clients)
        return text
    return "".join(
        [
            ch if ch.isprintable() or ch in keep else ch.encode("unicode_escape").decode("ascii")
            for ch in text
        ]
    )


#: keep -> a ``str.translate`` table removing its characters (a few ``keep`` strings are used)
_DROPPING: dict[str, dict[int, None]] = {}


def _dropping(keep: str) -> dict[int, None]:
    table = _DROPPING.get(keep)
    if table is None:
        table = _DROPPING[keep] = dict.fromkeys(map(ord, keep))
    return table


__all__ = ["MASK", "mask_passwords", "terminal_safe"]
