"""file: URLs (§3.10).

::

    fileurl = "file://" [ host | "localhost" ] "/" fpath

``host`` is as written: "" and "localhost" both mean "the machine from which the URL is being
interpreted" (§3.10; see :attr:`FileURL.is_local`).  ``path`` is the decoded
``"/" fpath`` — the absolute path on that host, its leading "/" included.

Outside RFC 1738's letter (the default reading, RFC 8089), ``file:/path`` (no ``//``) has
host "", ``file:c:/path`` is ``file:///c:/path`` (a DOS drive letter, Appendix E.2: see
:attr:`FileURL.drive`) and ``file:////host/share/x`` is the UNC name of a file on the machine
``host`` (Appendix E.3.2).
"""

from __future__ import annotations

import re

from . import grammar
from .authority import check_host, format_fragment, split_fragment
from .base import URL, _tnew, class_constants, tuple_backed
from .errors import SchemeSyntaxError, URLError
from .percent import Decoded, char_error, decode, display, quote
from .records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar, Final

_BAD_FPATH = grammar.lazy_bad_char(grammar.FSEGMENT + "/")
#: Left raw in the path ("?" would start an RFC 3986 query: escaped, decoded the same).
PATH_SAFE = "/:@&="
# drive-letter = ALPHA ":" / ALPHA "|"  followed by "/" or the end    (RFC 8089 Appendix E.2)
_DRIVE = grammar.Lazy(r"[A-Za-z][:|](?=/|$|#)")  # (on first use)


# fileurl = "file://" [ host | "localhost" ] "/" fpath      (the fast path, see grammar)
_PATTERN = (
    f"//({grammar.HOSTNAME_FAST})?(/{grammar.fast(grammar.FSEGMENT + '/')})" + grammar.FRAGMENT_FAST
)
_FAST = grammar.Lazy(_PATTERN)  # (the strict reading: compiled on first use)
#: The lenient reading's (RFC 3986 characters: "~"; compiled on first use).
_LAX = grammar.Lazy(grammar.lax(_PATTERN))
#: The default reading's (``_parse_default``): ";" in a segment besides (RFC 3986 §3.3: a
#: sub-delim, data in the path, as the general way reads it), RFC 3986's hosts (IP
#: literals, "_" in a name: as written, as the general way keeps them), and no authority at
#: all (``file:/C:/x``, ``file:/etc/x``: RFC 8089 §2's minimal form, host "", as the general
#: way reads it; a path starting "//" is left to it, see :func:`_fileurl_from_match`), or a
#: DOS drive letter right after the scheme (``file:C:/x``, Appendix E.2: the path "/C:/x",
#: as the general way reads it; ``C|`` is no RFC 3986 path: the general way's error).
_DEFAULT = re.compile(
    grammar.default(
        f"(?://({grammar.HOST_FAST})?)?"
        f"((?:/|(?<=:)[A-Za-z]:(?=[/#]|\\Z)){grammar.fast(grammar.FSEGMENT + ';/')})"
        + grammar.FRAGMENT_FAST
    )
)
#: RFC 8089 Appendix E.3.2's UNC form, ``file:////host/share/x`` (and the five slashes some
#: systems write): the file "/share/x" on the machine "host", as the general way reads it
#: (:func:`_unc_host_at`: a valid host after the slashes; anything else is its business —
#: an IP literal too: "[" is no RFC 3986 path character, and the path holds the host).
_DEFAULT_UNC = re.compile(
    grammar.default(
        f"/////?(?!\\[)({grammar.HOST_FAST})(?:(/{grammar.fast(grammar.FSEGMENT + ';/')})|)"
        + grammar.FRAGMENT_FAST
    )
)


#: The default reading's matches as bound methods (statics, compiled: see grammar.match_groups).
_DEFAULT_MATCH: Final = _DEFAULT.fullmatch
_DEFAULT_UNC_MATCH: Final = _DEFAULT_UNC.fullmatch


