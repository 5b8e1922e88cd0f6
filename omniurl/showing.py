"""What a listing entry and a content are shown as, by every surface that shows them: the
gateway's pages (:mod:`omniurl.gateway.render`) and the terminal browser
(:mod:`omniurl.browse`).  Pure: no web framework, no terminal library.

Every choice here is read from the entry's kind or the scheme's presentation hooks
(:class:`resolvers.spec.Presentation`): no scheme is named.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from omniurl.resolvers.registry import presentation_of
from omniurl.resolvers.spec import DEFAULT_PRESENTATION, Presentation

if TYPE_CHECKING:
    from omniurl.resolvers.resource import Entry, Resource

#: The marker shown before each listing entry, by its kind (a scheme's presentation may
#: give another: ``entry_marker``).
MARKERS = {
    "menu": "[MENU]",
    "directory": "[DIR]",
    "file": "[TEXT]",  # not a scheme: an entry kind
    "text": "[TEXT]",
    "search": "[SEARCH]",
    "binary": "[BIN]",
    "image": "[IMG]",
    "gif": "[IMG]",
    "html": "[HTML]",
    "sound": "[SND]",
    "telnet": "[TELNET]",  # not a scheme: an entry kind
    "tn3270": "[TN3270]",  # not a scheme: an entry kind
    "info": "",
    "article": "[ART]",
    "group": "[GROUP]",
    "entry": "[ENTRY]",
    "document": "[DOC]",
    "link": "[LINK]",
    "access-method": "[METHOD]",  # an object's ways of access (a Prospero link, §3.11)
    "error": "[ERR]",
}

#: Images a browser is shown inline: raster formats only (an SVG is a document that can carry
#: script and links: it is a download, whatever the CSP would stop).
INLINE_IMAGES = frozenset(
    {"image/png", "image/gif", "image/jpeg", "image/webp", "image/bmp", "image/avif"}
)
_MEDIA_TYPE = re.compile(r"[A-Za-z0-9!#$&^_.+-]{1,64}/[A-Za-z0-9!#$&^_.+-]{1,64}")


def presentation_for(url: str | None) -> Presentation:
    """The presentation of ``url``'s scheme (the defaults for no URL or text that is none)."""
    scheme = (url or "").partition(":")[0].lower()
    return presentation_of(scheme) if scheme else DEFAULT_PRESENTATION


def entry_marker(entry: Entry) -> str:
    """The marker of a listing entry: its scheme's own (``entry_marker``), else its kind's
    (``[DIR]``, ``[TEXT]``…; an unknown kind in capitals); ``""`` for an info line."""
    return presentation_for(entry.url).entry_marker(entry) or MARKERS.get(
        entry.kind, f"[{entry.kind[:8].upper()}]"
    )


def download_name(url: str) -> str:
    """The file name a download of ``url`` is saved as (the batch's ``output_name``)."""
    from omniurl.batch import output_name

    try:
        from omniurl import schemes

        return output_name(schemes.parse(url))
    except Exception:
        return "download"


def media_type_of(resource: Resource) -> str:
    """The media type for a header: a plain type/subtype, or application/octet-stream.
    "image/*" (Gopher's ``I`` item, RFC 1436 §3.8's "image file" of no named format) becomes
    the type the item's name says (``logo.png`` → image/png) when that is an image."""
    media = (resource.media_type or "").split(";", 1)[0].strip()
    if media == "image/*":
        import mimetypes

        guessed, _ = mimetypes.guess_type(download_name(str(resource.url)), strict=False)
        media = guessed if guessed and guessed.startswith("image/") else ""
    return media if _MEDIA_TYPE.fullmatch(media) else "application/octet-stream"


def article_headers(
    head: str, presentation: Presentation
) -> list[tuple[str, dict[str, str | None]]]:
    """An article's Subject, From, Date and References (each reference with the URL the
    scheme's presentation gives a message-id, RFC 5536 §3.2.10), folded lines unfolded
    (RFC 5322 §2.2.3); ``[]`` when ``head`` is no header block."""
    fields: dict[str, str] = {}
    name = ""
    for line in head.split("\n"):
        if line[:1] in (" ", "\t") and name:
            fields[name] += " " + line.strip()
            continue
        key, sep, value = line.partition(":")
        if not sep:
            return []
        name = key.strip().lower()
        fields[name] = value.strip()
    out: list[tuple[str, dict[str, str | None]]] = []
    for key in ("subject", "from", "date", "newsgroups", "message-id"):
        if key in fields:
            out.append((key.title(), {"text": fields[key], "href": None}))
    for ref in fields.get("references", "").split():
        if ref.startswith("<") and ref.endswith(">"):
            out.append(("References", {"text": ref, "href": presentation.reference_url(ref[1:-1])}))
    return out


__all__ = [
    "INLINE_IMAGES",
    "MARKERS",
    "article_headers",
    "download_name",
    "entry_marker",
    "media_type_of",
    "presentation_for",
]
