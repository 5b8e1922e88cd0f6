"""Tagged data elements: ``tag length value``, tag and length as compressed integers.

Every variable field of a WAIS APDU, and every element of its user-information part, has this
shape (protspec.txt Appendix B: ``0x0302 0400`` is tag 5, length 2, value 1024).  A *group*
(tag 99 for the user information, 150-155 for document records) is the same shape with
elements inside.  Pure functions over bytes; every read is bounded by the enclosing end.
"""

from __future__ import annotations

from collections.abc import Iterator

from .compressed import DecodeError, decode_binary, decode_compressed, encode_binary
from .compressed import encode_compressed as _cint


def element(tag: int, value: bytes) -> bytes:
    """One element: tag, length, value."""
    return _cint(tag) + _cint(len(value)) + value


def optional(tag: int, value: bytes | None) -> bytes:
    """An element, or nothing for an absent optional value (``writeString(NULL)``)."""
    return b"" if value is None else element(tag, value)


def number(tag: int, value: int | None, width: int | None = None) -> bytes:
    """A numeric element (``writeNum``): the value as a binary integer, fewest bytes."""
    return b"" if value is None else element(tag, encode_binary(value, width))


def read_element(data: bytes, offset: int, end: int) -> tuple[int, bytes, int]:
    """The element at ``offset``: ``(tag, value, offset after it)``, never past ``end``."""
    tag, offset = decode_compressed(data[:end], offset)
    length, offset = decode_compressed(data[:end], offset)
    if offset + length > end:
        raise DecodeError(
            f"element with tag {tag} claims {length} bytes, only {end - offset} remain"
        )
    return tag, data[offset : offset + length], offset + length


def iter_elements(
    data: bytes, offset: int = 0, end: int | None = None
) -> Iterator[tuple[int, bytes]]:
    """Every ``(tag, value)`` from ``offset`` up to ``end``."""
    end = len(data) if end is None else end
    while offset < end:
        tag, value, offset = read_element(data, offset, end)
        yield tag, value


def as_int(tag: int, value: bytes) -> int:
    """The value of a numeric element."""
    try:
        return decode_binary(value)
    except DecodeError:
        raise DecodeError(f"element with tag {tag}: {len(value)} bytes is no integer") from None
