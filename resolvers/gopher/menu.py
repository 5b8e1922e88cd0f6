"""Gopher menus (RFC 1436 §3.8): menu lines in, listing entries out — and back, for servers.

A menu line is ``<type><display string> TAB <selector> TAB <host> TAB <port> CRLF``; a Gopher+
server adds ``TAB +`` (or ``TAB ?`` for an item with a +ASK form, RFC 1738 §3.4.4).  The menu
ends with a lone ``.`` line, or when the server closes (pygopherd, many small servers): both
are accepted.  Pure functions over bytes; the executor does the reading.

Each entry carries its own ``gopher://`` URL, built the way RFC 1738 §3.4.1 writes it: type
character, then the selector with every unsafe octet percent-encoded (§2.2), so that parsing
the URL gives back exactly the selector octets the menu held.
"""

from __future__ import annotations

from omniurl.schemes import precompiled
from omniurl.schemes.authority import check_host
from omniurl.schemes.errors import URLError
from omniurl.schemes.records import record

from ..errors import LimitExceeded, NotFound
from ..resource import Entry
from .itemtypes import item_type

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..options import Options

#: Characters left unencoded in a selector (RFC 1738 §2.2: "safe", "extra" and the reserved
#: characters that mean nothing in a gopher-path — "no characters are reserved", §3.4.1).
#: "?" and "#" are encoded all the same: generic URL parsers split there.
_SELECTOR_SAFE = "$-_.+!*'(),/:;=@&"

#: Default Gopher port (RFC 1738 §3.4.1).
DEFAULT_PORT = 70


@record(frozen=True)
class MenuItem:
    """One parsed menu line.  ``selector`` is the raw octets; ``port`` is ``None`` when the
    line had none or a malformed one; ``gopher_plus`` is the fifth field (``+``, ``?``)."""

    gtype: str
    display: str
    selector: bytes
    host: str
    port: int | None
    gopher_plus: str | None = None
    malformed: bool = False


def parse_menu_line(line: bytes) -> MenuItem:
    """Parse one menu line (without its CRLF; already dot-unstuffed).

    Lenient where real servers are sloppy: info (``i``) and error (``3``) lines often lack
    fields, and a line without enough fields is kept (``malformed=True``) rather than losing
    the whole menu.
    """
    if not line:
        return MenuItem("i", "", b"", "", None, malformed=True)
    gtype = chr(line[0])
    fields = line[1:].split(b"\t")
    display = fields[0].decode("utf-8", "replace")
    selector = fields[1] if len(fields) > 1 else b""
    host = fields[2].decode("ascii", "replace").strip() if len(fields) > 2 else ""
    port: int | None = None
    malformed = len(fields) < 4
    if len(fields) > 3:
        text = fields[3].strip()
        if text.isdigit() and int(text) < 65536:
            port = int(text)
        else:
            malformed = True
    plus = fields[4].decode("ascii", "replace").strip() or None if len(fields) > 4 else None
    return MenuItem(gtype, display, selector, host, port, plus, malformed)


#: A selector of only characters :data:`_SELECTOR_SAFE` leaves alone (most are): no quoting.
_PLAIN_SELECTOR = precompiled.compile(rb"[A-Za-z0-9$\-_.+!*'(),/:;=@&]*")


def _url_quote(octets: bytes | str, safe: str) -> str:
    """``urllib.parse.quote``, imported when a URL needs an octet encoded: the get of a
    file makes no menu URL (``urllib.parse`` is ~1-2 ms of a start)."""
    from urllib.parse import quote

    return quote(octets, safe=safe)


def _quote(octets: bytes, extra_safe: str = "") -> str:
    """Percent-encode (§2.2); ``urllib`` leaves "~" alone, RFC 1738 lists it as unsafe."""
    if not extra_safe and _PLAIN_SELECTOR.fullmatch(octets):
        return octets.decode("ascii")  # (~1 µs of urllib's quote an entry)
    return _url_quote(octets, safe=_SELECTOR_SAFE + extra_safe).replace("~", "%7E")


def gopher_url(
    host: str,
    port: int | None,
    gtype: str,
    selector: bytes,
    *,
    search: bytes | None = None,
    gopher_plus: bytes | None = None,
) -> str:
    """The ``gopher://`` URL of an item (RFC 1738 §3.4.1), every unsafe octet encoded."""
    netloc = f"[{host}]" if ":" in host and not host.startswith("[") else host
    if port is not None and port != DEFAULT_PORT:
        netloc += f":{port}"
    if gtype.isascii() and gtype.isalnum():
        path = gtype
    else:
        path = _url_quote(gtype.encode("utf-8", "surrogateescape"), safe="").replace("~", "%7E")
    path += _quote(selector)
    if search is not None or gopher_plus is not None:
        path += "%09" + _quote(search or b"")
    if gopher_plus is not None:
        path += "%09" + _quote(gopher_plus, "?")
    return f"gopher://{netloc}/{path}"


def item_url(item: MenuItem) -> str | None:
    """The URL an entry links to: ``None`` for info and error lines; ``telnet:``/``tn3270:``
    for sessions (RFC 4266 §2.2); the ``URL:`` convention for web links; else ``gopher:``."""
    if item.gtype in "i3" or item.malformed or item.port is None or not _url_host(item.host):
        return None
    if item.gtype in "8T":
        scheme = "telnet" if item.gtype == "8" else "tn3270"
        netloc = f"[{item.host}]" if ":" in item.host else item.host
        user = _url_quote(item.selector, safe="") + "@" if item.selector else ""
        return f"{scheme}://{user}{netloc}:{item.port}/"
    if item.selector.startswith(b"URL:"):
        return item.selector[4:].decode("utf-8", "replace")
    # §3.4.4: an item tagged "?" has a +ASK form; its URL says so with the "?" Gopher+ string.
    plus = b"?" if item.gopher_plus == "?" else None
    return gopher_url(item.host, item.port, item.gtype, item.selector, gopher_plus=plus)


