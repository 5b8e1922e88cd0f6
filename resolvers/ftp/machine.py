"""An FTP client conversation as a pure state machine, in h11's shape: bytes in, events out.

The plan (:mod:`resolvers.ftp.planner`) says which command lines may go on the wire and on
which condition; this machine decides, reply by reply, which of them do — and nothing else
does.  It never touches a socket: the executor feeds it what the control connection
received (:meth:`FTPMachine.receive_data`, ``b""`` at end of stream) and asks for the next
event (:meth:`FTPMachine.next_event`) until it says :data:`NEED_DATA` (read more) or
:data:`PAUSED` (the machine waits for the executor: a TLS handshake, a password, the data
connection).  Events are frozen data classes; a reply that ends the conversation raises the
typed error (:class:`~resolvers.errors.ReplyError`, :class:`~resolvers.errors.AuthError`, …)
from ``next_event``, as h11 raises ``RemoteProtocolError``.

The conversation (RFC 959 §5.4's sequences; the plan's conditions in quotes):

- the greeting: ``220`` (after an optional ``120``), else the server refused us;
- ``AUTH TLS`` → ``234`` → :class:`StartTLS` (RFC 4217 §4), else an error: TLS is required;
- ``USER`` → 230 done, 331 ``PASS`` ("reply 331"; :class:`PasswordWanted` when the plan has
  none), 332 ``ACCT`` (which an RFC 1738 URL cannot carry): an error;
- ``PBSZ 0``, ``PROT P`` (RFC 4217 §8, §9), each ``CWD``: ``2xx`` or an error naming the
  component;
- ``-I``: ``TYPE I``, ``SIZE`` (213: the size; 550: not found), ``MDTM`` (213: the time),
  ``QUIT``: :class:`Facts`;
- a transfer: ``TYPE``; ``FEAT`` ("FEAT lists MLST" → ``MLSD``, else ``LIST -a``, and
  plain ``LIST`` when that is refused: "LIST -a refused (450 or a 5xx reply)"; after a
  ``LIST -a`` that listed nothing, or only ``-a`` (:meth:`FTPMachine.data_done` says what
  came), ``EPSV``/``PASV`` as before and a plain ``LIST`` once more, over a new data
  connection: "LIST -a listed nothing, or only a file named -a"); ``MDTM``
  where the plan asks the time with the file (213: :attr:`TransferReady.modified`); ``SIZE``
  under ``-C`` (:func:`resolvers.resume.ftp_size_outcome`: nothing missing ends it with
  :class:`NothingMissing`); ``EPSV`` (229: the port), else ``PASV`` (227), then
  :class:`OpenData` — or, when the policy refuses the port named, :class:`DataPortRefused`
  and the same command again ("the policy refused the port"; at most
  :data:`resolvers.policy.DATA_PORT_RETRIES` times, then ``PortRefused``); ``REST``
  ("bytes missing"; 350: from the offset, else the whole file);
  ``RETR``/``NLST``/``MLSD``/``LIST`` → 125/150 → :class:`TransferReady` (the 150 reply's
  size, the byte counts the transfer may end with); after the data connection's end the
  final ``2xx`` (:meth:`FTPMachine.data_done` checks the count first), then ``QUIT`` or
  the connection is kept (:class:`Done`).
"""

from __future__ import annotations

import enum
from collections import deque
from collections.abc import Callable

from omniurl.schemes.records import record

from ..errors import (
    AuthError,
    ConnectionClosed,
    LimitExceeded,
    NotFound,
    ProtocolError,
    ReplyError,
    ResolveError,
)
from ..plan import Plan, Step
from ..policy import DATA_PORT_RETRIES, DEFAULT, Policy, data_port_refused
from ..resume import Outcome, ftp_rest_outcome, ftp_size_outcome, parse_size_reply
from ..sansio import NEED_DATA, PAUSED, Send, Sentinel
from .planner import FTPDetails, FTPRole, Password
from .replies import (
    Reply,
    ReplyReader,
    after_pass,
    after_user,
    announced_size,
    epsv_port,
    expected_bytes,
    has_mlst,
    mdtm_time,
    pasv_port,
    refusal_line,
    transfer_started,
)
from .settings import ListingFormat

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing's import: ~9 ms of a get's start, docs/speed.md)
    import datetime
    from typing import ClassVar

    from .listing import Seen

