"""Every scheme's content and listings: the same bytes by every save path (docs/saving.md's
table, issue 32's "bytes that differ by save path").

For each URL, against the repository's own servers: standard output to a pipe, ``-o``,
``-O``, a batch (``-Z --output-dir``), ``-Z --procs 2``, ``omniurl.get()``, fsspec (the
schemes it serves) and the gateway's download.  A content is the same bytes by all of them;
a listing the same ``kind TAB name TAB url`` lines by the command line's paths and
``omniurl.get()``'s entries (``omniurl.saving.listing_line``), a directory to fsspec and an
HTML page in the gateway (views, not saves: docs/saving.md).  The batch names each file as
``-O`` does.

Differences this sweep found, now fixed (test_gopher, test_gemini and
test_wais_search_and_retrieval failed before): a WAIS search's hits to a pipe were five
columns (the terminal's table) and three to a file; gemtext to a pipe was the terminal's
rendering (141 bytes for the 52 saved); a Gopher+ ``!``/``$`` was saved under the item's own
name, so a batch of the item and its attributes named them ``a.txt`` and ``a.1.txt``.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from _ftphttp import run_cli

import omniurl
from omniurl import testservers
from omniurl.client import AsyncClient
from omniurl.resolvers.options import Options
from omniurl.resolvers.resource import Entry
from omniurl.saving import listing_line

pytest.importorskip("fsspec")
pytest.importorskip("starlette")
pytest.importorskip("jinja2")
pytest.importorskip("httpx")


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:12] + f"/{len(data)}"


def one_file(folder: Path) -> tuple[str, bytes]:
    (path,) = list(folder.iterdir())
    return path.name, path.read_bytes()


async def through_every_path(
    tmp_path: Path,
    urls: Sequence[str],
    options: Options,
    *,
    listings: frozenset[str] = frozenset(),
    fsspec_urls: dict[str, str | None] | None = None,
    gateway_port: int | None = None,
    flags: Sequence[str] = (),
) -> dict[str, bytes]:
    """Each URL by every path; asserts they agree and returns ``{url: bytes}`` (``-o``'s)."""
    tmp_path.mkdir(parents=True)
    saved: dict[str, bytes] = {}
    names: dict[str, str] = {}
    for n, url in enumerate(urls):
        got: dict[str, bytes] = {}
        status, out, err = await run_cli("get", *flags, url)
        assert status == 0, (url, err)
        got["stdout (a pipe)"] = out
        target = tmp_path / f"o{n}"
        status, _, err = await run_cli("get", *flags, "-o", str(target), url)
        assert status == 0, (url, err)
        got["-o"] = target.read_bytes()
        cwd = tmp_path / f"O{n}"
        cwd.mkdir()
        status, _, err = await run_cli("get", *flags, "-O", url, cwd=cwd)
        assert status == 0, (url, err)
        names[url], got["-O"] = one_file(cwd)
        got.update(await _library(url, options, url in listings, fsspec_urls, gateway_port))
        assert {k: sha(v) for k, v in got.items() if v != got["-o"]} == {}, (url, sha(got["-o"]))
        saved[url] = got["-o"]
    # the batch and the batch over two processes: the same bytes under -O's names (a name
    # two URLs share taken once: the batch gives the second "NAME.1.EXT")
    for batch, extra in (("Z", ()), ("P", ("--procs", "2"))):
        folder = tmp_path / batch
        status, _, err = await run_cli(
            "get", *flags, "-Z", *extra, "--create-dirs", "--output-dir", str(folder), *urls
        )
        assert status == 0, err
        written = {p.name: p.read_bytes() for p in folder.iterdir()}
        assert sorted(written.values()) == sorted(saved.values()), batch
        for url in urls:
            stem, dot, ext = names[url].rpartition(".")
            again = [f"{stem}.{n}.{ext}" if dot else f"{names[url]}.{n}" for n in (1, 2)]
            assert any(written.get(name) == saved[url] for name in [names[url], *again]), url
    return saved


async def _library(
    url: str,
    options: Options,
    listing: bool,
    fsspec_urls: dict[str, str | None] | None,
    gateway_port: int | None,
) -> dict[str, bytes]:
    got: dict[str, bytes] = {}
    body = await asyncio.to_thread(omniurl.get, url, options)
    # a client twice: the second rides what the first kept (an FTP control connection)
    async with AsyncClient(options) as client:
        bodies = [await client.get(url), await client.get(url)]
    for name, each in [("omniurl.get", body), ("AsyncClient.get", bodies[0]), ("again", bodies[1])]:
        if listing:
            assert not isinstance(each, bytes), url
            got[f"{name} (entries)"] = b"".join(listing_line(e) for e in each.entries)
        else:
            assert isinstance(each, bytes), url
            got[name] = each
    if fsspec_urls is not None:  # (the schemes fsspec and urllib lack alike: ours serve them)
        import json
        import urllib.request

        from omniurl.integrations.urllib import OmniurlHandler

        def urlopen() -> tuple[str, bytes]:
            opener = urllib.request.build_opener(OmniurlHandler(options))
            with opener.open(url) as response:
                return response.headers["Content-Type"], response.read()

        media, data = await asyncio.to_thread(urlopen)
        if listing:  # JSON Lines on purpose (docs/saving.md): the entries with their details
            assert media == "application/x-ndjson"
            rows = [json.loads(line) for line in data.splitlines()]
            lines = b"".join(
                listing_line(Entry(name=r["name"], kind=r["kind"], url=r["url"])) for r in rows
            )
            got["urllib (entries)"] = lines
        else:
            got["urllib"] = data
    fs_url = (fsspec_urls or {}).get(url, url) if fsspec_urls is not None else None
    if fs_url is not None:
        import fsspec

        from omniurl.integrations.fsspec import register

        register()

        def read() -> bytes:
            with fsspec.open(fs_url, "rb", options=options) as fh:
                return fh.read()  # type: ignore[no-any-return]

        if listing:  # a listing is a directory to fsspec (its ls: the entries)
            with pytest.raises(IsADirectoryError):
                await asyncio.to_thread(read)
        else:
            got["fsspec"] = await asyncio.to_thread(read)
    if gateway_port is not None:
        import httpx

        from omniurl.gateway import GatewayConfig, create_app

        config = GatewayConfig(
            allow_hosts=frozenset({"127.0.0.1"}),
            allow_ports=frozenset({gateway_port}),
            max_render_bytes=0,  # every content a download
            options=options,
        )
        transport = httpx.ASGITransport(app=create_app(config))
        async with httpx.AsyncClient(transport=transport, base_url="http://gw.test") as web:
            reply = await web.get(f"/{url}")
        assert reply.status_code == 200, (url, reply.text[:300])
        if listing:  # a page (a view): its entries are links
            assert reply.headers["content-type"].startswith("text/html")
        else:
            assert reply.headers["content-disposition"].startswith("attachment"), url
            got["gateway download"] = reply.content
    return got


async def mirrored(url: str, folder: Path, *flags: str) -> Path:
    """``omniurl mirror URL FOLDER``; returns the folder."""
    status, _, err = await run_cli("mirror", *flags, url, str(folder))
    assert status == 0, err
    return folder


async def gateway_page(url: str, port: int | None, options: Options) -> tuple[int, str]:
    """The gateway's reply to ``url``: its status and media type."""
    import httpx

    from omniurl.gateway import GatewayConfig, create_app

    config = GatewayConfig(
        allow_hosts=frozenset({"127.0.0.1"}),
        allow_ports=frozenset({port} if port else ()),
        max_render_bytes=0,
        options=options,
    )
    transport = httpx.ASGITransport(app=create_app(config))
    async with httpx.AsyncClient(transport=transport, base_url="http://gw.test") as web:
        reply = await web.get(f"/{url}")
    return reply.status_code, reply.headers.get("content-type", "")


@pytest.fixture
def site(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    (root / "dir").mkdir(parents=True)
    (root / "pub").mkdir()
    (root / "t.txt").write_bytes(b"line one\n.dotted\n..two\nlast\n")
    (root / "dir" / "a.txt").write_bytes(b"a CR LF\r\nb LF\n")
    (root / "bin.dat").write_bytes(bytes(range(256)) * 16)
    (root / "pub" / "hello.txt").write_bytes(b"hello\r\nworld\n")
    return root


async def test_gopher(site: Path, tmp_path: Path) -> None:
    async with await testservers.start("gopher", site) as server:
        base = f"gopher://{server.netloc}"
        menu, plus, attributes, menu_attributes = (
            f"{base}/1/dir",
            f"{base}/0/t.txt%09%09+",
            f"{base}/0/t.txt%09%09!",
            f"{base}/1/dir%09%09$",
        )
        plus_menu, search = f"{base}/1/dir%09%09+", f"{base}/7/search%09dotted"
        urls = [menu, f"{base}/0/t.txt", plus, attributes, menu_attributes, f"{base}/9/bin.dat"]
        saved = await through_every_path(
            tmp_path / "run",
            [*urls, plus_menu, search],
            Options(),
            listings=frozenset({menu, plus_menu, search}),
            fsspec_urls={},
            gateway_port=server.port,
        )
        # the mirror: the items' bytes, the menu's lines as %gophermap.tsv
        tree = await mirrored(f"{base}/1/dir", tmp_path / "mirror")
        assert (tree / "%gophermap.tsv").read_bytes() == saved[menu]
        status, item, err = await run_cli("get", f"{base}/0/dir/a.txt")
        assert status == 0, err
        assert (tree / "a.txt").read_bytes() == item
    assert saved[menu] == f"file\ta.txt\t{base}/0/dir/a.txt\n".encode() == saved[plus_menu]
    assert saved[search].startswith(b"file\tt.txt\t")
    assert saved[f"{base}/0/t.txt"] == b"line one\r\n.dotted\r\n..two\r\nlast\r\n"
    assert saved[attributes].startswith(b"+INFO: 0t.txt\t")


async def test_ftp(site: Path, tmp_path: Path) -> None:
    async with await testservers.start("ftp", site) as server:
        base = f"ftp://{server.netloc}"
        listing, names = f"{base}/dir/", f"{base}/dir;type=d"
        text, raw = f"{base}/dir/a.txt", f"{base}/dir/a.txt;type=i"
        saved = await through_every_path(
            tmp_path / "run",
            [listing, names, text, f"{base}/bin.dat"],
            Options(),
            listings=frozenset({listing, names}),
            gateway_port=server.port,
        )
        saved.update(
            await through_every_path(tmp_path / "raw", [raw], Options(), gateway_port=server.port)
        )
        # the mirror copies files as ;type=i (a tree as stored, as wget -m and lftp mirror
        # do): for this text file, the one path that differs, on purpose (docs/saving.md)
        tree = await mirrored(listing, tmp_path / "mirror")
        assert (tree / "a.txt").read_bytes() == saved[raw] != saved[text]
    assert saved[text] == b"a CR LF\nb LF\n"  # TYPE A (§3.2.3's guess): local line ends
    assert saved[raw] == b"a CR LF\r\nb LF\n"  # TYPE I: the file as stored
    assert saved[names] == f"entry\ta.txt\t{base}/dir/a.txt\n".encode()  # NLST: names


async def test_file_folders_and_files(site: Path, tmp_path: Path) -> None:
    folder = f"file://{site}/dir/"
    saved = await through_every_path(
        tmp_path / "run", [folder, f"file://{site}/t.txt"], Options(), listings=frozenset({folder})
    )
    assert saved[folder] == f"file\ta.txt\tfile://{site}/dir/a.txt\n".encode()
    tree = await mirrored(f"file://{site}/", tmp_path / "mirror")
    assert (tree / "t.txt").read_bytes() == saved[f"file://{site}/t.txt"]
    # the gateway serves no file: (its strict policy), fsspec ships its own "file"
    status, media = await gateway_page(f"file://{site}/t.txt", None, Options())
    assert status == 403 and media.startswith("text/html")


async def test_news_and_nntp(site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from omniurl.resolvers.nntp.settings import NNTPOptions

    async with await testservers.start("nntp", site) as server:
        monkeypatch.setenv("NNTPSERVER", server.netloc)
        options = Options().with_scheme(NNTPOptions(server=server.netloc))
        base = f"nntp://{server.netloc}"
        group, every = f"{base}/omniurl.test", "news:*"
        news_group, article = "news:omniurl.test", "news:dots@omniurl.test"
        saved = await through_every_path(
            tmp_path / "run",
            [group, f"{base}/omniurl.test/1", news_group, article, every],
            options,
            listings=frozenset({group, news_group, every}),
            # news:group and news:* have no "//": fsspec sends them to the local disk
            # (omniurl/integrations/fsspec.py); RFC 5538's news://server/ form is ours
            fsspec_urls={
                news_group: f"news://{server.netloc}/omniurl.test",
                article: f"news://{server.netloc}/dots@omniurl.test",
                every: None,
            },
            gateway_port=server.port,
        )
    assert saved[group] == saved[news_group]
    assert b"Message-ID: <dots@omniurl.test>" in saved[article]


async def test_gemini(site: Path, tmp_path: Path) -> None:
    from omniurl.resolvers.gemini.settings import GeminiOptions

    (site / "index.gmi").write_bytes(b"# Capsule\n=> t.txt A text\n")
    known = tmp_path / "known_hosts"
    async with await testservers.start("gemini", site) as server:
        base = f"gemini://{server.netloc}"
        saved = await through_every_path(
            tmp_path / "run",
            [f"{base}/", f"{base}/t.txt"],
            Options().with_scheme(GeminiOptions(known_hosts=str(known))),
            fsspec_urls={},
            gateway_port=server.port,
            flags=("--gemini-known-hosts", str(known)),
        )
        tree = await mirrored(f"{base}/", tmp_path / "mirror", "--gemini-known-hosts", str(known))
        assert (tree / "index.gmi").read_bytes() == saved[f"{base}/"]
        assert (tree / "t.txt").read_bytes() == saved[f"{base}/t.txt"]
    # to a pipe too: the document as received (the terminal alone gets it rendered)
    assert saved[f"{base}/"] == b"# Capsule\n=> t.txt A text\n"


async def test_wais_search_and_retrieval(site: Path, tmp_path: Path) -> None:
    async with await testservers.start("wais", site) as server:
        base = f"wais://{server.netloc}"
        docid = server.info["document_ids"][("pub", b"hello.txt")]
        search, document = f"{base}/pub?world", f"{base}/pub/TEXT/{quote(docid, safe='')}"
        saved = await through_every_path(
            tmp_path / "run",
            [search, document],
            Options(),
            listings=frozenset({search}),
            fsspec_urls={},
            gateway_port=server.port,
        )
    # a pipe gets the listing as saved (kind TAB name TAB url), not the terminal's table
    assert saved[search] == f"document\thello.txt\t{document}\n".encode()
    assert saved[document] == b"hello\r\nworld\n"


async def test_prospero_objects_and_their_access_methods(site: Path, tmp_path: Path) -> None:
    async with (
        await testservers.start("ftp", site) as ftp,
        await testservers.start("prospero", site, ftp=(ftp.host, ftp.port), gopher=None) as server,
    ):
        url = f"prospero://{server.netloc}//pub/hello.txt"
        # followed: the object's AFTP method, the file (its "ASCII": TYPE A, LF)
        followed = await through_every_path(tmp_path / "followed", [url], Options(), fsspec_urls={})
        # the gateway: a page of the object's access methods, each a link (its strict
        # policy never changes scheme on its own: docs/gateway.md), not the file
        status, media = await gateway_page(url, server.port, Options())
        assert status == 200 and media.startswith("text/html")
        # --no-follow: the access methods, a listing
        methods: Any = await through_every_path(
            tmp_path / "methods",
            [url],
            Options(follow=False),
            listings=frozenset({url}),
            flags=("--no-follow",),
        )
    assert followed[url] == b"hello\nworld\n"
    assert methods[url].startswith(b"access-method\tAFTP INTERNET-D ")
