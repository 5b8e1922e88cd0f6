"""The Common Internet Scheme Syntax of §3.1: ``//<user>:<password>@<host>:<port>``.

::

    ip-schemepart = "//" login [ "/" urlpath ]
    login         = [ user [ ":" password ] "@" ] hostport
    hostport      = host [ ":" port ]

Pure functions over the text with absolute offsets, so an error names the exact character.
"""

from __future__ import annotations

from . import grammar
from .errors import AuthorityError, HostError, PortError, SchemeSyntaxError
from .percent import check, decode, quote

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_BAD_USER = grammar.lazy_bad_char(grammar.USER)

#: What ``quote`` leaves alone in a user or password (§3.1: ":", "@", "/" must be encoded;
#: "?" may stand raw by §3.1 but ends the authority in RFC 3986 §3.2, so it is written %3F).
USER_SAFE = ";&="


_BAD_FRAGMENT = grammar.lazy_bad_char(grammar.FRAGMENT)


def split_fragment(text: str, start: int, strict: bool) -> tuple[int, str | None]:
    """Where the URL proper ends, and the fragment after ``#`` (RFC 1630 §4.2), or None.

    "#" is unsafe and always encoded inside a URL (§2.2), so the first one ends the URL in
    every scheme.  The fragment is kept as written (it is never decoded nor sent anywhere).
    """
    hash_at = text.find("#", start)
    if hash_at < 0:
        return len(text), None
    if strict:
        check(text, hash_at + 1, len(text), _BAD_FRAGMENT, "fragment", "RFC 1630 §4.2")
    return hash_at, text[hash_at + 1 :]


def format_fragment(fragment: str | None) -> str:
    return "" if fragment is None else "#" + fragment


def expect_slashes(text: str, start: int, scheme: str) -> int:
    """Check the ``//`` that starts an ip-schemepart; return the login's start."""
    if not text.startswith("//", start):
        raise SchemeSyntaxError(
            f"a {scheme}: URL continues with '//' and the host (§3.1)",
            component="authority",
            offset=start,
        )
    return start + 2


def parse_ip_schemepart(
    text: str,
    start: int,
    scheme: str,
    strict: bool,
    *,
    hostport_only: bool = False,
    userinfo: bool = True,
    userinfo_rule: str = "",
    lenient_search: bool = False,
    no_path: str | None = None,
) -> tuple[dict[str, Any], int, int]:
    """The prelude every ``//`` scheme's slow path shares: fragment, ``//``, login.

    Splits the fragment off (RFC 1630 §4.2), checks the ``//`` (§3.1), and parses what stands
    before the first "/" as a login (``parse_login``) or, with ``hostport_only``, as a bare
    ``hostport`` (gopher §3.4, nntp §3.7, wais §3.9: their grammar has no user or password).
    Returns ``(fields, login_end, end)``: the URL class's fields so far (``scheme``,
    ``fragment``, ``host``, ``port``, and ``user``/``password`` from a login), where the login
    ends (the "/" that follows it, or ``end`` when there is none), and where the URL proper
    ends (its "#", or the end of the text).

    ``lenient_search``: in lenient mode a "?" also ends the login (``http://host?q``, as
    browsers read it).  ``no_path``: the scheme's URL ends at the login and an optional "/"
    (telnet §3.8); anything after that "/" is refused with this message — before the login is
    read, so that error wins.
    """
    end, fragment = split_fragment(text, start, strict)
    login = expect_slashes(text, start, scheme)
    slash = text.find("/", login, end)
    login_end = end if slash < 0 else slash
    if no_path is not None and slash >= 0 and slash + 1 < end:
        raise SchemeSyntaxError(no_path, component="path", offset=slash + 1)
    if lenient_search and not strict:
        q = text.find("?", login, login_end)
        if q >= 0:
            login_end = q
    fields: dict[str, Any]
    if hostport_only:
        host, port = parse_hostport(text, login, login_end, strict=strict)
        fields = {"host": host, "port": port}
    else:
        fields = parse_login(
            text, login, login_end, strict=strict, userinfo=userinfo, userinfo_rule=userinfo_rule
        )
    fields["scheme"] = scheme
    fields["fragment"] = fragment
    return fields, login_end, end


def parse_login(
    text: str,
    start: int,
    end: int,
    *,
    strict: bool,
    userinfo: bool = True,
    userinfo_rule: str = "",
    empty_host: bool = False,
) -> dict[str, Any]:
    """Parse ``text[start:end]`` as a login; return the InternetURL fields.

    ``userinfo=False``: the scheme allows no user name or password (http §3.3, prospero
    §3.11) — refused in strict mode, kept in lenient mode.  ``empty_host``: an empty host is
    allowed (file §3.10).
    """
    user: str | None = None
    password: str | None = None
    at = text.rfind("@", start, end)
    host_start = start
    if at >= 0:
        if strict and not userinfo:
            raise AuthorityError(
                f"this scheme allows no user name or password ({userinfo_rule})",
                component="user",
                offset=start,
            )
        colon = text.find(":", start, at)
        user_end = at if colon < 0 else colon
        if strict:
            check(text, start, user_end, _BAD_USER, "user", "§3.1")
        user = decode(text[start:user_end], "user", start)
        if colon >= 0:
            if strict:
                check(text, colon + 1, at, _BAD_USER, "password", "§3.1")
            password = decode(text[colon + 1 : at], "password", colon + 1)
        host_start = at + 1
    host, port = parse_hostport(text, host_start, end, strict=strict, empty_host=empty_host)
    return {"user": user, "password": password, "host": host, "port": port}


