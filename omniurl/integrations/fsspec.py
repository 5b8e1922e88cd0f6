"""An fsspec filesystem for the schemes fsspec does not ship (gopher, wais, nntp, news,
prospero, and a plugin's): every scheme whose spec says ``fsspec=True``.

Registered through the ``fsspec.specs`` entry-point group (``pip install 'omniurl[fsspec]'``;
a plugin adds its scheme's line to the same group) so that
``fsspec.open("gopher://host/0/a.txt").read()`` works; :func:`register` does the same in a
running process.  ``ftp``, ``http``, ``https`` and ``file`` are deliberately *not*
registered (their specs say ``fsspec=False``): fsspec loads entry points with
``clobber=True``, so registering them would silently replace fsspec's own filesystems for
every user of the environment.

The URL is kept whole (:meth:`OmniurlFileSystem._strip_protocol` returns it unchanged): a
Gopher selector (RFC 1436 §2) or an NNTP message-id (RFC 5538 §2) is not a path, and
rebuilding it from "protocol + path" would change the bytes sent.

**The** ``::`` **hazard.**  fsspec splits every URL on ``::`` (its chaining separator) before
any filesystem sees it, so ``gopher://h/0/a::b`` reaches us as ``gopher://h/0/a`` and an IPv6
literal such as ``gopher://[::1]:7070/`` is cut apart.  Write ``::`` as ``%3A%3A`` in the
selector (Gopher decodes it back, RFC 1738 §3.4 / §2.2) and use a host name (or
``resolve={("v6host", 7070): ("::1", 7070)}`` in ``storage_options``) for IPv6 servers.
RFC 5538's ``news:group`` form has no ``://`` and fsspec itself routes it to the local
filesystem before any of ours is asked (``fsspec.core.split_protocol``), so
``fsspec.open("news:")`` is a local ``FileNotFoundError`` that omniurl never sees: use
``news://server/group``, pass ``protocol="news"``, or this module's :func:`open`, which routes
every URL whose scheme is one of :data:`PROTOCOLS` here and raises omniurl's typed errors.

**Errors** are omniurl's (:class:`omniurl.OmniurlError`: a syntax error, a refusal, a
timeout), with one adaptation fsspec needs: a resource the server says does not exist
(:class:`~omniurl.resolvers.errors.NotFound`: a Gopher type-3 item, an NNTP 430, a WAIS
document gone) is raised as :class:`ResourceNotFound`, which is that ``NotFound`` *and* a
``FileNotFoundError``, so ``fs.exists()`` answers False and caches treat it as a miss.

Options come through ``storage_options`` (see :func:`omniurl.integrations.options.options_from`);
a policy refusal reaches the caller as the same typed :class:`omniurl.OmniurlError`.
"""

from __future__ import annotations

import asyncio
import io
import os
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from fsspec.asyn import AsyncFileSystem, sync

from omniurl.resolvers.core import resolve
from omniurl.resolvers.errors import ConnectionClosed, NotFound
from omniurl.resolvers.options import Options
from omniurl.resolvers.resource import Entry, Resource
from omniurl.schemes.errors import OmniurlError

from . import _loop
from .options import KNOWN, options_from


def protocols() -> tuple[str, ...]:
    """The schemes this filesystem serves: those whose spec says ``fsspec=True`` (never
    ftp/http/https/file: see the module docstring), plugins' included."""
    from omniurl.resolvers.registry import all_specs

    return tuple(name for spec in all_specs() if spec.fsspec for name in spec.names)


#: The protocols this filesystem serves (when this module was imported).
PROTOCOLS = protocols()


def register(clobber: bool = False) -> tuple[str, ...]:
    """Register this filesystem with fsspec for every scheme of :func:`protocols` (what
    the entry points do; for a scheme registered in this process).  Returns them."""
    import fsspec

    names = protocols()
    for name in names:
        fsspec.register_implementation(name, OmniurlFileSystem, clobber=clobber)
    return names


