"""Read a local file (streamed, off the event loop) or list a local directory."""

from __future__ import annotations

import asyncio
import datetime
import mimetypes
import os
import stat
from collections.abc import AsyncIterator
from typing import BinaryIO

from omniurl.schemes.base import URL

from ..errors import NotFound, ReplyError
from ..options import Options
from ..plan import Plan
from ..resource import Entry, Resource
from .planner import FileDetails


def _fs_path(path: str) -> bytes:
    """The path's octets exactly as the URL encoded them (surrogateescape kept them)."""
    return path.encode("utf-8", "surrogateescape")


def _url_for(base: URL, folder: str, name: bytes, is_dir: bool) -> str:
    """The child's own URL: the same host, the path extended (schemes encodes it)."""
    path = folder.rstrip("/") + "/" + name.decode("utf-8", "surrogateescape")
    return str(base.replace(path=path + ("/" if is_dir else "")))


async def execute_file(plan: Plan, options: Options) -> Resource:
    details = plan.details_as(FileDetails)
    path = details.path
    raw = _fs_path(path)
    options.note("*", f"open {path}")
    try:
        st = await asyncio.to_thread(os.stat, raw)
    except FileNotFoundError:
        raise NotFound(f"no such file: {path}", component="path") from None
    except PermissionError:
        raise ReplyError(f"permission denied: {path}", component="path") from None
    except OSError as exc:
        raise ReplyError(f"cannot open {path}: {exc.strerror}", component="path") from None
    if stat.S_ISDIR(st.st_mode):
        return Resource(plan, kind="listing", entries=await asyncio.to_thread(_list, plan, raw))
    if not stat.S_ISREG(st.st_mode):
        # Only regular files: open() on a named pipe blocks until a writer comes, a terminal
        # (/dev/pts/N) until someone types, /dev/zero never ends — each in a thread nobody
        # can cancel, which would also keep Ctrl-C from ending the process.
        raise ReplyError(
            f"{path} is {_kind_of(st.st_mode)}, not a regular file to read", component="path"
        )
    if options.head:
        # -I: what the file system says of it (size, modification time), as curl's -I of
        # a file: URL; the file is not opened.
        return Resource(
            plan,
            kind="content",
            body=_nothing(),
            size=0,
            total=st.st_size,
            modified=datetime.datetime.fromtimestamp(st.st_mtime, datetime.UTC),
        )
    try:
        fh: BinaryIO = await asyncio.to_thread(open, raw, "rb")
    except OSError as exc:
        raise ReplyError(f"cannot open {path}: {exc.strerror}", component="path") from None

    async def body() -> AsyncIterator[bytes]:
        try:
            while True:
                try:
                    chunk = await asyncio.to_thread(fh.read, options.chunk_size)
                except OSError as exc:
                    raise ReplyError(
                        f"cannot read {path}: {exc.strerror or exc}", component="path"
                    ) from None
                if not chunk:
                    return
                yield chunk
        finally:
            await asyncio.to_thread(fh.close)

    async def close() -> None:
        await asyncio.to_thread(fh.close)

    media = mimetypes.guess_type(path, strict=False)[0] or "application/octet-stream"
    return Resource(
        plan,
        kind="content",
        body=body(),
        media_type=media,
        size=st.st_size if stat.S_ISREG(st.st_mode) else None,
        close=close,
    )


async def _nothing() -> AsyncIterator[bytes]:
    return
    yield b""


def _kind_of(mode: int) -> str:
    for test, name in (
        (stat.S_ISFIFO, "a named pipe"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def _list(plan: Plan, raw: bytes) -> list[Entry]:
    folder = raw.decode("utf-8", "surrogateescape")
    entries = []
    try:
        names = sorted(os.listdir(raw))
    except OSError as exc:
        raise ReplyError(f"cannot list {folder}: {exc.strerror}", component="path") from None
    for name in names:
        full = os.path.join(raw, name)
        is_dir = os.path.isdir(full)
        shown = name.decode("utf-8", "replace")
        entries.append(
            Entry(
                name=shown,
                kind="directory" if is_dir else "file",
                url=_url_for(plan.url, folder, name, is_dir),
            )
        )
    return entries


__all__ = ["execute_file"]
