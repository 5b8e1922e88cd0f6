"""The pure half of the Gopher resolver: a ``gopher:`` URL in, the exact request out.

RFC 1738 §3.4: the client sends the decoded selector; then TAB and the search string where the
URL has one (§3.4.2); then TAB and the Gopher+ string where it has one (§3.4.3); then CRLF.
The type character is never sent: it says how to read the reply.  With a Gopher+ string and an
empty search, the search and its TAB are left out — draft-ietf-uri-url-07 §3.4.3 says so in so
many words ("followed optionally by a tab and the search string (if the element is not
empty)"), and Gopher+ servers read ``selector TAB +`` as the Gopher+ request (with two TABs
they take "+" for the search).

Every decoded value is tagged with the "gopher" wire context (TAB, CR, LF, NUL are
delimiters: §3.4.1); the answers of a filled-in form (§3.4.9) are lines of a data block, tagged
"line".  The policy refuses a plan whose values hold a delimiter; nothing is sent.

Input a URL lacks is not made up here.  A search item (type 7) without a search string, and a
Gopher+ item with a form (``?``), plan an ``info`` step that sends nothing: the executor asks
(``Options.ask``, or the ``gopher.form`` callback) and then *follows* the completed URL, which
is planned and checked afresh — so what goes on the wire is always a plan's step.  Without a
way to ask, the search item is an :class:`~resolvers.errors.InputNeeded` error.
"""

from __future__ import annotations

from enum import StrEnum

from omniurl.schemes.base import URL
from omniurl.schemes.percent import to_octets
from omniurl.schemes.records import record, replace

from ..errors import InputNeeded, PlanError
from ..options import Options
from ..plan import Plan, Role, Step, WireValue
from .itemtypes import item_type

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Protocol

    from .gopherplus import GopherPlusRequest

    class GopherLike(Protocol):
        """The fields of ``schemes.gopher.GopherURL`` the planner reads."""

        gtype: str
        selector: str
        search: str | None
        gopher_plus: str | None
        hostname: str
        port: int | None

        @property
        def effective_port(self) -> int | None: ...


def _shown(data: bytes) -> str:
    """How ``omniurl plan`` prints a request: the octets as text (JSON shows TAB as ``\\t``);
    octets that are not UTF-8 as ``\\xNN``."""
    return data.decode("utf-8", "backslashreplace")


def needs_search(url: GopherLike, request: GopherPlusRequest | None) -> bool:
    """A search item (type 7) asked for its results without search words (§3.4.2)."""
    return url.gtype == "7" and not url.search and (request is None or request.kind == "data")


class GopherRole(Role):
    """The request line (selector, search, Gopher+ command), and a Gopher+ form's answers
    (the executor sends every step's bytes in order: Gopher has one request)."""

    TLS = "tls"
    REQUEST = "request"
    FORM = "form"


class Mode(StrEnum):
    """How the executor reads the reply (the item type's reading, RFC 1436 §3.8), or what
    it does first."""

    MENU = "menu"
    TEXT = "text"
    BINARY = "binary"
    #: Gopher+ data: a ``+``/``-`` status line, then the data (Gopher+ §2.3).
    GPLUS = "gplus"
    #: Gopher+ attribute blocks (``!``, ``$``).
    ATTRIBUTES = "attributes"
    #: A search item without words: ask for them, then resolve the URL with them.
    ASK_SEARCH = "ask-search"
    #: A +ASK form: fetch it, ask, then resolve the filled-in form (§3.4.5).
    ASK = "ask"


@record(frozen=True)
class GopherDetails:
    """What the Gopher executor needs beyond the request line (typed; never sent)."""

    #: How to read the reply, or what to do first.
    mode: Mode
    gtype: str
    #: The item type's reading (RFC 1436 §3.8 / Gopher+), and its media type.
    reading: str
    media_type: str | None
    #: Gopher+: the view asked for, and the request's kind (data, attributes…).
    view: str | None = None
    request: str | None = None


def plan_gopher(url: URL, options: Options) -> Plan:
    """The access plan of a ``gopher:`` URL (pure); a ``gophers:`` one opens with the TLS
    handshake, a step of its own that sends nothing the plan does not show."""
    plan = _plan_gopher(url, options)
    if url.scheme != "gophers":
        return plan
    handshake = Step(
        b"",
        f"TLS handshake with {plan.host} (its certificate verified)",
        kind="info",
        role=GopherRole.TLS,
    )
    return replace(plan, steps=(handshake, *plan.steps))


