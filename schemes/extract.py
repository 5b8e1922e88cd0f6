"""Find URLs in free text: RFC 1738, "APPENDIX: Recommendations for URLs in Context".

The appendix recommends a wrapper, ``<URL:...>``, that "does not form part of the URL", and
says that whitespace "added to break long URLs across lines ... should be ignored when
extracting the URL".  A hyphen right before a line break is ambiguous: "the hyphen may or may
not actually be part of the URL" (typesetters insert one when they break a word).

So :func:`extract` finds, in order of position:

* ``<URL:...>`` (the prefix in any case): any scheme; all whitespace inside is removed;
* ``<...>`` without the prefix, when what it holds starts with a known scheme name and ``:``
  (so ``<joe@example.org>`` or ``<Note: ...>`` are not taken for URLs); whitespace removed;
* a bare URL of a known scheme outside any wrapper, up to the first character that cannot be
  in a URL; punctuation that ends a sentence (``.,;:!?'``, or an unmatched ``)``) is not taken.
  A bare URL cannot be continued across a line break: nothing marks where it would end; and
  a scheme followed by slashes only (``http://`` in prose or in a BNF rule) is not taken.

Each result is a :class:`Found` with the URL as the text means it, its span in the text
(wrapper included) and the positions of ambiguous hyphens.
"""

from __future__ import annotations

import functools
import re
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

__all__ = ["KNOWN_SCHEMES", "Found", "extract"]

#: Scheme names recognised without the ``URL:`` prefix: RFC 1738 §3's and RFC 1630's.
KNOWN_SCHEMES: tuple[str, ...] = (
    "ftp",
    "http",
    "https",
    "gopher",
    "mailto",
    "news",
    "nntp",
    "telnet",
    "wais",
    "file",
    "prospero",
    "mid",
    "cid",
    "urn",
)

Wrapper = Literal["<URL:>", "<>"]


@dataclass(frozen=True, slots=True)
class Found:
    """One URL found in a text.

    ``url`` is the URL as the text means it: wrapper and inserted whitespace removed, every
    hyphen kept.  ``start``/``end`` delimit what was matched in the text (``text[start:end]``,
    wrapper included).  ``wrapper`` is ``"<URL:>"``, ``"<>"`` or ``None`` (a bare URL).
    ``hyphen_breaks`` holds the index, in ``url``, of each ``-`` that stood right before a
    line break: per the appendix it "may or may not actually be part of the URL".
    """

    url: str
    start: int
    end: int
    wrapper: Wrapper | None = None
    hyphen_breaks: tuple[int, ...] = ()

    @property
    def span(self) -> tuple[int, int]:
        return (self.start, self.end)

    @property
    def ambiguous(self) -> bool:
        """True when a hyphen stood at a line break inside the URL (the appendix's warning)."""
        return bool(self.hyphen_breaks)

    @property
    def without_break_hyphens(self) -> str:
        """The other reading of an ambiguous URL: the hyphens at line breaks removed."""
        drop = set(self.hyphen_breaks)
        return "".join(c for i, c in enumerate(self.url) if i not in drop)

    def to_json(self) -> dict[str, object]:
        return {
            "url": self.url,
            "start": self.start,
            "end": self.end,
            "wrapper": self.wrapper,
            "ambiguous_hyphens": list(self.hyphen_breaks),
            "alternative": self.without_break_hyphens if self.ambiguous else None,
        }


# scheme = 1*[ lowalpha | digit | "+" | "-" | "." ]      (§2.1; upper case accepted, §2.1)
_SCHEME = r"[A-Za-z0-9+\-.]+"
# A wrapper: "<", optional "URL:" prefix (whitespace allowed around it), then anything but
# angle brackets, then ">".  ">" and "<" are unsafe (§2.2) so never inside a URL.
_WRAPPED = re.compile(r"<(?P<prefix>\s*URL:)?(?P<body>[^<>]*)>", re.IGNORECASE)
_SCHEME_PREFIX = re.compile(rf"(?P<scheme>{_SCHEME}):")
_WHITESPACE = re.compile(r"\s+")
# The characters a bare URL may hold: alphanumerics, safe, extra, reserved, "%" and "#"
# (§2.2, §5), plus "~" and "[]" that are common in practice (home directories, IPv6).
_URLCHARS = r"[A-Za-z0-9$\-_.+!*'(),;/?:@=&%#~\[\]]"
_TRAILING = ".,;:!?'"


@functools.cache
def _bare_pattern(names: tuple[str, ...]) -> re.Pattern[str]:
    alternatives = "|".join(sorted((re.escape(n) for n in names), key=len, reverse=True))
    # Not preceded by a scheme character, so "xhttp:" or "URL:http:" match only the right
    # part; at least one URL character after the colon.
    return re.compile(
        rf"(?<![A-Za-z0-9+\-.])(?:{alternatives}):{_URLCHARS}+",
        re.IGNORECASE,
    )


def _unwrap(body: str) -> tuple[str, tuple[int, ...]]:
    """Remove all whitespace; note each hyphen left just before a line break."""
    parts: list[str] = []
    breaks: list[int] = []
    length = 0
    pos = 0
    for ws in _WHITESPACE.finditer(body):
        chunk = body[pos : ws.start()]
        parts.append(chunk)
        length += len(chunk)
        if length and ("\n" in ws.group() or "\r" in ws.group()) and parts[-1].endswith("-"):
            breaks.append(length - 1)
        pos = ws.end()
    parts.append(body[pos:])
    return "".join(parts), tuple(breaks)


def _trim(url: str) -> str:
    """Drop sentence punctuation a bare URL cannot end with (an unmatched ')' included)."""
    while url:
        last = url[-1]
        if last in _TRAILING or (last == ")" and url.count(")") > url.count("(")):
            url = url[:-1]
        else:
            break
    return url


def extract(text: str, *, schemes: Iterable[str] = ()) -> list[Found]:
    """Every URL in ``text``, in order of position (RFC 1738 appendix).

    ``schemes`` adds scheme names to :data:`KNOWN_SCHEMES` for bare and ``<...>`` URLs
    (``<URL:...>`` accepts any scheme).
    """
    extra = tuple(s.lower() for s in schemes)
    known = frozenset(KNOWN_SCHEMES + extra)
    # (compiled on first use: ~0.7 ms of every start that never extracts)
    bare = _bare_pattern(tuple(sorted(known)) if extra else KNOWN_SCHEMES)
    found: list[Found] = []
    taken: list[tuple[int, int]] = []
    for m in _WRAPPED.finditer(text):
        url, breaks = _unwrap(m.group("body"))
        head = _SCHEME_PREFIX.match(url)
        if head is None or len(url) == head.end():
            continue
        if m.group("prefix"):
            wrapper: Wrapper = "<URL:>"
        elif head.group("scheme").lower() in known:
            wrapper = "<>"
        else:
            continue
        found.append(Found(url, m.start(), m.end(), wrapper, breaks))
        taken.append((m.start(), m.end()))
    starts = [start for start, _ in taken]  # in order: finditer yields wrappers left to right
    for m in bare.finditer(text):
        i = bisect_right(starts, m.start()) - 1
        if i >= 0 and m.start() < taken[i][1]:
            continue  # inside a wrapper already taken
        url = _trim(m.group())
        # "http://" alone, as in prose or a BNF line, names nothing: not a URL
        if url[url.find(":") + 1 :].strip("/"):
            found.append(Found(url, m.start(), m.start() + len(url)))
    found.sort(key=lambda f: f.start)
    return found
