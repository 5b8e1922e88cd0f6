"""The ``file:`` resolver (RFC 1738 §3.10): local files and directories, registered here."""

from __future__ import annotations

from typing import TYPE_CHECKING

from omniurl.schemes.base import URL

from .. import lazy
from ..base import Resolver
from ..options import Options
from ..plan import Plan
from ..resource import Resource
from ..spec import Presentation, SchemeSpec

if TYPE_CHECKING:
    from .executor import execute_file
    from .planner import plan_file

# The planner and the executor are imported on first use (see resolvers/lazy.py): every
# ``omniurl get``/``plan`` imports this package for its command-line options.
__getattr__ = lazy.exports(__name__, {"execute_file": ".executor", "plan_file": ".planner"})


class FileResolver(Resolver):
    """``file://host/path`` on this machine: a file's content or a directory's listing."""

    schemes = ("file",)

    def plan(self, url: URL, options: Options) -> Plan:
        import socket

        from .planner import plan_file

        # The fact the pure planner needs about this machine: its name (§3.10).
        return plan_file(url, options, hostname=socket.gethostname())

    async def execute(self, plan: Plan, options: Options) -> Resource:
        from .executor import execute_file

        return await execute_file(plan, options)


class FilePresentation(Presentation):
    """A directory's listing saved as ``index.txt``."""

    index_name = "index.txt"
    index_lists = True

    def listed_folder(self, url: URL) -> URL | None:
        """``file:///srv/dir`` lists the folder ``file:///srv/dir/`` does, entry for entry
        (the same bytes saved): named as that URL, so ``-O`` of either saves
        ``dir.HASH.tsv`` with one HASH (before, two names for one listing; the mirror
        already took either as the folder).  The "/" is added to the text as written, so
        an escaped ``%2F`` stays one."""
        text = str(url).split("#", 1)[0]
        if text.endswith("/"):
            return None
        from omniurl.schemes import parse

        return parse(text + "/")


SPEC = SchemeSpec(
    names=("file",),
    title="file",
    resolver=FileResolver,
    presentation=FilePresentation,
    # fsspec and urllib ship their own file: registering ours would replace theirs.
    fsspec=False,
    urllib=False,
    head=True,  # -I: the file's size and modification time (os.stat), as curl's
    resume_note="file: URLs are copied whole (a local copy is cheap to redo)",
)

__all__ = ["SPEC", "FileResolver", "execute_file", "plan_file"]
