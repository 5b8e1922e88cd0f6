"""resolvers.tls: trust anchors (--cacert, $SSL_CERT_FILE), client certificates, the floor."""

from __future__ import annotations

import asyncio
import ssl
from pathlib import Path

import pytest

from omniurl.resolvers.errors import ConfigurationError
from omniurl.resolvers.options import Options
from omniurl.resolvers.tls import ssl_context, trust_anchors

trustme = pytest.importorskip("trustme", reason="trustme (test extra) is not installed")


@pytest.fixture
def ca(tmp_path: Path) -> tuple[object, Path]:
    authority = trustme.CA()
    path = tmp_path / "ca.pem"
    authority.cert_pem.write_to_path(str(path))
    return authority, path


def test_anchors_options_win_over_environment() -> None:
    env = {"SSL_CERT_FILE": "/env/ca.pem", "SSL_CERT_DIR": "/env/certs"}
    assert trust_anchors(Options(), env) == ("/env/ca.pem", "/env/certs")
    assert trust_anchors(Options(ca_file="/o/ca.pem"), env) == ("/o/ca.pem", None)
    assert trust_anchors(Options(ca_path="/o/d"), env) == (None, "/o/d")
    assert trust_anchors(Options(), {}) == (None, None)


def test_floor_and_insecure() -> None:
    assert ssl_context(Options(), {}).minimum_version == ssl.TLSVersion.TLSv1_2
    ctx = ssl_context(Options(tls_min_version="1.3"), {})
    assert ctx.minimum_version == ssl.TLSVersion.TLSv1_3
    assert ctx.check_hostname and ctx.verify_mode == ssl.CERT_REQUIRED
    loose = ssl_context(Options(verify_tls=False), {})
    assert not loose.check_hostname and loose.verify_mode == ssl.CERT_NONE


def test_errors_name_the_option(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError) as info:
        ssl_context(Options(tls_min_version="1.0"), {})
    assert info.value.component == "tls_min_version"
    with pytest.raises(ConfigurationError) as info:
        ssl_context(Options(ca_file=str(tmp_path / "missing.pem")), {})
    assert info.value.component == "ca_file"
    assert "missing.pem" in info.value.message
    with pytest.raises(ConfigurationError) as info:
        ssl_context(Options(client_key="k.pem"), {})
    assert info.value.component == "client_key"


async def _handshake(server: ssl.SSLContext, client: ssl.SSLContext) -> bytes | None:
    """Handshake with a loopback TLS server; the peer certificate the server saw (DER)."""
    seen: list[bytes | None] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        obj = writer.get_extra_info("ssl_object")
        seen.append(obj.getpeercert(binary_form=True) if obj else None)
        writer.write(b"ok")
        await writer.drain()
        writer.close()

    srv = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=server)
    port = srv.sockets[0].getsockname()[1]
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection("127.0.0.1", port, ssl=client, server_hostname="localhost"),
            10,
        )
        assert await asyncio.wait_for(reader.read(), 10) == b"ok"
        writer.close()
    finally:
        srv.close()
        await srv.wait_closed()
    return seen[0] if seen else None


async def test_cacert_trusts_server_and_environment_too(ca: tuple[object, Path]) -> None:
    authority, path = ca
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    authority.issue_cert("localhost").configure_cert(server)  # type: ignore[attr-defined]
    assert await _handshake(server, ssl_context(Options(ca_file=str(path)), {})) is None
    env = {"SSL_CERT_FILE": str(path)}
    assert await _handshake(server, ssl_context(Options(), env)) is None
    with pytest.raises(ssl.SSLCertVerificationError):
        await _handshake(server, ssl_context(Options(), {}))


async def test_client_certificate_is_presented(ca: tuple[object, Path], tmp_path: Path) -> None:
    authority, path = ca
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    authority.issue_cert("localhost").configure_cert(server)  # type: ignore[attr-defined]
    authority.configure_trust(server)  # type: ignore[attr-defined]
    server.verify_mode = ssl.CERT_REQUIRED
    client_cert = authority.issue_cert("client@example")  # type: ignore[attr-defined]
    cert_file, key_file = tmp_path / "c.pem", tmp_path / "k.pem"
    client_cert.cert_chain_pems[0].write_to_path(str(cert_file))
    client_cert.private_key_pem.write_to_path(str(key_file))
    options = Options(ca_file=str(path), client_cert=str(cert_file), client_key=str(key_file))
    seen = await _handshake(server, ssl_context(options, {}))
    assert seen == ssl.PEM_cert_to_DER_cert(client_cert.cert_chain_pems[0].bytes().decode())


async def test_https_get_trusts_cacert_and_presents_client_cert(
    ca: tuple[object, Path], tmp_path: Path
) -> None:
    from omniurl import resolvers
    from omniurl.testservers.http import start_http

    authority, path = ca
    root = tmp_path / "www"
    (root / "pub").mkdir(parents=True)
    (root / "pub" / "hello.txt").write_bytes(b"hello\n")
    server_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    authority.issue_cert("127.0.0.1").configure_cert(server_ctx)  # type: ignore[attr-defined]
    authority.configure_trust(server_ctx)  # type: ignore[attr-defined]
    server_ctx.verify_mode = ssl.CERT_REQUIRED
    client = authority.issue_cert("client@example")  # type: ignore[attr-defined]
    both = tmp_path / "client.pem"  # certificate and key in one file: --cert alone
    both.write_bytes(client.private_key_pem.bytes() + client.cert_chain_pems[0].bytes())
    server = await start_http(root, tls=server_ctx)
    url = f"https://{server.netloc}/pub/hello.txt"
    try:
        trusted = Options(ca_file=str(path), client_cert=str(both), connect_timeout=10)
        async with await resolvers.resolve(url, trusted) as resource:
            assert await resource.read() == b"hello\n"
        with pytest.raises(resolvers.errors.ConnectError):
            await resolvers.resolve(url, Options(client_cert=str(both), connect_timeout=10))
        with pytest.raises(resolvers.errors.ResolveError):
            await resolvers.resolve(url, Options(ca_file=str(path), connect_timeout=10))
        assert len(server.info["requests"]) == 1  # only the trusted, authenticated one
    finally:
        await server.close()


def test_cli_tls_options_reach_options() -> None:
    from omniurl.cli.arguments import options_from_args
    from omniurl.cli.parser import build_parser

    args = build_parser().parse_args(
        ["plan", "--cacert", "a.pem", "--capath", "d", "--cert", "c.pem", "--key", "k.pem",
         "--tlsv1.3", "https://127.0.0.1/"]
    )  # fmt: skip
    options = options_from_args(args)
    assert (options.ca_file, options.ca_path, options.client_cert, options.client_key) == (
        "a.pem", "d", "c.pem", "k.pem"
    )  # fmt: skip
    assert options.tls_min_version == "1.3"
    assert options_from_args(build_parser().parse_args(["plan", "http://h/"])).ca_file is None
