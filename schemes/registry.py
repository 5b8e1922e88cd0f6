"""Scheme name -> URL class: the built-ins, ``register()`` and the ``omniurl.schemes`` group.

A plugin is indistinguishable from a built-in: it is one more entry in the same dictionary,
found the same way, parsed through the same ``from_text`` contract.  Entry points are loaded
once, on the first lookup of a scheme that no class registered in-process handles (so the
hot path of :func:`parse` is one dictionary lookup).
"""

from __future__ import annotations

import _thread
import importlib
from collections.abc import Callable

from . import grammar
from .base import URL
from .errors import EncodingError, SchemeError, URLError
from .fastparse import PARSERS, install_general
from .fastparse import parse as _first_step
from .rfc3986 import Syntax, is_plain, prepare

TYPE_CHECKING = False
if TYPE_CHECKING:
    from importlib.metadata import EntryPoints

#: A plugin's scheme spec (resolvers.spec.SchemeSpec): its ``url_class`` is read from it.
SPEC_GROUP = "omniurl.specs"
#: The older group: a URL class alone.
ENTRY_POINT_GROUP = "omniurl.schemes"

# Lenient mode takes any character, but each must stand for octets: UTF-8, or the surrogates
# U+DC80-U+DCFF that ``surrogateescape`` uses for octets 80-FF (strict mode takes ASCII only).
# (A raw string: re reads the escapes, and mypyc takes no surrogate in a string literal.)
_NOT_OCTETS = grammar.Lazy(r"[\ud800-\udc7f\udd00-\udfff]")  # (non-ASCII text only)

#: The built-in classes by scheme name, as ``(module, class)``: each is imported on the
#: first URL of its scheme (importing all twelve cost ~25 ms of every ``omniurl`` start).
BUILTIN_SCHEMES: dict[str, tuple[str, str]] = {
    "ftp": ("ftp", "FTPURL"),
    "ftps": ("ftp", "FTPSURL"),
    "http": ("http", "HTTPURL"),
    "https": ("http", "HTTPSURL"),
    "gopher": ("gopher", "GopherURL"),
    "gophers": ("gopher", "GophersURL"),
    "mailto": ("mailto", "MailtoURL"),
    "news": ("news", "NewsURL"),
    "snews": ("news", "SNewsURL"),
    "nntp": ("nntp", "NNTPURL"),
    "telnet": ("telnet", "TelnetURL"),
    "wais": ("wais", "WAISURL"),
    "file": ("file", "FileURL"),
    "prospero": ("prospero", "ProsperoURL"),
    "gemini": ("gemini", "GeminiURL"),
    "mid": ("rfc1630", "MidURL"),
    "cid": ("rfc1630", "CidURL"),
    "urn": ("rfc1630", "URNURL"),
}

_Parser = Callable[[str, int, str, bool], URL]
_ReadsAlike = Callable[[str, int], bool]
#: A class's ``_parse_default(text, start, scheme)``: the default reading of a plain ASCII
#: URL in one match, or None (then the general way below).
_Default = Callable[[str, int, str], "URL | None"]
_Entry = tuple[_Parser, "_ReadsAlike | None", "_Default | None"]

_DEFAULT = Syntax.RFC3986

_classes: dict[str, type[URL]] = {}
# name -> "module:attr" of a class registered by reference (imported on its first URL).
_lazy: dict[str, str] = {}
# name -> the class's bound ``_parse_at``, its ``reads_alike`` (None where the class keeps
# URL's, which says yes to everything) and its ``_parse_default`` (None where it has none):
# the hot path's one dictionary lookup (schemes.fastparse's table, the same object).
_parsers: dict[str, _Entry] = PARSERS


def builtin_class(name: str) -> type[URL] | None:
    """The built-in class of scheme ``name`` (imported now if it was not), or None; it is
    registered unless a class was registered in-process for the name first."""
    spec = BUILTIN_SCHEMES.get(name)
    if spec is None:
        return None
    module = importlib.import_module(f"{__package__}.{spec[0]}")
    cls: type[URL] = getattr(module, spec[1])
    if name not in _classes:
        _classes[name] = cls
        _parsers[name] = _entry(cls)
    return _classes[name]


