"""prospero: URLs (§3.11), with RFC 1630's object version (§6.4).

::

    prosperourl = "prospero://" hostport "/" ppath *[ fieldspec ]
    ppath       = psegment *[ "/" psegment ]
    psegment    = *[ uchar | "?" | ":" | "@" | "&" | "=" ]
    fieldspec   = ";" fieldname "=" fieldvalue
    fieldname   = *[ uchar | "?" | ":" | "@" | "&" ]
    fieldvalue  = *[ uchar | "?" | ":" | "@" | "&" ]
    ; RFC 1630: prosperolink = "prospero://" hostport "/" hsoname [ "%00" version ]

The hsoname is opaque (§3.11): "/" in it has no meaning a client may assume, and many begin
with "/" (``prospero://host.dom//pros/name`` names "/pros/name").  "No username or password
is allowed" — refused in strict mode.
"""

from __future__ import annotations

import re

from . import grammar
from .authority import format_fragment, format_login, parse_ip_schemepart
from .base import InternetURL, _tnew, class_constants, tuple_backed
from .errors import SchemeSyntaxError
from .percent import Decoded, LazilyDecoded, check, decode, display, quote
from .records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar, Final

_BAD_PPATH = grammar.lazy_bad_char(grammar.PSEGMENT + "/")
_BAD_FIELD = grammar.lazy_bad_char(grammar.FIELD)
#: Left raw ("?" would start an RFC 3986 query: escaped, decoded the same).
HSONAME_SAFE = "/:@&="
FIELD_SAFE = ":@&"


# prosperourl = "prospero://" hostport "/" ppath *[ fieldspec ]      (the fast path)
_FIELDS = grammar.fast(grammar.FIELD)
_PATTERN = (
    "//"
    + grammar.HOSTPORT_FAST
    + f"/({grammar.fast(grammar.PSEGMENT + '/')})((?:;{_FIELDS}={_FIELDS})*)"
    + grammar.FRAGMENT_FAST
)
_FAST = grammar.Lazy(_PATTERN)  # (the strict reading: compiled on first use)
#: The default reading's (RFC 3986 characters: "~"; no "?" in a login).
_LAX = grammar.Lazy(grammar.lax(_PATTERN))  # (the lenient reading's: on first use)
#: The default reading's (``_parse_default``): RFC 3986's hosts and empty ports besides.
_DEFAULT = re.compile(grammar.default(_PATTERN))
#: The same with RFC 3986's userinfo (§3.2.1), which the default reading keeps in ``user``
#: and ``password`` (§3.11 allows none: the letter refuses it), for a URL holding "@"
#: (compiled on first use).  Without it such a URL took the general way (~15 µs, compiled).
_DEFAULT_LOGIN = grammar.Lazy(
    grammar.default(_PATTERN.replace(grammar.HOSTPORT_FAST, grammar.LOGIN_FAST))
)
# fieldspec = ";" fieldname "=" fieldvalue: each, once the fast path matched (neither part
# holds ";" or "=", so one findall splits them all).  With "~" (lax): the default and
# lenient patterns take it in a field, and a class without it cut the value there
# (``;X=b~c`` was read as X = "b").
_FIELDSPEC = re.compile(grammar.lax(f";({_FIELDS})=({_FIELDS})"))


#: The default reading's matches as bound methods (statics, compiled: see grammar.match_groups).
_DEFAULT_MATCH: Final = _DEFAULT.fullmatch


