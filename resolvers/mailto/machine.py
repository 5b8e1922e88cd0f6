"""An SMTP client conversation (RFC 5321) as a pure state machine: bytes in, events out.

The plan (:mod:`resolvers.mailto.planner`) lists the commands; this machine sends them in
order and decides on every reply code, without a socket: the executor feeds it what the
relay said (:meth:`SMTPMachine.receive_data`, ``b""`` at end of stream) and reads events
(:meth:`SMTPMachine.next_event`) until :data:`NEED_DATA`, or :data:`PAUSED` while the
executor runs a TLS handshake (:class:`StartTLS`, then :meth:`SMTPMachine.tls_started`) or
looks up a password (:class:`PasswordWanted`, then :meth:`SMTPMachine.password`).

- a reply is ``ddd-text`` … ``ddd text`` (§4.2), bounded in line length and count;
- greeting 220 (§4.3.2), ``EHLO`` 250 and its keywords (§4.1.1.1: AUTH's mechanisms,
  STARTTLS), ``STARTTLS`` 220 (RFC 3207), then ``EHLO`` again;
- ``AUTH`` (RFC 4954) once, with the strongest mechanism both sides know — CRAM-MD5
  (RFC 2195), PLAIN (RFC 4616), LOGIN — 235 or an :class:`~resolvers.errors.AuthError`;
  never a second mechanism after a refusal (that would send the password again);
- ``MAIL FROM`` 250 (§4.1.1.2), each ``RCPT TO`` 250/251 (§4.1.1.3), ``DATA`` 354, the
  message dot-stuffed (§4.5.2) and ended with ``.``, 250; ``QUIT`` 221.
"""

from __future__ import annotations

import base64
import enum
import hmac
import re
from collections import deque
from dataclasses import dataclass

from ..errors import AuthError, ConnectionClosed, LimitExceeded, ProtocolError, ReplyError
from ..plan import Plan, Step
from ..sansio import NEED_DATA, PAUSED, Sentinel
from .planner import Login, MailtoDetails, Recipient, SMTPRole

#: The mechanisms omniurl speaks, strongest first (aiosmtplib's order, kept).
MECHANISMS = ("CRAM-MD5", "PLAIN", "LOGIN")
MAX_REPLY_LINES = 1000
_REPLY = re.compile(rb"(\d{3})([ -]?)(.*)")


class State(enum.Enum):
    REPLY = "reply"  # the reply to what was sent (or the greeting)
    TLS = "tls"  # paused: the executor's handshake
    PASSWORD = "password"  # paused: the executor's password
    DONE = "done"


@dataclass(frozen=True)
class Reply:
    code: int
    lines: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.code} {chr(10).join(self.lines)}".strip()


@dataclass(frozen=True)
class Received:
    reply: Reply


@dataclass(frozen=True)
class Send:
    """Write ``data``; ``shown`` is what a transcript prints (no secret, no message)."""

    shown: str
    data: bytes


@dataclass(frozen=True)
class StartTLS:
    """``220`` to ``STARTTLS``: the handshake, then :meth:`SMTPMachine.tls_started`."""


@dataclass(frozen=True)
class PasswordWanted:
    """AUTH is next: the relay user's password, then :meth:`SMTPMachine.password`."""

    user: str


@dataclass(frozen=True)
class Done:
    """``QUIT`` was answered: the message was accepted (its 250 came before)."""


Event = Received | Send | StartTLS | PasswordWanted | Done


def _b64(data: bytes) -> bytes:
    return base64.b64encode(data)