def _entry(cls: type[URL]) -> _Entry:
    """What :func:`parse` calls for a class: its ``_parse_at``, its ``reads_alike`` when the
    class has one of its own (asking URL's, which always says yes, cost ~0.2 µs a URL), and
    its ``_parse_default`` (the built-in classes': a plugin's class has none, and a subclass
    of a built-in class that overrides ``_parse_at`` must not inherit its parent's)."""
    own = getattr(cls, "reads_alike", None)
    inherited = URL.__dict__["reads_alike"].__func__
    default: _Default | None = getattr(cls, "_parse_default", None)
    if default is not None:
        owner = next((k for k in cls.__mro__ if "_parse_default" in k.__dict__), None)
        parse_owner = next((k for k in cls.__mro__ if "_parse_at" in k.__dict__), None)
        if owner is not parse_owner:
            default = None
    return cls._parse_at, None if getattr(own, "__func__", None) is inherited else own, default


def _login_question(text: str, colon: int) -> bool:
    """Whether a "?" may stand in a user name or password: RFC 1738 §3.1 lets one, RFC 3986
    §3.2 ends the authority there, so the two readings differ (a "?" before the first "/"
    of a ``//`` authority, with an "@" somewhere after it)."""
    q = text.find("?", colon)
    return (
        q >= 0
        and text.startswith("//", colon + 1)
        and text.find("/", colon + 3, q) < 0
        and text.find("@", q) >= 0
    )


def builtin_classes() -> tuple[type[URL], ...]:
    """Every built-in class, imported (for callers that list them).  (A function, not the
    module attribute ``BUILTIN`` behind a PEP 562 ``__getattr__`` it was: mypyc's module
    initialisation asks the module for attributes before its globals exist, and a compiled
    ``__getattr__`` then reads them — a crash at import.)"""
    return tuple(cls for n in BUILTIN_SCHEMES if (cls := builtin_class(n)) is not None)


_loaded = False
#: Held while one thread reads the entry points: another thread that asks for a class then
#: waits for them (reentrant: a plugin's module may parse a URL as it is imported).
_scan_lock = _thread.RLock()
#: Whether the thread holding :data:`_scan_lock` is reading them (its own nested calls return).
_scanning = False


def register(name: str, cls: type[URL]) -> None:
    """Make ``cls`` parse URLs of scheme ``name`` (case-insensitive; §2.1's characters).

    ``cls`` follows the :class:`schemes.base.URL` contract: ``from_text`` parses, ``str()``
    gives the canonical form, ``components()`` the JSON keys.  A later registration of the
    same name replaces the earlier one (a plugin may override a built-in on purpose).
    """
    if not grammar.SCHEME_RE.fullmatch(name):
        raise SchemeError(f"{name!r} is not a scheme name (§2.1)", component="scheme", offset=0)
    if not (isinstance(cls, type) and issubclass(cls, URL)):
        raise TypeError(f"{cls!r} is not a schemes.URL subclass")
    _classes[name.lower()] = cls
    _parsers[name.lower()] = _entry(cls)
    _lazy.pop(name.lower(), None)
    _generic_names.pop(name.lower(), None)


def register_lazy(name: str, cls: type[URL] | str) -> None:
    """:func:`register`, with the class possibly named as ``"package.module:attr"`` and
    imported on the first URL of the scheme (a scheme spec's ``url_class``)."""
    if isinstance(cls, str):
        if not grammar.SCHEME_RE.fullmatch(name):
            raise SchemeError(f"{name!r} is not a scheme name (§2.1)", component="scheme", offset=0)
        _classes.pop(name.lower(), None)
        _parsers.pop(name.lower(), None)
        _lazy[name.lower()] = cls
        _generic_names.pop(name.lower(), None)
    else:
        register(name, cls)


def _import_lazy(name: str) -> type[URL] | None:
    ref = _lazy.pop(name, None)
    if ref is None:
        return None
    module, _, attr = ref.partition(":")
    obj: object = importlib.import_module(module)
    for part in attr.split("."):
        obj = getattr(obj, part)
    register(name, obj)  # type: ignore[arg-type]
    return _classes[name]


def entry_points(*, group: str) -> EntryPoints:
    """``importlib.metadata.entry_points``, imported on first call: it costs ~12 ms, more than
    parsing thousands of URLs, and most runs never meet a scheme that is not built in."""
    from importlib.metadata import entry_points as scan

    return scan(group=group)


