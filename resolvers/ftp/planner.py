"""RFC 1738 §3.2 as a pure function: an ``ftp:`` URL in, the exact FTP command lines out.

This is the "h11" half of the FTP resolver: no sockets, no library — what ``omniurl plan``
prints and what the executor sends, byte for byte, in this order:

- §3.2.1 login: ``USER`` with the URL's user, else ``-u``'s or the netrc login for the host
  (as curl), else ``anonymous``; ``PASS`` only if the server
  answers 331 — with the URL's password, else (anonymous) the user's e-mail address
  (``Options.email``), else a password from ``Options.credentials`` or asked through
  ``Options.ask``; never an empty ``PASS`` that nobody chose.
- §3.2.2 each ``cwd`` segment, decoded, is one ``CWD`` with exactly that argument: an empty
  segment is a null-argument ``CWD `` and ``%2F`` stays inside its argument, so
  ``ftp://myname@host.dom/%2Fetc/motd`` is ``CWD /etc`` then ``RETR motd`` and
  ``ftp://myname@host.dom//etc/motd`` is ``CWD ``, ``CWD etc``, ``RETR motd``.
- §3.2.2/§3.2.3 ``;type=d`` is ``NLST <name>`` (a bare ``NLST`` for an empty name);
  ``;type=a``/``;type=i`` is ``TYPE A``/``TYPE I`` then ``RETR <name>``; with no typecode a
  URL ending in ``/`` (empty name) is a listing and otherwise the type is guessed from the
  name: ``A`` for text media types, ``I`` for everything else.
- The data connection is passive (``EPSV``, then ``PASV`` only if EPSV is refused): RFC 1738
  leaves the mode open, and passive is the only mode that works through NAT and firewalls.
  A data port the policy refuses is never connected to: the same command is sent again
  (at most ``resolvers.policy.DATA_PORT_RETRIES`` times), a planned conditional step.
- ``QUIT`` ends the session after a complete transfer.  §3.2.5: a control connection may be
  kept for a later URL only where that is provably safe; with kept connections (an
  ``omniurl.AsyncClient``, :mod:`resolvers.ftp.sessions`) login and ``CWD`` steps are marked
  "a new connection" and ``QUIT`` is sent when a kept connection is let go.
- ``-C`` (``Options.resume_from``): ``TYPE I``, ``SIZE name``, then ``REST n`` right before
  ``RETR`` (:mod:`resolvers.resume`) — for a file transferred in ``TYPE I``.  One in
  ``TYPE A`` (``;type=a``, or a ``text/*`` name guessed so, §3.2.3) is fetched whole again in
  ``TYPE A`` and the executor skips the first n bytes of it as saved (local line ends): a
  ``REST`` offset in ``TYPE A`` counts the server's representation (RFC 3659 §5), not the
  file kept, and a resume in ``TYPE I`` appended the server's CR LF to a part saved with LF
  (docs/ftp.md: the file is the same bytes whether it came in one go or resumed).
- ``FTPOptions.mdtm`` (a mirror): ``MDTM name`` before the transfer (RFC 3659 §3), so the
  file's exact time comes with it.

Where this differs from curl (``CWD /`` then ``CWD etc`` for both example URLs, a bare NLST)
is documented in docs/ftp.md.
"""

from __future__ import annotations

from omniurl.schemes.base import URL
from omniurl.schemes.ftp import FTPURL
from omniurl.schemes.percent import to_octets
from omniurl.schemes.records import record, replace

from ..errors import PlanError
from ..options import Options
from ..plan import Condition, Plan, Role, Step, WireValue
from .keys import SessionKey
from .replies import (
    EPSV_ON_BYTES_MISSING,
    EPSV_ON_PORT_REFUSED,
    EPSV_TO_RELIST,
    LIST_IF_NO_MLST,
    LIST_ON_ALL_REFUSED,
    MLSD_IF_MLST,
    ON_NEW_CONNECTION,
    PASS_ASKED_ON_331,
    PASS_ON_331,
    PASV_ON_EPSV_REFUSED,
    PASV_ON_PORT_REFUSED,
    PASV_TO_RELIST,
    QUIT_AFTER_TRANSFER,
    QUIT_WHEN_LET_GO,
    RELIST_IF_NOTHING,
    REST_ON_BYTES_MISSING,
)
from .settings import FTPOptions, ListingFormat, TLSMode

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

    PasswordSource = Literal["url", "email", "credentials", "ask"]

