"""curl's manners where the first fixes did not reach: a batch that saves under the URLs'
names (``--output-dir``, ``--remote-name-all``, ``-Z``), ``-I`` with ``-o``, ``-s`` and the
warnings (issue 31 items 4, 6, 11), each checked as curl behaves on the same server."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from _ftphttp import run_cli

from omniurl.testservers import RunningServer
from omniurl.testservers.http import start_http

GONE = b"<h1>no such page</h1>\n"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "srv").mkdir()
    (tmp_path / "srv" / "hello.txt").write_bytes(b"hello\n")
    (tmp_path / "out").mkdir()
    return tmp_path


@pytest_asyncio.fixture
async def web(root: Path) -> AsyncIterator[RunningServer]:
    routes = {
        "/gone": (404, [("Content-Type", "text/html")], GONE),
        "/moved": (301, [("Location", "/hello.txt")], b"moved\n"),
    }
    server = await start_http(root / "srv", routes=routes)
    try:
        yield server
    finally:
        await server.close()


def files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir()}


# --- item 4 in a saving batch: the body is saved, -f exits 22 -------------------------------


@pytest.mark.parametrize(
    "how",
    [
        ("--output-dir", "{out}", "--remote-name-all"),
        ("--remote-name-all",),
        ("-Z", "--output-dir", "{out}"),
        ("-O",),
    ],
)
async def test_a_saving_batch_keeps_a_404_body_as_curl(
    web: RunningServer, root: Path, how: tuple[str, ...]
) -> None:
    """curl --remote-name-all saves a 404's page under the URL's name (exit 0); omniurl
    saves it too and keeps its typed status (5), as a single ``get -o`` does."""
    out = root / "out"
    options = [part.format(out=out) for part in how]
    manifest = root / "rows.jsonl"
    gone, hello = f"http://{web.netloc}/gone", f"http://{web.netloc}/hello.txt"
    status, _out, err = await run_cli(
        "get", *options, "--manifest", str(manifest), gone, hello, cwd=out
    )
    assert status == 5, err
    assert files(out) == {"gone": GONE, "hello.txt": b"hello\n"}
    rows = sorted((json.loads(line) for line in manifest.read_text().splitlines()), key=str)
    row = next(r for r in rows if r["url"] == gone)
    assert (row["ok"], row["exit_status"], row["error_type"]) == (False, 5, "StatusError")
    assert row["bytes"] == len(GONE)


@pytest.mark.parametrize("parallel", [(), ("-Z",)])
async def test_fail_in_a_saving_batch_exits_22_and_saves_no_error_body(
    web: RunningServer, root: Path, parallel: tuple[str, ...]
) -> None:
    out = root / "out"
    status, _out, err = await run_cli(
        "get",
        "-f",
        *parallel,
        "--output-dir",
        str(out),
        "--remote-name-all",
        f"http://{web.netloc}/gone",
        f"http://{web.netloc}/hello.txt",
        cwd=out,
    )
    assert status == 22, err
    assert files(out) == {"hello.txt": b"hello\n"}


async def test_fetch_many_with_error_bodies_saves_the_body_and_reports_the_failure(
    web: RunningServer, root: Path
) -> None:
    """The library: Options(error_body=True) keeps a 404's page, and its row is a failure
    (never ok with the page as if it were the resource)."""
    from omniurl import Options
    from omniurl.batch import fetch_many

    out = root / "out"
    rows = [
        row
        async for row in fetch_many(
            [f"http://{web.netloc}/gone"], options=Options(error_body=True), output_dir=str(out)
        )
    ]
    assert [(r.ok, r.exit_status, r.status, r.bytes) for r in rows] == [(False, 5, 404, len(GONE))]
    assert rows[0].path == str(out / "gone")
    assert files(out) == {"gone": GONE}


# --- item 6: -I -o FILE writes the head to FILE, as curl ------------------------------------


async def test_head_with_o_writes_the_head_to_the_file(web: RunningServer, root: Path) -> None:
    target = root / "out" / "head.txt"
    status, out, err = await run_cli("get", "-I", "-o", str(target), f"http://{web.netloc}/moved")
    assert (status, out, err) == (0, b"", b"")
    assert target.read_bytes() == (
        b"HTTP/1.1 301 Moved Permanently\r\nContent-Length: 6\r\nLocation: /hello.txt\r\n"
        b"Content-Type: text/plain; charset=utf-8\r\n\r\n"
    )


# --- item 11: -s hides the warning, as curl's -s --------------------------------------------


async def test_silent_hides_the_extra_output_warning(web: RunningServer, root: Path) -> None:
    out = root / "out"
    status, stdout, err = await run_cli(
        "get", "-s", "-O", f"http://{web.netloc}/hello.txt", "-o", "extra.txt", cwd=out
    )
    assert (status, stdout, err) == (0, b"", b"")
    assert files(out) == {"hello.txt": b"hello\n"}


# --- item 7 in a saving batch: the heads' variables as a single get reports them -----------


async def test_write_out_of_a_saving_batch_counts_the_heads_as_a_single_get(
    web: RunningServer, root: Path
) -> None:
    """curl -w '%{size_header} %{num_headers} %{http_version}' reports the same for a URL
    alone and in a batch; omniurl's saving batch said 0 0 0."""
    fmt = "%{http_code} %{size_header} %{num_headers} %{http_version}\\n"
    moved, gone = f"http://{web.netloc}/moved", f"http://{web.netloc}/gone"
    alone = []
    for url in (moved, gone):
        _status, out, _err = await run_cli("get", "-s", "-o", "-", "-w", fmt, url)
        alone.append(out.decode().splitlines()[-1])
    for parallel in ((), ("-Z",)):
        status, out, err = await run_cli(
            "get", "-s", *parallel, "-w", fmt, "--output-dir", str(root / "out"),
            "--remote-name-all", moved, gone, cwd=root / "out",
        )  # fmt: skip
        assert status == 5, err
        assert sorted(out.decode().splitlines()) == sorted(alone)
    assert alone[1].startswith("404 ") and alone[1].endswith(" 1.1")
    assert int(alone[0].split()[1]) > int(alone[1].split()[1])  # the 301's head counted too


