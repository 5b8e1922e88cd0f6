"""The registry of local test servers and the handle a running one gives back.

The built-in servers are listed in :data:`testservers.catalog.BUILTIN_SERVERS` with their
one-line help, so :func:`known` imports none of them (aioftp, aiosmtpd, telnetlib3 and the
WAIS codec are slow to import); :func:`start` imports only the server asked for.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol

from .catalog import BUILTIN_SERVERS

#: Modules whose import registers the built-in servers (a module missing from
#: BUILTIN_SERVERS is imported by :func:`known` to learn its name and help).
BUILTIN_MODULES: tuple[str, ...] = (
    "omniurl.testservers.ftp",
    "omniurl.testservers.ftp_tls",
    "omniurl.testservers.adversary.server",
    "omniurl.testservers.http",
    "omniurl.testservers.gopher",
    "omniurl.testservers.nntp",
    "omniurl.testservers.telnet",
    "omniurl.testservers.smtp",
    "omniurl.testservers.wais",
    "omniurl.testservers.prospero",
    "omniurl.testservers.gemini",
    "omniurl.testservers.recording",
)


@dataclass
class RunningServer:
    """A server listening on ``host:port``; ``await close()`` (or ``async with``) stops it."""

    name: str
    host: str
    port: int
    close_fn: Callable[[], Awaitable[None]]
    transport: str = "tcp"
    #: Server-specific facts a test or the demo may want (captured messages folder...).
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def netloc(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"

    async def close(self) -> None:
        await self.close_fn()

    async def __aenter__(self) -> RunningServer:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()


class Closable(Protocol):
    """A listening server (``asyncio.Server``, telnetlib3's) or a connection's stream writer."""

    def close(self) -> None: ...

    async def wait_closed(self) -> None: ...


async def close_quietly(closable: Closable, timeout: float = 2) -> None:
    """Close a server or a connection and wait (at most ``timeout`` s) until it is closed,
    never raising: a test server's cleanup must not fail a test nor hang it."""
    closable.close()
    await _wait_closed(closable, timeout)


async def _wait_closed(closable: Closable, timeout: float) -> None:
    with contextlib.suppress(Exception):
        await asyncio.wait_for(closable.wait_closed(), timeout)


Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


class ConnectionTasks:
    """The tasks serving a stream server's connections, so that closing the server ends them.

    ``asyncio.Server.close()`` stops listening but leaves live connections running (and
    ``wait_closed()`` then waits for them): a test server must end its own.  Wrap the
    connection handler with :meth:`track`; :meth:`close` cancels what is still running and
    waits, bounded, for it and for the listener.
    """

    def __init__(self) -> None:
        self.tasks: set[asyncio.Task[Any]] = set()

    def track(self, handler: Handler) -> Handler:
        """``handler``, with the task running it known to :meth:`close` while it runs."""

        async def tracked(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            task = asyncio.current_task()
            if task is not None:
                self.tasks.add(task)
            try:
                await handler(reader, writer)
            finally:
                if task is not None:
                    self.tasks.discard(task)

        return tracked

    async def close(self, server: Closable) -> None:
        """Stop listening, cancel the connections' tasks (waiting 2 s at most for them to
        end), then wait (2 s at most) for the listener."""
        server.close()
        for task in list(self.tasks):
            task.cancel()
        if self.tasks:
            await asyncio.wait(list(self.tasks), timeout=2)
        await _wait_closed(server, 2)


Starter = Callable[..., Awaitable[RunningServer]]


@dataclass(frozen=True)
class _Entry:
    starter: Starter
    help: str


_servers: dict[str, _Entry] = {}
_loaded = False


def register(name: str, help: str) -> Callable[[Starter], Starter]:
    """Decorator: ``@register("gopher", "serve a directory as Gopher menus")``."""

    def decorate(fn: Starter) -> Starter:
        _servers[name] = _Entry(fn, help)
        return fn

    return decorate


def _import(module: str) -> None:
    """Import a built-in server module.  Every one exists, so an import error is a defect and
    propagates (swallowed, it would read as "no such server")."""
    importlib.import_module(module)


def _load() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    for module in BUILTIN_MODULES:
        _import(module)


def known() -> dict[str, str]:
    """Server name -> one-line help; imports no server listed in :data:`BUILTIN_SERVERS`."""
    listed = {module for module, _help in BUILTIN_SERVERS.values()}
    for module in BUILTIN_MODULES:
        if module not in listed:
            _import(module)
    helps = {name: text for name, (_module, text) in BUILTIN_SERVERS.items()}
    helps.update((name, entry.help) for name, entry in _servers.items())
    return dict(sorted(helps.items()))


async def start(
    name: str, root: Path, *, host: str = "127.0.0.1", port: int = 0, **kw: Any
) -> RunningServer:
    """Start the named server serving ``root`` on ``host:port`` (0: any free port).

    ``name`` is a server's (``gopher``) or a scheme's: then the server its spec's
    ``test_server`` names — a server of this registry, or a plugin's ``"module:callable"``
    (:func:`start_declared`).  Imports only that server's module (or, for a name not built
    in, every module)."""
    if name not in _servers:
        builtin = BUILTIN_SERVERS.get(name)
        if builtin is not None:
            _import(builtin[0])
        if name not in _servers:
            _load()
    entry = _servers.get(name)
    if entry is not None:
        return await entry.starter(root, host=host, port=port, **kw)
    from omniurl.resolvers import registry

    spec = registry.find(name)
    if spec is None:
        raise KeyError(
            f"no test server named {name!r}, and no scheme {name!r} (servers: {', '.join(known())})"
        )
    if spec.test_server is None:
        raise KeyError(
            f"the {name}: scheme declares no test server (its SchemeSpec's test_server is "
            f"None; servers: {', '.join(known())})"
        )
    if ":" not in spec.test_server:  # a server of this registry (a built-in scheme's)
        return await start(spec.test_server, root, host=host, port=port, **kw)
    if kw:
        raise TypeError(
            f"the {name}: scheme's test server takes no {', '.join('--' + k for k in kw)}"
        )
    return await start_declared(spec.name, spec.test_server, root, host=host, port=port)


async def start_declared(
    name: str, ref: str, root: Path, *, host: str = "127.0.0.1", port: int = 0
) -> RunningServer:
    """Start the test server a scheme's spec declares as ``"module:callable"``.

    The contract (the plugin guide's): ``await callable(host=host, port=port, root=root)``
    starts listening (port 0: any free one) and returns the server: a
    :class:`RunningServer`; an ``asyncio.Server``; or any object with the ``port`` it bound
    (an ``int``) and a ``close()``, ``aclose()`` or ``stop()``, awaitable or not.  Its
    ``host``, when it has one, is the address bound.  ``info["declared"]`` is ``ref``."""
    from omniurl.resolvers.spec import load

    try:
        starter = load(ref)
    except (ImportError, AttributeError, ValueError) as exc:
        raise LookupError(
            f"the {name}: scheme's test server {ref!r} cannot be loaded: {exc}"
        ) from exc
    if not callable(starter):
        raise TypeError(f"the {name}: scheme's test server {ref!r} is not callable")
    server = await starter(host=host, port=port, root=root)
    if isinstance(server, RunningServer):
        server.info.setdefault("declared", ref)
        return server
    bound_host, bound = getattr(server, "host", None), getattr(server, "port", None)
    sockets = getattr(server, "sockets", None)
    if bound is None and sockets:  # an asyncio.Server: the address of its first socket
        bound_host, bound = sockets[0].getsockname()[:2]
    stop = next(
        (m for m in (getattr(server, a, None) for a in ("aclose", "close", "stop")) if m), None
    )
    if not isinstance(bound, int) or not callable(stop):
        raise TypeError(
            f"the {name}: scheme's test server {ref!r} returned {type(server).__name__}, "
            "which has no int port or no close(), aclose() or stop(): see the plugin guide"
        )

    async def close_fn() -> None:
        result = stop()
        if inspect.isawaitable(result):
            await asyncio.wait_for(result, 5)
        wait_closed = getattr(server, "wait_closed", None)
        if callable(wait_closed):
            await _wait_closed(server, 5)

    return RunningServer(
        name,
        str(bound_host or host),
        bound,
        close_fn,
        transport=str(getattr(server, "transport", "tcp")),
        info={"declared": ref},
    )
