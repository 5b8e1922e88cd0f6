"""Make a piece of text safe to put in a URL, character by character.

Built on the table of characters "forbidden or at risk in URLs" that heads
``specs/000_…txt`` (Assiste.com, in French).  The page says each such character must be
either **removed**, **replaced** by an admissible neutral character, or **percent-encoded**
(§2.2's ``%XX``), and it gives advice: a space is better replaced by a hyphen than encoded as
``%20`` (a hyphen rather than an underscore), and so is ``+``, which "some tools modify" and
whose ``%2B`` is "heavy and unsightly".  That advice drives the default: ``-`` for space and
``+``, ``%XX`` for the rest.  The caller can choose one action for all (``mode``) or per
character (``actions``), and keep characters that are meant to be reserved (``keep="/"`` for a
path).

The table omits a few characters RFC 1738 §2.2 also requires to be encoded — the backslash,
control characters and DEL, and every octet beyond US-ASCII — so they are added, with the
advice to encode them (non-ASCII text as its UTF-8 octets).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from .percent import check_octets

__all__ = ["TABLE", "Action", "UnsafeChar", "url_safe"]

Action = Literal["remove", "replace", "encode"]
Mode = Literal["advised", "remove", "replace", "encode"]


@dataclass(frozen=True, slots=True)
class UnsafeChar:
    """One row of the table: the character, its ``%XX`` form, its name, the advised action."""

    char: str
    escape: str
    name: str
    advice: Action = "encode"


def _row(char: str, name: str, advice: Action = "encode") -> UnsafeChar:
    return UnsafeChar(char, f"%{ord(char):02X}", name, advice)


#: The table, in its order.  The last seven (``; / ? : @ = &``) are the ones it marks as having
#: reserved meanings: encode them when they are data, keep them (``keep=``) where they act as
#: delimiters.
_ROWS: tuple[UnsafeChar, ...] = (
    _row(" ", "space: better replaced by a hyphen than encoded", "replace"),
    _row("<", "less than"),
    _row(">", "greater than"),
    _row("'", "apostrophe"),
    _row("#", "hash"),
    _row("%", "percent"),
    _row("{", "left brace"),
    _row("}", "right brace"),
    _row("|", "vertical bar"),
    _row('"', "English quote"),
    _row("^", "circumflex accent"),
    _row(",", "comma"),
    _row("~", "tilde"),
    _row("[", "left square bracket"),
    _row("]", "right square bracket"),
    _row("`", "grave accent"),
    _row("!", "exclamation point"),
    _row("$", "dollar"),
    _row("(", "left parenthesis"),
    _row(")", "right parenthesis"),
    _row("*", "asterisk"),
    _row("+", "plus: some tools change it, %2B is heavy; better replaced by a hyphen", "replace"),
    _row(";", "semicolon (reserved)"),
    _row("/", "slash (reserved): separates the host from the directories"),
    _row("?", "question mark (reserved): the query string follows"),
    _row(":", "colon (reserved): separates the scheme from the address"),
    _row("@", "at sign (reserved): separates the user from the host"),
    _row("=", "equals sign (reserved)"),
    _row("&", "ampersand (reserved): separates the parameters of a query"),
)

#: Character -> its row; includes the additions from RFC 1738 §2.2 (backslash, controls, DEL).
TABLE: Mapping[str, UnsafeChar] = MappingProxyType(
    {row.char: row for row in _ROWS}
    | {"\\": _row("\\", "backslash (RFC 1738 §2.2, not in the table)")}
    | {chr(c): _row(chr(c), "control character (RFC 1738 §2.2)") for c in range(0x20)}
    | {"\x7f": _row("\x7f", "DEL (RFC 1738 §2.2)")}
)

# Characters that need no action: US-ASCII letters and digits, "-", "_", ".".
_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.")


def _encode(char: str) -> str:
    return "".join(f"%{b:02X}" for b in char.encode("utf-8", "surrogateescape"))


def url_safe(
    text: str,
    *,
    mode: Mode = "advised",
    neutral: str = "-",
    keep: str = "",
    actions: Mapping[str, Action] | None = None,
    collapse: bool = False,
) -> str:
    """``text`` with every character of the table (and every non-ASCII one) made URL-safe.

    ``mode``: ``"advised"`` (default) follows the table's advice per character (``-`` for
    space and ``+``, ``%XX`` for the others); ``"encode"``, ``"replace"`` and ``"remove"``
    apply that one action to all.  ``neutral`` is the replacement character (``-``; ``_`` is
    the other choice the page names); ``keep`` lists characters to leave as they are (say,
    ``"/"`` in a path); ``actions`` overrides the action for single characters;
    ``collapse=True`` turns every run of ``neutral`` in the result into one
    (``"a + b"`` -> ``"a-b"``, not ``"a---b"``).

    A ``%`` in ``text`` is data, so it is encoded (``%25``), never taken for an escape.
    Characters beyond US-ASCII count as unsafe: they are encoded as their UTF-8 octets,
    removed or replaced like the others.  A lone surrogate, which has no UTF-8 form, is
    :class:`~schemes.errors.EncodingError` (component ``"text"``).
    """
    if len(neutral) != 1 or neutral not in _SAFE:
        raise ValueError(
            f"the neutral character must be one of letters, digits, '-_.': {neutral!r}"
        )
    check_octets(text, "text")  # a lone surrogate has no UTF-8 octets to encode
    overrides = actions or {}
    out: list[str] = []
    for char in text:
        if char in _SAFE or char in keep:
            out.append(char)
            continue
        action = overrides.get(char)
        if action is None:
            if mode == "advised":
                row = TABLE.get(char)
                action = row.advice if row is not None else "encode"
            else:
                action = mode
        if action == "encode":
            out.append(_encode(char))
        elif action == "replace":
            out.append(neutral)
        elif action != "remove":
            raise ValueError(f"unknown action {action!r} for {char!r}")
    result = "".join(out)
    if collapse:
        result = re.sub(re.escape(neutral) + "{2,}", neutral, result)
    return result
