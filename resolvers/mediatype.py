"""The ``charset`` parameter of a media type: the one reading of it (pure, no imports).

HTTP's Content-Type (RFC 9110 §8.3) and Gemini's META (a MIME type, RFC 2045) carry it the
same way: ``type/subtype *( OWS ";" OWS name "=" value )``, names case-insensitive, a value a
token or a quoted-string (RFC 9110 §5.6.6).  What the executors keep in
``Resource.charset``, what a page's links are read in (``resolvers/http/links.py``) and
what a gemtext document is shown in all come from :func:`charset_param`.
"""

from __future__ import annotations


def charset_param(media_type: str | None) -> str | None:
    """The ``charset`` parameter's value (unquoted), or None when there is none or it is
    empty.  A repeated parameter counts by its FIRST occurrence, as WHATWG MIME Sniffing's
    "parse a MIME type" reads one (§4.4 step 11: a name already set is not set again, and
    an unquoted empty value is skipped) and so as browsers read ``Content-Type: text/html;
    charset=koi8-r; charset=utf-8`` (koi8-r; RFC 9110 §5.6.6 leaves a repeat undefined).
    A quoted-string's backslash escapes are undone (§5.6.4)."""
    if not media_type or ";" not in media_type:
        return None
    for param in media_type.split(";")[1:]:
        name, _, value = param.partition("=")
        if name.strip().lower() != "charset":
            continue
        value = value.strip()
        if value.startswith('"'):
            # quoted-string = DQUOTE *( qdtext / quoted-pair ) DQUOTE
            chars: list[str] = []
            escaped = False
            for char in value[1:]:
                if escaped:
                    chars.append(char)
                    escaped = False
                elif char == "\\":
                    escaped = True
                elif char == '"':
                    break
                else:
                    chars.append(char)
            return "".join(chars).strip() or None
        if value:
            return value
    return None


__all__ = ["charset_param"]
