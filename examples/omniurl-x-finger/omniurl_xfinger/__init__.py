"""omniurl-x-finger: an example plugin adding the experimental ``x-finger:`` scheme.

``x-finger://host[:port]/[target][;w]`` asks a Finger server (RFC 1288, port 79) about
``target`` (a user name; empty lists the users logged in); ``;w`` sends the ``/W`` verbose
switch.  The parts: :mod:`.url` (the parser), :mod:`.resolver` (pure planner + async
executor) and :mod:`.server` (a small Finger server for the tests and for trying it out).
"""

from __future__ import annotations

__version__ = "0.1.0"
