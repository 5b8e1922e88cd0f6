"""``--compressed``: gzip/deflate bodies decoded as they stream, and a decompression bomb
refused at the limit — never expanded in memory or on disk past it."""

from __future__ import annotations

import asyncio
import gzip
import tracemalloc
import zlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from _ftphttp import run_cli

import omniurl
from omniurl import resolvers, testservers
from omniurl.resolvers.errors import ContentDecodingError, LimitExceeded
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
        with pytest.raises(resolvers.errors.ProtocolError) as info:
            await resolvers.resolve(f"http://127.0.0.1:{srv.port}/br", Options(compressed=True))
        assert info.value.component == "content-encoding"
    finally:
        await srv.close()


def _layers(codings: list[str], data: bytes) -> bytes:
    """``data`` coded by each of ``codings`` in turn (the first applied first)."""
    for coding in codings:
        data = gzip.compress(data) if coding == "gzip" else zlib.compress(data)
    return data


#: Content-Encoding values a server may send under --compressed, and what each saves: the
#: content (stacked codings undone last applied first, RFC 9110 §8.4; "identity" is no
#: coding, §8.4.1), as curl saves them.
STACKED = {
    "/identity": ("identity", TEXT, TEXT),
    "/gzip-gzip": ("gzip, gzip", _layers(["gzip", "gzip"], TEXT), TEXT),
    "/deflate-gzip": ("deflate, gzip", _layers(["deflate", "gzip"], TEXT), TEXT),
    "/identity-gzip": ("identity, gzip", gzip.compress(TEXT), TEXT),
    "/gzip-x5": ("gzip, " * 4 + "gzip", _layers(["gzip"] * 5, TEXT), TEXT),
}


@pytest.mark.parametrize("path", sorted(STACKED))
async def test_stacked_codings_and_identity_are_the_content(path: str, tmp_path: Path) -> None:
    """Before, any Content-Encoding but one gzip or deflate was refused (exit 6, "did not ask
    for"), "identity" and "gzip, gzip" included, where curl saves the content: through the
    API and ``get -o`` alike."""
    header, body, content = STACKED[path]
    routes = {path: (200, [("Content-Encoding", header)], body)}
    srv = await testservers.start("http", tmp_path, routes=routes)
    try:
        url = f"http://127.0.0.1:{srv.port}{path}"
        async with await resolvers.resolve(url, Options(compressed=True)) as res:
            assert await res.read() == content
        out = tmp_path / "out.bin"
        status, _out, err = await run_cli("get", "--compressed", "-o", str(out), url)
        assert (status, err) == (0, b"")
        assert out.read_bytes() == content
    finally:
        await srv.close()


async def test_a_head_of_any_coding_is_its_fields(tmp_path: Path) -> None:
    """``-I --compressed`` of a resource in a coding omniurl does not decode: a HEAD reply
    has no content (RFC 9110 §9.3.2), so its fields are shown, exit 0, as curl's — before,
    "the server sent the content coding br, which omniurl did not ask for", exit 6."""
    srv = await testservers.start("http", tmp_path, routes=routes())
    try:
        url = f"http://127.0.0.1:{srv.port}/br"
        status, out, err = await run_cli("get", "-I", "--compressed", url)
        assert (status, err) == (0, b"")
        assert out.startswith(b"HTTP/1.1 200 OK\r\n") and out.endswith(b"\r\n\r\n"), out
        assert b"\r\nContent-Encoding: br\r\n" in out, out
        async with await resolvers.resolve(url, Options(compressed=True, head=True)) as res:
            assert res.status == 200
            assert await res.read() == b""
    finally:
        await srv.close()