@tuple_backed
@record(frozen=True, kw_only=True)
@class_constants
class FileURL(URL):
    """``file://host/path`` (§3.10)."""

    #: "", "localhost", or the fully qualified domain name of the system holding the file.
    host: str = ""
    #: The decoded absolute path, "/" first.
    path: str = "/"

    schemes: ClassVar[tuple[str, ...]] = ("file",)

    @classmethod
    def from_text(cls, text: str, *, scheme: str, rest: str, strict: bool = True) -> FileURL:
        return cls._parse_at(text, len(text) - len(rest), scheme, strict)

    @classmethod
    def _parse_at(cls, text: str, start: int, scheme: str, strict: bool) -> FileURL:
        m = (_FAST.get() if strict else _LAX.get()).fullmatch(text, start)
        url = _fileurl_from_match(cls, m, text, start, scheme, strict)
        return cls._parse_slow(text, start, scheme, strict) if url is None else url

    @classmethod
    def _parse_default(cls, text: str, start: int, scheme: str) -> FileURL | None:
        if text.startswith("////", start):
            m = _DEFAULT_UNC_MATCH(text, start)
            if m is None or not grammar.escapes_ok(text, start):
                return None
            host, path, fragment = grammar.match_groups(m)
            return _tnew(cls, (scheme, fragment, host, "/" if path is None else _lazy(path)))
        return _fileurl_from_match(cls, _DEFAULT_MATCH(text, start), text, start, scheme, False)

    @classmethod
    def _parse_slow(cls, text: str, start: int, scheme: str, strict: bool) -> FileURL:
        """Component by component: the whole grammar, and the offset of any error."""
        end, fragment = split_fragment(text, start, strict)
        # RFC 8089 Appendix E.3.2: "file:////host/share/x" (and the five-slash
        # "file://///host/share/x" some systems write) is the UNC name \\host\share\x, a
        # file on the machine "host" (never the local "//host/...").
        unc = start + 5 if text.startswith("/////", start) else start + 4
        if _unc_host_at(text, unc, end, strict):
            slash = text.find("/", unc, end)
            host_end = end if slash < 0 else slash
            host = text[unc:host_end]
            if slash < 0:
                slash = end
        elif not strict and _DRIVE.match(text, start):
            # RFC 8089 Appendix E.2: "file:c:/path" is "file:///c:/path".
            host, slash = "", start - 1
        elif text.startswith("//", start):
            slash = text.find("/", start + 2, end)
            host_end = end if slash < 0 else slash
            check_host(text, start + 2, host_end, strict=strict, empty_host=True)
            host = text[start + 2 : host_end]
            if slash < 0:
                if strict:
                    raise SchemeSyntaxError(
                        "a file: URL has a '/' and a path after the host (§3.10)",
                        component="path",
                        offset=end,
                    )
                slash = end
        elif not strict and text.startswith("/", start):
            host, slash = "", start
        else:
            raise SchemeSyntaxError(
                "a file: URL continues with '//', the host (maybe empty) and '/' (§3.10)",
                component="path",
                offset=start,
            )
        if strict:
            m = _BAD_FPATH.search(text, slash + 1, end)
            if m is not None:
                raise char_error(text, m.start(), "path", "§3.10: ';' in a path segment")
        path = "/" + decode(text[slash + 1 : end], "path", slash + 1)
        if slash == start - 1:  # the drive-letter form had no "/" before the path
            path = "/" + decode(text[start:end], "path", start)
        return cls._make({"scheme": scheme, "fragment": fragment, "host": host, "path": path})

    def __str__(self) -> str:
        path = quote(self.path, PATH_SAFE)
        if path.startswith("//"):
            # "file:////x" would read as the UNC host "x" (RFC 8089 Appendix E.3.2): the
            # local path "//x" is written "/%2Fx", which decodes to the same path.
            path = "/%2F" + path[2:]
        return f"{self.scheme}://{self.host}{path}" + format_fragment(self.fragment)

    @classmethod
    def reads_alike(cls, text: str, start: int) -> bool:
        """Whether RFC 1738's letter and the default reading agree on ``text``: not for
        ``file:////host/x``, the local path "//host/x" to the letter and a file on the machine
        "host" to RFC 8089 (see :func:`schemes.registry.parse`)."""
        return not text.startswith("////", start)

    @property
    def drive(self) -> str | None:
        """The DOS drive letter of a path like ``/c:/dir`` or ``/C|/dir`` (RFC 8089 Appendix
        E.2), upper case, or None: such a path names a file on a DOS or Windows system."""
        m = _DRIVE.match(self.path, 1)
        return None if m is None else self.path[1].upper()

    @property
    def is_local(self) -> bool:
        """True for host "" or "localhost" (§3.10: the machine interpreting the URL)."""
        return self.host == "" or self.host.lower() == "localhost"

    def components(self) -> dict[str, Any]:
        return {"host": self.host, "path": display(self.path)}


