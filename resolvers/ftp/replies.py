"""FTP replies as pure functions: what the executor asks about every line it reads.

The executor (:mod:`resolvers.ftp.executor`) only moves bytes; what a reply *means* —
where it ends, which port a passive reply names, how large the file is, whether a login is
done — is decided here, tested without sockets, like NNTP's, Gopher's and WAIS's replies.

- RFC 959 §4.2: a reply is ``ddd text``, or ``ddd-text`` … ``ddd text`` over several lines
  (:class:`ReplyReader`, fed one line at a time, bounded in lines).
- RFC 2428 §3: ``229 Entering Extended Passive Mode (|||6446|)`` (:func:`epsv_port`).
- RFC 959 §4.1.2: ``227 Entering Passive Mode (h1,h2,h3,h4,p1,p2)`` (:func:`pasv_port`; the
  address is ignored — curl CVE-2020-8284: the data connection goes where control went);
  a port the policy refuses is asked for again, a bounded number of times
  (:func:`port_asked_again`).
- Many servers say the size in the ``150`` reply: ``(1234 bytes)`` (:func:`announced_size`).
- RFC 959 §5.4 login sequences: ``USER`` → 230 done, 331 needs ``PASS``, 332 needs ``ACCT``
  (:func:`after_user`, :func:`after_pass`).
"""

from __future__ import annotations

from omniurl.schemes import precompiled
from omniurl.schemes.records import field, record

from ..errors import LimitExceeded, ProtocolError
from ..plan import Condition
from ..policy import DATA_PORT_RETRIES

TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime
    from collections.abc import Callable
    from typing import Literal

    # (an annotation only: the planner imports this module before a get's early connect;
    # the machine and the executor import resolvers.resume after it)
    from ..resume import Outcome
    from .listing import Seen

    LoginStep = Literal["done", "password", "account", "refused"]

#: A multi-line reply longer than this many lines is refused (bounded reads).
MAX_REPLY_LINES = 1000

# Pattern texts, compiled on first use by re's own cache (re.match(TEXT, ...)): ``omniurl
# plan ftp://`` imports this module for its conditions and never reads a reply, and compiling
# the five at import cost ~0.55 ms CPU of its start (issue 32 item 3; a loaded 2-core machine,
# python -c pass ~20 ms there).
_REPLY_FIRST = rb"^(\d{3})([ -])(.*)$"
_EPSV = r"\(([\x21-\x7e])\1\1(\d{1,5})\1\)"
_PASV = r"(\d{1,3}),(\d{1,3}),(\d{1,3}),(\d{1,3}),(\d{1,3}),(\d{1,3})"
_SIZE = r"\((\d+) bytes\)"
#: The patterns above, for schemes/precompiled.py's table (compiled where they are read).
PRECOMPILED = (_REPLY_FIRST, _EPSV, _PASV, _SIZE)
_MDTM = r"\b(\d{14})(?:\.\d+)?\b"


@record()
class Reply:
    """One FTP reply: the three-digit code and its text lines."""

    code: str
    lines: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return " / ".join(line for line in self.lines if line)

    def __str__(self) -> str:
        return f"{self.code} {self.text}".rstrip()


class ReplyReader:
    """Assembles one reply from lines (without their CR LF), RFC 959 §4.2.

    ``feed(line)`` returns the :class:`Reply` once its last line arrived, else None; a first
    line that is no reply is a :class:`ProtocolError`, a reply longer than
    :data:`MAX_REPLY_LINES` a :class:`LimitExceeded`.
    """

    def __init__(self, what: str) -> None:
        self.what = what
        self._code: bytes | None = None
        self._lines: list[str] = []

    def feed(self, line: bytes) -> Reply | None:
        if self._code is None:
            m = precompiled.compile(_REPLY_FIRST).match(line)
            if m is None:
                raise ProtocolError(
                    f"the server's reply to {self.what} is not an FTP reply: {line!r}"
                )
            self._code = m.group(1)
            self._lines.append(m.group(3).decode("utf-8", "replace"))
            return self._done() if m.group(2) == b" " else None
        if line[:3] == self._code and line[3:4] == b" ":
            self._lines.append(line[4:].decode("utf-8", "replace"))
            return self._done()
        if len(self._lines) >= MAX_REPLY_LINES:
            raise LimitExceeded(f"reply to {self.what} longer than {MAX_REPLY_LINES} lines")
        self._lines.append(line.decode("utf-8", "replace"))
        return None

    def _done(self) -> Reply:
        assert self._code is not None
        return Reply(self._code.decode(), self._lines)