#: The wire context of every FTP argument (resolvers.policy.DELIMITERS["ftp"]: CR, LF, NUL
#: and IAC are refused).
CONTEXT = "ftp"

#: Shown in place of any password (the plan is printed and logged).
MASK = "****"


class FTPRole(Role):
    """What each FTP step is for; the executor finds its steps by these."""

    AUTH = "auth"
    TLS = "tls"
    USER = "user"
    PASS = "pass"
    PBSZ = "pbsz"
    PROT = "prot"
    CWD = "cwd"
    TYPE = "type"
    SIZE = "size"
    MDTM = "mdtm"
    FEAT = "feat"
    #: ``LIST -a``, the listing when FEAT lists no MLST (MLSD is then the TRANSFER step):
    #: dotfiles included, as MLSD lists them (vsftpd, ProFTPD and Pure-FTPd leave them out
    #: of a plain LIST and take ``ls``'s ``-a``; wget sends it).
    LIST = "list"
    #: Plain ``LIST``, when ``LIST -a`` was refused (450 or a 5xx: a server that takes no
    #: ``ls`` options, or reads ``-a`` as a name; ``replies.list_all_refused``).
    LIST_PLAIN = "list-plain"
    #: ``EPSV`` or ``PASV`` (as ``LIST -a``'s data connection was opened) and a plain
    #: ``LIST``, once, when ``LIST -a`` listed nothing or only a file named ``-a`` (a server
    #: that read ``-a`` as a name; ``replies.names_nothing_but_dash_a``).
    RELIST_EPSV = "relist-epsv"
    RELIST_PASV = "relist-pasv"
    RELIST = "relist"
    EPSV = "epsv"
    #: EPSV sent again: the policy refused the data port the last one named.
    EPSV_AGAIN = "epsv-again"
    PASV = "pasv"
    #: PASV sent again: the policy refused the data port the last one named.
    PASV_AGAIN = "pasv-again"
    REST = "rest"
    TRANSFER = "transfer"
    QUIT = "quit"


@record(frozen=True)
class Password:
    """The ``PASS`` step's detail: where its password comes from (§3.2.1).  ``ask``: none is
    known; it is asked for through ``Options.ask`` when the server wants one."""

    source: PasswordSource

    @property
    def ask(self) -> bool:
        return self.source == "ask"


@record(frozen=True)
class TransferType:
    """The ``TYPE`` step's detail: whether §3.2.3's guess chose it (no ``;type=``)."""

    guessed: bool


def guess_type(name: str) -> str:
    """§3.2.3 "the client may guess": ``A`` for text media types, ``I`` otherwise — by
    ``mimetypes.guess_type(name, strict=False)``'s answer (:mod:`resolvers.mimeguess`: the
    same answer without reading the system's whole ``mime.types`` into tables)."""
    if "." not in name and ":" not in name:
        # No suffix (nor a "data:" name, which mimetypes reads as a data URL): mimetypes
        # would answer (None, None), after reading the system's mime.types files (~2.4 ms of
        # an `omniurl plan`).
        return "I"
    from ..mimeguess import guess_type as mimetypes_guess

    media, _encoding = mimetypes_guess(name)
    if _encoding is None and media is not None and media.startswith("text/"):
        return "A"
    return "I"


@record(frozen=True)
class Login:
    """§3.2.1's login: the user, the password (None: asked for when the server wants one)
    and where the password comes from."""

    user: str
    password: str | None
    source: PasswordSource


def choose_login(url: FTPURL, options: Options) -> Login:
    """The URL's user and password, else ``-u``, else the host's netrc login, else
    ``anonymous`` with the e-mail address; a user without a password takes the netrc one
    for the host (same user) or is asked."""
    netrc = options.credentials.get(url.hostname.lower())
    if url.user is None and options.user is not None:
        return Login(options.user[0], options.user[1], "credentials")
    if url.user is None and netrc is not None:
        # The machine's login from ~/.netrc or --netrc-file, as HTTP and curl use it: a
        # URL without a user is anonymous (§3.2.1) only when nothing is configured.
        return Login(netrc[0], netrc[1], "credentials")
    if url.user is None:
        return Login("anonymous", options.email, "email")
    if url.password is not None:
        return Login(url.user, url.password, "url")
    if netrc is not None and netrc[0] == url.user:
        return Login(url.user, netrc[1], "credentials")
    return Login(url.user, None, "ask")


