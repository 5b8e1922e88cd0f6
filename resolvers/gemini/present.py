"""How ``gemini:`` resources are shown: gemtext on the terminal, in ``--json`` and in the
gateway (the spec's presentation hooks; the surfaces never name the scheme)."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable
from typing import TYPE_CHECKING, Any

from ..errors import LimitExceeded
from ..resource import Resource
from ..spec import Presentation

# (gemtext, with html and html.entities, and json are imported where a gemini resource is
# shown: every command's start loads each spec's presentation, a batch's too — ~2 ms of
# html.entities and json's ~2 ms at load 14, docs/speed.md, *Batches*, eighth round)
if TYPE_CHECKING:
    import argparse
    import codecs

    from omniurl.schemes.base import URL

    from .gemtext import GemLine


def is_gemtext(resource: Resource) -> bool:
    return (resource.media_type or "").split(";", 1)[0].strip().lower() == "text/gemini"


def _charset(resource: Resource) -> str:
    from .machine import GeminiResult

    result = resource.result_as(GeminiResult)
    return result.charset if result is not None else "utf-8"


def _to_terminal(args: argparse.Namespace) -> bool:
    """Whether the content goes to standard output (not ``-o FILE``, ``-O``)."""
    output = getattr(args, "output", None)
    return (output in (None, "-")) and not getattr(args, "remote_name", False)


def _decoder(charset: str) -> codecs.IncrementalDecoder:
    """A decoder of text in ``charset``, replacing what is not; UTF-8 for a charset Python
    does not know or whose codec is no text encoding (``base64``, ``rot13``: its decoder
    gives bytes, or refuses "replace" with an AssertionError — a traceback, before)."""
    import codecs

    try:
        info = codecs.lookup(charset)
    except LookupError:
        info = codecs.lookup("utf-8")
    if not getattr(info, "_is_text_encoding", True):
        info = codecs.lookup("utf-8")
    return info.incrementaldecoder("replace")


async def gem_lines(resource: Resource, limit: int) -> AsyncIterator[GemLine]:
    """The document's lines as they arrive (one line at most ``limit`` bytes)."""
    from .gemtext import Reader

    reader = Reader(str(resource.url))
    decoder = _decoder(_charset(resource))
    held = ""
    async for chunk in resource:
        held += decoder.decode(chunk)
        *lines, held = held.split("\n")
        if len(held) > limit:
            raise LimitExceeded(f"a gemtext line is longer than {limit} bytes")
        for line in lines:
            yield reader.line(line)
    held += decoder.decode(b"", final=True)
    if held:
        yield reader.line(held)


class GeminiPresentation(Presentation):
    """Gemtext: on a terminal, headings, items, quotes and preformatted blocks, each link a
    numbered entry with its absolute URL (as a Gopher menu is shown); ``--json`` the parsed
    lines; the gateway an HTML page whose links go through the gateway.  Other media types,
    and gemtext saved to a file or written to a pipe, are the bytes received."""

    index_name = "index.gmi"
    #: A ";" in a path segment is the name's (RFC 3986 §3.3); the query is none of it.
    name_ends = "?"

    def page_links(
        self, url: str, media_type: str | None, data: bytes, *, charset: str | None = None
    ) -> Iterable[str] | None:
        """A gemtext document's link lines (``=>``), resolved against ``url``, read in
        ``charset`` (else the one ``media_type`` carries, else UTF-8), as it is shown
        (``gem_lines``)."""
        if (media_type or "").split(";", 1)[0].strip().lower() != "text/gemini":
            return None
        from .gemtext import iter_lines
        from .machine import charset_of

        text = _decoder(charset or charset_of(media_type or "")).decode(data, final=True)
        return (
            line.url.split("#", 1)[0]
            for line in iter_lines(text.splitlines(), url)
            if line.kind == "link" and line.url
        )

    def generated_listing(self, media_type: str | None, data: bytes) -> bool:
        """molly-brown's listing of a folder without an ``index.gmi`` (``DirectoryListing``:
        "# Directory listing", a blank line, then a link a line): followed for its links,
        not saved as a file the capsule does not have (as an HTTP autoindex page)."""
        return data.startswith((b"# Directory listing\n\n=> ", b"# Directory listing\r\n\r\n=> "))

    def text_source(
        self, resource: Resource, args: argparse.Namespace
    ) -> AsyncIterable[bytes] | None:
        """Gemtext rendered for a terminal, and only for one: a pipe gets the document as
        received, the bytes ``-o``, ``-O``, a batch, the API and fsspec give
        (docs/saving.md: before, ``get gemini://h/ | cat`` wrote the rendered lines)."""
        if not is_gemtext(resource) or not _to_terminal(args) or getattr(args, "raw", False):
            return None
        if not sys.stdout.isatty():
            return None
        return self._rendered(resource, 64 * 1024)

    async def _rendered(self, resource: Resource, limit: int) -> AsyncIterator[bytes]:
        """Line by line as it arrives; the server's control characters (ESC…) shown as
        escapes, never sent to the terminal (as the gateway and browse show them)."""
        from omniurl.schemes.secrets import terminal_safe

        from .gemtext import render_text

        async for line in gem_lines(resource, limit):
            yield terminal_safe(render_text([line]), keep="\t\n").encode("utf-8")

    async def present(self, resource: Resource, args: argparse.Namespace) -> int | None:
        """``--json`` of a gemtext document to standard output: the resource's description
        with its parsed lines (``gemtext``), instead of the text and then the JSON."""
        if not (getattr(args, "json", False) and is_gemtext(resource) and _to_terminal(args)):
            return None
        import json

        lines = [line.to_json() async for line in gem_lines(resource, 64 * 1024)]
        out: dict[str, Any] = {**self.describe(resource), "gemtext": lines}
        sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
        sys.stdout.flush()
        return 0

    def is_index(self, url: URL, path: str) -> bool:
        return False

    def search_url(self, url: URL, words: str) -> str | None:
        """A 1x input's answer: the URL with the words as its query, percent-encoded (the
        gateway's and the browser's way to answer a server that asks)."""
        from urllib.parse import quote

        from omniurl.schemes.gemini import GeminiURL

        if not isinstance(url, GeminiURL):
            return None
        query = quote(words.encode("utf-8", "surrogateescape"), safe="")
        return str(url.replace(query=query, fragment=None))

    def rendered_text(self, resource: Resource, text: str) -> str | None:
        if not is_gemtext(resource):
            return None
        from .gemtext import parse, render_text

        return render_text(parse(text, str(resource.url)), wrapper="<URL:{}>")

    def gateway_html(
        self, resource: Resource, text: str, link: Callable[[str], str | None]
    ) -> str | None:
        if not is_gemtext(resource):
            return None
        from .gemtext import parse, render_html

        return render_html(parse(text, str(resource.url)), link)


__all__ = ["GeminiPresentation", "gem_lines", "is_gemtext"]