def _load_entry_points() -> None:
    """Register the URL classes of the ``omniurl.specs`` entry points (each a scheme spec,
    whose ``url_class`` is read without importing anything of it) and of the older
    ``omniurl.schemes`` group (never over a built-in or an in-process registration)."""
    global _loaded, _scanning
    if _loaded:
        return
    # (marked read once read, not before: another thread that found them marked read while
    # this one still read them took a plugin's scheme for one no class serves, and kept
    # GenericURL's entry for it; it now waits on the lock)
    with _scan_lock:
        if _loaded or _scanning:
            return
        _scanning = True
        try:
            for ep in entry_points(group=SPEC_GROUP):
                spec = ep.load()
                cls = getattr(spec, "url_class", None)
                for scheme in getattr(spec, "names", ()):
                    taken = scheme.lower() in _classes or scheme.lower() in _lazy
                    if cls is not None and not taken and scheme.lower() not in BUILTIN_SCHEMES:
                        register_lazy(scheme, cls)
            for ep in entry_points(group=ENTRY_POINT_GROUP):
                if ep.name.lower() not in _classes and ep.name.lower() not in BUILTIN_SCHEMES:
                    register(ep.name, ep.load())
        finally:
            _loaded = True
            _scanning = False


def scheme_class(name: str) -> type[URL] | None:
    """The class registered for ``name``, or None (then :func:`parse` uses GenericURL)."""
    cls = _classes.get(name.lower()) or builtin_class(name.lower())
    if cls is None and _lazy:
        cls = _import_lazy(name.lower())
    if cls is None and not _loaded:
        _load_entry_points()
        cls = _classes.get(name.lower()) or _import_lazy(name.lower())
    return cls


def registered() -> dict[str, type[URL]]:
    """A copy of the scheme -> class table (entry points included)."""
    for name in BUILTIN_SCHEMES:
        builtin_class(name)
    _load_entry_points()
    for name in list(_lazy):
        _import_lazy(name)
    return dict(_classes)


if TYPE_CHECKING:

    def parse(text: str, strict: bool | None = None, *, syntax: Syntax | str = _DEFAULT) -> URL:
        """Parse ``text`` into an instance of its scheme's URL class (schemes.fastparse)."""
        ...

else:
    # (schemes.fastparse's compiled first step; it hands the rest to _parse below)
    parse = _first_step