def refusal_line(line: bytes) -> bool:
    """A reply's first line (RFC 959 §4.2, without its CR LF) coded 4xx or 5xx: a refusal
    (the machine's :meth:`~resolvers.ftp.machine.FTPMachine.refused_meanwhile`)."""
    m = precompiled.compile(_REPLY_FIRST).match(line)
    return m is not None and m.group(1)[:1] in (b"4", b"5")


def epsv_port(reply: Reply) -> int:
    """The data port of a ``229`` reply (RFC 2428 §3)."""
    m = precompiled.compile(_EPSV).search(" ".join(reply.lines))
    if m is None:
        raise ProtocolError(f"cannot read the port in the EPSV reply: {reply}")
    return _valid_port(int(m.group(2)), reply)


def pasv_port(reply: Reply) -> int:
    """The data port of a ``227`` reply (RFC 959 §4.1.2); its address is ignored."""
    m = precompiled.compile(_PASV).search(" ".join(reply.lines))
    if m is None:
        raise ProtocolError(f"cannot read the address in the PASV reply: {reply}")
    return _valid_port(int(m.group(5)) * 256 + int(m.group(6)), reply)


def _valid_port(port: int, reply: Reply) -> int:
    if not 0 < port < 65536:
        raise ProtocolError(f"the server gave data port {port}: {reply}")
    return port


def announced_size(reply: Reply) -> int | None:
    """The size a ``150`` reply announces, ``(N bytes)``, or None."""
    m = precompiled.compile(_SIZE).search(" ".join(reply.lines))
    return int(m.group(1)) if m else None


def expected_bytes(announced: int | None, total: int | None, offset: int) -> set[int] | None:
    """The byte counts a transfer may end with, or None when nothing was announced.

    ``total`` is ``SIZE``'s answer (asked with ``-C``), ``announced`` the 150 reply's size,
    ``offset`` where a ``REST`` made the transfer start.  After ``REST`` servers differ in
    what the 150 reply counts (the whole file, or what is left): either is accepted.
    """
    if total is not None:
        return {total - offset}
    if announced is None:
        return None
    return {announced, announced - offset} if offset else {announced}


def mdtm_time(reply: str) -> datetime.datetime | None:
    """``213 YYYYMMDDHHMMSS[.sss]`` (RFC 3659 §3: UTC) as an aware datetime (the fraction
    dropped, as an HTTP-date has none), or None when the reply says no time."""
    import datetime
    import re

    m = re.search(_MDTM, reply)
    if m is None:
        return None
    t = m.group(1)  # (14 digits; read by hand: strptime cost ~0.1 ms a file of a mirror)
    try:
        return datetime.datetime(
            int(t[:4]), int(t[4:6]), int(t[6:8]), int(t[8:10]), int(t[10:12]), int(t[12:14]),
            tzinfo=datetime.UTC,
        )  # fmt: skip
    except ValueError:
        return None


def after_user(code: str) -> LoginStep:
    """What ``USER``'s reply asks for next (RFC 959 §5.4): 230 done, 331 ``PASS``, 332
    ``ACCT`` (which an RFC 1738 URL cannot carry), anything else refused."""
    if code.startswith("2"):
        return "done"
    if code == "331":
        return "password"
    if code == "332":
        return "account"
    return "refused"


def after_pass(code: str) -> LoginStep:
    """What ``PASS``'s reply means: 2xx done, 332 ``ACCT`` needed, anything else refused."""
    if code.startswith("2"):
        return "done"
    if code == "332":
        return "account"
    return "refused"


def passive_needed(epsv_code: str) -> bool:
    """``PASV`` is sent only when ``EPSV`` was not answered ``229`` (the plan's "EPSV
    refused")."""
    return epsv_code != "229"


def port_asked_again(refused: int) -> bool:
    """``EPSV`` (or ``PASV``) is sent again when the policy refused the data port the last
    one named (:meth:`resolvers.policy.Policy.data_port_reason`), ``refused`` being how many
    ports this conversation has had refused so far, this one included: at most
    :data:`resolvers.policy.DATA_PORT_RETRIES` times (the reason is given there)."""
    return 0 < refused <= DATA_PORT_RETRIES


