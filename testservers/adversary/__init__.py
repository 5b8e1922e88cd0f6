"""Loopback servers that misbehave on purpose (issue 14): the client must stay bounded."""

from .trickle import TrickleServer

__all__ = ["TrickleServer"]
