"""``omniurl serve gateway``: pages, the proxy's absolute form, refusals with zero bytes
upstream, escaping, headers — through httpx's ASGI transport against omniurl's servers, and
through a real uvicorn with lynx and curl as proxy clients (skipped where absent)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio

pytest.importorskip("starlette", reason="the [gateway] extra is not installed")
pytest.importorskip("uvicorn", reason="the [gateway] extra is not installed")
pytest.importorskip("jinja2", reason="the [gateway] extra is not installed")

from _gateway import curl, lynx_dump, running_gateway

from omniurl import testservers
from omniurl.gateway import GatewayConfig, create_app
from omniurl.gateway.render import CSP
from omniurl.testservers.recording import recording_of, start_recording

HOSTILE_MENU = (
    b"0<script>alert('menu')</script>\t/x\t127.0.0.1\t70\r\n"
    b"i<img src=x onerror=alert(1)>\t\terror.host\t1\r\n"
    b".\r\n"
)


@pytest_asyncio.fixture
async def gopher(tmp_path: Path) -> AsyncIterator[testservers.RunningServer]:
    (tmp_path / "pub").mkdir()
    (tmp_path / "pub" / "hello.txt").write_text("Hello <b>gateway</b>\n")
    (tmp_path / "pub" / "data.bin").write_bytes(bytes(range(256)) * 16)
    (tmp_path / "gophermap").write_text("iWelcome\t\terror.host\t1\n1Pub\tpub\t127.0.0.1\t{port}\n")
    server = await testservers.start("gopher", tmp_path)
    (tmp_path / "gophermap").write_text(
        f"iWelcome\t\terror.host\t1\n1Pub\t/pub\t127.0.0.1\t{server.port}\n"
        f"7Search the texts\t/search\t127.0.0.1\t{server.port}\n"
    )
    yield server
    await server.close()


def client_for(*ports: int, **kw: Any) -> httpx.AsyncClient:
    config = GatewayConfig(allow_hosts=frozenset({"127.0.0.1"}), allow_ports=frozenset(ports), **kw)
    transport = httpx.ASGITransport(app=create_app(config))
    return httpx.AsyncClient(transport=transport, base_url="http://gateway.test")


async def test_index_has_a_url_box_and_security_headers() -> None:
    async with client_for() as client:
        reply = await client.get("/")
    assert reply.status_code == 200
    assert 'action="/_/go"' in reply.text and 'name="url"' in reply.text
    assert reply.headers["content-security-policy"] == CSP
    assert "script-src" not in CSP and "default-src 'none'" in CSP
    assert reply.headers["x-content-type-options"] == "nosniff"


async def test_a_menu_renders_with_gateway_links_and_markers(
    gopher: testservers.RunningServer,
) -> None:
    port = gopher.port
    async with client_for(port) as client:
        reply = await client.get(f"/gopher://127.0.0.1:{port}/1/")
        sub = await client.get(f"/gopher://127.0.0.1:{port}/1/pub")
    assert reply.status_code == 200
    assert f'href="/gopher://127.0.0.1:{port}/1/pub"' in reply.text
    assert "[DIR]" in reply.text and "Welcome" in reply.text
    # a search item is a form, answered through /_/search
    assert 'action="/_/search"' in reply.text
    assert f'value="gopher://127.0.0.1:{port}/7/search"' in reply.text
    assert f'href="/gopher://127.0.0.1:{port}/0/pub/hello.txt"' in sub.text


async def test_text_is_escaped_in_pre(gopher: testservers.RunningServer) -> None:
    async with client_for(gopher.port) as client:
        reply = await client.get(f"/gopher://127.0.0.1:{gopher.port}/0/pub/hello.txt")
    assert "<pre>Hello &lt;b&gt;gateway&lt;/b&gt;" in reply.text


async def test_a_binary_is_a_download_with_a_safe_name(gopher: testservers.RunningServer) -> None:
    async with client_for(gopher.port) as client:
        reply = await client.get(f"/gopher://127.0.0.1:{gopher.port}/9/pub/data.bin")
    assert reply.content == bytes(range(256)) * 16
    assert reply.headers["content-disposition"].startswith('attachment; filename="data.bin"')
    assert reply.headers["content-type"] == "application/octet-stream"


async def test_a_search_form_answer_becomes_the_gopher_search() -> None:
    async with client_for() as client:
        reply = await client.get(
            "/_/search", params={"url": "gopher://h.example/7/s", "q": "two words"}
        )
    assert reply.status_code == 303
    assert reply.headers["location"] == "/gopher://h.example/7/s%09two%20words"


async def test_a_hostile_menu_renders_as_text() -> None:
    server = await start_recording(respond=lambda line: HOSTILE_MENU)
    try:
        async with client_for(server.port) as client:
            reply = await client.get(f"/gopher://127.0.0.1:{server.port}/1/")
        assert reply.status_code == 200
        assert "<script>" not in reply.text and "&lt;script&gt;" in reply.text
        assert "<img" not in reply.text and "&lt;img src=x onerror=alert(1)&gt;" in reply.text
    finally:
        await server.close()


async def test_control_characters_in_a_menu_are_shown_escaped() -> None:
    """ESC, BEL and a C1 CSI from an info line and a display string reach the page as the
    terminal shows them (``\\x1b``), never as the raw octets a browser would hide."""
    menu = (
        "i\x1b]0;owned\x07 title\t\terror.host\t1\r\n"
        "0bell\x07 and \x9b31m csi\t/x\t127.0.0.1\t70\r\n"
        ".\r\n"
    ).encode()
    server = await start_recording(respond=lambda line: menu)
    try:
        async with client_for(server.port) as client:
            reply = await client.get(f"/gopher://127.0.0.1:{server.port}/1/")
        assert reply.status_code == 200
        assert "\\x1b]0;owned\\x07 title" in reply.text
        assert "bell\\x07 and \\x9b31m csi" in reply.text
        assert not any(ch in reply.text for ch in "\x1b\x07\x9b")
    finally:
        await server.close()


@pytest.mark.parametrize(
    ("path", "rule"),
    [
        ("/gopher://127.0.0.1:{port}/0a%0D%0AQUIT", "SchemeSyntaxError"),
        ("/gopher://127.0.0.1:{port}/0a%09b%0D%0Ac", "SchemeSyntaxError"),
        ("/gopher://127.0.0.1:{port}/0a%00b", "DelimiterRefused"),
        ("/gopher://127.0.0.1:{port}/0a%09b%09c%0D%0A", "DelimiterRefused"),
        ("/ftp://127.0.0.1:{port}/a%0D%0ADELE%20x", "DelimiterRefused"),
        ("/nntp://127.0.0.1:{port}/a%0D%0APOST/1", "DelimiterRefused"),
        ("/gopher://127.0.0.1:6379/1/", "PortRefused"),
        ("/gopher://127.0.0.2:{port}/1/", "AddressRefused"),
        ("/gopher://[::1]:{port}/1/", "AddressRefused"),
        ("/gopher://0x7f.1:{port}/1/", "AddressRefused"),
        ("/http://169.254.169.254/latest/meta-data/", "AddressRefused"),
        ("/file:///etc/passwd", "SchemeRefused"),
        ("/gopher://127.0.0.1:{port}/1/%zz", "EncodingError"),
    ],
)
async def test_every_refusal_is_a_403_naming_the_rule_and_nothing_is_sent(
    path: str, rule: str
) -> None:
    server = await start_recording()
    try:
        async with client_for(server.port) as client:
            reply = await client.get(path.format(port=server.port))
        assert reply.status_code == 403, reply.text
        assert f"<code>{rule}</code>" in reply.text
        await asyncio.sleep(0.05)
        assert recording_of(server).received == b""  # zero bytes reached the listener
    finally:
        await server.close()


async def test_strict_by_default_loopback_needs_allow_host(
    gopher: testservers.RunningServer,
) -> None:
    transport = httpx.ASGITransport(
        app=create_app(GatewayConfig(allow_ports=frozenset({gopher.port})))
    )
    async with httpx.AsyncClient(transport=transport, base_url="http://g") as client:
        reply = await client.get(f"/gopher://127.0.0.1:{gopher.port}/1/")
    assert reply.status_code == 403 and "AddressRefused" in reply.text


async def test_absolute_form_and_connect(gopher: testservers.RunningServer) -> None:
    """A proxy request (absolute form) gets the page, its links the items' own URLs; a
    CONNECT is refused."""
    app = create_app(
        GatewayConfig(allow_hosts=frozenset({"127.0.0.1"}), allow_ports=frozenset({gopher.port}))
    )
    url = f"gopher://127.0.0.1:{gopher.port}/1/pub"
    sent: list[dict[str, Any]] = []

    async def call(method: str, target: str) -> tuple[int, bytes]:
        scope = {
            "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
            "scheme": "http", "path": target, "raw_path": target.encode(), "query_string": b"",
            "root_path": "", "headers": [(b"host", b"127.0.0.1")], "client": ("127.0.0.1", 5),
            "server": ("127.0.0.1", 8080),
        }  # fmt: skip
        sent.clear()

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        await app(scope, receive, send)
        status = next(m["status"] for m in sent if m["type"] == "http.response.start")
        return status, b"".join(
            m.get("body", b"") for m in sent if m["type"] == "http.response.body"
        )

    status, body = await call("GET", url)
    assert status == 200
    assert f'href="gopher://127.0.0.1:{gopher.port}/0/pub/hello.txt"'.encode() in body
    assert b'action="http://127.0.0.1:8080/_/go"' in body
    status, body = await call("CONNECT", "127.0.0.1:443")
    assert status == 405 and b"CONNECT is refused" in body


async def test_telnet_is_a_page_that_says_how_to_connect() -> None:
    async with client_for() as client:
        reply = await client.get("/telnet://bbs.example.org/")
    assert reply.status_code == 200 and "telnet bbs.example.org 23" in reply.text


async def test_mailto_is_a_compose_form_and_nothing_is_sent_without_smtp() -> None:
    async with client_for() as client:
        page = await client.get("/mailto:joe@example.org?subject=Hi%20there")
        post = await client.post("/_/send", data={"url": "mailto:joe@example.org", "body": "x"})
    assert page.status_code == 200 and "joe@example.org" in page.text and "Hi there" in page.text
    assert "started without --smtp" in page.text
    assert post.status_code == 403


async def test_a_per_client_limit_answers_429() -> None:
    gate = asyncio.Event()

    async def slow(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readline()
        await gate.wait()
        writer.write(b"ok\r\n.\r\n")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(slow, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        async with client_for(port, max_per_client=2) as client:
            url = f"/gopher://127.0.0.1:{port}/0/x"
            first = [asyncio.create_task(client.get(url)) for _ in range(2)]
            await asyncio.sleep(0.3)
            third = await client.get(url)
            gate.set()
            replies = await asyncio.gather(*first)
        assert third.status_code == 429
        assert [r.status_code for r in replies] == [200, 200]
    finally:
        server.close()


# -- a real server, real proxy clients --------------------------------------------------


@pytest_asyncio.fixture
async def gateway(gopher: testservers.RunningServer) -> AsyncIterator[str]:
    async with running_gateway(gopher.port) as netloc:
        yield netloc


async def test_lynx_through_the_gateway_as_gopher_proxy(
    gateway: str, gopher: testservers.RunningServer
) -> None:
    url = f"gopher://127.0.0.1:{gopher.port}/1/pub"
    text = await lynx_dump(url, {"gopher_proxy": f"http://{gateway}/"})
    assert "[TEXT]" in text and "hello.txt" in text
    assert f"gopher://127.0.0.1:{gopher.port}/0/pub/hello.txt" in text  # the item's own URL


async def test_curl_through_the_gateway_as_proxy(
    gateway: str, gopher: testservers.RunningServer
) -> None:
    _status, out = await curl(f"http://{gateway}/gopher://127.0.0.1:{gopher.port}/0/pub/hello.txt")
    assert b"Hello &lt;b&gt;gateway&lt;/b&gt;" in out
    # curl -x sends an ftp: URL in absolute form (a gopher: one it would tunnel: refused)
    args = ("-o", "/dev/null", "-w", "%{http_code}", "-x", f"http://{gateway}")
    _status, out = await curl(*args, "ftp://127.0.0.1:6379/x")
    assert out == b"403"


async def test_a_redirect_chain_is_shown_with_gateway_links(tmp_path: Path) -> None:
    (tmp_path / "hello.txt").write_text("Moved here\n")
    routes = {"/old": (301, [("Location", "/hello.txt")], b"")}
    server = await testservers.start("http", tmp_path, routes=routes)
    try:
        async with client_for(server.port) as client:
            reply = await client.get(f"/http://127.0.0.1:{server.port}/old")
    finally:
        await server.close()
    assert reply.status_code == 200, reply.text
    assert "Moved here" in reply.text
    start = f"http://127.0.0.1:{server.port}/old"
    end = f"http://127.0.0.1:{server.port}/hello.txt"
    assert (
        f'Reached through: <a href="/{start}">{start}</a> → <a href="/{end}">{end}</a>'
        in reply.text
    )


async def test_gopher_plus_form_and_views_as_html_forms(tmp_path: Path) -> None:
    """Issue 13: a +ASK item is an HTML form (a text box with its default, a select, a
    checkbox, the Note as text); its POSTed answers go to the server as §3.4.9's data block;
    a Gopher+ item's [views] link shows its +VIEWS as a form, whose choice asks for that view."""
    (tmp_path / "doc.txt").write_text("English text\n")
    (tmp_path / "doc.txt.De_DE").write_text("Deutscher Text\n")
    server = await testservers.start("gopher", tmp_path)
    base = f"gopher://127.0.0.1:{server.port}"
    try:
        async with client_for(server.port) as client:
            page = await client.get(f"/{base}/0/form%09%09%3F")
            assert page.status_code == 200, page.text
            html = page.text
            assert '<form class="ask" method="post" action="/_/ask">' in html
            assert '<p class="note">A small Gopher+ form.</p>' in html
            assert '<input type="text" name="f0" value="anonymous" size="40">' in html
            assert '<select name="f1"><option selected>gopher</option><option>ftp</option>' in html
            # a check box: its hidden "0" is what an unchecked box leaves in the form
            box = '<input type="hidden" name="f2" value="0"><input type="checkbox" name="f2"'
            assert box + ' value="1"' in html
            sent = await client.post(
                "/_/ask",
                data={"url": f"{base}/0/form%09%09%3F", "f0": "Ada", "f1": "ftp", "f2": ["0", "1"]},
            )
            assert sent.status_code == 200, sent.text
            assert "Thank you. Your answers:" in sent.text
            assert server.info["server"].requests[-3:] == [b"Ada", b"ftp", b"1"]
            unchecked = {"url": f"{base}/0/form%09%09%3F", "f0": "Bob", "f1": "gopher", "f2": "0"}
            assert (await client.post("/_/ask", data=unchecked)).status_code == 200
            assert server.info["server"].requests[-3:] == [b"Bob", b"gopher", b"0"]

            menu = (await client.get(f"/{base}/1/%09%09%2B")).text
            views_link = f'<a class="views" href="/{base}/0/doc.txt%09%09!">[views]</a>'
            assert views_link in menu
            attrs = await client.get(f"/{base}/0/doc.txt%09%09!")
            assert '<form class="views" method="get" action="/_/view">' in attrs.text
            assert '<option value="text/plain De_DE">' in attrs.text
            chosen = await client.get(
                "/_/view", params={"url": f"{base}/0/doc.txt", "view": "text/plain De_DE"}
            )
            assert chosen.status_code == 303
            assert chosen.headers["location"] == f"/{base}/0/doc.txt%09%09+text/plain%20De_DE"
            shown = await client.get(chosen.headers["location"])
            assert "Deutscher Text" in shown.text
    finally:
        await server.close()