async def test_more_than_five_layers_are_refused(tmp_path: Path) -> None:
    """Six stacked codings: refused before a decoder is made (curl's bound of 5), exit 6."""
    routes = {
        "/six": (200, [("Content-Encoding", "gzip, " * 5 + "gzip")], _layers(["gzip"] * 6, TEXT))
    }
    srv = await testservers.start("http", tmp_path, routes=routes)
    try:
        url = f"http://127.0.0.1:{srv.port}/six"
        with pytest.raises(resolvers.errors.ProtocolError) as info:
            await resolvers.resolve(url, Options(compressed=True))
        assert "at most 5 layers" in info.value.message
        assert info.value.component == "content-encoding"  # (the field to blame: was None)
        out = tmp_path / "out.bin"
        status, _out, err = await run_cli("get", "--compressed", "-o", str(out), url)
        assert status == 6
        assert b"the content coding gzip, gzip, gzip, gzip, gzip, gzip" in err
        assert not out.exists()
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


# -- checked to the end (issue 30 item 4) ------------------------------------------------------

#: 1,200 bytes of text as one gzip member; the cuts and corruptions below are of it.
SMALL = b"the quick brown fox\n" * 60
MEMBER = gzip.compress(SMALL, mtime=0)
ZLIB = zlib.compress(SMALL)


def _flip(data: bytes, at: int) -> bytes:
    return data[:at] + bytes([data[at] ^ 0x01]) + data[at + 1 :]


def _raw_deflate(data: bytes) -> bytes:
    packer = zlib.compressobj(wbits=-15)
    return packer.compress(data) + packer.flush()


