"""The ftp: and ftps: options (cheap to import: the command line reads their flags)."""

from __future__ import annotations

from dataclasses import dataclass

from ..spec import flag


@dataclass(frozen=True)
class FTPOptions:
    """What an ``ftp:`` URL cannot say."""

    #: Explicit TLS on ftp: URLs (``AUTH TLS``, RFC 4217; curl's ``--ssl-reqd``: a server
    #: that refuses it is an error, never a plain fallback).
    ssl: bool = flag(
        "--ftp-ssl",
        default=False,
        action="store_true",
        help="explicit TLS on ftp: URLs (AUTH TLS, then PBSZ 0 and PROT P: RFC 4217), "
        "required: a server that refuses it is an error, never a plain fallback (curl's "
        "--ssl-reqd); ftps: URLs are TLS from the first byte (port 990)",
    )


__all__ = ["FTPOptions"]