class ResourceNotFound(NotFound, FileNotFoundError):
    """The server says the resource does not exist: omniurl's :class:`NotFound` (its message,
    component, code and reply kept) that is also the ``FileNotFoundError`` fsspec's
    ``exists``, ``isfile`` and caches expect of a missing path."""

    @classmethod
    def of(cls, exc: NotFound) -> ResourceNotFound:
        return cls(str(exc), component=exc.component, code=exc.code, reply=exc.reply)


def _entry_info(entry: Entry, parent: str) -> dict[str, Any]:
    """fsspec's info dict for one listing entry (the entry's own URL is its name)."""
    kind = "directory" if entry.kind in ("directory", "group") else "file"  # not a scheme
    if entry.url is None:
        kind = "other"
    return {
        "name": entry.url or f"{parent}#{entry.name}",
        "type": kind,
        "size": entry.info.get("size"),
        "title": entry.name,
        "kind": entry.kind,
    }


def _resource_info(resource: Resource) -> dict[str, Any]:
    """fsspec's info dict for a resolved URL (size when the protocol says it)."""
    kind = "directory" if resource.kind == "listing" else "file"  # not a scheme
    return {
        "name": str(resource.url),
        "type": kind,
        "size": resource.size,
        "media_type": resource.media_type,
    }


class _StreamFile(io.RawIOBase):
    """A read-only raw stream over a resource's body, pulled chunk by chunk on fsspec's loop.

    Nothing is buffered beyond the chunk being handed out, so ``f.read(10)`` of a large file
    reads what it needs and ``close()`` ends the transfer.

    ``tell()`` and ``seek()`` work as on any fsspec file (pandas, ``zipfile`` and format
    sniffers call them): none of these protocols has a byte range (RFC 1436 §2 asks for a
    whole selector), so a seek forward reads and drops the bytes before the target, a seek
    back asks again from the start, and a seek from the end needs the size the server told
    (else :class:`io.UnsupportedOperation`).  Before, ``tell()`` itself raised.
    """

    def __init__(self, fs: OmniurlFileSystem, url: str, resource: Resource) -> None:
        super().__init__()
        self.fs = fs
        self.name = url
        self._start(resource)

    def _start(self, resource: Resource) -> None:
        self._resource = resource
        self._chunks: AsyncIterator[bytes] = resource.__aiter__()
        self._pending = b""
        self._eof = False
        self._position = 0
        self._broken: BaseException | None = None

    async def _next(self) -> bytes:
        return await self._chunks.__anext__()

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._position

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        while not self._pending and not self._eof:
            if self._broken is not None:  # (an interrupted body never reads as complete)
                raise ConnectionClosed(
                    f"{self.name}: the transfer was interrupted ({self._broken!r})",
                    component="transfer",
                )
            try:
                # (not fsspec's ``sync``: interrupted, it leaves the read running)
                self._pending = _loop.run_on(self.fs.loop, self._next(), None)
            except StopAsyncIteration:
                self._eof = True
            except OmniurlError:
                raise
            except BaseException as exc:  # Ctrl-C: the read was cancelled and waited for
                self._broken = exc
                raise
        count = min(len(view), len(self._pending))
        view[:count] = self._pending[:count]
        self._pending = self._pending[count:]
        self._position += count
        return count

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        if self.closed:
            raise ValueError("seek of a closed file")
        if whence == io.SEEK_SET:
            target = offset
        elif whence == io.SEEK_CUR:
            target = self._position + offset
        elif whence == io.SEEK_END:
            if self._resource.size is None:
                raise io.UnsupportedOperation(
                    f"{self.name}: the server told no size, so there is no end to seek from"
                )
            target = self._resource.size + offset
        else:
            raise ValueError(f"invalid whence ({whence!r})")
        if target < 0:
            raise ValueError(f"negative seek position {target}")
        if target < self._position:  # back: ask again, from the start
            sync(self.fs.loop, self._resource.aclose)
            resource: Resource = sync(self.fs.loop, self.fs._resolve, self.name)
            self._start(resource)
        scratch = bytearray(min(target - self._position, 1 << 16) or 1)
        while self._position < target:
            want = min(len(scratch), target - self._position)
            if not self.readinto(memoryview(scratch)[:want]):
                break  # past the end: the position is the end (reads give b"")
        return self._position

    def close(self) -> None:
        if not self.closed:
            try:
                sync(self.fs.loop, self._resource.aclose)
            finally:
                super().close()


