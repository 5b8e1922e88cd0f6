"""resolvers/mediatype.py: the one reading of a media type's ``charset`` parameter (HTTP's
``Resource.charset``, the mirror's pages, Gemini's documents), and the presentations
reading a page's links in the charset they are handed."""

from __future__ import annotations

import pytest

from omniurl.resolvers.gemini.machine import charset_of
from omniurl.resolvers.mediatype import charset_param
from omniurl.resolvers.registry import spec_for


@pytest.mark.parametrize(
    ("media_type", "charset"),
    [
        (None, None),
        ("", None),
        ("text/html", None),
        ("text/html;charset=utf-8", "utf-8"),
        ("text/html ; Charset = KOI8-R ", "KOI8-R"),
        ('text/html; charset="iso-8859-1"', "iso-8859-1"),
        ('text/html; charset="a\\"b"', 'a"b'),  # (a quoted-pair, RFC 9110 §5.6.4)
        ('text/html; charset=""', None),
        ("text/html; charset=", None),
        ("text/html; format=flowed; charset=utf-8", "utf-8"),
        # the first of a repeated parameter, as WHATWG's "parse a MIME type" (and so a
        # browser) reads it; an unquoted empty value is skipped there
        ("text/html; charset=koi8-r; charset=utf-8", "koi8-r"),
        ("text/html; charset=; charset=utf-8", "utf-8"),
    ],
)
def test_the_charset_parameter(media_type: str | None, charset: str | None) -> None:
    assert charset_param(media_type) == charset


def test_geminis_charset_is_the_same_reading_lower_case_utf8_by_default() -> None:
    assert charset_of("text/gemini") == "utf-8"
    assert charset_of("text/gemini; charset=ISO-8859-1; charset=utf-8") == "iso-8859-1"


KOI8_PAGE = '<a href="файл.txt">1</a>'.encode("koi8-r")


def test_an_http_page_is_read_in_the_first_charset_its_content_type_repeats() -> None:
    """``text/html; charset=koi8-r; charset=utf-8`` is koi8-r to a browser: the link is
    the Cyrillic name's.  links.py's own loop took the last (utf-8; not valid UTF-8,
    so windows-1252): another name, a file the mirror asked for and never found."""
    present = spec_for("http").present()
    url = "http://h/d/"
    want = ["http://h/d/файл.txt"]
    assert list(present.page_links(url, "text/html", KOI8_PAGE, charset="koi8-r") or ()) == want
    repeated = "text/html; charset=koi8-r; charset=utf-8"
    assert list(present.page_links(url, repeated, KOI8_PAGE) or ()) == want
    # the charset handed over is what counts (the mirror's Resource.charset)
    assert list(present.page_links(url, repeated, KOI8_PAGE, charset="utf-8") or ()) != want


def test_a_gemtext_documents_links_are_read_in_its_declared_charset() -> None:
    """``20 text/gemini; charset=iso-8859-1``: a link to ``café.gmi`` is café's (as the
    document is shown, gem_lines); it was read as UTF-8, ``caf\\ufffd.gmi``, another URL."""
    present = spec_for("gemini").present()
    data = "=> café.gmi Café\n".encode("iso-8859-1")
    want = list(present.page_links("gemini://h/", "text/gemini", "=> café.gmi x\n".encode()) or ())
    assert want == ["gemini://h/café.gmi"]
    latin = "text/gemini; charset=iso-8859-1"
    assert list(present.page_links("gemini://h/", latin, data) or ()) == want
    assert (
        list(present.page_links("gemini://h/", "text/gemini", data, charset="latin-1") or ())
        == want
    )
    # a charset Python does not know: UTF-8, replacing (as the document is shown)
    odd = present.page_links("gemini://h/", "text/gemini; charset=x-none", data)
    assert list(odd or ()) == ["gemini://h/caf\ufffd.gmi"]


