"""The safety policy: every check that stands between a plan and the first byte sent.

RFC 1738 §6 names the two attacks, and they are still the ones used today: a URL whose port
points one protocol's client at another protocol's server (SSRF through ``gopher://`` into
Redis or SMTP), and a URL whose decoded data carries the protocol's own delimiters (CR LF
smuggled into an FTP command).  Both are decided here, from the plan alone, before any
connection is opened; the address rules (no loopback or private addresses in the strict
preset) are decided here too, on the addresses DNS returned, before ``connect()``.

Planners never check delimiters themselves: they tag each decoded value with the *context* it
is sent in (:class:`resolvers.plan.WireValue`), and :data:`DELIMITERS` says which octets that
context treats as delimiters.  A new protocol adds its context here, in one place.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from omniurl.schemes.base import URL
from omniurl.schemes.records import record, replace

from .errors import (
    AddressRefused,
    ConfigurationError,
    DelimiterRefused,
    HeaderRefused,
    MailAddressRefused,
    PortRefused,
    RedirectRefused,
    SchemeRefused,
)
from .plan import Plan, WireValue
from .ports import BLOCKED_PORTS, why_blocked

TYPE_CHECKING = False
if TYPE_CHECKING:
    import ipaddress
    import re
    from typing import Any

# ``ipaddress`` is imported where an address is checked, not with this module: every ``plan``
# and ``get`` imports the policy, and a URL naming a host by name never needs it (~2 ms of
# CPU of a start on a loaded 2-core machine, a tenth of ``python -c pass``; issue 32 item 3).

_CR_LF_NUL = frozenset(b"\r\n\x00")
_C0_DEL = frozenset(range(0x20)) | {0x7F}

#: Octets refused inside a decoded value, per wire context.  Every context refuses CR, LF
#: and NUL: no protocol omniurl speaks can carry them inside a command argument.
DELIMITERS: dict[str, frozenset[int]] = {
    # A plain command-line argument (FTP, SMTP envelope, Prospero request lines).
    "line": _CR_LF_NUL,
    # FTP arguments: RFC 959 Telnet-string; CR LF end the command, and IAC (0xFF) is the
    # Telnet escape on the control connection.
    "ftp": _CR_LF_NUL | {0xFF},
    # Gopher selector and search string (RFC 1738 §3.4.1, RFC 1436): TAB separates the
    # selector from the search and the Gopher+ string; CR LF ends the request.
    "gopher": _CR_LF_NUL | {0x09},
    # NNTP arguments (RFC 3977 §3.1): SP and TAB separate arguments; no controls at all.
    "nntp": _C0_DEL | {0x20},
    # Telnet login answers (RFC 854): IAC starts a command; controls edit the line.  ASCII
    # only (curl CVE-2023-27533 sent IAC sequences smuggled in a user name).
    "telnet": _C0_DEL | frozenset(range(0x80, 0x100)),
    # An HTTP request target (RFC 9112 §3): SP separates the parts of the request line, and no
    # control octet may appear in it (the URL's path and search are sent still encoded).
    "http-target": _C0_DEL | {0x20},
    # An e-mail header field value (RFC 5322 §2.2): CR LF would start a new header field.
    "header": _CR_LF_NUL,
    # An SMTP envelope address (RFC 5321 §4.1.2): no controls, no space, no angle brackets.
    "smtp-address": _C0_DEL | frozenset(b" <>"),
    # A mailto: address bound for a header field and the envelope: no controls; the
    # addr-spec syntax itself is checked by a rule of its own (VALUE_RULES below).
    "addr-spec": _C0_DEL,
    # An e-mail header field *name* (RFC 5322 §3.6.8: ftext = printable US-ASCII but ":");
    # also checked against the mailto: allow-list (VALUE_RULES below).
    "header-field": _C0_DEL | frozenset(b" :") | frozenset(range(0x80, 0x100)),
    # An e-mail body (RFC 5322 §2.3): line endings are normalized to CRLF by the message
    # builder; NUL never belongs in a text body.
    "mail-body": frozenset(b"\x00"),
    # Prospero tokens (protocol document, "Spaces, quoting, and line-feeds"): spaces, tabs
    # and quotes are quoted by the codec; NUL cannot be quoted at all, and CR/LF would end
    # the request line for a server that does not honour quoting (every version-1 server).
    "prospero": _CR_LF_NUL,
    # WAIS database names are joined with 0x1F (protspec.txt, tag 18).
    "wais": frozenset(b"\x00\x1f"),
    # A local file's path name (file:, §3.10): the system call takes NUL as its end, so a
    # %00 would open a different file than the URL names.
    "file-path": frozenset(b"\x00"),
    # Length-prefixed binary fields: nothing is a delimiter.
    "binary": frozenset(),
}


#: Schemes a redirect or referral never leads to, and why: they do not retrieve anything, so
#: following one would act (send mail, open a session) on a server's word.
NOT_RETRIEVALS: dict[str, str] = {
    "mailto": "a mailto: URL sends mail, which a server's redirect must not make us do",
    "telnet": "a telnet: URL opens an interactive session, not a resource to fetch",
}


#: Header fields a ``mailto:`` URL may set without the caller's leave.  RFC 6068 §3: a
#: resolver is only expected to understand "subject" and "body" (and "to"/"cc" add
#: recipients); §6: a URL must not be able to set fields such as "From", "Bcc", "Received"
#: or "Reply-To" behind the sender's back.  Names are compared in lower case.
MAILTO_HEADER_ALLOW: frozenset[str] = frozenset(
    {"to", "cc", "subject", "body", "in-reply-to", "references", "keywords", "comments"}
)

# RFC 5322 §3.4.1 addr-spec, ASCII only (no display name, no comments, no groups: RFC 6068
# §2 allows only addr-spec in a mailto: URL).
#   atext         = ALPHA / DIGIT / "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" /
#                   "/" / "=" / "?" / "^" / "_" / "`" / "{" / "|" / "}" / "~"
_ATEXT = r"[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~]"
#   dot-atom-text = 1*atext *("." 1*atext)
_DOT_ATOM = rf"{_ATEXT}+(?:\.{_ATEXT}+)*"
#   quoted-string = DQUOTE *([FWS] qcontent) [FWS] DQUOTE ; qcontent = qtext / quoted-pair
#   qtext = %d33 / %d35-91 / %d93-126 ; quoted-pair = "\" (VCHAR / WSP)
_QUOTED = r'"(?:[ !#-\[\]-~]|\\[ -~])*"'
#   domain-literal = "[" *([FWS] dtext) [FWS] "]" ; dtext = %d33-90 / %d94-126
_DOMAIN_LITERAL = r"\[[!-Z^-~]*\]"
#   addr-spec = local-part "@" domain
_ADDR_SPEC = rf"(?P<local>{_DOT_ATOM}|{_QUOTED})@(?P<domain>{_DOT_ATOM}|{_DOMAIN_LITERAL})"
# ``ADDR_SPEC``, the compiled pattern, is made on first use (the module's ``__getattr__``):
# only mailto: checks an address, and compiling it was ~0.6 ms of every ``omniurl plan``.
if TYPE_CHECKING:
    ADDR_SPEC: re.Pattern[str]
else:

    def __getattr__(name: str) -> object:
        if name == "ADDR_SPEC":
            return _addr_spec()
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _addr_spec() -> re.Pattern[str]:
    pattern: re.Pattern[str] | None = globals().get("ADDR_SPEC")
    if pattern is None:
        import re

        pattern = globals()["ADDR_SPEC"] = re.compile(_ADDR_SPEC)
    return pattern


def check_addr_spec(component: str, address: str) -> None:
    """Refuse an e-mail address that is not an ASCII ``addr-spec`` (RFC 5322 §3.4.1) or that
    exceeds RFC 5321 §4.5.3.1's sizes (local part 64 octets, path 256)."""
    m = _addr_spec().fullmatch(address)
    if m is None:
        raise MailAddressRefused(
            f"{component}: {address!r} is not an e-mail address (RFC 5322 addr-spec "
            "local-part@domain, ASCII, without display name); nothing was sent",
            component=component,
        )
    if len(m["local"]) > 64 or len(address) > 254:
        raise MailAddressRefused(
            f"{component}: {address!r} is longer than SMTP allows (RFC 5321 §4.5.3.1)",
            component=component,
        )


