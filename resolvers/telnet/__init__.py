"""``telnet:`` URLs (RFC 1738 §3.8): an interactive session, optionally logged in.

``omniurl get telnet://host/`` attaches the terminal (raw mode, ``^]`` closes, like
telnet(1)); ``--login`` answers the login and password prompts with the URL's advisory user
and password; ``--script FILE`` runs expect/send pairs without a person and prints the
transcript.  From the library, the resource's ``session`` is a
:class:`~resolvers.telnet.session.TelnetSession` (``expect``, ``send``, ``read``, ``close``).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from omniurl.schemes.base import URL

from .. import lazy
from ..base import Resolver
from ..options import Options
from ..plan import Plan
from ..resource import Resource
from ..spec import Presentation, SchemeSpec
from .settings import DEFAULT_LOGIN_PROMPT, DEFAULT_PASSWORD_PROMPT, TelnetOptions

if TYPE_CHECKING:
    import argparse

    from .planner import ScriptStep, parse_script
    from .session import TelnetSession

__all__ = ["SPEC", "ScriptStep", "TelnetOptions", "TelnetResolver", "TelnetSession", "parse_script"]

# The planner, the session and the executor are imported on first use (see
# resolvers/lazy.py): every ``omniurl get``/``plan`` imports this package for its options.
__getattr__ = lazy.exports(
    __name__,
    {"ScriptStep": ".planner", "parse_script": ".planner", "TelnetSession": ".session"},
)


class TelnetResolver(Resolver):
    """Plans and opens telnet sessions."""

    schemes = ("telnet",)

    def plan(self, url: URL, options: Options) -> Plan:
        from .planner import parse_script, plan_telnet

        mine = options.of(TelnetOptions)
        script = mine.script
        if isinstance(script, str):
            script = parse_script(script)
        return plan_telnet(
            url,
            auto_login=mine.login,
            login_prompt=mine.login_prompt or DEFAULT_LOGIN_PROMPT,
            password_prompt=mine.password_prompt or DEFAULT_PASSWORD_PROMPT,
            script=script,
        )

    async def execute(self, plan: Plan, options: Options) -> Resource:
        from . import executor

        return await executor.execute(plan, options)


class TelnetPresentation(Presentation):
    """A session: the terminal attached, or a script's transcript; no gateway page can hold
    one (the page says how to connect)."""

    async def present(self, resource: Resource, args: argparse.Namespace) -> int | None:
        """Script mode: print the transcript; otherwise attach the terminal."""
        session: TelnetSession = resource.session
        from .planner import TelnetDetails

        details = resource.plan.details
        scripted = isinstance(details, TelnetDetails) and details.scripted
        guard = resource.guard  # (--max-time bounds the session too: the rest of it)
        if scripted or getattr(args, "json", False):
            left = guard.time_left() if guard is not None else None
            limit = None if left is None else min(session.options.read_timeout, left)
            await session.read_until_quiet(0.5, limit=limit)
            await session.close()
            if getattr(args, "json", False):
                if guard is not None:
                    guard.check_max_time()  # (one JSON document: the error's)
                described = resource.describe()
                transcript = session.history.decode("utf-8", "replace")
                import json  # (here: every command's start loads this spec for its flags)

                metadata = {**described["metadata"], "transcript": transcript}
                described = {**described, "metadata": metadata}
                sys.stdout.write(json.dumps(described, ensure_ascii=False) + "\n")
            else:
                sys.stdout.buffer.write(bytes(session.history))
                sys.stdout.flush()
                if guard is not None:
                    # A server still talking at -m's end: the transcript so far is shown
                    # (as curl keeps what arrived), then the error every scheme gives for -m.
                    guard.check_max_time()
            return 0
        from .planner import TelnetRole

        user = details.user if isinstance(details, TelnetDetails) else None
        logged_in = any(s.role is TelnetRole.LOGIN_OUTCOME for s in resource.plan.steps)
        if user is not None and not logged_in:
            sys.stderr.write(
                f"omniurl: advisory user {user!r} (RFC 1738 §3.8); --login answers the prompts\n"
            )
        from ..net import authority

        sys.stderr.write(
            f"omniurl: connected to {authority(session.host, session.port)}; ^] closes\n"
        )
        sys.stderr.flush()
        from .terminal import attach

        return await attach(session, guard=guard)

    async def gateway_page(
        self, url: str, plan: Plan, pages: Any, options: Options, config: Any
    ) -> Any | None:
        return pages.message(
            url,
            200,
            "A telnet session",
            "This URL names an interactive session, which a web page cannot hold. "
            "Connect with a telnet client:",
            command=f"telnet {plan.host} {plan.port}",
        )


SPEC = SchemeSpec(
    names=("telnet",),
    title="telnet",
    description="A telnet URL's user and password are advisory (RFC 1738 §3.8): they are "
    "only sent with --login.  `get` attaches the terminal; ^] closes the session.",
    resolver=TelnetResolver,
    options=TelnetOptions,
    presentation=TelnetPresentation,
    default_port=23,
    # a session, not a file
    fsspec=False,
    urllib=False,
    test_server="telnet",
    resume_note="a telnet session is not a transfer",
    result="omniurl.resolvers.telnet.result:TelnetResult",
)