def session_key(ftp: FTPURL, login: Login, tls: str | None) -> SessionKey:
    """§3.2.5's key from the URL's typed components: the server, the login, the ``CWD``
    segments (as the octets each ``CWD`` sends) and the TLS mode."""
    return SessionKey(
        host=ftp.hostname,
        port=ftp.effective_port or 21,
        user=to_octets(login.user),
        password=to_octets(login.password) if login.password is not None else b"",
        cwd=tuple(to_octets(segment) for segment in ftp.cwd),
        tls=tls or "",
    )


def login_steps(url: FTPURL, options: Options, login: Login | None = None) -> list[Step]:
    """§3.2.1: USER, then PASS if the server asks (reply 331)."""
    login = login or choose_login(url, options)
    user, password, source = login.user, login.password, login.source
    steps = [
        Step.line(
            b"USER " + to_octets(user),
            values=[WireValue("user", to_octets(user), CONTEXT)],
            role=FTPRole.USER,
        )
    ]
    if password is None:
        # Asked for at run time through Options.ask (the CLI prompts); the executor checks
        # the answer against the same delimiter rule before sending it.
        steps.append(
            Step.line(
                b"PASS ",
                shown=f"PASS {MASK}",
                when=PASS_ASKED_ON_331,
                role=FTPRole.PASS,
                detail=Password("ask"),
            )
        )
    else:
        component = "email" if source == "email" else "password"
        steps.append(
            Step.line(
                b"PASS " + to_octets(password),
                shown=f"PASS {MASK}",
                when=PASS_ON_331,
                values=[WireValue(component, to_octets(password), CONTEXT)],
                role=FTPRole.PASS,
                detail=Password(source),
            )
        )
    return steps


@record(frozen=True)
class FTPDetails:
    """What the FTP executor needs beyond the steps (typed; never sent)."""

    #: RFC 1738 §3.2.5: the state a kept control connection must be in to be reused.
    session: SessionKey
    #: ``NLST`` (``;type=d`` or an empty name) rather than ``RETR``.
    listing: bool
    #: ``"A"``/``"I"`` (None for a listing): ``A`` is stored with local line ends.
    type: str | None
    name: str
    #: Whether ``-C`` can continue it (not a listing), and at which byte.
    resumable: bool
    offset: int
    #: TLS (RFC 4217): None, "implicit" (ftps:, port 990: TLS from the first byte) or
    #: "explicit" (``AUTH TLS`` on ftp:, ``--ftp-ssl``); data connections are then protected
    #: too (``PBSZ 0``, ``PROT P``), resuming the control connection's TLS session.
    tls: TLSMode | None = None
    #: ``-I``: SIZE and MDTM (RFC 3659 §4, §3), no transfer (curl's -I on ftp:).
    head: bool = False
    #: How the listing reads: "nlst" (names: ;type=d, RFC 1738 §3.2.2), "facts" (MLSD, or
    #: LIST where FEAT lists no MLST: types, sizes, times); None for a file.
    listing_format: ListingFormat | None = None


def _on_new_connection(step: Step) -> Step:
    """§3.2.5 with kept connections: a setup step goes only over a new connection.  Whether
    the connection is new is the session cache's answer (its key is the setup itself); a
    step that was conditional already keeps its own decision under the longer words."""
    if step.condition is None:
        condition: Condition[Any] = ON_NEW_CONNECTION
    else:
        condition = Condition(
            f"{ON_NEW_CONNECTION.text}; {step.condition.text}", step.condition.decide
        )
    return replace(step, when=condition.text, condition=condition)


def _http_proxy(ftp: FTPURL, options: Options) -> Any:
    """The HTTP proxy to ask for ``GET ftp://…`` (curl's way with ``-x http://``), or None:
    no proxy, SOCKS (FTP goes through it), ``-p`` (a CONNECT tunnel), or FTP over TLS (which
    must reach the server end to end)."""
    if options.proxy is None or options.proxy_tunnel:  # (no import without a proxy)
        return None
    from ..proxy import http_proxy_for

    return http_proxy_for(ftp.hostname, options.proxy, options.noproxy)


