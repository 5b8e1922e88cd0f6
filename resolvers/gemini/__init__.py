"""The ``gemini:`` resolver — the first scheme added entirely through the scheme spec.

Nothing outside this package (and ``schemes/gemini.py``, ``testservers/gemini.py``, the
demo) names the scheme: it is registered by one line in ``resolvers/builtin.py`` and the
``omniurl.specs`` entry points, exactly as a plugin would be (examples/omniurl-x-finger/).

``planner`` is pure (URL -> the one request line, refused over 1024 bytes), ``machine`` the
response as a pure machine, ``gemtext`` the document format, ``tofu`` trust on first use,
``executor`` the byte pump over ``resolvers/net.py``; ``present`` the presentation hooks.
"""

from __future__ import annotations

from omniurl.schemes.base import URL

from ..base import Resolver
from ..options import Options
from ..plan import Plan
from ..resource import Resource
from ..spec import SchemeSpec
from .settings import GeminiOptions


class GeminiResolver(Resolver):
    """Gemini: TLS, one request line, one response (input, content, redirect, failure,
    client certificate)."""

    schemes = ("gemini",)

    def plan(self, url: URL, options: Options) -> Plan:
        """Looks the pin up in the known-hosts file (the only I/O), then plans purely."""
        from pathlib import Path

        from omniurl.schemes.base import InternetURL

        from .planner import plan_gemini
        from .tofu import KnownHosts, default_path, host_key

        configured = options.of(GeminiOptions).known_hosts
        path = Path(configured) if configured else default_path()
        key = ""
        pin = None
        if isinstance(url, InternetURL):
            key = host_key(url.hostname, url.effective_port or 1965)
            pin = KnownHosts(path).lookup(key) if options.verify_tls else None
        return plan_gemini(url, options, known_hosts=str(path), host_key=key, pin=pin)

    async def execute(self, plan: Plan, options: Options) -> Resource:
        from .executor import execute_gemini

        return await execute_gemini(plan, options)


SPEC = SchemeSpec(
    names=("gemini",),
    title="gemini",
    description="Gemini (TLS, trust on first use: -k, --cacert, --cert/--key apply)",
    url_class="omniurl.schemes.gemini:GeminiURL",
    resolver=GeminiResolver,
    options=GeminiOptions,
    presentation="omniurl.resolvers.gemini.present:GeminiPresentation",
    default_port=1965,
    test_server="gemini",
    resume_note="Gemini has no resume: a request always returns the whole document",
    details="omniurl.resolvers.gemini.planner:GeminiDetails",
    result="omniurl.resolvers.gemini.machine:GeminiResult",
)

__all__ = ["SPEC", "GeminiResolver"]
