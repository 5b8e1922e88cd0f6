"""A Gemini response as a pure machine (h11's shape: bytes in, events out; no socket).

The Gemini specification, "Responses"::

    reply    = input / success / redirect / tempfail / permfail / auth
    success  = "20" SP mimetype CRLF body      ; the body runs to the connection's close
    other    = STATUS SP META CRLF             ; no body
    STATUS   = 2DIGIT                          ; the first digit is the class, 1-6

The header line is bounded: META is at most 1024 bytes, so the line is at most 2 + 1 + 1024
bytes before its CR LF (:data:`MAX_HEADER`); a longer one is :class:`LimitExceeded`, never an
unbounded read.  A header that is not two digits (and a space before any META) is a
:class:`ProtocolError`.  After a 2x header every byte is content until the end of the stream
(``receive_data(b"")``); any other header ends the reply.

What a header *means* — ask for input, follow a redirect, fail with a typed error — is
:func:`meaning`, pure too.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, Final

from ..errors import (
    AuthError,
    LimitExceeded,
    NotFound,
    ProtocolError,
    StatusError,
)

#: "<2 digits> <META>" without its CR LF: 3 + 1024 bytes (Gemini specification, Responses).
MAX_HEADER: Final = 3 + 1024


class _Sentinel(Enum):
    NEED_DATA = "NEED_DATA"


NEED_DATA: Final = _Sentinel.NEED_DATA


@dataclass(frozen=True)
class Header:
    """The response header: the two-digit ``status`` and its ``meta`` (decoded UTF-8)."""

    status: int
    meta: str

    @property
    def line(self) -> str:
        return f"{self.status:02d} {self.meta}".rstrip() if self.meta else f"{self.status:02d}"


@dataclass(frozen=True)
class Data:
    """Content octets of a 2x response, as they arrived."""

    data: bytes


@dataclass(frozen=True)
class EndOfReply:
    """The response is complete (2x: the stream ended; otherwise: after the header)."""


Event = Header | Data | EndOfReply


class GeminiMachine:
    """One response: ``receive_data(bytes)`` (``b""`` at the end of the stream), then
    ``next_event()`` until it returns :data:`NEED_DATA` or :class:`EndOfReply`."""

    def __init__(self, max_header: int = MAX_HEADER) -> None:
        self.max_header = max_header
        self._buffer = bytearray()
        self._eof = False
        self.state = "HEADER"  # HEADER -> BODY -> DONE
        self.header: Header | None = None

    def receive_data(self, data: bytes) -> None:
        if data:
            if self.state == "BODY" and not self._buffer:
                self._buffer = bytearray(data)
            else:
                self._buffer += data
        else:
            self._eof = True

    def next_event(self) -> Event | _Sentinel:
        if self.state == "HEADER":
            return self._header()
        if self.state == "BODY":
            if self._buffer:
                data = bytes(self._buffer)
                self._buffer.clear()
                return Data(data)
            if self._eof:
                self.state = "DONE"
                return EndOfReply()
            return NEED_DATA
        return EndOfReply()

    def _header(self) -> Event | _Sentinel:
        end = self._buffer.find(b"\n")
        if end < 0:
            if len(self._buffer) > self.max_header + 1:  # (+1: a CR may wait for its LF)
                raise LimitExceeded(
                    f"the response header is longer than {self.max_header} bytes "
                    "(Gemini: 2 digits, a space and at most 1024 bytes of META)"
                )
            if self._eof:
                raise ProtocolError(
                    "the server closed the connection before a complete response header"
                    + (f" (received {bytes(self._buffer)!r})" if self._buffer else "")
                )
            return NEED_DATA
        line = bytes(self._buffer[:end])
        # CR LF ends the header; a bare LF is read as one too (received liberally).
        line = line.removesuffix(b"\r")
        if len(line) > self.max_header:
            raise LimitExceeded(
                f"the response header is {len(line)} bytes, longer than {self.max_header}"
            )
        rest = self._buffer[end + 1 :]
        self.header = parse_header(line)
        if 20 <= self.header.status <= 29:
            self.state = "BODY"
            self._buffer = bytearray(rest)
        else:
            self.state = "DONE"
            self._buffer = bytearray()
        return self.header


def parse_header(line: bytes) -> Header:
    """``<2 digits>[ <META>]`` (without CR LF) -> :class:`Header`, or ProtocolError."""
    status, meta = line[:2], line[2:]
    if len(status) != 2 or not status.isdigit() or not b"1" <= status[:1] <= b"6":
        raise ProtocolError(f"not a Gemini response header: {line[:80]!r}")
    if meta and not meta.startswith(b" "):
        raise ProtocolError(f"no space after the status in the response header: {line[:80]!r}")
    try:
        text = meta[1:].decode("utf-8")
    except UnicodeDecodeError:
        raise ProtocolError(f"the response header's META is not UTF-8: {line[:80]!r}") from None
    return Header(int(status), text)


# -- what a header means -----------------------------------------------------------------


class Kind(Enum):
    INPUT = "input"
    CONTENT = "content"
    REDIRECT = "redirect"


@dataclass(frozen=True)
class Meaning:
    """What to do with a header that is not a failure: ask (``sensitive``: 11, without
    echo), show content (its ``media_type``, ``charset``), or follow ``target``."""

    kind: Kind
    prompt: str = ""
    sensitive: bool = False
    media_type: str = ""
    charset: str = "utf-8"
    target: str = ""
    permanent: bool = False


@dataclass(frozen=True)
class GeminiResult:
    """A content response, typed (``Resource.result_as(GeminiResult)``): the status (20-29),
    the META as sent, the MIME type and its charset."""

    status: int
    meta: str
    media_type: str
    charset: str

    def to_json(self) -> dict[str, Any]:
        """The ``"metadata"`` of ``omniurl get --json`` (keys kept stable)."""
        return {"status": self.status, "meta": self.meta, "charset": self.charset}


#: The default MIME type of a 2x whose META is empty (Gemini specification, 20 SUCCESS).
DEFAULT_MEDIA_TYPE = "text/gemini; charset=utf-8"


def meaning(header: Header, url: str) -> Meaning:
    """1x, 2x, 3x as a :class:`Meaning`; 4x, 5x and 6x raised as typed errors (the exit
    statuses of HTTP's: a refusal is 5, a certificate wanted or refused 7)."""
    status, meta = header.status, header.meta
    first = status // 10
    if first == 1:
        return Meaning(Kind.INPUT, prompt=meta, sensitive=status == 11)
    if first == 2:
        media = meta.strip() or DEFAULT_MEDIA_TYPE
        return Meaning(Kind.CONTENT, media_type=media, charset=charset_of(media))
    if first == 3:
        if not meta.strip():
            raise ProtocolError(f"{header.line}: a redirect names no URL", component="location")
        return Meaning(Kind.REDIRECT, target=meta.strip(), permanent=status == 31)
    said = f"{url}: {header.line}"
    if status in (51, 52):  # NOT FOUND, GONE
        raise NotFound(said, component="path", code=status, reply=header.line)
    if first in (4, 5):
        # 40 TEMPORARY FAILURE, 41 SERVER UNAVAILABLE, 42 CGI ERROR, 43 PROXY ERROR,
        # 44 SLOW DOWN (META: seconds to wait), 50 PERMANENT FAILURE, 53 PROXY REQUEST
        # REFUSED, 59 BAD REQUEST
        kind = "temporary failure" if first == 4 else "permanent failure"
        raise StatusError(f"{said} ({kind})", status=status, reply=header.line)
    if status == 60 or (first == 6 and status not in (61, 62)):
        raise AuthError(
            f"{said}: the server wants a client certificate: give one with --cert FILE "
            "(and --key FILE)",
            component="cert",
        )
    if status == 61:
        raise AuthError(f"{said}: this certificate is not authorised here", component="cert")
    raise AuthError(f"{said}: the certificate is not valid", component="cert")


def charset_of(media_type: str) -> str:
    """The ``charset`` parameter of a MIME type (``resolvers/mediatype.py``), lower case;
    utf-8 when absent (Gemini specification, 20 SUCCESS: text/* defaults to UTF-8)."""
    from ..mediatype import charset_param

    return (charset_param(media_type) or "utf-8").lower()


__all__ = [
    "DEFAULT_MEDIA_TYPE",
    "MAX_HEADER",
    "NEED_DATA",
    "Data",
    "EndOfReply",
    "Event",
    "GeminiMachine",
    "GeminiResult",
    "Header",
    "Kind",
    "Meaning",
    "charset_of",
    "meaning",
    "parse_header",
]