#: Hosts already judged by :func:`_url_host` (a menu names few: its own server, mostly);
#: emptied when full, so a menu naming 10⁷ hosts holds no more than this many.
_HOSTS: dict[str, bool] = {}
_HOSTS_HELD = 1024


def _url_host(host: str) -> bool:
    """Whether a menu line's host can stand in a URL as it is (§3.1, leniently: what
    ``schemes`` accepts).  A host such as ``h/x?y#z`` would change how the URL splits and
    name another item, so such an entry gets no URL at all."""
    known = _HOSTS.get(host)
    if known is not None:
        return known
    text = f"[{host}]" if ":" in host else host
    good = bool(text) and text.isascii()
    if good:
        try:
            check_host(text, 0, len(text), strict=False, empty_host=False)
        except URLError:
            good = False
    if len(_HOSTS) >= _HOSTS_HELD:
        _HOSTS.clear()
    _HOSTS[host] = good
    return good


def to_entry(item: MenuItem, tls_for: tuple[str | None, int | None] | None = None) -> Entry:
    """A listing entry: kind word, display string, own URL; details in ``info``.

    ``tls_for``: the (host, port) of a ``gophers:`` menu — its items on that same server
    are ``gophers:`` URLs too (a menu line cannot say TLS; the server it came from spoke it)."""
    kind = "info" if item.gtype == "i" else item_type(item.gtype).kind
    info: dict[str, object] = {
        "type": item.gtype,
        "selector": item.selector.decode("utf-8", "surrogateescape"),
        "host": item.host,
        "port": item.port,
    }
    if item.gopher_plus is not None:
        info["gopher_plus"] = item.gopher_plus
    if item.malformed:
        info["malformed"] = True
    url = item_url(item)
    if (
        tls_for is not None
        and url is not None
        and url.startswith("gopher://")
        and (item.host.lower(), item.port) == tls_for
    ):
        url = "gophers://" + url[len("gopher://") :]
    return Entry.made(item.display, kind, url, info)


def line_entry(line: bytes, tls_for: tuple[str | None, int | None] | None = None) -> Entry:
    """``to_entry(parse_menu_line(line), tls_for)``, with an info line (``i``, most lines of
    most menus) made straight into its entry: no :class:`MenuItem` between, no URL to build
    (~2 µs of an info line's ~9; issue 31 item 20)."""
    if line[:1] != b"i":
        return to_entry(parse_menu_line(line), tls_for)
    fields = line[1:].split(b"\t")
    n = len(fields)
    port: int | None = None
    malformed = n < 4
    if n > 3:
        text = fields[3].strip()
        if text.isdigit() and int(text) < 65536:
            port = int(text)
        else:
            malformed = True
    info: dict[str, object] = {
        "type": "i",
        "selector": fields[1].decode("utf-8", "surrogateescape") if n > 1 else "",
        "host": fields[2].decode("ascii", "replace").strip() if n > 2 else "",
        "port": port,
    }
    if n > 4:
        plus = fields[4].decode("ascii", "replace").strip() or None
        if plus is not None:
            info["gopher_plus"] = plus
    if malformed:
        info["malformed"] = True
    return Entry.made(fields[0].decode("utf-8", "replace"), "info", None, info)


def error_item(line: bytes) -> MenuItem | None:
    """The type-3 error item ``line`` holds, if it is one (RFC 1436 §3.8: "3 Error")."""
    if line.startswith(b"3") and line.count(b"\t") >= 2:
        return parse_menu_line(line)
    return None


def raise_if_error(line: bytes) -> None:
    """A type-3 error item (RFC 1436 §3.8) is the server saying "not found"."""
    item = error_item(line)
    if item is not None:
        raise NotFound(
            f"the server says: {item.display.strip() or 'error'}",
            component="selector",
            code=3,
            reply=item.display,
        )


def parse_menu(data: bytes, options: Options) -> list[Entry]:
    """A whole menu's bytes (framing removed) -> entries; a leading error line raises
    :class:`NotFound` (RFC 1436 §3.8's type 3), a line longer than ``max_line`` is refused."""
    entries: list[Entry] = []
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    for number, raw in enumerate(lines, 1):
        line = raw[:-1] if raw.endswith(b"\r") else raw
        if len(line) > options.max_line:
            raise LimitExceeded(f"menu line {number} is longer than {options.max_line} bytes")
        if not entries:
            raise_if_error(line)
        entries.append(to_entry(parse_menu_line(line)))
    return entries


def format_menu_line(
    gtype: str,
    display: str,
    selector: bytes,
    host: str,
    port: int,
    gopher_plus: str | None = None,
) -> bytes:
    """One menu line without its CRLF (the server side of :func:`parse_menu_line`)."""
    parts = [
        gtype.encode("utf-8", "surrogateescape") + display.encode("utf-8", "surrogateescape"),
        selector,
        host.encode("ascii"),
        str(port).encode("ascii"),
    ]
    if gopher_plus is not None:
        parts.append(gopher_plus.encode("ascii"))
    return b"\t".join(parts)


__all__ = [
    "DEFAULT_PORT",
    "MenuItem",
    "error_item",
    "format_menu_line",
    "gopher_url",
    "item_url",
    "parse_menu",
    "parse_menu_line",
    "raise_if_error",
    "to_entry",
]
