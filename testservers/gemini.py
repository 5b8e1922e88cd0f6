"""A Gemini server for the tests and the demo: a root folder over TLS, recording every byte.

Paths (the Gemini specification's status codes, each one reachable):

* a file -> ``20 <MIME type>`` and its octets (``.gmi`` is ``text/gemini``); a folder -> its
  ``index.gmi``, or a generated gemtext list of what it holds; a folder named without its
  final "/" -> ``31 /path/`` (as molly-brown does: its relative links resolve under it);
* ``/input`` -> ``10 What is your name?``; with a query, a greeting naming the decoded answer;
* ``/secret`` -> ``11 Password``; with a query, how many characters came (never the words);
* ``/redirect`` -> ``30 /``; ``/moved`` -> ``31 /``; ``/loop/N`` ->
  ``30 /loop/N+1``; ``/elsewhere`` -> ``30 http://127.0.0.1/`` (another scheme);
* ``/private/`` -> ``60 A certificate is needed`` without a client certificate, otherwise the
  SHA-256 of the one presented;
* ``/slow-down`` -> ``44 5``; ``/gone`` -> ``52 Gone``; anything missing -> ``51 Not found``;
  a request longer than 1024 bytes -> ``59 Request too long``.

The certificates are throw-away ones made with ``cryptography`` (:func:`make_certificates`):
a CA, a server certificate it signs for 127.0.0.1/localhost (``--cacert ca.pem`` makes a
client trust it without a pin), and a client certificate with its key for ``/private/``.
``info["received"]`` holds each connection's request octets, exactly as received.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import ipaddress
import mimetypes
import shutil
import ssl
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from .base import ConnectionTasks, RunningServer, register

#: A request is at most 1024 bytes and its CR LF.
MAX_REQUEST = 1024 + 2


@dataclass(frozen=True)
class Certificates:
    """The PEM files of one throw-away set: ``ca`` (trust it with ``--cacert``), the
    server's ``server_cert``/``server_key``, and a ``client_cert``/``client_key`` that
    ``/private/`` accepts."""

    folder: Path
    ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path


def make_certificates(
    folder: Path, names: tuple[str, ...] = ("127.0.0.1", "localhost")
) -> Certificates:
    """A CA, a server certificate for ``names`` and a client certificate, all written as PEM
    into ``folder`` (1 day of validity: a test's, a demo's)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    folder.mkdir(parents=True, exist_ok=True)
    now = datetime.now(UTC) - timedelta(minutes=5)
    later = now + timedelta(days=1)

    def name(cn: str) -> x509.Name:
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])

    def pem_key(key: ec.EllipticCurvePrivateKey) -> bytes:
        return key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_cert = (
        x509.CertificateBuilder()
        .subject_name(name("omniurl throw-away Gemini CA"))
        .issuer_name(name("omniurl throw-away Gemini CA"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now)
        .not_valid_after(later)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(
            x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False
        )
        .sign(ca_key, hashes.SHA256())
    )

    def issue(cn: str, *, server: bool) -> tuple[bytes, bytes]:
        key = ec.generate_private_key(ec.SECP256R1())
        builder = (
            x509.CertificateBuilder()
            .subject_name(name(cn))
            .issuer_name(ca_cert.subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now)
            .not_valid_after(later)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(
                x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()),
                critical=False,
            )
            .add_extension(
                x509.ExtendedKeyUsage(
                    [ExtendedKeyUsageOID.SERVER_AUTH if server else ExtendedKeyUsageOID.CLIENT_AUTH]
                ),
                critical=False,
            )
        )
        if server:
            alt: list[x509.GeneralName] = []
            for n in names:
                try:
                    alt.append(x509.IPAddress(ipaddress.ip_address(n)))
                except ValueError:
                    alt.append(x509.DNSName(n))
            builder = builder.add_extension(x509.SubjectAlternativeName(alt), critical=False)
        cert = builder.sign(ca_key, hashes.SHA256())
        return cert.public_bytes(serialization.Encoding.PEM), pem_key(key)

    server_pem, server_key = issue(names[0], server=True)
    client_pem, client_key = issue("omniurl gemini client", server=False)
    out = Certificates(
        folder,
        folder / "ca.pem",
        folder / "server.pem",
        folder / "server.key",
        folder / "client.pem",
        folder / "client.key",
    )
    out.ca.write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))
    out.server_cert.write_bytes(server_pem)
    out.server_key.write_bytes(server_key)
    out.client_cert.write_bytes(client_pem)
    out.client_key.write_bytes(client_key)
    return out


