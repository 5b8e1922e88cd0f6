"""A small HTTP/1.1 server on h11 for the tests and the demo: serves a directory.

h11 does the framing (the protocol as pure functions over bytes); this module does the I/O.
``GET`` and ``HEAD`` of files (streamed in blocks, with ``Content-Length``, a media type, an
``ETag`` and ``Range: bytes=N-`` answered with 206 for resumed transfers),
directories as a short HTML index (a directory asked for without its trailing ``/`` is
redirected to it, 301, as real servers do), keep-alive.  ``routes`` maps a request target to a
scripted answer ``(status, headers, body)`` — redirects and errors for the tests.  Every
request target is recorded exactly as received (``info["requests"]``: ``(method, target,
headers)``).
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import http
import mimetypes
import ssl
import urllib.parse
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import h11

from .base import ConnectionTasks, RunningServer, close_quietly, register

Route = tuple[int, Sequence[tuple[str, str]], bytes]
BLOCK = 256 * 1024


class _Handler:
    def __init__(
        self,
        root: Path,
        routes: Mapping[str, Route],
        requests: list[tuple[bytes, bytes, list[tuple[bytes, bytes]]]],
        truncate_after: int | None,
        ignore_ranges: bool = False,
        credentials: tuple[str, str] | None = None,
        auth: str = "basic",
    ) -> None:
        self.ignore_ranges = ignore_ranges
        #: /secret/… asks for these (RFC 7617 Basic or RFC 7616 Digest, MD5, qop=auth).
        self.credentials = credentials
        self.auth = auth
        self.root = root
        self.routes = routes
        self.requests = requests
        self.truncate_after = truncate_after

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = h11.Connection(h11.SERVER)
        try:
            while True:
                event = conn.next_event()
                if event is h11.NEED_DATA:
                    data = await asyncio.wait_for(reader.read(65536), 60)
                    conn.receive_data(data)
                    if not data and conn.their_state is h11.DONE:
                        return
                    continue
                if isinstance(event, h11.Request):
                    self.requests.append((event.method, event.target, list(event.headers)))
                    while not isinstance(conn.next_event(), h11.EndOfMessage | h11.PAUSED):
                        pass
                    keep = await self.respond(conn, writer, event)
                    if not keep or conn.our_state is not h11.DONE:
                        return
                    conn.start_next_cycle()
                    continue
                return  # ConnectionClosed, or anything we do not serve
        except (h11.RemoteProtocolError, TimeoutError, ConnectionError, OSError):
            with contextlib.suppress(Exception):
                writer.write(
                    b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                )
        finally:
            await close_quietly(writer, 1)

    async def send(
        self,
        conn: h11.Connection,
        writer: asyncio.StreamWriter,
        event: h11.Event,
    ) -> None:
        data = conn.send(event)
        if data:
            writer.write(data)
            await writer.drain()

    async def simple(
        self,
        conn: h11.Connection,
        writer: asyncio.StreamWriter,
        status: int,
        headers: Sequence[tuple[str, str]],
        body: bytes,
        head: bool,
    ) -> None:
        hdrs = [("Content-Length", str(len(body))), *headers]
        if not any(k.lower() == "content-type" for k, _ in headers):
            hdrs.append(("Content-Type", "text/plain; charset=utf-8"))
        await self.send(
            conn, writer, h11.Response(status_code=status, headers=hdrs, reason=_reason(status))
        )
        if body and not head:
            await self.send(conn, writer, h11.Data(data=body))
        await self.send(conn, writer, h11.EndOfMessage())

    async def respond(
        self, conn: h11.Connection, writer: asyncio.StreamWriter, request: h11.Request
    ) -> bool:
        target = request.target.decode("ascii", "replace")
        head = request.method == b"HEAD"
        if request.method not in (b"GET", b"HEAD"):
            await self.simple(conn, writer, 405, [("Allow", "GET, HEAD")], b"", head)
            return True
        if self.credentials is not None and target.startswith("/secret/"):
            if not self._authorized(request):
                challenge = (
                    'Digest realm="omniurl", qop="auth", algorithm=MD5, nonce="n0nce-4711", '
                    'opaque="0paque"'
                    if self.auth == "digest"
                    else 'Basic realm="omniurl"'
                )
                await self.simple(
                    conn, writer, 401, [("WWW-Authenticate", challenge)], b"who are you?\n", head
                )
                return True
            body = f"secret for {self.credentials[0]}\n".encode()
            await self.simple(conn, writer, 200, [], body, head)
            return True
        if target in self.routes:
            status, headers, body = self.routes[target]
            await self.simple(conn, writer, status, headers, body, head)
            return True
        path_part = target.split("?", 1)[0]
        rel = urllib.parse.unquote(path_part).lstrip("/")
        path = (self.root / rel).resolve()
        if not path.is_relative_to(self.root) or not path.exists():
            await self.simple(conn, writer, 404, [], b"not found\n", head)
            return True
        if path.is_dir():
            if not path_part.endswith("/"):
                await self.simple(conn, writer, 301, [("Location", path_part + "/")], b"", head)
                return True
            await self.simple(
                conn, writer, 200, [("Content-Type", "text/html; charset=utf-8")],
                _index(path, path_part), head,
            )  # fmt: skip
            return True
        return await self.file(conn, writer, path, head, request.headers)

    def _authorized(self, request: h11.Request) -> bool:
        import base64
        import hashlib

        assert self.credentials is not None
        user, password = self.credentials
        given = next((v.decode() for k, v in request.headers if k == b"authorization"), "")
        if self.auth == "basic":
            expected = base64.b64encode(f"{user}:{password}".encode()).decode()
            return given == f"Basic {expected}"
        if not given.startswith("Digest "):
            return False
        fields = dict(
            (k.strip(), v.strip().strip('"'))
            for k, _, v in (part.partition("=") for part in given[7:].split(","))
        )

        def md5(text: str) -> str:
            return hashlib.md5(text.encode()).hexdigest()

        ha1 = md5(f"{user}:omniurl:{password}")
        ha2 = md5(f"{request.method.decode()}:{fields.get('uri', '')}")
        expected = md5(
            f"{ha1}:{fields.get('nonce')}:{fields.get('nc')}:{fields.get('cnonce')}:"
            f"{fields.get('qop')}:{ha2}"
        )
        return fields.get("username") == user and fields.get("response") == expected

    async def file(
        self,
        conn: h11.Connection,
        writer: asyncio.StreamWriter,
        path: Path,
        head: bool,
        request_headers: Sequence[tuple[bytes, bytes]] = (),
    ) -> bool:
        info = path.stat()
        size = info.st_size
        media = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        # A strong validator (RFC 9110 §8.8.3) from size and mtime, as nginx makes its ETag.
        etag = f'"{info.st_mtime_ns:x}-{size:x}"'
        validators = [("ETag", etag), ("Accept-Ranges", "none" if self.ignore_ranges else "bytes")]
        start = _range_start(request_headers, etag) if not self.ignore_ranges else None
        if start is not None and start >= size:
            await self.simple(
                conn, writer, 416, [("Content-Range", f"bytes */{size}"), *validators], b"", head
            )
            return True
        if start is not None:
            headers = [
                ("Content-Length", str(size - start)),
                ("Content-Range", f"bytes {start}-{size - 1}/{size}"),
                ("Content-Type", media),
                *validators,
            ]
            response = h11.Response(status_code=206, headers=headers, reason=b"Partial Content")
        else:
            start = 0
            headers = [("Content-Length", str(size)), ("Content-Type", media), *validators]
            response = h11.Response(status_code=200, headers=headers, reason=b"OK")
        await self.send(conn, writer, response)
        if head:
            await self.send(conn, writer, h11.EndOfMessage())
            return True
        sent = 0
        with path.open("rb") as fh:
            fh.seek(start)
            while True:
                block = await asyncio.to_thread(fh.read, BLOCK)
                if not block:
                    break
                if self.truncate_after is not None and sent + len(block) > self.truncate_after:
                    writer.write(conn.send(h11.Data(data=block[: self.truncate_after - sent])))
                    await writer.drain()
                    return False  # drop the connection mid-body
                sent += len(block)
                await self.send(conn, writer, h11.Data(data=block))
        await self.send(conn, writer, h11.EndOfMessage())
        return True


def _range_start(headers: Sequence[tuple[bytes, bytes]], etag: str) -> int | None:
    """The first byte a ``Range: bytes=N-`` asks for (RFC 9110 §14.2), or None for the whole
    file: no Range, another form of range, or an ``If-Range`` that does not match the
    current ETag (§13.1.5: the resource changed, so it is sent whole)."""
    fields = {name.lower(): value.decode("latin-1") for name, value in headers}
    value = fields.get(b"range")
    if value is None:
        return None
    if_range = fields.get(b"if-range")
    if if_range is not None and if_range != etag:
        return None
    unit, _, spec = value.partition("=")
    first, dash, last = spec.strip().partition("-")
    if unit.strip().lower() != "bytes" or not dash or last or not first.isdigit():
        return None
    return int(first)


def _reason(status: int) -> bytes:
    try:
        return http.HTTPStatus(status).phrase.encode()
    except ValueError:
        return b""


def _index(folder: Path, target: str) -> bytes:
    items = "".join(
        f'<li><a href="{urllib.parse.quote(p.name)}{"/" if p.is_dir() else ""}">'
        f"{html.escape(p.name)}</a></li>\n"
        for p in sorted(folder.iterdir())
    )
    title = html.escape(target)
    page = f"<html><head><title>{title}</title></head><body><ul>\n{items}</ul></body></html>\n"
    return page.encode()


async def start_http(
    root: Path,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    routes: Mapping[str, Route] | None = None,
    truncate_after: int | None = None,
    tls: ssl.SSLContext | None = None,
    ignore_ranges: bool = False,
    credentials: tuple[str, str] | None = None,
    auth: str = "basic",
) -> RunningServer:
    """Serve ``root`` over HTTP/1.1 (HTTPS with ``tls``); ``info["requests"]`` lists what
    arrived, ``info["connections"]`` counts connections ``opened`` and ``closed``.  Files
    carry an ETag and honour ``Range: bytes=N-`` (206, or 416 past the end) unless
    ``ignore_ranges`` (a server that always answers 200 with the whole file)."""
    requests: list[tuple[bytes, bytes, list[tuple[bytes, bytes]]]] = []
    handler = _Handler(
        Path(root).resolve(),
        dict(routes or {}),
        requests,
        truncate_after,
        ignore_ranges,
        credentials,
        auth,
    )
    connections = ConnectionTasks()

    counts = {"opened": 0, "closed": 0}

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        counts["opened"] += 1
        try:
            # The server is closing: end this connection's task quietly.
            with contextlib.suppress(asyncio.CancelledError):
                await handler.serve(reader, writer)
        finally:
            counts["closed"] += 1

    server = await asyncio.start_server(connections.track(serve), host, port, ssl=tls)
    bound_port = server.sockets[0].getsockname()[1]

    async def close() -> None:
        await connections.close(server)

    return RunningServer(
        "http",
        host,
        bound_port,
        close,
        info={"requests": requests, "handler": handler, "connections": counts},
    )


@register("http", "serve a directory over HTTP/1.1 (h11; GET and HEAD, directory indexes)")
async def start(root: Path, *, host: str = "127.0.0.1", port: int = 0, **kw: Any) -> RunningServer:
    return await start_http(root, host=host, port=port, **kw)


__all__ = ["start_http"]