@tuple_backed
@record(frozen=True, kw_only=True)
@class_constants
class ProsperoURL(InternetURL):
    """``prospero://host:port/<hsoname>;<field>=<value>`` (§3.11)."""

    #: The decoded host-specific object name (opaque to the client).
    hsoname: str = ""
    #: The decoded ``;field=value`` pairs in order (e.g. ``("OBJECT-VERSION", "3")``).
    fields: tuple[tuple[str, str], ...] = ()
    #: The object version written after ``%00`` (RFC 1630 §6.4), or None.
    version: str | None = None

    schemes: ClassVar[tuple[str, ...]] = ("prospero",)
    DEFAULT_PORT: ClassVar[int | None] = 1525

    @classmethod
    def from_text(cls, text: str, *, scheme: str, rest: str, strict: bool = True) -> ProsperoURL:
        return cls._parse_at(text, len(text) - len(rest), scheme, strict)

    @classmethod
    def _parse_at(cls, text: str, start: int, scheme: str, strict: bool) -> ProsperoURL:
        url = _prosperourl_from_match(
            cls, (_FAST.get() if strict else _LAX.get()).fullmatch(text, start), text, start, scheme
        )
        return cls._parse_slow(text, start, scheme, strict) if url is None else url

    @classmethod
    def _parse_default(cls, text: str, start: int, scheme: str) -> ProsperoURL | None:
        if "@" in text:
            m = _DEFAULT_LOGIN.get().fullmatch(text, start)
            if m is None or not grammar.escapes_ok(text, start):
                return None
            user, password = m.group(1, 2)
            if user is not None:
                if "%" in user:
                    user = decode(user)
                if password is not None and "%" in password:
                    password = decode(password)
            return _prosperourl_from_groups(
                cls, grammar.match_groups(m)[2:], scheme, user, password
            )
        return _prosperourl_from_match(cls, _DEFAULT_MATCH(text, start), text, start, scheme)

    @classmethod
    def _parse_slow(cls, text: str, start: int, scheme: str, strict: bool) -> ProsperoURL:
        """Component by component: the whole grammar, and the offset of any error."""
        out, slash, end = parse_ip_schemepart(
            text, start, scheme, strict, userinfo=False, userinfo_rule="§3.11"
        )
        if slash == end:
            # Structure is checked in every reading: only characters are RFC 1738's alone.
            raise SchemeSyntaxError(
                "a prospero: URL names an hsoname after the host (§3.11)",
                component="hsoname",
                offset=end,
            )
        pstart = slash + 1
        semi = text.find(";", pstart, end)
        pend = end if semi < 0 else semi
        if strict:
            check(text, pstart, pend, _BAD_PPATH, "hsoname", "§3.11: ';' in the hsoname")
        v = text.find("%00", pstart, pend)
        hso_end = pend if v < 0 else v
        nul = text.find("\x00", pstart, hso_end)  # (raw: only lenient mode gets here with one)
        if nul >= 0:
            raise SchemeSyntaxError(
                "an hsoname cannot hold NUL: %00 starts the object version (RFC 1630 §6.4)",
                component="hsoname",
                offset=nul,
            )
        out["hsoname"] = decode(text[pstart:hso_end], "hsoname", pstart)
        if v >= 0:
            if not grammar.DIGITS_RE.fullmatch(text, v + 3, pend):
                raise SchemeSyntaxError(
                    "the object version after %00 is decimal digits (RFC 1630 §6.4)",
                    component="version",
                    offset=v + 3,
                )
            out["version"] = decode(text[v + 3 : pend], "version", v + 3)
        fields: list[tuple[str, str]] = []
        pos = pend
        while pos < end:  # text[pos] == ";"
            nxt = text.find(";", pos + 1, end)
            fend = end if nxt < 0 else nxt
            eq = text.find("=", pos + 1, fend)
            if eq < 0:
                raise SchemeSyntaxError(
                    "a field is written ;name=value (§3.11)", component="fields", offset=pos
                )
            if strict:
                check(text, pos + 1, eq, _BAD_FIELD, "fields", "§3.11")
                check(text, eq + 1, fend, _BAD_FIELD, "fields", "§3.11")
            fields.append(
                (
                    decode(text[pos + 1 : eq], "fields", pos + 1),
                    decode(text[eq + 1 : fend], "fields", eq + 1),
                )
            )
            pos = fend
        out["fields"] = tuple(fields)
        return cls._make(out)

    def __str__(self) -> str:
        out = f"{self.scheme}://{format_login(self.user, self.password, self.host, self.port)}/"
        out += quote(self.hsoname, HSONAME_SAFE)
        if self.version is not None:
            out += "%00" + quote(self.version, HSONAME_SAFE)
        for name, value in self.fields:
            out += f";{quote(name, FIELD_SAFE)}={quote(value, FIELD_SAFE)}"
        return out + format_fragment(self.fragment)

    def components(self) -> dict[str, Any]:
        out = self.authority_json()
        out["hsoname"] = display(self.hsoname)
        out["fields"] = [[display(n), display(v)] for n, v in self.fields]
        out["version"] = None if self.version is None else display(self.version)
        return out


