"""One record per scheme: what every surface of omniurl reads about it.

A scheme — built in or a plugin's — is one :class:`SchemeSpec`: its names, its URL class, its
resolver, its typed options (with the command-line flags they declare), its presentation
hooks (:class:`Presentation`: the terminal, JSON, the gateway's page, a file name) and what it
offers to fsspec and urllib.  The surfaces (the CLI, the batch, the clients, the gateway, the
integrations) ask the spec; none of them names a scheme.

Heavy things are named, not imported: ``url_class``, ``resolver`` and ``presentation`` may be
``"package.module:attr"`` strings, loaded on first use (:func:`load`), so that looking a
scheme up imports only what the URL in hand needs (tests/test_startup.py holds the budget).

A spec is registered with :func:`resolvers.registry.register_spec`, or found through the
``omniurl.specs`` entry-point group (a plugin's one line), exactly as the built-ins are
(``resolvers/builtin.py`` lists theirs the same way).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import AsyncIterable, Callable, Iterable, Mapping, Sequence

from omniurl.schemes import records
from omniurl.schemes.records import MISSING, field, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    import datetime
    from typing import Any, TypeVar

    from omniurl.schemes.base import URL

    from .base import Resolver
    from .options import Options
    from .plan import Plan
    from .policy import Policy
    from .resource import Entry, Resource

    T = TypeVar("T")


#: ``"package.module:attr"``: a thing imported on first use.
Ref = str


def load(ref: Any) -> Any:
    """The object ``ref`` names (``"package.module:attr.sub"``), or ``ref`` itself."""
    if not isinstance(ref, str):
        return ref
    module, sep, attr = ref.partition(":")
    if not sep:
        raise ValueError(f"{ref!r} is not 'package.module:attr'")
    obj: Any = importlib.import_module(module)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


# -- typed options and the command-line flags they declare --------------------------------


@record(frozen=True)
class Flag:
    """A command-line flag that sets one field of a scheme's options dataclass.

    ``convert`` turns the argument's text into the field's value (it may raise
    ``ValueError``: the CLI reports it as a usage error, status 2); ``action`` is argparse's
    (``"store_true"`` for a switch, ``"append"`` for a repeatable one); ``type`` checks the
    text (``int``, ``float``)."""

    names: tuple[str, ...]
    help: str = ""
    metavar: str | None = None
    action: str | None = None
    type: Callable[[str], Any] | None = None
    choices: Sequence[str] | None = None
    convert: Callable[[Any], Any] | None = None


def flag(
    *names: str,
    default: Any = MISSING,
    default_factory: Any = MISSING,
    help: str = "",
    metavar: str | None = None,
    action: str | None = None,
    type: Callable[[str], Any] | None = None,
    choices: Sequence[str] | None = None,
    convert: Callable[[Any], Any] | None = None,
) -> Any:
    """A dataclass field that the CLI exposes as ``names`` (``--smtp``)::

    @dataclass(frozen=True)
    class MailtoOptions:
        smtp: str | None = flag("--smtp", default=None, metavar="HOST[:PORT]", help=...)
    """
    meta = {"flag": Flag(names, help, metavar, action, type, choices, convert)}
    # A plugin's options class is a dataclass (its module imported dataclasses to declare
    # it): a dataclasses.field for it; omniurl's own are records (schemes/records.py, which
    # reads either), made without importing dataclasses on the command's start.
    kind: Any = sys.modules.get("dataclasses") or records
    if default_factory is not MISSING:
        return kind.field(default_factory=default_factory, metadata=meta)
    if default is MISSING:
        return kind.field(metadata=meta)
    return kind.field(default=default, metadata=meta)


def flags_of(options_type: type) -> list[tuple[str, Flag]]:
    """``(field name, Flag)`` for each field of ``options_type`` that declares a flag."""
    return [
        (f.name, f.metadata["flag"]) for f in records.fields(options_type) if "flag" in f.metadata
    ]


# -- presentation: what each surface shows -------------------------------------------------


@record(frozen=True)
class TreePath:
    """Where a URL sits in its server's tree, for ``omniurl mirror``: the path's segments,
    decoded (never empty, never checked: the mirror maps each to a safe local name), and
    whether it is a ``container`` (a directory, a menu: listed or read for links, its
    children below it)."""

    segments: tuple[str, ...]
    container: bool


@record(frozen=True)
class MirrorFacts:
    """What a fetched content says for keeping a mirror current: its modification time
    (set on the local file) and the validators a later run sends back (``revalidate``)."""

    modified: datetime.datetime | None = None
    validators: Mapping[str, str] = field(default_factory=dict)


def generic_tree_path(url: URL) -> TreePath | None:
    """A hierarchical URL's path (RFC 3986 §3.3) split at "/", each segment percent-decoded
    (octets that are not UTF-8 kept with ``surrogateescape``); None for a URL with a query
    (not a place in a tree) or without an authority."""
    from omniurl.schemes.percent import unquote_to_bytes

    text = str(url).split("#", 1)[0]
    if "?" in text or "://" not in text:
        return None
    tail = text.split("://", 1)[1]
    path = "/" + tail.split("/", 1)[1] if "/" in tail else ""
    segments = tuple(
        unquote_to_bytes(s).decode("utf-8", "surrogateescape") for s in path.split("/") if s
    )
    return TreePath(segments, path == "" or path.endswith("/"))


class Presentation:
    """How a scheme's resources are shown, by each surface.  Every hook has a default that
    fits any scheme; a scheme overrides the few that differ (a plugin usually none).

    The terminal and the JSON of ``omniurl get``, the file name of ``-O`` and the batch, the
    gateway's HTML page: the surfaces call these and never test a scheme name.
    """

    #: The file name of a directory, a menu or a bare host's content (``-O``, the batch,
    #: ``omniurl mirror``).
    index_name: str = "index"
    #: Whether such an index is a listing (FTP and ``file:`` directories, Gopher menus),
    #: saved by ``-O`` and the batch under a name of its own URL's (``omniurl.saving``:
    #: ``dir.1c0f5a2e.tsv``) rather than :attr:`index_name`; False: an index is content
    #: (HTTP's ``index.html``, Gemini's ``index.gmi``).
    index_lists: bool = False
    #: The characters that end a file name taken from the URL's last path segment (``-O``,
    #: the batch): what follows one names no file — FTP's ``;type=`` (RFC 1738 §3.2.2),
    #: Prospero's ``;`` fields (§3.11), a query.  A scheme whose ``;`` or ``?`` is part of
    #: the name says so (HTTP's ``a;b.txt``, RFC 3986 §3.3; a Gopher selector's, RFC 4266):
    #: curl's ``-O`` and wget keep it there.
    name_ends: str = ";?"
    #: The escape that ends the part of a URL's path a saved file is named from (``-O``, the
    #: batch, the gateway's downloads): what follows it are words sent with the item, not
    #: its name, as a query is no part of a path (Gopher's ``%09``: the search and the
    #: Gopher+ string, RFC 1738 §3.4, which may hold "/": ``+application/pdf``).  None: the
    #: whole path names it.
    path_ends_at: str | None = None
    #: Whether a URL without an authority (``scheme:opaque``, no ``//``) is named by its
    #: whole opaque part (``news:group``, ``news:message-id``: RFC 1738 §3.6, RFC 5538 §2.2),
    #: a "/" in it saved as "_" (a message-id may hold one); False: such a URL has no path,
    #: and its content is saved as :attr:`index_name` — which gave every ``news:`` article
    #: the one name ``index``, so ``-O news:a@x -O news:b@x`` kept only the second.
    opaque_names: bool = False
    #: The statuses whose reply has no content and leaves the copy the client holds as it
    #: is (HTTP's 304 Not Modified, RFC 9110 §15.4.5): ``-o``, ``-O`` and the batch make no
    #: file for them, as curl makes none.
    unchanged_statuses: frozenset[int] = frozenset()
    #: Whether ``-I`` applies ``--max-filesize`` to the size its head states, once the
    #: head is shown (curl 7.88 and its source today: an HTTP ``HEAD`` reply's
    #: ``Content-Length`` is checked as a GET's, exit 63 after the head; an FTP ``SIZE`` or
    #: a file's size describe a transfer ``-I`` does not make: the head, exit 0).
    head_size_limited: bool = False

    # -- the command line (omniurl get) ---------------------------------------------------

    def warnings(self, url: URL) -> Iterable[str]:
        """Warnings about the URL given, printed before anything is sent."""
        return ()

    def response_code(self, status: int | None, replies: Sequence[str]) -> int | None:
        """``-w``'s ``%{response_code}`` (and ``%{http_code}``): the resource's status; a
        scheme whose status is a conversation's last reply code says which (FTP)."""
        return status

    def cli_options(self, options: Any, urls: Sequence[str]) -> Any:
        """The scheme's options as the flags gave them, completed for the command line
        (an environment variable, an answer asked on the terminal); ``urls`` are the URLs
        given (empty for a batch read from a file)."""
        return options

    def cli_policy(self, policy: Policy, options: Any) -> Policy:
        """The command line's policy, given the scheme's options (a header field the
        caller lets a mailto: URL set)."""
        return policy

    async def present(self, resource: Resource, args: argparse.Namespace) -> int | None:
        """Show ``resource`` on the terminal in the scheme's own way and return the exit
        status, or ``None`` for the generic presentation (content to stdout or the file,
        a listing as lines)."""
        return None

    def text_source(
        self, resource: Resource, args: argparse.Namespace
    ) -> AsyncIterable[bytes] | None:
        """The content as it should be written, when that is not the bytes received (a
        Gopher text item's dot-stuffing undone, local line ends); ``None``: the bytes."""
        return None

    def head_lines(self, resource: Resource) -> list[str]:
        """``-I``: what the server said about the resource, as header-field lines.  The
        default: the modification time and the whole size the resolver found
        (``resource.modified``, ``resource.total``), as curl shows an FTP file's, and
        ``Accept-ranges`` only when the plan could start at an offset (``Plan.resumable``:
        ``-C`` works)."""
        lines = []
        if resource.modified is not None:
            import email.utils

            when = email.utils.format_datetime(resource.modified, usegmt=True)
            lines.append(f"Last-Modified: {when}")  # an HTTP-date (RFC 9110 §5.6.7)
        if resource.total is not None:
            lines.append(f"Content-Length: {resource.total}")
        if resource.plan.resumable:
            lines.append("Accept-ranges: bytes")
        return lines

    def describe(self, resource: Resource) -> dict[str, Any]:
        """The resource as ``--json`` prints it (a stable set of keys; ``"metadata"`` is
        ``resource.result.to_json()``)."""
        return resource.describe()

    def suggested_name(self, resource: Resource) -> str | None:
        """``-J``: the file name the server suggested for the content, as sent (the CLI
        makes it a bare, safe name), or None: the name comes from the URL."""
        return None

    # -- file names (-O, the batch, the gateway's downloads) -------------------------------

    def is_index(self, url: URL, path: str) -> bool:
        """Whether ``url`` names a menu or the like (``path``: the text after the
        authority), whose content is saved as :attr:`index_name` although its path ends in
        a name (a path ending in "/", or none, always is)."""
        return False

    def listed_folder(self, url: URL) -> URL | None:
        """The folder's own URL when ``url`` names a folder without its final "/" and
        lists exactly what that URL lists (``file:///srv/dir`` and ``file:///srv/dir/``:
        one folder, the same listing), so that its listing is saved under one name either
        way (``-O``, the batch: ``omniurl.batch.output_name``, docs/saving.md), as ``omniurl
        mirror`` takes either as the folder.  None (the default): the URL names its own
        listing (a Gopher selector ``dir`` is another than ``dir/``; FTP's ``;type=d`` is a
        listing of names, not the folder's facts)."""
        return None

    def beside_suffix(self, url: URL) -> str | None:
        """What a URL asks for *about* an item rather than the item itself, as the suffix
        of a file name of its own (``-O``, the batch, the gateway's downloads), saved as
        ``NAME.HASH<suffix>`` (``omniurl.saving.listing_name``: a hash of the URL, so no
        two such requests take each other's name); None: the URL is the item.  Gopher+
        ``!`` and ``$`` (RFC 1738 §3.4.6-7): ``.attributes.txt`` — before, ``-O
        gopher://h/0/a.txt%09%09!`` saved the attribute blocks as ``a.txt``, over a copy of
        the item itself (docs/saving.md)."""
        return None

    # -- omniurl mirror ----------------------------------------------------------------------

    #: Whether a listing (a menu) is itself a document worth keeping in a mirror, saved
    #: beside its items under a name no item can take (omniurl.mirror.walk.listing_name);
    #: False: a listing is only a directory (FTP, file).
    saves_listing: bool = False

    def tree_path(self, url: URL) -> TreePath | None:
        """Where ``url`` sits in its server's tree (``omniurl mirror`` follows and names
        files by it), or None when it is no place in a tree (a search, a session): by
        default the generic path of a hierarchical URL (:func:`generic_tree_path`)."""
        return generic_tree_path(url)

    def exact_url(self, url: URL) -> URL:
        """The URL that fetches ``url``'s content byte for byte, as a mirror must (FTP:
        ``;type=i``, where §3.2.3's guess would transfer a text file in ASCII); by default
        ``url`` itself."""
        return url

    def page_links(
        self, url: str, media_type: str | None, data: bytes, *, charset: str | None = None
    ) -> Iterable[str] | None:
        """The absolute URLs a content links to (an HTML page's, a document format's), or
        None when ``media_type`` is no document with links; ``data`` is the content,
        ``charset`` the one the server declared with it (``Resource.charset``; None: none
        was)."""
        return None

    def generated_listing(self, media_type: str | None, data: bytes) -> bool:
        """Whether a container's content is a listing the server generated (an autoindex
        page): followed for its links, not saved as a file of the tree."""
        return False

    def listing_times(self, url: str, media_type: str | None, data: bytes) -> Mapping[str, str]:
        """The time a generated listing (:meth:`generated_listing`) gives each entry, by
        the entry's absolute URL (ISO 8601, to the minute or exact), for the folders a
        mirror makes (files take their own response's time)."""
        return {}

    def revalidate(self, options: Options, validators: Mapping[str, str]) -> Options | None:
        """The options of a conditional request that transfers nothing when the content is
        still the one ``validators`` (from :meth:`mirror_facts`) describe, or None when the
        scheme has none (the content is fetched again and compared)."""
        return None

    def unchanged(self, resource: Resource) -> bool:
        """Whether ``resource`` answers a conditional request with "not modified"."""
        return False

    def moved_to(self, resource: Resource) -> str | None:
        """Where ``resource`` says the URL moved, when it is a redirect given as the result
        (``follow=False`` where the scheme returns it rather than raising
        :class:`NotFollowed`): the absolute URL without a fragment (what is fetched), or
        None."""
        return None

    def redirect_url(self, resource: Resource) -> str | None:
        """:meth:`moved_to` with the target's fragment, if it has one (``-w
        %{redirect_url}``, as curl's); by default :meth:`moved_to`'s."""
        return self.moved_to(resource)

    def wire_exchange(self, resource: Resource) -> tuple[bytes, bytes] | None:
        """The request as sent and the response's head as received, for WARC ``request``
        and ``response`` records (ISO 28500 §6.4, §6.5: HTTP's), or None: the content
        is archived as a ``resource`` record."""
        return None

    def time_options(self, options: Options) -> Options:
        """The options of a request for a content's modification time alone, after a
        transfer whose listing gave only a rough one; by default ``-I``'s head request (FTP
        asks ``MDTM`` without ``TYPE I`` and ``SIZE``: one round trip a file, not three)."""
        return options.with_(head=True)

    def timed_options(self, options: Options) -> Options | None:
        """Options under which a content's transfer also gives its exact modification time
        (``resource.modified``), for a file whose listing gave only a rough one — or None
        (the default): :meth:`time_options`'s request follows the transfer instead.  FTP
        asks ``MDTM`` in the transfer's own conversation (one resolve a file, not two)."""
        return None

    def mirror_facts(self, resource: Resource) -> MirrorFacts:
        """The modification time and validators of a fetched content (see
        :class:`MirrorFacts`); by default ``resource.modified`` and none."""
        return MirrorFacts(resource.modified)

    # -- the gateway (omniurl serve gateway) -----------------------------------------------

    async def gateway_page(
        self, url: str, plan: Plan, pages: Any, options: Options, config: Any
    ) -> Any | None:
        """A page of the scheme's own instead of resolving (a telnet session cannot be a
        page; a mailto: URL is a form), or ``None`` to resolve and render the resource."""
        return None

    def rendered_text(self, resource: Resource, text: str) -> str | None:
        """A text resource as a reader should see it (a document format rendered, its links
        absolute URLs that the browser makes followable), or ``None`` for the text as it
        is; ``text`` is the content decoded (``omniurl browse``)."""
        return None

    def gateway_html(
        self, resource: Resource, text: str, link: Callable[[str], str | None]
    ) -> str | None:
        """A text resource as an HTML fragment of the scheme's own (a document format with
        links: gemtext), or ``None`` for the text in ``<pre>``.  ``text`` is the content
        decoded; ``link(url)`` gives the gateway's link to a URL (None: not to be linked).
        The fragment must escape everything it takes from ``text``; the page around it keeps
        the gateway's CSP."""
        return None

    def gateway_options(self, options: Options, config: Any) -> Options:
        """The options the gateway resolves this scheme's URLs with, given its
        configuration (e.g. its mail relay; listing what a strict policy would not
        follow)."""
        return options

    def search_url(self, url: URL, words: str) -> str | None:
        """The URL of a search with ``words`` (the gateway's search form), or ``None`` when
        the scheme has no searches."""
        return None

    def entry_marker(self, entry: Entry) -> str | None:
        """The marker the gateway shows before a listing entry whose URL is of this scheme
        (``[FILE]``), or ``None`` for the marker of its kind."""
        return None

    def article_headers(self, resource: Resource) -> bool:
        """Whether the gateway shows the content's header fields apart (an article)."""
        return (resource.media_type or "").startswith("message/rfc822")

    def reference_url(self, message_id: str) -> str | None:
        """The URL of the message a ``References`` field names (RFC 5536), or None."""
        return None

    def attributes_url(self, entry: Entry) -> str | None:
        """The URL of a listing entry's attributes (its views, abstract…), or None."""
        return None

    def source_url(self, url: URL) -> str | None:
        """The URL whose content is a listing's source as the server sent it (``\\`` in
        ``omniurl browse``, as lynx's), asking the server for the same bytes; None: the
        listing's rows are shown as its source."""
        return None

    def views(self, resource: Resource) -> list[Any]:
        """The other views a resource offers (each with ``.view``, ``.label``), for the
        gateway's choice form."""
        return []

    def view_url(self, url: str, view: str) -> str | None:
        """The URL of one of :meth:`views`, or None when the URL has no views."""
        return None

    def gateway_post(
        self, url: str, form: Mapping[str, str], options: Options, config: Any
    ) -> Options | str:
        """The options to resolve ``url`` with, given a form posted from the scheme's own
        page (:meth:`gateway_page`), or a sentence saying why it is refused (403)."""
        return "This URL takes no form."


