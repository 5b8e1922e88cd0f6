"""The ``gemini:`` scheme's typed options (cheap: imported for every ``omniurl get --help``).

TLS trust is the command line's own (``-k/--insecure``, ``--cacert``, ``--cert``/``--key``:
``Options.verify_tls``, ``ca_file``, ``client_cert``/``client_key``); what only Gemini has is
where the certificates met on first use are remembered.
"""

from __future__ import annotations

from omniurl.schemes.records import record

from ..spec import flag


@record(frozen=True)
class GeminiOptions:
    """What a ``gemini:`` URL cannot say."""

    #: The known-hosts file of trust on first use (None: ``$XDG_DATA_HOME/omniurl/
    #: gemini_known_hosts``, ``~/.local/share`` when unset).
    known_hosts: str | None = flag(
        "--gemini-known-hosts",
        default=None,
        metavar="FILE",
        help="gemini: remember the certificates first met (trust on first use) in FILE "
        "(default: $XDG_DATA_HOME/omniurl/gemini_known_hosts)",
    )
    #: Accept the certificate the server presents now, replacing the pin on file for its
    #: ``host:port`` (a change the person expects: a renewed self-signed certificate).
    repin: bool = flag(
        "--gemini-repin",
        "--repin",
        default=False,
        action="store_true",
        help="gemini: trust the certificate the server presents now, replacing the pin on "
        "file for its host:port (after a change you expect; the old and new fingerprints are "
        "printed); without it a changed certificate is refused",
    )


__all__ = ["GeminiOptions"]
