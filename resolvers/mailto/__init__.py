"""``mailto:`` URLs (RFC 1738 §3.5, RFC 6068): the message a URL stands for, sent or drafted.

``omniurl plan mailto:…`` shows the message and the SMTP steps; ``omniurl get mailto:…``
writes the draft (``message/rfc822``) to standard output, or sends it with
``--smtp HOST[:PORT]`` (``--starttls``, ``--smtp-tls``, ``--smtp-user``).  The sender is
``--from`` (default ``--email`` / ``$EMAIL``).  On a terminal, a URL without a body gets one
asked for.  Header fields outside the allow-list are refused unless ``--allow-header NAME``.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from omniurl import schemes
from omniurl.schemes.base import URL

from .. import lazy
from ..base import Resolver
from ..options import Options
from ..plan import Plan
from ..registry import register
from ..resource import Resource
from .settings import BODY, FROM, SMTP, SMTP_USER, STARTTLS, TLS

if TYPE_CHECKING:
    from .message import build, split_addresses

__all__ = ["MailtoResolver", "build", "split_addresses"]

# The planner, the message builder (email) and the executor (aiosmtplib) are imported on first
# use (see resolvers/lazy.py): every ``omniurl get``/``plan`` imports this package.
__getattr__ = lazy.exports(__name__, {"build": ".message", "split_addresses": ".message"})


@register("mailto")
class MailtoResolver(Resolver):
    """Plans the message of a ``mailto:`` URL; sends it through a relay or drafts it."""

    def plan(self, url: URL, options: Options) -> Plan:
        from .planner import plan_mailto

        return plan_mailto(url, options)

    async def execute(self, plan: Plan, options: Options) -> Resource:
        from . import executor

        return await executor.execute(plan, options)

    # -- command line -------------------------------------------------------------------

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        g = parser.add_argument_group(
            "mailto",
            "Without --smtp, `get` prints the message as a draft (message/rfc822); with it, "
            "the message is sent.",
        )
        g.add_argument(
            "--smtp", dest="mailto_smtp", metavar="HOST[:PORT]", help="send through this relay"
        )
        g.add_argument(
            "--starttls",
            dest="mailto_starttls",
            action="store_true",
            help="upgrade the relay connection with STARTTLS (RFC 3207) before anything else",
        )
        g.add_argument(
            "--smtp-tls",
            dest="mailto_tls",
            action="store_true",
            help="TLS from the first byte (RFC 8314; default port 465)",
        )
        g.add_argument(
            "--smtp-user",
            dest="mailto_smtp_user",
            metavar="USER",
            help="AUTH as USER (password from ~/.netrc for the relay, else asked)",
        )
        g.add_argument(
            "--from",
            dest="mailto_from",
            metavar="ADDRESS",
            help="the sender (default: --email, $EMAIL, or user@localhost)",
        )
        g.add_argument(
            "--body", dest="mailto_body", metavar="TEXT", help="the body, if the URL has none"
        )
        g.add_argument(
            "--allow-header",
            dest="allow_header",
            metavar="NAME",
            action="append",
            default=[],
            help="let the URL set this header field although it is not on the allow-list "
            "(to, cc, subject, body, in-reply-to, references, keywords, comments); repeatable",
        )

    @classmethod
    def options_from_args(cls, args: argparse.Namespace) -> dict[str, Any]:
        extra: dict[str, Any] = {}
        for key, dest in (
            (SMTP, "mailto_smtp"),
            (SMTP_USER, "mailto_smtp_user"),
            (FROM, "mailto_from"),
            (BODY, "mailto_body"),
        ):
            value = getattr(args, dest, None)
            if value:
                extra[key] = value
        if getattr(args, "mailto_starttls", False):
            extra[STARTTLS] = True
        if getattr(args, "mailto_tls", False):
            extra[TLS] = True
        if BODY not in extra and _needs_body(_the_one_url(args)):
            extra[BODY] = ask_body()
        return extra

    async def present(self, resource: Resource, args: argparse.Namespace) -> int | None:
        """After sending, say so on stderr; a draft is shown as content (the default)."""
        if resource.metadata.get("sent") and not getattr(args, "json", False):
            envelope = resource.metadata["envelope"]
            last = resource.replies[-2] if len(resource.replies) > 1 else ""
            sys.stderr.write(
                f"omniurl: sent {resource.metadata['message_id']} to "
                f"{', '.join(envelope['rcpt_to'])} via {resource.metadata['relay']} ({last})\n"
            )
            return 0
        return None


def _the_one_url(args: argparse.Namespace) -> str | None:
    """The URL of ``plan URL`` or of ``get URL`` given one URL (a batch asks nothing)."""
    urls = getattr(args, "urls", None)
    if urls is not None:
        return urls[0] if len(urls) == 1 and not getattr(args, "input", None) else None
    text = getattr(args, "url", None)
    return text if isinstance(text, str) else None


def _needs_body(text: str | None) -> bool:
    """``omniurl get mailto:…`` on a terminal, and the URL has no body: ask for one."""
    if not text or text[:7].lower() != "mailto:" or not sys.stdin.isatty():
        return False
    try:
        url = schemes.parse(text)
    except schemes.URLError:
        return False  # the CLI reports it
    return not any(name.lower() == "body" for name, _ in getattr(url, "headers", ()))


def ask_body() -> str:
    """Read the body from the terminal, up to a line holding only "." or end of input."""
    sys.stderr.write("Body of the message (end with a line holding only '.', or Ctrl-D):\n")
    sys.stderr.flush()
    lines: list[str] = []
    for line in sys.stdin:
        if line.rstrip("\r\n") == ".":
            break
        lines.append(line)
    return "".join(lines)
