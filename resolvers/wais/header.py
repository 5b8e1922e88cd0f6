"""The 25-byte WAIS message header that precedes every APDU on the wire.

From the reference library's ``wais-message.h`` (header version "2", November 1990), printable
ASCII so that it survives any transport::

    msg_len[10]    decimal length of the APDU that follows, zero-padded ("0000000023")
    msg_type       'z' (a Z39.50 APDU); 'a' / 'n' (ACK / NACK) are never sent by servers we know
    hdr_vers       '2'
    server[10]     name of the server, space-padded (informational)
    compression    ' ' none ('u' = UNIX compress: we refuse it)
    encoding       ' ' none ('h' hex, 'u' uuencode: refused)
    msg_checksum   the reference library always writes '0' ("XXX the result must be ascii")

The length is what bounds every read: we read exactly ``msg_len`` bytes after the header, and
refuse a header announcing more than our maximum before reading any of it.
"""

from __future__ import annotations

from omniurl.schemes.records import record

from .compressed import DecodeError

HEADER_LENGTH = 25
Z3950 = ord("z")
HEADER_VERSION = ord("2")
NO_COMPRESSION = ord(" ")
NO_ENCODING = ord(" ")
#: The 10-digit length field can announce at most this many bytes.
MAX_LENGTH = 9_999_999_999


@record(frozen=True)
class MessageHeader:
    """One parsed header; ``length`` is the size of the APDU that follows."""

    length: int
    msg_type: int = Z3950
    version: int = HEADER_VERSION
    server: bytes = b"wais"
    compression: int = NO_COMPRESSION
    encoding: int = NO_ENCODING
    checksum: int = ord("0")

    def encode(self) -> bytes:
        if not 0 <= self.length <= MAX_LENGTH:
            raise ValueError(f"a WAIS message cannot be {self.length} bytes long")
        return (
            b"%010d" % self.length
            + bytes([self.msg_type, self.version])
            + self.server[:10].ljust(10, b" ")
            + bytes([self.compression, self.encoding, self.checksum])
        )


def encode_header(length: int, *, server: bytes = b"wais") -> bytes:
    """The header for an APDU of ``length`` bytes, as the reference client writes it."""
    return MessageHeader(length, server=server).encode()


def frame(apdu: bytes, *, server: bytes = b"wais") -> bytes:
    """Header + APDU: one complete message."""
    return encode_header(len(apdu), server=server) + apdu


def parse_header(data: bytes) -> MessageHeader:
    """Parse exactly 25 header bytes; refuse what we cannot read (compressed, encoded)."""
    if len(data) != HEADER_LENGTH:
        raise DecodeError(f"a WAIS header is {HEADER_LENGTH} bytes, not {len(data)}")
    digits = data[:10]
    if not digits.isdigit():
        raise DecodeError(f"WAIS header length field is not 10 decimal digits: {digits!r}")
    # The reference library reads the header case-insensitively (char_downcase).
    msg_type = data[10] | 0x20 if 0x41 <= data[10] <= 0x5A else data[10]
    if msg_type != Z3950:
        raise DecodeError(f"WAIS message type {chr(data[10])!r}, expected 'z' (a Z39.50 APDU)")
    if data[22] != NO_COMPRESSION:
        raise DecodeError(f"WAIS message compression {chr(data[22])!r} is not supported")
    if data[23] != NO_ENCODING:
        raise DecodeError(f"WAIS message encoding {chr(data[23])!r} is not supported")
    return MessageHeader(
        length=int(digits),
        msg_type=msg_type,
        version=data[11],
        server=data[12:22].rstrip(b" \x00"),
        compression=data[22],
        encoding=data[23],
        checksum=data[24],
    )
