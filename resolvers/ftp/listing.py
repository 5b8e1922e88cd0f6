"""FTP directory listings as entries a person can read (pure: lines in, facts out).

Three sources, in the order the planner prefers them for a directory URL (``…/dir/``):

* ``MLSD`` (RFC 3659 §7), when ``FEAT`` lists ``MLST``: machine-readable facts,
  ``type=dir;size=4096;modify=20240305060708; name``;
* ``LIST`` otherwise: the server's own ``ls``-like lines, in the two formats every server of
  note writes — Unix (``drwxr-xr-x 2 u g 4096 Mar  5 06:07 name``, also vsftpd, ProFTPD,
  Pure-FTPd) and DOS/IIS (``03-05-24  06:07AM  <DIR>  name``); a line neither parses is kept
  as a name (never dropped, never guessed);
* ``NLST`` for ``;type=d`` (RFC 1738 §3.2.2 says so): names only.

Each gives a :class:`Fact`: the name, ``file``/``directory``/``link``, size and modification
time (ISO 8601, UTC where the source says so) where known.
"""

from __future__ import annotations

import datetime
import re

from omniurl.schemes.records import record

__all__ = ["Fact", "Seen", "parse_list_line", "parse_mlsd_line", "parse_nlst_line"]


@record(frozen=True)
class Fact:
    name: str
    kind: str  # "file", "directory", "link", or "entry" (unknown)
    size: int | None = None
    modify: str | None = None
    #: A symbolic link's target as listed (LIST's ``name -> target``, ProFTPD's MLSD
    #: ``OS.unix=slink:target``): shown, and what a mirror makes a link to (or not).
    target: str | None = None


class Seen:
    """What a ``LIST -a`` reply has named so far, for the plan's check after it
    (:func:`resolvers.ftp.replies.names_nothing_but_dash_a`): how many of its lines name
    something — an entry, or ``.`` and ``..`` (which a server that took ``-a`` as ``ls``'s
    option lists: vsftpd, ProFTPD and Pure-FTPd list them for an empty folder) — and the
    first entry's name.  Blank lines and ``total N`` name nothing."""

    __slots__ = ("first", "lines")

    def __init__(self) -> None:
        self.lines = 0
        self.first: str | None = None

    def add(self, line: str, fact: Fact | None) -> None:
        """One line of the listing and what :func:`parse_list_line` made of it."""
        if fact is None:
            text = line.strip()
            if not text or text.lower().startswith("total "):
                return
        self.lines += 1
        if self.lines == 1 and fact is not None:
            self.first = fact.name

    @property
    def nothing_but_dash_a(self) -> bool:
        """No line named anything, or the one line is a file named ``-a``: what a server
        that read ``-a`` as a name lists (vsftpd and Pure-FTPd list a name they lack as
        nothing, measured here: ``LIST nosuch`` is ``150``, no line, ``226``)."""
        return self.lines == 0 or (self.lines == 1 and self.first == "-a")


def parse_mlsd_line(line: str) -> Fact | None:
    """``fact=value;fact=value; name`` (RFC 3659 §7.2); ``cdir``/``pdir`` entries are the
    directory itself and its parent: skipped."""
    facts_text, sep, name = line.partition(" ")
    if not sep or not name:
        return None
    facts = {}
    for fact in facts_text.split(";"):
        key, eq, value = fact.partition("=")
        if eq:
            facts[key.strip().lower()] = value.strip()
    kind_fact = facts.get("type", "").lower()
    if kind_fact in ("cdir", "pdir") or name in (".", ".."):
        return None
    kind = {"file": "file", "dir": "directory"}.get(kind_fact, "entry")
    target = None
    if kind_fact.startswith("os.unix=symlink") or kind_fact.startswith("os.unix=slink"):
        kind = "link"
        # ProFTPD's ``type=OS.unix=slink:TARGET`` (RFC 3659 §7.5.1 leaves OS.* types to the
        # server): the target as written, case kept
        raw = next(f for f in facts_text.split(";") if f.strip().lower().startswith("type="))
        _, colon, written = raw.partition(":")
        target = written if colon and written else None
    size = int(facts["size"]) if facts.get("size", "").isdigit() else None
    return Fact(
        name=name, kind=kind, size=size, modify=_mlsd_time(facts.get("modify")), target=target
    )


