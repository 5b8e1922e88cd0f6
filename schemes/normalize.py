"""URL equivalence: bring two URLs to the same level of encoding, then compare (RFC 1630 §4.1.2).

"Before two URIs can be compared, it is therefore necessary to bring them both to the same
level of encoding.  However, the reserved characters mentioned above have a quite different
significance when encoded, and so may NEVER be encoded and unencoded in this way."

:func:`normalize` works on the generic syntax only, so it applies to every scheme, plugins
included, and never needs a scheme's parser:

* the scheme name is lower case (RFC 1738 §2.1: "programs interpreting URLs should treat
  upper case letters as equivalent to lower case in scheme names");
* in ``//user:password@host:port``, the host is lower case (host names are case-insensitive,
  RFC 1034 §3.1), an empty port or the scheme's default port is dropped (§3.1: "if the port is
  omitted, the default is used"), and a missing ``/`` after the host is added for the RFC 1738
  schemes, where ``<url-path>`` may be omitted together with its ``/``;
* a ``%XX`` escape of an unreserved character — a letter, a digit, ``-``, ``.`` or ``_``, the
  characters that mean nothing special in any scheme — is decoded (example 1: ``%2D`` is
  ``-``); every other escape stays, with upper-case hex digits, because an escaped reserved
  character is data (example 2: ``%2F`` is not ``/``);
* a character that RFC 1738 §2.2 says must always be encoded (controls, space, ``<>"{}|\\^[]```,
  anything beyond US-ASCII as its UTF-8 octets) and that appears raw is encoded; ``%7E`` is
  written ``~`` (RFC 3986 §6.2.2.2: "~" is unreserved);
* in an RFC 3986 hierarchical path (http, https, file, and schemes omniurl does not know),
  "." and ".." segments are removed (RFC 3986 §6.2.2.3) — never in FTP, where RFC 1738 makes
  ".." a literal ``CWD ..``, nor in a Gopher selector or the other opaque RFC 1738 paths;
* a ``%`` not followed by two hex digits is an error (example 3), named by component and offset;
* ``file://localhost/`` is ``file:///`` (§3.10 gives both the same meaning), and
  ``gopher://host/`` is ``gopher://host/1`` (§3.4: an empty path means type 1, no selector).

The fragment is kept (normalized like the rest): two references to different anchors of one
document are different references.  Compare with ``ignore_fragment=True`` to ask whether they
name the same resource — the fragment is never sent to a server anyway.
"""

from __future__ import annotations

import re

from .base import URL
from .errors import EncodingError, PortError, SchemeError
from .join import remove_dot_segments
from .percent import _NOT_OCTETS, check_octets

__all__ = ["DEFAULT_PORTS", "equivalent", "normalize"]

#: RFC 1738's default ports (§3), used where no scheme class is registered for the name.
DEFAULT_PORTS: dict[str, int] = {
    "ftp": 21,
    "http": 80,
    "https": 443,
    "gopher": 70,
    "nntp": 119,
    "telnet": 23,
    "wais": 210,
    "prospero": 1525,
}

#: Schemes written ``scheme://host/url-path`` in RFC 1738 §3, where ``scheme://host`` and
#: ``scheme://host/`` are the same URL (the "/" before an empty url-path may be omitted).
_SLASH_SCHEMES = frozenset(
    {"ftp", "http", "https", "gopher", "nntp", "telnet", "wais", "file", "prospero"}
)

