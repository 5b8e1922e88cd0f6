"""The links of an HTML page, for ``omniurl mirror`` (pure: text in, absolute URLs out).

A mirror follows what a reader could follow or a page needs: ``href`` of ``a``, ``area``
and ``link``, ``src`` of ``img``, ``script``, ``frame``, ``iframe``, ``embed``, ``source``,
``audio``, ``video``, ``track`` and ``input`` (an image button), every candidate of the
``srcset`` of ``img`` and ``source`` (§4.8.4.3.1: a responsive image's other sizes),
``video``'s ``poster`` and ``object``'s ``data`` (HTML Living Standard §4.6, §4.8) — what
``wget --mirror`` follows of them (before, a page's ``srcset`` images were left out where
wget took them).  Each is resolved against the page's URL, or its ``<base href>``
(§4.2.3), by RFC 3986 §5.2; the fragment is dropped.  Style sheets are read for what they
load (CSS Values 4 §4.5 ``url()``, CSS Cascade 4 §2 ``@import``): a ``text/css`` file's, a
``<style>`` element's and a ``style`` attribute's; and a ``<meta http-equiv="refresh">``'s
URL (§4.2.5.3) is a link — both as ``wget --mirror`` reads them (before, a site's
background images, fonts and imported sheets were missing from a mirror where wget took
them).
The stdlib's ``html.parser`` reads tag soup without raising, which is what servers send.
"""

from __future__ import annotations

from collections.abc import Iterator
from html.parser import HTMLParser

#: tag -> the attributes naming a resource (``srcset``: a list of candidates).
LINKING = {
    "a": ("href",),
    "area": ("href",),
    "link": ("href",),
    "img": ("src", "srcset"),
    "script": ("src",),
    "frame": ("src",),
    "iframe": ("src",),
    "embed": ("src",),
    "source": ("src", "srcset"),
    "audio": ("src",),
    "video": ("src", "poster"),
    "track": ("src",),
    "input": ("src",),
    "object": ("data",),
}

_SPACE = " \t\n\f\r"


def srcset_urls(value: str) -> list[str]:
    """The URLs of a ``srcset`` (HTML Living Standard §4.8.4.3.1 "parse a srcset
    attribute"): candidates split at commas, each a URL (no white space; trailing commas
    are not part of it) then descriptors (``2x``, ``300w``), where a comma inside
    parentheses does not end the candidate."""
    urls: list[str] = []
    pos, end = 0, len(value)
    while True:
        while pos < end and (value[pos] in _SPACE or value[pos] == ","):
            pos += 1
        if pos >= end:
            return urls
        start = pos
        while pos < end and value[pos] not in _SPACE:
            pos += 1
        url = value[start:pos]
        if url.endswith(","):
            url = url.rstrip(",")
        else:
            depth = 0
            while pos < end:
                char = value[pos]
                pos += 1
                if char == "(":
                    depth += 1
                elif char == ")" and depth:
                    depth -= 1
                elif char == "," and not depth:
                    break
        if url:
            urls.append(url)


_META_CHARSET = None


#: The encodings a page may declare (WHATWG Encoding §4.2's, by Python's codec names; its
#: replacement, UTF-16 and x-user-defined aside): no other codec of Python's reads a page.
_WHATWG = frozenset(
    {
        "utf-8", "cp866", "iso8859-2", "iso8859-3", "iso8859-4", "iso8859-5", "iso8859-6",
        "iso8859-7", "iso8859-8", "iso8859-10", "iso8859-13", "iso8859-14", "iso8859-15",
        "iso8859-16", "koi8-r", "koi8-u", "mac-roman", "cp874", "cp1250", "cp1251",
        "cp1252", "cp1253", "cp1254", "cp1255", "cp1256", "cp1257", "cp1258",
        "mac-cyrillic", "gbk", "gb18030", "big5", "euc_jp", "iso2022_jp", "shift_jis",
        "euc_kr",
    }
)  # fmt: skip
#: Labels WHATWG gives to another encoding than Python's codec of that name does.
_AS_WHATWG = {
    "latin-1": "cp1252",
    "iso8859-1": "cp1252",
    "ascii": "cp1252",
    "iso8859-9": "cp1254",
    "iso8859-11": "cp874",
    "tis-620": "cp874",
    "gb2312": "gbk",
    # (a <meta> cannot say UTF-16, WHATWG: it is read as UTF-8)
    "utf-16": "utf-8",
    "utf-16-le": "utf-8",
    "utf-16-be": "utf-8",
}


