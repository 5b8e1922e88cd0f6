"""``omniurl get`` of many URLs, as a person runs it (a subprocess each): URL lists, -Z, the
manifest, collision-free names, and the batch's exit status."""

from __future__ import annotations

import hashlib
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from _ftphttp import run_cli

from omniurl import testservers
from omniurl.testservers import RunningServer
from omniurl.testservers.http import start_http


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "srv" / "a").mkdir(parents=True)
    (tmp_path / "srv" / "b").mkdir(parents=True)
    for i in range(12):
        (tmp_path / "srv" / f"f{i}.png").write_bytes(f"file {i}\n".encode() * (i + 1))
    (tmp_path / "srv" / "a" / "same.png").write_bytes(b"from a\n")
    (tmp_path / "srv" / "b" / "same.png").write_bytes(b"from b\n")
    (tmp_path / "out").mkdir()
    return tmp_path


@pytest_asyncio.fixture
async def servers(root: Path) -> AsyncIterator[tuple[RunningServer, RunningServer]]:
    gopher = await testservers.start("gopher", root / "srv")
    web = await start_http(root / "srv")
    try:
        yield gopher, web
    finally:
        await web.close()
        await gopher.close()


def rows(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


async def test_a_list_in_parallel_writes_every_file_and_one_manifest_row_per_url(
    servers: tuple[RunningServer, RunningServer], root: Path
) -> None:
    gopher, web = servers
    urls = [f"gopher://{gopher.netloc}/9/f{i}.png" for i in range(6)]
    urls += [f"http://{web.netloc}/f{i}.png" for i in range(6, 12)]
    listing = root / "urls.txt"
    listing.write_text("# twelve files\n\n" + "\n".join(urls[1:]) + "\n")
    manifest = root / "m.jsonl"
    status, out, err = await run_cli(
        "get", "-Z", "--parallel-max", "4", "--parallel-max-host", "2", urls[0],
        "-i", str(listing), "--output-dir", str(root / "out"), "--manifest", str(manifest),
    )  # fmt: skip
    assert status == 0, err
    assert out == b""
    assert b"12 URLs: 12 ok, 0 failed" in err
    got = rows(manifest)
    assert sorted(r["index"] for r in got) == list(range(12))
    for row in got:
        i = int(str(row["url"]).rsplit("/f", 1)[1].split(".")[0])
        content = f"file {i}\n".encode() * (i + 1)
        assert row["ok"] is True
        assert row["bytes"] == len(content)
        assert row["sha256"] == hashlib.sha256(content).hexdigest()
        assert Path(str(row["path"])).read_bytes() == content
    assert sorted(p.name for p in (root / "out").iterdir()) == sorted(
        f"f{i}.png" for i in range(12)
    )


async def test_failures_are_rows_and_the_exit_status_is_the_first_failures(
    servers: tuple[RunningServer, RunningServer], root: Path
) -> None:
    gopher, _web = servers
    manifest = root / "m.jsonl"
    urls = [
        f"gopher://{gopher.netloc}/9/f1.png",
        "gopher://127.0.0.1:6379/0/x",  # refused by the port policy: nothing sent (2)
        f"gopher://{gopher.netloc}/0/missing.png",  # the server's error item (5)
    ]
    status, _out, err = await run_cli(
        "get", *urls, "--output-dir", str(root / "out"), "--manifest", str(manifest)
    )
    got = {int(str(r["index"])): r for r in rows(manifest)}
    assert sorted(got) == [0, 1, 2]
    assert got[0]["ok"] is True
    assert (got[1]["ok"], got[1]["error_type"], got[1]["exit_status"]) == (False, "PortRefused", 2)
    assert (got[2]["ok"], got[2]["exit_status"]) == (False, 5)
    # Without -Z the URLs run one at a time, in order: the first failure is the port's.
    assert status == 2
    assert b"3 URLs: 1 ok, 2 failed" in err
    assert [p.name for p in (root / "out").iterdir()] == ["f1.png"]


async def test_names_never_collide_and_nothing_is_overwritten(
    servers: tuple[RunningServer, RunningServer], root: Path
) -> None:
    gopher, _web = servers
    (root / "out" / "same.png").write_bytes(b"mine\n")
    status, _out, err = await run_cli(
        "get", "-Z",
        f"gopher://{gopher.netloc}/9/a/same.png", f"gopher://{gopher.netloc}/9/b/same.png",
        "--output-dir", str(root / "out"),
    )  # fmt: skip
    assert status == 0, err
    assert (root / "out" / "same.png").read_bytes() == b"mine\n"
    contents = {(root / "out" / n).read_bytes() for n in ("same.1.png", "same.2.png")}
    assert contents == {b"from a\n", b"from b\n"}
    assert not [p for p in (root / "out").iterdir() if p.name.endswith(".part")]


async def test_several_urls_without_a_folder_go_to_stdout_in_order(
    servers: tuple[RunningServer, RunningServer],
) -> None:
    gopher, web = servers
    status, out, _err = await run_cli(
        "get", f"http://{web.netloc}/f2.png", f"gopher://{gopher.netloc}/9/f0.png"
    )
    assert status == 0
    assert out == b"file 2\n" * 3 + b"file 0\n"


async def test_input_from_stdin_dash(
    servers: tuple[RunningServer, RunningServer], root: Path
) -> None:
    gopher, _web = servers
    listing = root / "urls.txt"
    listing.write_text(f"gopher://{gopher.netloc}/9/f3.png\n")
    status, _out, err = await run_cli(
        "get", "-i", str(listing), "--manifest", str(root / "m.jsonl")
    )
    assert status == 0, err
    (row,) = rows(root / "m.jsonl")
    assert row["bytes"] == len(b"file 3\n" * 4)
    assert row["path"] is None  # no folder: counted and hashed only


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-Z", "gopher://h/0/a"], b"would interleave on standard output"),
        (["-Z", "-o", "x", "gopher://h/0/a", "gopher://h/0/b", "gopher://h/0/c"], b"interleave"),
        (["-Z", "-o", "x", "-i", "-", "gopher://h/0/a"], b"-Z with per-URL -o/-O and -i"),
        (["-Z", "--parallel-max", "0", "--output-dir", ".", "gopher://h/"], b"at least 1"),
        ([], b"get needs a URL"),
        (["-Z", "--procs", "0", "--output-dir", ".", "gopher://h/"], b"--procs must be at least"),
        (["--procs", "2", "--output-dir", ".", "gopher://h/"], b"splits a -Z batch: add -Z"),
    ],
)
async def test_batch_usage_errors_send_nothing(args: list[str], message: bytes) -> None:
    status, out, err = await run_cli("get", *args)
    assert status == 2
    assert out == b""
    assert message in err


