"""The signals that end a command or a batch the way Ctrl-C does: SIGTERM and SIGHUP.

``timeout(1)``, systemd and a closing terminal send them; the command (``omniurl.cli.signals``)
and the batch's worker processes (:mod:`omniurl.batch_procs`) each cancel their work on
either, so that every ``finally`` runs, and exit with 128 + its number.  A module of its own,
outside ``omniurl/cli/``, so that the batch, a library, names them without importing the
command line (an import circle: ``cli.batch`` -> ``batch_procs`` -> ``cli``).
"""

from __future__ import annotations

import signal

#: The signals handled like SIGINT (SIGHUP does not exist on Windows).
ENDING = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))

__all__ = ["ENDING"]
