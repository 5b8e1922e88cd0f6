"""Access plans: the exact protocol steps a URL stands for, as data.

A planner (the pure half of a resolver, the "h11" half) turns a parsed URL into a
:class:`Plan` without touching the network.  ``omniurl plan`` prints it; the safety policy
checks it; the executor carries out exactly its steps, in order, and never a step it does not
show.  A step marked ``when`` is conditional (``PASS`` is sent only if the server answers
``331``): the executor may skip it, never add to it.

Each step records which decoded URL values went into it (:class:`WireValue`), with the name of
the URL component they came from and the *context* they are sent in.  The safety policy
decides, per context, which octets are delimiters that must never appear inside a value —
the planners only say where a value goes, so every delimiter rule lives in one place
(``resolvers.policy``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from enum import StrEnum

from omniurl.schemes.base import URL
from omniurl.schemes.records import field, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Generic, Literal, TypeVar

    Transport = Literal["tcp", "udp"]
    StepKind = Literal["send", "expect", "datagram", "message", "info"]
    D = TypeVar("D")
    F = TypeVar("F")
else:  # (typing is not imported on the command's start: schemes/records.py)
    from omniurl.schemes.records import Generic

    F = None  # (a type parameter: read by the type checker only)


@record(frozen=True)
class WireValue:
    """A decoded value from the URL that is sent inside a step.

    ``component`` names the URL part (``"cwd[2]"``, ``"selector"``, ``"user"``) so a refusal can
    say exactly what to fix; ``context`` names the wire context (a key of
    ``resolvers.policy.DELIMITERS``: ``"line"``, ``"gopher"``, ``"telnet"``, ``"header"``...).
    """

    component: str
    value: bytes
    context: str = "line"


class Role(StrEnum):
    """What a step is for.  Each scheme derives its own vocabulary (``FTPRole.CWD``,
    ``NNTPRole.OVER``, ``SMTPRole.RCPT``…) and its executor dispatches on it — never on a
    step's position or its bytes.  A ``StrEnum``: ``omniurl plan --json`` prints the value."""


@record(frozen=True)
class Condition(Generic[F]):
    """A conditional step's condition: the words ``omniurl plan`` prints (``text``) and the
    pure decision the executor asks (``decide``), written once, side by side.

    ``decide`` takes what the replies so far have shown (a reply code, the capabilities, a
    size) and says whether the step is due; it is tested without sockets.
    """

    text: str
    decide: Callable[[F], bool] = field(compare=False)

    def __call__(self, facts: F) -> bool:
        return self.decide(facts)

    def __str__(self) -> str:
        return self.text


@record(frozen=True)
class Step:
    """One protocol step.

    ``data`` is exactly what is sent (for ``send``: one command line *without* its line ending;
    for ``datagram``/``message``: the whole payload); ``shown`` is how ``omniurl plan`` prints it,
    with secrets masked (``PASS ****``).  ``kind`` is ``send`` (a line), ``expect`` (wait for a
    pattern, telnet), ``datagram`` (one UDP payload), ``message`` (a whole multi-line payload:
    an SMTP message, a binary APDU) or ``info`` (a note that sends nothing).  ``when`` is the
    condition of a conditional step, in words ("reply 331"); ``condition`` is the same
    condition as a pure decision (see :class:`Condition`), set for every built-in one.
    """

    data: bytes
    shown: str
    kind: StepKind = "send"
    when: str | None = None
    values: tuple[WireValue, ...] = ()
    #: What the step is for, in the scheme's own typed vocabulary (see :class:`Role`).
    role: Role | None = None
    #: Step-specific facts for the executor, never sent: a frozen dataclass of the scheme's
    #: planner (FTP's ``Password``, HTTP's ``HeaderField``…), read with :meth:`detail_as`.
    detail: object | None = None
    #: The decision behind ``when`` (``None`` for an unconditional step).
    condition: Condition[Any] | None = None

    @classmethod
    def line(
        cls,
        text: str | bytes,
        *,
        shown: str | None = None,
        when: str | Condition[Any] | None = None,
        values: Iterable[WireValue] = (),
        role: Role | None = None,
        detail: object | None = None,
        encoding: str = "utf-8",
    ) -> Step:
        """A command line; ``text`` given as ``str`` is encoded losslessly (surrogateescape).
        ``when`` given as a :class:`Condition` sets both the words and the decision."""
        data = text if isinstance(text, bytes) else text.encode(encoding, "surrogateescape")
        if shown is None:
            shown = data.decode("utf-8", "backslashreplace")
        condition = when if isinstance(when, Condition) else None
        return cls(
            data=data,
            shown=shown,
            kind="send",
            when=when.text if isinstance(when, Condition) else when,
            values=tuple(values),
            role=role,
            detail=detail,
            condition=condition,
        )

    def due(self, facts: Any) -> bool:
        """Whether the step is to be sent, given what the replies so far have shown (its
        :class:`Condition`'s decision); an unconditional step always is."""
        return self.condition is None or self.condition(facts)

    def detail_as(self, kind: type[D]) -> D:
        """The step's :attr:`detail`, which the planner made a ``kind``."""
        detail = self.detail
        if isinstance(detail, kind):  # (the message below only for a defect: not built)
            return detail
        return _typed(detail, kind, f"step {self.shown!r}")


