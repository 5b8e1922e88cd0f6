"""The links of an HTML page, for ``omniurl mirror`` (pure: text in, absolute URLs out).

A mirror follows what a reader could follow or a page needs: ``href`` of ``a``, ``area``
and ``link``, ``src`` of ``img``, ``script``, ``frame``, ``iframe``, ``embed``, ``source``,
``audio``, ``video`` (HTML Living Standard §4.6, §4.8).  Each is resolved against the
page's URL, or its ``<base href>`` (§4.2.3), by RFC 3986 §5.2; the fragment is dropped.
The stdlib's ``html.parser`` reads tag soup without raising, which is what servers send.
"""

from __future__ import annotations

from collections.abc import Iterator
from html.parser import HTMLParser

#: tag -> the attribute naming a resource.
LINKING = {
    "a": "href",
    "area": "href",
    "link": "href",
    "img": "src",
    "script": "src",
    "frame": "src",
    "iframe": "src",
    "embed": "src",
    "source": "src",
    "audio": "src",
    "video": "src",
}


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.refs: list[str] = []
        self.base: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "base" and self.base is None:
            self.base = next((v for k, v in attrs if k == "href" and v), None)
            return
        wanted = LINKING.get(tag)
        if wanted is None:
            return
        for key, value in attrs:
            if key == wanted and value and value.strip():
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
    for ref in collector.refs:
        try:
            target = join(base, ref, check=False)
        except (URLError, ValueError):
            continue
        yield target.split("#", 1)[0]


__all__ = ["LINKING", "html_links"]
