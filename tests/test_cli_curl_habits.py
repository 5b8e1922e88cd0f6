"""``omniurl get`` side by side with curl: file modes, options anywhere, curl's common flags,
messages a new user reads (issue 22, items 1-10).  Each runs ``python -m omniurl`` in a
subprocess against omniurl's own servers on loopback."""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio
from _ftphttp import run_cli

from omniurl.testservers import RunningServer
from omniurl.testservers.ftp import start_ftp
from omniurl.testservers.http import start_http


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "srv" / "pub").mkdir(parents=True)
    (tmp_path / "srv" / "pub" / "a.txt").write_bytes(b"alpha\n")
    (tmp_path / "srv" / "pub" / "b.txt").write_bytes(b"beta\n")
    (tmp_path / "out").mkdir()
    return tmp_path


@pytest_asyncio.fixture
async def web(root: Path) -> AsyncIterator[RunningServer]:
    server = await start_http(root / "srv")
    try:
        yield server
    finally:
        await server.close()


@pytest_asyncio.fixture
async def ftp(root: Path) -> AsyncIterator[RunningServer]:
    server = await start_ftp(root / "srv", users={"joe": "pw"})
    try:
        yield server
    finally:
        await server.close()


@contextlib.contextmanager
def umask(mask: int) -> Iterator[None]:
    """The test process's umask (a subprocess inherits it) set to ``mask`` meanwhile."""
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# --- 1. batch files get a new file's mode ------------------------------------------------


@pytest.mark.parametrize(
    "extra",
    [["-O"], ["-O", "-Z"], ["--output-dir", "."]],
    ids=["O", "OZ", "output-dir"],
)
async def test_batch_files_get_the_umask_mode_not_0600(
    web: RunningServer, root: Path, extra: list[str]
) -> None:
    out = root / "out"
    with umask(0o027):
        status, _out, err = await run_cli(
            "get", *extra, f"http://{web.netloc}/pub/a.txt", f"http://{web.netloc}/pub/b.txt",
            cwd=out,
        )  # fmt: skip
    assert status == 0, err
    assert {p.name: oct(mode(p)) for p in out.iterdir()} == {
        "a.txt": oct(0o640),
        "b.txt": oct(0o640),
    }


async def test_fetch_many_files_get_the_umask_mode(web: RunningServer, root: Path) -> None:
    from omniurl.batch import fetch_many

    with umask(0o022):
        rows = [
            r
            async for r in fetch_many(
                [f"http://{web.netloc}/pub/a.txt", f"http://{web.netloc}/pub/a.txt"],
                output_dir=root / "out",
            )
        ]
    assert all(r.ok for r in rows)
    assert sorted((p.name, oct(mode(p))) for p in (root / "out").iterdir()) == [
        ("a.1.txt", oct(0o644)),
        ("a.txt", oct(0o644)),
    ]


async def test_a_replaced_file_keeps_its_mode(web: RunningServer, root: Path) -> None:
    target = root / "out" / "a.txt"
    target.write_bytes(b"old")
    target.chmod(0o600)
    with umask(0o022):
        status, _out, _err = await run_cli(
            "get", "-o", str(target), f"http://{web.netloc}/pub/a.txt"
        )
    assert status == 0
    assert (target.read_bytes(), oct(mode(target))) == (b"alpha\n", oct(0o600))