#: RFC 1738 §3.2.1: the user name sent when the URL (and the caller) give none.
ANONYMOUS = (b"USER anonymous", b"USER ftp")


class State(enum.Enum):
    """Where the conversation is: which reply it waits for, or what it waits for instead."""

    GREETING = "greeting"
    AUTH = "auth"
    TLS = "tls"  # paused: the executor's handshake
    USER = "user"
    ASK = "ask"  # paused: the executor asks for a password
    PASS = "pass"
    SETUP = "setup"  # PBSZ, PROT, CWDs
    TYPE = "type"
    FEAT = "feat"
    SIZE = "size"
    MDTM = "mdtm"
    EPSV = "epsv"
    PASV = "pasv"
    DATA = "data"  # paused: the executor opens the data connection
    REST = "rest"
    TRANSFER = "transfer"
    TRANSFERRING = "transferring"  # paused: the data connection carries the content
    FINAL = "final"
    QUIT = "quit"
    DONE = "done"


# -- events --------------------------------------------------------------------------------


@record(frozen=True)
class Received:
    """A whole reply arrived (for the transcript: ``-v`` prints it)."""

    reply: Reply


@record(frozen=True)
class StartTLS:
    """``234`` to ``AUTH TLS``: run the handshake on the control connection, then call
    :meth:`FTPMachine.tls_started`."""


@record(frozen=True)
class PasswordWanted:
    """331 and the plan knows no password: ask, then :meth:`FTPMachine.password`."""

    reply: Reply


@record(frozen=True)
class OpenData:
    """Passive mode named the data port (the address is the control connection's: curl
    CVE-2020-8284); open it, then :meth:`FTPMachine.data_opened`."""

    port: int
    reply: Reply


@record(frozen=True)
class DataPortRefused:
    """The policy refused the data port a passive reply named (never connected to); the
    same command goes out again next (the plan's "the policy refused the port …").  For
    the transcript: ``-v`` says why a second ``EPSV`` follows."""

    port: int
    reason: str
    #: How many ports were refused so far (this one included), and the most asked again.
    refused: int
    retries: int
    command: str


@record(frozen=True)
class TransferReady:
    """The transfer command was answered 125/150: the content flows on the data
    connection.  Read it to its end, then :meth:`FTPMachine.data_done`."""

    reply: Reply
    #: The 150 reply's ``(N bytes)``, else None.
    size: int | None
    #: The byte counts the transfer may end with (TYPE I with a size known), else None.
    expected: frozenset[int] | None
    #: ``-C``: what SIZE and REST decided (None without ``-C``), and SIZE's total.
    outcome: Outcome | None
    total: int | None
    #: "mlsd"/"list" where FEAT decided it, else the plan's listing format.
    listing_format: ListingFormat | None
    #: The command that started it (``RETR name``, ``MLSD`` …), as shown.
    command: str
    #: What ``MDTM`` said before the transfer (``FTPOptions.mdtm``), else None.
    modified: datetime.datetime | None = None
    #: ``LIST -a`` with the plan's check after it: the executor tells
    #: :meth:`FTPMachine.data_done` what the listing named (a :class:`~.listing.Seen`), and
    #: holds back its entries while they could be a listing of ``-a`` (a plain ``LIST``
    #: may follow: another :class:`TransferReady`).
    checked: bool = False


@record(frozen=True)
class NothingMissing:
    """``-C`` and SIZE equals what is kept: no data connection; the content is empty."""

    total: int | None


