"""Reading and writing whole WAIS messages on a stream, every wait and every length bounded.

Shared by the executor and the test server so that both frame messages the same way: a
message is the 25-byte header (header.py) and exactly ``msg_len`` bytes of APDU.  A header
that announces more than ``maximum`` bytes is refused before a byte of the APDU is read.
"""

from __future__ import annotations

import asyncio

from ..errors import ConnectionClosed, LimitExceeded
from ..net import with_timeout
from .header import HEADER_LENGTH, parse_header


async def read_exactly(reader: asyncio.StreamReader, n: int, timeout: float, *, what: str) -> bytes:
    """Exactly ``n`` bytes, within ``timeout`` seconds, or a typed error."""
    try:
        return await with_timeout(reader.readexactly(n), timeout, f"waiting for {what}")
    except asyncio.IncompleteReadError as exc:
        if exc.partial:
            raise ConnectionClosed(
                f"connection closed in the middle of {what} ({len(exc.partial)} of {n} bytes)"
            ) from None
        raise ConnectionClosed(f"connection closed while waiting for {what}") from None
    except (ConnectionError, OSError) as exc:
        raise ConnectionClosed(f"connection lost while waiting for {what}: {exc}") from None


async def read_message(
    reader: asyncio.StreamReader, *, timeout: float, maximum: int, what: str
) -> bytes:
    """One message's APDU: read the header, check its length, read exactly that much."""
    header = parse_header(await read_exactly(reader, HEADER_LENGTH, timeout, what=what))
    if header.length > maximum:
        raise LimitExceeded(
            f"{what}: the server announces {header.length} bytes, more than our limit of {maximum}"
        )
    return await read_exactly(reader, header.length, timeout, what=what)


async def send(writer: asyncio.StreamWriter, data: bytes, *, timeout: float, what: str) -> None:
    """Write a message and wait (bounded) until it is handed to the network."""
    try:
        writer.write(data)
        await with_timeout(writer.drain(), timeout, f"sending {what}")
    except (ConnectionError, OSError) as exc:
        raise ConnectionClosed(f"connection lost while sending {what}: {exc}") from None
