"""Files with no name until they are complete: Linux's ``O_TMPFILE`` and ``linkat``.

A file opened with ``O_TMPFILE`` is an inode of the folder's file system that no directory
lists; once its bytes are all there, ``linkat`` of ``/proc/self/fd/N`` gives it a name,
atomically, and fails when the name is taken (it never replaces a file).  A transfer that
fails, or a process killed outright, leaves nothing to clean up: the kernel frees the inode
when its descriptor closes.  The batch (:class:`omniurl.batch._Files`) and the mirror
(:class:`omniurl.mirror.run.Mirror`) both write their files this way, with the named
temporary file as the fallback where a file system has no nameless files or ``/proc`` cannot
link one (measured in docs/speed.md, *Batches*, and docs/mirror.md).
"""

from __future__ import annotations

import contextlib
import errno
import os

#: ``open(2)``'s flags for a file with no name (0 where the platform has none).  Read-write:
#: where it cannot be linked, its bytes are copied out (:func:`copy_out`).
FLAGS = os.O_TMPFILE | os.O_RDWR | getattr(os, "O_CLOEXEC", 0) if hasattr(os, "O_TMPFILE") else 0
#: Where a process's descriptors are named (``linkat`` gives a nameless file a name there).
PROC_FD = "/proc/self/fd"
#: ``open(O_TMPFILE)``'s errors where a file system (or kernel) has no nameless files.
NO_TMPFILE = {errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL, errno.ENOENT}
#: ``linkat``'s errors where a nameless file cannot be given a name through /proc.
NO_LINK = {errno.ENOENT, errno.EPERM, errno.EACCES, errno.EXDEV, errno.ENOTDIR, errno.EINVAL}


def open_in(folder: str) -> int | None:
    """A descriptor of a new file with no name on ``folder``'s file system, or None where
    it has none (the caller makes a named temporary file instead)."""
    if not FLAGS:
        return None
    try:
        return os.open(folder, FLAGS, 0o666)
    except OSError as exc:
        if exc.errno not in NO_TMPFILE:
            raise
        return None


def open_at(dir_fd: int) -> int | None:
    """:func:`open_in` for a folder open already (``dir_fd``): the file is made relative to
    it, so no file walks the folder's path again (``openat(dir_fd, ".", O_TMPFILE)``; ext4,
    1,000 files of 8 KiB, the calls timed one by one: 10.1 µs against 12.1 µs for the
    folder's whole path; docs/speed.md, *Batches*, seventh round)."""
    if not FLAGS:
        return None
    try:
        return os.open(".", FLAGS, 0o666, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno not in NO_TMPFILE:
            raise
        return None


def open_folder(folder: str) -> int | None:
    """A descriptor of ``folder`` for :func:`open_at` and :class:`Linker` (``O_PATH``: it
    needs no permission to read the folder), or None where it cannot be opened (the caller
    goes by the folder's path)."""
    flags = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0)
    try:
        return os.open(folder, flags)
    except OSError:
        return None


class Linker:
    """Gives complete nameless files their names through ``/proc/self/fd`` (opened once, on
    first use: :meth:`close` closes it).  With ``dir_fd`` (:func:`open_folder`, owned by the
    caller) a path given to :meth:`link` is relative to that folder: ``linkat`` then walks
    one name, not the folder's path (ext4, 1,000 files, timed one by one: 18.2 µs against
    22.8 µs a link; tmpfs 9.5 against 12.2)."""

    def __init__(self, dir_fd: int | None = None) -> None:
        self._proc = -1
        self._dir = dir_fd

    def link(self, fd: int, path: str) -> bool:
        """Name the nameless file ``fd`` ``path``: True; False where ``/proc`` cannot link
        it (no /proc, another file system…).  A name taken raises ``FileExistsError``."""
        try:
            if self._proc < 0:
                flags = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0)
                self._proc = os.open(PROC_FD, flags)
            os.link(
                str(fd), path, src_dir_fd=self._proc, dst_dir_fd=self._dir, follow_symlinks=True
            )
        except OSError as exc:
            if exc.errno not in NO_LINK:
                raise
            return False
        return True

    def close(self) -> None:
        if self._proc >= 0:
            with contextlib.suppress(OSError):
                os.close(self._proc)
            self._proc = -1


def copy_out(fd: int, out: int) -> None:
    """The bytes of the nameless file ``fd`` (from its start) written to ``out``."""
    os.lseek(fd, 0, os.SEEK_SET)
    while data := os.read(fd, 1 << 20):
        write_all(out, data)


def write_all(fd: int, data: bytes | memoryview) -> None:
    """All of ``data`` to ``fd`` (``os.write`` may take less than it is given)."""
    written = os.write(fd, data)
    if written < len(data):
        view = memoryview(data)
        while written < len(view):
            written += os.write(fd, view[written:])