def transfer_started(code: str) -> bool:
    """``RETR``/``NLST`` opened the data connection: 125 or 150 (RFC 959 §4.2)."""
    return code in ("125", "150")


def password_due(user_code: str) -> bool:
    """``PASS`` only when ``USER`` was answered 331 (RFC 959 §5.4: the plan's "reply 331")."""
    return after_user(user_code) == "password"


def resume_due(outcome: Outcome | None) -> bool:
    """With ``-C``: the data connection is opened only when ``SIZE`` shows bytes missing
    (:func:`resolvers.resume.ftp_size_outcome` said anything but ``complete``)."""
    return outcome != "complete"


def rest_due(outcome: Outcome | None) -> bool:
    """``REST`` only when bytes are missing and the part is not longer than the file (a
    longer one is fetched whole again: ``refetch``)."""
    return outcome not in ("complete", "refetch")


def quit_due(kept: bool) -> bool:
    """``QUIT`` after a complete transfer, unless the connection is kept for a later URL
    (RFC 1738 §3.2.5; a kept one gets its ``QUIT`` when let go)."""
    return not kept


def new_connection(reused: bool) -> bool:
    """The login and ``CWD`` steps go only over a new connection: a kept one already went
    through exactly these steps (RFC 1738 §3.2.5, :mod:`resolvers.ftp.keys`)."""
    return not reused


# -- the plan's conditions: the words ``omniurl plan`` prints beside the decision asked --

#: ``PASS`` (RFC 959 §5.4), decided on ``USER``'s reply code.
PASS_ON_331 = Condition("reply 331", password_due)
#: ``PASS`` with a password asked for at run time.
PASS_ASKED_ON_331 = Condition("reply 331; the password is asked for", password_due)


#: ``PASV``, decided on ``EPSV``'s reply code.
def lists_mlst(features: bool) -> bool:
    """RFC 3659 §7.8: MLSD only from a server whose FEAT lists MLST."""
    return features


def lacks_mlst(features: bool) -> bool:
    return not features


def has_mlst(feat_lines: list[str]) -> bool:
    """Whether a FEAT reply (RFC 2389) lists MLST (RFC 3659 §7.8)."""
    return any(line.strip().upper().startswith("MLST") for line in feat_lines[1:])


def list_all_refused(code: str) -> bool:
    """Plain ``LIST`` after ``LIST -a`` was refused: any 5xx (RFC 959 §4.2: a permanent
    refusal — 500/501 from a server that takes no ``ls`` options, 550 from one that read
    ``-a`` as a name) or 450 ("file unavailable": ProFTPD answers ``LIST nosuch`` with
    ``450 nosuch: No such file or directory``, measured on 1.3.8, so a server of its kind
    that read ``-a`` as a name says 450), over the data connection already open.  One
    command more; when the plain ``LIST`` is refused too, its reply is the error.  wget
    1.21.3 (its ``SYST`` not "UNIX Type: L8") falls back on 450, 501 and 550 alike,
    measured against a scripted server.  Any other reply is the listing's own outcome: 421
    (closing), 425/426 (the data connection), 451 say nothing of ``-a``.  (A ``LIST -a``
    answered with a listing of nothing, or of ``-a`` alone, is the re-list's:
    :func:`names_nothing_but_dash_a`.)"""
    return code.startswith("5") or code == "450"


def names_nothing_but_dash_a(listed: tuple[int | None, Seen | None]) -> bool:
    """A plain ``LIST`` after a ``LIST -a`` whose listing (``listed``: the bytes its data
    connection carried, and what the executor saw of its lines) named nothing — no byte at
    all, or no line naming an entry, ``.`` or ``..`` — or only a file named ``-a``
    (:attr:`resolvers.ftp.listing.Seen.nothing_but_dash_a`): the listing of a server that
    read ``-a`` as a name, not ``ls``'s option.  vsftpd and Pure-FTPd list a name they
    lack as nothing (``LIST nosuch``: 150, no line, 226 — measured), where all three
    servers list ``.`` and ``..`` for ``LIST -a`` even in an empty folder, so they never pay
    the command.  wget 1.21.3 asks ``LIST`` after the first ``LIST -a`` of a session and
    keeps the longer reply, for every server whose ``SYST`` is not "UNIX Type: L8"
    (measured against a scripted server: ``PASV``, ``LIST`` after a listing of nothing, of
    ``-a`` alone, and of two files alike); omniurl asks only where the reply leaves the
    doubt, once."""
    received, seen = listed
    if seen is not None:
        return seen.nothing_but_dash_a
    return received == 0


