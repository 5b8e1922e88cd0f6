"""The ``gopher:`` resolver (RFC 1738 §3.4, RFC 1436, Gopher+).

``planner`` is pure (URL -> the exact request), ``executor`` does the I/O, ``menu``,
``gopherplus`` and ``text`` are pure codecs the test server shares.
"""

from __future__ import annotations

from omniurl.schemes.base import URL

from ..base import Resolver
from ..options import Options
from ..plan import Plan
from ..spec import Presentation, SchemeSpec, TreePath

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..resource import Entry, Resource

# The planner and the executor are imported on first use (see resolvers/lazy.py): every
# ``omniurl get``/``plan`` imports this package for its command-line options.


class GopherResolver(Resolver):
    """Gopher and Gopher+: menus, text, binaries, searches, attributes, views and forms."""

    schemes = ("gopher", "gophers")

    def plan(self, url: URL, options: Options) -> Plan:
        from .planner import plan_gopher

        return plan_gopher(url, options)

    async def execute(self, plan: Plan, options: Options) -> Resource:
        from .executor import execute_gopher

        return await execute_gopher(plan, options)

    def prepare(self, options: Options, *, engine: bool) -> None:
        """The executor (and its machine), imported before a split batch forks."""
        from . import executor  # noqa: F401

    def first_connection(self, plan: Plan, options: Options) -> tuple[str, int] | None:
        """A plain ``gopher:`` item connects first (a search without its words asks
        first; ``gophers:`` makes its TLS context first)."""
        from .planner import GopherDetails, Mode

        if plan.scheme != "gopher" or plan.host is None or plan.port is None:
            return None
        if plan.details_as(GopherDetails).mode is Mode.ASK_SEARCH:
            return None
        return plan.host, plan.port


def _with_gopher_plus(url: str, marker: str) -> str | None:
    """A Gopher URL with its Gopher+ string set (RFC 4266 §2.1's ``%09%09`` part), or None
    for what is not a Gopher URL or cannot carry that string."""
    from omniurl import schemes
    from omniurl.schemes.gopher import GopherURL

    try:
        parsed = schemes.parse(url)
        if not isinstance(parsed, GopherURL):
            return None
        return str(parsed.replace(gopher_plus=marker, search=parsed.search or ""))
    except schemes.URLError:
        return None


class GopherPresentation(Presentation):
    """A menu saved as a listing (``omniurl.saving``); searches after an encoded TAB;
    Gopher+ views and attributes.  A text item is the resolver's bytes on every path: the
    framing removed, the server's line ends kept (no ``text_source``: docs/saving.md)."""

    index_name = "gophermap.txt"
    index_lists = True
    #: A selector is opaque (RFC 1436; RFC 4266 §2.1): its ";" and "?" are the name's
    #: ("/a;b.txt" is a;b.txt, as curl saves it); a search follows an encoded TAB.
    name_ends = ""
    #: "/0/a.txt%09x/../b" and "/9/doc.pdf%09%09+application/pdf" are saved as a.txt and
    #: doc.pdf (the selector's last segment), never a name from the search or Gopher+ string
    path_ends_at = "%09"

    def is_index(self, url: URL, path: str) -> bool:
        # "/1…" and "/7…" are menus; "" or "/x" (a type alone) the server's root menu.
        return len(path.strip("/")) <= 1 or path[:1] in ("1", "7")

    def beside_suffix(self, url: URL) -> str | None:
        """Gopher+ ``!`` (an item's attribute blocks) and ``$`` (a menu's items'), RFC 1738
        §3.4.6-7: text about the item, saved under a name of its own."""
        plus = getattr(url, "gopher_plus", None)
        if isinstance(plus, str) and plus[:1] in ("!", "$"):
            return ".attributes.txt"
        return None

    #: A menu is a document of its own (the hole's text between the items): kept.
    saves_listing = True

    def tree_path(self, url: URL) -> TreePath | None:
        """RFC 1436 §3: the selector, split at "/" (a convention of most servers, not of
        the protocol: a selector without one is one name); type 1 is a container.  Searches
        (7), CSO (2), sessions (8, T), forms (+ASK) and selectors with a search are no
        place in a tree."""
        gtype = getattr(url, "gtype", "1")
        if gtype in "728T+i3" or getattr(url, "search", None) is not None:
            return None
        if getattr(url, "gopher_plus", None) is not None:
            return None
        selector = getattr(url, "selector", "")
        return TreePath(tuple(_name(s) for s in selector.split("/") if s), gtype == "1")

    def search_url(self, url: URL, words: str) -> str | None:
        """RFC 1738 §3.4: the search after an encoded TAB."""
        from urllib.parse import quote  # (here: urllib.parse and ipaddress cost every plan)

        return str(url).split("%09", 1)[0] + "%09" + quote(words, safe="")

    def attributes_url(self, entry: Entry) -> str | None:
        if entry.info.get("gopher_plus") == "+" and entry.url:
            return _with_gopher_plus(entry.url, "!")
        return None

    def view_url(self, url: str, view: str) -> str | None:
        return _with_gopher_plus(url, "+" + view)

    def source_url(self, url: URL) -> str | None:
        """A menu's source: the same selector asked for as a text item (type 0).  The type
        is the client's alone (RFC 1436 §3.8: only the selector goes on the wire), so the
        server sends the very menu lines, dot-unstuffed as text is."""
        from omniurl.schemes.gopher import GopherURL

        if isinstance(url, GopherURL) and url.gtype in ("1", "7"):
            return str(url.replace(gtype="0"))
        return None

    def views(self, resource: Resource) -> list[Any]:
        from .result import GopherResult

        result = resource.result_as(GopherResult)
        if result is not None and result.single and "+VIEWS" in result.attributes:
            from .gopherplus import parse_views

            return list(parse_views(result.attributes["+VIEWS"]))
        return []


SPEC = SchemeSpec(
    names=("gopher", "gophers"),
    title="gopher",
    resolver=GopherResolver,
    presentation=GopherPresentation,
    default_port=70,
    test_server="gopher",
    resume_note="Gopher (RFC 1436) has no resume: a selector always returns the whole item",
    result="omniurl.resolvers.gopher.result:GopherResult",
)


def _name(segment: str) -> str:
    """A selector segment as the name it stands for.  Gophernicus, the most used server,
    writes a name's space, ``#``, ``%`` and every octet outside printable ASCII as ``#``
    and three octal digits (``with#040space.txt``, ``na#303#257ve``) and reads them back:
    a segment whose every ``#`` begins such an escape is decoded (UTF-8; an octet that is
    not is kept as :func:`os.fsdecode` keeps it); any other segment is its own name."""
    if "#" not in segment:
        return segment
    head, *escaped = segment.split("#")
    raw = bytearray(head.encode("utf-8", "surrogateescape"))
    for part in escaped:
        digits = part[:3]
        if len(digits) != 3 or not all(c in "01234567" for c in digits) or digits[0] > "3":
            return segment
        raw.append(int(digits, 8))
        raw += part[3:].encode("utf-8", "surrogateescape")
    return raw.decode("utf-8", "surrogateescape")


__all__ = ["SPEC", "GopherPresentation", "GopherResolver"]