async def test_an_unreadable_list_is_a_typed_error(root: Path) -> None:
    status, _out, err = await run_cli("get", "-i", str(root / "no-such-list"))
    assert status == 3
    assert b"cannot read the URL list" in err


def test_the_progress_line_counts_against_the_lists_total(tmp_path: Path) -> None:
    from omniurl.cli.batch import Tally, count_urls

    listing = tmp_path / "urls.txt"
    listing.write_text("# two\nhttp://a/1\n\n  http://a/2  \n")
    assert count_urls(["http://b/"], [str(listing)]) == 3
    assert count_urls([], ["-"]) is None  # standard input is read once, as it comes
    tally = Tally(total=3)
    assert tally.line().startswith("0 of 3 URLs: 0 ok, 0 failed, 0 B in ")


async def test_a_batch_reuses_kept_alive_connections(root: Path) -> None:
    """40 files from one HTTP server at ``--parallel-max-host 2``: the batch runs through one
    client, so it opens at most 2 connections and sends every request on them (each URL
    opened its own connection before: 40)."""
    web = await start_http(root / "srv")
    try:
        listing = root / "many.txt"
        listing.write_text("".join(f"http://{web.netloc}/f{i % 12}.png\n" for i in range(40)))
        status, _out, err = await run_cli(
            "get", "-s", "-Z", "--parallel-max", "8", "--parallel-max-host", "2",
            "-i", str(listing), "--output-dir", str(root / "out"),
        )  # fmt: skip
        assert status == 0, err
        assert len(list((root / "out").iterdir())) == 40
        assert len(web.info["requests"]) == 40  # type: ignore[arg-type]
        assert web.info["connections"]["opened"] <= 2  # type: ignore[index]
    finally:
        await web.close()
