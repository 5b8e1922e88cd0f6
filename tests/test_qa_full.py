"""Defects a full QA pass found (hostile servers, peers compared on the same bytes): each
against a scripted loopback server, checked by exit status, error text and the files left."""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import os
import random
import re
import zlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from helpers import loopback_server, run_omniurl

from omniurl import AsyncClient
from omniurl.batch import FetchResult
from omniurl.resolvers.errors import ProtocolError
from omniurl.resolvers.options import Options

#: Each request's target -> the raw reply (the connection is closed after it).
Script = Callable[[bytes], bytes]


@contextlib.asynccontextmanager
async def scripted(script: Script) -> AsyncIterator[str]:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
            writer.write(script(head.split(b" ", 2)[1]))
            await writer.drain()
        except (TimeoutError, asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()

    async with loopback_server(handle) as port:
        yield f"http://127.0.0.1:{port}"


# -- stacked transfer codings (RFC 9112 §7) ----------------------------------------------------

CONTENT = b"stacked\r\n" * 10


def _gzipped(layers: int) -> bytes:
    data = CONTENT
    for _ in range(layers):
        data = gzip.compress(data)
    return data


def stacked(target: bytes) -> bytes:
    """``/N``: the content gzipped N times, ``Transfer-Encoding: gzip`` N times, then the close."""
    layers = int(target.rsplit(b"/", 1)[-1])
    codings = b"gzip, " * (layers - 1) + b"gzip"
    return b"HTTP/1.1 200 OK\r\nTransfer-Encoding: " + codings + b"\r\n\r\n" + _gzipped(layers)


async def test_five_stacked_transfer_codings_are_undone(tmp_path: Path) -> None:
    async with scripted(stacked) as base:
        status, _out, err = await run_omniurl("get", "-o", str(tmp_path / "f"), f"{base}/5")
    assert (status, err) == (0, b"")
    assert (tmp_path / "f").read_bytes() == CONTENT


async def test_thousands_of_stacked_transfer_codings_are_a_typed_error(tmp_path: Path) -> None:
    """3,000 layers of gzip named in one Transfer-Encoding field: before, a decoder a layer,
    nested, ended in a RecursionError's traceback (exit 1); now refused before any is made,
    as curl bounds them (5), exit 6, no file — and a typed ProtocolError through the API."""
    async with scripted(stacked) as base:
        status, out, err = await run_omniurl("get", "-o", str(tmp_path / "f"), f"{base}/3000")
        assert (status, out) == (6, b"")
        assert (
            err
            == (
                f"omniurl: {base}/3000: the server sent 3000 transfer codings (gzip, gzip, gzip, "
                "gzip, gzip, gzip, … (3000 in all)): omniurl undoes at most 5 (RFC 9112 §7)\n"
            ).encode()
        )
        assert list(tmp_path.iterdir()) == []
        async with AsyncClient(Options(max_time=10)) as client:
            with pytest.raises(ProtocolError) as info:
                await client.get(f"{base}/6")
        assert info.value.component == "transfer-encoding"
        assert "6 transfer codings" in info.value.message


def both_codings(target: bytes) -> bytes:
    """The content deflated (``Content-Encoding``), the message then gzipped
    (``Transfer-Encoding``), then the close."""
    body = gzip.compress(zlib.compress(CONTENT))
    return b"HTTP/1.1 200 OK\r\nContent-Encoding: deflate\r\nTransfer-Encoding: gzip\r\n\r\n" + body


@pytest.mark.parametrize("compressed", [True, False])
async def test_a_transfer_coding_is_undone_before_the_content_coding(
    compressed: bool, tmp_path: Path
) -> None:
    """The transfer coding was applied to the message after the content coding to the
    content (RFC 9112 §7, RFC 9110 §8.4): undone first, always; the content's only under
    --compressed (without it the deflated content is what is saved, as curl saves it)."""
    out = tmp_path / "f"
    async with scripted(both_codings) as base:
        flags = ["--compressed"] if compressed else []
        status, _out, err = await run_omniurl("get", *flags, "-o", str(out), f"{base}/x")
    assert (status, err) == (0, b"")
    assert out.read_bytes() == (CONTENT if compressed else zlib.compress(CONTENT))


# -- mirror: what a page and its style sheets load, as wget --mirror follows it --------------

SITE = {
    "index.html": b'<html><head><link rel="stylesheet" href="css/site.css">'
    b'<meta http-equiv="refresh" content="30; url=news.html"></head>'
    b'<body style="background:url(img/body.png)"><style>h1{background:url(img/h1.png)}</style>'
    b'<img src="img/a.png" srcset="img/a2.png 2x, img/a3.png 3x">'
    b'<video poster="img/poster.png"></video><object data="img/o.svg"></object></body></html>',
    "news.html": b"<p>news</p>",
    "css/site.css": b'@import "more.css"; body{background:url(../img/bg.png)}'
    b"@font-face{src:url('../fonts/f.woff2')}",
    "css/more.css": b"p{background:url(/img/more.png)}",
    "img/a.png": b"a",
    "img/a2.png": b"a2",
    "img/a3.png": b"a3",
    "img/body.png": b"body",
    "img/h1.png": b"h1",
    "img/bg.png": b"bg",
    "img/more.png": b"more",
    "img/poster.png": b"poster",
    "img/o.svg": b"<svg/>",
    "fonts/f.woff2": b"font",
}


async def _site_mirror(tmp_path: Path, *, runs: list[bool]) -> list[tuple[int, int]]:
    """SITE served by routes only (no folder pages: a file is found only through a link),
    mirrored into tmp_path/out once a run (``runs``: each run's --delete); each run's exit
    status and deleted count."""
    from omniurl import testservers
    from omniurl.mirror.run import Config, mirror

    types = {"html": "text/html", "css": "text/css", "svg": "image/svg+xml"}
    routes = {
        f"/{name}": (200, [("Content-Type", types.get(name.rsplit(".", 1)[1], "image/png"))], data)
        for name, data in SITE.items()
    }
    routes["/"] = routes.pop("/index.html")
    (tmp_path / "src").mkdir()
    server = await testservers.start("http", tmp_path / "src", routes=routes)
    done = []
    try:
        for delete in runs:
            if (tmp_path / "out" / "img").is_dir():  # (a file the server never had)
                (tmp_path / "out" / "img" / "stale.png").write_bytes(b"not on the server")
            url = f"http://127.0.0.1:{server.port}/"
            config = Config(url=url, folder=tmp_path / "out", delete=delete)
            status, counts = await asyncio.wait_for(
                mirror(config, Options(read_timeout=10), lambda row: None), 60
            )
            done.append((status, counts.deleted))
    finally:
        await server.close()
    return done


def _mirrored(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in folder.rglob("*")
        if p.is_file() and ".omniurl-mirror" not in p.parts
    }


async def test_a_mirror_takes_what_pages_and_style_sheets_load(tmp_path: Path) -> None:
    """What wget --mirror takes of this site (compared on nginx): before, a mirror left out
    what style attributes and elements, the sheet's url() and @import and the meta refresh
    load (and, before 4204a1b, srcset, poster and object)."""
    assert await _site_mirror(tmp_path, runs=[False]) == [(0, 0)]
    assert _mirrored(tmp_path / "out") == SITE


async def test_a_rerun_with_delete_keeps_folders_reached_only_through_links(
    tmp_path: Path,
) -> None:
    """``img/``, ``css/`` and ``fonts/`` are never listed (no link names the folders): a
    re-run with --delete removed each whole, its current files with it (3 deleted, the
    mirror left with index.html and news.html).  Now only what the server does not have
    goes: a stale file in img/, kept by a run without --delete."""
    runs = await _site_mirror(tmp_path, runs=[False, False, True])
    assert runs == [(0, 0), (0, 0), (0, 1)]
    assert _mirrored(tmp_path / "out") == SITE


# -- a Location with a space (RFC 9110 §10.2.2's recovery, as curl and wget make it) ---------


def spaced(target: bytes) -> bytes:
    if target == b"/moved":
        return b"HTTP/1.1 302 Found\r\nLocation: /my file.txt?a b\r\nContent-Length: 0\r\n\r\n"
    body = b"at " + target
    return b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)


