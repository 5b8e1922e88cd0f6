"""Gopher item types (RFC 1436 §3.8, plus the widely used later types).

The type character of a Gopher URL is never sent (RFC 1738 §3.4.1): it tells the client how to
read the reply.  One table says, for each type, the word a person understands, how the reply
is framed, and the media type to report.
"""

from __future__ import annotations

from omniurl.schemes.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal

    Reading = Literal["menu", "text", "binary", "error", "session", "unsupported"]


#: How a reply is framed: a menu (dot-terminated menu lines), dot-terminated text, raw bytes
#: until the server closes, or something that is not a Gopher transfer at all.


@record(frozen=True)
class ItemType:
    char: str
    kind: str
    reading: Reading
    media_type: str | None = None


_TYPES = [
    # RFC 1436 §3.8 "the following item types are defined"
    ItemType("0", "file", "text", "text/plain"),
    ItemType("1", "directory", "menu", "application/gopher-menu"),
    ItemType("2", "cso", "unsupported"),
    ItemType("3", "error", "error"),
    ItemType("4", "binhex", "text", "application/mac-binhex40"),
    ItemType("5", "archive", "binary", "application/octet-stream"),
    ItemType("6", "uuencoded", "text", "text/x-uuencode"),
    ItemType("7", "search", "menu", "application/gopher-menu"),
    ItemType("8", "telnet", "session"),
    ItemType("9", "binary", "binary", "application/octet-stream"),
    ItemType("+", "mirror", "menu", "application/gopher-menu"),
    ItemType("T", "tn3270", "session"),
    ItemType("g", "image", "binary", "image/gif"),
    ItemType("I", "image", "binary", "image/*"),
    # Types in common use since (gopher.floodgap.com's list, UMN gopher's gopher.h).
    ItemType("i", "info", "text"),
    ItemType("h", "html", "text", "text/html"),
    ItemType("s", "sound", "binary", "audio/*"),
    ItemType(";", "video", "binary", "video/*"),
    ItemType("d", "document", "binary", "application/pdf"),
    ItemType("P", "document", "binary", "application/pdf"),
    ItemType("M", "mime", "text", "multipart/mixed"),
    ItemType("c", "calendar", "text", "text/calendar"),
    ItemType("x", "xml", "text", "text/xml"),
]

TYPES: dict[str, ItemType] = {t.char: t for t in _TYPES}


def item_type(char: str) -> ItemType:
    """The entry for ``char``; an unknown type is read as binary to the end of connection
    (the safe choice: no dot-unstuffing can damage it)."""
    return TYPES.get(char) or ItemType(char, "unknown", "binary", "application/octet-stream")


__all__ = ["TYPES", "ItemType", "Reading", "item_type"]
