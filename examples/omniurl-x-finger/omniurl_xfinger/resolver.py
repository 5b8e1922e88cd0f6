"""The ``x-finger:`` resolver: a pure planner and an async executor (omniurl's contract).

RFC 1288 §2.3: the client connects to port 79, sends one query line ending in CRLF, and the
server answers with text and closes the connection.  The query is ``{Q1}``::

    {Q1} ::= [ {W} | {W}{S}{U} ] {C}      ; {W} = "/W", {U} = user name, {C} = CRLF

The plan is that one line; the user name is tagged with the policy's ``line`` context, so a
CR, LF or NUL smuggled into it is refused before anything is sent.  RFC 1288 §3.2.1's
forwarding queries (``user@host``) turn a Finger server into a relay; this plugin refuses to
plan them.  A user's answer is content, streamed, never buffered; the empty query's answer
(the users logged in, one name a line) is a *listing*: one entry per user, each with its
own ``x-finger:`` URL.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from omniurl.resolvers import Entry, Options, Plan, Resolver, Resource, Step, WireValue
from omniurl.resolvers.errors import PlanError
from omniurl.resolvers.lines import split_lines
from omniurl.resolvers.net import connect
from omniurl.schemes.base import URL

from .spec import FingerOptions
from .url import FingerURL


@dataclass(frozen=True)
class FingerDetails:
    """The plan's typed facts (``plan.details_as(FingerDetails)``): is the answer a list of
    users, and was the verbose answer (``/W``) asked for?"""

    listing: bool
    verbose: bool = False


@dataclass(frozen=True)
class FingerResult:
    """What this resolve found out, typed (``resource.result_as(FingerResult)``): whom the
    query asked about (``""``: the users logged in) and whether it asked for the verbose
    answer (``/W``).  ``to_json()`` is the ``"metadata"`` of ``omniurl get --json``.

    Facts every surface reads whatever the scheme are ``Resource``'s own keyword arguments
    instead (``status=``, ``modified=``, ``total=``, ``validator=``, ``resumed=``); Finger
    (RFC 1288) states none of them."""

    target: str
    verbose: bool

    def to_json(self) -> dict[str, Any]:
        return {"target": self.target, "verbose": self.verbose}


class FingerResolver(Resolver):
    """Resolves ``x-finger:`` URLs (its spec, ``omniurl_xfinger.spec:SPEC``, names it)."""

    schemes = ("x-finger",)

    def plan(self, url: URL, options: Options) -> Plan:
        if not isinstance(url, FingerURL):
            raise PlanError(f"not an x-finger URL: {url}", component="scheme")
        if "@" in url.target:
            raise PlanError(
                "RFC 1288 §3.2.1 forwarding (user@host) is refused: it makes the Finger "
                "server a relay",
                component="target",
            )
        target = url.target.encode("utf-8", "surrogateescape")
        verbose = url.whois or options.of(FingerOptions).verbose
        query = (b"/W " + target if target else b"/W") if verbose else target
        step = Step.line(query, values=[WireValue("target", target, "line")])
        if not query:
            step = Step(data=b"", shown="(empty line: list the users)", kind="send")
        return Plan(
            url=url,
            scheme=url.scheme,
            host=url.hostname,
            port=url.effective_port,
            transport="tcp",
            steps=(step,),
            explicit_port=url.port is not None,
            details=FingerDetails(listing=not target, verbose=verbose),
        )

    async def execute(self, plan: Plan, options: Options) -> Resource:
        assert plan.host is not None and plan.port is not None
        # One stream to the server (the policy's address rules, --resolve and proxies
        # applied; every wait bounded; every failure a typed error).
        stream = await connect(plan.host, plan.port, options)
        try:
            (step,) = plan.steps
            options.note(">", step.shown)
            await stream.write(step.data + b"\r\n", "the query")
        except BaseException:
            await stream.aclose()
            raise

        async def body() -> AsyncIterator[bytes]:
            async for chunk in stream.chunks("the Finger answer"):
                yield chunk

        details = plan.details_as(FingerDetails)
        url = plan.url
        assert isinstance(url, FingerURL)
        result = FingerResult(target=url.target, verbose=details.verbose)
        if details.listing:
            entries = _users(body(), plan, options)
            return Resource(
                plan, kind="listing", entry_stream=entries, close=stream.aclose, result=result
            )
        return Resource(
            plan,
            kind="content",
            body=body(),
            media_type="text/plain",
            close=stream.aclose,
            result=result,
        )


async def _users(
    chunks: AsyncIterator[bytes], plan: Plan, options: Options
) -> AsyncIterator[Entry]:
    """The users logged in, one ``Entry`` per line as the lines arrive (``split_lines``:
    each bounded by ``options.max_line``; a last line without its LF counts), each with the
    URL that fingers that user: the listing's own URL with the user as its target (written
    by the URL class, so an IPv6 host keeps its brackets)."""
    url = plan.url
    assert isinstance(url, FingerURL)
    async for line in split_lines(chunks, options.max_line, what="Finger line"):
        name = line.decode("utf-8", "replace").strip()
        if name:
            entry_url = url.replace(target=name, whois=False, fragment=None)
            yield Entry(name=name, kind="user", url=str(entry_url))
