"""asyncio without OpenSSL until a connection speaks TLS: the ``omniurl`` command's start.

asyncio imports ``ssl`` as it is imported (``base_events``, ``selector_events`` and
``sslproto`` each ``try: import ssl``, on every Python from 3.11 to 3.13), whether or not a
connection will ever speak TLS, and loading OpenSSL's libraries is the largest single cost
of starting an ``omniurl get`` of a plain gopher:, ftp: or http: URL: measured after the
modules such a get has loaded by then (``python -S``, medians of 25 interpreters, load 4-5),
``import asyncio`` took ~28 ms CPU with ssl and ~20 ms without; ``import ssl`` alone beside
``python -S -c pass`` costs 18-22 ms.

:func:`defer_ssl` imports asyncio while ``ssl`` is marked absent (``None`` in
``sys.modules``: those modules then hold ``ssl = None``, as on a Python built without
OpenSSL), takes the mark away at once, and has the first real ``import ssl`` — by omniurl's
TLS code (``resolvers/tls.py``) or anyone's — give the module to those asyncio modules (and
define ``sslproto.SSLAgainErrors``, which it defines only when ssl exists) before anything
can hand asyncio a TLS context: a context is made from the module.  So what runs is what
ran before; only the loading of OpenSSL waits until it is used.

Process-wide and a reach into asyncio's modules, so only the ``omniurl`` command does it
(never a program that imports the library), only on the Pythons whose asyncio is known to
import ssl this way, and only when neither ssl nor asyncio is loaded yet.
"""

from __future__ import annotations

import sys
from types import ModuleType

from omniurl.deferred import is_deferred

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing's import: ~9 ms of a get's start, docs/speed.md)
    from collections.abc import Sequence
    from typing import Any

#: The asyncio modules that import ssl when they are imported (3.11-3.13).
ASYNCIO_SSL_MODULES = ("asyncio.base_events", "asyncio.selector_events", "asyncio.sslproto")
#: The Pythons whose asyncio this was checked against.
CHECKED = ((3, 11), (3, 12), (3, 13))


def defer_ssl() -> bool:
    """Import asyncio without ssl; True if ssl's loading now waits for its first import."""
    if sys.version_info[:2] not in CHECKED or "ssl" in sys.modules or "asyncio" in sys.modules:
        return False
    sys.modules["ssl"] = None  # type: ignore[assignment]
    try:
        import asyncio  # noqa: F401 - imported here, without ssl
    finally:
        if sys.modules.get("ssl", 0) is None:
            del sys.modules["ssl"]
    # (a module whose body waits, omniurl/deferred.py, imports ssl itself when it runs)
    waiting = [sys.modules.get(name) for name in ASYNCIO_SSL_MODULES]
    waiting = [module for module in waiting if not is_deferred(module)]
    if any(module is None or getattr(module, "ssl", 0) is not None for module in waiting):
        import ssl  # not as expected: give them the module now (nothing is saved)

        _give(ssl)
        return False
    sys.meta_path.insert(0, _OnImport())
    return True


def _give(ssl: ModuleType) -> None:
    """Hand ``ssl`` to the asyncio modules that found it absent."""
    for name in ASYNCIO_SSL_MODULES:
        module = sys.modules.get(name)
        if module is not None and not is_deferred(module) and getattr(module, "ssl", 0) is None:
            module.ssl = ssl  # type: ignore[attr-defined]
    sslproto = sys.modules.get("asyncio.sslproto")
    if (
        sslproto is not None
        and not is_deferred(sslproto)
        and not hasattr(sslproto, "SSLAgainErrors")
    ):
        sslproto.SSLAgainErrors = (ssl.SSLWantReadError, ssl.SSLSyscallError)  # type: ignore[attr-defined]


class _OnImport:
    """A ``sys.meta_path`` finder that steps aside once ``ssl`` is loaded: the module is
    found and loaded as ever (by the finders after it), then given to asyncio
    (:func:`_give`) before the import statement returns it.  It stays until the module is
    executed, not only found: a program that asks ``importlib.util.find_spec("ssl")``
    (whether TLS is there) before importing it had the finder gone, the import that followed
    gave asyncio nothing, and every TLS connection raised asyncio's "stdlib ssl module not
    available"."""

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: Any = None) -> Any:
        if fullname != "ssl":
            return None
        for finder in sys.meta_path:
            find = None if finder is self else getattr(finder, "find_spec", None)
            spec = None if find is None else find(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        run = loader.exec_module

        def exec_module(module: ModuleType) -> None:
            run(module)
            if self in sys.meta_path:
                sys.meta_path.remove(self)
            _give(module)

        loader.exec_module = exec_module
        return spec
