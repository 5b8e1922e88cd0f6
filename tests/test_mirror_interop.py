"""``omniurl mirror`` against real servers from Debian on loopback — vsftpd (LIST, MDTM),
nginx autoindex (ETag, Last-Modified, 304), gophernicus, molly-brown — and beside
``lftp mirror`` and ``wget -m`` on the same trees.  Each skips where its server is absent."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from _ftphttp import (
    MOLLY,
    NGINX,
    VSFTPD,
    molly_brown,
    running,
    start_nginx,
    start_vsftpd,
    world_readable_tree,
)
from helpers import free_port

from omniurl.batch import FetchResult
from omniurl.mirror.run import Config, Counts, mirror
from omniurl.resolvers import Options

pytestmark = pytest.mark.interop

TREE = {
    "a.txt": b"alpha\n",
    "b.txt": b"bravo\n",
    "sub/c.bin": bytes(range(256)) * 300,
    "sub/deep/d.txt": b"delta\n",
    "sub/deep/e.txt": b"echo\n",
    "sub/crlf.txt": b"line one\r\nline two\r\n",  # a .txt travels as image, never ASCII
    "empty/": b"",
}
#: Names a held-out tree has: spaces, "%" (leading too), UTF-8, "#", "?", a leading dot,
#: a zero-byte file, depth, a file and a folder differing in case, empty folders.
AWKWARD = {
    "with space.txt": b"space\n",
    "100%.txt": b"percent\n",
    "%lead.txt": b"leading percent\n",
    "na\u00efve-\u00fc.txt": b"utf-8\n",
    "hash#tag.txt": b"hash\n",
    "q?uery.txt": b"query\n",
    "zero.bin": b"",
    "Case": b"a file\n",
    "case/inside.txt": b"a folder\n",
    "a/b/c/d/e/f/deep.txt": b"deep\n",
    "sub dir/x y.txt": b"xy\n",
    "emptydir/": b"",
    "e1/e2/": b"",
}
LFTP = shutil.which("lftp")
WGET = shutil.which("wget")


def files_of(folder: Path, *, skip: tuple[str, ...] = ()) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if rel.split("/")[0] == ".omniurl-mirror" or path.name.startswith(skip):
            continue
        out[rel + "/" if path.is_dir() else rel] = b"" if path.is_dir() else path.read_bytes()
    return out


def mtimes(folder: Path) -> dict[str, int]:
    return {
        p.relative_to(folder).as_posix(): int(p.stat().st_mtime)
        for p in folder.rglob("*")
        if p.is_file() and ".omniurl-mirror" not in p.parts
    }


async def run_mirror(
    url: str, folder: Path, options: Options | None = None, **kw: object
) -> tuple[int, Counts, list[FetchResult]]:
    rows: list[FetchResult] = []
    config = Config(url=url, folder=folder, **kw)  # type: ignore[arg-type]
    opts = options or Options(connect_timeout=5, read_timeout=10)
    status, counts = await asyncio.wait_for(mirror(config, opts, rows.append), 120)
    return status, counts, rows


def change(root: Path) -> None:
    """Two files changed, one added, one removed."""
    (root / "a.txt").write_bytes(b"ALPHA, longer now\n")
    (root / "sub/deep/d.txt").write_bytes(b"DELTA\n")
    os.utime(root / "sub/deep/d.txt", (1_700_000_500, 1_700_000_500))
    (root / "sub/new.txt").write_bytes(b"new\n")
    (root / "sub/new.txt").chmod(0o644)
    (root / "b.txt").unlink()


def dated(root: Path) -> None:
    for path in root.rglob("*"):
        if path.is_file():
            os.utime(path, (1_700_000_000, 1_700_000_000))


async def peer(*argv: str, cwd: Path) -> None:
    proc = await asyncio.create_subprocess_exec(
        *argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    await asyncio.wait_for(proc.wait(), 120)


@pytest.mark.skipif(not os.path.exists(VSFTPD), reason="vsftpd not installed")
async def test_vsftpd_tree_mtimes_and_changes(tmp_path: Path) -> None:
    with world_readable_tree(TREE) as root:
        dated(root)
        async with running(start_vsftpd, root, tmp_path / "scratch") as netloc:
            url = f"ftp://{netloc}/"
            out = tmp_path / "out"
            sent: list[str] = []
            opts = Options(connect_timeout=5, read_timeout=10).with_(
                transcript=lambda d, t: sent.append(f"{d} {t}")
            )
            status, counts, rows = await run_mirror(url, out, opts)
            assert status == 0, [r.error_message for r in rows if not r.ok]
            assert files_of(out) == files_of(root)
            # one login per directory: SIZE and MDTM ride the kept connection too
            assert sent.count("> USER anonymous") == 4  # /, empty/, sub/, sub/deep/
            assert sent.count("> TYPE A") == 0
            # RFC 959 §5.3.2: the type holds on a kept connection, sent once per login
            # that transfers (/, sub/, sub/deep/), not before each RETR and MDTM (12 before)
            assert sent.count("> TYPE I") == 3
            assert set(mtimes(out).values()) == {1_700_000_000}  # MDTM's, LIST has minutes
            # each file's MDTM is asked in its transfer's own conversation, right before
            # its EPSV (FTPOptions.mdtm): one resolve a file, not a second -I one after it
            commands = [line[2:] for line in sent if line.startswith("> ")]
            retrs = [i for i, c in enumerate(commands) if c.startswith("RETR ")]
            assert len(retrs) == len([name for name in TREE if not name.endswith("/")])
            assert [commands[i - 2 : i] for i in retrs] == [
                [f"MDTM {commands[i][5:]}", "EPSV"] for i in retrs
            ]
            assert sum(c.startswith("MDTM ") for c in commands) == len(retrs)
            if LFTP is not None:
                (tmp_path / "lftp").mkdir()
                await peer(LFTP, "-e", "mirror . lftp; quit", f"ftp://{netloc}", cwd=tmp_path)
                assert files_of(tmp_path / "lftp") == files_of(out)
            change(root)
            sent.clear()
            status, counts, rows = await run_mirror(url, out, opts, delete=True)
            assert status == 0
            assert files_of(out) == files_of(root)
            assert counts.fetched == 3 and counts.deleted == 1, [(r.path, r.bytes) for r in rows]
            # exactly the two changed (one the same size) and the added one travel
            retr = sorted(line for line in sent if line.startswith("> RETR "))
            assert retr == ["> RETR a.txt", "> RETR d.txt", "> RETR new.txt"]
            status, counts, rows = await run_mirror(url, out, delete=True)
            assert (counts.fetched, counts.deleted) == (0, 0)


@pytest.mark.skipif(not os.path.exists(NGINX), reason="nginx not installed")
async def test_nginx_autoindex_conditional_reruns(tmp_path: Path) -> None:
    with world_readable_tree(TREE) as root:
        dated(root)
        async with running(start_nginx, root, tmp_path / "scratch") as netloc:
            url = f"http://{netloc}/"
            out = tmp_path / "out"
            status, counts, rows = await run_mirror(url, out)
            assert status == 0, [r.error_message for r in rows if not r.ok]
            # autoindex pages are listings, not files of the tree
            assert files_of(out) == files_of(root)
            assert set(mtimes(out).values()) == {1_700_000_000}  # Last-Modified
            if WGET is not None:
                await peer(WGET, "-q", "-m", "-np", "-nH", "-P", "wget", url, cwd=tmp_path)
                wget = {
                    k: v for k, v in files_of(tmp_path / "wget").items()
                    if not k.endswith("index.html") and not k.endswith("/")
                }  # fmt: skip
                assert wget == {k: v for k, v in files_of(out).items() if not k.endswith("/")}
            change(root)
            sent: list[str] = []
            opts = Options(connect_timeout=5, read_timeout=10).with_(
                transcript=lambda d, t: sent.append(f"{d} {t}")
            )
            status, counts, rows = await run_mirror(url, out, opts, delete=True)
            assert status == 0
            assert counts.fetched == 3 and counts.deleted == 1
            assert files_of(out) == files_of(root)
            # every file kept was asked for conditionally and answered 304, with no body
            assert sum(1 for line in sent if line.startswith("> If-None-Match:")) == 5
            assert sum(1 for line in sent if line.startswith("< HTTP/1.1 304")) == 3
            # a 304 leaves the connection fit for the next request (RFC 9110 §15.4.5: no
            # content): one connection for the whole re-run, not one more after each 304
            assert sum(1 for line in sent if line.startswith("* connecting to")) == 1
            assert all(r.bytes == 0 for r in rows if r.path and r.path.endswith("c.bin"))


GOPHERNICUS = "/usr/sbin/gophernicus"
ACTIVATE = shutil.which("systemd-socket-activate")


@pytest.mark.skipif(
    not os.path.exists(GOPHERNICUS) or ACTIVATE is None,
    reason="gophernicus (and systemd-socket-activate) not installed",
)
@pytest.mark.parametrize(
    "tree",
    [
        TREE,
        # gophernicus answers "q?uery.txt" with an error text (it reads a "?" as a query)
        {k: v for k, v in AWKWARD.items() if "?" not in k},
    ],
    ids=["plain", "awkward"],
)
async def test_gophernicus_hole(tmp_path: Path, tree: dict[str, bytes]) -> None:
    """The hole's files under their own names: gophernicus writes a selector's space, "#",
    "%" and UTF-8 octets as "#" and three octal digits ("with#040space.txt"), which were
    the local names."""
    from _ftphttp import wait_listening

    with world_readable_tree(tree) as root:
        port = free_port()
        command = [GOPHERNICUS, "-h", "127.0.0.1", "-p", str(port), "-r", str(root)]
        command += ["-nu", "-nm", "-ns"]
        if os.geteuid() == 0:
            setpriv = shutil.which("setpriv")
            if setpriv is None:
                pytest.skip("running as root and setpriv is missing")
            command = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", *command]
        proc = subprocess.Popen(
            [ACTIVATE, "-l", f"127.0.0.1:{port}", "--inetd", "-a", *command],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            await wait_listening(port)
            out = tmp_path / "out"
            status, _counts, rows = await run_mirror(f"gopher://127.0.0.1:{port}/1/", out)
            assert status == 0, [r.error_message for r in rows if not r.ok]
            got = files_of(out, skip=("%gophermap.tsv",))
            expected = {k: v for k, v in files_of(root).items() if not k.endswith("/")}
            # a text item (type 0) is written as get -o writes it (omniurl.saving): the
            # server's bytes — gophernicus sends a text file's lines with CR LF (RFC 1436)
            for name, data in expected.items():
                if not name.endswith(".bin"):  # (gophernicus's type 0: text)
                    expected[name] = data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
            assert {k: v for k, v in got.items() if not k.endswith("/")} == expected
            assert (out / "%gophermap.tsv").exists()
        finally:
            proc.terminate()
            proc.wait(5)


@pytest.mark.skipif(MOLLY is None, reason="molly-brown not installed")
async def test_molly_brown_capsule(tmp_path: Path) -> None:
    from omniurl.resolvers.gemini.settings import GeminiOptions

    assert MOLLY is not None
    docs = tmp_path / "docs"
    files = {
        # ("sub" without its slash: molly-brown answers 31, moved to "sub/")
        "index.gmi": b"# Capsule\n=> hello.txt Hello\n=> sub Below\n=> gemini://elsewhere/ x\n",
        "hello.txt": b"hello\n",
        "sub/index.gmi": b"# Below\n=> page.gmi A page\n=> ../index.gmi Up\n",
        "sub/page.gmi": b"# Page\n",
    }
    for name, data in files.items():
        (docs / name).parent.mkdir(parents=True, exist_ok=True)
        (docs / name).write_bytes(data)
    async with molly_brown(docs, tmp_path) as port:
        opts = Options(connect_timeout=5, read_timeout=10).with_scheme(
            GeminiOptions(known_hosts=str(tmp_path / "known_hosts"))
        )
        out = tmp_path / "out"
        status, counts, rows = await run_mirror(f"gemini://127.0.0.1:{port}/", out, opts)
        assert status == 0, [r.error_message for r in rows if not r.ok]
        assert {k: v for k, v in files_of(out).items() if not k.endswith("/")} == files
        status, counts, rows = await run_mirror(f"gemini://127.0.0.1:{port}/", out, opts)
        assert counts.fetched == 0  # fetched again, nothing written: the bytes are the same


def dated_tree(root: Path) -> dict[str, int]:
    """Every file and folder of ``root`` given its own time; returns them (folders as
    "name/", deepest first so a child's time does not move its parent's)."""
    times: dict[str, int] = {}
    paths = sorted(root.rglob("*"), key=lambda p: -len(p.parts))
    for n, path in enumerate(paths):
        stamp = 1_600_000_000 + 86_400 * n  # a day apart: LIST's rough folder times differ
        os.utime(path, (stamp, stamp))
        times[path.relative_to(root).as_posix() + ("/" if path.is_dir() else "")] = stamp
    return times


def times_of(folder: Path) -> dict[str, int]:
    return {
        p.relative_to(folder).as_posix() + ("/" if p.is_dir() else ""): int(p.stat().st_mtime)
        for p in folder.rglob("*")
        if ".omniurl-mirror" not in p.relative_to(folder).parts
    }


@pytest.mark.skipif(not os.path.exists(VSFTPD), reason="vsftpd not installed")
async def test_vsftpd_awkward_names_and_folder_times_as_lftp_mirror(tmp_path: Path) -> None:
    """Names kept as the server lists them (a leading "%" too: it was written "%25"), the
    files' exact times (MDTM), and each folder its LIST line's time — what lftp mirror
    gives (a day's time is read as its noon; folders were left with the run's time)."""
    import time

    with world_readable_tree(AWKWARD) as root:
        times = dated_tree(root)
        recent = int(time.time()) - 3600  # LIST gives a recent folder's minute, not its day
        os.utime(root / "sub dir", (recent, recent))
        times["sub dir/"] = recent
        async with running(start_vsftpd, root, tmp_path / "scratch") as netloc:
            out = tmp_path / "out"
            status, _counts, rows = await run_mirror(f"ftp://{netloc}/", out)
            assert status == 0, [r.error_message for r in rows if not r.ok]
            assert files_of(out) == files_of(root)
            got = times_of(out)
            for name, stamp in times.items():
                if name == "sub dir/":  # LIST: the minute, read as its 30th second
                    assert got[name] == stamp - stamp % 60 + 30, name
                elif name.endswith("/"):  # LIST: the day (over 6 months old), its noon
                    assert got[name] == stamp - stamp % 86_400 + 43_200, name
                else:
                    assert got[name] == stamp, name
            if LFTP is not None:
                (tmp_path / "lftp").mkdir()
                await peer(LFTP, "-e", "mirror . lftp; quit", f"ftp://{netloc}", cwd=tmp_path)
                assert files_of(tmp_path / "lftp") == files_of(out)
                assert times_of(tmp_path / "lftp") == got


@pytest.mark.skipif(not os.path.exists(NGINX), reason="nginx not installed")
async def test_nginx_awkward_names_as_wget(tmp_path: Path) -> None:
    with world_readable_tree(AWKWARD) as root:
        times = dated_tree(root)
        async with running(start_nginx, root, tmp_path / "scratch") as netloc:
            out = tmp_path / "out"
            status, _counts, rows = await run_mirror(f"http://{netloc}/", out)
            assert status == 0, [r.error_message for r in rows if not r.ok]
            assert files_of(out) == files_of(root)
            # files: Last-Modified; folders: their autoindex row's minute, its 30th second (as
            # lftp gives them over HTTP; they kept the run's time)
            assert times_of(out) == {
                k: v - v % 60 + 30 if k.endswith("/") else v for k, v in times.items()
            }
            if LFTP is not None:
                await peer(LFTP, "-e", "mirror / lftp; quit", f"http://{netloc}/", cwd=tmp_path)
                assert files_of(tmp_path / "lftp") == files_of(out)
                lftp = times_of(tmp_path / "lftp")
                assert {k: v for k, v in lftp.items() if k.endswith("/")} == {
                    k: v for k, v in times_of(out).items() if k.endswith("/")
                }
            if WGET is not None:
                await peer(WGET, "-q", "-m", "-np", "-nH", "-P", "wget", f"http://{netloc}/",
                           cwd=tmp_path)  # fmt: skip
                wget = {
                    k: v for k, v in files_of(tmp_path / "wget").items()
                    if not k.endswith("index.html")
                }  # fmt: skip
                assert wget == files_of(out)


@pytest.mark.skipif(not os.path.exists(VSFTPD), reason="vsftpd not installed")
async def test_vsftpd_warc_has_a_record_of_every_file(tmp_path: Path) -> None:
    """Every file has its ``resource`` record under the URL the walk found (no ``;type=i``),
    its payload the file's bytes — a 1.2 MB one too (it was fetched by ``-C``'s resumable
    path, which wrote no record at all) — and a linked ``metadata`` record."""
    import base64
    import hashlib

    from warcio.archiveiterator import ArchiveIterator

    tree = dict(TREE, **{"sub/large.bin": os.urandom(1_200_000)})
    with world_readable_tree(tree) as root:
        async with running(start_vsftpd, root, tmp_path / "scratch") as netloc:
            out, warc = tmp_path / "out", tmp_path / "m.warc.gz"
            status, _counts, rows = await run_mirror(f"ftp://{netloc}/", out, warc=str(warc))
            assert status == 0, [r.error_message for r in rows if not r.ok]
    resources: dict[str, bytes] = {}
    ids: set[str] = set()
    with open(warc, "rb") as fh:
        for record in ArchiveIterator(fh, check_digests="raise"):
            uri = record.rec_headers.get_header("WARC-Target-URI")
            if record.rec_type == "resource":
                resources[uri] = record.content_stream().read()
                sha1 = base64.b32encode(hashlib.sha1(resources[uri]).digest()).decode()
                assert record.rec_headers.get_header("WARC-Payload-Digest") == f"sha1:{sha1}"
                ids.add(record.rec_headers.get_header("WARC-Record-ID"))
            elif record.rec_type == "metadata":
                assert record.rec_headers.get_header("WARC-Concurrent-To") in ids
    files = {k: v for k, v in files_of(out).items() if not k.endswith("/")}
    assert resources == {f"ftp://{netloc}/{name}": data for name, data in files.items()}


@pytest.mark.skipif(MOLLY is None, reason="molly-brown not installed")
async def test_molly_brown_listed_capsule_of_awkward_names(tmp_path: Path) -> None:
    """A capsule without index.gmi files, molly-brown listing its folders
    (``DirectoryListing``): the files under their own names, byte for byte, empty folders
    too, and no "index.gmi" the capsule does not have (they were saved as files)."""
    from omniurl.resolvers.gemini.settings import GeminiOptions

    assert MOLLY is not None
    with world_readable_tree(AWKWARD) as root:
        async with molly_brown(root, tmp_path, "DirectoryListing = true\n") as port:
            opts = Options(connect_timeout=5, read_timeout=10).with_scheme(
                GeminiOptions(known_hosts=str(tmp_path / "known_hosts"))
            )
            out = tmp_path / "out"
            status, _counts, rows = await run_mirror(f"gemini://127.0.0.1:{port}/", out, opts)
            assert status == 0, [r.error_message for r in rows if not r.ok]
            assert files_of(out) == files_of(root)


@pytest.mark.skipif(not os.path.exists(NGINX), reason="nginx not installed")
async def test_nginx_site_of_index_pages_rerun_sends_nothing(tmp_path: Path) -> None:
    """Folders with their own index.html (not autoindex pages): a re-run asks every URL
    conditionally — the folders' pages too, their links read from the local copies — and
    the server answers 304 to each: nothing is sent again (the pages were, every run)."""
    site = {
        "index.html": b'<a href="a.txt">a</a> <a href="sub/">sub</a>',
        "a.txt": b"alpha\n",
        "sub/index.html": b'<a href="b.txt">b</a> <a href="deeper/">d</a>',
        "sub/b.txt": b"bravo\n",
        "sub/deeper/index.html": b'<a href="c.txt">c</a>',
        "sub/deeper/c.txt": b"charlie\n",
    }
    with world_readable_tree(site) as root:
        dated(root)
        async with running(start_nginx, root, tmp_path / "scratch") as netloc:
            url, out = f"http://{netloc}/", tmp_path / "out"
            status, _counts, rows = await run_mirror(url, out)
            assert status == 0, [r.error_message for r in rows if not r.ok]
            assert files_of(out) == files_of(root)
            sent: list[str] = []
            opts = Options(connect_timeout=5, read_timeout=10).with_(
                transcript=lambda d, t: sent.append(f"{d} {t}")
            )
            status, counts, rows = await run_mirror(url, out, opts, delete=True)
            assert files_of(out) == files_of(root)
    assert status == 0 and counts.deleted == 0
    statuses = [line for line in sent if line.startswith("< HTTP/1.1 ")]
    assert statuses == ["< HTTP/1.1 304 Not Modified"] * 6, statuses


@pytest.mark.skipif(not os.path.exists(NGINX), reason="nginx not installed")
async def test_nginx_a_link_to_a_folder_without_its_slash(tmp_path: Path) -> None:
    """``<a href="sub">``: nginx answers 301 to ``sub/``; the folder is mirrored — its
    name had been claimed by the file the link looked like, and the subtree was left out
    without a word (exit 0)."""
    site = {
        "index.html": b'<a href="sub">sub</a> <a href="a.txt">a</a>',
        "a.txt": b"alpha\n",
        "sub/b.txt": b"bravo\n",
        "sub/deeper/c.txt": b"charlie\n",
    }
    with world_readable_tree(site) as root:
        async with running(start_nginx, root, tmp_path / "scratch") as netloc:
            out = tmp_path / "out"
            status, _counts, rows = await run_mirror(f"http://{netloc}/", out, delete=True)
            assert status == 0, [r.error_message for r in rows if not r.ok]
            assert files_of(out) == files_of(root)


#: Dotfiles (vsftpd's plain LIST leaves them out, as ``ls`` does; ``LIST -a`` lists them)
#: and, made beside them, symbolic links in and out of the tree.
DOTTED = {
    "a.txt": b"alpha\n",
    ".hidden": b"a dotfile\n",
    ".config/x.txt": b"in a dot folder\n",
    "sub/s.txt": b"sub\n",
}


@pytest.mark.skipif(not os.path.exists(VSFTPD), reason="vsftpd not installed")
async def test_vsftpd_dotfiles_and_symbolic_links(tmp_path: Path) -> None:
    """vsftpd has no MLSD: ``LIST -a`` lists the dotfiles (before, a plain LIST missed
    them, as ``lftp mirror`` still does; ``wget -m`` sends ``LIST -a`` too).  A symbolic
    link whose target stays inside the tree is made, relative; one to an absolute path or
    out of the tree is left out with a note — ``lftp mirror`` makes ``abs`` and
    ``sub/out`` as listed, pointing out of its folder; ``wget -m`` fetches a file's link as
    a file and skips a folder's.  A re-run with ``--delete`` keeps the links."""
    with world_readable_tree(DOTTED) as root:
        os.symlink("a.txt", root / "to-a")
        os.symlink("sub", root / "to-sub")
        os.symlink("../a.txt", root / "sub" / "up-a")
        os.symlink("nothing", root / "dangling")
        os.symlink("/etc/passwd", root / "abs")
        os.symlink("../../etc/passwd", root / "sub" / "out")
        os.symlink("..", root / "parent")
        async with running(start_vsftpd, root, tmp_path / "scratch") as netloc:
            out = tmp_path / "out"
            for delete in (False, True):
                status, counts, rows = await run_mirror(f"ftp://{netloc}/", out, delete=delete)
                assert status == 0, [r.error_message for r in rows if not r.ok]
                made = {
                    p.relative_to(out).as_posix(): os.readlink(p)
                    for p in out.rglob("*")
                    if p.is_symlink()
                }
                assert made == {
                    "to-a": "a.txt",
                    "to-sub": "sub",
                    "sub/up-a": "../a.txt",
                    "dangling": "nothing",
                }
                assert (counts.links, counts.links_skipped, counts.deleted) == (4, 3, 0)
                files = {
                    rel + ("/" if p.is_dir() else ""): b"" if p.is_dir() else p.read_bytes()
                    for p in out.rglob("*")
                    if not p.is_symlink()
                    and not (rel := p.relative_to(out).as_posix()).startswith(".omniurl-mirror")
                }
                assert files == {
                    ".config/": b"",
                    ".config/x.txt": b"in a dot folder\n",
                    ".hidden": b"a dotfile\n",
                    "a.txt": b"alpha\n",
                    "sub/": b"",
                    "sub/s.txt": b"sub\n",
                }
                assert (out / "to-a").read_bytes() == (out / "sub" / "up-a").read_bytes()
                for link in made:
                    named = os.path.realpath(out / link)
                    assert os.path.commonpath([named, str(out.resolve())]) == str(out.resolve())
