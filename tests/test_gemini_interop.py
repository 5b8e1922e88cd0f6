"""gemini: against Debian's molly-brown — content, input (through a CGI script: molly-brown
asks for input only from CGI), temporary and permanent redirects, not found, and a
client-certificate area (CertificateZones), each checked byte for byte against what the
server holds.  Skips with the reason when molly-brown is not installed.

molly-brown has no port 0 (a free port is picked first) and listens on every interface of
that port; only 127.0.0.1 is ever connected to."""

from __future__ import annotations

import hashlib
import ssl
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from _ftphttp import MOLLY, molly_brown

from omniurl.resolvers import Options, fetch, resolve
from omniurl.resolvers.errors import AuthError, NotFound
from omniurl.resolvers.gemini.settings import GeminiOptions
from omniurl.testservers.gemini import Certificates, make_certificates

pytestmark = pytest.mark.skipif(
    MOLLY is None, reason="Debian's molly-brown is not installed (apt-get install molly-brown)"
)

INDEX = b"# Molly Brown\n\n=> hello.txt Hello\n=> cgi-bin/ask Ask\n"
HELLO = b"hello from molly-brown\n"
PRIVATE = b"# Private\n\nOnly for a known certificate.\n"
ASK = """#!/bin/sh
# a 1x input through CGI: molly-brown gives the query in QUERY_STRING
if [ -z "$QUERY_STRING" ]; then
  printf '10 Your name?\\r\\n'
else
  printf '20 text/plain\\r\\n'
  printf 'query=%s\\n' "$QUERY_STRING"
fi
"""


@dataclass
class Molly:
    port: int
    root: Path
    certs: Certificates
    access_log: Path

    def url(self, path: str) -> str:
        return f"gemini://127.0.0.1:{self.port}{path}"


@pytest.fixture
async def molly(tmp_path: Path) -> AsyncIterator[Molly]:
    assert MOLLY is not None
    docs = tmp_path / "docs"
    (docs / "private").mkdir(parents=True)
    (docs / "cgi-bin").mkdir()
    (docs / "index.gmi").write_bytes(INDEX)
    (docs / "hello.txt").write_bytes(HELLO)
    (docs / "private" / "page.gmi").write_bytes(PRIVATE)
    ask = docs / "cgi-bin" / "ask"
    ask.write_text(ASK)
    ask.chmod(0o755)
    certs = make_certificates(tmp_path / "certs")
    client_der = ssl.PEM_cert_to_DER_cert(certs.client_cert.read_text())
    extra = (
        f'CGIPaths = ["{docs}/cgi-bin/"]\n'
        "\n[TempRedirects]\n"
        '"/old.txt" = "/hello.txt"\n'
        "\n[PermRedirects]\n"
        '"/moved.gmi" = "/index.gmi"\n'
        "\n[CertificateZones]\n"
        f'"^/private" = ["{hashlib.sha256(client_der).hexdigest()}"]\n'
    )
    async with molly_brown(docs, tmp_path, extra, certs) as port:
        yield Molly(port, docs, certs, tmp_path / "access.log")


def options(tmp_path: Path, **kw: object) -> Options:
    return Options(**kw).with_scheme(  # type: ignore[arg-type]
        GeminiOptions(known_hosts=str(tmp_path / "known_hosts"))
    )


async def test_content_byte_for_byte(molly: Molly, tmp_path: Path) -> None:
    async with resolve(molly.url("/"), options(tmp_path)) as resource:
        assert b"".join([c async for c in resource]) == INDEX
        assert (resource.media_type or "").startswith("text/gemini")
    assert await fetch(molly.url("/hello.txt"), options(tmp_path)) == HELLO
    pinned = (tmp_path / "known_hosts").read_text()
    der = ssl.PEM_cert_to_DER_cert(molly.certs.server_cert.read_text())
    assert pinned.startswith(f"127.0.0.1:{molly.port} SHA256:{hashlib.sha256(der).hexdigest()} ")


async def test_input_through_cgi(molly: Molly, tmp_path: Path) -> None:
    asked: list[tuple[str, bool]] = []

    async def ask(prompt: str, secret: bool = False) -> str:
        asked.append((prompt, secret))
        return "Ada L"

    data = await fetch(molly.url("/cgi-bin/ask"), options(tmp_path, ask=ask))
    assert asked == [("Your name?: ", False)]
    assert data == b"query=Ada%20L\n"


async def test_redirects_temporary_and_permanent(molly: Molly, tmp_path: Path) -> None:
    async with resolve(molly.url("/old.txt"), options(tmp_path)) as resource:
        assert b"".join([c async for c in resource]) == HELLO
        assert resource.chain == [molly.url("/old.txt")]
    async with resolve(molly.url("/moved.gmi"), options(tmp_path)) as resource:
        assert b"".join([c async for c in resource]) == INDEX
        assert str(resource.url) == molly.url("/index.gmi")
    log = molly.access_log.read_text()
    assert f"\t30\t{molly.url('/old.txt')}" in log and f"\t31\t{molly.url('/moved.gmi')}" in log


async def test_not_found(molly: Molly, tmp_path: Path) -> None:
    with pytest.raises(NotFound) as info:
        await fetch(molly.url("/no/such.gmi"), options(tmp_path))
    assert info.value.code == 51


async def test_a_certificate_zone(molly: Molly, tmp_path: Path) -> None:
    with pytest.raises(AuthError, match="wants a client certificate"):
        await fetch(molly.url("/private/page.gmi"), options(tmp_path))
    data = await fetch(
        molly.url("/private/page.gmi"),
        options(
            tmp_path,
            client_cert=str(molly.certs.client_cert),
            client_key=str(molly.certs.client_key),
        ),
    )
    assert data == PRIVATE
    # another certificate than the zone's: 61, not authorised
    other = make_certificates(tmp_path / "other")
    with pytest.raises(AuthError, match="not authorised"):
        await fetch(
            molly.url("/private/page.gmi"),
            options(tmp_path, client_cert=str(other.client_cert), client_key=str(other.client_key)),
        )
