"""Resolving gopher: URLs against the local server and against scripted misbehaving ones."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from helpers import read_as_writer, run_omniurl

from omniurl import testservers
from omniurl.resolvers import Options, resolve
from omniurl.resolvers.errors import (
    ConnectError,
    ConnectionClosed,
    DelimiterRefused,
    InputNeeded,
    LimitExceeded,
    NotFollowed,
    NotFound,
    ProtocolError,
    ReplyError,
    ResolveTimeout,
)
from omniurl.resolvers.gopher.gopherplus import AskField
from omniurl.resolvers.gopher.result import GopherResult
from omniurl.testservers.recording import recording_of, start_recording

TEXT = "first line\n.dot at start\n..two dots\nlast line\n"


@pytest_asyncio.fixture(scope="module")
async def gopher(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Any]:
    root: Path = tmp_path_factory.mktemp("gopher")
    from omniurl.demo import build_tree

    build_tree(root)
    (root / "pub" / "dots.txt").write_text(TEXT)
    (root / "pub" / "lone.txt").write_bytes(b"dot\n.\n..x\nend\n")
    (root / "pub" / "hello.txt.Es_ES").write_text("Hola desde el árbol.\n")
    (root / "pub" / "hello.txt.abstract").write_text("A greeting.\nIn two lines.\n")
    (root / "pub" / "big.bin").write_bytes(bytes(range(256)) * 4096)
    (root / "mapped").mkdir()
    (root / "mapped" / "gophermap").write_text(
        "Welcome to the mapped folder\n# a comment\n0The README\t/pub/README.txt\n"
        "1Elsewhere\t/\tgopher.example.org\t7070\n"
    )
    server = await testservers.start("gopher", root)
    server.info["base"] = f"gopher://127.0.0.1:{server.port}"
    yield server
    await server.close()


async def fetch(url: str, options: Options | None = None) -> Any:
    async with await resolve(url, options or Options()) as resource:
        if resource.kind == "listing":
            return resource
        resource.data = await resource.read()  # type: ignore[attr-defined]
        return resource


def requests(server: Any) -> list[bytes]:
    return server.info["server"].requests


# -- plain Gopher ---------------------------------------------------------------------------


async def test_text_with_a_lone_dot_line_round_trips(gopher: Any) -> None:
    """omniurl's server dot-stuffs and sends the "." line (RFC 1436 §3.8): the file comes
    back whole, its own "." line and "..x" included (QA: the machine now also keeps whole
    the text of servers that do not stuff, tests/test_gopher_interop.py)."""
    text = await fetch(gopher.info["base"] + "/0/pub/lone.txt")
    assert text.data.replace(b"\r\n", b"\n") == b"dot\n.\n..x\nend\n"


async def test_top_menu_is_a_listing_with_own_urls(gopher: Any) -> None:
    base = gopher.info["base"]
    resource = await fetch(base)
    assert resource.kind == "listing"
    by_name = {e.name: e for e in resource.entries}
    assert by_name["pub"].kind == "directory"
    assert by_name["pub"].url == f"{base}/1/pub"
    assert by_name["Search the text files"].kind == "search"
    assert by_name["Search the text files"].url == f"{base}/7/search"
    assert requests(gopher)[-1] == b""


async def test_sub_menu_and_following_an_entry(gopher: Any) -> None:
    base = gopher.info["base"]
    menu = await fetch(f"{base}/1/pub")
    entry = next(e for e in menu.entries if e.name == "hello.txt")
    assert (entry.kind, entry.info["type"], entry.info["selector"]) == (
        "file",
        "0",
        "/pub/hello.txt",
    )
    text = await fetch(entry.url)
    assert text.data == b"Hello from the omniurl demo tree.\r\n"
    assert text.media_type == "text/plain"


async def test_gophermap_menu_with_info_lines(gopher: Any) -> None:
    base = gopher.info["base"]
    menu = await fetch(f"{base}/1/mapped")
    assert [(e.kind, e.name, e.url) for e in menu.entries] == [
        ("info", "Welcome to the mapped folder", None),
        ("file", "The README", f"{base}/0/pub/README.txt"),
        ("directory", "Elsewhere", "gopher://gopher.example.org:7070/1/"),
    ]


async def test_text_is_dot_unstuffed(gopher: Any) -> None:
    resource = await fetch(f"{gopher.info['base']}/0/pub/dots.txt")
    assert resource.data == TEXT.replace("\n", "\r\n").encode()


async def test_binary_is_exact_and_streamed(gopher: Any) -> None:
    expected = bytes(range(256)) * 4096
    async with await resolve(f"{gopher.info['base']}/9/pub/big.bin", Options()) as resource:
        chunks = [chunk async for chunk in resource]
    assert b"".join(chunks) == expected
    assert len(chunks) > 1  # streamed in chunks, not one buffer
    assert max(len(c) for c in chunks) <= Options().chunk_size


async def test_a_consumer_that_writes_at_once_gets_views_of_one_buffer(gopher: Any) -> None:
    """The bulk path: with ``views_ok``, after the first bytes (read through the machine,
    which looks for a type-3 error line) the chunks are views of one reused buffer filled
    from the socket, each complete when handed out."""
    expected = bytes(range(256)) * 4096
    async with await resolve(f"{gopher.info['base']}/9/pub/big.bin", Options()) as resource:
        written, kinds = await read_as_writer(resource)
    assert written == expected
    assert memoryview in kinds and set(kinds[1:]) == {memoryview}


async def test_missing_selector_is_not_found(gopher: Any) -> None:
    for url in ("/0/nope.txt", "/1/nope", "/9/nope.bin"):
        with pytest.raises(NotFound) as info:
            await fetch(gopher.info["base"] + url)
        assert info.value.component == "selector"
        assert "'/nope" in info.value.message


async def test_search_with_words(gopher: Any) -> None:
    base = gopher.info["base"]
    resource = await fetch(f"{base}/7/search%09hello%20demo")
    assert [e.url for e in resource.entries] == [f"{base}/0/pub/hello.txt"]
    assert requests(gopher)[-1] == b"/search\thello demo"


async def test_search_without_words_needs_input(gopher: Any) -> None:
    before = len(requests(gopher))
    with pytest.raises(InputNeeded) as info:
        await fetch(f"{gopher.info['base']}/7/search")
    assert info.value.component == "search"
    assert len(requests(gopher)) == before  # nothing was sent


async def test_search_asks_then_follows(gopher: Any) -> None:
    prompts: list[str] = []

    async def ask(prompt: str, secret: bool = False) -> str:
        prompts.append(prompt)
        return "tree"

    base = gopher.info["base"]
    resource = await fetch(f"{base}/7/search", Options(ask=ask))
    assert prompts == [f"Search words for {base}/7/search: "]
    assert {e.name for e in resource.entries} == {"README.txt", "hello.txt"}
    assert resource.chain == [f"{base}/7/search"]
    assert requests(gopher)[-1] == b"/search\ttree"


# -- Gopher+ --------------------------------------------------------------------------------


async def test_gopher_plus_default_view_honours_the_length(gopher: Any) -> None:
    resource = await fetch(f"{gopher.info['base']}/0/pub/hello.txt%09%09+")
    assert resource.data == b"Hello from the omniurl demo tree.\n"
    assert resource.size == len(resource.data)
    assert resource.replies == [f"+{len(resource.data)}"]


async def test_gopher_plus_alternate_view(gopher: Any) -> None:
    url = f"{gopher.info['base']}/0/pub/hello.txt%09%09+text/plain%20Es_ES"
    resource = await fetch(url)
    assert resource.data == "Hola desde el árbol.\n".encode()
    assert resource.media_type == "text/plain"
    assert requests(gopher)[-1] == b"/pub/hello.txt\t+text/plain Es_ES"


async def test_gopher_plus_menu(gopher: Any) -> None:
    base = gopher.info["base"]
    resource = await fetch(f"{base}/1%09%09+")
    form = next(e for e in resource.entries if e.name == "Fill in a Gopher+ form")
    assert form.info["gopher_plus"] == "?"
    assert form.url == f"{base}/0/form%09%09?"


async def test_item_attributes(gopher: Any) -> None:
    resource = await fetch(f"{gopher.info['base']}/0/pub/hello.txt%09%09!")
    attrs = resource.result_as(GopherResult).attributes
    assert attrs["+INFO"].startswith("0hello.txt\t/pub/hello.txt\t127.0.0.1\t")
    assert attrs["+VIEWS"] == "text/plain En_US: <1k>\ntext/plain Es_ES: <1k>"
    assert attrs["+ABSTRACT"] == "A greeting.\nIn two lines."
    assert resource.data.startswith(b"+INFO: 0hello.txt\t")


async def test_selected_attributes(gopher: Any) -> None:
    resource = await fetch(f"{gopher.info['base']}/0/pub/hello.txt%09%09!+ABSTRACT")
    assert set(resource.result_as(GopherResult).attributes) == {"+INFO", "+ABSTRACT"}


async def test_directory_attributes(gopher: Any) -> None:
    resource = await fetch(f"{gopher.info['base']}/1/pub%09%09$+VIEWS")
    items = resource.result_as(GopherResult).items
    names = [i["+INFO"].split("\t")[0] for i in items]
    assert "0hello.txt" in names and "9data.bin" in names
    assert all(set(i) == {"+INFO", "+VIEWS"} for i in items)


async def test_gopher_plus_error_is_typed(gopher: Any) -> None:
    with pytest.raises(NotFound) as info:
        await fetch(f"{gopher.info['base']}/0/nope%09%09+")
    assert info.value.code == -1
    assert "'/nope' does not exist" in info.value.message


async def test_ask_form_with_a_callback(gopher: Any) -> None:
    seen: list[Sequence[AskField]] = []

    async def form(fields: Sequence[AskField], url: Any) -> list[str]:
        seen.append(fields)
        return ["Ann .Lee", "ftp", "yes"]

    base = gopher.info["base"]
    resource = await fetch(f"{base}/0/form%09%09?", Options(form=form))
    assert [f.kind for f in seen[0]] == ["Note", "Ask", "Choose", "Select"]
    assert resource.data == b"Thank you. Your answers:\r\n1: Ann .Lee\r\n2: ftp\r\n3: 1\r\n"
    # The filled-in form went out exactly as §3.4.9 codes it.
    assert requests(gopher)[-5:] == [b"/form\t!+ASK", b"/form\t+\t1", b"Ann .Lee", b"ftp", b"1"]
    assert resource.chain == [f"{base}/0/form%09%09?"]
    assert (
        str(resource.url)
        == f"{base}/0/form%09%09+%091%0D%0A+-1%0D%0AAnn%20.Lee%0D%0Aftp%0D%0A1%0D%0A.%0D%0A"
    )


async def test_ask_form_through_ask_uses_defaults(gopher: Any) -> None:
    prompts: list[str] = []

    async def ask(prompt: str, secret: bool = False) -> str:
        prompts.append(prompt)
        return ""

    resource = await fetch(f"{gopher.info['base']}/0/form%09%09?", Options(ask=ask))
    assert prompts[0] == "A small Gopher+ form.\nYour name? (anonymous): "
    assert resource.data.endswith(b"1: anonymous\r\n2: gopher\r\n3: 0\r\n")


async def test_ask_form_without_a_way_to_ask(gopher: Any) -> None:
    with pytest.raises(InputNeeded) as info:
        await fetch(f"{gopher.info['base']}/0/form%09%09?")
    assert "Your name?" in info.value.message


# -- the safety policy sends nothing ----------------------------------------------------


@contextlib.asynccontextmanager
async def listener() -> AsyncIterator[tuple[int, list[bytes]]]:
    """A loopback listener that records every connection's bytes (proves zero were sent)."""
    seen: list[bytes] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen.append(await asyncio.wait_for(reader.read(), 5))
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1], seen
    finally:
        server.close()
        await server.wait_closed()


