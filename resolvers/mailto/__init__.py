"""``mailto:`` URLs (RFC 1738 §3.5, RFC 6068): the message a URL stands for, sent or drafted.

``omniurl plan mailto:…`` shows the message and the SMTP steps; ``omniurl get mailto:…``
writes the draft (``message/rfc822``) to standard output, or sends it with
``--smtp HOST[:PORT]`` (``--starttls``, ``--smtp-tls``, ``--smtp-user``).  The sender is
``--from`` (default ``--email`` / ``$EMAIL``).  On a terminal, a URL without a body gets one
asked for.  Header fields outside the allow-list are refused unless ``--allow-header NAME``.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from omniurl import schemes
from omniurl.schemes.base import URL
from omniurl.schemes.records import replace

from .. import lazy
from ..base import Resolver
from ..options import Options
from ..plan import Plan
from ..policy import Policy
from ..resource import Resource
from ..spec import Presentation, SchemeSpec
from .settings import Draft, MailtoOptions, Sent

if TYPE_CHECKING:
    import argparse

    from .message import build, split_addresses

__all__ = ["SPEC", "MailtoOptions", "MailtoResolver", "build", "split_addresses"]

# The planner, the message builder (email) and the executor (the SMTP machine) are imported on first
# use (see resolvers/lazy.py): every ``omniurl get``/``plan`` imports this package.
__getattr__ = lazy.exports(__name__, {"build": ".message", "split_addresses": ".message"})


class MailtoResolver(Resolver):
    """Plans the message of a ``mailto:`` URL; sends it through a relay or drafts it."""

    schemes = ("mailto",)

    def plan(self, url: URL, options: Options) -> Plan:
        from email.utils import localtime

        from .planner import plan_mailto

        # The fact the pure planner needs: the local time, for the Date field.
        return plan_mailto(url, options, now=localtime())

    async def execute(self, plan: Plan, options: Options) -> Resource:
        from . import executor

        return await executor.execute(plan, options)


class MailtoPresentation(Presentation):
    """A body asked for on a terminal; "sent" said on stderr; the gateway's compose form."""

    def cli_options(self, options: Any, urls: Sequence[str]) -> Any:
        if options.body is None and len(urls) == 1 and _needs_body(urls[0]):
            return replace(options, body=ask_body())
        return options

    def cli_policy(self, policy: Policy, options: Any) -> Policy:
        return policy.allowing_mail_headers(options.allow_headers)

    async def present(self, resource: Resource, args: argparse.Namespace) -> int | None:
        """After sending, say so on stderr; a draft is shown as content (the default)."""
        sent = resource.result_as(Sent)
        if sent is not None and not getattr(args, "json", False):
            sys.stderr.write(
                f"omniurl: sent {sent.message_id} to {', '.join(sent.recipients)} via "
                f"{sent.relay} ({sent.last_reply})\n"
            )
            return 0
        return None

    def gateway_options(self, options: Options, config: Any) -> Options:
        relay = getattr(config, "smtp", None)
        if relay:
            return options.with_scheme(replace(options.of(MailtoOptions), smtp=relay))
        return options

    def gateway_post(
        self, url: str, form: Mapping[str, str], options: Options, config: Any
    ) -> Options | str:
        if not getattr(config, "smtp", None):
            return "This gateway was started without --smtp: it sends no mail."
        mine = options.of(MailtoOptions)
        return options.with_scheme(replace(mine, body=form.get("body", "")))

    async def gateway_page(
        self, url: str, plan: Plan, pages: Any, options: Options, config: Any
    ) -> Any | None:
        """A compose form: the URL's fields, its body editable, the draft below."""
        from omniurl.resolvers.core import resolve

        parsed: Any = schemes.parse(url)
        draft_options = options.with_scheme(replace(options.of(MailtoOptions), smtp=None))
        resource = await resolve(url, draft_options)
        try:
            draft = (await resource.read())[: config.max_render_bytes].decode("utf-8", "replace")
        finally:
            await resource.aclose()
        body = next((v for n, v in parsed.headers if n.lower() == "body"), "")
        headers = [(n, v) for n, v in parsed.headers if n.lower() != "body"]
        return pages.page(
            "mailto.html",
            url=url,
            to=parsed.address,
            headers=headers,
            body=body,
            can_send=bool(getattr(config, "smtp", None)),
            draft=draft,
        )


def _needs_body(text: str | None) -> bool:
    """``omniurl get mailto:…`` on a terminal, and the URL has no body: ask for one."""
    if not text or not sys.stdin.isatty():
        return False
    try:
        url = schemes.parse(text)
    except schemes.URLError:
        return False  # the CLI reports it
    if url.scheme not in SPEC.names:
        return False
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


SPEC = SchemeSpec(
    names=("mailto",),
    title="mailto",
    description="Without --smtp, `get` prints the message as a draft (message/rfc822); with "
    "it, the message is sent.",
    resolver=MailtoResolver,
    options=MailtoOptions,
    presentation=MailtoPresentation,
    details="omniurl.resolvers.mailto.planner:MailtoDetails",
    result=(Sent, Draft),
    # a message is composed, not fetched: no file system or urlopen reads it
    fsspec=False,
    urllib=False,
    test_server="smtp",
    resume_note="a mailto URL sends mail; there is nothing to resume",
)
