"""NNTP replies as data: pure functions over the bytes the server sent (no I/O).

RFC 3977 §3.2: every reply starts with a three-digit status code; the first digit says how it
went (1 information, 2 done, 3 go on, 4 failed for now, 5 failed for good).  Multi-line data
blocks follow some replies (§3.1.1) — the executor reads and dot-unstuffs them with
``resolvers.lines``; this module turns their lines into values.
"""

from __future__ import annotations

import re
from email.errors import HeaderParseError
from email.header import decode_header, make_header

from omniurl.resolvers.errors import ProtocolError
from omniurl.schemes.records import record

# RFC 3977 §9.4.2: initial-response-line = 3DIGIT [SP trailing-comment] CRLF
# (a few servers end the code with nothing at all; some put text right after a "-").
_STATUS = re.compile(rb"(?P<code>[1-5][0-9][0-9])(?:[ \t](?P<text>.*))?")

# RFC 3977 §6.1.1.2: 211 number low high group
_GROUP_211 = re.compile(
    rb"(?P<count>[0-9]{1,16})"  # number: the estimated article count
    rb" +(?P<low>[0-9]{1,16})"  # low: the low water mark
    rb" +(?P<high>[0-9]{1,16})"  # high: the high water mark
)
_NUMBER = re.compile(rb"[0-9]{1,16}")


@record(frozen=True)
class Reply:
    """One status line: ``code`` (an int), ``text`` (the rest, as sent)."""

    code: int
    text: bytes

    @property
    def line(self) -> str:
        """The reply as a person reads it (``211 3 1 3 omniurl.test``)."""
        text = self.text.decode("utf-8", "replace")
        return f"{self.code} {text}" if text else str(self.code)

    @property
    def ok(self) -> bool:
        return 200 <= self.code < 400


def parse_status(line: bytes, *, what: str) -> Reply:
    """A status line, or :class:`ProtocolError` saying what it answered."""
    match = _STATUS.fullmatch(line)
    if match is None:
        shown = line[:80].decode("utf-8", "backslashreplace")
        raise ProtocolError(f"the server's answer to {what} is not an NNTP reply: {shown!r}")
    return Reply(int(match["code"]), match["text"] or b"")


@record(frozen=True)
class GroupInfo:
    """RFC 3977 §6.1.1: the estimated ``count``, the ``low`` and ``high`` water marks."""

    count: int
    low: int
    high: int

    @property
    def empty(self) -> bool:
        """§6.1.1.2: an empty group reports count 0 (and often high = low - 1)."""
        return self.count == 0 or self.high < self.low

    def last(self, limit: int) -> tuple[int, int]:
        """The range of the newest ``limit`` articles: ``(first, high)``."""
        return max(self.low, self.high - limit + 1), self.high


def parse_group(reply: Reply) -> GroupInfo:
    """The ``211 count low high group`` reply of GROUP or LISTGROUP."""
    match = _GROUP_211.match(reply.text)
    if reply.code != 211 or match is None:
        raise ProtocolError(f"GROUP answered {reply.line!r}, not '211 count low high group'")
    return GroupInfo(int(match["count"]), int(match["low"]), int(match["high"]))


def parse_capabilities(lines: list[bytes]) -> dict[str, tuple[str, ...]]:
    """RFC 3977 §5.2: one capability per line, a label and its arguments (case-insensitive)."""
    caps: dict[str, tuple[str, ...]] = {}
    for line in lines:
        words = line.decode("ascii", "replace").split()
        if words:
            caps[words[0].upper()] = tuple(w.upper() for w in words[1:])
    return caps


@record(frozen=True)
class Overview:
    """One line of OVER/XOVER (RFC 3977 §8.3): the article number and the seven fields."""

    number: int
    subject: str
    from_: str
    date: str
    message_id: bytes
    references: str
    bytes: int | None
    lines: int | None


def parse_overview(line: bytes) -> Overview:
    """``number TAB subject TAB from TAB date TAB message-id TAB references TAB bytes TAB lines``.

    §8.3.2: a field may be empty; trailing optional fields (Xref:) are ignored.  A line whose
    first field is not an article number is a protocol error.
    """
    fields = line.split(b"\t")
    if not _NUMBER.fullmatch(fields[0]):
        raise ProtocolError(f"overview line does not start with an article number: {line[:60]!r}")
    fields += [b""] * (8 - len(fields))
    return Overview(
        number=int(fields[0]),
        subject=decode_words(fields[1]),
        from_=decode_words(fields[2]),
        date=fields[3].decode("utf-8", "replace"),
        message_id=fields[4].strip(),
        references=fields[5].decode("utf-8", "replace"),
        bytes=_int_or_none(fields[6]),
        lines=_int_or_none(fields[7]),
    )


def parse_article_number(line: bytes) -> int:
    """One line of LISTGROUP's data block: an article number (RFC 3977 §6.1.2)."""
    text = line.strip()
    if not _NUMBER.fullmatch(text):
        raise ProtocolError(f"LISTGROUP line is not an article number: {line[:60]!r}")
    return int(text)


@record(frozen=True)
class Active:
    """One line of LIST ACTIVE (RFC 3977 §7.6.3): ``group high low status``."""

    group: bytes
    high: int
    low: int
    status: str


def parse_active(line: bytes) -> Active:
    words = line.split()
    if len(words) < 3 or not (_NUMBER.fullmatch(words[1]) and _NUMBER.fullmatch(words[2])):
        raise ProtocolError(f"LIST ACTIVE line is not 'group high low status': {line[:60]!r}")
    status = words[3].decode("ascii", "replace") if len(words) > 3 else ""
    return Active(words[0], int(words[1]), int(words[2]), status)


def decode_words(raw: bytes) -> str:
    """A header field as a person reads it: RFC 2047 encoded-words decoded, UTF-8 assumed
    (RFC 3977 §8.3.1 leaves the charset to the article; RFC 6532 made UTF-8 the norm)."""
    text = raw.decode("utf-8", "replace")
    if "=?" not in text:
        return text
    try:
        return str(make_header(decode_header(text)))
    except (ValueError, LookupError, UnicodeDecodeError, HeaderParseError):
        # HeaderParseError (bad base64 in an encoded-word) is not a ValueError.
        return text


def _int_or_none(field: bytes) -> int | None:
    field = field.strip()
    return int(field) if _NUMBER.fullmatch(field) else None