def _parse(text: str, strict: bool | None, syntax: Syntax | str, tried: bool) -> URL:
    """:func:`parse`'s general way (:func:`schemes.fastparse.parse` answers first, and
    calls this with ``tried`` true when the class's ``_parse_default`` said None, so that it
    is not asked twice): another syntax, a scheme not in its exact case, non-ASCII text, a
    URL the default pattern does not take, and every error with its component and offset.
    """
    if strict is not None:
        syntax = Syntax.RFC1738 if strict else Syntax.LENIENT
    elif syntax is not _DEFAULT and syntax == "rfc3986":
        syntax = _DEFAULT  # (the command line's and Options' spelling: the same reading)
    try:
        colon = text.find(":")
        name = text[:colon]
        entry = _parsers.get(name) if colon > 0 else None
        if entry is not None and not _loaded and entry[2] is _generic_default:
            _forget_generic()  # (the entry points are marked unread: see _keep_generic)
            entry = None
        if entry is None and name in BUILTIN_SCHEMES and colon > 0:
            # The first URL of a built-in scheme (its class not imported yet, so the first
            # step found no entry): imported now, so that it too takes the default reading's
            # one match below.  Without this, it went the general way, whose strict parser
            # compiled the letter's pattern as well (~1 ms of every `omniurl parse` and
            # `plan` of one URL; the answer is the same either way: test_parse_fast_default).
            builtin_class(name)
            entry = _parsers.get(name)
        if (
            entry is not None
            and syntax is _DEFAULT
            and text.isascii()
            and (entry[1] is None or entry[1](text, colon + 1))
        ):
            # A built-in scheme in its exact case, ASCII, read in the default reading.
            if entry[2] is not None and not tried:
                # One match of the class's default-reading pattern (RFC 3986 characters,
                # RFC 1738 meanings): what the general way below finds, ~2-10x sooner.
                # (tests/test_parse_fast_default.py compares the two ways.)
                url = entry[2](text, colon + 1, name)
                if url is not None:
                    return url
            if entry[2] is not None and entry[2] is not _generic_default:
                # The default pattern refused the text.  The letter's parser, asked first
                # below, then mostly walks its slow path to an error (~5-12 µs, an
                # exception built and caught: `http://h:000080/`, `https://%41/`,
                # `file:C:/x`, `http://u@h?`), so the default reading's own parser answers
                # first here, and the letter's only when that one refuses the text (a
                # news: message-id holding "/"): the same answers in the other order, as
                # the two agree on every URL both accept (tests/test_properties_parse.py;
                # test_parse_fast_default compares this way to the letter-first one).
                # (A "?" in a userinfo: RFC 3986 refuses what the letter accepts.)
                if _login_question(text, colon):
                    return _mapped(text, colon, name, entry[0], check=True)
                if not is_plain(text):
                    return _mapped_else_letter(text, colon, name, entry[0])
                try:  # no mapping: the class's non-1738 parser reads it
                    return entry[0](text, colon + 1, name, False)
                except URLError:
                    if "~" not in text:  # (RFC 1738 refuses a raw "~")
                        try:
                            return entry[0](text, colon + 1, name, True)
                        except URLError:
                            pass
                    raise
            # Every URL RFC 1738's letter accepts is an RFC 3986 URI that the default
            # reading reads the same way (tests/test_properties_parse.py), but for a "?"
            # in a userinfo and what a class's reads_alike excludes: the letter's parser,
            # whose fast path is one match, answers next.  (It refuses a raw "~": no use
            # asking it then, ~8 µs.)
            if not _login_question(text, colon):
                if "~" not in text:
                    try:
                        return entry[0](text, colon + 1, name, True)
                    except URLError:
                        pass
                if is_plain(text):  # RFC 3986, not RFC 1738 ("/" in a query…): no mapping
                    return entry[0](text, colon + 1, name, False)
                return _mapped(text, colon, name, entry[0], check=True)
        if entry is None:
            name, entry = _lookup(text, colon)
            if entry[2] is _generic_default and syntax is _DEFAULT and not tried and text.isascii():
                # A scheme no class serves, its first URL (or one whose name was dropped):
                # GenericURL's one match, as the first step reads its next URLs, rather than
                # the general way's letter and walk (~3-8 µs; test_parse_fast_default).
                url = entry[2](text, colon + 1, name)
                if url is not None:
                    return url
        parser, reads_alike, _default = entry
        if syntax == "rfc1738":
            try:
                return parser(text, colon + 1, name, True)
            except URLError as exc:
                raise _letter_only(text, exc) from None
        if syntax != "rfc3986" and syntax != "lenient":
            raise ValueError(f"unknown syntax {syntax!r}: rfc3986, rfc1738 or lenient")
        if not text.isascii():
            bad = _NOT_OCTETS.search(text)
            if bad is not None:
                raise EncodingError(
                    "a lone surrogate stands for no character and no octets",
                    component=None,
                    offset=bad.start(),
                )
        elif not _login_question(text, colon) and (
            reads_alike is None or reads_alike(text, colon + 1)
        ):
            # The common case.  Every URL RFC 1738's letter accepts is an RFC 3986 URI that
            # the default reading reads the same way (tests/test_properties_parse.py), but
            # for a "?" in a userinfo and what a class's reads_alike excludes (RFC 8089's
            # UNC form, RFC 5538's news://server/): the letter's parser, whose fast path is
            # one match, answers first (~0.5 µs saved a URL).
            if "~" not in text:  # (RFC 1738 refuses a raw "~": no use asking it, ~8 µs)
                try:
                    return parser(text, colon + 1, name, True)
                except URLError:
                    pass
            if is_plain(text):  # RFC 3986 but not RFC 1738 ("~", "/" in a query…): no mapping
                return parser(text, colon + 1, name, False)
        return _mapped(text, colon, name, parser, check=syntax == "rfc3986")
    except URLError:
        raise
    except ValueError as exc:
        if isinstance(text, str) and "unknown syntax" in str(exc):
            raise
        raise URLError(
            f"cannot parse this URL ({type(exc).__name__}: {exc})", component=None
        ) from exc
    except Exception as exc:  # a bug or a plugin's mistake: still one error type for callers
        if not isinstance(text, str):
            raise URLError(f"a URL is text, not {type(text).__name__}") from None
        raise URLError(
            f"cannot parse this URL ({type(exc).__name__}: {exc})", component=None
        ) from exc


