"""One Gopher text item, one listing: the same bytes by every path that saves them
(issue 31 items 2 and 3; docs/saving.md).

The text item holds dot-stuffed lines and comes with RFC 1436's CR LF: every path writes the
server's bytes less the framing (the "." line, the stuffing) — before, ``-o``, ``-O`` and
standard output wrote LF while ``--output-dir``, ``-C -``, ``omniurl.get()``, fsspec and the
browser's ``d`` wrote CR LF, so a manifest's sha256 did not match ``-o``'s file.  A listing
is tab-separated text named ``NAME.HASH.tsv`` by every path (before: ``-O`` tab-separated,
``--output-dir`` JSON Lines, both ``.txt``; every menu ``gophermap.txt``).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from _ftphttp import run_cli

import omniurl
from omniurl import testservers
from omniurl.batch import fetch_many
from omniurl.client import AsyncClient

TEXT = b"line one\n.dotted\n..two dots\nlast\n"
#: What the server sends (CR LF, stuffed, the "." line) less the framing.
SAVED = b"line one\r\n.dotted\r\n..two dots\r\nlast\r\n"


@pytest_asyncio.fixture
async def gopher(tmp_path: Path) -> AsyncIterator[testservers.RunningServer]:
    root = tmp_path / "site"
    (root / "dir").mkdir(parents=True)
    (root / "t.txt").write_bytes(TEXT)
    (root / "dir" / "a.txt").write_bytes(b"a\n")
    async with await testservers.start("gopher", root) as server:
        yield server


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


async def succeeded(*args: str, cwd: Path | None = None) -> bytes:
    """``omniurl ARGS`` (``run_cli``), which must exit 0: its standard output."""
    status, out, err = await run_cli(*args, cwd=cwd)
    assert status == 0, err
    return out


async def test_a_gopher_text_item_is_the_same_bytes_by_every_path(
    gopher: testservers.RunningServer, tmp_path: Path
) -> None:
    url = f"gopher://{gopher.netloc}/0/t.txt"
    wire = await succeeded("get", "--raw", url)
    assert wire.endswith(b"...two dots\r\nlast\r\n.\r\n")  # the framing
    got: dict[str, bytes] = {}

    got["stdout"] = await succeeded("get", url)
    await succeeded("get", "-o", str(tmp_path / "o.txt"), url)
    got["-o"] = (tmp_path / "o.txt").read_bytes()
    (tmp_path / "cwd").mkdir()
    await succeeded("get", "-O", url, cwd=tmp_path / "cwd")
    got["-O"] = (tmp_path / "cwd" / "t.txt").read_bytes()
    await succeeded("get", "-O", "--create-dirs", "--output-dir", str(tmp_path / "od"), url)
    got["--output-dir"] = (tmp_path / "od" / "t.txt").read_bytes()
    await succeeded("get", "-C", "-", "-o", str(tmp_path / "c.txt"), url)
    got["-C -"] = (tmp_path / "c.txt").read_bytes()

    # A batch (two URLs) with its manifest: the file and the manifest's sha256.
    menu = f"gopher://{gopher.netloc}/1/dir"
    manifest = tmp_path / "m.jsonl"
    await succeeded(
        "get",
        "--create-dirs",
        "--output-dir",
        str(tmp_path / "batch"),
        "--manifest",
        str(manifest),
        url,
        menu,
    )
    got["batch"] = (tmp_path / "batch" / "t.txt").read_bytes()
    rows = {r["url"]: r for r in map(json.loads, manifest.read_text().splitlines())}
    assert rows[url]["sha256"] == sha(SAVED)
    assert rows[url]["bytes"] == len(SAVED)

    # The library, the client, fsspec, the batch engine as the browser's d calls it.
    got["omniurl.get()"] = await asyncio.to_thread(omniurl.get, url)
    async with AsyncClient() as client:
        body = await client.get(url)
    assert isinstance(body, bytes)
    got["AsyncClient.get"] = body

    def with_fsspec() -> bytes:
        import fsspec

        from omniurl.integrations.fsspec import register

        register()
        with fsspec.open(url, "rb") as fh:
            return fh.read()  # type: ignore[no-any-return]

    got["fsspec"] = await asyncio.to_thread(with_fsspec)
    (tmp_path / "d").mkdir()
    async for result in fetch_many([url], output_dir=tmp_path / "d", resume=True):
        assert result.ok, result.error_message
        assert result.sha256 == sha(SAVED)
        got["browse d (fetch_many resume)"] = Path(str(result.path)).read_bytes()

    assert {name: data for name, data in got.items() if data != SAVED} == {}


async def test_dask_and_the_gateway_write_the_same_text(
    gopher: testservers.RunningServer, tmp_path: Path
) -> None:
    url = f"gopher://{gopher.netloc}/0/t.txt"
    pytest.importorskip("dask")
    from omniurl.integrations.dask import fetch

    def with_dask() -> list[dict[str, object]]:
        import dask

        bag = fetch([url], output=str(tmp_path / "dask"))
        return list(dask.compute(bag, scheduler="synchronous")[0])

    (row,) = await asyncio.to_thread(with_dask)
    assert row["sha256"] == sha(SAVED)
    assert Path(str(row["path"])).read_bytes() == SAVED

    pytest.importorskip("starlette")
    pytest.importorskip("jinja2")
    import httpx

    from omniurl.gateway import GatewayConfig, create_app

    config = GatewayConfig(
        allow_hosts=frozenset({"127.0.0.1"}),
        allow_ports=frozenset({gopher.port}),
        max_render_bytes=4,  # larger than this: a download
    )
    transport = httpx.ASGITransport(app=create_app(config))
    async with httpx.AsyncClient(transport=transport, base_url="http://gateway.test") as web:
        reply = await web.get(f"/{url}")
    assert reply.status_code == 200
    assert reply.headers["content-disposition"].startswith("attachment")
    assert reply.content == SAVED


async def test_a_listing_is_one_format_under_names_that_never_collide(
    gopher: testservers.RunningServer, tmp_path: Path
) -> None:
    root_menu = f"gopher://{gopher.netloc}/"
    sub_menu = f"gopher://{gopher.netloc}/1/dir"
    out = tmp_path / "out"
    out.mkdir()
    for url in (sub_menu, root_menu):  # the order: the second lost the first
        await succeeded("get", "-O", url, cwd=out)
    names = sorted(p.name for p in out.iterdir())
    assert len(names) == 2 and all(n.endswith(".tsv") for n in names), names
    assert names[0].startswith("dir.") and names[1].startswith("gophermap."), names
    sub_file = out / names[0]
    lines = sub_file.read_bytes().splitlines()
    assert lines == [f"file\ta.txt\tgopher://{gopher.netloc}/0/dir/a.txt".encode()]

    # The same listing by stdout, -o, --output-dir and a batch: the same bytes and name.
    stdout = await succeeded("get", sub_menu)
    await succeeded("get", "-o", str(tmp_path / "o.tsv"), sub_menu)
    await succeeded("get", "-O", "--create-dirs", "--output-dir", str(tmp_path / "od"), sub_menu)
    await succeeded(
        "get",
        "--create-dirs",
        "--output-dir",
        str(tmp_path / "b"),
        sub_menu,
        f"gopher://{gopher.netloc}/0/t.txt",
    )
    expected = sub_file.read_bytes()
    assert stdout == expected
    assert (tmp_path / "o.tsv").read_bytes() == expected
    assert (tmp_path / "od" / names[0]).read_bytes() == expected
    assert (tmp_path / "b" / names[0]).read_bytes() == expected


async def test_an_ftp_listing_is_the_same_by_dash_o_and_output_dir(tmp_path: Path) -> None:
    root = tmp_path / "ftp"
    (root / "pub").mkdir(parents=True)
    (root / "pub" / "a b.txt").write_bytes(b"x")
    async with await testservers.start("ftp", root) as ftp:
        url = f"ftp://{ftp.netloc}/pub/"
        await succeeded("get", "-O", "--create-dirs", "--output-dir", str(tmp_path / "one"), url)
        await succeeded(
            "get",
            "--create-dirs",
            "--output-dir",
            str(tmp_path / "two"),
            url,
            f"ftp://{ftp.netloc}/pub/a%20b.txt",
        )
    (one,) = (tmp_path / "one").iterdir()
    two = tmp_path / "two" / one.name
    assert one.name.startswith("pub.") and one.name.endswith(".tsv")
    assert one.read_bytes() == two.read_bytes()
    assert one.read_bytes() == f"file\ta b.txt\tftp://{ftp.netloc}/pub/a%20b.txt\n".encode()


def test_a_field_with_a_tab_or_a_line_end_stays_one_field() -> None:
    from omniurl.resolvers.resource import Entry
    from omniurl.saving import listing_line

    line = listing_line(Entry(name="a\tb\nc\\d\re", kind="file", url=None))
    assert line == b"file\ta\\tb\\nc\\\\d\\re\t\n"
    assert line.count(b"\t") == 2 and line.count(b"\n") == 1


def test_listing_names_differ_by_url_and_agree_by_spelling() -> None:
    from omniurl.batch import output_name
    from omniurl.schemes import parse

    names = {
        output_name(parse(u))
        for u in (
            "gopher://h/1/a/dir",
            "gopher://h/1/b/dir",
            "gopher://h/7/dir",
            "gopher://g/1/a/dir",
        )
    }
    assert len(names) == 4
    assert output_name(parse("gopher://h")) == output_name(parse("gopher://H:70/1"))
    # a Prospero object's version (RFC 1630's %00, or its ;OBJECT-VERSION=) names nothing
    for spelling in ("prospero://h//pub/notes%001", "prospero://h//pub/notes;OBJECT-VERSION=1"):
        assert output_name(parse(spelling)) == "notes", spelling
    # content keeps its own name; an HTTP index page is content
    assert output_name(parse("gopher://h/0/a/t.txt")) == "t.txt"
    assert output_name(parse("http://h/a/")) == "index.html"


async def test_dash_o_names_a_gopher_item_by_its_selector_not_its_search(
    gopher: testservers.RunningServer, tmp_path: Path
) -> None:
    """``-O`` of a Gopher URL with a search holding "/" (RFC 1738 §3.4: after ``%09``)
    saves the item under its selector's last segment, as a query names nothing in HTTP
    (curl's ``-O``, which knows no Gopher search, writes ``b`` here: docs/saving.md)."""
    out = tmp_path / "cwd"
    out.mkdir()
    url = f"gopher://{gopher.netloc}/0/t.txt%09x/../b"
    await succeeded("get", "-O", url, cwd=out)
    assert sorted(p.name for p in out.iterdir()) == ["t.txt"]
    assert (out / "t.txt").read_bytes() == SAVED


async def test_gopher_plus_attributes_never_take_the_items_name(
    gopher: testservers.RunningServer, tmp_path: Path
) -> None:
    """``-O`` of a Gopher+ ``!`` (an item's attribute blocks) or ``$`` (a menu's items')
    saves them as ``NAME.HASH.attributes.txt`` (docs/saving.md): before, ``t.txt%09%09!``
    was saved as ``t.txt``, over (or later under) a copy of the item itself, and ``$`` of a
    menu as ``gophermap.txt``."""
    out = tmp_path / "cwd"
    out.mkdir()
    base = f"gopher://{gopher.netloc}"
    urls = [
        f"{base}/0/t.txt",
        f"{base}/0/t.txt%09%09!",
        f"{base}/0/t.txt%09%09!+ADMIN",
        f"{base}/1/dir%09%09$",
    ]
    for url in urls:
        await succeeded("get", "-O", url, cwd=out)
    from omniurl.batch import output_name
    from omniurl.schemes import parse

    names = [output_name(parse(u)) for u in urls]
    assert names[0] == "t.txt"
    assert all(n.startswith("t.txt.") and n.endswith(".attributes.txt") for n in names[1:3])
    assert names[3].startswith("dir.") and names[3].endswith(".attributes.txt")
    assert sorted(p.name for p in out.iterdir()) == sorted(names)  # four files, none lost
    assert (out / "t.txt").read_bytes() == SAVED
    assert (out / names[1]).read_bytes().startswith(b"+INFO: 0t.txt\t")
    assert (out / names[3]).read_bytes().startswith(b"+INFO: 0a.txt\t")
    # a batch names them alike (its own rule for names it already took aside)
    await succeeded("get", "--create-dirs", "--output-dir", str(tmp_path / "b"), *urls[:2])
    assert sorted(p.name for p in (tmp_path / "b").iterdir()) == sorted(names[:2])
    assert (tmp_path / "b" / names[1]).read_bytes() == (out / names[1]).read_bytes()


async def test_a_file_folder_with_or_without_its_slash_is_one_listing_and_one_name(
    tmp_path: Path,
) -> None:
    """``file:///srv/dir`` and ``file:///srv/dir/`` list one folder, entry for entry: ``-O``
    and the batch save it under one name, ``dir.HASH.tsv`` with the HASH of the folder's
    URL (before, two: ``dir.57a77e55.tsv`` and ``dir.e74f369c.tsv`` for the same bytes),
    and the mirror takes either as the folder.  (curl 7.88's ``-O``: ``file:///srv/dir``
    saves an empty file ``dir``, exit 0; ``file:///srv/dir/`` no file, exit 23; wget has no
    ``file:``.)  Gopher's ``1/dir`` and ``1/dir/`` stay two names: two selectors."""
    from omniurl.batch import output_name
    from omniurl.mirror.run import Config, mirror
    from omniurl.resolvers import Options
    from omniurl.schemes import parse

    src = tmp_path / "srv" / "my dir"
    (src / "sub").mkdir(parents=True)
    (src / "a.txt").write_bytes(b"alpha\n")
    (src / "sub" / "b.txt").write_bytes(b"bravo\n")
    bare = "file://" + str(src).replace(" ", "%20")
    names: dict[str, dict[str, bytes]] = {}
    for url in (bare, bare + "/"):
        for how in ("-O", "--output-dir"):
            out = tmp_path / f"{how}{len(names)}"
            out.mkdir()
            args = ["get", "-O", url] if how == "-O" else ["get", "--output-dir", str(out), url]
            status, _o, err = await run_cli(*args, cwd=out)
            assert status == 0, err
            names[f"{how} {url}"] = {p.name: p.read_bytes() for p in out.iterdir()}
    folder = bare + "/"
    name = output_name(parse(folder), listing=True)
    assert name.startswith("my dir.") and name.endswith(".tsv")
    listing = f"file\ta.txt\t{folder}a.txt\ndirectory\tsub\t{folder}sub/\n".encode()
    assert all(saved == {name: listing} for saved in names.values()), names
    assert output_name(parse(bare), listing=True) == name
    assert output_name(parse(bare + "#x"), listing=True) == name
    # a selector without its "/" is another item: two names
    dirs = ("gopher://h/1/dir", "gopher://h/1/dir/")
    assert len({output_name(parse(u), listing=True) for u in dirs}) == 2
    trees = []
    for url in (bare, bare + "/"):
        out = tmp_path / f"mirror{len(trees)}"
        status, _counts = await asyncio.wait_for(
            mirror(Config(url=url, folder=out), Options(), lambda _row: None), 60
        )
        assert status == 0
        trees.append(
            {
                p.relative_to(out).as_posix(): p.read_bytes() if p.is_file() else None
                for p in out.rglob("*")
                if ".omniurl-mirror" not in p.parts
            }
        )
    assert trees[0] == trees[1] == {"a.txt": b"alpha\n", "sub": None, "sub/b.txt": b"bravo\n"}
