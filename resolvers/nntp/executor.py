"""Carry out an NNTP plan: exactly its steps, in order, conditional ones only when due.

The steps carry a typed ``role`` (:class:`~resolvers.nntp.conditions.NNTPRole`); whether a
conditional step is due (``MODE READER`` after CAPABILITIES, ``XOVER`` after OVER failed...)
is the step's own condition's answer (:mod:`resolvers.nntp.conditions`, pure), asked with
what the replies have shown; this module moves the bytes and turns the data blocks into a
:class:`Resource`: an article is streamed as it arrives (dot-unstuffed, CRLF line ends,
RFC 5536's canonical form), a listing of articles or groups is read whole (bounded) into
entries.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field

from omniurl.resolvers.errors import (
    AuthError,
    LimitExceeded,
    NotFound,
    PlanError,
    ProtocolError,
    ReplyError,
)
from omniurl.resolvers.options import Options
from omniurl.resolvers.plan import Plan, Step
from omniurl.resolvers.resource import Entry, Resource
from omniurl.schemes.news import NewsURL

from .conditions import NNTPRole, Seen
from .grammar import news_url_for_group, news_url_for_message_id, nntp_url, wildmat_matches
from .planner import NNTPDetails, RangeSlot
from .replies import (
    GroupInfo,
    Reply,
    parse_active,
    parse_article_number,
    parse_capabilities,
    parse_group,
    parse_overview,
)
from .session import NNTPSession

#: Replies that say "this server does not have that command" (RFC 3977 §3.2.1): 500 unknown
#: command, 501 syntax error (an RFC 977 server given RFC 3977 arguments), 503 not supported.
NOT_SUPPORTED = (500, 501, 503)
AUTH_ROLES = (NNTPRole.AUTH_USER, NNTPRole.AUTH_PASS)


@dataclass
class _State(Seen):
    """What the replies so far have told us (:class:`Seen`, which the conditions decide on),
    and what the listing has gathered."""

    entries: list[Entry] | None = None
    metadata: dict[str, object] = field(default_factory=dict)
    #: A listing's entries as they arrive, once its data block has begun (the rest of the
    #: plan — QUIT — runs when the caller has read them all).
    stream: AsyncIterator[Entry] | None = None


async def execute(plan: Plan, options: Options) -> Resource:
    """Connect, greet, walk the plan's steps; return the article (streamed) or a listing."""
    if plan.host is None or plan.port is None:
        raise PlanError("an NNTP plan names its server", component="host")
    auth = [s for s in plan.steps if s.role in AUTH_ROLES]
    details = plan.details_as(NNTPDetails)
    session, greeting = await NNTPSession.open(
        plan.host, plan.port, options, auth_steps=auth, tls=details.tls
    )
    state = _State(metadata={"greeting": greeting.line})
    try:
        for index, step in enumerate(plan.steps):
            role = step.role
            if role is NNTPRole.ARTICLE:
                return await _article(plan, session, step, plan.steps[index + 1 :])
            if role is NNTPRole.QUIT:
                await session.quit(step)
            elif role in AUTH_ROLES or role is NNTPRole.TLS:
                continue  # AUTHINFO: sent on a 480 by the session; TLS: part of the connect
            elif isinstance(role, NNTPRole):
                await _STEPS[role](plan, session, step, state, options)
                if state.stream is not None:
                    return _streamed(plan, session, state, plan.steps[index + 1 :])
            else:
                raise PlanError(f"an NNTP plan step without an NNTP role: {step.shown}")
    except ReplyError:
        # The server refused a command but the session is in step: end it with the plan's
        # QUIT (RFC 3977 §5.4) rather than hanging up on it.
        await _quit(session, plan.steps)
        raise
    except BaseException:
        await session.close()
        raise
    return Resource(
        plan,
        kind="listing",
        entries=state.entries or [],
        replies=session.replies,
        metadata=state.metadata,
    )