@pytest.mark.parametrize("charset", ["base64", "rot13", "no-such-thing", "latin-1"])
async def test_a_gemtext_document_in_a_charset_that_is_no_text_encoding_is_read_as_utf8(
    charset: str,
) -> None:
    """``20 text/gemini; charset=base64``: Python's base64 codec is no text encoding (its
    incremental decoder refuses "replace" with an AssertionError, rot13's gives bytes): the
    document was a traceback on the terminal; now it is read as UTF-8, as a charset Python
    does not know is."""
    from collections.abc import AsyncIterator

    from omniurl.resolvers import plan
    from omniurl.resolvers.gemini.machine import GeminiResult
    from omniurl.resolvers.gemini.present import gem_lines
    from omniurl.resolvers.resource import Resource

    data = "# Café\n=> a.gmi\n".encode()

    async def body() -> AsyncIterator[bytes]:
        yield data

    meta = f"text/gemini; charset={charset}"
    resource = Resource(
        plan("gemini://h/"), body=body(), result=GeminiResult(20, meta, meta, charset)
    )
    lines = [line.to_json() async for line in gem_lines(resource, 1024)]
    want = "Café" if charset != "latin-1" else "CafÃ©"  # (a heading's text)
    assert lines[0]["text"] == want
    assert [line.get("url") for line in lines] == [None, "gemini://h/a.gmi"]


def test_page_links_of_gives_charset_to_each_hook_as_it_takes_it() -> None:
    """``resolvers.spec.page_links_of``: the keyword to a hook that names it or takes
    ``**``; glued onto the media type for one written before it (56a0ace)."""
    from omniurl.resolvers.spec import Presentation, page_links_of

    got: list[tuple[str | None, str | None]] = []

    class Current(Presentation):
        def page_links(
            self, url: str, media_type: str | None, data: bytes, *, charset: str | None = None
        ) -> list[str]:
            got.append((media_type, charset))
            return [url]

    class Loose(Presentation):
        def page_links(self, url: str, *args: object, **kw: str | None) -> list[str]:
            got.append((str(args[0]), kw["charset"]))
            return [url]

    class Old(Presentation):
        def page_links(self, url: str, media_type: str | None, data: bytes) -> list[str]:  # type: ignore[override]
            got.append((media_type, None))
            return [url]

    for kind in (Current, Loose, Old):
        assert page_links_of(kind(), "x:/", "text/html", b"", charset="koi8-r") == ["x:/"]
        assert page_links_of(kind(), "x:/", None, b"", charset="koi8-r") == ["x:/"]
        assert page_links_of(kind(), "x:/", "text/html", b"") == ["x:/"]
    assert got == [
        ("text/html", "koi8-r"), (None, "koi8-r"), ("text/html", None),
        ("text/html", "koi8-r"), ("None", "koi8-r"), ("text/html", None),
        ("text/html; charset=koi8-r", None), (None, None), ("text/html", None),
    ]  # fmt: skip
    assert page_links_of(Presentation(), "x:/", "text/html", b"", charset="utf-8") is None


def test_page_links_of_reads_a_decorated_hook_as_the_function_it_wraps() -> None:
    """A hook written before ``charset`` (56a0ace) behind a ``functools.wraps`` decorator
    that passes ``*args, **kwargs`` on: its ``**`` is the wrapper's, not the hook's — given
    ``charset=`` it was the ``TypeError`` ``page_links_of`` exists to spare a mirror."""
    import functools
    from collections.abc import Callable
    from typing import Any

    from omniurl.resolvers.spec import Presentation, page_links_of

    got: list[str | None] = []

    def logged(hook: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(hook)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            return hook(*args, **kwargs)

        return wrapper

    class OldDecorated(Presentation):
        @logged
        def page_links(self, url: str, media_type: str | None, data: bytes) -> list[str]:  # type: ignore[override]
            got.append(media_type)
            return [url]

    class CurrentDecorated(Presentation):
        @logged
        def page_links(
            self, url: str, media_type: str | None, data: bytes, *, charset: str | None = None
        ) -> list[str]:
            got.append(f"{media_type} + {charset}")
            return [url]

    assert page_links_of(OldDecorated(), "x:/", "text/html", b"", charset="koi8-r") == ["x:/"]
    assert page_links_of(CurrentDecorated(), "x:/", "text/html", b"", charset="koi8-r") == ["x:/"]
    assert got == ["text/html; charset=koi8-r", "text/html + koi8-r"]
