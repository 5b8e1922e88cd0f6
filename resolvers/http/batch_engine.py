"""The batch's lean HTTP engine: a plain ``http://`` GET of many small files, one connection's
socket watched for its whole life, each reply read in the loop's reader callback.

Why: a small file through the general path (:func:`omniurl.resolvers.core.resolve`) passes
through the core's follow loop, a setup ``asyncio.timeout``, the pool's lease, a
:class:`~resolvers.net.Stream` that adds and removes its socket from the selector at each
wait, three async generators for the body and the resource's guarded iterator: ~0.45 ms of
Python a file against curl's 0.14 ms of everything (docs/speed.md, *Batches*).  This engine
keeps what makes the bytes right and drops the layering around it:

- the request is the URL's plan, rendered by the planner and checked by the policy for every
  URL before its first byte (:meth:`Engine.request`: the first URL of each server planned
  and checked whole, the next ones from its template, only their target changing and
  checked; a refused URL is handed to the general path, which refuses it — nothing is
  sent);
- connections are opened by :func:`resolvers.net.connect` (the policy's address rules,
  ``--resolve``), kept per server, and watched by the loop once for their whole life
  (``loop.add_reader``): a reply is read and parsed in the reader callback by the project's
  own :class:`~resolvers.http.reply.ReplyReader` (llhttp and its checks), and the waiting
  transfer is woken once, when its reply has an outcome;
- issue 30's rules hold: a connection is kept only when the reply says so (HTTP/1.1, no
  ``Connection: close``, not framed twice) and no byte is left past its end (in the reader;
  in the kernel, peeked before reuse; a byte or the close arriving while it is idle ends
  it); a kept connection closed before the first byte of a reply has its (idempotent)
  request sent again on a new connection, the general path's rule (:class:`StaleConnection`);
- one timer a request: a wait without a byte for ``--timeout`` seconds ends it with the
  general path's :class:`ResolveTimeout` (its words); a head still incomplete after
  ``--speed-time`` (or a connect that outlasts it, or fails) goes on through the general
  path, the time spent counted against its limits (:func:`resolvers.deadline.count_spent`),
  and a body is judged by the low-speed limit as the general path's resource judges it
  (:class:`~resolvers.deadline.Guard`: the window from the head's end);
- with ``OMNIURL_BATCH_PIPELINE=N`` (off by default; :meth:`Engine.pipeline`), up to N
  GETs are in flight on each connection (RFC 9112 §9.3.2), the ones made in one turn of the
  loop sent in one ``send``; the requests a connection leaves unanswered (a close, a reply
  without keep-alive, one handed over or broken off) are sent again on another connection,
  and that server gets no more pipelining;
- idle connections are bounded as the general path's pool bounds them (the client's
  ``max_keepalive_connections`` in all, none reused past ``keepalive_expiry``);
- the body goes to the batch's files (:class:`omniurl.batch._Files`: no name until
  complete), and its row is made as :func:`omniurl.batch._fetch_one` makes it.

Anything else is the general path's: a reply that is not a 200 with a ``Content-Length`` of
at most :data:`resolvers.batching.HELD_BODY` (a redirect, an error status, chunked or
close-framed bodies, large files), a malformed head or a connection lost before the head's
end — handed over *with the exchange as it stands* (the request already sent, the bytes
already read: :class:`resolvers.http.executor.Prepared`), so the general path carries on from
there and nothing is sent twice; the batch's row, file and exit status are then the general
path's own (tests/test_batch_lean.py runs the same batches through both).  A body that
breaks off after a 200's head (the close, a timeout) is the engine's row, in the general
path's words.  Which batches use the engine at all: :func:`eligible`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from omniurl.resolvers.batching import HELD_BODY as HELD
from omniurl.resolvers.deadline import Guard
from omniurl.resolvers.errors import (
    ConnectionClosed,
    PoolTimeout,
    ResolveError,
    ResolveTimeout,
    TooSlow,
)
from omniurl.resolvers.http.connection import Connection, StaleConnection, asks_close
from omniurl.resolvers.http.executor import PREPARED, Prepared
from omniurl.resolvers.http.planner import (
    HTTPRole,
    Origin,
    credentials_for,
    origin_of,
    plan_http,
    request_head,
    request_line_around,
    request_target,
)
from omniurl.resolvers.http.reply import NEED_DATA, Data, End, Head, ReplyReader
from omniurl.resolvers.net import Stream, connect
from omniurl.resolvers.options import ClientLimits, Options
from omniurl.resolvers.plan import WireValue
from omniurl.resolvers.policy import Policy
from omniurl.resolvers.slots import Slots
from omniurl.schemes.errors import OmniurlError
from omniurl.schemes.http import HTTPURL

if TYPE_CHECKING:
    from omniurl.resolvers.plan import Plan

T = TypeVar("T")

#: Bytes asked of the socket per read (the reply of a small file comes whole in one).
READ = 64 * 1024


def eligible(options: Options) -> bool:
    """Whether a batch under ``options`` may use the engine for its ``http://`` URLs: none of
    the options that change the exchange beyond a plain GET and its reply — a proxy (``-x``,
    ``--proxy-env``), a transcript (``-v``) or trace (``-w``), ``-u``, ``-I``,
    ``--compressed``, ``-C``, ``--max-time``, a person asked (``ask``) — and ``http:``
    served by the built-in resolver (not a plugin's).  ``-H``, ``--resolve``, ``--timeout``,
    the policy and the per-server limits apply as they do on the general path.  Per URL,
    :meth:`Engine.request` leaves to the general path a userinfo, a netrc login for its
    host and a plan the policy refuses."""
    from omniurl.resolvers import registry
    from omniurl.resolvers.http import HTTPResolver

    return (
        type(registry.get("http")) is HTTPResolver  # (not a plugin's resolver of http:)
        and options.proxy is None
        and not options.trust_env
        and options.transcript is None
        and options.trace is None
        and options.user is None
        and not options.head
        and not options.compressed
        and options.resume_from == 0
        and options.resume_validator is None
        and options.max_time is None
        and options.max_filesize is None  # (--max-filesize: the general path's Resource)
        and options.ask is None
    )


class _Exchange:
    """One request's reply, read in the connection's reader callback."""

    __slots__ = (
        "answered",
        "behind",
        "body",
        "conn",
        "error",
        "guard",
        "head",
        "kept",
        "last",
        "outcome",
        "reader",
        "reused",
        "speed",
        "started",
        "waiter",
    )

    def __init__(self, conn: _Conn, now: float, speed: tuple[int, float] | None) -> None:
        self.conn = conn
        #: The transfer waiting for this exchange's outcome (woken once).
        self.waiter: asyncio.Future[None] | None = None
        #: A byte of this reply came.
        self.answered = False
        #: The connection carried (or carries, pipelined) a request before this one: a
        #: close before a byte of this reply is then the server's (:class:`StaleConnection`:
        #: the request is sent again, RFC 9112 §9.3.1 and, pipelined, §9.3.2).
        self.reused = False
        #: It was pipelined behind another request: a reply that does not begin as one
        #: (bytes no head, or none within ``--timeout``) is the connection's fault — a
        #: server that sent bytes behind a reply, or ignores pipelined requests — and the
        #: request is sent again on a connection of its own (the server pipelined no more).
        self.behind = False
        #: The head lets the connection carry another request (RFC 9112 §9.3, §6.1).
        self.kept = False
        self.reader = ReplyReader("GET")
        self.head: Head | None = None
        self.body: list[bytes] = []
        #: "done": the engine has the whole reply; "failed": its body broke off (the
        #: engine's row says why, in the general path's words); "handoff": the general path
        #: takes the exchange from here; "stale": a kept connection ended before a byte of
        #: the reply (sent again on a new connection, the general path's rule).
        self.outcome = ""
        self.error: BaseException | None = None
        self.started = self.last = now
        #: The low-speed limit (``speed_limit``, ``speed_time``; None: off) and, once a
        #: body has to be waited for, the general path's :class:`Guard` over it: its window
        #: counts from the head's end, as the general path's resource counts its content.
        self.speed = speed
        self.guard: Guard | None = None


class _Conn:
    """One kept connection: its socket watched by the loop from connect to close, each
    reply read and parsed in the loop's reader callback (:meth:`_readable`), the waiting
    transfer woken once (:attr:`waiter`) when its exchange has an outcome."""

    __slots__ = (
        "asked_close",
        "dead",
        "engine",
        "exchange",
        "fd",
        "flushing",
        "loop",
        "origin",
        "outbox",
        "queue",
        "reused",
        "sock",
        "spoke_first",
        "stream",
        "timer",
        "writer",
        "writing",
    )

    def __init__(self, stream: Stream, origin: Origin, engine: Engine) -> None:
        self.stream = stream
        self.sock = stream.sock
        self.fd = self.sock.fileno()
        self.origin = origin
        self.engine = engine
        self.loop = asyncio.get_running_loop()
        #: The exchange whose reply is being read (kept, with its outcome, until the next
        #: one takes its place or the connection goes back to the engine).
        self.exchange: _Exchange | None = None
        #: Pipelined exchanges (RFC 9112 §9.3.2; :meth:`Engine.pipeline`): sent after
        #: :attr:`exchange`, their replies to come in this order.
        self.queue: deque[_Exchange] = deque()
        #: Pipelined requests not yet sent, and whether :meth:`_flush` is due: the ones
        #: made in one turn of the loop go out in one ``send`` (measured: docs/speed.md).
        self.outbox: list[bytes] = []
        self.flushing = False
        #: The rest of a request is being written (nothing may be sent behind it yet).
        self.writing = False
        self.writer: asyncio.Task[None] | None = None
        #: It carried a request before the one now sent (a close before a byte of this
        #: reply is then the server's idle close: :class:`StaleConnection`).
        self.reused = False
        #: It may not carry another request (issue 30's rules; closed when handed back).
        self.dead = False
        #: The request now sent said ``Connection: close`` (RFC 9112 §9.6): not reused.
        self.asked_close = False
        #: The server sent bytes before the first request went out (:meth:`Stream.spoke_first`,
        #: asked in :meth:`Engine._exchange`): out of step with its requests, never reused.
        self.spoke_first = False
        #: The connection's one timer (:meth:`Engine._expire`), kept from one request to
        #: the next: a request's deadline is never earlier than the one before it, so the
        #: timer set for an earlier request fires first and sets itself again for the
        #: request then waiting (or ends, when none is).  One timer a connection instead
        #: of one made and cancelled a request (:meth:`Engine._exchange`).
        self.timer: asyncio.TimerHandle | None = None
        self.loop.add_reader(self.fd, self._readable)

    def _readable(self) -> None:
        x = self.exchange
        try:
            data = self.sock.recv(READ)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as exc:
            self._unwatch()
            self.dead = True
            if x is not None and not x.outcome:
                what = "the reply" if x.head is None else "the body"
                self._broke(x, ConnectionClosed(f"connection lost while reading {what}: {exc}"))
            return
        if x is None or x.outcome:
            # a byte nobody asked for, or the close, while idle: never reused (issue 30)
            self.dead = True
            self._unwatch()
            return
        if data:
            x.last = self.loop.time()
        else:
            self._unwatch()
            self.dead = True
        while True:
            rest = self._read(x, data)
            if rest is None:
                return
            # x is whole: the next pipelined exchange reads the bytes after its reply
            after = self._advance()
            if after is None or not rest:
                return
            x, data = after, rest

    def _read(self, x: _Exchange, data: bytes) -> bytes | None:
        """``data`` given to ``x``'s reply; when that makes it whole, the bytes after its
        end (b"": none), else None (more to come, or ``x`` ended otherwise)."""
        if data:
            x.answered = True
        reader = x.reader
        reader.receive_data(data)
        try:
            if x.head is None:
                event = reader.next_event()
                if event is NEED_DATA:
                    return None
                assert isinstance(event, Head)
                x.head = event
                # (a length framing has no Transfer-Encoding: never framed twice)
                if event.status != 200 or reader.framing != "length" or reader.remaining > HELD:
                    self._finish(x, "handoff")
                    return None
                x.kept = reader.reuse_refused is None
            got = 0
            while True:
                event = reader.next_event()
                if event is NEED_DATA:
                    if x.speed is not None:
                        guard = x.guard
                        if guard is None:  # (the head came in this read: the content begins)
                            limit, seconds = x.speed
                            guard = x.guard = Guard(
                                speed_limit=limit, speed_time=seconds, clock=self.loop.time
                            )
                            guard.start_content()
                        guard.observe(got)  # (TooSlow as the general path's resource says it)
                    return None
                if type(event) is Data:
                    x.body.append(event.data)
                    got += len(event.data)
                    continue
                assert isinstance(event, End)
                if x.guard is not None:
                    x.guard.observe(got)  # (the last piece is judged too, as there)
                # Kept only when the reply says so and no byte is left behind it (issue 30,
                # Connection._reusable's rules) — but the next pipelined reply's.  The
                # kernel's buffer is asked before reuse (:meth:`usable`); meanwhile the loop
                # still watches the socket, so a byte or the close arriving behind the
                # reply ends the connection (the idle branch above): one peek a request
                # instead of the general path's two.
                rest = reader.rest()
                if not x.kept or self.asked_close or (rest and not self.queue):
                    self.dead = True
                self._finish(x, "done")
                return rest
        except (OmniurlError, ResolveError) as exc:
            self._broke(x, exc)
            return None

    def _advance(self) -> _Exchange | None:
        """The next pipelined exchange, now that the current one is whole: it becomes the
        current one (its waits counted from now), or, on a connection that may carry no
        more, every one still queued is sent again elsewhere (None)."""
        if not self.queue:
            return None
        if self.dead:
            self._abandon()
            return None
        # (a queued exchange has no outcome: only _abandon gives one, emptying the queue —
        # _finish and close() call it for the current exchange's end, _flush and
        # _write_rest for a send that failed)
        x = self.exchange = self.queue.popleft()
        x.started = x.last = self.loop.time()
        if self.timer is None:
            self.engine._arm(self, x)
        return x

    def _abandon(self) -> None:
        """Every pipelined exchange not yet answered is sent again on another connection
        (RFC 9112 §9.3.2: "retry unanswered requests if the connection closes before it
        receives all of the corresponding responses"; GET is idempotent, RFC 9110 §9.2.2):
        their requests went out, but this connection will carry no reply of theirs."""
        queue, self.queue = self.queue, deque()
        self.outbox.clear()
        for x in queue:
            if not x.outcome:
                x.error = StaleConnection("the connection ended before this pipelined reply")
                self._finish(x, "stale")
        if queue:
            self.engine._serial.add(self.origin)  # (no more pipelining to this server)

    def _flush(self) -> None:
        """Send the pipelined requests made since the last turn of the loop, in one go."""
        self.flushing = False
        out = self.outbox
        if not out or self.dead:
            out.clear()
            return
        data = out[0] if len(out) == 1 else b"".join(out)
        out.clear()
        try:
            sent = self.sock.send(data)
        except (BlockingIOError, InterruptedError):
            sent = 0
        except OSError:
            self.dead = True  # (the reply now read may still come whole; the rest elsewhere)
            self._abandon()
            return
        if sent < len(data):
            self.writing = True
            self.writer = self.loop.create_task(self._write_rest(data[sent:]))

    async def _write_rest(self, rest: bytes) -> None:
        try:
            await self.stream.write(rest, "the request")
        except ResolveError:
            self.dead = True
            self._abandon()
        finally:
            self.writing = False
            self.writer = None
            self.engine._progress(self.origin)

    def _broke(self, x: _Exchange, exc: BaseException) -> None:
        """End ``x`` with ``exc``: a kept connection closed (or reset) before a byte of the
        reply is stale — its request sent again on a new connection, the general path's
        rule (:meth:`Connection.read_head` says so of every ConnectionClosed there); else
        the general path takes the exchange (no head yet) or the row is a failure (the body
        broke off)."""
        if x.head is None and (
            x.behind or (isinstance(exc, ConnectionClosed) and x.reused and not x.answered)
        ):
            if x.behind:
                self.engine._serial.add(self.origin)
            x.error = StaleConnection(*exc.args)
            self._finish(x, "stale")
            return
        x.error = exc
        self._finish(x, "handoff" if x.head is None else "failed")

    def _finish(self, x: _Exchange, outcome: str) -> None:
        x.outcome = outcome
        engine = self.engine
        if engine._waiting:
            engine._progress(self.origin)
        if outcome != "done" and x is self.exchange and self.queue:
            self._abandon()  # (the connection goes to the general path, or is dropped)
        waiter = x.waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _unwatch(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if self.fd >= 0:
            with contextlib.suppress(OSError, RuntimeError, ValueError):  # (a closed loop)
                self.loop.remove_reader(self.fd)
            self.fd = -1

    def usable(self) -> bool:
        """Whether this idle connection may carry a request (nothing came while idle: the
        kernel's buffer peeked by :meth:`Stream.idle_ended`, as the general path's pool
        asks; the engine reads the socket itself, so the stream's own buffers are empty)."""
        return not self.dead and not self.stream.idle_ended()

    def close(self) -> None:
        self._unwatch()
        self.dead = True
        x = self.exchange
        if x is not None and not x.outcome:
            # (a transfer cancelled while another's reply was read here: that one ends
            # as a connection lost at this point ends it)
            what = "the reply" if x.head is None else "the body"
            self._broke(x, ConnectionClosed(f"connection closed while reading {what}"))
        self._abandon()
        if self.writer is not None:
            self.writer.cancel()
        self.stream.close()

    def handed(self, x: _Exchange) -> Connection:
        """The general path's :class:`Connection` over this socket, for ``x``'s reply (the
        loop no longer watches it here: the stream waits its own way from now on)."""
        self._unwatch()
        conn = Connection(self.stream, self.origin)
        conn.reused = x.reused
        conn.asked_close = self.asked_close
        conn.spoke_first = self.spoke_first
        return conn


def _giving_back(slots: Slots, key: object) -> Callable[[], None]:
    """Gives ``key``'s slot back once, however often called (a handed-over exchange's:
    by the general path's link when released, and at the hand-over's end)."""
    held = True

    def give_back() -> None:
        nonlocal held
        if held:
            held = False
            slots.release(key)

    return give_back


class _Template:
    """A server's request head around its target: the planner's request line before it
    (``GET ``), then after it the rest of the line (`` HTTP/1.1``: the planner's
    :func:`~resolvers.http.planner.request_line_around`) and the header fields (``Host``,
    the defaults and ``-H``'s, exactly as planned)."""

    __slots__ = ("after", "before", "origin", "target")

    def __init__(self, origin: Origin, target: bytes, before: bytes, after: bytes) -> None:
        self.origin = origin
        self.target = target
        self.before = before
        self.after = after

    @classmethod
    def of(cls, plan: Plan, origin: Origin) -> _Template | None:
        """The template of ``plan``'s head, or None when its request step is not the plain
        GET line whose one wire value is its target (then every URL is planned whole)."""
        step = plan.steps[0]
        values = step.values
        if step.role is not HTTPRole.REQUEST or len(values) != 1:
            return None
        value = values[0]
        target = value.value
        if (value.component, value.context) != ("path", "http-target"):
            return None
        before, after = request_line_around("GET")
        if step.data != before + target + after:
            return None
        head = request_head(plan)
        return cls(origin, target, before, head[len(before) + len(target) :])

    def head(self, target: bytes) -> bytes:
        return self.before + target + self.after


class Engine:
    """The lean exchanges of one batch: connections kept by origin (at most the batch's
    per-server limit each: one per running transfer), closed by :meth:`close`.

    Each exchange holds one of the client's connection slots (its HTTP pool's
    ``max_connections``, :class:`~resolvers.slots.Slots`: first come first served, outside
    the deadlines, ``pool_timeout``) from before its connection is taken until its reply
    is whole — or, handed over, until the general path releases the connection — the
    slots the general path's resolves take: the client's bound holds for both paths
    together.  Before, the engine took none: ``max_connections=10`` under 40 transfers
    at once had 40 connections open where the general path had 10 (and 200 for 150).

    Idle ones are kept as the general path's pool keeps them (the client's
    :class:`~resolvers.options.ClientLimits`): at most ``max_keepalive_connections`` in all
    (the longest idle closed first) and none past ``keepalive_expiry`` seconds.  A batch over
    many servers kept one a server before: 300 servers under ``ulimit -n 128`` ended in
    "Too many open files" (a traceback, exit 1) where the general path fetched all 300."""

    def __init__(self, options: Options) -> None:
        self.options = options
        self.loop = asyncio.get_running_loop()
        #: The rows made here (whole replies and bodies broken off): the batch's proof.
        self.made = 0
        self._idle: dict[Origin, list[_Conn]] = {}
        #: Every idle connection, the longest idle first, and when it became idle.
        self._since: dict[_Conn, float] = {}
        limits = options.shared.limits if options.shared is not None else ClientLimits()
        self._max_idle = limits.max_keepalive_connections
        self._expiry = limits.keepalive_expiry
        self._all: set[_Conn] = set()
        #: Pipelining (RFC 9112 §9.3.2; :meth:`pipeline`): requests a connection carries
        #: at once (1: none pipelined), connections an origin gets before requests are
        #: pipelined on them, each origin's live connections, and the origins pipelining
        #: was stopped for (a reply that did not keep its connection, a pipelined request
        #: left unanswered).
        self._depth = 1
        self._per_origin = 0
        self._of: dict[Origin, list[_Conn]] = {}
        self._serial: set[Origin] = set()
        #: Connects under way by origin, and the transfers waiting for one of them to end
        #: before they pipeline (so an origin never gets more than ``per_origin`` at once).
        self._connecting: dict[Origin, int] = {}
        self._waiting: dict[Origin, list[asyncio.Future[None]]] = {}
        self._wait = options.read_timeout
        #: A reply not complete this long after its request is the general path's (its
        #: setup and low-speed limits then apply): the low-speed window's length.
        guarded = options.speed_limit > 0 and options.speed_time > 0
        self._long = options.speed_time if guarded else float("inf")
        self._speed = (options.speed_limit, options.speed_time) if guarded else None
        self._templates: dict[tuple[str, int | None], _Template] = {}
        #: The requests say ``Connection: close`` (-H): each connection carries one.  Only
        #: ``Options.headers`` can put the field in a plan (the planner adds none), so it is
        #: judged once here rather than in every head (0.5 us a URL).
        fields = "".join(f"\r\n{name}: {value}" for name, value in options.headers)
        self._asks_close = asks_close(fields.encode("utf-8", "surrogateescape") + b"\r\n")
        #: Templates only under the policy's own ``check_plan`` (a subclass that checks
        #: more sees every plan whole); a template's target is checked by the policy's
        #: :meth:`~resolvers.policy.Policy.check_wire_value`, as ``check_plan`` checks it.
        self._templating = type(options.policy).check_plan is Policy.check_plan
        #: The client's connection slots and this engine's key among them (None: the
        #: options have no client, or no shared set: the general path takes none either).
        self._slots: Slots | None = None
        self._slot_key: object | None = None
        if options.shared is not None:
            from omniurl.resolvers.http.pool import HTTPPool, make_pool

            pool = options.shared.get(HTTPPool, make_pool)
            key = pool.slot_key(options, "http", "")
            if key is not None:
                self._slots, self._slot_key = pool.slots, key

    def request(self, url: Any) -> tuple[Origin, bytes] | None:
        """Where ``url``'s request goes and its bytes — exactly its plan's head, checked by
        the policy — when the engine may carry it out; None: the general path's (it plans
        and checks again, and refuses what the policy refuses before a byte is sent).

        The plan of the first URL of each server (host and port as written) is made and
        checked whole, and kept as a template (:class:`_Template`): what the next URLs of
        that server change in a plan is only the request target, so theirs is the
        template's head with their target, the target checked by the policy's
        :meth:`~resolvers.policy.Policy.check_wire_value`, as ``check_plan`` checks it
        (its one wire value; the other values, the scheme, the port and the zone are the
        template's, checked already).  ~44 µs of planning and checking a URL become ~5
        (tests/test_batch_lean.py holds the heads equal to the planner's)."""
        if type(url) is not HTTPURL or url.scheme != "http" or url.user is not None:
            return None
        options = self.options
        if options.credentials and credentials_for(url, options) is not None:
            return None  # (a netrc login for this host: Authorization, the general path's)
        key = (url.host, url.port)
        template = self._templates.get(key)
        if template is not None:
            target = request_target(url).encode("utf-8", "surrogateescape")
            try:
                self.options.policy.check_wire_value(WireValue("path", target, "http-target"))
            except (OmniurlError, ResolveError):
                return None
            return template.origin, template.head(target)
        try:
            plan = plan_http(url, options)
            options.policy.check_plan(plan)
        except (OmniurlError, ResolveError):
            return None
        origin = origin_of(plan)
        head = request_head(plan)
        if self._templating:
            made = _Template.of(plan, origin)
            if made is not None and made.head(made.target) == head:
                self._templates[key] = made
        return origin, head

    def pipeline(self, per_origin: int, depth: int) -> None:
        """Pipeline (RFC 9112 §9.3.2) up to ``depth`` requests on each connection once an
        origin has ``per_origin`` of them: the batch then runs up to ``per_origin * depth``
        transfers to a server over ``per_origin`` connections (``OMNIURL_BATCH_PIPELINE``,
        omniurl/batch.py).  Replies come in the order of the requests; when a connection
        ends before all of them came (a close, a reply without keep-alive, one handed to
        the general path or broken off), the unanswered requests are sent again on another
        connection (§9.3.2; GET is idempotent), and that server gets no more pipelining."""
        self._per_origin = max(1, per_origin)
        self._depth = max(1, depth)

    def _pipelined(self, origin: Origin) -> _Conn | None:
        """A busy connection to ``origin`` that may take one more request behind the ones
        it carries (the one carrying fewest), once the origin has all its connections."""
        if self._depth <= 1 or self._asks_close or origin in self._serial:
            return None
        conns = self._of.get(origin)
        if conns is None or len(conns) < self._per_origin:
            return None
        return self._least_busy(conns)

    def _least_busy(self, conns: list[_Conn]) -> _Conn | None:
        best: _Conn | None = None
        for conn in conns:
            if (
                conn.dead
                or conn.writing
                or conn.exchange is None
                or conn in self._since  # (idle: _kept's)
                or len(conn.queue) + 1 >= self._depth
            ):
                continue
            if best is None or len(conn.queue) < len(best.queue):
                best = conn
        return best

    def _kept(self, origin: Origin) -> _Conn | None:
        """A kept connection to ``origin`` that may carry a request (None: none is)."""
        idle = self._idle.get(origin)
        while idle:
            conn = idle.pop()
            if not idle:  # (no table of every server the batch has seen)
                del self._idle[origin]
            since = self._since.pop(conn)
            if self.loop.time() - since < self._expiry and conn.usable():
                conn.reused = True
                return conn
            self._drop(conn)
        return None

    async def _connect(self, origin: Origin, data: bytes) -> _Conn | Prepared:
        """A new connection to ``origin`` — or, when connecting failed or outlasted the
        low-speed limit's setup window, that outcome for the general path (a
        :class:`Prepared` without a connection: nothing was sent), which reports it where
        its own connect would have, the time spent counted.  Before, the general path
        connected again: a host that refused, or a name that did not resolve, was tried
        twice, and one that never answered took the connect timeout twice over (three
        times ``--speed-time``'s setup window when that is the shorter)."""
        started = self.loop.time()
        window = asyncio.timeout(None if self._long == float("inf") else self._long)
        error: BaseException | None
        self._connecting[origin] = self._connecting.get(origin, 0) + 1
        try:
            async with window:
                stream = await connect(origin[1], origin[2], self.options)
        except (OmniurlError, ResolveError, OSError) as exc:  # (TimeoutError is an OSError)
            error = None if window.expired() else exc  # (None: the window passed)
        else:
            conn = _Conn(stream, origin, self)
            self._all.add(conn)
            self._of.setdefault(origin, []).append(conn)
            return conn
        finally:
            self._connected(origin)
        prepared = Prepared(origin, data, None, None, error=error)
        prepared.started = started
        return prepared

    def _connected(self, origin: Origin) -> None:
        """A connect to ``origin`` ended: the transfers waiting for a connection look again."""
        left = self._connecting.pop(origin, 1) - 1
        if left > 0:
            self._connecting[origin] = left
        self._progress(origin)

    def _progress(self, origin: Origin) -> None:
        """Something changed among ``origin``'s connections (a connect ended, a reply came,
        one went idle or away, a write ended): the transfers waiting for one look again."""
        for waiter in self._waiting.pop(origin, ()):
            if not waiter.done():
                waiter.set_result(None)

    def _full(self, origin: Origin) -> bool:
        """Whether ``origin`` has (or is getting) all the connections it may have while the
        batch runs ``per_origin * depth`` transfers to it (:meth:`pipeline`): a transfer
        that finds none of them free to take its request then waits for one — also once
        the server is pipelined no more, so it never gets more than ``per_origin``."""
        if self._depth <= 1:
            return False
        conns = self._of.get(origin)
        return (len(conns) if conns else 0) + self._connecting.get(origin, 0) >= self._per_origin

    def _forget(self, conn: _Conn) -> None:
        """``conn`` is no longer the engine's (dropped, or handed to the general path)."""
        self._all.discard(conn)
        conns = self._of.get(conn.origin)
        if conns is not None and conn in conns:
            conns.remove(conn)
            if not conns:
                del self._of[conn.origin]
        if self._waiting:
            self._progress(conn.origin)

    def _drop(self, conn: _Conn) -> None:
        self._forget(conn)
        conn.close()

    def _release(self, conn: _Conn) -> None:
        conn.exchange = None
        if self._waiting:
            self._progress(conn.origin)
        if conn.dead or self._max_idle <= 0:
            self._drop(conn)
            return
        self._idle.setdefault(conn.origin, []).append(conn)
        since = self._since
        since[conn] = self.loop.time()
        if len(since) > self._max_idle:  # (the longest idle goes)
            oldest = next(iter(since))
            del since[oldest]
            others = self._idle[oldest.origin]
            others.remove(oldest)
            if not others:
                del self._idle[oldest.origin]
            self._drop(oldest)

    async def fetch(
        self,
        origin: Origin,
        data: bytes,
        done: Callable[[Head, bytes], T],
        failed: Callable[[BaseException], T],
    ) -> tuple[T | None, Prepared | None]:
        """Send ``data`` (a URL's request: :meth:`request`) to ``origin``:
        ``(done(head, body), None)`` for a reply the engine takes
        whole, ``(failed(error), None)`` for one whose body broke off (a timeout, the
        close: the general path's error, in its words), else ``(None, prepared)`` — the
        exchange for the general path to continue (``prepared`` None: nothing was sent;
        the general path starts afresh)."""
        slots, key = self._slots, self._slot_key
        if slots is not None:
            try:
                await slots.acquire(key)
            except PoolTimeout as exc:  # (raised by the general path where its lease is)
                return None, Prepared(origin, data, None, None, error=exc)
        try:
            while True:  # (each stale retry drops a kept connection; a new one is not stale)
                conn = self._kept(origin) or self._pipelined(origin)
                if conn is None and self._full(origin):
                    # (its connections are all made or being made, and busy: one of them
                    # takes the request once it is up, has room, or is idle again)
                    ready: asyncio.Future[None] = self.loop.create_future()
                    self._waiting.setdefault(origin, []).append(ready)
                    await ready
                    continue
                if conn is None:
                    made = await self._connect(origin, data)
                    if isinstance(made, Prepared):
                        return None, made
                    conn = made
                x = await self._exchange(conn, data)
                if x.outcome == "done":
                    assert x.head is not None
                    body = x.body[0] if len(x.body) == 1 else b"".join(x.body)
                    if conn.exchange is x:  # (else a pipelined one is read there now)
                        self._release(conn)
                    self.made += 1
                    return done(x.head, body), None
                if x.outcome == "stale":
                    # (sent again: its connection ended before a byte of its reply — that
                    # one is dropped here when this was its reply to read; a pipelined
                    # one's connection is its current exchange's to drop or hand over)
                    if conn.exchange is x and conn in self._all:
                        self._drop(conn)
                    continue
                if x.outcome == "failed":
                    assert x.error is not None
                    self._drop(conn)
                    self.made += 1
                    return failed(x.error), None
                # the general path continues the exchange as it stands
                self._forget(conn)
                conn.exchange = None
                reader = x.reader
                if x.head is not None and x.body and x.error is None:
                    reader.give_back(b"".join(x.body))  # (its body read again from the start)
                handed = conn.handed(x)
                prepared = Prepared(origin, data, handed, reader, x.head, x.error, x.answered)
                prepared.started = x.started
                if slots is not None:  # (the slot goes with the connection)
                    prepared.give_back = _giving_back(slots, key)
                    slots = None
                return None, prepared
        finally:
            if slots is not None:
                slots.release(key)

    async def _exchange(self, conn: _Conn, data: bytes) -> _Exchange:
        loop = self.loop
        x = _Exchange(conn, loop.time(), self._speed)
        current = conn.exchange
        if current is None or current.outcome:
            conn.exchange = x
            x.reused = conn.reused
        else:  # pipelined behind the reply now read (:meth:`_pipelined`)
            conn.queue.append(x)
            x.reused = x.behind = True
        conn.asked_close = self._asks_close  # (RFC 9112 §9.6: then never reused)
        if not conn.reused and x is conn.exchange and conn.stream.spoke_first():
            # (a reply before the request: the loop has not run the reader callback since
            # the connect, so the kernel's buffer is asked; the reply read next is kept as
            # this request's, as curl keeps it, the connection used no further)
            conn.spoke_first = conn.dead = True
        if x is not conn.exchange or conn.outbox:
            # pipelined: sent with the others made in this turn of the loop (one send)
            conn.outbox.append(data)
            if not conn.flushing:
                conn.flushing = True
                loop.call_soon(conn._flush)
            return await self._answer(conn, x)
        try:
            sent = conn.sock.send(data)
        except (BlockingIOError, InterruptedError):
            sent = 0
        except OSError as exc:  # (x is the connection's current exchange: sent directly)
            conn._broke(x, ConnectionClosed(f"connection lost while sending the request: {exc}"))
            return x
        if sent < len(data):
            # (a request larger than the socket's free buffer: the rest as the stream sends;
            # meanwhile no request is pipelined behind it — _least_busy passes over a
            # connection writing —, so x stays the current exchange with none queued)
            conn.writing = True
            try:
                await conn.stream.write(data[sent:], "the request")
            except ResolveError as exc:
                if not x.outcome:
                    x.error, x.outcome = exc, "handoff"
                    if isinstance(exc, ConnectionClosed) and x.reused:  # (Connection.exchange's)
                        x.error, x.outcome = StaleConnection(*exc.args), "stale"
                return x
            finally:
                conn.writing = False
            if x.outcome:
                # The reply (or its end) came while the rest of the request went out: the
                # callback has read it already, and nobody waited to be woken.
                return x
        return await self._answer(conn, x)

    async def _answer(self, conn: _Conn, x: _Exchange) -> _Exchange:
        """``x`` once its reply (or what ended it) came: the transfer waits here."""
        waiter = x.waiter = self.loop.create_future()
        if x is conn.exchange:
            self._arm(conn, x)
        try:
            await waiter
        except BaseException:
            x.waiter = None
            if conn in self._all:
                self._drop(conn)
            raise
        return x

    def _arm(self, conn: _Conn, x: _Exchange) -> None:
        """The connection's one timer, due by ``x``'s deadline unless due sooner already."""
        due = x.started + min(self._wait, self._long)
        timer = conn.timer
        if timer is None or timer.when() > due:
            if timer is not None:
                timer.cancel()
            conn.timer = self.loop.call_at(due, self._expire, conn)

    def _expire(self, conn: _Conn) -> None:
        """The connection's timer, for the request it carries (none, or one with an
        outcome: the timer ends; set by an earlier request, it is set again for this one's
        deadline: the same instants as a timer of the request's own).  A wait without a
        byte for ``read_timeout`` seconds ends it as the general path's read would
        (:class:`ResolveTimeout`, in its words); a head still incomplete after the
        low-speed window's length goes on through the general path (its setup limit
        applies from there); a body is judged by the low-speed limit as the general path's
        resource judges its content (:class:`Guard`, the watchdog's
        rule: the window counts from the head's end).  Before, a body still incomplete
        after ``--speed-time`` went on through the general path, whose window began again
        there: 200 bytes at 100 bytes/s under ``--speed-limit 1000 --speed-time 1`` were a
        file where the general path says TooSlow."""
        conn.timer = None  # (this one has fired)
        x = conn.exchange
        if x is None or x.outcome:
            return
        now = self.loop.time()
        guard = x.guard
        if now - x.last >= self._wait:
            if x.head is None and x.behind:  # (a server that ignores pipelined requests)
                x.conn.dead = True
                x.conn._broke(x, ResolveTimeout("no reply to a pipelined request"))
                return
            what = "the reply" if x.head is None else "the body"
            x.error = ResolveTimeout(f"timed out after {self._wait:g} s waiting for {what}")
            x.conn._finish(x, "handoff" if x.head is None else "failed")
            return
        at = x.last + self._wait
        if x.head is None:
            if now - x.started >= self._long:
                x.conn._finish(x, "handoff")
                return
            at = min(at, x.started + self._long)
        elif guard is not None:
            limit = guard.wait_limit()
            if limit is not None and limit <= 0.0005:
                try:
                    guard.check_due()
                except ResolveError as exc:
                    x.error = exc
                else:  # (the watchdog's own words, should the check pass)
                    x.error = TooSlow(f"no data within --speed-time {guard.speed_time:g} s")
                x.conn._finish(x, "failed")
                return
            if limit is not None:
                at = min(at, now + limit + 0.001)
        conn.timer = self.loop.call_at(at, self._expire, conn)

    @contextlib.contextmanager
    def handing_over(self, prepared: Prepared) -> Iterator[None]:
        """While the body runs (the general path's resolve of the URL, in this task), the
        next :func:`~resolvers.http.executor.execute_http` continues ``prepared`` instead
        of connecting and sending again (:data:`~resolvers.http.executor.PREPARED`); a
        connection it did not take is closed after."""
        token = PREPARED.set(prepared)
        try:
            yield
        finally:
            PREPARED.reset(token)
            if not prepared.taken and prepared.conn is not None:
                prepared.conn.close()
            if prepared.give_back is not None:  # (once: the link may have given it back)
                prepared.give_back()

    def close(self) -> None:
        for conn in list(self._all):
            conn.close()
        self._all.clear()
        self._of.clear()
        self._idle.clear()
        self._since.clear()