def _mlsd_time(value: str | None) -> str | None:
    """RFC 3659 §2.3 time-val (UTC, YYYYMMDDHHMMSS[.sss]) as ISO 8601."""
    if not value or len(value) < 14 or not value[:14].isdigit():
        return None
    try:
        when = datetime.datetime.strptime(value[:14], "%Y%m%d%H%M%S")
    except ValueError:
        return None
    return when.replace(tzinfo=datetime.UTC).isoformat().replace("+00:00", "Z")


_UNIX = re.compile(
    r"^(?P<mode>[bcdlps-][rwxsStTl-]{9})[+@.]?\s+\d+\s+\S+\s+(?:\S+\s+)?(?P<size>\d+)\s+"
    r"(?P<month>[A-Za-z]{3})\s+(?P<day>\d{1,2})\s+(?P<time>\d{1,2}:\d{2}|\d{4})\s(?P<name>.+)$"
)
_DOS = re.compile(
    r"^(?P<date>\d{2}-\d{2}-\d{2,4})\s+(?P<time>\d{1,2}:\d{2}[AaPp][Mm])\s+"
    r"(?P<size><DIR>|\d+)\s+(?P<name>.+)$"
)
_MONTHS = {
    m: i
    for i, m in enumerate(
        ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"], 1
    )
}


def parse_list_line(line: str, *, today: datetime.date | None = None) -> Fact | None:
    """One ``LIST`` line (Unix or DOS format); ``total N`` lines and ``.``/``..`` skipped."""
    text = line.rstrip("\r\n")
    if not text.strip() or text.lower().startswith("total "):
        return None
    m = _UNIX.match(text)
    if m is not None:
        name = m["name"]
        kind = {"d": "directory", "l": "link", "-": "file"}.get(m["mode"][0], "entry")
        target = None
        if kind == "link" and " -> " in name:
            name, target = name.split(" -> ", 1)
        if name in (".", ".."):
            return None
        return Fact(
            name=name,
            kind=kind,
            size=int(m["size"]),
            modify=_unix_time(m["month"], int(m["day"]), m["time"], today),
            target=target,
        )
    m = _DOS.match(text)
    if m is not None:
        directory = m["size"] == "<DIR>"
        return Fact(
            name=m["name"],
            kind="directory" if directory else "file",
            size=None if directory else int(m["size"]),
            modify=_dos_time(m["date"], m["time"]),
        )
    return Fact(name=text.strip(), kind="entry")  # unknown format: the line as a name


def _unix_time(month: str, day: int, clock: str, today: datetime.date | None) -> str | None:
    """``Mar  5 06:07`` (within the last six months: the year is guessed, as ls does) or
    ``Mar  5  2019`` — server-local time, so no zone is claimed."""
    number = _MONTHS.get(month.lower())
    if number is None:
        return None
    today = today or datetime.date.today()
    try:
        if ":" in clock:
            hour, minute = (int(x) for x in clock.split(":"))
            year = today.year
            when = datetime.datetime(year, number, day, hour, minute)
            if when.date() > today + datetime.timedelta(days=1):
                when = when.replace(year=year - 1)
            return when.isoformat()
        return datetime.date(int(clock), number, day).isoformat()
    except ValueError:
        return None


def _dos_time(date: str, clock: str) -> str | None:
    fmt = "%m-%d-%Y" if len(date) == 10 else "%m-%d-%y"
    try:
        day = datetime.datetime.strptime(date, fmt)
        t = datetime.datetime.strptime(clock.upper(), "%I:%M%p")
    except ValueError:
        return None
    return day.replace(hour=t.hour, minute=t.minute).isoformat()


def parse_nlst_line(line: str) -> Fact | None:
    """``NLST``: one name a line (some servers answer ``NLST dir`` with ``dir/name``)."""
    text = line.rstrip("\r\n")
    if not text:
        return None
    name = text.rstrip("/").rsplit("/", 1)[-1] or text
    return Fact(name=name, kind="entry")
