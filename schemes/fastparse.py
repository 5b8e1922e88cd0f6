"""The first step of :func:`schemes.parse`: one dictionary lookup and the class's one-match
default reading, compiled (setup.py) where the rest of the registry is not.

Why a module of its own: ``schemes.registry`` stays pure Python (its entry-point scan is the
tests' seam; a plugin's mistake must stay a ``URLError``), but the few lines every URL runs
through cost more as interpreted Python than the scheme's match itself.  Measured with
callgrind on ``http://pubabc1.example.com/docxyz`` in the compiled build: ~16,000
instructions a URL, of which ~6,000 were the registry's interpreted ``parse`` (its frame, the
bytecode, the call of the class's parser) against ~5,400 for the match.

:data:`PARSERS` is the registry's table (the same dictionary object: the registry fills it,
tests save and restore it in place).  Besides the registered classes it holds the names of
schemes no class serves that a URL has named (at most ``registry._GENERIC_KEPT``), each with
GenericURL's entry, whose default reading answers nothing while the entry points are marked
unread (``registry._keep_generic``: ``register``, ``register_lazy`` and the entry points win
over a kept name).  Whatever this step cannot answer — another syntax, a
scheme not written in its exact case, non-ASCII text, a URL the class's pattern does not
take, any exception — goes to the registry's general way, installed with
:func:`install_general`, which gives exactly what it gave before this step existed.
"""

from __future__ import annotations

from .rfc3986 import Syntax, default_text, map_iri_host

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing is not imported by a parse: tests/test_startup.py)
    from collections.abc import Callable
    from typing import Final

    from .base import URL

    #: A class's ``_parse_at(text, start, scheme, strict)``.
    Parser = Callable[[str, int, str, bool], URL]
    #: A class's own ``reads_alike(text, start)`` (None: URL's, which says yes to everything).
    ReadsAlike = Callable[[str, int], bool]
    #: A class's ``_parse_default(text, start, scheme)``: the default reading of a plain ASCII
    #: URL in one match, or None (then the general way); asked whatever the class's
    #: ``reads_alike`` says (that answers whether RFC 1738's letter reads a text alike, which
    #: the default reading's own pattern never needs to know).
    Default = Callable[[str, int, str], URL | None]
    Entry = tuple[Parser, ReadsAlike | None, Default | None]
    #: ``parse(text, strict, syntax, tried)``: the registry's general way (``tried``: the
    #: class's ``_parse_default`` already said None for this text).
    General = Callable[[object, object, object, bool], URL]
    #: Whether the general way reads the host of an entry's parser as opaque.
    Opaque = Callable[[object], bool]

#: Scheme name (as registered, lower case) -> its class's entry: the hot path's one lookup.
PARSERS: Final[dict[str, Entry]] = {}

_DEFAULT: Final = Syntax.RFC3986
#: ``str.isascii`` called as a function: compiled, ``text.isascii()`` is a method looked up by
#: name at every call (mypyc has no primitive for it: ``_PyObject_GetMethod`` and
#: ``PyObject_VectorcallMethod``, ~210 instructions a URL, callgrind, where the call of the
#: descriptor is ~60).
_isascii: Final = str.isascii
_general: list[General] = []
#: Whether an entry's parser reads its host as opaque (GenericURL's, for a scheme no class
#: serves or one registered with GenericURL itself): RFC 3986 §3.2.2, no DNS name, never
#: mapped to A-labels, so a text that is not ASCII is the general way's
#: (schemes.rfc3986.prepare's opaque_host; the registry's _opaque_parser, the same test).
_opaque: list[Opaque] = []


def install_general(general: General, opaque: Opaque | None = None) -> None:
    """Set the function :func:`parse` hands every other case to (the registry's), and the
    test of the entries whose host is opaque (see :data:`_opaque`)."""
    _general[:] = [general]
    _opaque[:] = [] if opaque is None else [opaque]


def parse(text: object, strict: object = None, *, syntax: object = _DEFAULT) -> URL:
    """Parse ``text`` into an instance of its scheme's URL class.

    ``syntax`` says how the URL is written (:class:`schemes.rfc3986.Syntax`):

    * ``"rfc3986"`` (the default): RFC 3986's generic syntax, IRIs (RFC 3987) and the
      successor RFCs, mapped onto RFC 1738's per-scheme meanings (schemes.rfc3986);
    * ``"rfc1738"``: RFC 1738 to the letter, for those who validate URLs against it;
    * ``"lenient"``: what real-world text often holds (unencoded unsafe characters, a stray
      "%") wherever the meaning stays unambiguous.

    ``strict`` is the older spelling: ``True`` is ``"rfc1738"``, ``False`` ``"lenient"``.
    Every failure is a :class:`schemes.URLError` naming the component and the character
    offset to blame; no other exception escapes.

    (Typed ``schemes.registry.parse(text: str, ...)`` for callers; ``object`` here, so that
    a non-text argument reaches the registry's ``URLError`` rather than the ``TypeError`` of
    a compiled argument check.)
    """
    tried = False
    # (``"rfc3986"`` as text too: the command line's and ``Options.syntax``'s spelling, which
    # had every ``omniurl parse``, ``plan`` and ``get`` miss this step)
    if strict is None and (syntax is _DEFAULT or syntax == "rfc3986") and isinstance(text, str):
        try:
            colon = text.find(":")
            if colon > 0:
                name = text[:colon]
                entry = PARSERS.get(name)
                if entry is None:
                    # "HTTP:", "Mailto:": scheme names are case-insensitive (RFC 3986 §3.1;
                    # RFC 1738 §2.1), and the class reads the rest alike
                    name = name.lower()
                    entry = PARSERS.get(name)
                if entry is not None:
                    default = entry[2]
                    if default is not None:
                        if _isascii(text):
                            # (not gated by the class's reads_alike: a ``_parse_default``
                            # reads the default reading of every text itself — RFC 5538's
                            # news://, RFC 8089's file:////host — or says None; the call
                            # cost ~0.1 µs)
                            url = default(text, colon + 1, name)
                            if url is not None:
                                return url
                            tried = True
                            # (a percent-encoded host: the pattern takes none)
                            # (GenericURL's entries keep their host opaque: neither mapping
                            # is theirs, see :data:`_opaque`; asked only here, off the hot path)
                            mapped = (
                                default_text(text, colon)
                                if "%" in text and not (_opaque and _opaque[0](entry[0]))
                                else None
                            )
                        elif not (_opaque and _opaque[0](entry[0])):
                            # An IRI (RFC 3987): an internationalized host, the rest ASCII
                            # (its A-labels: rfc3986.map_iri_host), or UTF-8 outside the
                            # host (percent-encoded: rfc3986.default_text).  (``tried``
                            # stays false: the general way asks no class's default reading
                            # of a text that is not ASCII.)
                            mapped = map_iri_host(text, colon)
                            if mapped is None:
                                mapped = default_text(text, colon)
                        else:
                            mapped = None
                        if mapped is not None:
                            # The URI the text stands for, read in one match, where the
                            # general way walked each component to map the same text
                            # (13-40 µs; rfc3986.default_text and map_iri_host say why it
                            # is the same)
                            url = default(mapped, colon + 1, name)
                            if url is not None:
                                return url
        except Exception:  # (the general way runs it again and names the error)
            tried = False
    return _general[0](text, strict, syntax, tried)
