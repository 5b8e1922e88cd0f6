"""news: URLs (§3.6).

::

    newsurl   = "news:" grouppart
    grouppart = "*" | group | article
    group     = alpha *[ alpha | digit | "-" | "." | "+" | "_" ]
    article   = 1*[ uchar | ";" | "/" | "?" | ":" | "&" | "=" ] "@" host

"A message identifier may be distinguished from a news group name by the presence of the
commercial at "@" character."  ``message_id`` is decoded and without the enclosing "<>";
``newsgroup`` is "*" for "all available news groups".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

from . import grammar
from .authority import check_host, format_fragment, split_fragment
from .base import URL
from .errors import SchemeSyntaxError
from .percent import char_error, check, decode, display, quote

#: The fast path builds instances without the frozen dataclass's __init__ (see URL._make).
_new = object.__new__

_BAD_UNIQUE = grammar.bad_char(grammar.ARTICLE)
_NOT_GROUP = re.compile(r"[^A-Za-z0-9\-.+_]")
ARTICLE_SAFE = ";/?:&="


# grouppart = "*" | group | article      (article with a hostname: the fast path, see grammar)
_FAST = re.compile(
    rf"(?:(\*|{grammar.GROUP})|({grammar.fast_plus(grammar.ARTICLE)}@{grammar.HOSTNAME_FAST}))"
    + grammar.FRAGMENT_FAST
)


@dataclass(frozen=True, kw_only=True)
class NewsURL(URL):
    """``news:<newsgroup-name>``, ``news:*`` or ``news:<message-id>`` (§3.6)."""

    newsgroup: str | None = None
    message_id: str | None = None

    schemes: ClassVar[tuple[str, ...]] = ("news",)

    @classmethod
    def from_text(cls, text: str, *, scheme: str, rest: str, strict: bool = True) -> NewsURL:
        return cls._parse_at(text, len(text) - len(rest), scheme, strict)

    @classmethod
    def _parse_at(cls, text: str, start: int, scheme: str, strict: bool) -> NewsURL:
        m = _FAST.fullmatch(text, start)
        if m is not None and ("%" not in text or grammar.STRAY_PERCENT.search(text, start) is None):
            group, article, fragment = m.groups()
            obj = _new(cls)
            d = obj.__dict__  # (plain stores: no kwargs dict, no __setattr__)
            d["scheme"] = scheme
            d["fragment"] = fragment
            d["newsgroup"] = group
            d["message_id"] = decode(article) if article and "%" in article else article
            return obj
        return cls._parse_slow(text, start, scheme, strict)

    @classmethod
    def _parse_slow(cls, text: str, start: int, scheme: str, strict: bool) -> NewsURL:
        """Component by component: the whole grammar, and the offset of any error."""
        end, fragment = split_fragment(text, start, strict)
        fields: dict[str, Any] = {"scheme": scheme, "fragment": fragment}
        if start == end:
            raise SchemeSyntaxError(
                "a news: URL names a newsgroup, '*' or a message-id (§3.6)",
                component="newsgroup",
                offset=start,
            )
        at = text.rfind("@", start, end)
        if at >= 0:
            if strict:
                check(text, start, at, _BAD_UNIQUE, "message_id", "§3.6")
                if at == start:
                    raise SchemeSyntaxError(
                        "a message-id has a unique part before '@' (§3.6)",
                        component="message_id",
                        offset=start,
                    )
                check_host(text, at + 1, end, strict=True, empty_host=False)
            fields["message_id"] = decode(text[start:end], "message_id", start)
        elif text[start:end] == "*":
            fields["newsgroup"] = "*"
        else:
            if strict and not grammar.GROUP_RE.fullmatch(text, start, end):
                raise _group_error(text, start, end)
            fields["newsgroup"] = decode(text[start:end], "newsgroup", start)
        return cls._make(fields)

    def __str__(self) -> str:
        if self.message_id is not None:
            unique, at, host = self.message_id.rpartition("@")
            body = (
                f"{quote(unique, ARTICLE_SAFE)}@{quote(host, ARTICLE_SAFE + '[]:')}"
                if at
                else quote(host, ARTICLE_SAFE)
            )
        elif self.newsgroup == "*":
            body = "*"
        else:
            body = quote(self.newsgroup or "")
        return f"{self.scheme}:{body}{format_fragment(self.fragment)}"

    def components(self) -> dict[str, Any]:
        return {
            "newsgroup": None if self.newsgroup is None else display(self.newsgroup),
            "message_id": None if self.message_id is None else display(self.message_id),
        }


def _group_error(text: str, start: int, end: int) -> Exception:
    """The first character that breaks ``group = alpha *[ alpha | digit | "-.+_" ]``."""
    m = _NOT_GROUP.search(text, start, end)
    pos = m.start() if m is not None else start
    if m is not None and text[pos] not in grammar.UNRESERVED_CHARS:
        return char_error(text, pos, "newsgroup", "§3.6")
    return SchemeSyntaxError(
        "a newsgroup name starts with a letter and holds only letters, digits and '-.+_' "
        "(§5: group)",
        component="newsgroup",
        offset=pos,
    )
