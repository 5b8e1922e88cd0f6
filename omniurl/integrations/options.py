"""``storage_options`` / keyword arguments -> :class:`Options`, shared by the integrations.

fsspec, urllib and Dask callers configure omniurl with plain keywords (they cannot build an
``Options`` through ``fsspec.open``'s ``**kwargs`` in every case); the names follow the CLI's
flags so one vocabulary serves every front end.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from omniurl.resolvers.options import Options
from omniurl.resolvers.policy import DEFAULT, STRICT

#: Keywords :func:`options_from` understands; anything else is an error, not ignored.
KNOWN = frozenset(
    {
        "options",
        "strict",
        "resolve",
        "connect_timeout",
        "read_timeout",
        "allow_port",
        "credentials",
        "email",
        "syntax",
        "schemes",
    }
)


def options_from(kwargs: Mapping[str, Any]) -> Options:
    """Build :class:`Options` from keywords.

    ``options`` (an :class:`Options`) is the starting point; ``strict=True`` uses the strict
    policy preset; ``allow_port`` is a port or ports allowed although reserved/blocked
    (``--allow-port``); ``resolve`` maps ``(host, port)`` to ``(address, port)``
    (``--resolve``); ``credentials`` maps host to ``(user, password)``; ``syntax`` is how URL
    text is read (``"rfc3986"``, the default, or ``"rfc1738"``: ``--rfc1738``); ``schemes``
    is a sequence of scheme options (``[NNTPOptions(server="news.example")]``, a plugin's
    options dataclass), each set as ``Options.with_scheme`` does.
    """
    unknown = set(kwargs) - KNOWN
    if unknown:
        raise TypeError(f"unknown omniurl option(s): {', '.join(sorted(unknown))}")
    base = kwargs.get("options")
    options = base if isinstance(base, Options) else Options()
    changes: dict[str, Any] = {}
    policy = options.policy
    if "strict" in kwargs:
        policy = STRICT if kwargs["strict"] else DEFAULT
    ports = kwargs.get("allow_port")
    if ports is not None:
        wanted: Iterable[int] = [ports] if isinstance(ports, int) else ports
        policy = policy.allowing_ports(int(p) for p in wanted)
    if policy is not options.policy:
        changes["policy"] = policy
    for name in ("connect_timeout", "read_timeout"):
        if name in kwargs:
            changes[name] = float(kwargs[name])
    if "resolve" in kwargs:
        changes["resolve"] = dict(kwargs["resolve"])
    if "credentials" in kwargs:
        changes["credentials"] = {h: tuple(c) for h, c in dict(kwargs["credentials"]).items()}
    if "email" in kwargs:
        changes["email"] = str(kwargs["email"])
    if "syntax" in kwargs:  # how URL text is read: "rfc3986" (default) or "rfc1738"
        from omniurl.schemes.rfc3986 import Syntax

        changes["syntax"] = Syntax(kwargs["syntax"]).value
    if "schemes" in kwargs:
        options = options.with_scheme(*kwargs["schemes"])
    if not changes:
        return options
    from dataclasses import replace

    return replace(options, **changes)
