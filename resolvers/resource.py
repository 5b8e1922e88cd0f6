"""What resolving a URL gives back: content to stream, a listing, or a live session.

A :class:`Resource` is an async context manager that owns the connection it came from:
leaving the ``async with`` (or :meth:`Resource.aclose`) closes it, even when the body was
not read to the end.  Content is streamed (``async for chunk in resource``), never buffered
unless the caller asks (:meth:`Resource.read`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

from omniurl.schemes.secrets import mask_passwords

from .errors import LimitExceeded
from .plan import Plan

if TYPE_CHECKING:
    from .deadline import Guard

ResourceKind = Literal["content", "listing", "session"]
R = TypeVar("R")


@dataclass(frozen=True)
class Entry:
    """One item of a listing: a directory entry, a menu item, an article, a search hit.

    ``kind`` is a word a person understands (``"file"``, ``"directory"``, ``"search"``,
    ``"info"``, ``"article"``, ``"group"``...); ``url`` is the item's own URL (``None`` for
    items that are not links, such as Gopher info lines); ``info`` holds protocol-specific
    details (Gopher type, score, size, subject...).
    """

    name: str
    kind: str
    url: str | None = None
    info: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "url": self.url, "info": self.info}


@dataclass(frozen=True)
class Listing(Sequence[Entry]):
    """A whole listing, read: what ``get`` returns for a directory, a menu, a group or a
    search (a sequence of :class:`Entry`; ``url`` is the listing's own URL)."""

    url: str
    entries: tuple[Entry, ...]
    media_type: str | None = None

    @classmethod
    async def collect(cls, resource: Resource) -> Listing:
        entries = tuple([entry async for entry in resource.aiter_entries()])
        return cls(str(resource.url), entries, resource.media_type)

    @overload
    def __getitem__(self, index: int) -> Entry: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Entry]: ...
    def __getitem__(self, index: int | slice) -> Entry | Sequence[Entry]:
        return self.entries[index]

    def __len__(self) -> int:
        return len(self.entries)

    def to_json(self) -> dict[str, Any]:
        return {"url": self.url, "entries": [entry.to_json() for entry in self.entries]}


async def read_all(resource: Resource) -> bytes:
    """The whole content, in about its own size of memory.

    ``io.BytesIO`` grows one bytes object in place (realloc) and ``getvalue()`` hands that
    object over without a copy, so a 256 MiB file needs ~1.1× its size at the peak, where
    joining a list of chunks needs 2× (the chunks and the joined copy).
    """
    import io

    buffer = io.BytesIO()
    async for chunk in resource:
        buffer.write(chunk)
    return buffer.getvalue()


