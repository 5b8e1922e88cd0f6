"""The ``x-finger:`` URL: parsing only, no sockets (omniurl's ``schemes`` contract).

Syntax, in the style of RFC 1738 §5 (an experimental scheme, RFC 1738 §4: "x-" names are
for mutual agreement)::

    x-fingerurl = "x-finger://" hostport [ "/" target [ ";w" ] ]
    target      = *uchar                  ; a user name, percent-encoded (may be empty)

No user or password (a Finger server asks for none).  ``target`` is decoded; ``;w`` is RFC
1288's ``/W`` switch ("verbose").  The default port is 79 (RFC 1288 §2.1).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar
from urllib.parse import quote, unquote

from omniurl.schemes.authority import format_fragment
from omniurl.schemes.base import URL, InternetURL
from omniurl.schemes.errors import (
    AuthorityError,
    EncodingError,
    HostError,
    PortError,
    SchemeSyntaxError,
)

# hostname = *( domainlabel "." ) toplabel ; IPv4 dotted quad ; or an IPv6 literal in brackets
_HOST = re.compile(
    r"""
    (?P<v6>\[[0-9A-Fa-f:.]+\])                      # [IPv6]
    | (?P<name>[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?
        (?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.?)   # hostname or dotted quad
    """,
    re.VERBOSE,
)
_PORT = re.compile(r"[0-9]{1,5}")
# escape = "%" hex hex
_BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")


@dataclass(frozen=True, kw_only=True)
class FingerURL(InternetURL):
    """``x-finger://host:port/target;w`` — ask a Finger server about ``target``."""

    #: The decoded RFC 1288 ``{U}`` (a user name); ``""`` asks for everyone logged in.
    target: str = ""
    #: RFC 1288 ``{W}``: the ``/W`` switch, asking for a verbose answer.
    whois: bool = False

    schemes: ClassVar[tuple[str, ...]] = ("x-finger",)
    DEFAULT_PORT: ClassVar[int | None] = 79

    @classmethod
    def from_text(cls, text: str, *, scheme: str, rest: str, strict: bool = True) -> URL:
        start = len(scheme) + 1
        if not rest.startswith("//"):
            raise SchemeSyntaxError(
                "an x-finger URL starts with x-finger://", component="authority", offset=start
            )
        # (omniurl splits the fragment off before calling from_text: RFC 1630 §4.2)
        authority, slash, path = rest[2:].partition("/")
        if "@" in authority:
            raise AuthorityError(
                "an x-finger URL has no user or password", component="user", offset=start + 2
            )
        host, port = _split_hostport(authority, start + 2)
        whois = False
        if path.lower().endswith(";w"):
            path, whois = path[:-2], True
        if ";" in path or "/" in path or "?" in path:
            raise SchemeSyntaxError(
                "the target is one user name: ';', '/' and '?' must be percent-encoded",
                component="target",
                offset=start + 2 + len(authority) + 1,
            )
        bad = _BAD_ESCAPE.search(path)
        if bad:
            raise EncodingError(
                "'%' must start a %XX escape",
                component="target",
                offset=start + 2 + len(authority) + len(slash) + bad.start(),
            )
        return cls(
            scheme=scheme,
            host=host,
            port=port,
            target=unquote(path, errors="surrogateescape"),
            whois=whois,
        )

    def __str__(self) -> str:
        port = f":{self.port}" if self.port is not None else ""
        target = quote(self.target.encode("utf-8", "surrogateescape"), safe="-_.!~*'()$+,:@&=")
        tail = ";w" if self.whois else ""
        return f"{self.scheme}://{self.host}{port}/{target}{tail}" + format_fragment(self.fragment)

    def components(self) -> dict[str, Any]:
        out = self.authority_json()
        out.update({"target": self.target, "whois": self.whois, "fragment": self.fragment})
        return out


def _split_hostport(authority: str, offset: int) -> tuple[str, int | None]:
    host, port_text = authority, None
    if authority.startswith("["):
        end = authority.find("]")
        host, after = authority[: end + 1], authority[end + 1 :]
        if after:
            if not after.startswith(":"):
                raise HostError("bad IPv6 literal", component="host", offset=offset)
            port_text = after[1:]
    elif ":" in authority:
        host, port_text = authority.split(":", 1)
    if not host or not _HOST.fullmatch(host):
        raise HostError(f"not a host name or address: {host!r}", component="host", offset=offset)
    if port_text is None or port_text == "":
        return host, None
    if not _PORT.fullmatch(port_text) or int(port_text) > 65535:
        raise PortError(
            f"port must be decimal digits in 0-65535, not {port_text!r}",
            component="port",
            offset=offset + len(host) + 1,
        )
    return host, int(port_text)
