"""An NNTP client conversation as a pure state machine, in h11's shape: bytes in, events out.

The plan (:mod:`resolvers.nntp.planner`) lists every command line that may be sent, each
conditional one with its :class:`~resolvers.plan.Condition` (:mod:`resolvers.nntp.conditions`);
this machine walks them in order, asks each condition with what the replies have shown
(:class:`~resolvers.nntp.conditions.Seen`), and decides on every status code.  It never
touches a socket: the executor feeds it what the connection received
(:meth:`NNTPMachine.receive_data`, ``b""`` at end of stream) and asks
:meth:`NNTPMachine.next_event` until :data:`NEED_DATA` (read more) or :data:`PAUSED` (the
TLS handshake after ``382``: :meth:`NNTPMachine.tls_started`).  A refusal raises the typed
error from ``next_event``; :meth:`NNTPMachine.abort` then ends the session with the plan's
``QUIT`` (RFC 3977 §5.4) rather than hanging up on a server that is in step.

RFC 3977 as decided here: the greeting (§5.1.1: 200/201, else the server refused us);
CAPABILITIES (101 and its list; 4xx/5xx: an RFC 977 server); STARTTLS (RFC 4642: 382, the
handshake, the capabilities forgotten); MODE READER (200/201, or not understood: harmless;
502: not allowed); GROUP (211; 411: no such group); OVER, then XOVER (RFC 2980), then
LISTGROUP where not understood (500/501/503); LIST ACTIVE, then RFC 977's LIST; ARTICLE
(220; 430/423/420: not found); a 480 anywhere is answered with the plan's AUTHINFO USER and
PASS (RFC 4643 §2.3: PASS on 381, 281 accepted) and the refused command is sent again, once;
483 asks for TLS first.  A multi-line block (§3.1.1) is handed out line by line,
dot-unstuffed, bounded in line length and in total.
"""

from __future__ import annotations

import enum
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from omniurl.resolvers.errors import (
    AuthError,
    ConnectionClosed,
    LimitExceeded,
    NotFound,
    ProtocolError,
    ReplyError,
    ResolveError,
)
from omniurl.resolvers.lines import dot_unstuff
from omniurl.resolvers.plan import Plan, Step

from ..sansio import NEED_DATA, PAUSED, Send, Sentinel
from .conditions import NNTPRole, Seen
from .planner import NNTPDetails, RangeSlot
from .replies import GroupInfo, Reply, parse_capabilities, parse_group, parse_status

#: Replies that say "this server does not have that command" (RFC 3977 §3.2.1): 500 unknown
#: command, 501 syntax error (an RFC 977 server given RFC 3977 arguments), 503 not supported.
NOT_SUPPORTED = (500, 501, 503)
#: RFC 3977 §5.1.1: 200 posting allowed, 201 posting prohibited; both let us read.
GREETING_OK = (200, 201)
#: RFC 4643 §2.3: 480 authentication required, 281 accepted.
AUTH_REQUIRED, AUTH_ACCEPTED = 480, 281
#: RFC 4643 §2.2 / RFC 3977 §3.2.1: 483 means "use TLS first".
ENCRYPTION_REQUIRED = 483
AUTH_ROLES = (NNTPRole.AUTH_USER, NNTPRole.AUTH_PASS)
#: The roles whose success opens a data block the caller reads, and the block's words.
BLOCKS = {
    NNTPRole.ARTICLE: "the article",
    NNTPRole.OVER: "the OVER listing",
    NNTPRole.XOVER: "the XOVER listing",
    NNTPRole.LISTGROUP: "the LISTGROUP listing",
    NNTPRole.LIST_ACTIVE: "the list of newsgroups",
    NNTPRole.LIST: "the list of newsgroups",
}


class State(enum.Enum):
    GREETING = "greeting"
    REPLY = "reply"  # the status line of the command sent
    AUTH_USER = "auth-user"
    AUTH_PASS = "auth-pass"
    CAPABILITIES = "capabilities"  # the capability list's lines, collected here
    TLS = "tls"  # paused: the executor's handshake
    BLOCK = "block"  # a data block's lines, handed out
    QUIT = "quit"
    DONE = "done"


