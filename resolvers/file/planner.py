"""RFC 1738 §3.10 as a pure function: a ``file:`` URL names a file on *this* machine.

``file://<host>/<path>``: the host is empty, ``localhost``, or this machine's own name; any
other host names a file on another machine, which §3.10 gives no protocol to reach, so the
planner refuses it and says why.  No network is involved (``transport`` is ``None``); the
plan's one step says what will be opened.  What this machine calls itself is a fact the
caller passes in (``hostname``: the resolver asks ``socket.gethostname()``), so that the
planner stays a function of its arguments.
"""

from __future__ import annotations

import os

from omniurl.schemes.base import URL
from omniurl.schemes.file import FileURL
from omniurl.schemes.percent import to_octets
from omniurl.schemes.records import record

from ..errors import PlanError
from ..options import Options
from ..plan import Plan, Step, WireValue


def local_names(hostname: str | None) -> frozenset[str]:
    """The host names that mean "this machine" (no DNS: just what the system calls itself,
    ``hostname``, and its first label; None: only the empty host and ``localhost``)."""
    names = {"", "localhost"}
    if hostname:
        names.add(hostname.lower())
        names.add(hostname.lower().split(".", 1)[0])
    return frozenset(names)


@record(frozen=True)
class FileDetails:
    """What the file executor needs: the decoded local path (§3.10)."""

    path: str


def plan_file(url: URL, options: Options, *, hostname: str | None = None) -> Plan:
    """The plan of a ``file:`` URL on the machine called ``hostname``."""
    if not isinstance(url, FileURL):
        raise PlanError(f"not a file: URL: {url}", component="scheme")
    u = url
    host = u.host.lower()
    if host not in local_names(hostname):
        raise PlanError(
            f"file://{u.host}/ names a file on the machine {u.host!r}; a file: URL can only "
            "be read on the machine it names (§3.10: the scheme has no protocol for remote "
            "access) — use an empty host or localhost for this machine",
            component="host",
        )
    if u.drive is not None and os.sep == "/":
        raise PlanError(
            f"{u.path!r} starts with the DOS drive letter {u.drive}: — this file: URL names "
            "a file on a DOS or Windows system, and this is a POSIX one (RFC 8089 Appendix "
            "E.2)",
            component="path",
        )
    path = u.path or "/"
    return Plan(
        url=url,
        scheme="file",
        host=None,
        port=None,
        transport=None,
        steps=(
            Step(
                data=b"",
                shown=f"stat {path}" if options.head else f"open {path}",  # (-I: its facts)
                kind="info",
                values=(WireValue("path", to_octets(path), "file-path"),),
            ),
        ),
        details=FileDetails(path=path),
    )


__all__ = ["FileDetails", "local_names", "plan_file"]
