"""What resolving a URL gives back: content to stream, a listing, or a live session.

A :class:`Resource` is an async context manager that owns the connection it came from:
leaving the ``async with`` (or :meth:`Resource.aclose`) closes it, even when the body was
not read to the end.  Content is streamed (``async for chunk in resource``), never buffered
unless the caller asks (:meth:`Resource.read`).

What a resolver found out is typed, in two layers (httpx's ``Response.status_code``, never
``metadata["…"]``): the few facts the surfaces read for every scheme are attributes of the
resource (``status``, ``modified``, ``total``, ``validator``, ``resumed``), and everything
else is the scheme's own frozen dataclass in :attr:`Resource.result` (``HTTPResult``,
``FTPResult``…, read with :meth:`Resource.result_as`), whose ``to_json()`` is the
``"metadata"`` object of ``omniurl get --json``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from types import TracebackType

from omniurl.schemes.records import field, record
from omniurl.schemes.secrets import mask_passwords

from .errors import LimitExceeded
from .plan import Plan

TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime
    from typing import Any, Literal, TypeVar, overload

    from .deadline import Guard
    from .resume import Outcome

    ResourceKind = Literal["content", "listing", "session"]
    R = TypeVar("R")


@record(frozen=True)
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

    @classmethod
    def made(cls, name: str, kind: str, url: str | None, info: dict[str, Any]) -> Entry:
        """``Entry(name, kind, url, info)`` without the frozen dataclass's ``__init__``
        (four ``object.__setattr__`` calls: ~1.2 µs of a Gopher info line's ~7, against
        ~0.5 here): for executors that make an entry per line of a listing of 10⁷."""
        entry = object.__new__(cls)
        entry.__dict__.update(name=name, kind=kind, url=url, info=info)
        return entry


@record(frozen=True)
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

    if TYPE_CHECKING:  # (typing is not imported on the command's start)

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


@record(frozen=True)
class Resumed:
    """What the server said to a transfer asked to start at byte ``offset`` (``-C``,
    :mod:`resolvers.resume`): the ``outcome`` for the partial file, and the offset the bytes
    sent start at (0 when they start at the beginning)."""

    outcome: Outcome
    offset: int = 0

    def to_json(self) -> dict[str, Any]:
        """The ``resume`` and ``offset`` keys of a result's JSON."""
        return {"resume": self.outcome.value, "offset": self.offset}


async def read_all(resource: Resource) -> bytes:
    """The whole content, in about its own size of memory.

    ``io.BytesIO`` grows one bytes object in place (realloc) and ``getvalue()`` hands that
    object over without a copy, so a 256 MiB file needs ~1.1× its size at the peak, where
    joining a list of chunks needs 2× (the chunks and the joined copy).
    """
    import io

    buffer = io.BytesIO()
    # Each chunk is copied before the next is asked for: the executor may hand out views of
    # one buffer it reuses (Resource.views_ok: no new object a read, fewer and fuller reads).
    views, resource.views_ok = resource.views_ok, True
    try:
        async for chunk in resource:
            buffer.write(chunk)
    finally:
        resource.views_ok = views
    return buffer.getvalue()