async def test_a_location_with_a_space_is_followed_as_curl_follows_it(tmp_path: Path) -> None:
    """Before: "the server redirected to '/my file.txt?a b', which is not a valid URL",
    exit 6; curl and wget follow it to /my%20file.txt?a%20b."""
    async with scripted(spaced) as base:
        status, out, err = await run_omniurl("get", f"{base}/moved")
        assert (status, out, err) == (0, b"at /my%20file.txt?a%20b", b"")
        async with AsyncClient(Options(max_time=10)) as client:
            assert await client.get(f"{base}/moved") == b"at /my%20file.txt?a%20b"


# -- mirror ftp://h/pub: a folder named without its slash, as wget -m and lftp mirror take it --


@pytest.mark.parametrize("server", ["ftp", "vsftpd", "file"])
async def test_a_mirror_of_a_folder_named_without_its_slash(tmp_path: Path, server: str) -> None:
    """Before: "the server refused "RETR sub": 550", exit 5 (file: "a listing, not a
    file", exit 3), nothing mirrored; wget -m and lftp mirror copy the folder.  A name that
    is neither still fails."""
    from _ftphttp import VSFTPD, running, start_vsftpd, world_readable_tree

    from omniurl import testservers
    from omniurl.mirror.run import Config, mirror

    files = {"sub/a.txt": b"a\r\n", "sub/deep/b.bin": b"b" * 3000, "top.txt": b"not below sub"}
    async with contextlib.AsyncExitStack() as stack:
        root = stack.enter_context(world_readable_tree(files))
        if server == "vsftpd":
            if not Path(VSFTPD).exists():
                pytest.skip("vsftpd not installed")
            netloc = await stack.enter_async_context(
                running(start_vsftpd, root, tmp_path / "scratch")
            )
        elif server == "ftp":
            started = await testservers.start("ftp", root)
            stack.push_async_callback(started.close)
            netloc = f"127.0.0.1:{started.port}"
        rows: list[object] = []
        for name, folder in (("sub", "out"), ("missing", "none")):
            url = f"file://{root}/{name}" if server == "file" else f"ftp://{netloc}/{name}"
            config = Config(url=url, folder=tmp_path / folder)
            status, counts = await asyncio.wait_for(
                mirror(config, Options(read_timeout=10, email="t@example.org"), rows.append), 60
            )
            rows.append((status, counts.failed))
    got = {
        p.relative_to(tmp_path / "out").as_posix(): p.read_bytes()
        for p in (tmp_path / "out").rglob("*")
        if p.is_file() and ".omniurl-mirror" not in p.parts
    }
    assert got == {"a.txt": b"a\r\n", "deep/b.bin": b"b" * 3000}
    assert rows[-1] == (5, 1)  # missing: neither a file nor a folder
    assert [p.name for p in (tmp_path / "none").iterdir()] == [".omniurl-mirror"]


