"""The integer encodings of WAIS APDUs (pure functions over bytes).

Z39.50-1988 as WAIS uses it (protspec.txt §5, Appendix B; waisprot.txt §4.0) has two:

* the *compressed integer* — tags and lengths: big-endian groups of 7 bits, every byte but the
  last with its high bit (0x80, "continue") set, so 99 is ``63`` and 150 is ``81 16``;
* the *binary integer* — fixed fields (``PDU-Type``, the 3-byte set bounds) and the value of a
  numeric element: plain big-endian bytes.  Inside a tagged element the reference library writes
  the fewest bytes that hold a non-negative value (``writeNum``), which is what we write unless
  a width is asked for (Appendix B.4 writes a Score in 4 bytes).

Decoders take ``(data, offset)`` and return ``(value, new_offset)``; they never read past the
end of ``data`` and raise :class:`DecodeError` instead.
"""

from __future__ import annotations

from omniurl.resolvers.errors import ProtocolError

#: A compressed integer longer than this is refused: no WAIS tag or length needs more than 4
#: bytes (2**28), and an endless run of continue bits must not make us loop.
MAX_COMPRESSED_BYTES = 5


class DecodeError(ProtocolError):
    """Bytes that do not follow the WAIS encoding (truncated, overlong, wrong tag)."""


def encode_compressed(value: int) -> bytes:
    """A compressed integer: 7 bits a byte, big-endian, 0x80 on every byte but the last."""
    if value < 0:
        raise ValueError(f"compressed integers are unsigned, not {value}")
    groups = [value & 0x7F]
    value >>= 7
    while value:
        groups.append((value & 0x7F) | 0x80)
        value >>= 7
    return bytes(reversed(groups))


def decode_compressed(data: bytes, offset: int) -> tuple[int, int]:
    """Read a compressed integer at ``offset``; return it and the offset after it."""
    value = 0
    for _ in range(MAX_COMPRESSED_BYTES):
        if offset >= len(data):
            raise DecodeError(f"truncated compressed integer at byte {offset}")
        byte = data[offset]
        offset += 1
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            return value, offset
    raise DecodeError(f"compressed integer longer than {MAX_COMPRESSED_BYTES} bytes")


def binary_width(value: int) -> int:
    """The bytes ``writeNum`` uses for ``value``: the fewest that hold it (negatives: 4)."""
    if value < 0:
        return 4
    return max(1, (value.bit_length() + 7) // 8)


def encode_binary(value: int, width: int | None = None) -> bytes:
    """A big-endian binary integer in ``width`` bytes (default: :func:`binary_width`)."""
    width = binary_width(value) if width is None else width
    return (value & ((1 << (8 * width)) - 1)).to_bytes(width, "big")


def decode_binary(data: bytes) -> int:
    """The value of a big-endian binary integer (the whole of ``data``, at most 8 bytes)."""
    if not 1 <= len(data) <= 8:
        raise DecodeError(f"a binary integer of {len(data)} bytes")
    return int.from_bytes(data, "big")