def _plan_through_http_proxy(ftp: FTPURL, options: Options, proxy: Any) -> Plan:
    """``GET ftp://host/path HTTP/1.1`` to the proxy, which logs in, changes directory and
    retrieves (RFC 9112 §3.2.2's absolute form).  The CWD segments, name and login the proxy
    will send are checked by the policy as if omniurl sent them (CR, LF, NUL refused)."""
    from omniurl.schemes.secrets import mask_passwords

    from ..http.planner import basic_credentials, host_header, plan_forwarded

    values = [WireValue(f"cwd[{i}]", to_octets(seg), CONTEXT) for i, seg in enumerate(ftp.cwd)]
    if ftp.name:
        values.append(WireValue("name", to_octets(ftp.name), CONTEXT))
    if ftp.user is not None:
        values.append(WireValue("user", to_octets(ftp.user), CONTEXT))
    if ftp.password is not None:
        values.append(WireValue("password", to_octets(ftp.password), CONTEXT))
    if ftp.user is None and options.user is not None:
        # -u with no login in the URL: the proxy's Authorization (squid logs in with it)
        options = options.with_(
            headers=(*options.headers, ("Authorization", basic_credentials(*options.user)))
        )
    return plan_forwarded(
        ftp,
        options,
        proxy=(proxy.host, proxy.port),
        proxy_authorization=proxy.authorization,
        proxy_tls=proxy.scheme == "https",
        host=host_header(ftp),
        shown_target=mask_passwords(str(ftp).split("#", 1)[0]),
        values=values,
    )


def _transfer_type(typecode: str | None, name: str) -> str:
    """A file's ``TYPE``: the ``;type=`` given, else guessed from its name (§3.2.3) — one
    rule for the transfer and for ``-I``'s ``resumable`` (``REST`` in ``TYPE I`` only)."""
    return typecode.upper() if typecode else guess_type(name)


def _retr_steps(
    ftp: FTPURL, typecode: str | None, offset: int, name_values: list[WireValue], steps: list[Step]
) -> str:
    """A file's ``TYPE`` (§3.2.3: given, or guessed from the name) and, under ``-C`` in
    ``TYPE I``, its ``SIZE`` step, appended to ``steps``; returns the transfer type.

    Under ``-C`` the type is the one a whole transfer has: a ``TYPE A`` file resumed in
    ``TYPE I`` (as before) got the server's line ends after the part's local ones, a file
    saved two ways.  ``TYPE A`` is resumed without ``SIZE``/``REST`` (both count the
    server's representation, RFC 3659 §4-5; ProFTPD and vsftpd refuse ``SIZE`` in ASCII):
    the whole file again, the kept part skipped by the executor."""
    if not ftp.name:
        raise PlanError(
            f";type={typecode} names no file: the name after the last / is empty "
            "(use ;type=d or drop the typecode to list the directory)",
            component="name",
        )
    transfer_type = _transfer_type(typecode, ftp.name)
    steps.append(
        Step.line(
            f"TYPE {transfer_type}",
            role=FTPRole.TYPE,
            detail=TransferType(guessed=typecode is None),
        )
    )
    if offset > 0 and transfer_type == "I":
        steps.append(
            Step.line(b"SIZE " + to_octets(ftp.name), values=name_values, role=FTPRole.SIZE)
        )
    return transfer_type


def _setup_steps(
    ftp: FTPURL, options: Options, login: Login, tls: TLSMode | None, *, reuse: bool
) -> list[Step]:
    """RFC 4217's TLS steps around §3.2.1's login, then one ``CWD`` per segment (§3.2.2);
    with kept connections each is marked "a new connection" (§3.2.5: a kept one is reused
    only when it already went through exactly these steps)."""
    steps = tls_steps(ftp.hostname, tls, before_login=True)
    steps += login_steps(ftp, options, login)
    steps += tls_steps(ftp.hostname, tls, before_login=False)
    for index, segment in enumerate(ftp.cwd):
        steps.append(
            Step.line(
                b"CWD " + to_octets(segment),
                values=[WireValue(f"cwd[{index}]", to_octets(segment), CONTEXT)],
                role=FTPRole.CWD,
            )
        )
    return [_on_new_connection(step) for step in steps] if reuse else steps