def _plan_gopher(url: URL, options: Options) -> Plan:
    g: Any = url
    gtype: str = g.gtype
    selector = to_octets(g.selector)
    search = None if g.search is None else to_octets(g.search)
    request = None
    if g.gopher_plus is not None:
        # (imported only for a Gopher+ string: a plain get plans before its early connect)
        from .gopherplus import parse_request

        request = parse_request(to_octets(g.gopher_plus))
    kind = item_type(gtype)

    if kind.reading == "session":
        raise PlanError(
            f"gopher type {gtype} is a {kind.kind} session, not a document: "
            f"use telnet://{g.host}:{g.effective_port}/",
            component="gtype",
        )
    if kind.reading == "unsupported":
        raise PlanError(
            f"gopher type {gtype} ({kind.kind} phone book, RFC 2378) is not supported",
            component="gtype",
        )
    if kind.reading == "error":
        raise PlanError(
            "gopher type 3 marks an error item: there is nothing to fetch", component="gtype"
        )

    common: dict[str, Any] = {
        "url": url,
        "scheme": url.scheme,
        "host": g.hostname,
        "port": g.effective_port,
        "transport": "tcp",
        "explicit_port": g.port is not None,
    }
    base = GopherDetails(
        mode=Mode.BINARY, gtype=gtype, reading=kind.reading, media_type=kind.media_type
    )

    if needs_search(g, request):
        if options.ask is None:
            raise InputNeeded(
                f"{url} is a search item (gopher type 7): it needs search words; add them "
                "after an encoded TAB, e.g. …/7selector%09words",
                component="search",
                prompt=f"Search words for {url}: ",
            )
        step = Step(b"", "(ask for search words, then resolve the URL with them)", kind="info")
        return Plan(steps=(step,), details=replace(base, mode=Mode.ASK_SEARCH), **common)

    values = [WireValue("selector", selector, "gopher")]
    line = selector
    if request is None:
        if search is not None:
            values.append(WireValue("search", search, "gopher"))
            line += b"\t" + search
        steps = [Step.line(line, shown=_shown(line), values=values, role=GopherRole.REQUEST)]
        return Plan(steps=tuple(steps), details=replace(base, mode=Mode(kind.reading)), **common)

    # §3.4.3 with draft-07's wording: the search goes only when it is not empty.
    if search:
        values.append(WireValue("search", search, "gopher"))
        line += b"\t" + search
    if request.kind == "ask":
        # §3.4.5: fetch the +ASK attribute, ask, then follow the §3.4.9 URL of the answers.
        line += b"\t" + request.command
        steps = [
            Step.line(line, shown=_shown(line), values=values, role=GopherRole.REQUEST),
            Step(
                b"", "(ask the +ASK form's questions, then resolve the filled-in form)", kind="info"
            ),
        ]
        return Plan(steps=tuple(steps), details=replace(base, mode=Mode.ASK), **common)
    if request.kind == "form":
        assert request.block is not None
        values.append(WireValue("gopher_plus", request.command, "gopher"))
        values.extend(
            WireValue(f"gopher_plus[answer {i}]", answer, "line")
            for i, answer in enumerate(request.answers, 1)
        )
        line += b"\t" + request.command + b"\t1"
        steps = [
            Step.line(line, shown=_shown(line), values=values, role=GopherRole.REQUEST),
            Step(request.block, _shown(request.block), kind="message", role=GopherRole.FORM),
        ]
        return Plan(
            steps=tuple(steps), details=replace(base, mode=Mode.GPLUS, view=request.view), **common
        )
    values.append(WireValue("gopher_plus", request.command, "gopher"))
    line += b"\t" + request.command
    mode = {"attributes": Mode.ATTRIBUTES, "directory": Mode.ATTRIBUTES}.get(
        request.kind, Mode.GPLUS
    )
    steps = [Step.line(line, shown=_shown(line), values=values, role=GopherRole.REQUEST)]
    details = replace(base, mode=mode, view=request.view, request=request.kind)
    return Plan(steps=tuple(steps), details=details, **common)


__all__ = ["GopherDetails", "GopherLike", "GopherRole", "Mode", "needs_search", "plan_gopher"]
