"""Proxies (``-x``/``--proxy``, ``--noproxy``): which one a connection takes, and the bytes of
their handshakes (pure: no socket here; :mod:`resolvers.net` moves the bytes).

* ``socks5://host:port`` (RFC 1928): omniurl resolves the URL's host (so the address policy
  applies to it, as without a proxy) and asks the proxy to connect to that address;
* ``socks5h://host:port``: the proxy resolves the name (the URL's host goes as a name; only an
  address literal can be checked by the policy here — say so to users of ``--strict``);
* ``http://host:port`` (or ``https:``, TLS to the proxy): an HTTP proxy — ``http:`` URLs
  (and ``ftp:`` ones, as curl does) are asked of it in absolute form, ``https:`` URLs and
  every other TCP scheme are tunnelled with ``CONNECT host:port`` (RFC 9110 §9.3.6), as curl
  does for gopher; through an ``https://`` proxy an ``https:`` origin's TLS runs inside the
  proxy's.

The proxy's own address is checked by the policy like any other connection.
"""

from __future__ import annotations

import ipaddress
import struct
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

from .errors import AuthError, ConfigurationError, ConnectError

if TYPE_CHECKING:
    from .options import Options

__all__ = [
    "ProxySpec",
    "bypassed",
    "connect_request",
    "environment_proxy",
    "http_connect_request",
    "http_proxy_for",
    "parse_connect_reply",
    "parse_http_connect_reply",
    "parse_login_reply",
    "parse_method_reply",
    "parse_proxy",
    "proxy_for",
    "socks_greeting",
    "socks_login",
    "with_environment_proxy",
]

SCHEMES = ("socks5", "socks5h", "http", "https")


@dataclass(frozen=True)
class ProxySpec:
    scheme: str
    host: str
    port: int
    #: The proxy's own login (``-x http://user:password@host:port``), percent-decoded: HTTP
    #: ``Proxy-Authorization: Basic`` (RFC 9110 §11.7.2), SOCKS5 username/password (RFC 1929).
    #: Never shown: ``str()`` leaves it out.
    user: str | None = field(default=None, repr=False)
    password: str | None = field(default=None, repr=False)

    @property
    def is_socks(self) -> bool:
        return self.scheme.startswith("socks")

    @property
    def authorization(self) -> str | None:
        """The ``Proxy-Authorization`` value for an HTTP proxy with a login, else None."""
        if self.user is None:
            return None
        from .http.planner import basic_credentials  # (RFC 7617, shared with -u)

        return basic_credentials(self.user, self.password or "")

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}"

    def with_login(self) -> str:
        """The proxy URL with its login (for ``Options.proxy``; never for display)."""
        if self.user is None:
            return str(self)
        from urllib.parse import quote

        login = quote(self.user, safe="")
        if self.password is not None:
            login += ":" + quote(self.password, safe="")
        return str(self).replace("://", f"://{login}@", 1)


def parse_proxy(text: str) -> ProxySpec:
    """``scheme://host[:port]`` (a bare ``host:port`` is an HTTP proxy, as curl reads it)."""
    given = text if "://" in text else f"http://{text}"
    try:
        parts = urlsplit(given)
        port = parts.port
    except ValueError as exc:
        raise ConfigurationError(
            f"the proxy {text!r} is not scheme://host:port ({exc})", component="proxy"
        ) from None
    scheme = parts.scheme.lower()
    if scheme not in SCHEMES:
        raise ConfigurationError(
            f"the proxy {text!r}: {scheme}:// is none of {', '.join(SCHEMES)}", component="proxy"
        )
    if not parts.hostname:
        raise ConfigurationError(f"the proxy {text!r} names no host", component="proxy")
    default = 1080 if scheme.startswith("socks") else (443 if scheme == "https" else 3128)
    user = unquote(parts.username) if parts.username is not None else None
    password = unquote(parts.password) if parts.password is not None else None
    return ProxySpec(scheme, parts.hostname, port or default, user, password)