def _data_steps(
    command: bytes, name_values: list[WireValue], *, resumed: int, facts: bool, reuse: bool
) -> list[Step]:
    """Passive mode (``EPSV``, ``PASV`` if refused; either again while the policy refuses
    the data port it named, a bounded number of times: ``resolvers.policy.DATA_PORT_RETRIES``),
    ``REST`` under ``-C``, the transfer command (``MLSD``/``LIST -a`` as FEAT decides, for a
    directory, then the plain ``LIST`` where ``LIST -a`` was refused, or listed nothing or
    only ``-a``: a new data connection for it), ``QUIT``."""
    epsv_when = EPSV_ON_BYTES_MISSING if resumed else None
    steps = [
        Step.line("EPSV", when=epsv_when, role=FTPRole.EPSV),
        Step.line("EPSV", when=EPSV_ON_PORT_REFUSED, role=FTPRole.EPSV_AGAIN),
        Step.line("PASV", when=PASV_ON_EPSV_REFUSED, role=FTPRole.PASV),
        Step.line("PASV", when=PASV_ON_PORT_REFUSED, role=FTPRole.PASV_AGAIN),
    ]
    if resumed:
        steps.append(Step.line(f"REST {resumed}", when=REST_ON_BYTES_MISSING, role=FTPRole.REST))
    if facts:
        steps.append(Step.line("MLSD", when=MLSD_IF_MLST, role=FTPRole.TRANSFER))
        steps.append(Step.line("LIST -a", when=LIST_IF_NO_MLST, role=FTPRole.LIST))
        steps.append(Step.line("LIST", when=LIST_ON_ALL_REFUSED, role=FTPRole.LIST_PLAIN))
        steps.append(Step.line("EPSV", when=EPSV_TO_RELIST, role=FTPRole.RELIST_EPSV))
        steps.append(Step.line("PASV", when=PASV_TO_RELIST, role=FTPRole.RELIST_PASV))
        steps.append(Step.line("LIST", when=RELIST_IF_NOTHING, role=FTPRole.RELIST))
    else:
        steps.append(Step.line(command, values=name_values, role=FTPRole.TRANSFER))
    quit_when = QUIT_WHEN_LET_GO if reuse else QUIT_AFTER_TRANSFER
    steps.append(Step.line("QUIT", when=quit_when, role=FTPRole.QUIT))
    return steps


def plan_ftp(url: URL, options: Options) -> Plan:
    """The plan for an ``ftp:`` URL (pure)."""
    if not isinstance(url, FTPURL):
        raise PlanError(f"not an ftp: URL: {url}", component="scheme")
    ftp = url
    if not ftp.host:
        raise PlanError("an ftp: URL needs a host (§3.2)", component="host")
    typecode = (ftp.typecode or "").lower() or None
    if typecode not in (None, "a", "i", "d"):
        raise PlanError(f";type={ftp.typecode} is not a, i or d (§3.2.2)", component="typecode")
    explicit = TLSMode.EXPLICIT if options.of(FTPOptions).ssl else None
    tls = TLSMode.IMPLICIT if ftp.scheme == "ftps" else explicit
    if tls is None:
        proxy = _http_proxy(ftp, options)
        if proxy is not None:
            return _plan_through_http_proxy(ftp, options, proxy)
    login = choose_login(ftp, options)
    key = session_key(ftp, login, tls)
    # A client's shared connections (Options.shared) keep FTP control connections.
    reuse = options.shared is not None
    steps = _setup_steps(ftp, options, login, tls, reuse=reuse)
    listing = typecode == "d" or (typecode is None and ftp.name == "")
    name_values = [WireValue("name", to_octets(ftp.name), CONTEXT)] if ftp.name else []
    if options.head and not listing:
        return _head_plan(
            ftp,
            typecode,
            steps,
            key,
            tls,
            name_values,
            reuse=reuse,
            size=options.of(FTPOptions).head_size,
        )
    offset = options.resume_from
    facts = listing and typecode != "d"
    if listing:
        transfer_type = None
        command = b"NLST " + to_octets(ftp.name) if ftp.name else b"NLST"
        if facts:
            # A directory URL (…/dir/): what a person looks at — type, size, time — from
            # MLSD where FEAT lists MLST (RFC 3659), else LIST; NLST stays for ;type=d.
            steps.append(Step.line("FEAT", role=FTPRole.FEAT))
    else:
        transfer_type = _retr_steps(ftp, typecode, offset, name_values, steps)
        command = b"RETR " + to_octets(ftp.name)
        if options.of(FTPOptions).mdtm:
            # The file's exact time with its transfer (FTPOptions.mdtm; RFC 3659 §3).
            steps.append(
                Step.line(b"MDTM " + to_octets(ftp.name), values=name_values, role=FTPRole.MDTM)
            )
    # (REST only in TYPE I: a TYPE A resume is a whole transfer, the part skipped)
    resumed = offset if offset > 0 and transfer_type == "I" else 0
    steps += _data_steps(command, name_values, resumed=resumed, facts=facts, reuse=reuse)
    port = ftp.effective_port
    return Plan(
        url=url,
        scheme=ftp.scheme,
        host=ftp.hostname,
        port=port,
        transport="tcp",
        steps=tuple(steps),
        explicit_port=ftp.port is not None,
        details=FTPDetails(
            session=key,
            listing=listing,
            type=transfer_type,
            name=ftp.name,
            resumable=not listing,
            offset=offset if not listing else 0,
            tls=tls,
            listing_format=(
                (ListingFormat.FACTS if facts else ListingFormat.NLST) if listing else None
            ),
        ),
    )