def server_context(certs: Certificates) -> ssl.SSLContext:
    """TLS 1.2+, the server certificate, and a client certificate asked for (optional)
    and checked against the throw-away CA."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(certs.server_cert, certs.server_key)
    context.load_verify_locations(cafile=str(certs.ca))
    context.verify_mode = ssl.CERT_OPTIONAL
    return context


@dataclass
class GeminiServer:
    """The handler: serves ``root`` and keeps what each connection sent (``received``)."""

    root: Path
    received: list[bytes] = field(default_factory=list)

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            data = b""
            with contextlib.suppress(TimeoutError, ConnectionError, ssl.SSLError):
                async with asyncio.timeout(10):
                    while b"\r\n" not in data and len(data) <= MAX_REQUEST:
                        chunk = await reader.read(MAX_REQUEST + 1 - len(data))
                        if not chunk:
                            break
                        data += chunk
            self.received.append(data)
            if not data:
                return
            if b"\r\n" not in data or data.index(b"\r\n") > 1024:
                writer.write(b"59 Request too long or without CR LF\r\n")
            else:
                request = data[: data.index(b"\r\n")].decode("utf-8", "replace")
                ssl_object = writer.get_extra_info("ssl_object")
                cert = None if ssl_object is None else ssl_object.getpeercert(binary_form=True)
                writer.write(self.respond(request, cert))
            with contextlib.suppress(TimeoutError, ConnectionError, ssl.SSLError):
                async with asyncio.timeout(5):
                    await writer.drain()
        finally:
            # (no wait for the client's close_notify: the response is complete once sent)
            writer.close()

    def respond(self, request: str, cert: bytes | None) -> bytes:
        """The whole response to one request line (pure but for reading files)."""
        parts = urlsplit(request)
        if parts.scheme != "gemini":
            return b"53 Only gemini: requests are served here\r\n"
        path, query = parts.path or "/", parts.query
        if path == "/input":
            if not query:
                return b"10 What is your name?\r\n"
            return _page(f"# Hello\n\nHello, {unquote(query)}!\n")
        if path == "/secret":
            if not query:
                return b"11 Password\r\n"
            return b"20 text/plain\r\n" + f"{len(unquote(query))} characters\n".encode()
        if path == "/redirect":
            return b"30 /\r\n"
        if path == "/moved":
            return b"31 /\r\n"
        if path.startswith("/loop/"):
            n = path.removeprefix("/loop/")
            return f"30 /loop/{int(n) + 1 if n.isdigit() else 1}\r\n".encode()
        if path == "/elsewhere":
            return b"30 http://127.0.0.1/\r\n"
        if path == "/slow-down":
            return b"44 5\r\n"
        if path == "/gone":
            return b"52 Gone\r\n"
        if path.startswith("/private/"):
            if not cert:
                return b"60 A certificate is needed\r\n"
            return _page(f"# Private\n\nYour certificate: {hashlib.sha256(cert).hexdigest()}\n")
        return self.file(unquote(path), path)

    def file(self, path: str, written: str | None = None) -> bytes:
        """``path`` (decoded) under the root; ``written``: the request's path as sent."""
        root = self.root.resolve()
        target = (root / path.lstrip("/")).resolve()
        if target != root and root not in target.parents:
            return b"51 Not found\r\n"
        if target.is_dir() and not path.endswith("/"):
            # RFC 3986 §5.2: "x.txt" in /sub's page would be /x.txt; under /sub/ it is
            # /sub/x.txt.  A permanent redirect, as molly-brown answers.
            return f"31 {written or quote(path)}/\r\n".encode()
        if target.is_dir():
            index = target / "index.gmi"
            if index.is_file():
                return b"20 text/gemini\r\n" + index.read_bytes()
            lines = [f"# {path}", ""]
            for child in sorted(target.iterdir()):
                slash = "/" if child.is_dir() else ""
                lines.append(f"=> {quote(child.name)}{slash} {child.name}{slash}")
            return _page("\n".join(lines) + "\n")
        if not target.is_file():
            return b"51 Not found\r\n"
        if target.suffix == ".gmi":
            media = "text/gemini"
        else:
            media = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        return f"20 {media}\r\n".encode() + target.read_bytes()


def _page(text: str) -> bytes:
    return b"20 text/gemini; charset=utf-8\r\n" + text.encode("utf-8")


@register(
    "gemini",
    "serve a directory over Gemini (TLS, throw-away certificates; input, redirect and "
    "client-certificate paths)",
)
async def start(
    root: Path,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    certificates: Certificates | None = None,
    **kw: Any,
) -> RunningServer:
    """Start the server; ``info`` holds ``server`` (the :class:`GeminiServer`: what it
    received), ``received`` and ``certificates`` (made in a temporary folder, removed on
    close, unless given)."""
    made: Path | None = None
    if certificates is None:
        made = Path(tempfile.mkdtemp(prefix="omniurl-gemini-"))
        certificates = make_certificates(made)
    handler = GeminiServer(Path(root))
    connections = ConnectionTasks()
    server = await asyncio.start_server(
        connections.track(handler.handle), host, port, ssl=server_context(certificates)
    )
    bound = server.sockets[0].getsockname()[1]

    async def close() -> None:
        await connections.close(server)
        if made is not None:
            shutil.rmtree(made, ignore_errors=True)

    return RunningServer(
        "gemini",
        host,
        bound,
        close,
        info={
            "server": handler,
            "received": handler.received,
            "certificates": certificates,
            "note": f"a client certificate for /private/: --cert {certificates.client_cert} "
            f"--key {certificates.client_key}; the server's CA (instead of a pin): --cacert "
            f"{certificates.ca}",
        },
    )


__all__ = ["Certificates", "GeminiServer", "make_certificates", "server_context", "start"]