@record(frozen=True)
class Policy:
    """What omniurl may do for a URL.  Immutable; build variants with :meth:`with_`.

    ``allow_ports`` are explicit ports allowed although they are reserved or blocked.
    ``default_ports_only`` refuses any explicit port that is not the scheme's default.
    ``allow_private_addresses`` lets a host resolve to loopback, private or link-local
    addresses.  ``denied_schemes`` are never resolved (``file`` in the strict preset).
    ``redirect_scheme_change`` lets a redirect or referral move to another scheme.
    """

    name: str = "default"
    allow_ports: frozenset[int] = frozenset()
    refuse_reserved_ports: bool = True
    blocked_ports: frozenset[int] = BLOCKED_PORTS
    default_ports_only: bool = False
    allow_private_addresses: bool = True
    denied_schemes: frozenset[str] = frozenset()
    redirect_scheme_change: bool = True
    max_redirects: int = 10
    #: ``mailto:`` header fields allowed beyond :data:`MAILTO_HEADER_ALLOW` (lower case).
    allow_mail_headers: frozenset[str] = frozenset()
    #: Hosts (names or address literals, lower case, as the URL writes them) the address
    #: rule lets through although they resolve to non-public addresses (``--allow-host``).
    allow_hosts: frozenset[str] = frozenset()

    def with_(self, **changes: object) -> Policy:
        return replace(self, **changes)

    def allowing_ports(self, ports: Iterable[int]) -> Policy:
        return replace(self, allow_ports=self.allow_ports | frozenset(ports))

    def allowing_hosts(self, hosts: Iterable[str]) -> Policy:
        """A policy that lets these hosts (names or addresses) resolve to any address."""
        extra = frozenset(h.strip("[]").lower() for h in hosts)
        return replace(self, allow_hosts=self.allow_hosts | extra)

    def allowing_mail_headers(self, names: Iterable[str]) -> Policy:
        """A policy that also lets ``mailto:`` URLs set these header fields."""
        extra = frozenset(n.lower() for n in names)
        return replace(self, allow_mail_headers=self.allow_mail_headers | extra)

    # -- the checks ---------------------------------------------------------------------

    def check_plan(self, plan: Plan) -> None:
        """Refuse the plan (raise a :class:`PolicyError`) or return; nothing is sent before."""
        self.check_scheme(plan.scheme)
        if plan.host is not None and "%" in plan.host:
            check_zone(plan.host)
        if plan.port is not None:
            self.check_port(plan.port, explicit=plan.explicit_port, default=plan.url.default_port)
        for value in plan.wire_values():
            self.check_wire_value(value)

    def check_wire_value(self, value: WireValue) -> None:
        """Refuse one wire value as :meth:`check_plan` refuses it: its context's delimiters,
        then the context's rule (:data:`VALUE_RULES`).  Its own method so that a caller
        that changes one value of a plan already checked (the batch's lean engine: a
        server's next URLs differ from its first only in the request target) checks that
        value by the policy's rules, not a copy of them."""
        check_value(value.component, value.value, value.context)
        rule = VALUE_RULES.get(value.context)
        if rule is not None:
            rule(self, value)

    def check_mail_header(self, component: str, field: str) -> None:
        """RFC 6068 §6: refuse a header field a URL may not set, unless the caller allowed it."""
        name = field.lower()
        if name in MAILTO_HEADER_ALLOW or name in self.allow_mail_headers:
            return
        raise HeaderRefused(
            f"header field {field!r} may not be set by a mailto: URL (RFC 6068 §6); "
            f"allow it with --allow-header {field}; nothing was sent",
            component=component,
            field=field,
        )

    def check_scheme(self, scheme: str) -> None:
        if scheme in self.denied_schemes:
            raise SchemeRefused(
                f"the {self.name} policy does not resolve {scheme}: URLs", component="scheme"
            )

    def check_port(self, port: int, *, explicit: bool, default: int | None) -> None:
        """§6: a scheme's default port is always allowed; other ports only when safe."""
        if not explicit or port == default or port in self.allow_ports:
            return
        hint = f"; allow it with --allow-port {port}"
        if self.default_ports_only:
            raise PortRefused(
                f"port {port} refused: the {self.name} policy allows only default ports{hint}",
                port=port,
                reason="not the default port",
            )
        reason = None
        if port in self.blocked_ports:  # (a port the caller added has no reason on file)
            reason = why_blocked(port) or f"on the {self.name} policy's list of blocked ports"
        if reason is None and self.refuse_reserved_ports and port < 1024:
            reason = "in the reserved space below 1024 (RFC 1738 §6)"
        if reason is not None:
            raise PortRefused(f"port {port} refused: {reason}{hint}", port=port, reason=reason)

    def data_port_reason(self, port: int) -> str | None:
        """Why a data port the *server* named (FTP ``EPSV``/``PASV``) is refused, or None:
        never a cross-protocol target nor a reserved port below 1024 — a hostile FTP server
        could otherwise point our data connection at a local Redis (6379) or SMTP.  The
        strict preset's "default ports only" does not apply: passive ports are never
        default ones.  Pure: the FTP machine asks it of every passive reply and, while
        :data:`DATA_PORT_RETRIES` allows, asks the server for another port."""
        if port in self.allow_ports:
            return None
        if port in self.blocked_ports:  # (a port the caller added has no reason on file)
            return why_blocked(port) or f"on the {self.name} policy's list of blocked ports"
        if port < 1024:
            return "in the reserved space below 1024 (RFC 1738 §6)"
        return None

    def check_data_port(self, port: int) -> None:
        """Refuse (:class:`PortRefused`) a data port the server named that
        :meth:`data_port_reason` refuses."""
        reason = self.data_port_reason(port)
        if reason is not None:
            raise data_port_refused(port, reason)

    def check_address(self, address: str, *, host: str) -> None:
        """Refuse an address DNS gave for ``host`` that the policy forbids."""
        if self.allow_private_addresses:
            return
        bare = address.split("%", 1)[0]
        # Allowed by the URL's own host as written — never by the address it resolves to,
        # or any spelling of that address ("0x7f.1", "2130706433") would pass too.
        if self.allow_hosts and host.strip("[]").lower() in self.allow_hosts:
            return
        reason = why_not_public(bare)
        if reason is not None:
            raise AddressRefused(
                f"{host} resolves to {address}, {reason}: a non-public address the "
                f"{self.name} policy refuses",
                component="host",
            )

    def check_redirect(self, source: URL, target: URL, *, kind: str = "redirect") -> None:
        """A redirect (HTTP) or referral (Prospero) passes the policy like a new URL would."""
        if target.scheme == "file" and source.scheme != "file":
            raise RedirectRefused(
                f"{kind} from {source.scheme}: to file: is never followed", component="location"
            )
        if target.scheme in NOT_RETRIEVALS:
            raise RedirectRefused(
                f"{kind} from {source.scheme}: to {target.scheme}: is never followed: "
                f"{NOT_RETRIEVALS[target.scheme]}",
                component="location",
            )
        if target.scheme != source.scheme and not self.redirect_scheme_change:
            raise RedirectRefused(
                f"{kind} from {source.scheme}: to {target.scheme}: refused by the {self.name} "
                "policy",
                component="location",
            )
        self.check_scheme(target.scheme)


