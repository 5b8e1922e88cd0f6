"""The gateway's settings: the policy it resolves under, and its bounds."""

from __future__ import annotations

from dataclasses import dataclass, field

from omniurl.resolvers.options import Options
from omniurl.resolvers.policy import STRICT, Policy


@dataclass(frozen=True)
class GatewayConfig:
    """What the gateway allows and how much it does at once.

    The policy is ``--strict`` plus the operator's openings (``allow_hosts`` may resolve to
    loopback or private addresses, ``allow_ports`` are allowed although not default).
    """

    allow_hosts: frozenset[str] = frozenset()
    allow_ports: frozenset[int] = frozenset()
    #: The SMTP relay for mailto: forms (``--smtp HOST[:PORT]``); None: drafts only.
    smtp: str | None = None
    #: Requests resolved at once, in all and per client address.
    max_concurrent: int = 64
    max_per_client: int = 8
    #: Seconds a client waits for a free slot before a 503.
    queue_timeout: float = 10.0
    #: The whole resolution (connect, login, first bytes) and each read upstream.
    max_time: float = 30.0
    read_timeout: float = 15.0
    #: Text rendered in a page (larger content is streamed as a download instead).
    max_render_bytes: int = 1 << 20
    #: Listing entries rendered (the rest is cut off, with a note).
    max_entries: int = 5000
    #: Seconds a client has to send a request's whole head (slowloris; 408 after) and the
    #: connections one client address may hold open at once (429 beyond): gateway.guard.
    head_timeout: float = 10.0
    max_connections_per_client: int = 32
    options: Options = field(default_factory=Options)

    def policy(self) -> Policy:
        return STRICT.allowing_ports(self.allow_ports).allowing_hosts(self.allow_hosts)

    def resolve_options(self) -> Options:
        """The options every URL is resolved with; each scheme's presentation may add its
        own (``Presentation.gateway_options``: the relay of mailto: forms is ``smtp``)."""
        return self.options.with_(
            policy=self.policy(),
            max_time=self.max_time,
            read_timeout=self.read_timeout,
            connect_timeout=min(self.options.connect_timeout, self.max_time),
            ask=None,
            transcript=None,
            stream_listings=True,
        )


__all__ = ["GatewayConfig"]
