"""A ``urllib.request`` handler for the schemes urllib lacks, so ``urlopen`` (and pandas) read them.

Python dropped ``gopher`` from urllib in 2.6 (PEP 4); ``urlopen("gopher://…")`` says "unknown
url type".  :func:`install` adds :class:`OmniurlHandler` to the global opener for every scheme
whose spec says ``urllib=True``: gopher, gophers, wais, nntp, news, prospero, and a plugin's
(ftp, http(s) and file stay urllib's own).  ``pd.read_csv("gopher://…")`` goes to ``urlopen``,
not to fsspec (pandas' ``is_url`` checks urllib's scheme lists first), so this is what makes
pandas read those URLs too.

The body streams (nothing is buffered beyond a chunk); a content is the bytes every other
save path gives (docs/saving.md).  A listing (Gopher menu, news group) reads as JSON Lines,
one entry per line with all its details (``pd.read_json(url, lines=True)``): on purpose not
the ``kind TAB name TAB url`` lines ``omniurl get`` saves (``omniurl.saving``), which keep
no sizes, dates or types.
An omniurl error becomes :class:`urllib.error.URLError` whose ``reason`` is the typed error
(a policy refusal stays a refusal the caller can tell apart).
"""

from __future__ import annotations

import email.message
import io
import json
import urllib.error
import urllib.request
import urllib.response
from collections.abc import AsyncIterator
from typing import Any

from omniurl.resolvers.core import resolve
from omniurl.resolvers.options import Options
from omniurl.resolvers.resource import Resource
from omniurl.schemes import OmniurlError

from . import _loop


def schemes() -> tuple[str, ...]:
    """The schemes the handler opens: those whose spec says ``urllib=True`` (urllib has no
    handler for them), plugins' included."""
    from omniurl.resolvers.registry import all_specs

    return tuple(name for spec in all_specs() if spec.urllib for name in spec.names)


#: The schemes the handler opens (when this module was imported; :func:`install` and each
#: new handler read them anew).
SCHEMES = schemes()


async def _listing_lines(resource: Resource) -> AsyncIterator[bytes]:
    async for entry in resource.aiter_entries():
        yield (json.dumps(entry.to_json(), ensure_ascii=False) + "\n").encode()


async def _resolved(url: str, options: Options) -> Resource:
    return await resolve(url, options)


class _Body(io.RawIOBase):
    """The response body, pulled a chunk at a time from the shared loop."""

    def __init__(self, resource: Resource, chunks: AsyncIterator[bytes], timeout: float) -> None:
        super().__init__()
        self._resource = resource
        self._chunks = chunks
        self._timeout = timeout
        self._pending = b""
        self._eof = False
        self._broken: BaseException | None = None

    def readable(self) -> bool:
        return True

    async def _next(self) -> bytes:
        return await self._chunks.__anext__()

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        while not self._pending and not self._eof:
            if self._broken is not None:  # (an interrupted body never reads as complete)
                raise urllib.error.URLError(f"the transfer was interrupted: {self._broken!r}")
            try:
                self._pending = _loop.run(self._next(), self._timeout)
            except StopAsyncIteration:
                self._eof = True
            except OmniurlError as exc:
                raise urllib.error.URLError(exc) from exc
            except BaseException as exc:  # a timeout, Ctrl-C: the transfer was cancelled
                self._broken = exc
                raise
        count = min(len(view), len(self._pending))
        view[:count] = self._pending[:count]
        self._pending = self._pending[count:]
        return count

    async def _close(self) -> None:
        await self._resource.aclose()

    def close(self) -> None:
        if not self.closed:
            try:
                _loop.run(self._close(), self._timeout)
            finally:
                super().close()


def _with_timeout(options: Options, timeout: object) -> Options:
    """``options`` with ``urlopen(url, timeout=t)``'s ``t`` as the connect and the read
    timeout — what urllib's own handlers give it (``socket.create_connection`` and every
    blocking read); urllib's default (no ``timeout=``) keeps the handler's options.
    Before, the argument was ignored: ``urlopen(silent, timeout=0.5)`` waited 30 s."""
    if isinstance(timeout, bool) or not isinstance(timeout, int | float):
        return options  # socket._GLOBAL_DEFAULT_TIMEOUT (an object()), or None
    return options.with_(connect_timeout=float(timeout), read_timeout=float(timeout))


class OmniurlHandler(urllib.request.BaseHandler):
    """``<scheme>_open`` for every scheme of :func:`schemes`, backed by :func:`resolve`."""

    def __init__(self, options: Options | None = None) -> None:
        self.options = options or Options()
        # urllib finds a handler's methods by name (dir()): one per scheme, plugins' too.
        for scheme in schemes():
            setattr(self, f"{scheme}_open", self._open)

    def _open(self, req: urllib.request.Request) -> urllib.response.addinfourl:
        url = req.full_url
        options = _with_timeout(self.options, getattr(req, "timeout", None))
        timeout = options.connect_timeout + options.read_timeout
        try:
            resource = _loop.run(_resolved(url, options), timeout)
        except OmniurlError as exc:
            raise urllib.error.URLError(exc) from exc
        except TimeoutError as exc:  # pragma: no cover - resolve bounds its own waits
            raise urllib.error.URLError(f"timed out: {url}") from exc
        headers = email.message.Message()
        if resource.kind == "listing":
            chunks = _listing_lines(resource)
            headers["Content-Type"] = "application/x-ndjson"
        else:
            chunks = resource.__aiter__()
            headers["Content-Type"] = resource.media_type or "application/octet-stream"
            if resource.size is not None:
                headers["Content-Length"] = str(resource.size)
        body = io.BufferedReader(_Body(resource, chunks, timeout), options.chunk_size)
        return urllib.response.addinfourl(body, headers, url)


def install(options: Options | None = None) -> urllib.request.OpenerDirector:
    """Install a global opener that also knows :func:`schemes` (``urlopen`` and pandas use it).

    Returns the opener; calling again replaces it (with new ``options``).
    """
    opener = urllib.request.build_opener(OmniurlHandler(options))
    urllib.request.install_opener(opener)
    return opener