def page_text(data: bytes, charset: str | None) -> str:
    """A page's (or style sheet's) text in its own encoding (WHATWG Encoding, simplified):
    ``charset``, the one its Content-Type declared (``Resource.charset``, read by
    ``resolvers/mediatype.py``), else one a ``<meta>`` in its first 1,024 bytes
    declares, else UTF-8 if it is valid UTF-8, else windows-1252 — the labels ``latin1``,
    ``iso-8859-1`` and ``us-ascii`` name windows-1252 too.  Before, every page was read as
    UTF-8: an ISO-8859-1 page's ``href="caf\xe9.txt"`` became ``caf\ufffd.txt``, no URL,
    and its file was left out silently (wget took it)."""
    import codecs
    import re

    global _META_CHARSET
    label = charset
    if label is None and b"<" in data[:1024]:
        if _META_CHARSET is None:
            _META_CHARSET = re.compile(rb"<meta[^>]*?charset\s*=\s*[\"']?\s*([-\w.:]+)", re.I)
        m = _META_CHARSET.search(data[:1024])
        if m is not None:
            label = m.group(1).decode("ascii")
    name = None
    if label:
        try:
            name = codecs.lookup(label).name
        except LookupError:
            name = None
        name = _AS_WHATWG.get(name or "", name)
        if name not in _WHATWG:
            # (a label of no WHATWG encoding is no label, WHATWG Encoding §4.2: before, a
            # <meta charset=base64>, "undefined", "idna" or "punycode" named one of Python's
            # other codecs, whose decode raised or dropped the text: the page was lost)
            name = None
    if name is None or name == "utf-8":
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            if name == "utf-8":
                return data.decode("utf-8", "replace")
            name = "cp1252"
    return data.decode(name, "replace")


_CSS = None


def css_refs(text: str) -> list[str]:
    """The references a style sheet loads, in order: each ``url(…)`` (quoted or not) and
    each ``@import "…"`` (CSS Cascade 4 §2: a string is a URL there), comments left out;
    CSS escapes are not undone (a rare spelling: the reference is skipped or fails)."""
    import re

    global _CSS
    if _CSS is None:
        _CSS = (
            re.compile(r"/\*.*?(?:\*/|\Z)", re.S),
            re.compile(
                r"""url\(\s*(?:"([^"\n]*)"|'([^'\n]*)'|([^\s"'()]*))\s*\)"""
                r"""|@import\s+(?:"([^"\n]*)"|'([^'\n]*)')""",
                re.I,
            ),
        )
    comments, refs = _CSS
    found = []
    for m in refs.finditer(comments.sub(" ", text)):
        ref = next((g for g in m.groups() if g is not None), "").strip()
        if ref and not ref.lower().startswith("data:"):
            found.append(ref)
    return found