async def test_a_wais_database_is_a_search_form_and_hits_show_their_scores(tmp_path: Path) -> None:
    """Issue 13: a WAIS database URL (no words yet) is a search form; the answer becomes
    ``?words`` (RFC 1738 §3.9); the hits are gateway links with their scores; a hit opens."""
    (tmp_path / "pub").mkdir()
    (tmp_path / "pub" / "tea.txt").write_text("tea time for <omniurl> readers\n")
    (tmp_path / "pub" / "other.txt").write_text("nothing to see\n")
    async with await testservers.start("wais", tmp_path) as server:
        base = f"wais://127.0.0.1:{server.port}/pub"
        async with client_for(server.port) as client:
            form = await client.get(f"/{base}")
            assert '<form class="search" method="get" action="/_/search">' in form.text
            assert f'<input type="hidden" name="url" value="{base}">' in form.text
            answer = await client.get("/_/search", params={"url": base, "q": "tea time"})
            assert answer.status_code == 303
            assert answer.headers["location"] == f"/{base}?tea+time"
            hits = (await client.get(answer.headers["location"])).text
            found = re.search(rf'<a href="(/{base}/TEXT/[^"]+)">tea.txt</a>', hits)
            assert found is not None, hits
            hit = found.group(1)
            assert '<span class="detail">score 1000; size 31;' in hits
            assert "other.txt" not in hits
            doc = await client.get(hit)
            assert "<pre>tea time for &lt;omniurl&gt; readers" in doc.text


