"""The exit statuses' old place (``omniurl.cli.status``, named in docs/cli.md until 2360e3c
moved them to :mod:`omniurl.exitstatus`): a script or plugin that imports them from here
keeps working.  Nothing in omniurl imports this module (a start loads only
``omniurl.exitstatus``)."""

from __future__ import annotations

from omniurl.exitstatus import (
    EXIT_AUTH,
    EXIT_FAILURE,
    EXIT_HTTP_FAIL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_PROTOCOL,
    EXIT_REFUSED,
    EXIT_REPLY,
    EXIT_STATUS_HELP,
    EXIT_TRANSPORT,
    EXIT_UNSUPPORTED,
    EXIT_WRITE,
    exit_status,
)

__all__ = [
    "EXIT_AUTH",
    "EXIT_FAILURE",
    "EXIT_HTTP_FAIL",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_PROTOCOL",
    "EXIT_REFUSED",
    "EXIT_REPLY",
    "EXIT_STATUS_HELP",
    "EXIT_TRANSPORT",
    "EXIT_UNSUPPORTED",
    "EXIT_WRITE",
    "exit_status",
]