#: How many times a client asks the server for another passive data port (FTP ``EPSV`` or
#: ``PASV`` sent again) after the policy refused the one it named, before failing with
#: :class:`PortRefused`.  Why more than 0: a server that picks its passive port at random
#: (vsftpd by default: any port from 1024 up) names a blocked one now and then — 37 of the
#: 64,512 (6566, 9000, 9042 …), about once in 1,700 transfers: a 2,000-file mirror lost 1–3
#: files to it where lftp and wget took them all.  Why so few: each new random port is
#: refused again with probability ~1/1,700, so three more asks leave an honest server's
#: transfer ~10⁻¹³ to fail — while a hostile server that names only refused ports costs at
#: most three more round trips on the control connection, and no data connection is opened.
DATA_PORT_RETRIES = 3


def data_port_refused(port: int, reason: str, *, asked: int = 1) -> PortRefused:
    """The typed refusal of a data port the server named: the port (the last one) and the
    reason (and, after :data:`DATA_PORT_RETRIES` more asks, how many ports were named)."""
    tried = f"; the server named {asked} data ports, each refused" if asked > 1 else ""
    return PortRefused(
        f"the server's data port {port} refused: {reason}{tried}; allow it with "
        f"--allow-port {port}",
        port=port,
        reason=reason,
    )