def _mapped(
    text: str, colon: int, name: str, parser: _Parser, *, check: bool, plain: bool = True
) -> URL:
    """``text`` checked against RFC 3986 (unless ``check`` is false: the lenient reading),
    mapped to the URI it stands for (schemes.rfc3986.prepare) and read by ``parser``; an
    error's offset is moved back to the text as written.  ``plain=False``: the caller
    found ``is_plain(text)`` false (prepare need not ask again)."""
    try:
        prepared = prepare(
            text,
            colon,
            check=check,
            opaque_host=_opaque_parser(parser),
            plain=plain,
        )
    except URLError as exc:
        raise _scheme_component(text, colon, name, parser, exc) from None
    if not prepared.shifts:
        return parser(prepared.text, colon + 1, name, False)
    try:
        return parser(prepared.text, colon + 1, name, False)
    except URLError as exc:
        raise prepared.restate(exc) from None


def _mapped_else_letter(text: str, colon: int, name: str, parser: _Parser) -> URL:
    """:func:`_mapped` (checked, ``text`` not plain), and, when it refuses ``text``, the
    letter of RFC 1738 (``parser`` strict) asked once: its URL if it accepts the text (and
    the text holds no raw "~"), else the default reading's error, named as the scheme names
    its component (:func:`_scheme_component`'s rule).

    The same answers as asking :func:`_mapped` and then the letter: the letter was asked
    twice for a text RFC 3986's check refused (once to name the component, once more for
    its URL), 7-13 µs each, and four errors were built (issue 32, eighth round: a refused
    text cost 54 µs against urlsplit's 8).  The letter is not asked at all where its answer
    is known (:func:`_letter_refuses_alike`)."""
    try:
        prepared = prepare(
            text,
            colon,
            check=True,
            opaque_host=_opaque_parser(parser),
            plain=False,
        )
    except URLError as exc:
        if _letter_refuses_alike(text, name, exc):
            raise exc from None
        try:
            url = parser(text, colon + 1, name, True)
        except URLError as own:
            if _renames(own, exc):
                # (the error prepare has just built, not kept anywhere: renamed in place
                # rather than built again, ~1.4 µs)
                exc.component = own.component
            raise exc from None
        except Exception:  # a plugin's parser: keep the generic name (asked again below)
            if "~" in text:
                raise exc from None
            raise
        if "~" in text:  # (the letter took a raw "~"?  Not its URL: the check's error)
            raise exc from None
        return url
    try:
        return parser(prepared.text, colon + 1, name, False)
    except URLError as exc:
        error = prepared.restate(exc) if prepared.shifts else exc
    if "~" not in text:  # (RFC 1738 refuses a raw "~")
        try:
            return parser(text, colon + 1, name, True)
        except URLError:
            pass
    raise error


#: Scheme -> the components of RFC 3986's check whose errors the scheme's letter names alike
#: (http's "path" and "fragment" past its authority; its "query" is its "search", so not
#: there).
_SAME_NAMES: dict[str, frozenset[str]] = {
    "http": frozenset({"path", "fragment"}),
    "https": frozenset({"path", "fragment"}),
}
#: Characters RFC 1738 refuses raw anywhere (§2.2: unsafe, and controls): no letter's parser
#: accepts a text holding one (strict mode reads ASCII only, and "%" only as an escape).
_NEVER_RAW = frozenset(' "<>\\^`{|}\x7f') | frozenset(chr(c) for c in range(32))
_HEX = frozenset("0123456789abcdefABCDEF")


