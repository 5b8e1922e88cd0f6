"""An SMTP server for the demo and the tests: aiosmtpd capturing every message to a folder.

Each accepted message is written as ``ROOT/mail/NNNN.eml`` (the DATA octets exactly as
received, dot-unstuffed) with ``NNNN.json`` beside it (the envelope: ``mail_from``,
``rcpt_to``), and appended to ``info["messages"]`` for tests.  Recipients at the domain
``refused.invalid`` get ``550`` (to test refusals); AUTH accepts ``demo``/``demo`` (PLAIN and
LOGIN, also without TLS: it is a loopback test server); ``starttls=True`` offers STARTTLS
(``tls=True``: TLS from the first byte) with a throw-away self-signed certificate.
"""

from __future__ import annotations

import asyncio
import datetime
import json
import logging
import ssl
import tempfile
from pathlib import Path
from typing import Any

from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword

from .base import RunningServer, close_quietly, register

REFUSED_DOMAIN = "refused.invalid"
USERS = {"demo": "demo"}


class CaptureHandler:
    """aiosmtpd handler: refuse recipients at :data:`REFUSED_DOMAIN`, capture the rest."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.messages: list[dict[str, Any]] = []

    async def handle_RCPT(
        self, server: Any, session: Any, envelope: Any, address: str, rcpt_options: Any
    ) -> str:
        if address.lower().endswith("@" + REFUSED_DOMAIN):
            return f"550 5.1.1 <{address}>: recipient refused (test server)"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        number = len(self.messages) + 1
        data: bytes = envelope.original_content or envelope.content
        record = {"mail_from": envelope.mail_from, "rcpt_to": list(envelope.rcpt_tos)}
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / f"{number:04d}.eml").write_bytes(data)
        (self.folder / f"{number:04d}.json").write_text(json.dumps(record) + "\n")
        self.messages.append({**record, "data": data})
        return f"250 2.0.0 OK: queued as {number:04d}"


class _LoginDataNotice(logging.Filter):
    """aiosmtpd 1.4 logs "Session.login_data is deprecated" at WARNING on every successful
    AUTH, from its own code (smtp.py sets the legacy attribute).  Drop only that line."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "login_data is deprecated" not in record.getMessage()


def _authenticate(server: Any, session: Any, envelope: Any, mechanism: str, auth: Any) -> Any:
    ok = (
        isinstance(auth, LoginPassword)
        and USERS.get(auth.login.decode("utf-8", "replace")) == auth.password.decode()
    )
    return AuthResult(success=ok, handled=False)


def self_signed_context(host: str) -> ssl.SSLContext:
    """A server TLS context with a fresh self-signed certificate for ``host``."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, host)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .sign(key, hashes.SHA256())
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    with tempfile.TemporaryDirectory() as tmp:
        cert_path, key_path = Path(tmp) / "cert.pem", Path(tmp) / "key.pem"
        cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        key_path.write_bytes(
            key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
        )
        context.load_cert_chain(cert_path, key_path)
    return context


@register("smtp", "aiosmtpd capturing messages to ROOT/mail/ (AUTH demo/demo)")
async def start(
    root: Path,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    starttls: bool = False,
    tls: bool = False,
    folder: Path | None = None,
    **_: Any,
) -> RunningServer:
    """Start the SMTP server on ``host:port`` (0: a free port); ``starttls`` offers STARTTLS,
    ``tls`` speaks TLS from the first byte (RFC 8314), both with a self-signed certificate."""
    logging.getLogger("mail.log").addFilter(_LoginDataNotice())
    handler = CaptureHandler(Path(folder) if folder else Path(root) / "mail")
    context = self_signed_context(host) if (starttls or tls) else None
    loop = asyncio.get_running_loop()
    server = await loop.create_server(
        lambda: SMTP(
            handler,
            hostname="omniurl.test",
            ident="omniurl test SMTP (aiosmtpd)",
            tls_context=context if starttls else None,
            auth_require_tls=False,
            authenticator=_authenticate,
            timeout=60,
            loop=loop,
        ),
        host,
        port,
        ssl=context if tls else None,
    )
    bound = server.sockets[0].getsockname()

    async def close() -> None:
        await close_quietly(server, 5)

    return RunningServer(
        name="smtp",
        host=str(bound[0]),
        port=int(bound[1]),
        close_fn=close,
        info={"folder": handler.folder, "messages": handler.messages},
    )
