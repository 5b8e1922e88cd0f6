"""ACCESS-METHOD values as URLs of the underlying access method (pure).

RFC 1738 §3.11: "Prospero URLs are interpreted by contacting a Prospero directory server ...
to determine appropriate access methods for a resource, which might themselves be represented
as different URLs."  The mapping (docs/prospero.md, after the Prospero protocol's
"ACCESS-METHOD" attribute)::

    AFTP/FTP  INTERNET-D h ASCII /p BINARY   ->  ftp://h/p;type=i    (TEXT -> ;type=a)
    GOPHER    INTERNET-D h ASCII sel [type]  ->  gopher://h/<type><sel>
    WAIS      INTERNET-D h ASCII db/...      ->  wais://h/db/...
    LOCAL/NFS/AFS INTERNET-D h ASCII /p      ->  file://h/p   (a file on host h, only there)

A port travels inside the host token as ``host(port)``.  Values are percent-encoded as
§2.2 asks; ``;`` never appears unencoded in a path (§3.2.2, §3.11).  A method this module
cannot express (another host type, TELNET, an unknown method) maps to ``None``: it is still
listed, never followed.
"""

from __future__ import annotations

from urllib.parse import quote

from .protocol import AccessMethod, split_host

#: The characters left unencoded inside a path segment (§5: uchar, ":", "@", "&", "=").
_SEGMENT_SAFE = "-_.!~*'(),$+:@&="
#: Inside a Gopher selector "/" is an ordinary character too.
_SELECTOR_SAFE = _SEGMENT_SAFE + "/"
_FILE_METHODS = frozenset({"LOCAL", "NFS", "AFS"})
_FTP_TYPES = {"BINARY": "i", "TEXT": "a", "ASCII": "a"}


def _enc(text: str, safe: str) -> str:
    return quote(text.encode("utf-8", "surrogateescape"), safe=safe)


def _authority(host: str) -> str | None:
    name, port = split_host(host)
    if not name or any(c in name for c in "/?#@ \t"):
        return None
    if ":" in name and not name.startswith("["):
        name = f"[{name}]"
    return name if port is None else f"{name}:{port}"


def to_url(am: AccessMethod) -> str | None:
    """The URL a (filled-in) access method stands for, or ``None`` if none expresses it."""
    if am.host_type.upper() != "INTERNET-D" or am.hsoname_type.upper() != "ASCII":
        return None
    authority = _authority(am.host)
    if authority is None:
        return None
    if am.method in ("AFTP", "FTP"):
        # The hsoname is the path from the anonymous FTP root: each "/"-separated part is
        # one CWD (the last one RETR), so the leading "/" is not a segment of its own.
        path = "/".join(_enc(seg, _SEGMENT_SAFE) for seg in am.hsoname.lstrip("/").split("/"))
        kind = _FTP_TYPES.get(am.extra[0].upper()) if am.extra else None
        return f"ftp://{authority}/{path}" + (f";type={kind}" if kind else "")
    if am.method == "GOPHER":
        # Six elements: the sixth is the Gopher item type.  Five: the item type is the
        # first character of the selector (the protocol document's "usually the 1st
        # character"), and the selector is sent whole.
        gtype = am.extra[0][:1] if am.extra and am.extra[0] else am.hsoname[:1] or "1"
        return f"gopher://{authority}/{_enc(gtype, '')}{_enc(am.hsoname, _SELECTOR_SAFE)}"
    if am.method == "WAIS":
        path = "/".join(_enc(seg, _SEGMENT_SAFE) for seg in am.hsoname.lstrip("/").split("/"))
        return f"wais://{authority}/{path}"
    if am.method in _FILE_METHODS:
        # §3.10: file://<host>/<path> has no port; the file lives on the host, only there.
        authority = _authority(split_host(am.host)[0])
        if authority is None:
            return None
        path = "/".join(_enc(seg, _SEGMENT_SAFE) for seg in am.hsoname.split("/"))
        return f"file://{authority}{path if path.startswith('/') else '/' + path}"
    return None


def prospero_url(
    host: str,
    hsoname: str,
    *,
    version: str | None = None,
    fields: tuple[tuple[str, str], ...] = (),
) -> str | None:
    """A ``prospero:`` URL (§3.11) for a FORWARDED answer's new location."""
    authority = _authority(host)
    if authority is None:
        return None
    path = _enc(hsoname, _SELECTOR_SAFE)
    extra = [(n, v) for n, v in fields if n.upper() != "OBJECT-VERSION"]
    if version and version != "0":
        extra.append(("OBJECT-VERSION", version))
    tail = "".join(f";{_enc(n, '-_.')}={_enc(v, '-_.')}" for n, v in extra)
    return f"prospero://{authority}/{path}{tail}"