def _streamed(plan: Plan, session: NNTPSession, state: _State, rest: Sequence[Step]) -> Resource:
    """A listing whose entries the caller reads as they arrive; the plan's last steps (QUIT)
    follow the last entry.  A caller that stops early closes the connection instead."""
    stream = state.stream
    assert stream is not None

    async def entries() -> AsyncIterator[Entry]:
        try:
            async for entry in stream:
                yield entry
            await _quit(session, rest)
        finally:
            await session.close()

    return Resource(
        plan,
        kind="listing",
        entry_stream=entries(),
        replies=session.replies,
        metadata=state.metadata,
        close=session.close,
    )


# -- one function per role ----------------------------------------------------------------


async def _capabilities(
    plan: Plan, session: NNTPSession, step: Step, state: _State, options: Options
) -> None:
    if not step.due(state):
        return
    reply = await session.command(step)
    if reply.code == 101:
        state.capabilities = parse_capabilities(await session.collect("the capability list"))
        state.metadata["capabilities"] = sorted(state.capabilities)
    elif reply.code >= 400:
        state.capabilities = None  # RFC 977 servers answer 500: no capabilities known
    else:
        raise _unexpected(reply, "CAPABILITIES")


async def _starttls(
    plan: Plan, session: NNTPSession, step: Step, state: _State, options: Options
) -> None:
    """RFC 4642: STARTTLS when CAPABILITIES lists it; ``382`` then the handshake; the
    capabilities are forgotten (§2.2.2: the plan asks for them again)."""
    details = plan.details_as(NNTPDetails)
    if not step.due(state):
        if details.require_starttls:
            raise AuthError(
                f"{plan.host} does not offer STARTTLS (its CAPABILITIES do not list it), and "
                "--nntp-starttls require asks for TLS; nothing more was sent",
                component="host",
            )
        return
    reply = await session.command(step)
    if reply.code != 382:
        if details.require_starttls or reply.code not in (*NOT_SUPPORTED, 502, 580):
            raise ReplyError(
                f"{plan.host} refused STARTTLS: {reply.line}",
                component="host",
                code=reply.code,
                reply=reply.line,
            )
        return  # auto: a server that lists STARTTLS but refuses it stays plain text
    assert plan.port is not None
    await session.start_tls(plan.port)
    state.upgraded = True
    state.capabilities = None
    state.metadata["tls"] = "STARTTLS"


async def _mode_reader(
    plan: Plan, session: NNTPSession, step: Step, state: _State, options: Options
) -> None:
    """RFC 3977 §5.3: MODE READER only to a server that lists MODE-READER (a mode-switching
    server such as INN's innd, which hands the connection to nnrpd), never when READER is
    already listed; an RFC 977 server cannot tell us, so it gets one (500 is harmless).

    §5.3 says the capabilities may change after MODE READER; no later step depends on them
    (OVER falls back on its reply), so the plan does not ask for them again."""
    if not step.due(state):
        return
    reply = await session.command(step)
    if reply.code in (200, 201) or reply.code in NOT_SUPPORTED:
        return
    if reply.code == 502:
        raise ReplyError(
            f"{plan.host} does not let this client read news: {reply.line}",
            component="host",
            code=reply.code,
            reply=reply.line,
        )
    raise _unexpected(reply, "MODE READER")


async def _group(
    plan: Plan, session: NNTPSession, step: Step, state: _State, options: Options
) -> None:
    reply = await session.command(step)
    if reply.code == 411:
        raise NotFound(
            f"no such newsgroup on {plan.host}: {reply.line}",
            component="newsgroup",
            code=reply.code,
            reply=reply.line,
        )
    if reply.code != 211:
        raise _unexpected(reply, "GROUP", component="newsgroup")
    state.group = parse_group(reply)
    state.metadata.update(count=state.group.count, low=state.group.low, high=state.group.high)
    state.entries = []