async def test_prospero_access_methods_are_gateway_links(tmp_path: Path) -> None:
    """Under the strict policy a Prospero object's access methods (another scheme each, RFC
    1738 §3.11) are listed as gateway links, never followed on their own; the reader's click
    on the FTP method is checked anew and opens."""
    (tmp_path / "pub").mkdir()
    (tmp_path / "pub" / "hello.txt").write_text("hello via prospero\n")
    async with (
        await testservers.start("ftp", tmp_path) as ftp,
        await testservers.start("prospero", tmp_path, ftp=(ftp.host, ftp.port)) as pros,
    ):
        start = f"prospero://127.0.0.1:{pros.port}//pub/hello.txt"
        method = f"ftp://127.0.0.1:{ftp.port}/pub/hello.txt;type=a"
        async with client_for(pros.port, ftp.port) as client:
            page = await client.get(f"/{start}")
            assert page.status_code == 200, page.text
            assert f'href="/{method}"' in page.text
            # the LOCAL method (a file: URL, refused outright) is shown, not linked
            assert "LOCAL INTERNET-D" in page.text and 'href="/file:' not in page.text
            text = await client.get(f"/{method}")
            assert "<pre>hello via prospero\n</pre>" in text.text.replace("\r\n", "\n")


@pytest.mark.parametrize(
    ("name", "media", "disposition"),
    [
        ("logo.png", "image/png", "inline"),
        ("logo.gif", "image/gif", "inline"),
        ("logo.svg", "image/svg+xml", "attachment"),  # a document that can carry script
        ("logo.dat", "application/octet-stream", "attachment"),
    ],
)
async def test_an_image_is_shown_inline(
    tmp_path: Path, name: str, media: str, disposition: str
) -> None:
    """Gopher's ``I`` item names no format: the name says it; raster images are inline."""
    data = b"\x89PNG\r\n\x1a\n" + bytes(64)
    (tmp_path / name).write_bytes(data)
    server = await testservers.start("gopher", tmp_path)
    try:
        async with client_for(server.port) as client:
            reply = await client.get(f"/gopher://127.0.0.1:{server.port}/I/{name}")
    finally:
        await server.close()
    assert reply.content == data
    assert reply.headers["content-type"] == media
    assert reply.headers["content-disposition"].startswith(f'{disposition}; filename="{name}"')


