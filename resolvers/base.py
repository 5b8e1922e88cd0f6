"""The shape every resolver has: a pure planner and an async executor.

A resolver is a class registered for one or more schemes.  :meth:`Resolver.plan` is pure
(URL and options in, :class:`Plan` out, no I/O) — it is what ``omniurl plan`` prints.
:meth:`Resolver.execute` carries out exactly that plan, after the safety policy accepted it,
and returns a :class:`Resource`; it may skip a conditional step, never add one.

To follow a redirect or a referral, an executor raises :class:`Follow` with the new URL: the
core re-plans it, re-checks it against the policy, and resolves it (bounded).
"""

from __future__ import annotations

import argparse
from typing import Any, ClassVar

from omniurl.schemes.base import URL

from .errors import ResolveError
from .options import Options
from .plan import Plan
from .resource import Resource


class Follow(ResolveError):
    """Raised by an executor to go on to another URL (redirect, referral, access method)."""

    def __init__(self, target: URL, *, reason: str, replies: list[str] | None = None) -> None:
        super().__init__(f"{reason}: {target}", component="location")
        self.target = target
        self.reason = reason
        self.replies = replies or []


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

    # -- command-line integration (optional) --------------------------------------------

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        """Add this scheme's options to ``omniurl get``/``plan`` (e.g. ``--smtp``)."""

    @classmethod
    def options_from_args(cls, args: argparse.Namespace) -> dict[str, Any]:
        """The ``Options.extra`` entries that this resolver's arguments set."""
        return {}

    async def present(self, resource: Resource, args: argparse.Namespace) -> int | None:
        """Present a resource on the terminal in a scheme-specific way (telnet attaches the
        terminal).  Return an exit status, or ``None`` for the generic presentation."""
        return None