async def _overview(
    plan: Plan, session: NNTPSession, step: Step, state: _State, options: Options
) -> None:
    """OVER, or XOVER when OVER was not understood (RFC 2980 §2.8 is its RFC 977-era twin)."""
    role = step.role
    if not step.due(state) or role is None:
        return
    assert state.group is not None
    reply = await session.command(_fill_range(step, state.group, plan))
    if reply.code in NOT_SUPPORTED:
        state.fell_back.add(role)
        return
    if reply.code in (420, 423):  # §8.3.2: no articles in that range: an empty listing
        return
    if reply.code != 224:
        raise _unexpected(reply, role.upper(), component="newsgroup")
    group = _group_name(plan)
    asked = plan.details_as(NNTPDetails).max_articles
    state.stream = _overview_entries(plan, session, role.upper(), group, asked)


async def _overview_entries(
    plan: Plan, session: NNTPSession, verb: str, group: bytes, asked: int
) -> AsyncIterator[Entry]:
    """OVER/XOVER's lines as entries, as they arrive (a listing is never held whole)."""
    count = 0
    async for line in session.data_lines(f"the {verb} listing"):
        count += 1
        _within(count, asked, f"{verb} (asked for at most {asked} articles)")
        ov = parse_overview(line)
        info: dict[str, object] = {
            "number": ov.number,
            "subject": ov.subject,
            "from": ov.from_,
            "date": ov.date,
            "message_id": ov.message_id.decode("utf-8", "replace"),
            "references": ov.references,
            "bytes": ov.bytes,
            "lines": ov.lines,
            "news_url": news_url_for_message_id(ov.message_id),
        }
        yield Entry(
            name=ov.subject or "(no subject)",
            kind="article",
            url=nntp_url(str(plan.host), int(plan.port or 119), group, ov.number),
            info=info,
        )


async def _listgroup(
    plan: Plan, session: NNTPSession, step: Step, state: _State, options: Options
) -> None:
    """The last fallback: article numbers without subjects (RFC 3977 §6.1.2)."""
    if not step.due(state):
        return
    assert state.group is not None
    reply = await session.command(_fill_range(step, state.group, plan))
    if reply.code != 211:
        raise _unexpected(reply, "LISTGROUP", component="newsgroup")
    group = _group_name(plan)
    asked = plan.details_as(NNTPDetails).max_articles

    async def entries() -> AsyncIterator[Entry]:
        count = 0
        async for line in session.data_lines("the LISTGROUP listing"):
            count += 1
            _within(count, asked, f"LISTGROUP (asked for at most {asked} articles)")
            number = parse_article_number(line)
            yield Entry(
                name=f"article {number}",
                kind="article",
                url=nntp_url(str(plan.host), int(plan.port or 119), group, number),
                info={"number": number},
            )

    state.stream = entries()


async def _list(
    plan: Plan, session: NNTPSession, step: Step, state: _State, options: Options
) -> None:
    """LIST ACTIVE (RFC 3977 §7.6.3), or RFC 977's bare LIST when that is not understood."""
    role = step.role
    if not step.due(state) or role is None:
        return
    reply = await session.command(step)
    if role is NNTPRole.LIST_ACTIVE and reply.code in (500, 501):
        state.fell_back.add(role)
        return
    if reply.code != 215:
        raise _unexpected(reply, step.shown)
    limit = options.max_entries
    wildmat = plan.details_as(NNTPDetails).wildmat
    server = _server_prefix(plan)

    async def entries() -> AsyncIterator[Entry]:
        count = 0
        async for line in session.data_lines("the list of newsgroups"):
            active = parse_active(line)
            # an RFC 977 server listed every group: keep the wildmat's (RFC 3977 §4.2)
            if (
                role is NNTPRole.LIST
                and wildmat is not None
                and not wildmat_matches(wildmat, active.group)
            ):
                continue
            count += 1
            if limit is not None:
                _within(count, limit, "the list of newsgroups (--max-entries)")
            url = news_url_for_group(active.group)
            yield Entry(
                name=active.group.decode("utf-8", "replace"),
                kind="group",
                url=url if server is None else server + url[len("news:") :],
                info={"high": active.high, "low": active.low, "status": active.status},
            )

    state.stream = entries()


