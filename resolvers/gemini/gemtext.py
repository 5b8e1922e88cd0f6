"""Gemtext (``text/gemini``): the Gemini specification's line-oriented document format.

Each line's kind is decided by its first characters, and nothing spans lines but a
preformatted block::

    "=>" [WSP] URL [WSP text]      a link (relative URLs resolved against the document's)
    "#" / "##" / "###"             a heading, level 1 to 3
    "* "                           a list item
    ">"                            a quote
    "```" [alt text]               toggles preformatted mode; lines inside are kept verbatim
    anything else                  a text line

Pure: :func:`parse` takes the text and the document's URL; :func:`render_text` (the
terminal: links as numbered entries with their absolute URLs, like a Gopher menu) and
:func:`render_html` (the gateway: every value escaped, links through a function the caller
gives) take the parsed lines.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from omniurl.schemes.records import record


@record(frozen=True)
class GemLine:
    """One line: ``kind`` is ``text``, ``link``, ``heading``, ``item``, ``quote``,
    ``toggle`` (a ``````` line: ``text`` is its alt text) or ``preformatted``; ``level`` a
    heading's (1-3); ``url`` a link's target, absolute; ``number`` a link's number (1…)."""

    kind: str
    text: str
    level: int = 0
    url: str | None = None
    number: int = 0

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "text": self.text}
        if self.kind == "heading":
            out["level"] = self.level
        if self.kind == "link":
            out["url"] = self.url
            out["number"] = self.number
        return out


def absolute(base: str, ref: str) -> str:
    """``ref`` resolved against ``base`` (RFC 3986 §5.2); ``ref`` itself when either will
    not parse (the link is then shown as written)."""
    from omniurl.schemes.errors import URLError
    from omniurl.schemes.join import join

    try:
        return join(base, ref, check=False)
    except (URLError, ValueError):
        return ref


def parse(text: str, base: str) -> list[GemLine]:
    """The lines of a gemtext document whose URL is ``base``."""
    reader = Reader(base)
    return [reader.line(raw) for raw in text.splitlines()]


def iter_lines(lines: Iterable[str], base: str) -> Iterator[GemLine]:
    reader = Reader(base)
    for raw in lines:
        yield reader.line(raw)


class Reader:
    """A document read line by line (what a stream needs): it remembers whether a
    preformatted block is open and how many links came before."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.preformatted = False
        self.links = 0

    def line(self, raw: str) -> GemLine:
        line = raw.rstrip("\r")
        if line.startswith("```"):
            self.preformatted = not self.preformatted
            return GemLine("toggle", line[3:].strip() if self.preformatted else "")
        if self.preformatted:
            return GemLine("preformatted", line)
        if line.startswith("=>"):
            parts = line[2:].split(None, 1)  # (spaces or tabs separate URL and label)
            if not parts:
                return GemLine("text", line)
            target, label = parts[0], parts[1] if len(parts) > 1 else ""
            self.links += 1
            url = absolute(self.base, target)
            return GemLine("link", label.strip() or url, url=url, number=self.links)
        if line.startswith("#"):
            level = min(len(line) - len(line.lstrip("#")), 3)
            return GemLine("heading", line[level:].strip(), level=level)
        if line.startswith("* "):
            return GemLine("item", line[2:].strip())
        if line.startswith(">"):
            return GemLine("quote", line[1:].strip())
        return GemLine("text", line)


def render_text(lines: Iterable[GemLine], *, wrapper: str = "<{}>") -> str:
    """The terminal's view: headings underlined, items bulleted, quotes marked, preformatted
    lines as they are, and each link a numbered entry with its absolute URL, written in
    ``wrapper`` (``"<URL:{}>"``: RFC 1738's appendix form, which a reader of any scheme's
    URLs in text recognises — ``omniurl browse`` makes those links)."""
    out: list[str] = []
    for line in lines:
        if line.kind == "heading":
            out.append(line.text)
            out.append(("=", "-", "~")[line.level - 1] * max(len(line.text), 3))
        elif line.kind == "item":
            out.append(f"  • {line.text}")
        elif line.kind == "quote":
            out.append(f"  │ {line.text}")
        elif line.kind == "link":
            shown = "" if line.text == line.url else f"{line.text}  "
            out.append(f"[{line.number}] {shown}" + wrapper.format(line.url))
        elif line.kind == "toggle":
            continue
        else:
            out.append(line.text)
    return "\n".join(out) + ("\n" if out else "")


def render_html(lines: Iterable[GemLine], link: Callable[[str], str | None]) -> str:
    """The gateway's view: an HTML fragment, every text escaped, each link's ``href`` what
    ``link(url)`` gives (the gateway's own link to it; None: shown, not linked)."""
    out: list[str] = []
    in_list = False
    in_pre = False
    for line in lines:
        if line.kind != "item" and in_list:
            out.append("</ul>")
            in_list = False
        text = html.escape(line.text)
        if line.kind == "toggle":
            if not in_pre:
                label = f' aria-label="{text}"' if text else ""
                out.append(f"<pre{label}>")
                in_pre = True
            else:
                out.append("</pre>")
                in_pre = False
        elif line.kind == "preformatted":
            out.append(text)
        elif line.kind == "heading":
            out.append(f"<h{line.level + 1}>{text}</h{line.level + 1}>")
        elif line.kind == "item":
            if not in_list:
                out.append("<ul>")
                in_list = True
            out.append(f"<li>{text}</li>")
        elif line.kind == "quote":
            out.append(f"<blockquote>{text}</blockquote>")
        elif line.kind == "link":
            href = link(line.url or "")
            target = html.escape(line.url or "")
            if href is None:
                out.append(f"<p>[{line.number}] {text} &lt;{target}&gt;</p>")
            else:
                out.append(
                    f'<p>[{line.number}] <a href="{html.escape(href)}">{text}</a> '
                    f'<span class="url">{target}</span></p>'
                )
        else:
            out.append(f"<p>{text}</p>" if line.text else "<br>")
    if in_list:
        out.append("</ul>")
    if in_pre:
        out.append("</pre>")
    return "\n".join(out) + "\n"


__all__ = ["GemLine", "Reader", "absolute", "iter_lines", "parse", "render_html", "render_text"]