class Resource:
    """The outcome of resolving a URL.

    ``kind`` is ``content`` (iterate the body), ``listing`` (read :attr:`entries`) or
    ``session`` (an interactive session object in :attr:`session`).  ``media_type`` and
    ``size`` are set when known; ``replies`` are the server's replies in order (what ``-v``
    shows); ``chain`` lists the URLs followed to get here (redirects, Prospero referrals).
    """

    def __init__(
        self,
        plan: Plan,
        *,
        kind: ResourceKind = "content",
        body: AsyncIterator[bytes] | None = None,
        entries: Sequence[Entry] | None = None,
        entry_stream: AsyncIterator[Entry] | None = None,
        session: Any = None,
        media_type: str | None = None,
        size: int | None = None,
        replies: Sequence[str] = (),
        metadata: dict[str, Any] | None = None,
        close: Callable[[], Awaitable[None]] | None = None,
        result: object | None = None,
    ) -> None:
        self.plan = plan
        self.url = plan.url
        self.kind: ResourceKind = kind
        self._body = body
        self.entries: list[Entry] = list(entries or ())
        #: A listing read off the wire as it is iterated (:meth:`aiter_entries`); None once
        #: consumed or collected into :attr:`entries`.
        self._entry_stream = entry_stream
        #: A caller's bound on a listing's entries (``Options.max_entries``, set by the core).
        self.max_entries: int | None = None
        self.session = session
        self.media_type = media_type
        self.size = size
        self.replies: list[str] = list(replies)
        self.metadata: dict[str, Any] = dict(metadata or {})
        #: What the resolver found out, typed: a frozen dataclass of the scheme's (mailto's
        #: ``Sent``…), read with :meth:`result_as`; ``metadata`` is its JSON (``--json``).
        self.result = result
        self.chain: list[str] = []
        self._close = close
        self._closed = False
        #: Bytes handed out so far (drives progress bars).
        self.bytes_read = 0
        #: Set by a consumer that writes or copies each chunk before it asks for the next
        #: (the CLI's writers): an executor may then hand out ``memoryview`` chunks of one
        #: buffer it reuses (HTTP's bulk path: no new object, no fresh memory, per read).
        self.views_ok = False
        #: The whole-transfer limits (``--max-time``, ``--speed-limit``), set by the core.
        self.guard: Guard | None = None

    async def __aiter__(self) -> AsyncIterator[bytes]:
        if self._body is None:
            return
        guard = self.guard
        try:
            if guard is None:
                async for chunk in self._body:
                    self.bytes_read += len(chunk)
                    yield chunk
                return
            # The whole-transfer limits (resolvers.deadline): each wait for the next chunk
            # lasts at most until a limit would be broken; a trickle ends with a typed error.
            from .deadline import Watchdog

            body = self._body.__aiter__()
            guard.start_content()
            watchdog = Watchdog(guard)
            try:
                while True:
                    try:
                        chunk = await watchdog.next(body)
                    except StopAsyncIteration:
                        return
                    guard.observe(len(chunk))
                    self.bytes_read += len(chunk)
                    yield chunk
            finally:
                watchdog.close()
        finally:
            await self.aclose()

    async def aiter_entries(self) -> AsyncIterator[Entry]:
        """The listing's entries, one at a time, as they arrive.

        This is the one way callers (the CLI, the client, the integrations, the gateway) read
        a listing, so that an executor can stream entries off the wire instead of holding the
        whole listing (a hostile server can send millions).
        """
        stream, self._entry_stream = self._entry_stream, None
        if stream is None:
            for entry in self.entries:
                yield entry
            return
        guard = self.guard
        count = 0
        watchdog = None
        try:
            if guard is not None:
                from .deadline import Watchdog

                guard.start_content()
                watchdog = Watchdog(guard)
            while True:
                try:
                    entry = await (watchdog.next(stream) if watchdog else anext(stream))
                except StopAsyncIteration:
                    return
                count += 1
                if self.max_entries is not None and count > self.max_entries:
                    raise LimitExceeded(
                        f"the listing has more than {self.max_entries} entries (--max-entries)",
                        component="listing",
                    )
                if guard is not None:  # the speed limit counts an entry as its text
                    guard.observe(len(entry.name) + len(entry.url or "") + 8)
                yield entry
        finally:
            if watchdog is not None:
                watchdog.close()
            if hasattr(stream, "aclose"):
                await stream.aclose()
            await self.aclose()

    async def collect_entries(self, max_bytes: int | None = None) -> list[Entry]:
        """Read a streaming listing whole into :attr:`entries`, bounded by ``max_entries``
        and by ``max_bytes`` of entry text (``Options.max_buffered``: what is held in
        memory); the connection closes at its end."""
        if self._entry_stream is None:
            return self.entries
        entries: list[Entry] = []
        held = 0
        async for entry in self.aiter_entries():
            held += len(entry.name) + len(entry.url or "") + 8
            if max_bytes is not None and held > max_bytes:
                raise LimitExceeded(
                    f"the listing is larger than {max_bytes} bytes read whole (stream it "
                    "with aiter_entries(), Options(stream_listings=True))",
                    component="listing",
                )
            entries.append(entry)
        self.entries = entries
        return entries

    @property
    def streaming(self) -> bool:
        """Whether the listing is still on the wire (read it with :meth:`aiter_entries`)."""
        return self._entry_stream is not None

    async def read(self) -> bytes:
        """The whole body (content) in memory (:func:`read_all`)."""
        return await read_all(self)

    async def aclose(self) -> None:
        """Close the connection behind the resource; safe to call more than once."""
        if self._closed:
            return
        self._closed = True
        body, self._body = self._body, None
        stream, self._entry_stream = self._entry_stream, None
        try:
            if body is not None and hasattr(body, "aclose"):
                await body.aclose()
            if stream is not None and hasattr(stream, "aclose"):
                await stream.aclose()
        finally:
            if self._close is not None:
                await self._close()

    async def __aenter__(self) -> Resource:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def result_as(self, kind: type[R]) -> R | None:
        """:attr:`result` if it is a ``kind`` (the scheme's typed result), else None."""
        return self.result if isinstance(self.result, kind) else None

    def describe(self) -> dict[str, Any]:
        """Metadata as JSON (``omniurl get --json``)."""
        return {
            "url": mask_passwords(str(self.url)),
            "kind": self.kind,
            "media_type": self.media_type,
            "size": self.size,
            "replies": self.replies,
            "chain": [mask_passwords(url) for url in self.chain],
            "entries": [e.to_json() for e in self.entries] if self.kind == "listing" else None,
            "metadata": self.metadata,
        }
