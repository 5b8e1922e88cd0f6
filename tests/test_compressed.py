"""``--compressed``: gzip/deflate bodies decoded as they stream, and a decompression bomb
refused at the limit — never expanded in memory or on disk past it."""

from __future__ import annotations

import gzip
import tracemalloc
import zlib
from pathlib import Path

import pytest
from _ftphttp import run_cli

from omniurl import resolvers, testservers
from omniurl.resolvers.errors import LimitExceeded
from omniurl.resolvers.options import Options

TEXT = b"the quick brown fox jumps over the lazy dog\n" * 2000
#: 48 MiB of zeros as gzip: ~47 KB on the wire (a bomb's ratio, ~1000:1).
BOMB = gzip.compress(b"\0" * (48 << 20), compresslevel=9)
#: 8 MiB of zeros: ~8 KB of gzip, past the default 1,000:1 once past its first MiB.
SMALL_BOMB = gzip.compress(b"\0" * (8 << 20), compresslevel=9)


def routes() -> dict[str, tuple[int, list[tuple[str, str]], bytes]]:
    return {
        "/gzip": (200, [("Content-Encoding", "gzip")], gzip.compress(TEXT)),
        "/deflate": (200, [("Content-Encoding", "deflate")], zlib.compress(TEXT)),
        "/raw-deflate": (
            200,
            [("Content-Encoding", "deflate")],
            zlib.compressobj(wbits=-15).compress(TEXT) + zlib.compressobj(wbits=-15).flush(),
        ),
        "/bomb": (200, [("Content-Encoding", "gzip")], BOMB),
        "/small-bomb": (200, [("Content-Encoding", "gzip")], SMALL_BOMB),
        "/small-zeros": (200, [("Content-Encoding", "gzip")], gzip.compress(b"\0" * 900_000)),
        "/br": (200, [("Content-Encoding", "br")], b"\x00\x01"),
    }


def test_the_plan_asks_for_gzip_and_deflate() -> None:
    steps = resolvers.plan("http://h.example/", Options(compressed=True)).to_json()["steps"]
    assert "Accept-Encoding: gzip, deflate" in steps
    assert "Accept-Encoding: identity" in resolvers.plan("http://h.example/").to_json()["steps"]


@pytest.mark.parametrize("path", ["/gzip", "/deflate"])
async def test_bodies_are_decoded(path: str, tmp_path: Path) -> None:
    srv = await testservers.start("http", tmp_path, routes=routes())
    try:
        async with await resolvers.resolve(
            f"http://127.0.0.1:{srv.port}{path}", Options(compressed=True)
        ) as res:
            assert await res.read() == TEXT
    finally:
        await srv.close()


async def test_a_bomb_ends_at_the_limit_in_bounded_memory(tmp_path: Path) -> None:
    srv = await testservers.start("http", tmp_path, routes=routes())
    try:
        # The ratio bound off: this is about the absolute one (--max-filesize).
        options = Options(
            compressed=True, max_decoded=4 << 20, max_expansion=0, chunk_size=64 * 1024
        )
        tracemalloc.start()
        try:
            with pytest.raises(LimitExceeded) as info:
                async with await resolvers.resolve(
                    f"http://127.0.0.1:{srv.port}/bomb", options
                ) as res:
                    async for _chunk in res:
                        pass
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert "4194304 bytes" in info.value.message
        assert peak < 12 << 20, f"{peak / 2**20:.1f} MiB"
        status, _out, err = await run_cli(
            "get", "--compressed", "--max-filesize", "1000000", "-o", str(tmp_path / "out.bin"),
            f"http://127.0.0.1:{srv.port}/bomb",
        )  # fmt: skip
        assert status == 6, err
        assert not (tmp_path / "out.bin").exists()
        assert not list(tmp_path.glob(".out.bin*"))  # no partial file left looking complete
    finally:
        await srv.close()


async def test_a_coding_not_asked_for_is_refused(tmp_path: Path) -> None:
    srv = await testservers.start("http", tmp_path, routes=routes())
    try:
        with pytest.raises(resolvers.errors.ProtocolError):
            await resolvers.resolve(f"http://127.0.0.1:{srv.port}/br", Options(compressed=True))
    finally:
        await srv.close()


async def test_a_bomb_is_refused_by_default_past_its_first_mib(tmp_path: Path) -> None:
    """No --max-filesize given: the default ratio (1,000:1 past the first MiB) ends a body
    of zeros just past 1 MiB, the message says how to lift it, and no file is left."""
    srv = await testservers.start("http", tmp_path, routes=routes())
    try:
        got = 0
        with pytest.raises(LimitExceeded) as info:
            async with await resolvers.resolve(
                f"http://127.0.0.1:{srv.port}/bomb", Options(compressed=True)
            ) as res:
                async for chunk in res:
                    got += len(chunk)
        assert got <= (1 << 20) + Options().chunk_size
        assert "more than 1000:1" in info.value.message
        assert "--max-expansion 0" in info.value.message
        assert info.value.component == "content"
        # a small highly compressible body (under the first MiB) is not a bomb
        async with await resolvers.resolve(
            f"http://127.0.0.1:{srv.port}/small-zeros", Options(compressed=True)
        ) as res:
            assert await res.read() == b"\0" * 900_000
        out = tmp_path / "out.bin"
        url = f"http://127.0.0.1:{srv.port}/small-bomb"
        status, _out, err = await run_cli("get", "--compressed", "-o", str(out), url)
        assert status == 6, err
        assert b"--max-expansion" in err
        assert not out.exists() and not list(tmp_path.glob(".out.bin*"))
        status, _out, err = await run_cli(
            "get", "--compressed", "--max-expansion", "0", "-o", str(out), url
        )
        assert status == 0, err
        assert out.read_bytes() == b"\0" * (8 << 20)
    finally:
        await srv.close()