def _server_prefix(plan: Plan) -> str | None:
    """``news://server[:port]/`` (or ``snews://``) when the URL named its server (RFC 5538),
    so that a listed group is read from the same server; None for RFC 1738's ``news:``."""
    url = plan.url
    if not isinstance(url, NewsURL) or url.host is None:
        return None
    port = "" if url.port is None else f":{url.port}"
    return f"{url.scheme}://{url.host}{port}/"


_STEPS = {
    NNTPRole.CAPABILITIES: _capabilities,
    NNTPRole.STARTTLS: _starttls,
    NNTPRole.MODE_READER: _mode_reader,
    NNTPRole.GROUP: _group,
    NNTPRole.OVER: _overview,
    NNTPRole.XOVER: _overview,
    NNTPRole.LISTGROUP: _listgroup,
    NNTPRole.LIST_ACTIVE: _list,
    NNTPRole.LIST: _list,
}


# -- the article --------------------------------------------------------------------------


async def _article(plan: Plan, session: NNTPSession, step: Step, rest: Sequence[Step]) -> Resource:
    reply = await session.command(step)
    if reply.code != 220:
        raise _article_error(reply)
    resource = Resource(
        plan,
        kind="content",
        body=_article_body(session, rest),
        media_type="message/rfc822",
        metadata={"reply": reply.line},
        close=session.close,
    )
    resource.replies = session.replies  # the same list: QUIT's reply joins it at the end
    return resource


async def _article_body(session: NNTPSession, rest: Sequence[Step]) -> AsyncIterator[bytes]:
    """The article's lines with CRLF, in chunks of up to ``chunk_size``; then the plan's
    remaining steps (QUIT)."""
    limit = session.options.chunk_size
    buffer = bytearray()
    async for line in session.data_lines("the article"):
        buffer += line + b"\r\n"
        if len(buffer) >= limit:
            yield bytes(buffer)
            buffer.clear()
    if buffer:
        yield bytes(buffer)
    await _quit(session, rest)


async def _quit(session: NNTPSession, steps: Sequence[Step]) -> None:
    for step in steps:
        if step.role is NNTPRole.QUIT:
            await session.quit(step)
            return
    await session.close()


def _article_error(reply: Reply) -> Exception:
    # RFC 3977 §6.2.1.2: 430 no article with that message-id; 423 no article with that
    # number; 420 current article number invalid; 412 no newsgroup selected.
    if reply.code == 430:
        return NotFound(
            f"no article with that message-id: {reply.line}",
            component="message_id",
            code=reply.code,
            reply=reply.line,
        )
    if reply.code in (423, 420):
        return NotFound(
            f"no article with that number in the group: {reply.line}",
            component="article",
            code=reply.code,
            reply=reply.line,
        )
    return _unexpected(reply, "ARTICLE", component="article")


# -- helpers ------------------------------------------------------------------------------


def _within(count: int, limit: int, what: str) -> None:
    """A reply longer than what was asked for is refused, never held (a server can send an
    OVER reply that never ends): :class:`LimitExceeded` at the first entry too many."""
    if count > limit:
        raise LimitExceeded(
            f"{what}: the server sent more than {limit} entries", component="newsgroup"
        )


def _fill_range(step: Step, group: GroupInfo, plan: Plan) -> Step:
    """The step with its range filled from the GROUP reply (decimal digits only, never URL
    data): the newest ``max_articles`` articles."""
    if not isinstance(step.detail, RangeSlot):
        return step
    first, last = group.last(plan.details_as(NNTPDetails).max_articles)
    text = f"{first}-{last}".encode()
    data = step.data.replace(step.detail.placeholder, text)
    return Step.line(data, role=step.role)


def _group_name(plan: Plan) -> bytes:
    group = plan.details_as(NNTPDetails).group
    return group if isinstance(group, bytes) else b""


def _unexpected(reply: Reply, what: str, *, component: str | None = None) -> Exception:
    if reply.code >= 400:
        return ReplyError(
            f"{what} failed: {reply.line}", component=component, code=reply.code, reply=reply.line
        )
    return ProtocolError(f"unexpected reply to {what}: {reply.line}", component=component)
