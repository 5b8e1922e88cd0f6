"""An FTP server for the tests and the demo (aioftp + NLST/SIZE/NOOP, records commands).

The server lives in :mod:`testservers.ftp_server`, imported on first start (aioftp is slow to
import and every ``omniurl`` command lists the servers).  Logins: ``anonymous``/``ftp`` with
any password; ``users={"name": "password"}`` adds named users.  ``info["commands"]`` lists
every command line received, exactly.
"""

from __future__ import annotations

import ssl
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .base import RunningServer, register


async def start_ftp(
    root: Path,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    users: Mapping[str, str] | None = None,
    break_retr_after: int | None = None,
    block_size: int = 256 * 1024,
    tls: ssl.SSLContext | None = None,
    max_connections: int | None = None,
) -> RunningServer:
    """Serve ``root`` over FTP; ``info["commands"]`` is the recorded command list.  With
    ``max_connections``, a client past that many at once is answered 421 (as vsftpd's
    ``max_clients``/``max_per_ip``)."""
    from .ftp_server import start_ftp as start_server

    return await start_server(
        root,
        host=host,
        port=port,
        users=users,
        break_retr_after=break_retr_after,
        block_size=block_size,
        tls=tls,
        max_connections=max_connections,
    )


@register("ftp", "serve a directory over FTP (aioftp + NLST/SIZE/NOOP; anonymous login)")
async def start(root: Path, *, host: str = "127.0.0.1", port: int = 0, **kw: Any) -> RunningServer:
    return await start_ftp(root, host=host, port=port, **kw)


__all__ = ["start_ftp"]
