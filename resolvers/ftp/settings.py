"""The ftp: and ftps: options (cheap to import: the command line reads their flags)."""

from __future__ import annotations

from enum import StrEnum

from omniurl.schemes.records import record

from ..spec import flag


class TLSMode(StrEnum):
    """TLS on an FTP session (RFC 4217)."""

    #: ftps:, port 990: TLS from the first byte.
    IMPLICIT = "implicit"
    #: ``AUTH TLS`` on ftp: (``--ftp-ssl``), before the login.
    EXPLICIT = "explicit"


class ListingFormat(StrEnum):
    """How a directory listing reads."""

    #: Names only (``NLST``: ``;type=d``, RFC 1738 §3.2.2).
    NLST = "nlst"
    #: Facts wanted: MLSD where FEAT lists MLST, else LIST (decided on the wire).
    FACTS = "facts"
    #: RFC 3659 machine listing.
    MLSD = "mlsd"
    #: LIST's ``ls -l``-like lines.
    LIST = "list"


@record(frozen=True)
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
    #: ``-I`` asks ``SIZE`` (after ``TYPE I``) as well as ``MDTM``; a caller that wants only
    #: the time (a mirror, after the transfer that counted the bytes) leaves the two out.
    head_size: bool = True
    #: A file's transfer also asks ``MDTM name`` (RFC 3659 §3), before its ``EPSV``: the
    #: resource carries the file's exact time (``Resource.modified``) — one conversation,
    #: not a second ``-I`` one after it.  A mirror sets it for a file whose listing (LIST)
    #: gave only a rough time (vsftpd has no MLSD; lftp mirror asks MDTM of each too).
    mdtm: bool = False


__all__ = ["FTPOptions", "ListingFormat", "TLSMode"]