# --- -Z with -o/-O pairs: run at once, as curl -Z -o a URL1 -o b URL2 ------------------------


async def test_parallel_pairs_are_fetched_each_to_its_file(web: RunningServer, root: Path) -> None:
    """curl -Z -o a URL1 -O URL2 -o c URL3 saves each; omniurl refused it (exit 2).  The
    status is the first failure in input order: the 404 (5) before the refused port (2),
    which ends first."""
    out = root / "out"
    hello, gone = f"http://{web.netloc}/hello.txt", f"http://{web.netloc}/gone"
    status, stdout, err = await run_cli(
        "get", "-Z", "-o", "a.txt", hello, "-O", hello, "-o", "c.html", gone,
        "-o", "d.txt", "http://127.0.0.1:1/x", cwd=out,
    )  # fmt: skip
    assert (status, stdout) == (5, b""), err
    assert files(out) == {"a.txt": b"hello\n", "hello.txt": b"hello\n", "c.html": GONE}
    assert err.endswith(b"4 URLs: 2 ok, 2 failed in " + err.rsplit(b" in ", 1)[1])


# --- -sS in a saving batch: the failures' lines and nothing else, as curl -sS --------------


async def test_silent_show_error_prints_a_batchs_failures(web: RunningServer, root: Path) -> None:
    out = root / "out"
    gone = f"http://{web.netloc}/gone"
    status, stdout, err = await run_cli(
        "get", "-sS", "--remote-name-all", gone, f"http://{web.netloc}/hello.txt", cwd=out
    )
    assert (status, stdout) == (5, b"")
    assert err == f"omniurl: {gone}: the server answered 404 Not Found\n".encode()
    status, stdout, err = await run_cli("get", "-s", "--remote-name-all", gone, cwd=out)
    assert (status, stdout, err) == (5, b"", b"")


# --- item 9 in plan: a URL typed without its scheme is asked about, as get asks --------------


async def test_plan_of_a_url_without_scheme_asks_did_you_mean() -> None:
    status, out, _err = await run_cli("plan", "localhost:8081/x")
    assert status == 2
    error = json.loads(out)["error"]
    assert error["component"] == "scheme"
    assert error["message"].startswith("no scheme: did you mean http://localhost:8081/x ?")
    status, out, _err = await run_cli("plan", "nosuch:thing")  # a scheme nobody resolves
    assert (status, json.loads(out)["error"]["type"]) == (3, "UnsupportedScheme")
