"""Gopher+ (Anklesaria et al., "Gopher+: upward compatible enhancements", 1993) as pure codecs.

What RFC 1738 §3.4.3-§3.4.9 lets a URL say in its Gopher+ string, and how each reply reads:

- ``+`` or ``+<view> <language>`` (§3.4.4, §3.4.8): the item's data, default or alternate view.
  The reply starts with a status line: ``+<length>`` where the length is a byte count, ``-1``
  (dot-terminated text follows) or ``-2`` (data until the server closes); ``-<code>`` is an
  error (``-1`` not available, ``-2`` try again later, ``-3`` moved: a menu line follows).
- ``!`` / ``!+ATTR +ATTR`` (§3.4.6, §3.4.7): the item's attribute blocks.
- ``$`` / ``$+ATTR``: the attribute blocks of every item of a directory.
- ``?`` (§3.4.5): the item has a +ASK form: fetch it, fill it in, send it back.
- ``+\\t1\\r\\n<data block>`` (§3.4.9): a filled-in form, exactly as the client sends it.

Attribute blocks are ``+NAME: first line`` followed by lines that start with a space; each
item's blocks start with ``+INFO``.
"""

from __future__ import annotations

import functools
import re

from omniurl.schemes.records import field, record

from ..lines import dot_stuff, dot_unstuff

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal

    RequestKind = Literal["data", "form", "attributes", "directory", "ask", "other"]
    AskKind = Literal["Ask", "AskP", "AskL", "AskF", "Choose", "ChooseF", "Select", "Note"]


@record(frozen=True)
class GopherPlusRequest:
    """A Gopher+ string taken apart.  ``command`` is what goes after the selector's TAB on the
    request line; ``block`` is the data block sent after it (a filled-in form), if any."""

    kind: RequestKind
    command: bytes
    view: str | None = None
    attributes: tuple[str, ...] = ()
    block: bytes | None = None
    #: The answers of a filled-in form, one per line (dot-unstuffed), for the policy check.
    answers: tuple[bytes, ...] = ()


# -- request side ---------------------------------------------------------------------------


# §3.4.9: "+%091%0D%0A+-1%0D%0A<ask_item1_value>%0D%0A...%0D%0A.%0D%0A" — the command,
# TAB "1" CRLF (data follows), then a data block.
# (Each pattern of this module is compiled on its first use: a plan of a Gopher URL without
# a Gopher+ string uses none of them, and compiling the five was ~0.6 ms of its start.)
@functools.cache
def _form() -> re.Pattern[bytes]:
    return re.compile(rb"(?P<command>\+[^\t\r\n]*)\t1\r\n(?P<block>.*)", re.DOTALL)


# data block = "+-1" CRLF *(line CRLF) "." CRLF   |   "+" length CRLF <length octets>
@functools.cache
def _block_length() -> re.Pattern[bytes]:
    return re.compile(rb"\+(?P<length>-1|\d+)\r\n")


def parse_request(gopher_plus: bytes) -> GopherPlusRequest:
    """Classify a decoded Gopher+ string (pure; no checks on what it holds — the policy does
    that on the values the planner tags)."""
    form = _form().fullmatch(gopher_plus)
    if form is not None:
        block = form["block"]
        answers = split_form_block(block)
        if answers is not None:
            command = form["command"]
            return GopherPlusRequest(
                "form", command, view=_view(command), block=block, answers=tuple(answers)
            )
    if gopher_plus == b"?":
        return GopherPlusRequest("ask", b"!+ASK", attributes=("+ASK",))
    first = gopher_plus[:1]
    if first == b"+":
        return GopherPlusRequest("data", gopher_plus, view=_view(gopher_plus))
    if first in (b"!", b"$"):
        names = tuple(gopher_plus[1:].decode("utf-8", "replace").split())
        kind: RequestKind = "attributes" if first == b"!" else "directory"
        return GopherPlusRequest(kind, gopher_plus, attributes=names)
    return GopherPlusRequest("other", gopher_plus)


def _view(command: bytes) -> str | None:
    """``+application/postscript Es_ES`` -> ``"application/postscript Es_ES"`` (§3.4.8)."""
    view = command[1:].decode("utf-8", "replace").strip()
    return view or None


def split_form_block(block: bytes) -> list[bytes] | None:
    """The answer lines of a §3.4.9 data block, or ``None`` when it is not one.

    Only a block that ends exactly where its framing says counts: a dot-terminated block
    (``+-1``) must end with its lone ``.`` line and hold no other, and a counted block
    (``+N``) must hold exactly N octets.  Anything else would put bytes on the wire after the
    request ended — the planner then treats the string as opaque and the policy refuses it.
    """
    m = _block_length().match(block)
    if m is None:
        return None
    body = block[m.end() :]
    if m["length"] != b"-1":
        if len(body) != int(m["length"]):
            return None
        return body.split(b"\r\n")[:-1] if body.endswith(b"\r\n") else body.split(b"\r\n")
    if not body.endswith(b".\r\n"):
        return None
    lines = body[:-3].split(b"\r\n")
    if lines[-1] != b"":
        return None
    lines = lines[:-1]
    answers = []
    for line in lines:
        answer = dot_unstuff(line)
        if answer is None:  # a "." line before the end
            return None
        answers.append(answer)
    return answers


def form_string(answers: list[str], *, command: str = "+") -> str:
    """The §3.4.9 Gopher+ string for a filled-in form: command TAB "1" CRLF, then the
    answers as a dot-terminated data block (stuffed by ``resolvers.lines``)."""
    data = dot_stuff(a.encode("utf-8", "surrogateescape") for a in answers)
    return command + "\t1\r\n+-1\r\n" + data.decode("utf-8", "surrogateescape")


