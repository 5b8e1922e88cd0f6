"""``telnet:`` URLs (RFC 1738 §3.8): an interactive session, optionally logged in.

``omniurl get telnet://host/`` attaches the terminal (raw mode, ``^]`` closes, like
telnet(1)); ``--login`` answers the login and password prompts with the URL's advisory user
and password; ``--script FILE`` runs expect/send pairs without a person and prints the
transcript.  From the library, the resource's ``session`` is a
:class:`~resolvers.telnet.session.TelnetSession` (``expect``, ``send``, ``read``, ``close``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from omniurl.schemes.base import URL

from .. import lazy
from ..base import Resolver
from ..errors import PlanError
from ..options import Options
from ..plan import Plan
from ..registry import register
from ..resource import Resource
from .settings import (
    AUTO_LOGIN,
    DEFAULT_LOGIN_PROMPT,
    DEFAULT_PASSWORD_PROMPT,
    LOGIN_PROMPT,
    PASSWORD_PROMPT,
    SCRIPT,
)

if TYPE_CHECKING:
    from .planner import ScriptStep, parse_script
    from .session import TelnetSession

__all__ = ["ScriptStep", "TelnetResolver", "TelnetSession", "parse_script"]

# The planner, the session and the executor (telnetlib3) are imported on first use (see
# resolvers/lazy.py): every ``omniurl get``/``plan`` imports this package for its options.
__getattr__ = lazy.exports(
    __name__,
    {"ScriptStep": ".planner", "parse_script": ".planner", "TelnetSession": ".session"},
)


@register("telnet")
class TelnetResolver(Resolver):
    """Plans and opens telnet sessions."""

    def plan(self, url: URL, options: Options) -> Plan:
        from .planner import parse_script, plan_telnet

        script = options.get(SCRIPT) or ()
        if isinstance(script, str):
            script = parse_script(script)
        return plan_telnet(
            url,
            auto_login=bool(options.get(AUTO_LOGIN)),
            login_prompt=options.get(LOGIN_PROMPT) or DEFAULT_LOGIN_PROMPT,
            password_prompt=options.get(PASSWORD_PROMPT) or DEFAULT_PASSWORD_PROMPT,
            script=script,
        )

    async def execute(self, plan: Plan, options: Options) -> Resource:
        from . import executor

        return await executor.execute(plan, options)

    # -- command line -------------------------------------------------------------------

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        g = parser.add_argument_group(
            "telnet",
            "A telnet URL's user and password are advisory (RFC 1738 §3.8): they are only "
            "sent with --login.  `get` attaches the terminal; ^] closes the session.",
        )
        g.add_argument(
            "--login",
            dest="telnet_login",
            action="store_true",
            help="answer the server's login and password prompts with the URL's user and password",
        )
        g.add_argument(
            "--login-prompt",
            dest="telnet_login_prompt",
            metavar="REGEX",
            help=f"the login prompt to wait for (default {DEFAULT_LOGIN_PROMPT!r})",
        )
        g.add_argument(
            "--password-prompt",
            dest="telnet_password_prompt",
            metavar="REGEX",
            help=f"the password prompt to wait for (default {DEFAULT_PASSWORD_PROMPT!r})",
        )
        g.add_argument(
            "--script",
            dest="telnet_script",
            metavar="FILE",
            help="run FILE without a person and print the transcript: one 'expect TEXT', "
            "'expect-re REGEX' or 'send LINE' per line ('#' starts a comment)",
        )

    @classmethod
    def options_from_args(cls, args: argparse.Namespace) -> dict[str, Any]:
        extra: dict[str, Any] = {}
        if getattr(args, "telnet_login", False):
            extra[AUTO_LOGIN] = True
        if getattr(args, "telnet_login_prompt", None):
            extra[LOGIN_PROMPT] = args.telnet_login_prompt
        if getattr(args, "telnet_password_prompt", None):
            extra[PASSWORD_PROMPT] = args.telnet_password_prompt
        path = getattr(args, "telnet_script", None)
        if path:
            from .planner import parse_script

            try:
                extra[SCRIPT] = parse_script(Path(path).read_text(encoding="utf-8"))
            except OSError as exc:
                sys.stderr.write(f"omniurl: --script {path}: {exc.strerror}\n")
                raise SystemExit(2) from None
            except UnicodeDecodeError as exc:
                sys.stderr.write(f"omniurl: --script {path}: not UTF-8 (byte {exc.start})\n")
                raise SystemExit(2) from None
            except PlanError as exc:
                sys.stderr.write(f"omniurl: --script {path}: {exc}\n")
                raise SystemExit(2) from None
        return extra

    async def present(self, resource: Resource, args: argparse.Namespace) -> int | None:
        """Script mode: print the transcript; otherwise attach the terminal."""
        session: TelnetSession = resource.session
        if getattr(args, "telnet_script", None) or getattr(args, "json", False):
            await session.read_until_quiet(0.5)
            await session.close()
            if getattr(args, "json", False):
                described = resource.describe()
                described["metadata"]["transcript"] = session.history.decode("utf-8", "replace")
                sys.stdout.write(json.dumps(described, ensure_ascii=False) + "\n")
            else:
                sys.stdout.buffer.write(bytes(session.history))
                sys.stdout.flush()
            return 0
        user = resource.metadata.get("user")
        if user is not None and not resource.metadata.get("logged_in"):
            sys.stderr.write(
                f"omniurl: advisory user {user!r} (RFC 1738 §3.8); --login answers the prompts\n"
            )
        from ..net import authority

        sys.stderr.write(
            f"omniurl: connected to {authority(session.host, session.port)}; ^] closes\n"
        )
        sys.stderr.flush()
        from .terminal import attach

        return await attach(session)