def _typed(value: object, kind: type[D], what: str) -> D:
    if not isinstance(value, kind):
        # A planner and its executor disagree: a defect in the resolver, not in the URL.
        raise TypeError(f"{what} carries {type(value).__name__}, not {kind.__name__}")
    return value


def masked_url(url: URL) -> str:
    """``str(url)`` with a password replaced by ``****`` (plans are printed and logged)."""
    if getattr(url, "password", None):
        return str(url.replace(password="****"))
    return str(url)


@record(frozen=True)
class Plan:
    """What a URL stands for: where to connect and the exact steps to take there.

    ``port`` is the port a connection goes to (explicit or default); ``explicit_port`` says
    whether the URL named it, which is what the port policy looks at.  ``transport`` is
    ``None`` where nothing goes over the network (``file:``, a mailto draft).
    """

    url: URL
    scheme: str
    host: str | None
    port: int | None
    transport: Transport | None
    steps: tuple[Step, ...]
    explicit_port: bool = False
    #: Scheme-specific facts the executor needs (never sent): a frozen dataclass of the
    #: scheme's planner (``FTPDetails``, ``HTTPDetails``…), read with :meth:`details_as`.
    details: object | None = None

    def details_as(self, kind: type[D]) -> D:
        """The plan's :attr:`details`, which the planner made a ``kind``."""
        details = self.details
        if isinstance(details, kind):  # (str(url) only for a defect: 1.26 → 0.16 µs a call)
            return details
        return _typed(details, kind, f"the plan for {masked_url(self.url)}")

    @property
    def resumable(self) -> bool:
        """Whether the plan can start at a byte offset (``-C``): its details say so with a
        ``resumable: bool`` field (FTP, HTTP); a plan without says no."""
        return bool(getattr(self.details, "resumable", False))

    @property
    def listing(self) -> bool:
        """Whether the plan's answer is a listing: its details say so with a
        ``listing: bool`` field (FTP, file)."""
        return bool(getattr(self.details, "listing", False))

    def to_json(self) -> dict[str, Any]:
        """The ``omniurl plan`` object: a stable contract; keys never change.

        ``steps`` are the lines exactly as sent (secrets masked); ``when`` is aligned with it.
        """
        return {
            "url": masked_url(self.url),
            "scheme": self.scheme,
            "host": self.host,
            "port": self.port,
            "transport": self.transport,
            "steps": [s.shown for s in self.steps],
            # Aligned with "steps": the condition of a conditional step ("reply 331"), else
            # null.  A conditional step may be skipped; no step outside the list is ever sent.
            "when": [s.when for s in self.steps],
        }

    def wire_values(self) -> Iterable[WireValue]:
        for step in self.steps:
            yield from step.values