def relist_passive(used: str) -> Callable[[str], bool]:
    """The re-list's data connection is opened as ``LIST -a``'s was (``used``: the passive
    command that opened it, ``EPSV`` or ``PASV``): no second try of a refused ``EPSV``."""

    def decide(opened_with: str) -> bool:
        return opened_with == used

    return decide


MLSD_IF_MLST = Condition("FEAT lists MLST (RFC 3659)", lists_mlst)
LIST_IF_NO_MLST = Condition("FEAT does not list MLST", lacks_mlst)
LIST_ON_ALL_REFUSED = Condition("LIST -a refused (450 or a 5xx reply)", list_all_refused)
_RELIST = "LIST -a listed nothing, or only a file named -a"
#: The plain ``LIST`` asked once after such a listing, and its data connection.
RELIST_IF_NOTHING = Condition(_RELIST, names_nothing_but_dash_a)
EPSV_TO_RELIST = Condition(f"{_RELIST}; EPSV opened its data connection", relist_passive("EPSV"))
PASV_TO_RELIST = Condition(f"{_RELIST}; PASV opened its data connection", relist_passive("PASV"))
PASV_ON_EPSV_REFUSED = Condition("EPSV refused", passive_needed)
#: ``EPSV``/``PASV`` again, decided on how many data ports the policy refused so far.
EPSV_ON_PORT_REFUSED = Condition(
    f"the policy refused the port EPSV named; at most {DATA_PORT_RETRIES} times",
    port_asked_again,
)
PASV_ON_PORT_REFUSED = Condition(
    f"the policy refused the port PASV named; at most {DATA_PORT_RETRIES} times",
    port_asked_again,
)
#: ``EPSV`` under ``-C``, decided on SIZE's outcome.
EPSV_ON_BYTES_MISSING = Condition("SIZE shows bytes missing", resume_due)
#: ``REST`` under ``-C``, decided on SIZE's outcome.
REST_ON_BYTES_MISSING = Condition(
    "SIZE shows bytes missing and the part is not longer than the file", rest_due
)
#: ``QUIT``, decided on whether the connection is kept.
QUIT_AFTER_TRANSFER = Condition("after a complete transfer", quit_due)
QUIT_WHEN_LET_GO = Condition("after a complete transfer, when the connection is let go", quit_due)
#: Login and ``CWD`` steps when kept connections are on, decided on whether one was reused.
ON_NEW_CONNECTION = Condition("a new connection", new_connection)


__all__ = [
    "EPSV_ON_BYTES_MISSING",
    "EPSV_ON_PORT_REFUSED",
    "EPSV_TO_RELIST",
    "LIST_IF_NO_MLST",
    "LIST_ON_ALL_REFUSED",
    "MAX_REPLY_LINES",
    "MLSD_IF_MLST",
    "ON_NEW_CONNECTION",
    "PASS_ASKED_ON_331",
    "PASS_ON_331",
    "PASV_ON_EPSV_REFUSED",
    "PASV_ON_PORT_REFUSED",
    "PASV_TO_RELIST",
    "QUIT_AFTER_TRANSFER",
    "QUIT_WHEN_LET_GO",
    "RELIST_IF_NOTHING",
    "REST_ON_BYTES_MISSING",
    "LoginStep",
    "Reply",
    "ReplyReader",
    "after_pass",
    "after_user",
    "announced_size",
    "epsv_port",
    "expected_bytes",
    "has_mlst",
    "list_all_refused",
    "mdtm_time",
    "names_nothing_but_dash_a",
    "new_connection",
    "passive_needed",
    "password_due",
    "pasv_port",
    "port_asked_again",
    "quit_due",
    "refusal_line",
    "relist_passive",
    "rest_due",
    "resume_due",
    "transfer_started",
]
