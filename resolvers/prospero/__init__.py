"""The ``prospero:`` resolver (RFC 1738 §3.11): ARDP over UDP to a Prospero directory server.

``ardp`` (packet codec) and ``protocol`` (request/reply codec) and ``methods`` (access method
-> URL) are pure; ``planner`` turns a URL into the datagrams; ``executor`` sends them and
follows — or lists — the access methods.
"""

from __future__ import annotations

from typing import Any

from omniurl.schemes.base import URL
from omniurl.schemes.records import replace

from ..base import Resolver
from ..options import Options
from ..plan import Plan
from ..resource import Resource
from ..spec import Presentation, SchemeSpec
from .settings import ProsperoOptions

# The planner and the executor are imported on first use (see resolvers/lazy.py): every
# ``omniurl get``/``plan`` imports this package for its options.


class ProsperoResolver(Resolver):
    """Asks the directory server for the object's access methods, then follows the first
    one the policy allows (or lists them all)."""

    schemes = ("prospero",)

    def plan(self, url: URL, options: Options) -> Plan:
        from . import planner

        return planner.plan(url, options)

    async def execute(self, plan: Plan, options: Options) -> Resource:
        from . import executor

        return await executor.execute(plan, options)


class ProsperoPresentation(Presentation):
    """Under a policy that follows no change of scheme, the gateway lists the access
    methods as links rather than following one."""

    #: RFC 1630's ``%00`` ends the object's name: what follows is its version, as
    #: ``;OBJECT-VERSION=`` (which ``name_ends``' ";" cuts) says it (§3.11), so
    #: ``//pub/notes%001`` and ``//pub/notes;OBJECT-VERSION=1`` are both saved as ``notes``
    #: (the first was ``notes_1``: the NUL written "_", the version kept in the name).
    path_ends_at = "%00"

    def gateway_options(self, options: Options, config: Any) -> Options:
        # An access method is always another scheme (RFC 1738 §3.11), which the strict
        # policy never follows on its own: the page lists the methods as gateway links
        # (after any FORWARDED moves), each checked anew when the reader follows it.
        if options.policy.redirect_scheme_change:
            return options
        return options.with_scheme(replace(options.of(ProsperoOptions), list_methods=True))


SPEC = SchemeSpec(
    names=("prospero",),
    title="prospero",
    resolver=ProsperoResolver,
    options=ProsperoOptions,
    presentation=ProsperoPresentation,
    default_port=1525,
    test_server="prospero",
    resume_note="Prospero names objects; its access methods carry no byte offsets",
    result="omniurl.resolvers.prospero.result:ProsperoResult",
)

__all__ = ["SPEC", "ProsperoOptions", "ProsperoResolver"]