def bypassed(host: str, noproxy: tuple[str, ...]) -> bool:
    """curl's ``--noproxy``: ``*`` for every host, else a host or domain (``example.org``
    also covers ``www.example.org``), compared without brackets and case."""
    name = host.strip("[]").lower().rstrip(".")
    for entry in noproxy:
        item = entry.strip().lower().lstrip(".").rstrip(".")
        if item == "*" or name == item or name.endswith("." + item):
            return True
    return False


def proxy_for(host: str, proxy: str | None, noproxy: tuple[str, ...]) -> ProxySpec | None:
    if not proxy or bypassed(host, noproxy):
        return None
    return parse_proxy(proxy)


def http_proxy_for(host: str, proxy: str | None, noproxy: tuple[str, ...]) -> ProxySpec | None:
    """The ``-x http://`` or ``https://`` proxy that ``host`` is asked through in absolute
    form (``GET http://…``, ``GET ftp://…``), or None: no proxy, ``--noproxy`` or SOCKS
    (which carries the connection instead)."""
    spec = proxy_for(host, proxy, noproxy)
    return spec if spec is not None and not spec.is_socks else None


def environment_proxy(scheme: str, host: str) -> str | None:
    """The proxy the environment names for a ``scheme`` URL to ``host`` (``http_proxy``,
    ``https_proxy``, ``all_proxy``; ``no_proxy`` bypasses), as curl reads them — only asked
    with ``--proxy-env`` (``Options.trust_env``).  Checked here (:func:`parse_proxy`), so a
    broken variable is a :class:`ConfigurationError` naming it, not a failure later."""
    import urllib.request

    environment = urllib.request.getproxies_environment()
    proxy = environment.get(scheme) or environment.get("all")
    # (proxy_bypass_environment: the environment's no_proxy only, on every platform, as
    # curl; typeshed does not list it)
    bypass = urllib.request.proxy_bypass_environment  # type: ignore[attr-defined]
    if not proxy or bypass(host, environment):
        return None
    try:
        parse_proxy(proxy)
    except ConfigurationError as exc:
        raise ConfigurationError(
            f"the proxy {proxy!r} from the environment is unusable: {exc.message}",
            component="proxy",
        ) from None
    return proxy


def socks_greeting(login: bool = False) -> bytes:
    """RFC 1928 §3: version 5 and the methods offered: "no authentication required", and
    with a login also "username/password" (RFC 1929)."""
    return b"\x05\x02\x00\x02" if login else b"\x05\x01\x00"


def parse_method_reply(data: bytes, *, login: bool = False) -> int:
    """The method the proxy chose (0: none, 2: username/password, offered only with a login)."""
    if len(data) != 2 or data[0] != 5:
        raise ConnectError("the SOCKS proxy does not speak SOCKS5 (RFC 1928)", component="proxy")
    if data[1] == 0 or (data[1] == 2 and login):
        return data[1]
    if data[1] == 0xFF and not login:
        raise AuthError(
            "the SOCKS proxy wants a login: give it in the proxy URL "
            "(-x socks5://user:password@host:port)",
            component="proxy",
        )
    raise ConnectError(
        "the SOCKS proxy wants an authentication method omniurl does not offer",
        component="proxy",
    )


def socks_login(user: str, password: str) -> bytes:
    """RFC 1929 §2: version 1, the user name and the password, each 1 to 255 octets."""
    u, p = user.encode("utf-8"), password.encode("utf-8")
    if not 0 < len(u) < 256 or len(p) > 255:
        raise ConfigurationError(
            "a SOCKS5 user name is 1 to 255 octets and its password at most 255 (RFC 1929)",
            component="proxy",
        )
    return b"\x01" + bytes([len(u)]) + u + bytes([len(p)]) + p