#: name: (coding, body, the words the error must say)
BROKEN = {
    "cut": ("gzip", MEMBER[: len(MEMBER) // 2], "is cut"),
    "no-trailer": ("gzip", MEMBER[:-8], "without its CRC-32 and ISIZE trailer"),
    "bad-crc": ("gzip", _flip(MEMBER, len(MEMBER) - 8), "checksum"),
    "bad-isize": ("gzip", _flip(MEMBER, len(MEMBER) - 4), "ISIZE"),
    "garbage": ("gzip", MEMBER + b"<html>junk", "after the end of its gzip member 1"),
    "half-magic": ("gzip", MEMBER + b"\x1f", "inside the header of gzip member 2"),
    "zlib-cut": ("deflate", zlib.compress(SMALL)[:-4], "without its Adler-32 trailer"),
    "zlib-bad-adler": ("deflate", _flip(ZLIB, len(ZLIB) - 1), "checksum"),
    "zlib-trailing": ("deflate", zlib.compress(SMALL) + b"x", "after the end of its stream"),
    "raw-cut": ("deflate", _raw_deflate(SMALL)[:-3], "is cut"),
    "raw-trailing": ("deflate", _raw_deflate(SMALL) + b"zz", "after the end of its stream"),
}  # fmt: skip

#: name: (body, what gzip.decompress makes of it)
WHOLE = {
    "two-members": MEMBER + gzip.compress(b"second member\n"),
    "padded": MEMBER + b"\0\0\0" + gzip.compress(b"after NULs\n") + b"\0",
    "empty": b"",
}


def checked_routes() -> dict[str, tuple[int, list[tuple[str, str]], bytes]]:
    made = {
        f"/{name}": (200, [("Content-Encoding", c)], body) for name, (c, body, _) in BROKEN.items()
    }
    made |= {f"/{name}": (200, [("Content-Encoding", "gzip")], b) for name, b in WHOLE.items()}
    return made


@pytest.mark.parametrize("name", sorted(BROKEN))
async def test_a_broken_coding_is_an_error_and_leaves_no_file(name: str, tmp_path: Path) -> None:
    """Issue 30: a cut stream, a missing or wrong trailer, bytes after the end — a typed
    error naming what is wrong, exit 6, no output file; through the API the same error."""
    _coding, _body, words = BROKEN[name]
    srv = await testservers.start("http", tmp_path, routes=checked_routes())
    try:
        url = f"http://127.0.0.1:{srv.port}/{name}"
        with pytest.raises(ContentDecodingError) as info:
            async with await resolvers.resolve(url, Options(compressed=True)) as res:
                await res.read()
        assert words in info.value.message
        assert info.value.component == "content"
        with pytest.raises(ContentDecodingError):  # (the synchronous facade, off the loop)
            await asyncio.to_thread(omniurl.get, url, Options(compressed=True))
        async with omniurl.AsyncClient(Options(compressed=True)) as client:
            with pytest.raises(ContentDecodingError):
                await client.get(url)
        out = tmp_path / "out.txt"
        status, _out, err = await run_cli("get", "--compressed", "-o", str(out), url)
        assert status == 6, err
        assert words.encode() in err
        assert not out.exists()
        assert not list(tmp_path.glob(".out.txt*"))
    finally:
        await srv.close()


async def test_a_cut_stream_under_resume_keeps_its_part(tmp_path: Path) -> None:
    """-C: a transfer that fails keeps its .part (as any other failure does), never the
    file under its own name."""
    srv = await testservers.start("http", tmp_path, routes=checked_routes())
    try:
        out = tmp_path / "out.txt"
        url = f"http://127.0.0.1:{srv.port}/cut"
        status, _out, err = await run_cli("get", "--compressed", "-C", "-", "-o", str(out), url)
        assert status == 6, err
        assert b"is cut" in err
        assert not out.exists()
        assert [p.name for p in tmp_path.glob(".out.txt*.part")] == [".out.txt.part"]
    finally:
        await srv.close()


@pytest.mark.parametrize("name", sorted(WHOLE))
async def test_gzip_members_are_concatenated_as_gzip_decompress_does(
    name: str, tmp_path: Path
) -> None:
    body = WHOLE[name]
    expected = gzip.decompress(body)
    srv = await testservers.start("http", tmp_path, routes=checked_routes())
    try:
        url = f"http://127.0.0.1:{srv.port}/{name}"
        async with await resolvers.resolve(url, Options(compressed=True, chunk_size=1024)) as res:
            assert await res.read() == expected
        async with omniurl.AsyncClient(Options(compressed=True)) as client:
            assert await client.get(url) == expected
        out = tmp_path / "out.txt"
        status, _out, err = await run_cli("get", "--compressed", "-o", str(out), url)
        assert status == 0, err
        assert out.read_bytes() == expected
    finally:
        await srv.close()


async def test_a_body_fed_a_byte_at_a_time_decodes_the_same() -> None:
    """The checks hold wherever the chunks are cut (a member's magic split over two reads,
    output held back by zlib at the chunk bound)."""
    from omniurl.resolvers.http.decoding import decoded

    async def bytewise(data: bytes) -> AsyncIterator[bytes]:
        for i in range(len(data)):
            yield data[i : i + 1]

    for body in WHOLE.values():
        got = [p async for p in decoded(bytewise(body), "gzip", limit=1 << 30, chunk_size=7)]
        assert b"".join(got) == gzip.decompress(body)
        assert all(len(p) <= 7 for p in got)
    for _name, (coding, body, words) in BROKEN.items():
        with pytest.raises(ContentDecodingError) as info:
            async for _ in decoded(bytewise(body), coding, limit=1 << 30, chunk_size=7):
                pass
        assert words in info.value.message


async def test_a_batch_writes_the_whole_members_and_no_cut_file(tmp_path: Path) -> None:
    """``-Z``: the cut URL fails (exit 6, named), leaves no file; the two-member one is
    written whole beside it."""
    srv = await testservers.start("http", tmp_path, routes=checked_routes())
    try:
        out = tmp_path / "out"
        out.mkdir()
        base = f"http://127.0.0.1:{srv.port}"
        status, _out, err = await run_cli(
            "get", "-Z", "--compressed", "--output-dir", str(out),
            f"{base}/cut", f"{base}/two-members",
        )  # fmt: skip
        assert status == 6, err
        assert f"{base}/cut: the gzip body is cut".encode() in err
        assert sorted(p.name for p in out.iterdir()) == ["two-members"]
        assert (out / "two-members").read_bytes() == gzip.decompress(WHOLE["two-members"])
    finally:
        await srv.close()
