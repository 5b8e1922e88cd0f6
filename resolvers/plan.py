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

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from omniurl.schemes.base import URL

Transport = Literal["tcp", "udp"]
StepKind = Literal["send", "expect", "datagram", "message", "info"]


@dataclass(frozen=True)
class WireValue:
    """A decoded value from the URL that is sent inside a step.

    ``component`` names the URL part (``"cwd[2]"``, ``"selector"``, ``"user"``) so a refusal can
    say exactly what to fix; ``context`` names the wire context (a key of
    ``resolvers.policy.DELIMITERS``: ``"line"``, ``"gopher"``, ``"telnet"``, ``"header"``...).
    """

    component: str
    value: bytes
    context: str = "line"


@dataclass(frozen=True)
class Step:
    """One protocol step.

    ``data`` is exactly what is sent (for ``send``: one command line *without* its line ending;
    for ``datagram``/``message``: the whole payload); ``shown`` is how ``omniurl plan`` prints it,
    with secrets masked (``PASS ****``).  ``kind`` is ``send`` (a line), ``expect`` (wait for a
    pattern, telnet), ``datagram`` (one UDP payload), ``message`` (a whole multi-line payload:
    an SMTP message, a binary APDU) or ``info`` (a note that sends nothing).  ``when`` is the
    condition of a conditional step, in words ("reply 331").
    """

    data: bytes
    shown: str
    kind: StepKind = "send"
    when: str | None = None
    values: tuple[WireValue, ...] = ()
    #: Free, step-specific data for the executor (e.g. the TYPE a RETR expects); never sent.
    meta: tuple[tuple[str, Any], ...] = ()
    #: What the step is for, in the scheme's own vocabulary (FTP ``"cwd"``, ``"transfer"``;
    #: NNTP ``"group"``…): executors dispatch on it, never on a step's position or bytes.
    role: str | None = None

    @classmethod
    def line(
        cls,
        text: str | bytes,
        *,
        shown: str | None = None,
        when: str | None = None,
        values: Iterable[WireValue] = (),
        meta: dict[str, Any] | None = None,
        encoding: str = "utf-8",
        role: str | None = None,
    ) -> Step:
        """A command line; ``text`` given as ``str`` is encoded losslessly (surrogateescape)."""
        data = text if isinstance(text, bytes) else text.encode(encoding, "surrogateescape")
        if shown is None:
            shown = data.decode("utf-8", "backslashreplace")
        return cls(
            data=data,
            shown=shown,
            kind="send",
            when=when,
            values=tuple(values),
            meta=tuple((meta or {}).items()),
            role=role,
        )

    def get(self, key: str, default: Any = None) -> Any:
        """Look up a ``meta`` entry (``"role"`` is the typed field when set)."""
        if key == "role" and self.role is not None:
            return self.role
        for k, v in self.meta:
            if k == key:
                return v
        return default


def masked_url(url: URL) -> str:
    """``str(url)`` with a password replaced by ``****`` (plans are printed and logged)."""
    if getattr(url, "password", None):
        return str(url.replace(password="****"))
    return str(url)


@dataclass(frozen=True)
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
    #: Scheme-specific facts the executor needs (never sent), as ``(key, value)`` pairs.
    meta: tuple[tuple[str, Any], ...] = field(default=())
    #: The same facts typed: a frozen dataclass of the scheme's planner (``FTPDetails``,
    #: ``HTTPDetails``) that its executor reads by attribute.  :meth:`get` sees both.
    details: Any = None

    def get(self, key: str, default: Any = None) -> Any:
        if self.details is not None and hasattr(self.details, key):
            return getattr(self.details, key)
        for k, v in self.meta:
            if k == key:
                return v
        return default

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