def _letter_refuses_alike(text: str, name: str, exc: URLError) -> bool:
    """Whether RFC 1738's letter, asked for ``text``, surely refuses it and leaves ``exc``
    (RFC 3986's check's error) as it is: the character ``exc`` blames is one no letter takes
    raw (a space, a control, ``"<>\\^`{|}``, a "%" that starts no escape), and where the
    letter's error could fall at the same offset, it names the same component (the scheme's
    row of :data:`_SAME_NAMES`), so :func:`_scheme_component` would rename nothing."""
    same = _SAME_NAMES.get(name)
    offset = exc.offset
    if same is None or exc.component not in same or offset is None or offset >= len(text):
        return False
    # (after the authority: without "//" the letter blames the authority, as at
    # `http:%//h/`, and so may it where RFC 3986's path or fragment starts before its end)
    colon = len(name)
    slash = text.find("/", colon + 3) if text.startswith("//", colon + 1) else -1
    if slash < 0 or offset <= slash:
        return False
    ch = text[offset]
    if ch == "%":
        return not (text[offset + 1 : offset + 2] in _HEX and text[offset + 2 : offset + 3] in _HEX)
    return ch in _NEVER_RAW or not ch.isascii()


def _renames(own: URLError, exc: URLError) -> bool:
    """Whether the letter's error ``own`` renames RFC 3986's ``exc`` (see
    :func:`_scheme_component`)."""
    return bool(
        own.offset == exc.offset
        and own.component
        and own.component != exc.component
        # (a generic URL's authority parts keep their RFC 3986 names)
        and not (own.component == "scheme_specific_part" and exc.component in _AUTHORITY)
    )


_AUTHORITY = frozenset({"user", "password", "userinfo", "host", "port"})


def _scheme_component(text: str, colon: int, name: str, parser: _Parser, exc: URLError) -> URLError:
    """``exc`` (from the generic RFC 3986 check, naming "path", "query"…) with the scheme's
    own name for the component where its parser names one at the same offset ("cwd[1]",
    "selector", "search"…)."""
    try:
        parser(text, colon + 1, name, True)
    except URLError as own:
        if _renames(own, exc):
            return type(exc)(exc.message, component=own.component, offset=exc.offset)
    except Exception:  # a plugin's parser: keep the generic name
        pass
    return exc


def _letter_only(text: str, exc: URLError) -> URLError:
    """``exc`` as it stands, or, when the default reading accepts ``text``, ``exc`` saying
    that only the letter of RFC 1738 refuses it."""
    try:
        parse(text)
    except URLError:
        return exc
    out = type(exc)(
        f"{exc.message} [RFC 1738 to the letter (--rfc1738) refuses this URL; the default "
        "reading (RFC 3986) accepts it]",
        component=exc.component,
        offset=exc.offset,
    )
    return out


def _lookup(text: str, colon: int) -> tuple[str, _Entry]:
    """The scheme name (lower case) and its parser, for anything but an exact-case hit."""
    if colon <= 0:
        raise SchemeError(
            "a URL starts with a scheme name and ':' (§2.1)", component="scheme", offset=0
        )
    name = text[:colon]
    m = grammar.SCHEME_RE.match(name)
    bad = 0 if m is None else m.end()
    if bad < colon:
        raise SchemeError(
            f"character {name[bad]!r} cannot appear in a scheme name (§2.1: letters, digits, "
            "'+', '-', '.')",
            component="scheme",
            offset=bad,
        )
    name = name.lower()
    cls = scheme_class(name)
    if cls is None:
        return name, _parsers.get(name) or _keep_generic(name)
    return name, _parsers.get(name) or _entry(cls)


# -- the entry of a scheme no class serves ---------------------------------------------------
# Every name no class is registered for (in-process, lazily, by an entry point or built in)
# parses as GenericURL.  Such a name's entry is kept in the table, as a registered class's is,
# so that the next URL of the scheme is the first step's one lookup and GenericURL's one
# match: before, each URL took the general way, whose lookup alone cost 3.5-7 µs (the
# scheme_class calls, a GenericURL entry built afresh, a function-level import of
# schemes.generic at 1.9 µs), then RFC 1738's parser or RFC 3986's walk (issue 32, seventh
# round, docs/speed.md).  What a kept entry must never do is hide a class registered later:
# ``register`` and ``register_lazy`` replace or drop the name's entry (the entry points are
# read before any name is kept, and each of their classes is registered so), and an entry
# kept while the entry points are marked unread (``_loaded`` set back to false, as the tests
# do) answers nothing: every kept entry is dropped, and the lookup reads them again.  At most
# _GENERIC_KEPT names are kept (text of any origin may name any scheme): one more drops the
# oldest.  (It dropped them all: a program meeting 70 such names in rotation, as the eighth
# mix's infrastructure and app links do, dropped the table 74-87 times in three passes of
# that mix, and each drop sent the next URL of every name the general way again; issue 32,
# eighth round.)  The first URL of a name takes the same one match as the next ones (``_parse``
# asks the kept entry's default reading right after the lookup), so a name not kept, or
# dropped, costs its lookup, not the general way's walk.