def _prosperourl_from_match(
    cls: type[ProsperoURL], m: re.Match[str] | None, text: str, start: int, scheme: str
) -> ProsperoURL | None:
    """The URL the fast pattern's match ``m`` stands for, or None for the slow path."""
    if m is not None and grammar.escapes_ok(text, start):
        return _prosperourl_from_groups(cls, grammar.match_groups(m), scheme, None, None)
    return None


def _prosperourl_from_groups(
    cls: type[ProsperoURL],
    groups: tuple[str | Any, ...],
    scheme: str,
    user: str | None,
    password: str | None,
) -> ProsperoURL | None:
    """The URL of a fast pattern's groups after the login (host, port, hsoname, fields,
    fragment; every "%" in the text an escape), or None for the slow path."""
    host, port, hsoname, specs, fragment = groups
    if (
        "%00" not in hsoname
        and (port is None or len(port) < 5 or int(port) < 65536)
        and (host[0] != "[" or grammar.ipv6_ok(host))
    ):
        # (Any: a str or tuple, or their _Decoded/_Fields, which a compiled variable of the
        # field's type would refuse)
        fields: Any = ()
        if specs:  # (with escapes: decoded when first read, ProsperoURL.fields)
            fields = _Fields(specs) if "%" in specs else tuple(_FIELDSPEC.findall(specs))
        # the fields in order (tuple_backed): scheme, fragment, user, password, …
        return _tnew(
            cls,
            (
                scheme,
                fragment,
                user,
                password,
                host,
                int(port) if port else None,
                Decoded(hsoname) if "%" in hsoname else hsoname,
                fields,
                None,
            ),
        )
    return None


class _Fields(LazilyDecoded):
    """A parsed URL's ``;name=value`` fields as written (ASCII, every "%" an escape),
    decoded on first read (:class:`schemes.percent.LazilyDecoded`: to every reader the
    decoded tuple).  Why: decoding each name and value, and the hsoname (kept a
    :class:`schemes.percent.Decoded`), was most of a Prospero URL's parse when they hold
    escapes (the fourth mix of benchmarks/parse_bench.py: 0.96x urlsplit, ~10 µs a URL
    with UTF-8 escapes, compiled); most readers never read them."""

    def decode_raw(self, raw: str) -> tuple[tuple[str, str], ...]:
        return tuple([(decode(name), decode(value)) for name, value in _FIELDSPEC.findall(raw)])


_item: Any = tuple.__getitem__


def _hsoname(url: ProsperoURL) -> str:
    value = _item(url, 6)
    return value.value() if isinstance(value, Decoded) else value


def _fields(url: ProsperoURL) -> tuple[tuple[str, str], ...]:
    value = _item(url, 7)
    return value.value() if isinstance(value, _Fields) else value


# (after tuple_backed, which made each field a tuple item getter: items 6 and 7 may hold a
# Decoded or a _Fields, read through these)
setattr(ProsperoURL, "hsoname", property(_hsoname, doc="The decoded hsoname."))  # noqa: B010
setattr(ProsperoURL, "fields", property(_fields, doc="The decoded fields in order."))  # noqa: B010