def _fileurl_from_match(
    cls: type[FileURL], m: re.Match[str] | None, text: str, start: int, scheme: str, strict: bool
) -> FileURL | None:
    """The URL the fast pattern's match ``m`` stands for, or None for the slow path."""
    if m is not None and grammar.escapes_ok(text, start):
        host, path, fragment = grammar.match_groups(m)
        # (the path read from the groups: compiled, ``m.group(2).startswith`` was two
        # methods looked up by name)
        if not strict and path.startswith("//"):
            return None
        if host and host[0] == "[" and not grammar.ipv6_ok(host):
            return None
        if path[0] != "/":  # (the default reading's drive letter, "file:C:/x")
            path = "/" + path
        # scheme, fragment, host, path (tuple_backed)
        return _tnew(cls, (scheme, fragment, host or "", _lazy(path)))
    return None


def _lazy(raw: str) -> Any:
    """The path ``raw`` (the one match's: every "%" an escape) decoded: itself without an
    escape, else a :class:`schemes.percent.Decoded`, decoded on first read, as ftp's and
    Gopher's fields are.  Why: decoding at parse time was most of a file URL's parse where a
    path is typed in UTF-8 (``résumé.pdf``: mapped to escapes, then decoded escape by escape,
    1.1 µs for 4 escapes, 6.0 for 50; issue 32, eighth round), and most readers never read
    the path.  An ASCII text whose every "%" is an escape decodes without an error, so
    nothing is learnt sooner at parse time; a text that is not ASCII (the lenient reading's)
    is decoded now."""
    if "%" not in raw:
        return raw
    return Decoded(raw) if raw.isascii() else decode(raw)


_item: Any = tuple.__getitem__


def _path(url: FileURL) -> str:
    value = _item(url, 3)
    return value.value() if isinstance(value, Decoded) else value


# (after tuple_backed, which made each field a tuple item getter: item 3 may hold a Decoded,
# read through this)
setattr(FileURL, "path", property(_path, doc="The decoded absolute path, '/' first."))  # noqa: B010


def _unc_host_at(text: str, at: int, end: int, strict: bool) -> bool:
    """Whether ``file:////…`` has a UNC host at ``at`` (RFC 8089 Appendix E.3.2): outside
    RFC 1738's letter, after four slashes, a name that is a valid host.  Anything else
    (``file:////``, ``file:////%41%2F``) keeps RFC 3986's reading: an empty authority and a
    path starting "//" — so that every ``join`` result still parses."""
    if strict or not text.startswith("////", at - 4) or text[at : at + 1] in ("/", "#", ""):
        return False
    slash = text.find("/", at, end)
    try:
        check_host(text, at, end if slash < 0 else slash, strict=False, empty_host=False)
    except URLError:
        return False
    return True
