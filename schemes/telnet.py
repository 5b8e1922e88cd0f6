"""telnet: URLs (§3.8).

::

    telneturl = "telnet://" login [ "/" ]

"The <user> and <password> supplied are advisory only: clients accessing a telnet URL merely
advise the user of the suggested username and password."  The URL designates an interactive
service, not a data object: nothing may follow the optional final "/".
"""

from __future__ import annotations

import re

from . import grammar
from .authority import format_fragment, format_login, parse_ip_schemepart
from .base import InternetURL, _tnew, class_constants, tuple_backed
from .percent import decode
from .records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar, Final

# telneturl = "telnet://" login [ "/" ]      (the fast path, see grammar)
_PATTERN = "//" + grammar.LOGIN_FAST + "(/)?" + grammar.FRAGMENT_FAST
_FAST = grammar.Lazy(_PATTERN)  # (the strict reading: compiled on first use)
#: The default reading's (RFC 3986 characters: "~"; no "?" in a login).
_LAX = grammar.Lazy(grammar.lax(_PATTERN))  # (the lenient reading's: on first use)
#: The same for a URL without "@" (its host scanned once: grammar.without_login).
# The default reading's (``_parse_default``): RFC 3986's hosts and empty ports besides.
_DEFAULT = grammar.Lazy(grammar.default(_PATTERN))  # (a URL with "@": on first use)
#: The same for a URL without "@" (its host scanned once: grammar.without_login).
_DEFAULT_HOST = re.compile(grammar.default(grammar.without_login(_PATTERN)))
_DEFAULT_HOST_MATCH: Final = _DEFAULT_HOST.fullmatch  # (a static: see grammar.match_groups)


@tuple_backed
@record(frozen=True, kw_only=True)
@class_constants
class TelnetURL(InternetURL):
    """``telnet://user:password@host:port/`` (§3.8); user and password are advisory."""

    #: Whether the optional final "/" was written.
    trailing_slash: bool = False

    schemes: ClassVar[tuple[str, ...]] = ("telnet",)
    DEFAULT_PORT: ClassVar[int | None] = 23

    @classmethod
    def from_text(cls, text: str, *, scheme: str, rest: str, strict: bool = True) -> TelnetURL:
        return cls._parse_at(text, len(text) - len(rest), scheme, strict)

    @classmethod
    def _parse_at(cls, text: str, start: int, scheme: str, strict: bool) -> TelnetURL:
        url = _telneturl_from_match(
            cls,
            (_FAST.get() if strict else _LAX.get()).fullmatch(text, start),
            text,
            start,
            scheme,
        )
        return cls._parse_slow(text, start, scheme, strict) if url is None else url

    @classmethod
    def _parse_default(cls, text: str, start: int, scheme: str) -> TelnetURL | None:
        m = (
            _DEFAULT.get().fullmatch(text, start)
            if "@" in text
            else _DEFAULT_HOST_MATCH(text, start)
        )
        return _telneturl_from_match(cls, m, text, start, scheme)

    @classmethod
    def _parse_slow(cls, text: str, start: int, scheme: str, strict: bool) -> TelnetURL:
        """Component by component: the whole grammar, and the offset of any error."""
        fields, slash, end = parse_ip_schemepart(
            text,
            start,
            scheme,
            strict,
            no_path="a telnet: URL ends after the host and an optional '/' (§3.8)",
        )
        fields["trailing_slash"] = slash < end
        return cls._make(fields)

    def __str__(self) -> str:
        out = f"{self.scheme}://{format_login(self.user, self.password, self.host, self.port)}"
        if self.trailing_slash:
            out += "/"
        return out + format_fragment(self.fragment)

    def components(self) -> dict[str, Any]:
        out = self.authority_json()
        out["trailing_slash"] = self.trailing_slash
        return out


def _telneturl_from_match(
    cls: type[TelnetURL], m: re.Match[str] | None, text: str, start: int, scheme: str
) -> TelnetURL | None:
    """The URL the fast pattern's match ``m`` stands for, or None for the slow path."""
    if m is not None and grammar.escapes_ok(text, start):
        groups = grammar.match_groups(m)
        if len(groups) == 4:  # (grammar.without_login's pattern: no user, no password)
            user = password = None
            host, port, slash, fragment = groups
        else:
            user, password, host, port, slash, fragment = groups
        if (port is None or len(port) < 5 or int(port) < 65536) and (
            host[0] != "[" or grammar.ipv6_ok(host)
        ):
            # scheme, fragment, user, password, host, port, trailing_slash (tuple_backed)
            return _tnew(
                cls,
                (
                    scheme,
                    fragment,
                    decode(user) if user and "%" in user else user,
                    decode(password) if password and "%" in password else password,
                    host,
                    int(port) if port else None,
                    slash is not None,
                ),
            )
    return None
