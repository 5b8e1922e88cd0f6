"""The one place an ``ssl.SSLContext`` is built from ``Options``, for every scheme that speaks TLS.

RFC 8446 (TLS 1.3) and RFC 5246 (TLS 1.2) set the floor (``--tlsv1.2``/``--tlsv1.3``; RFC
8996 deprecates anything older).  Server identity is checked as RFC 6125 §6 says
(``check_hostname``); the trust anchors are, in curl's order of precedence: ``--cacert`` /
``--capath``, else ``$SSL_CERT_FILE`` / ``$SSL_CERT_DIR``, else the system's store.  A client
certificate (``--cert``/``--key``) is offered when the server asks for one (RFC 8446 §4.4.2).

Why one module: https (httpx), gophers, ftps, nntps/snews and SMTP STARTTLS all take an
``SSLContext``; building it in one place keeps them all trusting the same anchors.
"""

from __future__ import annotations

import os
import ssl
from collections.abc import Callable, Mapping

from .errors import ConfigurationError
from .options import Options

#: ``tls_min_version`` values and the ``ssl.TLSVersion`` each stands for.
TLS_VERSIONS: Mapping[str, ssl.TLSVersion] = {
    "1.2": ssl.TLSVersion.TLSv1_2,
    "1.3": ssl.TLSVersion.TLSv1_3,
}


def trust_anchors(
    options: Options, environ: Mapping[str, str] | None = None
) -> tuple[str | None, str | None]:
    """The CA file and CA directory to trust: the options', else the environment's.

    ``(None, None)`` means the system's default store.  Pure: the environment is passed in
    (``os.environ`` when omitted).
    """
    if options.ca_file is not None or options.ca_path is not None:
        return options.ca_file, options.ca_path
    env = os.environ if environ is None else environ
    return env.get("SSL_CERT_FILE") or None, env.get("SSL_CERT_DIR") or None


def ssl_context(
    options: Options,
    environ: Mapping[str, str] | None = None,
    *,
    kind: type[ssl.SSLContext] = ssl.SSLContext,
) -> ssl.SSLContext:
    """A client ``SSLContext`` for ``options``; ConfigurationError names the bad option."""
    try:
        minimum = TLS_VERSIONS[options.tls_min_version]
    except KeyError:
        raise ConfigurationError(
            f"unknown TLS version {options.tls_min_version!r} (one of: {', '.join(TLS_VERSIONS)})",
            component="tls_min_version",
        ) from None
    context = kind(ssl.PROTOCOL_TLS_CLIENT)
    context.minimum_version = minimum
    if not options.verify_tls:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    else:
        ca_file, ca_path = trust_anchors(options, environ)
        if ca_file is None and ca_path is None:
            context.load_default_certs(ssl.Purpose.SERVER_AUTH)
        else:
            _load(
                lambda: context.load_verify_locations(cafile=ca_file, capath=ca_path),
                "ca_file" if ca_file is not None else "ca_path",
                ca_file or ca_path or "",
            )
    if options.client_cert is not None:
        cert = options.client_cert
        _load(
            lambda: context.load_cert_chain(cert, keyfile=options.client_key),
            "client_cert",
            cert,
        )
    elif options.client_key is not None:
        raise ConfigurationError("--key needs --cert", component="client_key")
    return context


class ResumingContext(ssl.SSLContext):
    """A context whose next connection resumes :attr:`session` (FTP's data connections over
    TLS: RFC 4217 §10 advises it, and vsftpd's default ``require_ssl_reuse=YES`` refuses a
    data connection that does not).  asyncio builds its TLS objects with ``wrap_bio`` and has
    no parameter for a session to resume; this is where one gets in."""

    session: ssl.SSLSession | None = None

    def wrap_bio(
        self,
        incoming: ssl.MemoryBIO,
        outgoing: ssl.MemoryBIO,
        server_side: bool = False,
        server_hostname: str | bytes | None = None,
        session: ssl.SSLSession | None = None,
    ) -> ssl.SSLObject:
        return super().wrap_bio(
            incoming,
            outgoing,
            server_side=server_side,
            server_hostname=server_hostname,
            session=session if session is not None else self.session,
        )


def resuming_context(options: Options) -> ResumingContext:
    """:func:`ssl_context` as a :class:`ResumingContext` (one per FTP control connection)."""
    context = ssl_context(options, kind=ResumingContext)
    assert isinstance(context, ResumingContext)
    return context


def _load(action: Callable[[], None], component: str, path: str) -> None:
    """Run a certificate-loading call, turning its OSError/SSLError into ConfigurationError."""
    try:
        action()
    except (OSError, ssl.SSLError) as exc:
        raise ConfigurationError(
            f"cannot load {path!r}: {exc.strerror or exc}", component=component
        ) from None