#: The presentation of a scheme that names none.
DEFAULT_PRESENTATION = Presentation()


# -- the record ----------------------------------------------------------------------------


@record(frozen=True, kw_only=True)
class SchemeSpec:
    """Everything omniurl knows about one scheme (or a family: ``ftp`` and ``ftps``).

    ``url_class``, ``resolver`` and ``presentation`` are objects or ``"module:attr"``
    references, loaded on first use.  ``options`` is a frozen dataclass type whose fields
    may declare command-line flags (:func:`flag`); a resolver reads its instance with
    ``options.of(ThatType)``.
    """

    #: The scheme names (lower case); the first is the spec's name.
    names: tuple[str, ...]
    #: The :class:`resolvers.base.Resolver` subclass that plans and executes them.
    resolver: type[Resolver] | Ref
    #: The :class:`schemes.base.URL` subclass that parses these URLs (None: whatever the
    #: parsing side has for the name — a built-in's, or ``GenericURL``).
    url_class: type[URL] | Ref | None = None
    #: One line: what the scheme is (``omniurl get --help`` titles its flags with it).
    title: str = ""
    #: A note under the title in ``--help``.
    description: str | None = None
    #: The typed options (a frozen dataclass with defaults for every field), or None.
    options: type | None = None
    #: How its resources are shown (:class:`Presentation`); None: the defaults.
    presentation: type[Presentation] | Presentation | Ref | None = None
    #: The port a URL without one connects to (None: not a network scheme).
    default_port: int | None = None
    #: Served by omniurl's fsspec filesystem (``fsspec.open("x://…")``).  False for schemes
    #: fsspec ships its own filesystem for (ftp, http…): registering them would replace it.
    fsspec: bool = True
    #: Opened by ``omniurl.integrations.urllib.install()``'s handler (``urlopen``, pandas).
    #: False for schemes urllib handles itself.
    urllib: bool = True
    #: Why ``-C`` cannot continue its transfers (None: its plans say ``resumable``, or a
    #: generic sentence).
    resume_note: str | None = None
    #: Whether its plans honour ``Options.head`` (``-I``: only what the server says about
    #: the resource, never its content — HTTP ``HEAD``, FTP ``SIZE``/``MDTM``).  False: the
    #: protocol has no such request, and ``omniurl get -I`` refuses its URLs before sending
    #: anything (a Gopher selector, a mailto message would otherwise go out whole).
    head: bool = False
    #: Its local test server, which ``omniurl serve SCHEME`` (and ``testservers.start``)
    #: starts: the name of one of omniurl's own servers (``"nntp"``), or a plugin's
    #: ``"module:callable"`` — ``await callable(host=..., port=..., root=...)`` starts
    #: listening (port 0: any free port) and returns the server, an object with the ``port``
    #: it bound and an awaitable ``close()``.  None: the scheme has none (``omniurl serve``
    #: says so).
    test_server: str | Ref | None = None
    #: Wire contexts of its own (``WireValue.context`` -> the octets a value sent there may
    #: not carry), for a protocol none of ``resolvers.policy.DELIMITERS`` fits; registered
    #: with the spec (CR, LF and NUL are always added; a built-in context is never changed).
    delimiters: Mapping[str, Iterable[int]] | None = None
    #: The plan's typed details (``Plan.details``) and the resource's typed result
    #: (``Resource.result_as``; a tuple when it is one of several), for readers of the API
    #: (the surfaces read the result only as ``to_json()``, the ``--json`` metadata).
    details: type | Ref | None = None
    result: type | Ref | tuple[type | Ref, ...] | None = None

    @property
    def name(self) -> str:
        return self.names[0]

    def url_type(self) -> type[URL]:
        from omniurl.schemes import registry
        from omniurl.schemes.generic import GenericURL

        if self.url_class is not None:
            cls: type[URL] = load(self.url_class)
            return cls
        return registry.scheme_class(self.name) or GenericURL

    def resolver_type(self) -> type[Resolver]:
        cls: type[Resolver] = load(self.resolver)
        return cls

    def present(self) -> Presentation:
        """The :class:`Presentation` (an instance, made once per spec)."""
        cached = _presentations.get(id(self))
        if cached is not None:
            return cached
        found = load(self.presentation) if self.presentation is not None else None
        if found is None:
            made = DEFAULT_PRESENTATION
        elif isinstance(found, type):
            made = found()
        else:
            made = found
        _presentations[id(self)] = made
        return made

    def default_options(self) -> Any:
        """A default instance of the options type (None when the scheme has none)."""
        return None if self.options is None else self.options()


