"""Loopback servers that misbehave on purpose (issue 14): the client must stay bounded."""

from .ftp_short import ShortFTPServer
from .trickle import TrickleServer

__all__ = ["ShortFTPServer", "TrickleServer"]