def _head_plan(
    ftp: FTPURL,
    typecode: str | None,
    steps: list[Step],
    key: SessionKey,
    tls: TLSMode | None,
    values: list[WireValue],
    *,
    reuse: bool = False,
    size: bool = True,
) -> Plan:
    """``-I``: the file's size and modification time, nothing transferred.  ``TYPE I``
    first, as curl sends it: RFC 3659 §4's SIZE counts octets in the current type, and
    ProFTPD and vsftpd refuse it in ASCII, the type a session starts in (measured: ProFTPD
    1.3.8 "550 SIZE not allowed in ASCII mode").  With kept connections (``reuse``) the
    ``QUIT`` waits until the connection is let go, as a transfer's does (§3.2.5): a mirror
    asking SIZE and MDTM of each file of a directory used to log in once a file.  Without
    ``size`` (``FTPOptions.head_size``) only ``MDTM`` is asked: a mirror wants the time of a
    file it has just counted, one round trip a file instead of two.  ``resumable``: ``-C``
    continues the file's transfer with ``REST`` (a ``TYPE I`` one: ``;type=i``, or a name
    not guessed ``text/*``; ``TYPE A`` is fetched whole again): ``-I`` then offers
    ``Accept-ranges: bytes``, as curl's ``-I`` on ftp: does."""
    name = to_octets(ftp.name)
    sizing = [
        Step.line("TYPE I", role=FTPRole.TYPE, detail=TransferType(guessed=False)),
        Step.line(b"SIZE " + name, values=values, role=FTPRole.SIZE),
    ]
    steps = [
        *steps,
        *(sizing if size else ()),
        Step.line(b"MDTM " + name, values=values, role=FTPRole.MDTM),
        Step.line("QUIT", when=QUIT_WHEN_LET_GO if reuse else None, role=FTPRole.QUIT),
    ]
    return Plan(
        url=ftp,
        scheme=ftp.scheme,
        host=ftp.hostname,
        port=ftp.effective_port,
        transport="tcp",
        steps=tuple(steps),
        explicit_port=ftp.port is not None,
        details=FTPDetails(
            session=key,
            listing=False,
            type=None,
            name=ftp.name,
            # (-C continues it with REST in TYPE I only: TYPE A comes whole again)
            resumable=_transfer_type(typecode, ftp.name) == "I",
            offset=0,
            tls=tls,
            head=True,
        ),
    )


def tls_steps(host: str, tls: str | None, *, before_login: bool) -> list[Step]:
    """RFC 4217's steps: ``AUTH TLS`` and the handshake before the login (implicit TLS:
    the handshake only); ``PBSZ 0`` and ``PROT P`` after it (§8, §9), so that every data
    connection is protected too."""
    if tls is None:
        return []
    if not before_login:
        return [Step.line("PBSZ 0", role=FTPRole.PBSZ), Step.line("PROT P", role=FTPRole.PROT)]
    handshake = Step(
        b"", f"TLS handshake with {host} (its certificate verified)", kind="info", role=FTPRole.TLS
    )
    if tls is TLSMode.IMPLICIT:
        return [handshake]
    return [Step.line("AUTH TLS", role=FTPRole.AUTH), handshake]


__all__ = [
    "CONTEXT",
    "MASK",
    "FTPDetails",
    "FTPRole",
    "Login",
    "Password",
    "PasswordSource",
    "TransferType",
    "choose_login",
    "guess_type",
    "login_steps",
    "plan_ftp",
    "session_key",
    "tls_steps",
]