_presentations: dict[int, Presentation] = {}


def page_links_of(
    presentation: Presentation,
    url: str,
    media_type: str | None,
    data: bytes,
    *,
    charset: str | None = None,
) -> Iterable[str] | None:
    """``presentation.page_links(url, media_type, data, charset=charset)``, as the mirror
    calls it, for a hook written before it took ``charset`` (56a0ace) too: a plugin's
    ``page_links(self, url, media_type, data)`` was a ``TypeError`` in every ``omniurl
    mirror`` of its scheme.  Such a hook is given what it was given then: the media type
    with the declared charset as its parameter (``text/html; charset=koi8-r``)."""
    hook = presentation.page_links
    if _takes_keyword(hook, "charset"):
        return hook(url, media_type, data, charset=charset)
    if media_type is not None and charset:
        media_type = f"{media_type}; charset={charset}"
    return hook(url, media_type, data)


def _takes_keyword(method: Callable[..., Any], name: str) -> bool:
    """Whether ``method`` accepts the keyword argument ``name`` (its code's arguments or a
    ``**`` catch-all; read from the code object: ``inspect`` costs a start ~5 ms).  A
    callable without Python code is given the keyword.  A decorator's wrapper
    (``functools.wraps``: ``__wrapped__``) that passes ``**`` on is read as the function it
    wraps, as ``inspect.signature`` reads it: its ``**`` says nothing of what is accepted."""
    function = getattr(method, "__func__", method)
    code = getattr(function, "__code__", None)
    for _depth in range(8):  # (a few decorators deep at most)
        inner = getattr(function, "__wrapped__", None)
        if code is None or not code.co_flags & 0x08 or inner is None:
            break
        function = getattr(inner, "__func__", inner)
        code = getattr(function, "__code__", None)
    if code is None or code.co_flags & 0x08:  # (CO_VARKEYWORDS)
        return True
    # (the names a keyword can give: after the positional-only ones, to the keyword-only)
    return (
        name
        in code.co_varnames[code.co_posonlyargcount : code.co_argcount + code.co_kwonlyargcount]
    )


def options_of(values: Mapping[type, Any], kind: type[T]) -> T:
    """``values[kind]``, or a default ``kind()`` (every field of an options type has a
    default)."""
    found = values.get(kind)
    return found if found is not None else kind()


__all__ = [
    "DEFAULT_PRESENTATION",
    "Flag",
    "MirrorFacts",
    "Presentation",
    "Ref",
    "SchemeSpec",
    "TreePath",
    "flag",
    "flags_of",
    "generic_tree_path",
    "load",
    "options_of",
    "page_links_of",
]