@dataclass(frozen=True)
class Received:
    """A status line arrived (for the transcript)."""

    reply: Reply


@dataclass(frozen=True)
class StartTLS:
    """``382``: run the handshake, then :meth:`NNTPMachine.tls_started`."""


@dataclass(frozen=True)
class BlockStarted:
    """A data block the caller reads follows: the article (ARTICLE) or a listing."""

    role: NNTPRole
    reply: Reply


@dataclass(frozen=True)
class Line:
    """One line of the block, dot-unstuffed, without its CR LF."""

    data: bytes


@dataclass(frozen=True)
class BlockEnded:
    """The block's lone ``.`` arrived."""


@dataclass(frozen=True)
class Done:
    """``QUIT`` was answered (or the server hung up after it): the session is over."""


Event = Received | Send | StartTLS | BlockStarted | Line | BlockEnded | Done


def unexpected(reply: Reply, what: str, *, component: str | None = None) -> Exception:
    if reply.code >= 400:
        return ReplyError(
            f"{what} failed: {reply.line}", component=component, code=reply.code, reply=reply.line
        )
    return ProtocolError(f"unexpected reply to {what}: {reply.line}", component=component)


def fill_range(step: Step, group: GroupInfo, max_articles: int) -> Step:
    """The step with its range filled from the GROUP reply (decimal digits only, never URL
    data): the newest ``max_articles`` articles."""
    if not isinstance(step.detail, RangeSlot):
        return step
    first, last = group.last(max_articles)
    data = step.data.replace(step.detail.placeholder, f"{first}-{last}".encode())
    return Step.line(data, role=step.role)