async def test_lynx_through_the_gateway_as_wais_proxy(tmp_path: Path) -> None:
    """lynx's wais_proxy sends ``GET wais://…?words`` in absolute form: the hits come back
    with each document's own wais: URL; a database URL is a search form."""
    (tmp_path / "pub").mkdir()
    (tmp_path / "pub" / "tea.txt").write_text("tea time for readers\n")
    async with await testservers.start("wais", tmp_path) as server:
        base = f"wais://127.0.0.1:{server.port}/pub"
        async with running_gateway(server.port) as gateway:
            proxies = {"wais_proxy": f"http://{gateway}/"}
            hits = await lynx_dump(f"{base}?tea", proxies)
            form = await lynx_dump(base, proxies)
    assert "[DOC]" in hits and "tea.txt score 1000; size 21" in hits
    assert f"{base}/TEXT/" in hits
    assert "is a searchable WAIS database" in form and "(BUTTON) Search" in form


async def test_allow_host_by_name_lets_the_ftp_data_connection_through(tmp_path: Path) -> None:
    """--allow-host localhost: the control connection to localhost's address is allowed by
    the name, and so is the data connection to the same address (it was checked as the
    bare literal, refused: 403 "nothing was sent" after USER, PASS, TYPE and EPSV)."""
    (tmp_path / "pub").mkdir()
    (tmp_path / "pub" / "hello.txt").write_text("hello by name\n")
    async with await testservers.start("ftp", tmp_path) as ftp:
        config = GatewayConfig(
            allow_hosts=frozenset({"localhost"}), allow_ports=frozenset({ftp.port})
        )
        transport = httpx.ASGITransport(app=create_app(config))
        async with httpx.AsyncClient(transport=transport, base_url="http://gw.test") as client:
            page = await client.get(f"/ftp://localhost:{ftp.port}/pub/hello.txt;type=a")
            # the bare address is still refused: --allow-host names a host, not its address
            bare = await client.get(f"/ftp://127.0.0.1:{ftp.port}/pub/hello.txt;type=a")
    assert page.status_code == 200, page.text
    assert "hello by name" in page.text
    assert bare.status_code == 403 and "nothing was sent" in bare.text


