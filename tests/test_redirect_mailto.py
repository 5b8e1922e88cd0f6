"""An HTTP redirect to ``mailto:`` is a typed policy refusal (issue 14, "Smaller").

Before, httpx's own redirect handling raised "invalid URL"; and under the default policy
(scheme changes allowed) nothing but that accident stood between a redirect and sent mail.
"""

from __future__ import annotations

import asyncio

import pytest

from omniurl import schemes
from omniurl.resolvers import Options, resolve
from omniurl.resolvers.errors import RedirectRefused
from omniurl.resolvers.policy import DEFAULT


async def _redirecting(location: bytes) -> tuple[asyncio.Server, int, list[bytes]]:
    seen: list[bytes] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen.append(await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10))
        writer.write(
            b"HTTP/1.1 302 Found\r\nLocation: " + location + b"\r\nContent-Length: 0\r\n\r\n"
        )
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1], seen


async def test_http_redirect_to_mailto_is_refused() -> None:
    server, port, seen = await _redirecting(b"mailto:victim@example.org?body=hi")
    async with server:
        with pytest.raises(RedirectRefused) as info:
            await asyncio.wait_for(resolve(f"http://127.0.0.1:{port}/x", Options()), 20)
    assert str(info.value) == (
        "HTTP 302 redirect from http: to mailto: is never followed: a mailto: URL sends mail, "
        "which a server's redirect must not make us do (refused after sending: the request "
        f"for http://127.0.0.1:{port}/x)"
    )
    assert info.value.component == "location"
    assert len(seen) == 1


def test_policy_refuses_mailto_redirect_targets_even_when_scheme_changes_are_allowed() -> None:
    assert DEFAULT.redirect_scheme_change
    with pytest.raises(RedirectRefused):
        DEFAULT.check_redirect(schemes.parse("http://h/"), schemes.parse("mailto:a@b.example"))