class Resource:
    """The outcome of resolving a URL.

    ``kind`` is ``content`` (iterate the body), ``listing`` (read :attr:`entries`) or
    ``session`` (an interactive session object in :attr:`session`).  ``media_type`` (no
    parameters), ``charset`` (the one the server declared) and ``size`` are set when
    known; ``replies`` are the server's replies in order (what ``-v`` shows); ``chain``
    lists the URLs followed to get here (redirects, Prospero referrals).

    The facts every surface may read, whatever the scheme (None: the server did not say):

    - ``status`` — the server's numeric status for the request (HTTP's, Gemini's): ``-w
      %{http_code}``, the batch manifest's ``status``;
    - ``modified`` — when the resource last changed (FTP ``MDTM``): ``-I``'s
      ``Last-Modified``;
    - ``total`` — the whole resource's size as the server stated it, where that is not
      ``size`` (``-I``'s ``SIZE``; the complete length a range belongs to): ``-I``'s
      ``Content-Length``, ``-C``'s check that a part is complete;
    - ``validator`` — what a later resume must present for its part to still be valid
      (HTTP's strong ``ETag`` or ``Last-Modified``, sent back in ``If-Range``): ``-C``'s
      sidecar;
    - ``resumed`` — the answer to a transfer asked to start at an offset (:class:`Resumed`);
      None when none was asked.

    ``result`` is the scheme's own typed result (see the module doc).
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
        charset: str | None = None,
        media_guess: Callable[[], str | None] | None = None,
        size: int | None = None,
        replies: Sequence[str] = (),
        close: Callable[[], Awaitable[None]] | None = None,
        result: object | None = None,
        status: int | None = None,
        modified: datetime.datetime | None = None,
        total: int | None = None,
        validator: str | None = None,
        resumed: Resumed | None = None,
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
        self._media_type = media_type
        #: The ``charset`` parameter the server declared with the media type (HTTP's
        #: Content-Type, RFC 9110 §8.3.2; ``media_type`` carries no parameters), as sent
        #: (unquoted); None when none was declared.  What the mirror reads a page in.
        self.charset = charset
        #: Makes :attr:`media_type` when it is first read (FTP's guess from the name's
        #: suffix, which imports mimetypes and reads the system's mime.types: a get that
        #: never reads the media type never pays for it).
        self._media_guess = media_guess
        self.size = size
        self.replies: list[str] = list(replies)
        #: What the resolver found out, typed: a frozen dataclass of the scheme's
        #: (``HTTPResult``, mailto's ``Sent``…), read with :meth:`result_as`; its
        #: ``to_json()`` is :attr:`metadata` (``--json``).
        self.result = result
        self.status = status
        self.modified = modified
        self.total = total
        self.validator = validator
        self.resumed = resumed
        self.chain: list[str] = []
        self._close = close
        self._closed = False
        #: An iteration of the body was cancelled (``asyncio.wait_for``, ``task.cancel()``)
        #: before its end: a later one raises instead of ending as if the content were whole.
        self._cancelled = False
        #: Bytes handed out so far (drives progress bars).
        self.bytes_read = 0
        #: Set by a consumer that writes or copies each chunk before it asks for the next
        #: (the CLI's writers): an executor may then hand out ``memoryview`` chunks of one
        #: buffer it reuses (HTTP's bulk path: no new object, no fresh memory, per read).
        self.views_ok = False
        #: Set (with :attr:`views_ok`) by a consumer that only writes the content to this
        #: file descriptor (the CLI's writers, ``net.sink_usable``): an executor may then move
        #: a bulk body there itself (``net.Stream.splice_into``: no copy through this process)
        #: and hand out chunks that stand for the bytes moved (``net.is_moved``); the consumer
        #: writes every other chunk to the descriptor itself, in order, unbuffered.
        self.sink: int | None = None
        #: The whole-transfer limits (``--max-time``, ``--speed-limit``), set by the core.
        self.guard: Guard | None = None
        #: An error reply whose body was asked for (``Options.error_body``): the typed
        #: error its status means (``StatusError``, ``AuthError``), for the caller to raise
        #: once it has shown the content.  None: the reply was a success.
        self.failure: Exception | None = None
        #: The head of each redirect followed to get here, in order (its status line and
        #: fields, as ``replies``): what ``-I -L`` shows before the final head.
        self.hops: list[tuple[str, ...]] = []
        #: ``Options.max_filesize`` (set by the core through :meth:`limit_size`).
        self.max_size: int | None = None

    def limit_size(self, limit: int) -> None:
        """``--max-filesize``, as curl applies it to every transfer: a content whose stated
        size (``size``, or ``total`` — HTTP's Content-Length, FTP's SIZE) is larger is
        refused before a byte of it is read; any other ends when more than ``limit`` bytes
        have come (:meth:`__aiter__`), a typed error, so no file is left looking complete."""
        self.max_size = limit
        known = max((n for n in (self.size, self.total) if n is not None), default=None)
        if known is not None and known > limit:
            raise self._too_large(f"is {known} bytes")

    def _too_large(self, what: str) -> LimitExceeded:
        return LimitExceeded(
            f"{self.url}: the content {what}, more than --max-filesize {self.max_size}",
            component="content",
        )

    async def __aiter__(self) -> AsyncIterator[bytes]:
        if self._cancelled:
            # (the body's generator ended with the cancelled wait: iterating it again would
            # end at once, a truncated content looking complete)
            from .errors import ConnectionClosed

            raise ConnectionClosed(
                f"{self.url}: reading the content was cancelled after {self.bytes_read} "
                "bytes; the rest was not read",
                component="content",
            )
        if self._body is None:
            return
        guard = self.guard
        limit = self.max_size
        try:
            if guard is None:
                async for chunk in self._body:
                    self.bytes_read += len(chunk)
                    if limit is not None and self.bytes_read > limit:
                        raise self._too_large("goes on past its first " + str(limit) + " bytes")
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
                    if limit is not None and self.bytes_read > limit:
                        raise self._too_large("goes on past its first " + str(limit) + " bytes")
                    yield chunk
            finally:
                watchdog.close()
        except BaseException as exc:
            import asyncio

            if isinstance(exc, asyncio.CancelledError):
                self._cancelled = True
            raise
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
        import asyncio

        from .deadline import OBSERVE_EVERY, Watchdog

        guard = self.guard
        count = 0
        watchdog = None
        limit = self.max_entries
        try:
            if guard is not None:
                guard.start_content()
                watchdog = Watchdog(guard)
            while True:
                try:
                    entry = await (watchdog.next(stream) if watchdog else anext(stream))
                except StopAsyncIteration:
                    return
                count += 1
                if limit is not None and count > limit:
                    raise LimitExceeded(
                        f"the listing has more than {limit} entries (--max-entries)",
                        component="listing",
                    )
                if guard is not None:
                    # The speed limit counts an entry as its name and 8 bytes (never its
                    # URL: that would build every entry's URL, ~5 µs of ~29 µs an entry, for
                    # a consumer that may not want it).  Judged every OBSERVE_EVERY entries.
                    guard.add(len(entry.name) + 8)
                if count % OBSERVE_EVERY == 0:
                    if guard is not None:
                        guard.observe(0)
                    await asyncio.sleep(0)
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
    def media_type(self) -> str | None:
        """The content's media type, when known (for FTP, guessed from the name on first
        read)."""
        guess = self._media_guess
        if guess is not None:
            self._media_type, self._media_guess = guess(), None
        return self._media_type

    @media_type.setter
    def media_type(self, value: str | None) -> None:
        self._media_type, self._media_guess = value, None

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

    @property
    def metadata(self) -> dict[str, Any]:
        """The typed :attr:`result` as JSON: its ``to_json()``, or ``{}`` when there is no
        result or it has no ``to_json``.  Derived, read-only, a new dict each time: the
        ``"metadata"`` object of ``omniurl get --json``; programs read the typed
        attributes instead."""
        to_json = getattr(self.result, "to_json", None)
        return dict(to_json()) if callable(to_json) else {}

    def describe(self) -> dict[str, Any]:
        """The resource as JSON (``omniurl get --json``)."""
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