def zone_scope(address: ipaddress.IPv6Address) -> str | None:
    """The RFC 4007 scope that gives ``address`` zones, or None for a global address.

    RFC 4007 §6: a zone index tells apart the zones of one non-global scope; for a global
    address there is one zone, so an index selects nothing.  The non-global scopes: link-local
    unicast (fe80::/10), the loopback address (§4: "treated as having link-local scope"),
    site-local unicast (fec0::/10, deprecated by RFC 3879 but still scoped), and multicast
    whose scope field (RFC 4291 §2.7) is below global (1 interface-local … 8 organization).
    Unique local addresses (fc00::/7) have global scope (RFC 4193 §3.3).
    """
    if address.is_loopback:
        return "loopback (link-local scope, RFC 4007 §4)"
    if address.is_link_local:
        return "link-local"
    if address.is_site_local:
        return "site-local"
    if address.is_multicast and 0 < address.packed[1] & 0x0F < 0x0E:
        return f"multicast of scope {address.packed[1] & 0x0F:X}"
    return None


def check_zone(host: str) -> None:
    """Refuse a zone id (RFC 6874 ``[addr%25zone]``, here ``addr%zone``) on an address of
    global scope: the URL asks for an interface that cannot matter (RFC 4007 §6), which is a
    mistake to report, not a choice to guess (which interface? drop it silently?).  Link-local,
    loopback, site-local and scoped multicast addresses take one (:func:`zone_scope`)."""
    import ipaddress

    bare, _, zone = host.partition("%")
    try:
        address = ipaddress.IPv6Address(bare)
    except ValueError:
        return  # not an IPv6 address with a zone (a name never gets here with one)
    if zone_scope(address) is None:
        raise AddressRefused(
            f"[{bare}%25{zone}]: a zone id selects an interface only for a non-global address "
            f"(link-local, loopback, site-local, scoped multicast: RFC 4007 §6, RFC 6874 §1); "
            f"{bare} has global scope: write it without '%25{zone}'",
            component="host",
        )