def refresh_url(content: str) -> str | None:
    """The URL of a ``<meta http-equiv="refresh" content="5; url=next.html">`` (HTML Living
    Standard §4.2.5.3 "shared declarative refresh steps", simplified: the time, a ``;`` or
    ``,``, then ``url=`` — optional — and the URL, quotes removed), or None."""
    rest = content.lstrip(" \t\n\f\r0123456789.")
    if not rest or rest[0] not in ";,":
        return None
    rest = rest[1:].strip()
    if rest[:3].lower() == "url":
        after = rest[3:].lstrip()
        if after.startswith("="):
            rest = after[1:].strip()
    if rest[:1] in ("'", '"'):
        rest = rest[1:].split(rest[0], 1)[0]
    return rest.strip() or None


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.refs: list[str] = []
        self.base: str | None = None
        self.in_style = False

    def handle_data(self, data: str) -> None:
        if self.in_style:
            self.refs.extend(css_refs(data))

    def handle_endtag(self, tag: str) -> None:
        if tag == "style":
            self.in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "base" and self.base is None:
            self.base = next((v for k, v in attrs if k == "href" and v), None)
            return
        for key, value in attrs:
            if key == "style" and value:
                self.refs.extend(css_refs(value))
        if tag == "style":
            self.in_style = True
            return
        if tag == "meta":
            fields = {k: v or "" for k, v in attrs}
            if fields.get("http-equiv", "").strip().lower() == "refresh":
                target = refresh_url(fields.get("content", ""))
                if target is not None:
                    self.refs.append(target)
            return
        wanted = LINKING.get(tag)
        if wanted is None:
            return
        for key, value in attrs:
            if key in wanted and value and value.strip():
                if key == "srcset":
                    self.refs.extend(srcset_urls(value))
                else:
                    self.refs.append(value.strip())


def html_links(text: str, url: str) -> Iterator[str]:
    """Each absolute URL ``text`` (an HTML page fetched from ``url``) links to, in order,
    without fragments; references that do not resolve are skipped."""
    from omniurl.schemes.errors import URLError
    from omniurl.schemes.join import join

    collector = _Collector()
    collector.feed(text)
    collector.close()
    base = url
    if collector.base is not None:
        try:
            base = join(url, collector.base, check=False)
        except (URLError, ValueError):
            base = url
    return _resolved(base, collector.refs)


def css_links(text: str, url: str) -> Iterator[str]:
    """Each absolute URL a style sheet fetched from ``url`` loads (:func:`css_refs`),
    resolved against ``url`` (CSS Values 4 §4.5.1: the sheet's own URL)."""
    return _resolved(url, css_refs(text))


def _resolved(base: str, refs: list[str]) -> Iterator[str]:
    from omniurl.schemes.errors import URLError
    from omniurl.schemes.join import join

    for ref in refs:
        try:
            target = join(base, ref, check=False)
        except (URLError, ValueError):
            continue
        yield target.split("#", 1)[0]


#: An autoindex row: the link, then (before the next tag but a table cell's) the time —
#: nginx's "15-Apr-2022 05:38", Apache's "2022-04-15 05:38".
_ROW = None
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def autoindex_times(text: str, url: str) -> dict[str, str]:
    """The time an autoindex page (nginx's ``autoindex``, Apache's ``mod_autoindex``) gives
    each entry, to the minute, by the entry's absolute URL: ``YYYY-MM-DDTHH:MM`` (the
    server's zone — nginx's default is UTC; the page does not say).  What lftp mirror
    gives a folder mirrored over HTTP; an entry without a time is left out."""
    import html
    import re

    from omniurl.schemes.errors import URLError
    from omniurl.schemes.join import join

    global _ROW
    if _ROW is None:
        _ROW = re.compile(
            r'<a href="([^"]+)">[^<]*</a>(?:\s|</td>|<td[^>]*>)*'
            r"(?:(\d{2})-([A-Z][a-z]{2})-(\d{4})|(\d{4})-(\d{2})-(\d{2})) (\d{2}:\d{2})"
        )
    times: dict[str, str] = {}
    for m in _ROW.finditer(text):
        href, day, month, year, year2, month2, day2, clock = m.groups()
        if day is not None:
            if month not in _MONTHS:
                continue
            date = f"{year}-{_MONTHS.index(month) + 1:02d}-{day}"
        else:
            date = f"{year2}-{month2}-{day2}"
        try:
            target = join(url, html.unescape(href), check=False)
        except (URLError, ValueError):
            continue
        times[target.split("#", 1)[0]] = f"{date}T{clock}"
    return times


__all__ = [
    "LINKING",
    "autoindex_times",
    "css_links",
    "css_refs",
    "html_links",
    "page_text",
    "refresh_url",
    "srcset_urls",
]