async def test_a_refusal_after_the_session_began_says_what_was_sent() -> None:
    """An FTP server (allowed by address) naming Redis's port for data: 403, and the page
    lists what the gateway had sent — never "nothing was sent"."""

    def respond(line: bytes) -> bytes | None:
        answers = {
            b"USER": b"230 ok\r\n",
            b"TYPE": b"200 ok\r\n",
            b"EPSV": b"229 Entering Extended Passive Mode (|||6379|)\r\n",
            b"QUIT": b"221 bye\r\n",
        }
        return answers.get(line.split(b" ", 1)[0])

    server = await start_recording(greeting=b"220 scripted\r\n", respond=respond)
    try:
        async with client_for(server.port) as client:
            page = await client.get(f"/ftp://127.0.0.1:{server.port}/f.bin")
    finally:
        await server.close()
    assert page.status_code == 403
    assert "nothing was sent" not in page.text
    assert "refused after sending: USER anonymous, TYPE I, EPSV" in page.text


async def test_a_request_waits_for_a_slot_at_most_queue_timeout() -> None:
    """``max_concurrent`` pages at once; the next waits ``queue_timeout`` for a slot, then
    is told the gateway is busy (429) — it never reaches the server."""
    held = asyncio.Event()
    arrived: list[bytes] = []

    async def stall(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        arrived.append(await reader.readline())
        held.set()
        await asyncio.sleep(1.5)
        writer.write(b"late\r\n.\r\n")
        writer.close()

    server = await asyncio.start_server(stall, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        async with client_for(port, max_concurrent=1, queue_timeout=0.2) as client:
            first = asyncio.create_task(client.get(f"/gopher://127.0.0.1:{port}/0/a"))
            await asyncio.wait_for(held.wait(), 5)
            second = await asyncio.wait_for(client.get(f"/gopher://127.0.0.1:{port}/0/b"), 5)
            assert second.status_code == 429
            assert (await asyncio.wait_for(first, 10)).status_code == 200
        assert arrived == [b"/a\r\n"]  # the selector after the type: "/a"
    finally:
        server.close()
        await server.wait_closed()


async def _trickle_server(arrived: list[bytes], gate: asyncio.Event) -> tuple[asyncio.Server, int]:
    """A Gopher server that sends 1 KiB of a binary, then holds the rest until ``gate``."""

    async def trickle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        arrived.append(await reader.readline())
        try:
            writer.write(b"x" * 1024)
            await writer.drain()
            await gate.wait()
            writer.write(b"y" * 1024)
            await writer.drain()
        except OSError:
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(trickle, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


async def test_a_streaming_download_holds_its_slot_until_its_body_ends() -> None:
    """``max_concurrent`` counts a download while its body streams (the upstream connection
    is open all along); before, the slot was given back once the headers were ready, so a
    slow download was not counted and the next request reached the server at once."""
    arrived: list[bytes] = []
    gate = asyncio.Event()
    server, port = await _trickle_server(arrived, gate)
    try:
        async with client_for(port, max_concurrent=1, queue_timeout=0.3) as client:
            first = asyncio.create_task(client.get(f"/gopher://127.0.0.1:{port}/9/a"))
            for _ in range(50):
                if arrived:
                    break
                await asyncio.sleep(0.1)
            await asyncio.sleep(0.3)  # the headers are out, the body is streaming
            second = await asyncio.wait_for(client.get(f"/gopher://127.0.0.1:{port}/9/b"), 5)
            assert second.status_code == 429
            gate.set()
            reply = await asyncio.wait_for(first, 10)
            assert reply.status_code == 200 and reply.content == b"x" * 1024 + b"y" * 1024
            # the slot is back once the body ended
            third = await asyncio.wait_for(client.get(f"/gopher://127.0.0.1:{port}/9/c"), 10)
            assert third.status_code == 200
        assert arrived == [b"/a\r\n", b"/c\r\n"]
    finally:
        gate.set()
        server.close()
        await server.wait_closed()


async def test_head_of_a_download_does_not_read_its_body() -> None:
    """A HEAD answers with the download's headers and closes the upstream transfer; before,
    the gateway read the whole body upstream (and waited for a slow one) to send none."""
    arrived: list[bytes] = []
    gate = asyncio.Event()  # never set: the body never ends
    server, port = await _trickle_server(arrived, gate)
    try:
        async with client_for(port) as client:
            reply = await asyncio.wait_for(client.head(f"/gopher://127.0.0.1:{port}/9/file.bin"), 5)
            assert reply.status_code == 200
            assert reply.content == b""
            assert reply.headers["content-type"] == "application/octet-stream"
            assert 'filename="file.bin"' in reply.headers["content-disposition"]
        assert arrived == [b"/file.bin\r\n"]
    finally:
        gate.set()
        server.close()
        await server.wait_closed()


async def test_a_client_gone_mid_download_frees_its_slot_and_the_upstream() -> None:
    """A client that goes away mid-body (the server's ``send`` raises, ASGI 2.4) ends the
    upstream transfer and gives the slot back: the next request is served, not told 429."""
    arrived: list[bytes] = []
    gate = asyncio.Event()
    server, port = await _trickle_server(arrived, gate)
    config = GatewayConfig(
        allow_hosts=frozenset({"127.0.0.1"}),
        allow_ports=frozenset({port}),
        max_concurrent=1,
        queue_timeout=0.3,
    )
    app = create_app(config)
    path = f"/gopher://127.0.0.1:{port}/9/a"
    scope = {
        "type": "http", "asgi": {"version": "3.0", "spec_version": "2.4"},
        "http_version": "1.1", "method": "GET", "scheme": "http", "path": path,
        "raw_path": path.encode(), "query_string": b"", "root_path": "",
        "headers": [(b"host", b"gateway.test")], "client": ("127.0.0.1", 5555),
        "server": ("gateway.test", 80),
    }  # fmt: skip
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        await asyncio.sleep(30)
        return {"type": "http.disconnect"}

    async def send(message: Any) -> None:
        sent.append(message)
        if message["type"] == "http.response.body":
            raise OSError("the client went away")

    try:
        from starlette.requests import ClientDisconnect

        with pytest.raises(ClientDisconnect):
            await asyncio.wait_for(app(scope, receive, send), 5)
        assert sent[0]["status"] == 200
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://gateway.test"
        ) as client:
            gate.set()
            again = await asyncio.wait_for(client.get(f"/gopher://127.0.0.1:{port}/9/b"), 5)
        assert again.status_code == 200
        assert arrived == [b"/a\r\n", b"/b\r\n"]
    finally:
        gate.set()
        server.close()
        await server.wait_closed()