# -- pooled https: a reply that over-ran or under-ran its framing never feeds the next -------

DESYNC = {
    # a Content-Length body, then a whole reply smuggled behind it on the same write
    b"/over": b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"
    b"HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\nSMUGGLED",
    # a chunk cut in the middle, then the close
    b"/cut": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nabc",
}


async def _tls_origin(pki: tuple[object, str], closes: list[bytes]) -> AsyncIterator[str]:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
                target = head.split(b" ", 2)[1]
                body = b"SECOND " + target
                data = DESYNC.get(target, b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s")
                if target not in DESYNC:
                    data = data % (len(body), body)
                writer.write(data)
                await writer.drain()
                if target in closes:
                    return
        except (TimeoutError, asyncio.IncompleteReadError, ConnectionError, OSError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()

    server = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=pki[0])  # type: ignore[arg-type]
    try:
        yield f"https://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    finally:
        server.close()
        await server.wait_closed()


@pytest.mark.parametrize("bad", ["/over", "/cut"])
async def test_a_kept_tls_connection_never_feeds_a_broken_replys_bytes_to_the_next(
    pki: tuple[object, str], tmp_path: Path, bad: str
) -> None:
    """A kept https connection (one at a time to the server) whose reply over-ran its
    Content-Length or closed mid-chunk: the next URLs get their own replies, byte for byte,
    through ``get -Z`` and one AsyncClient; the broken one is its own error (exit 4) and
    leaves no file, the over-run one is its 5 bytes."""
    closes = [b"/cut"]
    async with contextlib.asynccontextmanager(_tls_origin)(pki, closes) as base:
        urls = [f"{base}/a", f"{base}{bad}", f"{base}/b", f"{base}/c"]
        out = tmp_path / "out"
        status, _out, err = await run_omniurl(
            "get", "-Z", "--parallel-max-host", "1", "--cacert", pki[1],
            "--output-dir", str(out), "--create-dirs", *urls,
        )  # fmt: skip
        files = {p.name: p.read_bytes() for p in out.iterdir()}
        async with AsyncClient(Options(ca_file=pki[1], max_time=10)) as client:
            got = []
            for url in urls:
                try:
                    got.append(await client.get(url))
                except Exception as exc:  # (typed: checked below)
                    got.append(type(exc).__name__)
    seconds = {"a": b"SECOND /a", "b": b"SECOND /b", "c": b"SECOND /c"}
    if bad == "/over":
        assert (status, files) == (0, {**seconds, "over": b"hello"}), err
        assert got == [b"SECOND /a", b"hello", b"SECOND /b", b"SECOND /c"]
    else:
        assert (status, files) == (4, seconds), err
        assert b"/cut: the server closed the connection inside a chunk" in err
        assert got == [b"SECOND /a", "ConnectionClosed", b"SECOND /b", b"SECOND /c"]


# -- errors cross process boundaries (Dask workers, --procs) as they were made ---------------

_KEYWORDS: dict[str, dict[str, object]] = {
    "StatusError": {"status": 404, "reply": "HTTP/1.1 404 Not Found", "replies": ("a", "b")},
    "PortRefused": {"port": 6379, "reason": "Redis"},
    "DelimiterRefused": {"component": "path", "octet": 10},
    "HeaderRefused": {"component": "header", "field": "Host"},
    "NotFollowed": {"target": "http://h/x", "reason": "HTTP 302", "replies": ["HTTP/1.1 302"]},
    "AuthError": {"component": "user", "status": 401, "replies": ("x",)},
    "InputNeeded": {"component": "search", "prompt": "word?"},
}


def test_every_error_pickles_as_it_was_made() -> None:
    """Before, an error whose ``__init__`` takes a required keyword (StatusError's status,
    PortRefused's port…) could not be unpickled (TypeError): ``mirror --dask local:2`` of a
    site with a 404 printed a traceback and the row said "the cluster did not run the
    transfer (TypeError …)" — for that URL and others of the worker's."""
    import pickle

    from omniurl.integrations.fsspec import ResourceNotFound
    from omniurl.resolvers import errors
    from omniurl.schemes import errors as url_errors

    made = []
    for name in errors.__all__:
        cls = getattr(errors, name)
        if isinstance(cls, type) and issubclass(cls, BaseException):
            made.append(cls("http://u:secret@h/x failed", **_KEYWORDS.get(name, {})))
    made.append(url_errors.HostError("bad host", component="host", offset=7))
    made.append(ResourceNotFound("gone", component="path", code="550", reply="550 no"))
    assert len(made) > 30
    for error in made:
        error.hops = (("HTTP/1.1 301 Moved",),)
        again = pickle.loads(pickle.dumps(error))
        assert type(again) is type(error)
        assert (again.args, str(again), vars(again)) == (error.args, str(error), vars(error))
        assert "secret" not in str(again)
    assert isinstance(again, FileNotFoundError) and str(again) == "gone"


# -- mirror: two URLs for one local name, the first refused -----------------------------------


async def test_a_name_whose_first_url_fails_is_fetched_by_its_other_url(tmp_path: Path) -> None:
    """``p%2Fq.txt`` and ``p%252Fq.txt`` both name ``p%2Fq.txt`` here; the first found kept
    the name and the other was dropped, so a broken link (404) left out the file a listing
    or page names the other way, where wget -m saved it.  Both orders: the other URL found
    before the failure (the same page) and after it (a later page)."""
    from omniurl import testservers
    from omniurl.mirror.run import Config, mirror

    html = [("Content-Type", "text/html")]
    text = [("Content-Type", "text/plain")]
    routes = {
        "/": (200, html, b'<a href="p%2Fq.txt">1</a><a href="p%252Fq.txt">2</a>'
              b'<a href="later.html">3</a><a href="r%2Fs.txt">4</a>'),
        "/later.html": (200, html, b'<a href="r%252Fs.txt">5</a>'),
        "/p%252Fq.txt": (200, text, b"p/q"),
        "/r%252Fs.txt": (200, text, b"r/s"),
    }  # fmt: skip
    (tmp_path / "src").mkdir()
    server = await testservers.start("http", tmp_path / "src", routes=routes)
    rows: list[FetchResult] = []
    try:
        config = Config(url=f"http://127.0.0.1:{server.port}/", folder=tmp_path / "out")
        status, counts = await asyncio.wait_for(
            mirror(config, Options(read_timeout=10), rows.append), 60
        )
    finally:
        await server.close()
    assert _mirrored(tmp_path / "out") == {
        "index.html": routes["/"][2],
        "later.html": routes["/later.html"][2],
        "p%2Fq.txt": b"p/q",
        "r%2Fs.txt": b"r/s",
    }
    failed = sorted(r.url.rsplit("/", 1)[1] for r in rows if not r.ok)
    assert (status, counts.failed, failed) == (5, 2, ["p%2Fq.txt", "r%2Fs.txt"])


def octets_location(target: bytes) -> bytes:
    locations = {b"/latin": b"/caf\xe9 x.txt", b"/utf8": "/café.txt".encode()}
    if target in locations:
        return (
            b"HTTP/1.1 302 Found\r\nLocation: %s\r\nContent-Length: 0\r\n\r\n" % locations[target]
        )
    body = b"at " + target
    return b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)


