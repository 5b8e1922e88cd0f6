"""How ``x-finger:`` resources are shown.  Every hook has a default in
:class:`omniurl.resolvers.spec.Presentation`; a scheme overrides only what differs."""

from __future__ import annotations

from omniurl.resolvers.resource import Entry
from omniurl.resolvers.spec import Presentation


class FingerPresentation(Presentation):
    """The list of users is saved as ``users.HASH.tsv`` (``-O``, a batch: a listing, named
    by ``index_name``'s stem, docs/saving.md) and each user is marked
    ``[USER]`` on the gateway's page."""

    index_name = "users.txt"

    def entry_marker(self, entry: Entry) -> str | None:
        return "[USER]" if entry.kind == "user" else None


__all__ = ["FingerPresentation"]
