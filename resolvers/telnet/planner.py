"""The telnet planner (pure): a ``telnet:`` URL -> the expect/send steps of a session.

RFC 1738 §3.8: a telnet URL "designates access to interactive services via the Telnet
Protocol"; its user name and password are *advisory* — the client may use them to log in,
but the URL does not mean an automatic login.  So, by default, the plan is just a session to
``host:port`` with the advisory credentials reported.  When the caller asks for it
(``TelnetOptions.login``, ``--login`` on the command line), the plan answers the
server's login and password prompts with them: ``expect`` the login prompt, ``send`` the
user, ``expect`` the password prompt, ``send`` the password (masked in the plan).  A script
(``telnet_script``: expect/send pairs, ``--script FILE``) adds its steps after those.

Every value sent comes from the URL or the caller and is tagged for the policy: the user and
password go into the "telnet" context (ASCII without controls or IAC: curl CVE-2023-27533).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from omniurl.schemes.base import URL
from omniurl.schemes.percent import to_octets
from omniurl.schemes.records import record
from omniurl.schemes.telnet import TelnetURL

from ..errors import PlanError
from ..plan import Plan, Role, Step, WireValue
from .settings import DEFAULT_LOGIN_PROMPT as DEFAULT_LOGIN_PROMPT
from .settings import DEFAULT_PASSWORD_PROMPT as DEFAULT_PASSWORD_PROMPT

#: What servers say when the login was refused (login(1), PAM, many embedded devices).
LOGIN_FAILED = (
    r"(?i)login incorrect|authentication fail|access denied|invalid (?:login|password|user)"
    r"|permission denied"
)
#: A shell prompt after a successful login ("$ ", "# ", "> ", "% " at the end).
SHELL_PROMPT = r"[$#>%]\s*$"

# The typed options (TelnetOptions) and the default prompts live in .settings.


@record(frozen=True)
class ScriptStep:
    """One line of a ``--script`` file: ``expect`` (literal text), ``expect-re`` (a regular
    expression) or ``send`` (a line, sent with the NVT end of line CR LF)."""

    action: str
    text: str


def parse_script(text: str) -> tuple[ScriptStep, ...]:
    """Read a script: one ``expect TEXT``, ``expect-re REGEX`` or ``send TEXT`` per line;
    blank lines and lines starting with ``#`` are ignored.  Only the line ending is removed
    from TEXT, so ``expect $ `` waits for a dollar and a space."""
    steps: list[ScriptStep] = []
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        action, _, rest = raw.partition(" ")
        if action not in ("expect", "expect-re", "send"):
            raise PlanError(
                f"script line {number}: {action!r} is not expect, expect-re or send",
                component="script",
            )
        if action == "expect-re":
            try:
                re.compile(rest.encode())
            except re.error as exc:
                raise PlanError(
                    f"script line {number}: bad regular expression: {exc}", component="script"
                ) from None
        if action != "send" and not rest:
            raise PlanError(f"script line {number}: expect what?", component="script")
        steps.append(ScriptStep(action, rest))
    return tuple(steps)


@record(frozen=True)
class TelnetDetails:
    """What the telnet executor reports: the advisory user (§3.8) and whether the URL gave
    a password (never the password itself)."""

    user: str | None
    password_given: bool
    #: Run without a person (``--script``): the transcript is the result.
    scripted: bool = False


class TelnetRole(Role):
    """What each step of a telnet session plan is for."""

    NOTE = "note"
    LOGIN_PROMPT = "login-prompt"
    USER = "user"
    PASSWORD_PROMPT = "password-prompt"
    PASSWORD = "password"
    LOGIN_OUTCOME = "login-outcome"
    SCRIPT_SEND = "script-send"
    SCRIPT_EXPECT = "script-expect"


@record(frozen=True)
class Awaited:
    """An ``expect`` step's detail: the URL or script part a timeout is blamed on."""

    component: str


@record(frozen=True)
class LoginCheck:
    """The login outcome step's detail: the login prompt, whose return means a refusal
    (the step's own data is the pattern of the server's failure words)."""

    login_prompt: str


def _expect(pattern: str, shown: str, role: TelnetRole, component: str) -> Step:
    return Step(
        data=pattern.encode("utf-8"),
        shown=shown,
        kind="expect",
        role=role,
        detail=Awaited(component),
    )


def plan_telnet(
    url: URL,
    *,
    auto_login: bool,
    login_prompt: str,
    password_prompt: str,
    script: Sequence[ScriptStep] | None = None,
) -> Plan:
    """The session plan for ``url`` (see the module docstring)."""
    if not isinstance(url, TelnetURL):
        raise PlanError(f"not a telnet URL: {url}", component="scheme")
    for name, pattern in (("login_prompt", login_prompt), ("password_prompt", password_prompt)):
        try:
            re.compile(pattern.encode("utf-8"))
        except re.error as exc:
            raise PlanError(f"{name}: bad regular expression: {exc}", component=name) from None
    user, password = url.user, url.password
    advisory = "no user" if user is None else f"advisory user {user!r}"
    if password is not None:
        advisory += ", password given"
    steps: list[Step] = [
        Step(
            data=b"",
            shown=f"open an interactive session (RFC 1738 §3.8): {advisory}"
            + ("" if auto_login else " (not sent; --login answers the prompts)"),
            kind="info",
            role=TelnetRole.NOTE,
        )
    ]
    if auto_login and user is not None:
        steps.append(
            _expect(login_prompt, f"expect /{login_prompt}/", TelnetRole.LOGIN_PROMPT, "user")
        )
        steps.append(
            Step.line(
                to_octets(user),
                shown=f"send {user}",
                values=[WireValue("user", to_octets(user), "telnet")],
                role=TelnetRole.USER,
            )
        )
        if password is not None:
            steps.append(
                _expect(
                    password_prompt,
                    f"expect /{password_prompt}/",
                    TelnetRole.PASSWORD_PROMPT,
                    "password",
                )
            )
            steps.append(
                Step.line(
                    to_octets(password),
                    shown="send ****",
                    values=[WireValue("password", to_octets(password), "telnet")],
                    role=TelnetRole.PASSWORD,
                )
            )
        # Not conditional: it always follows the login; what it finds is decided by
        # resolvers.telnet.login.login_outcome (pure).
        steps.append(
            Step(
                data=LOGIN_FAILED.encode(),
                shown=f"expect the login outcome after the login answers: refused on "
                f"/{LOGIN_FAILED}/ or a new login prompt",
                kind="expect",
                role=TelnetRole.LOGIN_OUTCOME,
                detail=LoginCheck(login_prompt),
            )
        )
    for index, item in enumerate(script or ()):
        component = f"script[{index}]"
        if item.action == "send":
            steps.append(
                Step.line(item.text, shown=f"send {item.text}", role=TelnetRole.SCRIPT_SEND)
            )
        else:
            if item.action == "expect-re":
                pattern, shown = item.text, f"expect /{item.text}/"
            else:
                pattern, shown = re.escape(item.text), f"expect {item.text!r}"
            steps.append(_expect(pattern, shown, TelnetRole.SCRIPT_EXPECT, component))
    port = url.effective_port
    return Plan(
        url=url,
        scheme=url.scheme,
        host=url.hostname,
        port=port,
        transport="tcp",
        steps=tuple(steps),
        explicit_port=url.port is not None,
        details=TelnetDetails(
            user=user, password_given=password is not None, scripted=script is not None
        ),
    )