# -- reply side -----------------------------------------------------------------------------


@record(frozen=True)
class Status:
    """A Gopher+ reply's first line: ``+<length>`` (ok) or ``-<code>`` (error)."""

    ok: bool
    #: For ok: the byte count, or -1 (dot-terminated), or -2 (until close).
    length: int = -2
    #: For errors: 1 not available, 2 try again later, 3 moved.
    code: int = 0


@functools.cache
def _status() -> re.Pattern[bytes]:
    return re.compile(rb"(?P<sign>[+-])(?P<value>-?\d{1,18})\s*")


def parse_status(line: bytes) -> Status | None:
    """Parse the status line (without CRLF); ``None`` when it is not a Gopher+ status."""
    m = _status().fullmatch(line)
    if m is None:
        return None
    value = int(m["value"])
    if m["sign"] == b"+":
        if value < -2:
            return None
        return Status(True, length=value)
    return Status(False, code=abs(value))


@record()
class ItemAttributes:
    """The attribute blocks of one item, in order: ``{"+INFO": "0About\\t...", ...}``."""

    blocks: dict[str, str] = field(default_factory=dict)

    @property
    def info(self) -> str | None:
        return self.blocks.get("+INFO")


@functools.cache
def _block_start() -> re.Pattern[str]:
    return re.compile(r"(?P<name>\+[^\s:]+):\s?(?P<rest>.*)")


def parse_attributes(text: bytes) -> list[ItemAttributes]:
    """Attribute blocks -> one :class:`ItemAttributes` per item (a new item at each +INFO).

    Block lines keep their text without the leading space; lines are joined with "\\n".
    """
    items: list[ItemAttributes] = []
    current: ItemAttributes | None = None
    name: str | None = None
    lines: list[str] = []

    def flush() -> None:
        if current is not None and name is not None:
            current.blocks[name] = "\n".join(lines)

    for raw in text.decode("utf-8", "replace").splitlines():
        m = _block_start().fullmatch(raw) if raw.startswith("+") else None
        if m is not None:
            flush()
            name = m["name"].upper()
            if current is None or name == "+INFO":
                current = ItemAttributes()
                items.append(current)
            lines = [m["rest"]] if m["rest"] else []
        elif name is not None:
            lines.append(raw[1:] if raw.startswith(" ") else raw)
    flush()
    return items


@record(frozen=True)
class View:
    """One line of a +VIEWS block (Gopher+ §2.5): ``text/plain En_US: <2k>``."""

    #: The media type and language, as a ``+`` request names the view (``text/plain En_US``).
    view: str
    #: The server's size estimate (``<2k>``), or "".
    size: str


def parse_views(block: str) -> list[View]:
    """The views a +VIEWS block offers, in its order; a line without a view is skipped."""
    views = []
    for line in block.splitlines():
        view, _, size = line.strip().partition(":")
        if view.strip():
            views.append(View(view.strip(), size.strip()))
    return views


@record(frozen=True)
class AskField:
    """One line of a +ASK block.  ``Note`` shows text and takes no answer."""

    kind: str
    prompt: str
    default: str = ""
    choices: tuple[str, ...] = ()

    @property
    def answered(self) -> bool:
        return self.kind != "Note"

    @property
    def secret(self) -> bool:
        return self.kind == "AskP"


@functools.cache
def _ask_line() -> re.Pattern[str]:
    return re.compile(r"(?P<kind>[A-Za-z]+):\s?(?P<rest>.*)")


def parse_ask(block: str) -> list[AskField]:
    """The fields of a +ASK block: ``Ask: prompt TAB default``, ``Choose: prompt TAB a TAB b``,
    ``Select: prompt:0``, ``Note: text``... (Gopher+ §2.8).  Unknown kinds are kept."""
    fields: list[AskField] = []
    for line in block.splitlines():
        m = _ask_line().fullmatch(line.strip())
        if m is None:
            continue
        kind, parts = m["kind"], m["rest"].split("\t")
        prompt = parts[0]
        if kind in ("Choose", "ChooseF"):
            fields.append(
                AskField(kind, prompt, parts[1] if len(parts) > 1 else "", tuple(parts[1:]))
            )
        elif kind == "Select":
            label, _, default = prompt.rpartition(":")
            if not label:
                label, default = prompt, "0"
            fields.append(AskField(kind, label, default.strip() or "0"))
        else:
            fields.append(AskField(kind, prompt, parts[1] if len(parts) > 1 else ""))
    return fields


def answer_lines(field_: AskField, answer: str) -> list[str]:
    """The data-block lines that answer one field: one line, except ``AskL`` (a multi-line
    answer: the number of lines, then the lines) and ``Note`` (no line)."""
    if not field_.answered:
        return []
    if field_.kind == "AskL":
        lines = answer.splitlines()
        return [str(len(lines)), *lines]
    if field_.kind == "Select":
        return ["1" if answer.strip().lower() in ("1", "y", "yes", "true", "on") else "0"]
    return [answer.replace("\r", " ").replace("\n", " ")]


__all__ = [
    "AskField",
    "GopherPlusRequest",
    "ItemAttributes",
    "Status",
    "View",
    "answer_lines",
    "form_string",
    "parse_ask",
    "parse_attributes",
    "parse_request",
    "parse_status",
    "parse_views",
    "split_form_block",
]