class NNTPMachine:
    """One session's conversation for one plan (see the module's docstring)."""

    def __init__(self, plan: Plan, *, max_line: int = 65536, max_buffered: int = 1 << 26):
        self.plan = plan
        self.details = plan.details_as(NNTPDetails)
        self.max_line = max_line
        self.max_buffered = max_buffered
        self.seen = Seen()
        self.greeting: Reply | None = None
        self.state = State.GREETING
        self._steps = [
            s
            for s in plan.steps
            if isinstance(s.role, NNTPRole) and s.role not in (*AUTH_ROLES, NNTPRole.TLS)
        ]
        self._auth = [s for s in plan.steps if s.role in AUTH_ROLES]
        self._next = 0
        self._current: Step | None = None
        self._authenticated = False
        self._retried = False
        self._what = "the greeting"
        self._reading = "the reply to the greeting"
        self._block_total = 0
        self._capabilities: list[bytes] = []
        self._buffer = bytearray()
        self._eof = False
        self._events: deque[Event] = deque()
        #: A refusal raised once its reply was handed out (then raised again: no way on).
        self._error: ResolveError | None = None

    # -- the executor's side ---------------------------------------------------------------

    def receive_data(self, data: bytes) -> None:
        if data:
            self._buffer += data
        else:
            self._eof = True

    def next_event(self) -> Event | Sentinel:
        if not self._events and self._error is not None:
            raise self._error
        while not self._events:
            if self.state in (State.TLS, State.DONE):
                return PAUSED
            line = self._next_line()
            if line is None:
                if self._events:
                    break
                return NEED_DATA
            if self.state in (State.BLOCK, State.CAPABILITIES):
                self._on_block_line(line)
                continue
            reply = parse_status(line, what=self._what)
            self._events.append(Received(reply))
            try:
                self._HANDLERS[self.state](self, reply)
            except ResolveError as exc:
                # The reply is handed out first (the transcript shows it), the error next.
                self._events = deque([Received(reply)])
                self._error = exc
        return self._events.popleft()

    def tls_started(self) -> None:
        """RFC 4642 §2.2.2: the capabilities learnt before TLS are forgotten."""
        assert self.state is State.TLS
        self.seen.upgraded = True
        self.seen.capabilities = None
        self._advance()

    def abort(self) -> bool:
        """After a refusal: send the plan's ``QUIT`` (the session is in step); False when
        there is nothing to say (the connection is closed instead)."""
        quit_step = next((s for s in self._steps if s.role is NNTPRole.QUIT), None)
        if quit_step is None or self.state in (State.QUIT, State.DONE, State.BLOCK):
            return False
        if self.greeting is None or self.greeting.code not in GREETING_OK:
            return False  # no session to end: the server refused it
        self._events = deque(e for e in self._events if isinstance(e, Received))
        self._error = None
        self._send(quit_step, State.QUIT)
        return True

    @property
    def waiting_for(self) -> str:
        return self._reading

    @property
    def quitting(self) -> bool:
        return self.state is State.QUIT

    # -- lines -----------------------------------------------------------------------------

    def _next_line(self) -> bytes | None:
        cut = self._buffer.find(b"\n")
        if cut < 0:
            if len(self._buffer) > self.max_line + 2:
                raise LimitExceeded(f"{self._reading}: line longer than {self.max_line} bytes")
            if self._eof:
                self._ended()
            return None
        if cut > self.max_line + 1:
            raise LimitExceeded(f"{self._reading}: line longer than {self.max_line} bytes")
        line = bytes(self._buffer[:cut])
        del self._buffer[: cut + 1]
        return line[:-1] if line.endswith(b"\r") else line

    def _ended(self) -> None:
        if self.state is State.QUIT:
            self.state = State.DONE
            self._events.append(Done())
            return
        if self._buffer:
            raise ConnectionClosed(f"connection closed in the middle of {self._reading}")
        raise ConnectionClosed(f"connection closed while waiting for {self._reading}")

    def _on_block_line(self, raw: bytes) -> None:
        line = dot_unstuff(raw)
        if line is None:
            if self.state is State.CAPABILITIES:
                self.seen.capabilities = parse_capabilities(self._capabilities)
                self._advance()
            else:
                self._events.append(BlockEnded())
                self._advance()
            return
        self._block_total += len(raw) + 2
        if self._block_total > self.max_buffered:
            raise LimitExceeded(
                f"{self._reading} is larger than {self.max_buffered} bytes; stopped reading"
            )
        if self.state is State.CAPABILITIES:
            self._capabilities.append(line)
        else:
            self._events.append(Line(line))

    def _block(self, state: State, what: str) -> None:
        self.state = state
        self._reading = what
        self._block_total = 0

    # -- the steps -------------------------------------------------------------------------

    def _advance(self) -> None:
        """The next step of the plan that is due, sent; a step not due is skipped."""
        while self._next < len(self._steps):
            step = self._steps[self._next]
            self._next += 1
            if step.role is NNTPRole.QUIT:
                self._send(step, State.QUIT)
                return
            if not step.due(self.seen):
                if step.role is NNTPRole.STARTTLS and self.details.require_starttls:
                    raise AuthError(
                        f"{self.plan.host} does not offer STARTTLS (its CAPABILITIES do not "
                        "list it), and --nntp-starttls require asks for TLS; nothing more "
                        "was sent",
                        component="host",
                    )
                continue
            if step.role in (NNTPRole.OVER, NNTPRole.XOVER, NNTPRole.LISTGROUP):
                assert self.seen.group is not None
                step = fill_range(step, self.seen.group, self.details.max_articles)
            self._retried = False
            self._send(step, State.REPLY)
            return
        self.state = State.DONE
        self._events.append(Done())

    def _send(self, step: Step, state: State) -> None:
        if state is State.REPLY:
            self._current = step
        self._what = step.shown
        self._reading = f"the reply to {step.shown}"
        self.state = state
        self._events.append(Send(step, step.data + b"\r\n"))

    # -- replies ---------------------------------------------------------------------------

    def _on_greeting(self, reply: Reply) -> None:
        self.greeting = reply
        if reply.code not in GREETING_OK:
            # §5.1.1: 400 service temporarily unavailable, 502 permanently unavailable.
            from omniurl.resolvers.net import authority

            raise ReplyError(
                f"the NNTP server at {authority(str(self.plan.host), self.plan.port)} refused "
                f"the session: {reply.line}",
                component="host",
                code=reply.code,
                reply=reply.line,
            )
        self._advance()

    def _on_reply(self, reply: Reply) -> None:
        step = self._current
        assert step is not None and isinstance(step.role, NNTPRole)
        if reply.code == AUTH_REQUIRED:
            self._authenticate(reply)
            return
        if reply.code == ENCRYPTION_REQUIRED:
            raise AuthError(
                f"{self.plan.host} requires TLS first ({reply.line}); nntp: URLs are plain text",
                component="host",
            )
        self._ROLES[step.role](self, step, reply)

    def _authenticate(self, trigger: Reply) -> None:
        """RFC 4643 §2.3: the plan's AUTHINFO USER, PASS on 381; the command again, once."""
        host = self.plan.host
        if self._retried:
            raise AuthError(
                f"{host} still asks for authentication after AUTHINFO: {trigger.line}",
                component="host",
            )
        if self._authenticated or not self._auth:
            hint = (
                "the credentials were refused"
                if self._authenticated
                else f"no credentials are configured for {host} (~/.netrc, Options.credentials)"
            )
            raise AuthError(
                f"{host} requires authentication ({trigger.line}); {hint}", component="host"
            )
        self._send(self._auth[0], State.AUTH_USER)

    def _on_auth_user(self, reply: Reply) -> None:
        if self._auth[1].due(reply.code):  # 381 (conditions.auth_pass_due)
            self._send(self._auth[1], State.AUTH_PASS)
            return
        self._on_auth_pass(reply)

    def _on_auth_pass(self, reply: Reply) -> None:
        if reply.code != AUTH_ACCEPTED:
            # 481 rejected, 482 out of sequence, 502 not permitted (RFC 4643 §2.3.2).
            raise AuthError(
                f"{self.plan.host} refused the credentials: {reply.line}", component="host"
            )
        self._authenticated = True
        self._retried = True
        assert self._current is not None
        self._send(self._current, State.REPLY)

    def _on_quit(self, reply: Reply) -> None:
        self.state = State.DONE
        self._events.append(Done())

    # -- one decision per role -------------------------------------------------------------

    def _capabilities_reply(self, step: Step, reply: Reply) -> None:
        if reply.code == 101:
            self._capabilities = []
            self._block(State.CAPABILITIES, "the capability list")
        elif reply.code >= 400:
            self.seen.capabilities = None  # RFC 977 servers answer 500: none known
            self._advance()
        else:
            raise unexpected(reply, "CAPABILITIES")

    def _starttls_reply(self, step: Step, reply: Reply) -> None:
        if reply.code == 382:
            self.state = State.TLS
            self._events.append(StartTLS())
            return
        if self.details.require_starttls or reply.code not in (*NOT_SUPPORTED, 502, 580):
            raise ReplyError(
                f"{self.plan.host} refused STARTTLS: {reply.line}",
                component="host",
                code=reply.code,
                reply=reply.line,
            )
        self._advance()  # auto: a server that lists STARTTLS but refuses it stays plain

    def _mode_reader_reply(self, step: Step, reply: Reply) -> None:
        if reply.code in (200, 201) or reply.code in NOT_SUPPORTED:
            self._advance()
        elif reply.code == 502:
            raise ReplyError(
                f"{self.plan.host} does not let this client read news: {reply.line}",
                component="host",
                code=reply.code,
                reply=reply.line,
            )
        else:
            raise unexpected(reply, "MODE READER")

    def _group_reply(self, step: Step, reply: Reply) -> None:
        if reply.code == 411:
            raise NotFound(
                f"no such newsgroup on {self.plan.host}: {reply.line}",
                component="newsgroup",
                code=reply.code,
                reply=reply.line,
            )
        if reply.code != 211:
            raise unexpected(reply, "GROUP", component="newsgroup")
        self.seen.group = parse_group(reply)
        self._advance()

    def _overview_reply(self, step: Step, reply: Reply) -> None:
        """OVER, or XOVER (RFC 2980 §2.8) when OVER was not understood."""
        assert isinstance(step.role, NNTPRole)
        if reply.code in NOT_SUPPORTED:
            self.seen.fell_back.add(step.role)
            self._advance()
        elif reply.code in (420, 423):  # §8.3.2: no articles in that range: empty
            self._advance()
        elif reply.code != 224:
            raise unexpected(reply, step.role.upper(), component="newsgroup")
        else:
            self._started(step.role, reply)

    def _listgroup_reply(self, step: Step, reply: Reply) -> None:
        if reply.code != 211:
            raise unexpected(reply, "LISTGROUP", component="newsgroup")
        self._started(NNTPRole.LISTGROUP, reply)

    def _list_reply(self, step: Step, reply: Reply) -> None:
        """LIST ACTIVE (RFC 3977 §7.6.3), or RFC 977's bare LIST when not understood."""
        assert isinstance(step.role, NNTPRole)
        if step.role is NNTPRole.LIST_ACTIVE and reply.code in (500, 501):
            self.seen.fell_back.add(step.role)
            self._advance()
        elif reply.code != 215:
            raise unexpected(reply, step.shown)
        else:
            self._started(step.role, reply)

    def _article_reply(self, step: Step, reply: Reply) -> None:
        # RFC 3977 §6.2.1.2: 430 no article with that message-id; 423 no article with that
        # number; 420 current article number invalid; 412 no newsgroup selected.
        if reply.code == 220:
            self._started(NNTPRole.ARTICLE, reply)
        elif reply.code == 430:
            raise NotFound(
                f"no article with that message-id: {reply.line}",
                component="message_id",
                code=reply.code,
                reply=reply.line,
            )
        elif reply.code in (423, 420):
            raise NotFound(
                f"no article with that number in the group: {reply.line}",
                component="article",
                code=reply.code,
                reply=reply.line,
            )
        else:
            raise unexpected(reply, "ARTICLE", component="article")

    def _started(self, role: NNTPRole, reply: Reply) -> None:
        self._block(State.BLOCK, BLOCKS[role])
        self._events.append(BlockStarted(role, reply))

    _HANDLERS: ClassVar[dict[State, Callable[[NNTPMachine, Reply], None]]] = {
        State.GREETING: _on_greeting,
        State.REPLY: _on_reply,
        State.AUTH_USER: _on_auth_user,
        State.AUTH_PASS: _on_auth_pass,
        State.QUIT: _on_quit,
    }
    _ROLES: ClassVar[dict[NNTPRole, Callable[[NNTPMachine, Step, Reply], None]]] = {
        NNTPRole.CAPABILITIES: _capabilities_reply,
        NNTPRole.STARTTLS: _starttls_reply,
        NNTPRole.MODE_READER: _mode_reader_reply,
        NNTPRole.GROUP: _group_reply,
        NNTPRole.OVER: _overview_reply,
        NNTPRole.XOVER: _overview_reply,
        NNTPRole.LISTGROUP: _listgroup_reply,
        NNTPRole.LIST_ACTIVE: _list_reply,
        NNTPRole.LIST: _list_reply,
        NNTPRole.ARTICLE: _article_reply,
    }


__all__ = [
    "BLOCKS",
    "NEED_DATA",
    "NOT_SUPPORTED",
    "PAUSED",
    "BlockEnded",
    "BlockStarted",
    "Done",
    "Event",
    "Line",
    "NNTPMachine",
    "Received",
    "Send",
    "StartTLS",
    "State",
    "fill_range",
    "unexpected",
]
