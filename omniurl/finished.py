"""A complete temporary file given its name: :func:`finish` renames it over the target with
the mode the target has, or a new file's usual mode.

Every save path ends here (``get -o``, ``-C``'s part file through :mod:`omniurl.partial`,
the batch, fsspec's writer).  A module of its own so that a plain ``get -o FILE`` renames
its file without loading ``-C``'s machinery (:mod:`omniurl.partial`, with
:mod:`omniurl.resolvers.resume`): that import ran after the last byte, 0.7-1.2 ms of CPU in
a fresh venv (issue 32, docs/speed.md, *The command's two ends*).
"""

from __future__ import annotations

import os
import stat

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


def new_file_mode() -> int:
    """The mode ``open(name, "w")`` gives a new file: ``0666 & ~umask`` (mkstemp's files are
    0600, which other users and a web server serving the folder cannot read).  The umask can
    only be read by setting it: it is set back at once (~2 µs)."""
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o666 & ~umask


def finish(tmp: Path | str, target: Path | str) -> None:
    """Rename the complete ``tmp`` over ``target``, with the target's mode when it exists
    (a 0600 file stays 0600) and a new file's usual mode otherwise (not mkstemp's 0600)."""
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        mode = new_file_mode()
    os.chmod(tmp, mode)
    os.replace(tmp, target)


__all__ = ["finish", "new_file_mode"]