def _v4_low32(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address:
    import ipaddress

    return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)


def _v4_6to4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address:
    import ipaddress

    return ipaddress.IPv4Address((int(ip) >> 80) & 0xFFFFFFFF)


def _v4_teredo(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address:
    # RFC 4380 §4: the client's public IPv4 is the last 32 bits, every bit inverted.
    import ipaddress

    return ipaddress.IPv4Address((int(ip) & 0xFFFFFFFF) ^ 0xFFFFFFFF)


#: IPv6 prefixes whose addresses carry an IPv4 address, and where: such an address is classed
#: by the IPv4 address it carries, since that is where its packets end up (a 6to4 relay, a
#: NAT64 gateway or a Teredo relay delivers them there).  ``http://[2002:7f00:1::]/`` is
#: 127.0.0.1 reached through 6to4: loopback.  One row per form, with its reason.
_embedded: list[_Embedded] = []
if TYPE_CHECKING:
    _Embedded = tuple[
        tuple["ipaddress.IPv6Network", Callable[[Any], "ipaddress.IPv4Address"], str], ...
    ]
    EMBEDDED_IPV4: _Embedded


def embedded_ipv4() -> _Embedded:
    """:data:`EMBEDDED_IPV4`, built on first use (with ``ipaddress``)."""
    if not _embedded:
        import ipaddress

        _embedded.append(
            (
                # RFC 4291 §2.5.5.2: ::ffff:a.b.c.d, an IPv4 peer seen through a
                # dual-stack socket.
                (ipaddress.IPv6Network("::ffff:0:0/96"), _v4_low32, "an IPv4-mapped"),
                # RFC 4291 §2.5.5.1 (deprecated): ::a.b.c.d (:: and ::1 are classed as
                # themselves).
                (ipaddress.IPv6Network("::/96"), _v4_low32, "an IPv4-compatible"),
                # RFC 3056 §2: 2002:V4ADDR::/48, a 6to4 site named by its IPv4 address
                # (bits 16-47).
                (ipaddress.IPv6Network("2002::/16"), _v4_6to4, "a 6to4"),
                # RFC 6052 §2.1: the NAT64 well-known prefix, the IPv4 address in the last
                # 32 bits.
                (ipaddress.IPv6Network("64:ff9b::/96"), _v4_low32, "a NAT64"),
                # RFC 8215: the local-use NAT64 prefix; a /96 inside it carries the IPv4
                # address last.
                (ipaddress.IPv6Network("64:ff9b:1::/48"), _v4_low32, "a local-use NAT64"),
                # RFC 4380 §4: Teredo, the client's IPv4 address obfuscated (XOR 0xffffffff).
                (ipaddress.IPv6Network("2001::/32"), _v4_teredo, "a Teredo"),
            )
        )
    return _embedded[0]


def __getattr__(name: str) -> object:
    if name == "EMBEDDED_IPV4":  # (PEP 562: the table is built on first use)
        return embedded_ipv4()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _non_public(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    """The kind of a non-public address, or None for a public one."""
    for kind, flag in (
        ("loopback", ip.is_loopback),
        ("link-local", ip.is_link_local),
        ("multicast", ip.is_multicast),
        ("unspecified", ip.is_unspecified),
        ("private", ip.is_private),
        ("reserved", ip.is_reserved),
    ):
        if flag:
            return kind
    return None


def why_not_public(address: str) -> str | None:
    """Why ``address`` (an IP literal, no zone) is not public, or None when it is.

    An IPv6 address of an :data:`EMBEDDED_IPV4` form is classed by the IPv4 address it
    carries (``2002:7f00:1::`` -> "a 6to4 address carrying 127.0.0.1, loopback"); a
    64:ff9b::8.8.8.8 is public although 64:ff9b::/96 lies in the reserved ::/8.
    """
    import ipaddress

    ip = ipaddress.ip_address(address)
    if isinstance(ip, ipaddress.IPv6Address) and not (ip.is_loopback or ip.is_unspecified):
        for network, carried, form in embedded_ipv4():
            if ip in network:
                v4 = carried(ip)
                kind = _non_public(v4)
                return None if kind is None else f"{form} address carrying {v4}, {kind}"
    kind = _non_public(ip)
    return None if kind is None else kind


def _rule_header_field(policy: Policy, value: WireValue) -> None:
    policy.check_mail_header(value.component, value.value.decode("ascii"))


def _rule_addr_spec(policy: Policy, value: WireValue) -> None:
    check_addr_spec(value.component, value.value.decode("utf-8", "surrogateescape"))


#: Rules beyond delimiters, per wire context: called with the policy and the value after its
#: delimiters passed (so a "header-field" value is known to be printable ASCII here).
VALUE_RULES: dict[str, Callable[[Policy, WireValue], None]] = {
    "header-field": _rule_header_field,
    "addr-spec": _rule_addr_spec,
}


def add_context(context: str, octets: Iterable[int]) -> None:
    """Make ``context`` a wire context refusing ``octets`` (and CR, LF, NUL, as every
    context does): a plugin's, declared by its spec's ``delimiters``.  Declaring one again
    with the same octets is harmless; changing one (a built-in's above all) is refused."""
    forbidden = frozenset(octets) | _CR_LF_NUL
    known = DELIMITERS.get(context)
    if known is not None and known != forbidden:
        raise ValueError(f"the wire context {context!r} exists with other delimiters")
    DELIMITERS[context] = forbidden


def check_value(component: str, value: bytes, context: str) -> None:
    """Refuse a decoded value that carries a delimiter of its wire context."""
    forbidden = DELIMITERS.get(context)
    if forbidden is None:
        # A resolver's defect (a plugin's, usually), caught before anything is sent.
        raise ConfigurationError(
            f"{component} is planned in the wire context {context!r}, which the policy does "
            f"not know (known: {', '.join(sorted(DELIMITERS))}; a plugin declares its own "
            "with its SchemeSpec's delimiters); nothing was sent",
            component=component,
        )
    for index, octet in enumerate(value):
        if octet in forbidden:
            raise DelimiterRefused(
                f"{component} contains {_octet_name(octet)} at octet {index}, a delimiter "
                f"in this protocol ({context}); nothing was sent",
                component=component,
                octet=octet,
            )


def _octet_name(octet: int) -> str:
    names = {0x00: "NUL", 0x09: "TAB", 0x0A: "LF", 0x0D: "CR", 0x20: "SP", 0xFF: "IAC (0xFF)"}
    return names.get(octet, f"the octet 0x{octet:02X}")


#: A person at a terminal: the RFC's §6 cautions, nothing more.
DEFAULT = Policy()

#: URLs from untrusted input resolved on a server: default ports only, public addresses only,
#: no local files, no change of scheme on redirect.
STRICT = Policy(
    name="strict",
    default_ports_only=True,
    allow_private_addresses=False,
    denied_schemes=frozenset({"file"}),
    redirect_scheme_change=False,
    max_redirects=5,
)

PRESETS: dict[str, Policy] = {"default": DEFAULT, "strict": STRICT}

__all__ = [
    "ADDR_SPEC",
    "DATA_PORT_RETRIES",
    "DEFAULT",
    "DELIMITERS",
    "EMBEDDED_IPV4",
    "MAILTO_HEADER_ALLOW",
    "PRESETS",
    "STRICT",
    "VALUE_RULES",
    "Policy",
    "check_addr_spec",
    "check_value",
    "data_port_refused",
    "why_not_public",
]