@pytest.mark.parametrize("parser", ["llhttp", "h11"])
async def test_a_location_in_latin_1_goes_out_as_its_octets(parser: str) -> None:
    """``Location: /caf\\xe9.txt`` (not UTF-8): each octet its own %XX, as curl sends it —
    before, read as the character é and sent as %C3%A9, another name than the server's.
    A UTF-8 Location is read as characters (%C3%A9), as before and as curl."""
    env = {**os.environ, "OMNIURL_HTTP_PARSER": parser}
    async with scripted(octets_location) as base:
        for start, end in (("/latin", b"/caf%E9%20x.txt"), ("/utf8", b"/caf%C3%A9.txt")):
            status, out, err = await run_omniurl("get", f"{base}{start}", env=env)
            assert (status, out, err) == (0, b"at " + end, b"")


def moved_files(target: bytes) -> bytes:
    replies = {
        b"/": (b"200 OK", b"text/html", b'<a href="files/moved">1</a><a href="files/old">2</a>'),
        b"/files/a%20b.txt": (b"200 OK", b"text/plain", b"space"),
        b"/files/caf%E9.txt": (b"200 OK", b"text/plain", b"latin"),
    }
    moved = {b"/files/moved": b"/files/a b.txt", b"/files/old": b"/files/caf\xe9.txt"}
    if target in moved:
        return b"HTTP/1.1 302 Found\r\nLocation: %s\r\nContent-Length: 0\r\n\r\n" % moved[target]
    status, kind, body = replies.get(target, (b"404 Not Found", b"text/plain", b""))
    head = b"HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n"
    return head % (status, kind, len(body)) + body


