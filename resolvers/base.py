"""The shape every resolver has: a pure planner and an async executor.

A resolver is a class named by a scheme's spec (resolvers.spec.SchemeSpec).
:meth:`Resolver.plan` is pure (URL and options in, :class:`Plan` out, no I/O) — it is what
``omniurl plan`` prints.  :meth:`Resolver.execute` carries out exactly that plan, after the
safety policy accepted it, and returns a :class:`Resource`; it may skip a conditional step,
never add one.  How a resource is shown (terminal, JSON, the gateway) is the spec's
:class:`~resolvers.spec.Presentation`, not the resolver's: a resolver knows no terminal.

To follow a redirect or a referral, an executor raises :class:`Follow` with the new URL: the
core re-plans it, re-checks it against the policy, and resolves it (bounded).  ``Follow`` is
control flow, not an error: ``except ResolveError`` never catches it.
"""

from __future__ import annotations

from omniurl.schemes.base import URL

from .options import Options
from .plan import Plan

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import ClassVar

    from .batching import BatchEngine
    from .resource import Resource


class Follow(Exception):
    """Raised by an executor to go on to another URL (redirect, referral, access method).

    The core catches it, checks the new URL against the policy and resolves it; with
    ``Options(follow=False)`` the caller gets :class:`~resolvers.errors.NotFollowed`."""

    def __init__(
        self,
        target: URL,
        *,
        reason: str,
        replies: list[str] | None = None,
        limit: int | None = None,
    ) -> None:
        super().__init__(f"{reason}: {target}")
        self.target = target
        self.reason = reason
        self.replies = replies or []
        #: The protocol's own bound on a chain of these (a Gemini client follows at most 5
        #: redirects), below the policy's ``max_redirects``; None: the policy's alone.
        self.limit = limit


class Resolver:
    """Base class of every resolver (built-in or plugin)."""

    #: The schemes this resolver handles (lower case).
    schemes: ClassVar[tuple[str, ...]] = ()

    def plan(self, url: URL, options: Options) -> Plan:
        """The exact protocol steps ``url`` stands for; pure, no I/O."""
        raise NotImplementedError

    async def execute(self, plan: Plan, options: Options) -> Resource:
        """Carry out ``plan`` (already checked by the policy) and return the resource."""
        raise NotImplementedError

    def first_connection(self, plan: Plan, options: Options) -> tuple[str, int] | None:
        """The ``(host, port)`` that :meth:`execute` connects to first, as a plain TCP
        connection through :func:`resolvers.net.connect`, when it does that before anything
        else (nothing asked of a person, no kept connection looked for, no TLS context
        made); None when not known or not so (the default).  What ``omniurl get`` may begin
        connecting to while it is still starting (resolvers/early.py)."""
        return None

    def batch_engine(self, options: Options) -> BatchEngine | None:
        """An engine that carries a batch's URLs of this resolver's schemes
        (:func:`omniurl.batch.fetch_many`) with less work a URL than one :meth:`execute`
        each, or None (the default: every URL goes through the general path).

        Why a hook: a batch of many small files spends most of its CPU in the layering
        around each exchange (docs/speed.md, *Batches*), and only the resolver knows its
        protocol well enough to skip it safely; the batch names no scheme (the issue "one
        scheme spec"), so it asks each resolver.  An engine keeps the general path's bytes,
        rows, errors and exit statuses, and hands what it does not take whole back to the
        general path (:class:`~resolvers.batching.BatchEngine`).  Asked at most once a
        batch (at its first URL of these schemes, within its event loop), and not at all
        under ``OMNIURL_BATCH_LEAN=0``."""
        return None

    def prepare(self, options: Options, *, engine: bool) -> None:
        """Import now what carrying out this resolver's URLs under ``options`` will need
        (its executor; with ``engine``, its :meth:`batch_engine`'s module too, when it would
        give one): no I/O, nothing sent, no engine made.  The default: nothing.

        Why: a batch split across processes (:mod:`omniurl.batch_procs`) forks its workers
        from the command's process; what was imported before the fork each worker has in
        hand, what was not each one imports again, on the way to its first request (the
        HTTP engine's modules: ~10-12 ms of CPU in each process, docs/speed.md, *Batches*,
        eighth round).  Called once a scheme, before the fork, for the first URLs read."""
        return None