def parse_login_reply(data: bytes) -> None:
    """RFC 1929 §2: status 0 is success; anything else refuses the login (exit 7)."""
    if len(data) != 2 or data[0] != 1:
        raise ConnectError("the SOCKS proxy answered its login oddly (RFC 1929)", component="proxy")
    if data[1] != 0:
        raise AuthError("the SOCKS proxy refused the login (RFC 1929)", component="proxy")


def connect_request(host: str, port: int) -> bytes:
    """RFC 1928 §4: CONNECT to an IPv4/IPv6 address, or to a domain name (socks5h)."""
    try:
        ip = ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        name = host.encode("idna")
        if not 0 < len(name) < 256:
            raise ConnectError(f"{host!r} is too long for SOCKS5", component="host") from None
        address = b"\x03" + bytes([len(name)]) + name
    else:
        address = (b"\x01" if ip.version == 4 else b"\x04") + ip.packed
    return b"\x05\x01\x00" + address + struct.pack("!H", port)


#: RFC 1928 §6's reply codes.
_REPLIES = {
    1: "general SOCKS server failure",
    2: "connection not allowed by ruleset",
    3: "network unreachable",
    4: "host unreachable",
    5: "connection refused",
    6: "TTL expired",
    7: "command not supported",
    8: "address type not supported",
}


def parse_connect_reply(head: bytes) -> int:
    """The first 5 octets of the reply: raise on a refusal; return how many octets of the
    bound address (and port) follow."""
    if len(head) != 5 or head[0] != 5:
        raise ConnectError("the SOCKS proxy answered no SOCKS5 reply", component="proxy")
    if head[1] != 0:
        why = _REPLIES.get(head[1], f"code {head[1]}")
        raise ConnectError(f"the SOCKS proxy refused the connection: {why}", component="proxy")
    kind = head[3]
    if kind == 1:
        return 4 - 1 + 2
    if kind == 4:
        return 16 - 1 + 2
    if kind == 3:
        return head[4] + 2
    raise ConnectError("the SOCKS proxy's reply has an unknown address type", component="proxy")


def http_connect_request(host: str, port: int, authorization: str | None = None) -> bytes:
    """RFC 9110 §9.3.6: ``CONNECT host:port`` (IPv6 in brackets), its Host field, and the
    proxy's login (``Proxy-Authorization``, §11.7.2) when it has one."""
    authority = f"[{host.strip('[]')}]:{port}" if ":" in host.strip("[]") else f"{host}:{port}"
    fields = f"Host: {authority}\r\n"
    if authorization is not None:
        fields += f"Proxy-Authorization: {authorization}\r\n"
    return f"CONNECT {authority} HTTP/1.1\r\n{fields}\r\n".encode("idna")


def parse_http_connect_reply(head: bytes) -> None:
    """A 2xx status line opens the tunnel; 407 (or 401) asks for the proxy's login (exit 7);
    anything else is the proxy's refusal."""
    line = head.split(b"\r\n", 1)[0].decode("latin-1")
    parts = line.split(" ", 2)
    # 407 is the rule (RFC 9110 §15.5.8); tinyproxy 1.11 answers a CONNECT with a wrong
    # login 401, which from a proxy to a CONNECT can only mean the proxy's own login.
    if len(parts) >= 2 and parts[0].startswith("HTTP/") and parts[1] in ("401", "407"):
        raise AuthError(
            f"the proxy wants a login ({line[:200]!r}): give it in the proxy URL "
            "(-x http://user:password@host:port)",
            component="proxy",
        )
    if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].startswith("2"):
        raise ConnectError(f"the proxy refused the tunnel: {line[:200]!r}", component="proxy")


def with_environment_proxy(options: Options, scheme: str, host: str | None) -> Options:
    """``options`` with the environment's proxy for this URL as ``-x`` (``--proxy-env``;
    an explicit ``-x`` wins), so that the planner writes its request line and the
    connection goes through it exactly as with ``-x``: one path, the plan is the wire."""
    if not options.trust_env or options.proxy is not None or not host:
        return options
    proxy = environment_proxy(scheme, host)
    return options if proxy is None else options.with_(proxy=proxy)