_GENERIC_KEPT = 64
#: The names whose kept entry is the generic one, oldest first (a name's entry may be dropped
#: from the table without it: the tests restore the table in place).
_generic_names: dict[str, None] = {}
#: GenericURL and its ``_parse_default``, once imported.
_generic_class: list[type[URL]] = []
_generic_parse: list[_Default] = []


def _generic() -> type[URL]:
    """GenericURL, imported once (a function-level import cost 1.9 µs a call, issue 32)."""
    if not _generic_class:
        from .generic import GenericURL  # (on the first URL of an unknown scheme: ~0.4 ms)

        _generic_class.append(GenericURL)
        _generic_parse.append(GenericURL._parse_default)
    return _generic_class[0]


def _generic_default(text: str, start: int, scheme: str) -> URL | None:
    """A kept generic entry's ``_parse_default``: GenericURL's, unless the entry points are
    marked unread (then every kept entry is dropped, and None sends the URL to the general
    way, whose lookup reads them)."""
    if _loaded:
        return _generic_parse[0](text, start, scheme)
    _forget_generic()
    return None


def _forget_generic() -> None:
    """Drop every kept generic entry from the table."""
    # (a copy of the table, and pop: another thread may keep or drop names meanwhile — a
    # comprehension over the live items, then ``del``, raised RuntimeError or KeyError, which
    # the general way reported as "cannot parse this URL")
    for name, entry in list(_parsers.items()):
        if entry[2] is _generic_default and _parsers.get(name) is entry:
            _parsers.pop(name, None)
            _generic_names.pop(name, None)
    # (only the names whose entries are gone: a name another thread kept after the copy
    # keeps its name, or its entry would stay in the table with no drop reading it again,
    # and the table would grow past _GENERIC_KEPT)
    for name in list(_generic_names):
        kept = _parsers.get(name)
        if kept is None or kept[2] is not _generic_default:
            _generic_names.pop(name, None)


def _keep_generic(name: str) -> _Entry:
    """The entry of ``name``, a scheme no class serves (lower case, checked), kept in the
    table while the entry points are read (see above)."""
    cls = _generic()
    entry: _Entry = (cls._parse_at, cls.reads_alike, _generic_default)
    if _loaded:
        if len(_generic_names) >= _GENERIC_KEPT:
            _forget_oldest()
        _parsers[name] = entry
        _generic_names[name] = None
        if name in _classes or name in _lazy:
            # A class was registered for the name since its lookup (another thread): its
            # entry wins, never this one (the URL in hand is still read as GenericURL's)
            _generic_names.pop(name, None)
            if _parsers.get(name) is entry:
                _parsers.pop(name, None)
    return entry


def _forget_oldest() -> None:
    """Drop the oldest kept generic entry (or, when another thread changes the names
    meanwhile, all of them: the table stays right either way)."""
    try:
        oldest = next(iter(_generic_names))
        _generic_names.pop(oldest, None)
    except (RuntimeError, StopIteration):  # (another thread's keep or drop, in between)
        _forget_generic()
        return
    entry = _parsers.get(oldest)
    if entry is not None and entry[2] is _generic_default:
        _parsers.pop(oldest, None)


def _opaque_parser(parser: object) -> bool:
    """Whether :func:`_mapped` reads the host of ``parser``'s text as opaque (its class is
    GenericURL: a kept entry's, or a scheme registered with GenericURL itself), without
    importing schemes.generic for any other class."""
    owner = getattr(parser, "__self__", None)
    return getattr(owner, "__name__", None) == "GenericURL" and owner is _generic()


install_general(_parse, _opaque_parser)  # type: ignore[arg-type]
