"""Names a resolver package re-exports, imported from their module only when first used.

Every ``omniurl get``/``plan`` imports every resolver package (each adds its command-line
options), so a package's ``__init__`` must stay cheap: the planner and the executor — and
with them httpx, aioftp, ``email`` — are imported when a URL of that
scheme is planned or resolved, not before.  The names the package re-exports for library
callers (``from resolvers.telnet import TelnetSession``) keep working through a module
``__getattr__`` (PEP 562) that imports them on first access::

    if TYPE_CHECKING:  # for mypy and readers; nothing is imported at run time
        from .session import TelnetSession

    __getattr__ = lazy.exports(__name__, {"TelnetSession": ".session"})
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def exports(package: str, names: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` serving ``names`` (name -> relative module) of ``package``.

    The first access imports the module and stores the value in the package, so later ones
    are plain attribute reads.  Any other name raises :class:`AttributeError` as usual (and
    ``from package import submodule`` still imports the submodule).
    """
    table = dict(names)

    def __getattr__(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__


__all__ = ["exports"]