class _AsyncStreamFile:
    """What :meth:`OmniurlFileSystem.open_async` returns: ``await f.read(n)``, streaming."""

    def __init__(self, url: str, resource: Resource) -> None:
        self.name = url
        self._resource = resource
        self._chunks: AsyncIterator[bytes] = resource.__aiter__()
        self._pending = b""
        self._eof = False
        self._cancelled = False

    async def read(self, length: int = -1) -> bytes:
        if self._cancelled:  # (the body's iterator ended with the cancel: not at its end)
            raise ConnectionClosed(
                f"{self.name}: a read was cancelled; the rest of the content was not read",
                component="transfer",
            )
        parts = [self._pending]
        have = len(self._pending)
        while (length < 0 or have < length) and not self._eof:
            try:
                chunk = await self._chunks.__anext__()
            except StopAsyncIteration:
                self._eof = True
                break
            except asyncio.CancelledError:
                self._cancelled = True
                raise
            parts.append(chunk)
            have += len(chunk)
        data = b"".join(parts)
        if length < 0:
            self._pending = b""
            return data
        self._pending = data[length:]
        return data[:length]

    async def close(self) -> None:
        await self._resource.aclose()

    async def __aenter__(self) -> _AsyncStreamFile:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


class OmniurlFileSystem(AsyncFileSystem):
    """fsspec's view of omniurl: read-only, one URL = one file or one listing."""

    protocol = PROTOCOLS
    root_marker = ""
    async_impl = True

    def __init__(self, *args: Any, **storage_options: Any) -> None:
        ours = {k: v for k, v in storage_options.items() if k in KNOWN}
        theirs = {k: v for k, v in storage_options.items() if k not in KNOWN}
        super().__init__(*args, **theirs)
        self.options: Options = options_from(ours)

    @classmethod
    def _strip_protocol(cls, path: Any) -> Any:
        """The URL whole: a selector or message-id is not a path (module docstring)."""
        if isinstance(path, list):
            return [cls._strip_protocol(p) for p in path]
        return str(path)

    def unstrip_protocol(self, name: str) -> str:
        return name

    async def _expand_path(
        self,
        path: Any,
        recursive: bool = False,
        maxdepth: int | None = None,
        assume_literal: bool = False,
        **kwargs: Any,
    ) -> list[str]:
        """Every URL literal: ``?`` opens a query (a WAIS search, RFC 1738 §3.9), ``*`` is
        a news: URL's every group (§3.6), and neither is a glob pattern here.  Before,
        ``fs.cat`` and ``fs.get`` globbed ``gopher://h/0/q?.txt`` against the menu and
        raised a bare ``FileNotFoundError`` of the URL (``open`` and ``cat_file`` read it);
        ``fs.glob`` still globs when asked."""
        return list(await super()._expand_path(path, recursive, maxdepth, assume_literal=True))

    async def _resolve(self, path: str) -> Resource:
        try:
            return await resolve(path, self.options)
        except NotFound as exc:
            if isinstance(exc, FileNotFoundError):
                raise
            raise ResourceNotFound.of(exc) from exc

    async def _cat_file(
        self, path: str, start: int | None = None, end: int | None = None, **kwargs: Any
    ) -> bytes:
        async with await self._resolve(path) as resource:
            if resource.kind == "listing":
                raise IsADirectoryError(path)
            data = await resource.read()
        return data[start:end] if (start is not None or end is not None) else data

    async def _info(self, path: str, **kwargs: Any) -> dict[str, Any]:
        async with await self._resolve(path) as resource:
            return _resource_info(resource)

    async def _ls(self, path: str, detail: bool = True, **kwargs: Any) -> list[Any]:
        async with await self._resolve(path) as resource:
            if resource.kind == "listing":
                infos = [_entry_info(e, path) async for e in resource.aiter_entries()]
            else:
                infos = [_resource_info(resource)]
        return infos if detail else [i["name"] for i in infos]

    async def _get(self, rpath: Any, lpath: Any, recursive: bool = False, **kwargs: Any) -> Any:
        """fsspec's ``get``, but a URL with ``?`` or ``*`` is one file, not a glob: fsspec
        takes ``lpath`` for a directory when the source "has magic" (see
        :meth:`_expand_path`), so ``get("gopher://h/0/q?.txt", "out.txt")`` wrote
        ``out.txt/q?.txt``."""
        magic = isinstance(rpath, str) and any(c in rpath for c in "*?[")  # glob.has_magic's
        if magic and isinstance(lpath, str) and not recursive:
            target = lpath
            if lpath.endswith(("/", os.sep)) or os.path.isdir(lpath):
                target = os.path.join(lpath, rpath.rstrip("/").rsplit("/", 1)[-1])
            return await super()._get([rpath], [target], **kwargs)
        return await super()._get(rpath, lpath, recursive=recursive, **kwargs)

    async def _get_file(self, rpath: str, lpath: str, **kwargs: Any) -> None:
        """Stream to a temporary file beside ``lpath`` and rename: never a partial file."""
        if os.path.isdir(lpath):
            return
        target = Path(lpath)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
        try:
            with os.fdopen(fd, "wb") as out:
                async with await self._resolve(rpath) as resource:
                    if resource.kind == "listing":
                        raise IsADirectoryError(rpath)
                    async for chunk in resource:
                        out.write(chunk)
            from omniurl.finished import finish

            finish(tmp, target)  # the target's mode, or a new file's (not mkstemp's 0600)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def _open(self, path: str, mode: str = "rb", **kwargs: Any) -> io.BufferedReader:
        if mode != "rb":
            raise NotImplementedError(f"omniurl URLs are read-only (mode {mode!r})")
        resource: Resource = sync(self.loop, self._resolve, path)
        if resource.kind == "listing":
            sync(self.loop, resource.aclose)
            raise IsADirectoryError(path)
        return io.BufferedReader(_StreamFile(self, path, resource), self.options.chunk_size)

    async def open_async(self, path: str, mode: str = "rb", **kwargs: Any) -> _AsyncStreamFile:
        if mode != "rb":
            raise NotImplementedError(f"omniurl URLs are read-only (mode {mode!r})")
        resource = await self._resolve(path)
        if resource.kind == "listing":
            await resource.aclose()
            raise IsADirectoryError(path)
        return _AsyncStreamFile(path, resource)


def open(url: str, mode: str = "rb", **storage_options: Any) -> Any:
    """``fsspec.open(url)`` for omniurl's :data:`PROTOCOLS`, ``news:group`` included.

    fsspec routes a URL without ``://`` to the local filesystem; this routes by the URL's
    scheme, so ``open("news:")`` raises omniurl's ``SchemeSyntaxError`` (§3.6: a news: URL
    names a group, ``*`` or a message-id) instead of the local ``FileNotFoundError``.
    Other schemes are handed to ``fsspec.open`` as they are.
    """
    import fsspec

    scheme, colon, _rest = url.partition(":")
    if colon and scheme.lower() in PROTOCOLS:
        return fsspec.open(url, mode, protocol=scheme.lower(), **storage_options)
    return fsspec.open(url, mode, **storage_options)
