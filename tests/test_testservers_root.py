"""omniurl's own FTP and Gopher servers (``omniurl serve ftp|gopher --root DIR``) never serve a
file through a link that leads out of DIR, as the Gemini server refuses it: aioftp checked the
root before links were followed (``ln -s /etc/passwd pub/link`` was served), and the Gopher
server's menu of a folder holding such a link was cut short (the connection closed, an empty
menu)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from omniurl import testservers
from omniurl.resolvers import resolve
from omniurl.resolvers.errors import NotFound


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_bytes(b"not for you\n")
    root = tmp_path / "root"
    (root / "pub").mkdir(parents=True)
    (root / "pub" / "a.txt").write_bytes(b"hello\n")
    os.symlink(outside / "secret.txt", root / "pub" / "link.txt")
    os.symlink(outside, root / "pub" / "outdir")
    os.symlink(root / "pub" / "a.txt", root / "pub" / "inside.txt")  # (a link inside: served)
    return root


async def _read(url: str) -> bytes:
    async with await resolve(url) as resource:
        return bytes(await resource.read())


async def test_the_ftp_server_refuses_a_link_out_of_its_root(tree: Path) -> None:
    async with await testservers.start("ftp", tree) as server:
        base = f"ftp://{server.netloc}/pub"
        assert await _read(f"{base}/a.txt;type=i") == b"hello\n"
        assert await _read(f"{base}/inside.txt;type=i") == b"hello\n"
        with pytest.raises(NotFound, match=r'"RETR link\.txt": 550') as refused:
            await _read(f"{base}/link.txt;type=i")
        assert refused.value.component == "name"
        with pytest.raises(NotFound, match='"CWD outdir": 550') as refused:
            await _read(f"{base}/outdir/secret.txt;type=i")
        assert refused.value.component == "cwd[1]"


async def test_no_file_made_in_the_root_answers_for_a_path_out_of_it(tree: Path) -> None:
    """A path out of the root was mapped to ``ROOT/.omniurl-outside-the-root/NAME``, a name
    anyone can make: with that folder in the root, the link out was served its file."""
    for folder in (".omniurl-outside-the-root", "pub/.omniurl-outside-the-root"):
        (tree / folder).mkdir()
        (tree / folder / "link.txt").write_bytes(b"served\n")
        (tree / folder / "outdir").mkdir()
        (tree / folder / "outdir" / "secret.txt").write_bytes(b"served\n")
    async with await testservers.start("ftp", tree) as server:
        base = f"ftp://{server.netloc}/pub"
        with pytest.raises(NotFound, match=r'"RETR link\.txt": 550'):
            await _read(f"{base}/link.txt;type=i")
        with pytest.raises(NotFound, match='"CWD outdir": 550'):
            await _read(f"{base}/outdir/secret.txt;type=i")
        assert await _read(f"{base}/a.txt;type=i") == b"hello\n"  # (still serving)


async def test_the_gopher_menu_leaves_out_a_link_out_of_its_root(tree: Path) -> None:
    async with await testservers.start("gopher", tree) as server:
        base = f"gopher://{server.netloc}"
        async with await resolve(f"{base}/1/pub") as resource:
            names = [entry.name for entry in resource.entries]
        assert names == ["a.txt", "inside.txt"]
        with pytest.raises(NotFound):
            await _read(f"{base}/0/pub/link.txt")