@record(frozen=True)
class Facts:
    """``-I``: what SIZE and MDTM said (None where the server did not say)."""

    size: int | None
    modified: datetime.datetime | None


@record(frozen=True)
class Done:
    """The conversation is over.  ``keep``: the connection may serve a later URL with the
    same login and CWDs (RFC 1738 §3.2.5; no ``QUIT`` was sent); else ``QUIT`` went out, or
    the server said more than it was asked after the final reply (the connection is then
    closed: a reply nobody can match to a command)."""

    keep: bool


Event = (
    Received
    | Send
    | StartTLS
    | PasswordWanted
    | OpenData
    | DataPortRefused
    | TransferReady
    | NothingMissing
    | Facts
    | Done
)


def refusal(reply: Reply, what: str, component: str | None) -> ReplyError:
    """The typed error for a refusal (550: not found)."""
    message = f'the server refused "{what}": {reply}'
    if reply.code == "550":
        return NotFound(message, component=component, code=reply.code, reply=str(reply))
    return ReplyError(message, component=component, code=reply.code, reply=str(reply))


class FTPMachine:
    """One control connection's conversation for one plan (see the module's docstring).

    ``reused``: the connection is a kept one, already past login and CWDs (§3.2.5), so the
    setup steps are skipped; ``keep``: kept connections are on, so ``QUIT`` is not sent
    after the transfer (the plan's "when the connection is let go").  ``type_now``: the
    ``TYPE`` line a kept connection last had accepted — RFC 959 §5.3.2: the type holds
    until changed, so the plan's same ``TYPE`` is not sent again (a mirror's
    ``RETR``/``MDTM`` of each file sent ``TYPE I`` twice a file: 2 of its 7 round trips).
    :attr:`type_now` is the type after the conversation, for the next plan.  ``policy``
    judges each data port a passive reply names (:meth:`Policy.data_port_reason`): a
    refused one is never handed out in :class:`OpenData`.
    """

    def __init__(
        self,
        plan: Plan,
        *,
        reused: bool = False,
        keep: bool = False,
        max_line: int = 65536,
        type_now: bytes | None = None,
        policy: Policy = DEFAULT,
    ) -> None:
        self.plan = plan
        self.policy = policy
        #: Data ports the policy refused in this conversation (the "again" steps' facts).
        self._ports_refused = 0
        self.type_now = type_now if reused else None
        self.details = plan.details_as(FTPDetails)
        self.keep = keep
        self.reused = reused
        self.max_line = max_line
        self.replies: list[str] = []
        self._steps = [s for s in plan.steps if isinstance(s.role, FTPRole)]
        #: Each role's first step (looked up ~9 times a transfer: a scan each was ~1% of a
        #: mirror's samples).
        self._by_role: dict[FTPRole, Step] = {}
        for step in reversed(self._steps):
            self._by_role[step.role] = step  # type: ignore[index]
        self._buffer = bytearray()
        self._eof = False
        self._reader: ReplyReader | None = None
        self._events: deque[Event] = deque()
        #: A refusal raised once its reply was handed out (then raised again: no way on).
        self._error: ResolveError | None = None
        self._setup: deque[Step] = deque(
            s for s in self._steps if s.role in (FTPRole.PBSZ, FTPRole.PROT, FTPRole.CWD)
        )
        self._waiting_for = "the greeting"
        self._current: Step | None = None
        self._outcome: Outcome | None = None
        self._total: int | None = None
        self._size: int | None = None
        self._modified: datetime.datetime | None = None
        self._listing_format = self.details.listing_format
        #: The passive command that opened the last data connection, and what the
        #: executor said a ``LIST -a`` listed (the re-list's facts).
        self._passive_used = "EPSV"
        self._seen: Seen | None = None
        self._transfer = self._step(FTPRole.TRANSFER) if not self.details.head else None
        self._ready: TransferReady | None = None
        #: The bytes the last data connection carried (:meth:`data_done`).
        self._received: int | None = None
        #: A reply answered no command sent (:meth:`_on_reply`): the connection is out of step.
        self.out_of_step = False
        self.state = State.GREETING
        if reused:
            self._after_setup()

    # -- the executor's side ---------------------------------------------------------------

    def receive_data(self, data: bytes) -> None:
        """Bytes from the control connection; ``b""``: it ended."""
        if data:
            self._buffer += data
        else:
            self._eof = True

    def next_event(self) -> Event | Sentinel:
        """The next event, :data:`NEED_DATA` or :data:`PAUSED`; a refusal raises."""
        if not self._events and self._error is not None:
            raise self._error
        while not self._events:
            if self.state is State.DONE:
                return PAUSED
            if self.state in (State.TLS, State.ASK, State.DATA, State.TRANSFERRING):
                return PAUSED
            reply = self._next_reply()
            if reply is None:
                if self._events:  # (the end of stream after QUIT: Done)
                    break
                return NEED_DATA
            self.replies.append(str(reply))
            self._events.append(Received(reply))
            try:
                self._on_reply(reply)
            except ResolveError as exc:
                # The reply is handed out first (the transcript shows it), the error next.
                self._events = deque([Received(reply)])
                self._error = exc
        return self._events.popleft()

    def tls_started(self) -> None:
        """The control connection's handshake is done: log in over it."""
        assert self.state is State.TLS
        self._login()

    def password(self, secret: bytes) -> None:
        """The password asked for (checked by the caller against the delimiter rule)."""
        assert self.state is State.ASK
        self._send(self._step(FTPRole.PASS), b"PASS " + secret, State.PASS)

    def data_opened(self) -> None:
        """The data connection is open: ``REST`` where due, then the transfer command."""
        assert self.state is State.DATA
        rest = self._optional(FTPRole.REST)
        if rest is not None:
            if rest.due(self._outcome):
                self._send(rest, None, State.REST)
                return
            self._outcome = Outcome.RESTART  # the part is longer than the file: fetched whole
        self._send_transfer()

    def data_done(self, received: int, seen: Seen | None = None) -> None:
        """The data connection ended after ``received`` bytes: a count the server did not
        announce is an error (never a truncated file that looks complete); else the final
        reply is awaited.  ``seen``: what a checked ``LIST -a`` listed
        (:attr:`TransferReady.checked`), which decides the re-list."""
        self._seen = seen
        assert self.state is State.TRANSFERRING and self._ready is not None
        expected = self._ready.expected
        if expected is not None and received not in expected and not self.refused_meanwhile():
            # (a refusal already sent is the error to report: the final reply, read next)
            raise ConnectionClosed(
                f"the data connection of {self._ready.command} closed after {received} "
                f"bytes; the server announced {max(expected)}",
                component="name",
            )
        self._waiting_for = f"the end of {self._ready.command}"
        self._received = received
        self.state = State.FINAL

    def asks_again(self, error: ResolveError) -> bool:
        """Whether a conversation on a kept connection that failed with ``error`` before its
        transfer is asked again on a new connection: nothing of it happened.  The server
        closed the connection while it sat idle (an idle timeout, with or without its
        ``421``, RFC 959 §4.2; the close crossed our first command): no reply but ``421``
        came — as an HTTP request on a stale kept connection is sent again (RFC 9112
        §9.3.1).  Or a late second ``226`` of the transfer before crossed it
        (:attr:`out_of_step`): every reply would have answered the command before."""
        if not self.reused:
            return False
        if self.out_of_step:
            return True
        return isinstance(error, ConnectionClosed | ReplyError) and all(
            r.startswith("421") for r in self.replies
        )

    def buffered_line(self) -> bool:
        """Whether a whole line from the server waits unread (the executor's watch)."""
        return b"\n" in self._buffer

    def refused_meanwhile(self) -> str | None:
        """While the data connection is read: the first line of a refusal (4xx, 5xx) the
        server has sent already on the control connection — it ends the transfer (RFC 959
        §4.2: the transfer failed), whether or not the data connection is closed — else
        None (nothing yet, a line still coming, or a 2xx: the transfer's end, read after
        the data)."""
        cut = self._buffer.find(b"\n")
        if cut < 0:
            return None
        line = bytes(self._buffer[:cut]).rstrip(b"\r")
        return line.decode("utf-8", "replace") if refusal_line(line) else None

    @property
    def waiting_for(self) -> str:
        """What the machine waits for, in words (for a timeout's message)."""
        return self._waiting_for

    @property
    def quitting(self) -> bool:
        """Only ``QUIT``'s reply is awaited: a server that drops it loses nothing."""
        return self.state is State.QUIT

    # -- replies ---------------------------------------------------------------------------

    def _next_reply(self) -> Reply | None:
        """One whole reply from the buffer (RFC 959 §4.2), bounded in line length."""
        while True:
            cut = self._buffer.find(b"\n")
            if cut < 0:
                if len(self._buffer) > self.max_line + 2:
                    raise LimitExceeded(
                        f"{self._waiting_for}: line longer than {self.max_line} bytes"
                    )
                if self._eof:
                    self._ended()
                return None
            line = bytes(self._buffer[:cut])
            del self._buffer[: cut + 1]
            if len(line) > self.max_line + 1:
                raise LimitExceeded(f"{self._waiting_for}: line longer than {self.max_line} bytes")
            if line.endswith(b"\r"):
                line = line[:-1]
            if self._reader is None:
                self._reader = ReplyReader(self._waiting_for)
            reply = self._reader.feed(line)
            if reply is not None:
                self._reader = None
                return reply

    def _ended(self) -> None:
        if self.state is State.QUIT:
            self.state = State.DONE
            self._events.append(Done(keep=False))
            return None
        if self._buffer or self._reader is not None:
            raise ConnectionClosed(f"connection closed in the middle of {self._waiting_for}")
        raise ConnectionClosed(f"connection closed while waiting for {self._waiting_for}")

    def _on_reply(self, reply: Reply) -> None:
        """What the reply decides, by the state that awaited it.

        ``226`` ends a transfer (RFC 959 §4.2, §5.4: after a 1xx, and ``ABOR``'s, never
        sent): awaited for no other command, it is the late echo of an earlier transfer —
        a second ``226`` a server sent after the first one, which crossed this
        conversation's first command on a kept connection — and every reply after it
        would answer the command before: :attr:`out_of_step`, a :class:`ProtocolError`
        (the executor asks again on a new connection when the connection was a kept one).
        Awaited for the transfer's command itself (``RETR``/``LIST`` answered ``226``
        without its ``1xx``), it answers that command — a refusal, as before (curl: "RETR
        response: 226"): a stray one is always the first reply read, and the first command
        on a kept connection is never the transfer's.
        """
        if reply.code == "226" and self.state not in (State.FINAL, State.TRANSFER):
            self.out_of_step = True
            raise ProtocolError(
                f"the server's reply {reply} answers no command sent (waiting for "
                f"{self._waiting_for}): the connection is out of step"
            )
        handler = self._HANDLERS.get(self.state)
        if handler is None:  # pragma: no cover - the paused states read no reply
            raise AssertionError(self.state)
        handler(self, reply)

    def _on_greeting(self, reply: Reply) -> None:
        if reply.code == "120":
            return  # "service ready in nnn minutes": the 220 follows
        if reply.code != "220":
            raise refusal(reply, "the connection", "host")
        auth = self._optional(FTPRole.AUTH)
        if auth is not None:
            self._send(auth, None, State.AUTH)
        else:  # (implicit TLS: the handshake came before the greeting)
            self._login()

    def _on_auth(self, reply: Reply) -> None:
        if reply.code != "234":
            raise refusal(reply, "AUTH TLS (--ftp-ssl: TLS is required)", "host")
        self.state = State.TLS
        self._events.append(StartTLS())

    def _on_pass(self, reply: Reply) -> None:
        outcome = after_pass(reply.code)
        if outcome == "account":
            raise AuthError(
                f"the server wants an account (ACCT), which RFC 1738 URLs cannot carry: {reply}",
                component="user",
            )
        if outcome == "refused":
            raise self._refused(reply, after="PASS")
        self._next_setup()

    def _on_setup(self, reply: Reply) -> None:
        step = self._current
        assert step is not None
        if not reply.code.startswith("2"):
            component = "host"  # PBSZ, PROT (RFC 4217 §8, §9: 200 expected)
            if step.role is FTPRole.CWD:
                component = step.values[0].component if step.values else "cwd"
            raise refusal(reply, step.shown, component)
        self._next_setup()

    def _on_type(self, reply: Reply) -> None:
        if not reply.code.startswith("2"):
            raise refusal(reply, self._step(FTPRole.TYPE).shown, "typecode")
        self.type_now = self._step(FTPRole.TYPE).data
        self._after_type()

    def _on_feat(self, reply: Reply) -> None:
        # MLSD (RFC 3659) where FEAT lists MLST, else LIST: the plan's two conditions.
        assert self._transfer is not None
        mlst = reply.code == "211" and has_mlst(reply.lines)
        if self._transfer.due(mlst):
            self._listing_format = ListingFormat.MLSD
        else:
            self._transfer = self._step(FTPRole.LIST)
            self._listing_format = ListingFormat.LIST
        self._after_feat()

    def _on_mdtm(self, reply: Reply) -> None:
        modified = mdtm_time(" ".join(reply.lines)) if reply.code == "213" else None
        if not self.details.head:
            # FTPOptions.mdtm: the time asked with the transfer (none said: None, no error)
            self._modified = modified
            self._after_mdtm()
            return
        self._events.append(Facts(self._size, modified))
        self._finish()  # QUIT, or the connection kept (a -I through a client)

    def _on_epsv(self, reply: Reply) -> None:
        pasv = self._step(FTPRole.PASV)
        if pasv.due(reply.code):
            self._send(pasv, None, State.PASV)
        else:
            self._data_port(epsv_port(reply), reply, FTPRole.EPSV_AGAIN, State.EPSV)

    def _on_pasv(self, reply: Reply) -> None:
        if reply.code != "227":
            raise refusal(reply, "passive mode (EPSV and PASV)", None)
        self._data_port(pasv_port(reply), reply, FTPRole.PASV_AGAIN, State.PASV)

    def _data_port(self, port: int, reply: Reply, again: FTPRole, state: State) -> None:
        """The port a passive reply named: open it if the policy allows, else ask again
        (the plan's conditional step, while it is due), else the typed refusal."""
        reason = self.policy.data_port_reason(port)
        if reason is None:
            self._passive_used = "EPSV" if state is State.EPSV else "PASV"
            self._open_data(port, reply)
            return
        self._ports_refused += 1
        step = self._optional(again)
        if step is None or not step.due(self._ports_refused):
            raise data_port_refused(port, reason, asked=self._ports_refused)
        self._events.append(
            DataPortRefused(port, reason, self._ports_refused, DATA_PORT_RETRIES, step.shown)
        )
        self._send(step, None, state)

    def _on_rest(self, reply: Reply) -> None:
        self._outcome = ftp_rest_outcome(reply.code)
        self._send_transfer()

    def _on_final(self, reply: Reply) -> None:
        if not reply.code.startswith("2"):
            raise ConnectionClosed(f"the transfer did not complete: {reply}", component="name")
        relist = self._optional(FTPRole.RELIST)
        transfer = self._transfer
        if (
            relist is not None
            and transfer is not None
            and transfer.role is FTPRole.LIST
            and relist.due((self._received, self._seen))
        ):
            # LIST -a listed nothing, or only "-a" (-a read as a name): a plain LIST once,
            # over a data connection opened as the first was (the plan's conditional steps;
            # the executor reads a second TransferReady)
            for role, state in (
                (FTPRole.RELIST_EPSV, State.EPSV),
                (FTPRole.RELIST_PASV, State.PASV),
            ):
                passive = self._step(role)
                if passive.due(self._passive_used):
                    self._transfer = relist
                    self._send(passive, None, state)
                    return
        self._finish()

    def _on_quit(self, reply: Reply) -> None:
        self.state = State.DONE
        self._events.append(Done(keep=False))

    # -- the steps of the conversation -----------------------------------------------------

    def _login(self) -> None:
        self._send(self._step(FTPRole.USER), None, State.USER)

    def _after_user(self, reply: Reply) -> None:
        pass_step = self._step(FTPRole.PASS)
        if pass_step.due(reply.code):
            if pass_step.detail_as(Password).ask:
                self.state = State.ASK
                self._events.append(PasswordWanted(reply))
            else:
                self._send(pass_step, None, State.PASS)
            return
        outcome = after_user(reply.code)
        if outcome == "account":
            raise AuthError(f"the server wants an account (ACCT): {reply}", component="user")
        if outcome == "refused":
            raise self._refused(reply, after="USER")
        self._next_setup()

    def _refused(self, reply: Reply, *, after: str) -> AuthError:
        """A 530 after USER or PASS: a wrong password is not a missing one.  With credentials
        the server refused *them* (the user after USER, the password after PASS);
        anonymously, it wants some (RFC 959 §4.2: 530 not logged in; RFC 1738 §3.2.1: a URL
        without a user means anonymous)."""
        user_step = self._step(FTPRole.USER)
        if user_step.data in ANONYMOUS:
            return AuthError(
                "the server refused anonymous login, it needs credentials (give -u "
                f"USER:PASSWORD, ftp://USER@host/ or a netrc login): {reply}",
                component="user",
            )
        user = user_step.data[5:].decode("utf-8", "replace")
        if after == "USER":
            return AuthError(f"the server refused the user {user}: {reply}", component="user")
        return AuthError(
            f"the server refused the credentials of {user}: {reply}", component="password"
        )

    def _next_setup(self) -> None:
        if self._setup:
            self._send(self._setup.popleft(), None, State.SETUP)
        else:
            self._after_setup()

    def _after_setup(self) -> None:
        type_step = self._optional(FTPRole.TYPE)
        if type_step is not None and type_step.data != self.type_now:
            self._send(type_step, None, State.TYPE)
        else:
            self._after_type()

    def _after_type(self) -> None:
        if self.details.head:
            size = self._optional(FTPRole.SIZE)  # (left out when only the time is asked)
            if size is not None:
                self._send(size, None, State.SIZE)
            else:
                self._send(self._step(FTPRole.MDTM), None, State.MDTM)
            return
        feat = self._optional(FTPRole.FEAT)
        if feat is not None:
            self._send(feat, None, State.FEAT)
        else:
            self._after_feat()

    def _after_feat(self) -> None:
        mdtm = self._optional(FTPRole.MDTM)
        if mdtm is not None:
            self._send(mdtm, None, State.MDTM)
        else:
            self._after_mdtm()

    def _after_mdtm(self) -> None:
        size = self._optional(FTPRole.SIZE)
        if size is not None:
            self._send(size, None, State.SIZE)
        else:
            self._passive()

    def _on_size(self, reply: Reply) -> None:
        total = parse_size_reply(" ".join(reply.lines)) if reply.code == "213" else None
        if self.details.head:
            if reply.code == "550":
                raise refusal(reply, self._step(FTPRole.SIZE).shown, "name")
            self._size = total
            self._send(self._step(FTPRole.MDTM), None, State.MDTM)
            return
        # -C: the server's size says whether anything is missing (resolvers.resume).
        self._total = total
        self._outcome = ftp_size_outcome(reply.code, total, self.details.offset)
        self._passive()

    def _passive(self) -> None:
        epsv = self._step(FTPRole.EPSV)
        if epsv.due(self._outcome):
            self._send(epsv, None, State.EPSV)
            return
        # Nothing is missing: no data connection; QUIT unless the connection is kept.
        self._events.append(NothingMissing(self._total))
        self._finish()

    def _open_data(self, port: int, reply: Reply) -> None:
        self.state = State.DATA
        self._events.append(OpenData(port, reply))

    def _send_transfer(self) -> None:
        assert self._transfer is not None
        self._send(self._transfer, None, State.TRANSFER)

    def _on_transfer(self, reply: Reply) -> None:
        transfer = self._transfer
        assert transfer is not None
        if not transfer_started(reply.code):
            plain = self._optional(FTPRole.LIST_PLAIN)
            if transfer.role is FTPRole.LIST and plain is not None and plain.due(reply.code):
                # LIST -a refused: the plain LIST, over the data connection already open
                # (a refused command opened no transfer on it; wget's way too)
                self._transfer = plain
                self._send(plain, None, State.TRANSFER)
                return
            raise refusal(reply, transfer.shown, "name" if transfer.values else "cwd")
        size = announced_size(reply)
        offset = self.details.offset if self._outcome == "append" else 0
        expected = expected_bytes(size, self._total, offset) if self.details.type == "I" else None
        self._ready = TransferReady(
            reply=reply,
            size=size,
            expected=frozenset(expected) if expected is not None else None,
            outcome=self._outcome,
            total=self._total,
            listing_format=self._listing_format,
            command=transfer.shown,
            modified=self._modified,
            checked=transfer.role is FTPRole.LIST and FTPRole.RELIST in self._by_role,
        )
        self.state = State.TRANSFERRING
        self._events.append(self._ready)

    def _finish(self) -> None:
        quit_step = self._step(FTPRole.QUIT)
        if quit_step.due(self.keep):
            self._send(quit_step, None, State.QUIT)
        else:
            # Bytes behind the final reply were sent unasked (a second 226, a 421 notice):
            # the connection is out of step — closed, never kept, or the next URL would read
            # them as its first reply (issue 30).
            self.state = State.DONE
            self._events.append(Done(keep=not self._buffer))

    # -- helpers ---------------------------------------------------------------------------

    def _send(self, step: Step, data: bytes | None, state: State) -> None:
        self._current = step
        self._waiting_for = step.shown.split(" ", 1)[0]
        self.state = state
        self._events.append(Send(step, (step.data if data is None else data) + b"\r\n"))

    def _step(self, role: FTPRole) -> Step:
        step = self._optional(role)
        if step is None:
            raise AssertionError(f"the FTP plan has no {role} step")  # a planner defect
        return step

    def _optional(self, role: FTPRole) -> Step | None:
        return self._by_role.get(role)

    #: The reply each waiting state reads, and what decides on it.
    _HANDLERS: ClassVar[dict[State, Callable[[FTPMachine, Reply], None]]] = {
        State.GREETING: _on_greeting,
        State.AUTH: _on_auth,
        State.USER: _after_user,
        State.PASS: _on_pass,
        State.SETUP: _on_setup,
        State.TYPE: _on_type,
        State.FEAT: _on_feat,
        State.SIZE: _on_size,
        State.MDTM: _on_mdtm,
        State.EPSV: _on_epsv,
        State.PASV: _on_pasv,
        State.REST: _on_rest,
        State.TRANSFER: _on_transfer,
        State.FINAL: _on_final,
        State.QUIT: _on_quit,
    }


__all__ = [
    "NEED_DATA",
    "PAUSED",
    "DataPortRefused",
    "Done",
    "Event",
    "FTPMachine",
    "Facts",
    "NothingMissing",
    "OpenData",
    "PasswordWanted",
    "Received",
    "Send",
    "StartTLS",
    "State",
    "TransferReady",
    "refusal",
]
