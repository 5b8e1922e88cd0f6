"""Base classes shared by every scheme's URL class.

URL objects are immutable and hashable (the yarl lesson): every field is decoded once at
parse time, derived values are cheap properties, and "changing" a URL means building a new
one with :func:`dataclasses.replace`.

Decoded components are ``str``.  Octets that are not UTF-8 are kept losslessly with the
``surrogateescape`` error handler, so :func:`schemes.percent.to_octets` gives back exactly the
octets the URL encoded — which is what goes on the wire (a Gopher selector may hold any octet
but TAB, CR and LF).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from .authority import split_fragment
from .percent import display

_U = TypeVar("_U", bound="URL")


@dataclass(frozen=True, kw_only=True)
class URL:
    """A parsed URL of any scheme.

    Subclasses add their decoded components as fields.  ``str(url)`` gives the canonical
    form, and ``schemes.parse(str(url)) == url`` always holds.

    A plugin class implements :meth:`from_text` (it receives the URL without its fragment),
    ``__str__`` (ending with ``schemes.authority.format_fragment(self.fragment)``) and
    :meth:`components`; its scheme spec names it (``SchemeSpec.url_class``, registered
    through the ``omniurl.specs`` entry-point group: the plugin guide,
    examples/omniurl-x-finger/README.md).  ``schemes.register(name, cls)`` and the older
    ``omniurl.schemes`` group still register a parser alone.
    """

    scheme: str
    #: The fragment after ``#`` (RFC 1630 §4.2): split off at parse time, never sent to a
    #: server; ``None`` when the text had no ``#``.
    fragment: str | None = None

    #: The registered scheme name(s) a subclass parses (lower case).
    schemes: ClassVar[tuple[str, ...]] = ()
    #: The port used when the URL names none (None: the scheme has no network port).
    DEFAULT_PORT: ClassVar[int | None] = None

    @classmethod
    def _make(cls: type[_U], fields: dict[str, Any]) -> _U:
        """Build an instance from already-validated fields without the frozen dataclass's
        per-field ``object.__setattr__`` calls (measured ~2.5x cheaper for eight fields).
        Fields not given take their defaults."""
        obj = object.__new__(cls)
        d = obj.__dict__
        d.update(cls._field_defaults())
        d.update(fields)
        return obj

    @classmethod
    def _field_defaults(cls) -> dict[str, Any]:
        defaults = cls.__dict__.get("_defaults_cache")
        if defaults is None:
            defaults = {
                f.name: f.default
                for f in dataclasses.fields(cls)
                if f.default is not dataclasses.MISSING
            }
            type.__setattr__(cls, "_defaults_cache", defaults)
        return defaults

    @classmethod
    def from_text(cls, text: str, *, scheme: str, rest: str, strict: bool = True) -> URL:
        """Parse ``rest`` (everything after ``scheme:``); ``text`` is the whole URL for offsets.

        Offsets in errors are relative to ``text``: the scheme-specific part starts at
        ``len(scheme) + 1``.
        """
        raise NotImplementedError

    @classmethod
    def _parse_at(cls, text: str, start: int, scheme: str, strict: bool) -> URL:
        """The registry's entry point: parse ``text[start:]`` (what follows ``scheme:``).

        Built-in classes override it with a one-match fast path.  The default serves plugins:
        it splits the fragment off (RFC 1630 §4.2: the same for every scheme), calls
        :meth:`from_text` — the contract a plugin implements — on the rest, and sets
        ``fragment`` on the result.
        """
        end, fragment = split_fragment(text, start, strict)
        url = cls.from_text(text[:end], scheme=scheme, rest=text[start:end], strict=strict)
        if fragment is not None and url.fragment is None:
            url = dataclasses.replace(url, fragment=fragment)
        return url

    @classmethod
    def reads_alike(cls, text: str, start: int) -> bool:
        """Whether RFC 1738's letter reads ``text[start:]`` as the default reading does (so
        that :func:`schemes.parse` may ask the letter's faster parser first).  A class whose
        successor RFC gives some RFC 1738 URL another meaning says where (news, file)."""
        return True

    def __str__(self) -> str:  # pragma: no cover - every concrete class overrides it
        raise NotImplementedError

    @property
    def default_port(self) -> int | None:
        return self.DEFAULT_PORT

    def components(self) -> dict[str, Any]:
        """The scheme-specific keys of the ``omniurl parse`` JSON contract, in order."""
        raise NotImplementedError

    def to_json(self) -> dict[str, Any]:
        """The whole ``omniurl parse`` object for this URL (a stable contract)."""
        out: dict[str, Any] = {"scheme": self.scheme}
        out.update(self.components())
        out["fragment"] = None if self.fragment is None else display(self.fragment)
        return out

    def replace(self, **changes: Any) -> URL:
        """A new URL with some fields changed (the object itself never changes)."""
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True, kw_only=True)
class InternetURL(URL):
    """A URL in the Common Internet Scheme Syntax of §3.1: ``//<user>:<password>@<host>:<port>/``.

    ``user`` and ``password`` keep the RFC's distinctions: ``ftp://@host/`` has user ``""``
    and password ``None``; ``ftp://host/`` has user ``None``; ``ftp://foo:@host/`` has user
    ``"foo"`` and password ``""``.  ``host`` is as written (case kept; ``[v6]`` literals keep
    their brackets); ``port`` is the explicit port or ``None``.
    """

    user: str | None = None
    password: str | None = None
    host: str = ""
    port: int | None = None

    @property
    def effective_port(self) -> int | None:
        """The port a connection goes to: the explicit one, else the scheme's default."""
        return self.port if self.port is not None else self.DEFAULT_PORT

    @property
    def hostname(self) -> str:
        """The host for a socket: lower case, IPv6 brackets removed; an IPv6 zone id (RFC
        6874: ``[fe80::1%25eth0]``) decoded to the ``fe80::1%eth0`` that getaddrinfo takes,
        its case kept (interface names are case-sensitive)."""
        h = self.host
        if h.startswith("[") and h.endswith("]"):
            if h[1:2] in ("v", "V"):  # IPvFuture (RFC 3986 §3.2.2): no socket form, and
                return h.lower()  # never a name to look up: the brackets stay
            h = h[1:-1]
            address, sep, zone = h.partition("%25")
            if sep:
                from .percent import decode

                return f"{address.lower()}%{decode(zone)}"
        return h.lower()

    def authority_json(self) -> dict[str, Any]:
        return {
            "user": None if self.user is None else display(self.user),
            "password": None if self.password is None else display(self.password),
            "host": display(self.host),
            "port": self.port,
            "default_port": self.DEFAULT_PORT,
        }