class SMTPMachine:
    """One relay conversation for one plan (see the module's docstring)."""

    def __init__(self, plan: Plan, *, max_line: int = 65536) -> None:
        self.plan = plan
        self.details = plan.details_as(MailtoDetails)
        relay = self.details.relay
        assert relay is not None, "a draft has no SMTP conversation"
        self.where = f"{relay.host}:{relay.port}"
        self.max_line = max_line
        self.state = State.REPLY
        #: The keywords of the last EHLO reply (RFC 5321 §4.1.1.1), upper case.
        self.extensions: dict[str, str] = {}
        self._steps = deque(s for s in plan.steps if isinstance(s.role, SMTPRole))
        self._current: Step | None = None  # None: the greeting
        self._auth: list[bytes] = []  # what the chosen mechanism sends next, after each 334
        self._mechanism = ""
        self._user = ""
        self._secret = b""
        self._buffer = bytearray()
        self._lines: list[str] = []
        self._eof = False
        self._events: deque[Event] = deque()

    # -- the executor's side ---------------------------------------------------------------

    def receive_data(self, data: bytes) -> None:
        if data:
            self._buffer += data
        else:
            self._eof = True

    def next_event(self) -> Event | Sentinel:
        while not self._events:
            if self.state is not State.REPLY:
                return PAUSED
            reply = self._next_reply()
            if reply is None:
                return NEED_DATA
            self._events.append(Received(reply))
            self._on_reply(reply)
        return self._events.popleft()

    def tls_started(self) -> None:
        assert self.state is State.TLS
        self.extensions = {}  # RFC 3207 §4.2: forget what the plain-text EHLO said
        self._next_step()

    def password(self, secret: str) -> None:
        """The password for :class:`PasswordWanted`: AUTH goes out with it."""
        assert self.state is State.PASSWORD
        self._secret = secret.encode("utf-8")
        mechanisms = self.extensions.get("AUTH", "").upper().split()
        mechanism = next((m for m in MECHANISMS if m in mechanisms), None)
        if mechanism is None:
            raise ProtocolError(
                f"the SMTP relay {self.where} cannot: no AUTH mechanism we know (RFC 4954)"
            )
        self._mechanism = mechanism
        user = self._user.encode("utf-8")
        if mechanism == "PLAIN":  # RFC 4616: the initial response on the command line
            line = b"AUTH PLAIN " + _b64(b"\0" + user + b"\0" + self._secret)
            self._auth = []
        elif mechanism == "LOGIN":
            line, self._auth = b"AUTH LOGIN", [_b64(user), _b64(self._secret)]
        else:  # CRAM-MD5: the answer depends on the challenge (RFC 2195)
            line, self._auth = b"AUTH CRAM-MD5", []
        self._send(f"AUTH {mechanism}", line + b"\r\n")

    # -- replies ---------------------------------------------------------------------------

    def _next_reply(self) -> Reply | None:
        """One whole reply (RFC 5321 §4.2): ``ddd-`` lines, then ``ddd`` or ``ddd text``."""
        while True:
            cut = self._buffer.find(b"\n")
            if cut < 0:
                if len(self._buffer) > self.max_line + 2:
                    raise LimitExceeded(
                        f"the SMTP relay {self.where} sent an invalid reply: a line longer "
                        f"than {self.max_line} bytes"
                    )
                if self._eof:
                    raise ConnectionClosed(
                        f"the SMTP relay {self.where} closed the connection"
                        + (" in the middle of a reply" if self._buffer or self._lines else "")
                    )
                return None
            line = bytes(self._buffer[:cut]).rstrip(b"\r")
            del self._buffer[: cut + 1]
            m = _REPLY.fullmatch(line)
            if m is None or (m.group(2) == b"" and m.group(3)):
                raise ProtocolError(
                    f"the SMTP relay {self.where} sent an invalid reply: {line[:80]!r}"
                )
            self._lines.append(m.group(3).decode("utf-8", "replace"))
            if len(self._lines) > MAX_REPLY_LINES:
                raise LimitExceeded(f"the SMTP relay {self.where} sent a reply too long")
            if m.group(2) != b"-":
                lines, self._lines = tuple(self._lines), []
                return Reply(int(m.group(1)), lines)

    def _on_reply(self, reply: Reply) -> None:
        step = self._current
        code = reply.code
        if step is None:  # the greeting (§4.3.2: 220; 554 no service)
            if code != 220:
                raise self._refused(reply)
            self._next_step()
            return
        role = step.role
        if role is SMTPRole.EHLO:
            if code != 250:
                raise self._refused(reply)
            self.extensions = _extensions(reply)
            self._next_step()
        elif role is SMTPRole.STARTTLS:
            if code != 220:
                raise self._refused(reply)
            self.state = State.TLS
            self._events.append(StartTLS())
        elif role is SMTPRole.AUTH:
            self._on_auth(reply)
        elif role is SMTPRole.MAIL:
            if code != 250:  # RFC 5321 §4.1.1.2
                raise ReplyError(
                    f"the SMTP relay refused sender {self.details.sender}: {reply}",
                    component="sender",
                    code=code,
                    reply=_text(reply),
                )
            self._next_step()
        elif role is SMTPRole.RCPT:
            if code not in (250, 251):  # RFC 5321 §4.1.1.3
                address = step.detail_as(Recipient).address
                raise ReplyError(
                    f"the SMTP relay refused recipient {address}: {reply}",
                    component=_component_of(self.plan, address),
                    code=code,
                    reply=_text(reply),
                )
            self._next_step()
        elif role is SMTPRole.DATA:
            if code != 354:
                raise self._refused(reply)
            self._next_step()
        elif role is SMTPRole.MESSAGE:
            if code != 250:
                raise self._refused(reply)
            self._next_step()
        elif role is SMTPRole.QUIT:
            self.state = State.DONE
            self._events.append(Done())

    def _on_auth(self, reply: Reply) -> None:
        if reply.code == 235:  # RFC 4954 §6: authentication succeeded
            self._secret = b""
            self._next_step()
            return
        if reply.code != 334:
            raise AuthError(f"the SMTP relay refused the login: {reply}", component="smtp")
        if self._mechanism == "CRAM-MD5" and not self._auth:
            try:
                challenge = base64.b64decode("".join(reply.lines), validate=True)
            except ValueError:
                raise ProtocolError(
                    f"the SMTP relay {self.where} sent an invalid CRAM-MD5 challenge"
                ) from None
            digest = hmac.new(self._secret, challenge, "md5").hexdigest().encode()
            self._auth = [_b64(self._user.encode("utf-8") + b" " + digest), b""]
        if not self._auth or not self._auth[0]:
            raise AuthError(f"the SMTP relay refused the login: {reply}", component="smtp")
        self._send("(AUTH response)", self._auth.pop(0) + b"\r\n")

    def _refused(self, reply: Reply) -> ReplyError:
        return ReplyError(
            f"the SMTP relay {self.where} refused: {reply}", code=reply.code, reply=_text(reply)
        )

    # -- steps -----------------------------------------------------------------------------

    def _next_step(self) -> None:
        step = self._steps.popleft()
        self._current = step
        self.state = State.REPLY
        if step.role is SMTPRole.AUTH:
            self._user = step.detail_as(Login).user
            self.state = State.PASSWORD
            self._events.append(PasswordWanted(self._user))
        elif step.role is SMTPRole.MESSAGE:
            # §4.5.2: a line that starts with "." gets one more; the data ends CRLF "." CRLF.
            data = step.data if step.data.endswith(b"\r\n") else step.data + b"\r\n"
            stuffed = re.sub(rb"(?m)^\.", b"..", data)
            self._events.append(Send(f"({len(step.data)} octets)", stuffed + b".\r\n"))
        else:
            self._send(step.shown, step.data + b"\r\n")

    def _send(self, shown: str, data: bytes) -> None:
        self.state = State.REPLY
        self._events.append(Send(shown, data))


def _extensions(reply: Reply) -> dict[str, str]:
    """EHLO's keywords (RFC 5321 §4.1.1.1: the lines after the first), upper-cased."""
    out: dict[str, str] = {}
    for line in reply.lines[1:]:
        keyword, _, params = line.partition(" ")
        out[keyword.upper()] = params
    return out


def _text(reply: Reply) -> str:
    return "\n".join(reply.lines)


def _component_of(plan: Plan, recipient: str) -> str:
    """The URL component an address came from (for errors)."""
    raw = recipient.encode("utf-8", "surrogateescape")
    for value in plan.wire_values():
        if value.context == "addr-spec" and value.value == raw and value.component != "sender":
            return value.component
    return "address"


__all__ = [
    "MECHANISMS",
    "NEED_DATA",
    "PAUSED",
    "Done",
    "Event",
    "PasswordWanted",
    "Received",
    "Reply",
    "SMTPMachine",
    "Send",
    "StartTLS",
    "State",
]