async def test_a_mirror_follows_a_location_with_a_space_or_latin_1_octets(tmp_path: Path) -> None:
    """A link answered with ``302 Location: /files/a b.txt`` (or Latin-1 ``caf\\xe9.txt``):
    before, the mirror could not read the target and saved the redirect's own empty page
    under the link's name; now the target is mirrored, as a get follows it."""
    from omniurl.mirror.run import Config, mirror

    async with scripted(moved_files) as base:
        config = Config(url=f"{base}/", folder=tmp_path / "out")
        status, _counts = await asyncio.wait_for(
            mirror(config, Options(read_timeout=10), lambda row: None), 60
        )
    assert status == 0
    assert _mirrored(tmp_path / "out") == {
        "index.html": moved_files(b"/").split(b"\r\n\r\n", 1)[1],
        "files/a b.txt": b"space",
        "files/caf%E9.txt": b"latin",
    }


# -- -C with --compressed: the kept part is decoded content, so it resumes the identity -------

RANDOM_TEXT = random.Random(7).randbytes(60_000)


def representations(head: bytes) -> bytes:
    """A server with a gzip and an identity representation of one resource (RFC 9110 §8.4,
    each its own strong ETag), honouring Range and If-Range on the one it sends; a reply
    with no Range is cut at half its body (then the close)."""
    gzipped = b"gzip" in head.lower().split(b"accept-encoding:", 1)[-1].split(b"\r\n", 1)[0]
    body, tag = (gzip.compress(RANDOM_TEXT), b'"gz"') if gzipped else (RANDOM_TEXT, b'"id"')
    coding = b"Content-Encoding: gzip\r\n" if gzipped else b""
    ranged = re.search(rb"(?i)\r\nrange: bytes=(\d+)-", head)
    if_range = re.search(rb"(?i)\r\nif-range: (\S+)", head)
    if ranged and (if_range is None or if_range.group(1) == tag):
        start = int(ranged.group(1))
        return (
            b"HTTP/1.1 206 Partial Content\r\n%sETag: %s\r\nContent-Range: bytes %d-%d/%d\r\n"
            b"Content-Length: %d\r\n\r\n" % (coding, tag, start, len(body) - 1, len(body),
                                              len(body) - start) + body[start:]
        )  # fmt: skip
    head_out = b"HTTP/1.1 200 OK\r\n%sETag: %s\r\nContent-Length: %d\r\n\r\n"
    whole = head_out % (coding, tag, len(body))
    return whole + (body if ranged else body[: len(body) // 2])


async def test_resuming_a_compressed_transfer_never_appends_coded_bytes(tmp_path: Path) -> None:
    """``-C - --compressed`` cut, then again: the kept part holds decoded content, so the
    resume asks for the identity (its If-Range then names the gzip one's tag: the whole
    identity comes, a refetch).  Before, it asked for gzip from the decoded part's length:
    the 206's gzip bytes were appended to decoded content, a corrupt file, exit 0."""
    out = tmp_path / "out.bin"

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(TimeoutError, asyncio.IncompleteReadError, ConnectionError):
            writer.write(representations(await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)))
            await writer.drain()
        writer.close()

    async with loopback_server(handle) as port:
        url = f"http://127.0.0.1:{port}/f"
        first = await run_omniurl("get", "--compressed", "-C", "-", "-o", str(out), url)
        assert first[0] == 4 and not out.exists()
        assert 0 < (tmp_path / ".out.bin.part").stat().st_size < len(RANDOM_TEXT)
        status, _out, err = await run_omniurl("get", "--compressed", "-C", "-", "-o", str(out), url)
    assert status == 0, err
    assert out.read_bytes() == RANDOM_TEXT


async def test_a_coded_rest_of_a_decoded_part_is_refused_not_appended(tmp_path: Path) -> None:
    """A server that sends gzip whatever is asked: the resume of a ``--compressed`` part
    (identity asked) gets a gzip 206 — refused, exit 6, the part kept, no file; appended,
    it was a corrupt file with exit 0."""
    out = tmp_path / "out.bin"

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(TimeoutError, asyncio.IncompleteReadError, ConnectionError):
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
            writer.write(representations(head.replace(b"identity", b"gzip")))
            await writer.drain()
        writer.close()

    async with loopback_server(handle) as port:
        url = f"http://127.0.0.1:{port}/f"
        first = await run_omniurl("get", "--compressed", "-C", "-", "-o", str(out), url)
        assert first[0] == 4
        kept = (tmp_path / ".out.bin.part").read_bytes()
        status, _out, err = await run_omniurl("get", "--compressed", "-C", "-", "-o", str(out), url)
    assert status == 6, err
    assert b"the server sent the rest of the content in the coding gzip" in err
    assert not out.exists()
    assert (tmp_path / ".out.bin.part").read_bytes() == kept


def moved_for_write_out(target: bytes) -> bytes:
    locations = {
        b"/sp": b"/my file.txt",
        b"/latin": b"/caf\xe9.txt",
        b"/frag": b"t.txt#top",
        b"/frag-sp": b"t.txt#a b \xc3\xa9",  # (UTF-8: nginx's "return 302" sends it so)
        b"/frag-latin": b"t.txt#caf\xe9",
    }
    return b"HTTP/1.1 302 Found\r\nLocation: %s\r\nContent-Length: 0\r\n\r\n" % locations[target]


async def test_write_out_redirect_url_is_the_absolute_target_curl_gives() -> None:
    """``-w %{redirect_url}`` of an unfollowed redirect (curl's: absolute, encoded): before,
    ``Location: /my file.txt`` was printed as it came (not absolute), a Latin-1 octet as
    the character é; a fragment is kept, as curl keeps it, encoded as the path is (curl
    7.88: ``#a%20b%20%c3%a9``, ``#caf%e9``; it was printed as it came, a space and all)."""
    async with scripted(moved_for_write_out) as base:
        got = []
        for path in ("/sp", "/latin", "/frag", "/frag-sp", "/frag-latin"):
            status, out, err = await run_omniurl(
                "get", "--no-follow", "-s", "-o", os.devnull, "-w", "%{redirect_url}", base + path
            )
            got.append((status, out, err))
    assert got == [
        (0, f"{base}/my%20file.txt".encode(), b""),
        (0, f"{base}/caf%E9.txt".encode(), b""),
        (0, f"{base}/t.txt#top".encode(), b""),
        (0, f"{base}/t.txt#a%20b%20%C3%A9".encode(), b""),
        (0, f"{base}/t.txt#caf%E9".encode(), b""),
    ]
