"""A file being resumed (``-C``): ``.NAME.part`` and its sidecar ``.NAME.part.json``.

A plain transfer writes a private temporary file and renames it over ``NAME`` once complete
(:mod:`omniurl.cli.output`); a failure removes it.  A transfer that may be resumed needs a
name it can find again, so with ``-C`` the bytes go to ``.NAME.part`` next to the target,
and the sidecar remembers what the next attempt must send: the URL and the validator of the
first response (HTTP ``If-Range``, RFC 9110 §13.1.5) and the total size the server gave.
A failed or interrupted ``-C`` transfer *keeps* both so that the next ``-C -`` continues;
only a complete transfer whose size is the server's size becomes ``NAME``.

``-C -`` continues from ``.NAME.part`` when there is one, else from ``NAME`` itself (curl's
reading: "use the output file to figure out where to continue"); ``NAME`` is never written
into — its bytes are copied into the part file first, so a failure leaves it as it was.
"""

from __future__ import annotations

import os
import stat
from collections.abc import AsyncIterable, Callable

from omniurl.finished import finish, new_file_mode
from omniurl.resolvers.errors import ConfigurationError, ConnectionClosed, suppress
from omniurl.resolvers.resume import Outcome
from omniurl.schemes.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing's import: ~9 ms of a get's start, docs/speed.md)
    from pathlib import Path
    from typing import IO, Any

    from omniurl.resolvers.resource import Resource


@record(frozen=True)
class ResumeFacts:
    """What a resolver found out about continuing a transfer (resolvers.resume): the
    ``outcome`` — ``append`` (the server sends the rest), ``restart`` (it sends it whole),
    ``refetch`` (the kept part is longer than the resource: fetch it whole), ``complete``
    (nothing is missing) —, the resource's ``total`` size, and its ``validator``."""

    outcome: Outcome
    total: int | None
    validator: str | None


def resume_facts(resource: Resource) -> ResumeFacts:
    """The resume facts of ``resource`` (its ``resumed``, ``total`` and ``validator``); a
    first attempt (nothing kept) has none: a ``restart`` of the size the server announced."""
    resumed = resource.resumed
    return ResumeFacts(
        resumed.outcome if resumed is not None else Outcome.RESTART,
        resource.total if resource.total is not None else resource.size,
        resource.validator,
    )


@record(frozen=True)
class Kept:
    """What is on disk to continue from: ``offset`` bytes, in ``source`` (the part file or
    the target), and the validator recorded with them."""

    offset: int
    source: Path | None
    validator: str | None


class Partial:
    """The part file and sidecar of one target (see module doc)."""

    def __init__(self, target: Path) -> None:
        self.target = target
        folder = target.parent
        self.part = folder / f".{target.name}.part"
        self.sidecar = folder / f".{target.name}.part.json"

    def kept(self, url: str, at: int | None = None) -> Kept:
        """What to continue from.  ``at`` is ``-C N`` (continue at byte N: the kept bytes
        must reach it); None is ``-C -`` (continue after whatever is kept)."""
        source: Path | None = None
        size = 0
        for candidate in (self.part, self.target):
            with suppress(OSError):
                info = candidate.stat()
                if stat.S_ISREG(info.st_mode):
                    source, size = candidate, info.st_size
                    break
        validator = None
        if source == self.part:
            record = self._record()
            if record.get("url") == url:
                validator = record.get("validator")
        if at is None:
            return Kept(size, source, validator)
        if at > size:
            raise ConfigurationError(
                f"-C {at}: only {size} bytes of {self.target} are kept", component="output"
            )
        return Kept(at, source if at else None, validator)

    def _record(self) -> dict[str, Any]:
        import json  # (here: only -C reads or writes a sidecar; ~2 ms of every get's start)

        try:
            with open(self.sidecar, encoding="utf-8") as fh:
                data = json.load(fh)
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def remember(self, url: str, validator: str | None, total: int | None) -> None:
        """Write the sidecar: what the next ``-C -`` sends (RFC 9110 §13.1.5 If-Range)."""
        import json

        record = {"url": url, "validator": validator, "total": total}
        tmp = self.sidecar.with_name(self.sidecar.name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(record, fh)
        os.replace(tmp, self.sidecar)

    def open(self, kept: Kept, outcome: Outcome) -> IO[bytes]:
        """The part file, ready for the bytes the server sends: appended to the kept ones
        (``append``), or empty (``restart``/``refetch``: the server sends it whole)."""
        if outcome != "append" or kept.offset == 0:
            return open(self.part, "wb")
        if kept.source != self.part:
            import shutil  # (only here: with bz2 and lzma, ~2 ms CPU of every get)

            assert kept.source is not None
            shutil.copyfile(kept.source, self.part)  # the target stays as it is
        fh = open(self.part, "r+b")  # noqa: SIM115 -- the caller's to close
        fh.truncate(kept.offset)  # -C N below what is kept: continue at N
        fh.seek(kept.offset)
        return fh

    def commit(self, total: int | None) -> None:
        """Check the part's size against the server's ``total`` and make it the target.

        A short or long file is a :class:`ConnectionClosed` naming both sizes; the part and
        sidecar stay for the next ``-C -``.  The target keeps its mode (a 0600 file stays
        0600); a new file gets the mode a new file normally gets.
        """
        size = self.part.stat().st_size
        if total is not None and size != total:
            raise ConnectionClosed(
                f"{self.target}: {size} bytes kept, the server's file has {total}; "
                f"{self.part.name} is kept: run again with -C - to continue",
                component="output",
            )
        finish(self.part, self.target)
        with suppress(OSError):
            self.sidecar.unlink()

    def discard(self) -> None:
        for path in (self.part, self.sidecar):
            with suppress(OSError):
                path.unlink()


async def write_resumed(
    partial: Partial,
    kept: Kept,
    resource: Resource,
    url: str,
    source: AsyncIterable[bytes] | None = None,
    on_chunk: Callable[[int], None] | None = None,
) -> int:
    """``-C`` (the command and the batch alike): the bytes go to ``.NAME.part`` (appended
    to the kept ones when the server sent a range), which becomes ``NAME`` once its size is
    the server's; returns the bytes written.  A failure or an interruption keeps the part
    and its sidecar for the next ``-C -``."""
    facts = resume_facts(resource)
    if facts.outcome == "complete":
        if kept.source == partial.part:
            partial.commit(facts.total)
        return 0
    partial.remember(url, facts.validator, facts.total)
    written = 0
    with partial.open(kept, facts.outcome) as fh:
        async for chunk in resource if source is None else source:
            fh.write(chunk)
            written += len(chunk)
            if on_chunk is not None:
                on_chunk(len(chunk))
    partial.commit(facts.total)
    return written


__all__ = [
    "Kept",
    "Partial",
    "ResumeFacts",
    "finish",
    "new_file_mode",
    "resume_facts",
    "write_resumed",
]