def parse_hostport(
    text: str, start: int, end: int, *, strict: bool, empty_host: bool = False
) -> tuple[str, int | None]:
    """``hostport = host [ ":" port ]`` -> (host as written, explicit port or None)."""
    if text.startswith("[", start):
        close = text.find("]", start, end)
        if close < 0:
            raise HostError(
                "'[' opens an IPv6 literal that is never closed", component="host", offset=start
            )
        host_end = close + 1
        if host_end < end and text[host_end] != ":":
            raise HostError(
                "only ':port' may follow an IPv6 literal", component="host", offset=host_end
            )
    else:
        colon = text.rfind(":", start, end)
        host_end = end if colon < 0 else colon
    host = text[start:host_end]
    check_host(text, start, host_end, strict=strict, empty_host=empty_host)
    port: int | None = None
    if host_end < end:  # text[host_end] == ":"
        port = parse_port(text, host_end + 1, end, strict=strict)
    return host, port


def check_host(text: str, start: int, end: int, *, strict: bool, empty_host: bool) -> None:
    """§3.1: a fully qualified domain name or a dotted IPv4 address; ``[IPv6]`` as a modern
    extension (RFC 3986 §3.2.2)."""
    if start == end:
        if empty_host:
            return
        raise HostError("the host is empty (§3.1)", component="host", offset=start)
    if text[start] == "[":
        if not strict:
            # RFC 3986 §3.2.2 and RFC 6874: IPv6, IPv6 with a zone id, IPvFuture.
            from .rfc3986 import check_ip_literal

            check_ip_literal(text, start, end)
            return
        if "%" in text[start:end]:  # a zone id (RFC 6874) has no meaning off the local link
            raise HostError(
                "an IPv6 zone id is not allowed in a URL host",
                component="host",
                offset=text.index("%", start),
            )
        import ipaddress  # (only for an IP literal: ~0.7 ms of every start otherwise)

        try:
            ipaddress.IPv6Address(text[start + 1 : end - 1])
        except ValueError:
            raise HostError(
                f"{text[start:end]!r} is not an IPv6 address literal",
                component="host",
                offset=start,
            ) from None
        return
    if grammar.HOSTNUMBER_RE.fullmatch(text, start, end):
        for group in text[start:end].split("."):
            if int(group) > 255:
                raise HostError(
                    f"{text[start:end]!r}: an IPv4 address has four numbers 0-255 (§3.1)",
                    component="host",
                    offset=start,
                )
        return
    if grammar.HOSTNAME_RE.fullmatch(text, start, end):
        return
    if not strict:
        # Lenient: any host a resolver could still look up (underscores, a trailing dot...),
        # but never a character that would change how the URL splits or what goes on the wire.
        for i in range(start, end):
            ch = text[i]
            if ch <= " " or ch in "%:/?#@[]\\\x7f" or not ch.isprintable():
                raise HostError(
                    f"character {ch!r} cannot appear in a host", component="host", offset=i
                )
        return
    raise HostError(
        f"{text[start:end]!r} is not a host name (labels of letters, digits and '-', the last "
        "starting with a letter) nor an IPv4 address (§3.1)",
        component="host",
        offset=_first_bad_host_char(text, start, end),
    )


def _first_bad_host_char(text: str, start: int, end: int) -> int:
    for i in range(start, end):
        ch = text[i]
        if not (ch.isascii() and (ch.isalnum() or ch in "-.")):
            return i
    return start


def parse_port(text: str, start: int, end: int, *, strict: bool) -> int | None:
    """``port = digits``, decimal, 0-65535.  An empty port is refused in strict mode and
    means "no port" in lenient mode."""
    if start == end:
        if strict:
            raise PortError(
                "':' is followed by no port number (§3.1)", component="port", offset=start
            )
        return None
    if "@" in text[start:end]:
        # "user:password@host" where the scheme takes no user (news, nntp, gopher…): the
        # text after ":" is a password, so it is not echoed (schemes.secrets).
        raise AuthorityError(
            "this URL's authority holds a user name and password (user:…@host), which "
            "its scheme does not take (§3.1)",
            component="user",
            offset=start,
        )
    if not grammar.DIGITS_RE.fullmatch(text, start, end):
        raise PortError(
            f"the port {text[start:end]!r} is not a decimal number (§3.1)",
            component="port",
            offset=start,
        )
    port = int(text[start:end])
    if port > 65535:
        raise PortError(f"the port {port} is out of range 0-65535", component="port", offset=start)
    return port


def format_login(user: str | None, password: str | None, host: str, port: int | None) -> str:
    """The canonical ``user:password@host:port`` (without ``//``)."""
    out = host if port is None else f"{host}:{port}"
    if user is None:
        return out
    creds = quote(user, USER_SAFE)
    if password is not None:
        creds += ":" + quote(password, USER_SAFE)
    return f"{creds}@{out}"