@pytest.mark.parametrize(
    ("path", "component"),
    [
        ("/0/a%09b%09+%0D%0AQUIT", "gopher_plus"),
        ("/0/a%00", "selector"),
        ("/0/a%09%09!%0A", "gopher_plus"),
        ("/0/f%09%09+%091%0D%0A+-1%0D%0Aa%0D%0A.%0D%0AQUIT%0D%0A", "gopher_plus"),
    ],
)
async def test_refused_url_sends_zero_bytes(path: str, component: str) -> None:
    async with await start_recording() as server:
        with pytest.raises(DelimiterRefused) as info:
            await fetch(f"gopher://127.0.0.1:{server.port}{path}")
        await asyncio.sleep(0.05)
        recording = recording_of(server)
    assert info.value.component == component
    assert recording.connections == 0  # not even a connection
    assert recording.received == b""


async def test_framed_text_from_a_server_that_keeps_the_connection_open() -> None:
    """A server that sends RFC 1436's "." line and then waits for the client's close: the
    text ends on its silence (quiet_after), unstuffed, long before the read timeout (it
    waited for that timeout, then failed, from b1bf65f to this test)."""

    def answer(line: bytes) -> bytes:
        return b"a\r\n..b\r\n.\r\n"

    loop = asyncio.get_running_loop()
    async with await start_recording(respond=answer) as server:
        start = loop.time()
        text = await fetch(f"gopher://127.0.0.1:{server.port}/0/t", Options(read_timeout=20))
        took = loop.time() - start
    assert text.data == b"a\r\n.b\r\n"
    assert took < 5