# scheme = 1*[ lowalpha | digit | "+" | "-" | "." ]                       (RFC 1738 §2.1)
_SCHEME = re.compile(r"[A-Za-z0-9+\-.]+")
# escape = "%" hex hex                                                    (RFC 1738 §5)
_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
_BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")
# Unreserved in RFC 3986 §2.3: alpha | digit | "-" | "." | "_" | "~".  ("$+!*'()," are
# "safe"/"extra" in RFC 1738 but RFC 1630 §4.1.1 reserves "+" in searches and "*" and "!"
# for schemes' own use, and RFC 3986 makes "$'()," sub-delimiters.  "~" is unsafe in RFC
# 1738 but unreserved in RFC 3986, whose §6.2.2.2 writes "%7E" as "~": so does omniurl.)
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
# Characters that must always be encoded (RFC 1738 §2.2 and RFC 3986 §2): controls, space,
# what neither allows raw, non-ASCII (as its UTF-8 octets, RFC 3987 §3.1).
_MUST_ENCODE = re.compile(r'[\x00-\x20\x7f<>"{}|\\^\[\]`]|[^\x00-\x7f]')
#: Schemes whose paths are RFC 3986 hierarchical paths, where "." and ".." segments are
#: removed (§6.2.2.3).  Never the RFC 1738 schemes whose paths are not: FTP's ".." is a
#: literal "CWD .." (§3.2.2), a Gopher selector, a WAIS or Prospero name, a news group are
#: opaque strings only the server interprets.
_OPAQUE_PATHS = frozenset(
    {"ftp", "gopher", "gophers", "wais", "prospero", "news", "snews", "nntp", "telnet", "mailto"}
)


def _fix_escape(m: re.Match[str]) -> str:
    char = chr(int(m.group(1), 16))
    return char if char in _UNRESERVED else "%" + m.group(1).upper()


def _upper_escape(m: re.Match[str]) -> str:
    return "%" + m.group(1).upper()


def _encode_char(m: re.Match[str]) -> str:
    return "".join(f"%{b:02X}" for b in m.group().encode("utf-8", "surrogateescape"))


def _normalize_part(text: str, *, keep: str = "") -> str:
    """Decode unreserved escapes, upper-case the others, encode what must be encoded."""
    text = _ESCAPE.sub(_fix_escape, text)
    if keep:
        return "".join(c if c in keep else _MUST_ENCODE.sub(_encode_char, c) for c in text)
    return _MUST_ENCODE.sub(_encode_char, text)


def _shown_escape(text: str, at: int) -> str:
    """The broken escape as a reader sees it: ``%`` up to the first non-hex character."""
    end = at + 1
    while end < min(len(text), at + 3) and text[end] in "0123456789abcdefABCDEF":
        end += 1
    return text[at : end + 1]


def _component_at(text: str, offset: int) -> str:
    """The generic component holding ``offset``, for error messages."""
    colon = text.find(":")
    hash_ = text.find("#")
    if 0 <= hash_ < offset:
        return "fragment"
    rest = text[colon + 1 :]
    start = colon + 1
    if rest.startswith("//"):
        end = len(text)
        for sep in "/?#":
            i = text.find(sep, start + 2)
            if i >= 0:
                end = min(end, i)
        if offset < end:
            at = text.rfind("@", start, end)
            if at >= 0 and offset < at:
                colon_at = text.find(":", start + 2, at)
                return "password" if 0 <= colon_at < offset else "user"
            host_start = at + 1 if at >= 0 else start + 2
            if text.startswith("[", host_start):  # [IPv6]: its colons are not the port's
                close = text.find("]", host_start, end)
                host_start = end if close < 0 else close
            return "port" if text.find(":", host_start, offset) >= 0 else "host"
    question = text.find("?", start)
    if 0 <= question < offset:
        return "search"
    return "path"


def _default_port(scheme: str) -> int | None:
    from .registry import scheme_class

    cls = scheme_class(scheme)
    if cls is not None and cls.DEFAULT_PORT is not None:
        return cls.DEFAULT_PORT
    return DEFAULT_PORTS.get(scheme)