async def test_the_recorder_sees_exactly_the_request() -> None:
    """The control for the zero-bytes tests: an accepted URL's request arrives byte for byte."""

    def answer(line: bytes) -> bytes:
        return b"3Not here\t\terror.host\t1\r\n.\r\n"

    async with await start_recording(respond=answer) as server:
        with pytest.raises(NotFound):
            await fetch(f"gopher://127.0.0.1:{server.port}/0/a%20b%09c%C3%A9%09!+ABSTRACT")
        recording = recording_of(server)
        await recording.wait_for(lambda r: r.received.endswith(b"\n"))
    assert recording.connections == 1
    assert bytes(recording.received) == "/a b\tcé\t!+ABSTRACT\r\n".encode()


# -- misbehaving servers ----------------------------------------------------------------


@contextlib.asynccontextmanager
async def scripted(reply: bytes, *, hang: bool = False) -> AsyncIterator[int]:
    """A server that reads one request line, writes ``reply`` and closes (or hangs)."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(reader.readline(), 5)
            writer.write(reply)
            await writer.drain()
            if hang:
                await asyncio.sleep(5)
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(server.wait_closed(), 2)


async def test_menu_closed_without_the_dot_line_is_accepted() -> None:
    async with scripted(b"0A\t/a\th\t70\r\n1B\t/b\th\t70\r\n") as port:
        resource = await fetch(f"gopher://127.0.0.1:{port}/1/")
    assert [e.name for e in resource.entries] == ["A", "B"]


async def test_text_closed_without_the_dot_line_is_accepted() -> None:
    async with scripted(b"line 1\r\nline 2\r\n") as port:
        resource = await fetch(f"gopher://127.0.0.1:{port}/0/t")
    assert resource.data == b"line 1\r\nline 2\r\n"


async def test_truncated_gopher_plus_reply() -> None:
    async with scripted(b"+100\r\nonly a few bytes") as port:
        with pytest.raises(ConnectionClosed) as info:
            await fetch(f"gopher://127.0.0.1:{port}/9/t%09%09+")
    assert "84 bytes" in info.value.message


async def test_not_a_gopher_plus_server() -> None:
    async with scripted(b"plain text, no status line\r\n") as port:
        with pytest.raises(ProtocolError) as info:
            await fetch(f"gopher://127.0.0.1:{port}/0/t%09%09+")
    assert info.value.component == "gopher_plus"


async def test_gopher_plus_busy() -> None:
    async with scripted(b"--2\r\nAdmin <a@h>\r\nToo busy.\r\n.\r\n") as port:
        with pytest.raises(ReplyError) as info:
            await fetch(f"gopher://127.0.0.1:{port}/0/t%09%09+")
    assert not isinstance(info.value, NotFound)
    assert info.value.code == -2
    assert "Too busy." in info.value.message


async def test_gopher_plus_moved_is_followed(gopher: Any) -> None:
    target = f"0Moved\t/pub/hello.txt\t127.0.0.1\t{gopher.port}\r\n".encode()
    async with scripted(b"--3\r\nAdmin <a@h>\r\n" + target + b".\r\n") as port:
        resource = await fetch(f"gopher://127.0.0.1:{port}/0/old%09%09+")
        assert resource.chain == [f"gopher://127.0.0.1:{port}/0/old%09%09+"]
        # Asked for again as Gopher+ ("/pub/hello.txt<TAB>+"): the item's data as sent.
        assert resource.data == b"Hello from the omniurl demo tree.\n"
        with pytest.raises(NotFollowed):
            await fetch(f"gopher://127.0.0.1:{port}/0/old%09%09+", Options(follow=False))


async def test_oversized_menu_line() -> None:
    async with scripted(b"0" + b"x" * 2000 + b"\t/x\th\t70\r\n.\r\n") as port:
        with pytest.raises(LimitExceeded):
            await fetch(f"gopher://127.0.0.1:{port}/1/", Options(max_line=1000))


async def test_oversized_menu() -> None:
    async with scripted(b"iline\t\th\t1\r\n" * 200) as port:
        with pytest.raises(LimitExceeded):
            await fetch(f"gopher://127.0.0.1:{port}/1/", Options(max_buffered=1000))


async def test_silent_server_times_out() -> None:
    async with scripted(b"", hang=True) as port:
        with pytest.raises(ResolveTimeout):
            await fetch(f"gopher://127.0.0.1:{port}/0/t", Options(read_timeout=0.3))


async def test_refused_connection() -> None:
    async with listener() as (port, _seen):
        pass  # closed again: nothing listens on the port now
    with pytest.raises(ConnectError) as info:
        await fetch(f"gopher://127.0.0.1:{port}/0/t")
    assert info.value.component == "host"


async def test_strict_policy_refuses_loopback_before_connecting() -> None:
    from omniurl.resolvers.errors import AddressRefused
    from omniurl.resolvers.policy import STRICT

    async with listener() as (port, seen):
        strict = Options(policy=STRICT.allowing_ports([port]))
        for host in ("127.0.0.1", "[::1]", "localhost"):
            with pytest.raises(AddressRefused) as info:
                await fetch(f"gopher://{host}:{port}/0/x", strict)
            assert info.value.component == "host"
        await asyncio.sleep(0.05)
    assert seen == []


async def test_oversized_status_line() -> None:
    async with scripted(b"+" + b"1" * 5000) as port:
        with pytest.raises(LimitExceeded):
            await fetch(f"gopher://127.0.0.1:{port}/0/t%09%09+", Options(max_line=100))


async def test_closed_before_the_status_line() -> None:
    async with scripted(b"") as port:
        with pytest.raises(ConnectionClosed) as info:
            await fetch(f"gopher://127.0.0.1:{port}/0/t%09%09!")
    assert "status line" in info.value.message


async def test_attribute_reply_is_bounded() -> None:
    async with scripted(b"+-2\r\n" + b"+INFO: 0x\tx\th\t70\r\n" * 500) as port:
        with pytest.raises(LimitExceeded):
            await fetch(f"gopher://127.0.0.1:{port}/0/t%09%09!", Options(max_buffered=2000))


async def test_demo_runs_clean() -> None:
    import io

    from omniurl.demo import run_demo

    out = io.StringIO()
    assert await run_demo(only=["gopher"], out=out) == 0
    text = " ".join(out.getvalue().split())  # (the demo wraps at 80 columns)
    assert "attributes: +INFO = " in text
    assert "Thank you. Your answers:" in text
    assert "error (DelimiterRefused)" in text


async def test_gopher_plus_length_minus_one_is_dot_terminated_text() -> None:
    async with scripted(b"+-1\r\nline\r\n..dot\r\n.\r\nNOT PART OF IT") as port:
        resource = await fetch(f"gopher://127.0.0.1:{port}/0/t%09%09+")
    assert resource.data == b"line\r\n.dot\r\n"
    assert resource.size is None


CUT = b"connection closed before the '.' line that ends Gopher+ data of length -1"


@pytest.mark.parametrize("item", ["0/t.txt", "9/t.bin", "1/dir"])
async def test_gopher_plus_length_minus_one_cut_before_its_dot_is_an_error(
    item: str, tmp_path: Path
) -> None:
    """ "+-1" promises a "." line; a close before it is a cut transfer (as "+N" short of N):
    before, the bytes that came were the content, exit 0, a file complete under its name."""
    async with scripted(b"+-1\r\nline\r\n..dot\r\n") as port:
        url = f"gopher://127.0.0.1:{port}/{item}%09%09+"
        with pytest.raises(ConnectionClosed, match=r"before the '\.' line .* length -1"):
            await fetch(url)
        status, out, err = await run_omniurl("get", "-o", str(tmp_path / "t"), url)
        assert (status, out, os.listdir(tmp_path)) == (4, b"", [])
        assert err == b"omniurl: " + CUT + b"\n"
        status, out, err = await run_omniurl("get", "--output-dir", str(tmp_path), "-O", url)
    assert (status, out, os.listdir(tmp_path)) == (4, b"", [])
    assert CUT in err


async def test_gopher_plus_length_minus_two_reads_to_the_close() -> None:
    async with scripted(b"+-2\r\n\x00\x01.\r\n\xff") as port:
        resource = await fetch(f"gopher://127.0.0.1:{port}/9/t%09%09+")
    assert resource.data == b"\x00\x01.\r\n\xff"


async def test_gopher_plus_exact_length_ignores_what_follows() -> None:
    async with scripted(b"+5\r\nhello, and more") as port:
        resource = await fetch(f"gopher://127.0.0.1:{port}/9/t%09%09+")
    assert resource.data == b"hello"
    assert resource.size == 5


async def views(url: str) -> bytes:
    async with await resolve(url, Options()) as resource:
        return (await read_as_writer(resource))[0]


async def test_gopher_plus_length_past_the_machine_stops_at_the_count() -> None:
    """The bulk path reads at most the ``+N`` octets still due, and a close before them is
    a typed error naming how many are missing."""
    data = bytes(range(256)) * 2400  # 600 KiB: more than a first read takes
    async with scripted(b"+%d\r\n" % len(data) + data + b"NOT PART OF IT") as port:
        assert await views(f"gopher://127.0.0.1:{port}/9/t%09%09+") == data
    async with scripted(b"+%d\r\n" % (len(data) + 1000) + data) as port:
        with pytest.raises(ConnectionClosed, match="1000 bytes of the Gopher"):
            await views(f"gopher://127.0.0.1:{port}/9/t%09%09+")


async def test_gopher_plus_moved_to_a_malformed_item_is_a_protocol_error() -> None:
    """A -3 "moved" whose menu line names no valid URL is the server's fault: ProtocolError
    naming the location, not a URLError blaming the host of the URL we were given."""
    moved = b"--3\r\nAdmin <a@h>\r\nhMoved\tURL:gopher://h:99999/1\th\t70\r\n.\r\n"
    async with scripted(moved) as port:
        with pytest.raises(ProtocolError) as info:
            await fetch(f"gopher://127.0.0.1:{port}/0/old%09%09+")
    assert info.value.component == "location"
    assert "gopher://h:99999/1" in info.value.message