def _normalize_authority(scheme: str, authority: str, offset: int) -> str:
    userinfo, at, hostport = authority.rpartition("@")
    host, port = hostport, ""
    if hostport.startswith("["):  # [IPv6] literal, a modern extension
        close = hostport.find("]")
        if close >= 0:
            host, port = hostport[: close + 1], hostport[close + 1 :]
    elif ":" in hostport:
        i = hostport.index(":")
        host, port = hostport[:i], hostport[i:]
    out = _normalize_part(userinfo) + at if at else ""
    # Lower-case the host itself but not the hex digits of its escapes (kept upper case).
    host = _ESCAPE.sub(_upper_escape, _ESCAPE.sub(_fix_escape, host).lower())
    out += _normalize_part(host, keep="[]" if host.startswith("[") else "")
    if port:
        digits = port[1:]
        if digits and not digits.isdigit():
            where = offset + len(userinfo) + len(at) + len(host) + 1
            raise PortError(
                "the port must be decimal digits (§3.1)", component="port", offset=where
            )
        if digits and int(digits) != _default_port(scheme):
            out += ":" + str(int(digits))
    return out


def normalize(url: str | URL) -> str:
    """The normal form of ``url``: equivalent URLs (RFC 1630 §4.1.2) give the same text.

    Idempotent: ``normalize(normalize(u)) == normalize(u)``.  Raises
    :class:`~schemes.errors.EncodingError` for a ``%`` without two hex digits after it or a
    lone surrogate (no octets to encode), and
    :class:`~schemes.errors.SchemeError` when the text does not start with ``scheme:``.
    """
    text = str(url) if isinstance(url, URL) else url
    colon = text.find(":")
    if colon <= 0 or not _SCHEME.fullmatch(text[:colon]):
        raise SchemeError(
            "a URL starts with a scheme name and ':' (§2.1)", component="scheme", offset=0
        )
    if not text.isascii():
        bad_char = _NOT_OCTETS.search(text)
        if bad_char is not None:  # no UTF-8 for it, so no %XX (RFC 3986 §2.5)
            check_octets(text, _component_at(text, bad_char.start()))
    bad = _BAD_ESCAPE.search(text)
    if bad is not None:
        raise EncodingError(
            "'%' must be followed by two hexadecimal digits; there is no decoding for "
            f"{_shown_escape(text, bad.start())!r} (RFC 1630 §4.1.2, example 3)",
            component=_component_at(text, bad.start()),
            offset=bad.start(),
        )
    scheme = text[:colon].lower()
    rest, hash_, fragment = text[colon + 1 :].partition("#")
    out = scheme + ":"
    if rest.startswith("//"):
        end = len(rest)
        for sep in "/?":
            i = rest.find(sep, 2)
            if i >= 0:
                end = min(end, i)
        authority = _normalize_authority(scheme, rest[2:end], colon + 3)
        if scheme == "file" and authority == "localhost":
            # §3.10: "<host> can be the string 'localhost' or the empty string; this is
            # interpreted as 'the machine from which the URL is being interpreted'."
            authority = ""
        out += "//" + authority
        rest = rest[end:]
        if scheme in _SLASH_SCHEMES and not rest.startswith("/"):
            rest = "/" + rest
        if scheme == "gopher" and rest == "/":
            # §3.4: "If <gopher-path> is empty, the gophertype defaults to 1" (empty selector)
            rest = "/1"
    if scheme not in _OPAQUE_PATHS and rest.startswith("/"):
        # §6.2.2: percent-encoding normalization first ("%2E" is "."), then dot segments
        path, question, query = rest.partition("?")
        rest = remove_dot_segments(_ESCAPE.sub(_fix_escape, path)) + question + query
    out += _normalize_part(rest)
    if hash_:
        out += "#" + _normalize_part(fragment.replace("#", "%23"))
    return out


def equivalent(a: str | URL, b: str | URL, *, ignore_fragment: bool = False) -> bool:
    """Whether ``a`` and ``b`` are the same URL once both are normalized (RFC 1630 §4.1.2).

    ``ignore_fragment=True`` compares the resources only (what a server would be asked for).
    """
    na, nb = normalize(a), normalize(b)
    if ignore_fragment:
        na, nb = na.partition("#")[0], nb.partition("#")[0]
    return na == nb
