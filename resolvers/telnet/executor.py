"""The telnet executor (I/O): open the connection, carry out the plan's expect/send steps,
hand back the live :class:`~resolvers.telnet.session.TelnetSession`.

The connection goes to the addresses :func:`resolvers.net.resolve_addresses` approved (the
policy's address rules, ``--resolve``), through telnetlib3's client in bytes mode
(``client_factory=TelnetClient``: never the terminal client, even when stdin is a TTY).
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
from typing import Any

import telnetlib3
from telnetlib3.telopt import BINARY

from ..errors import AuthError, ConnectError, ResolveTimeout
from ..net import resolve_addresses
from ..options import Options
from ..plan import Plan, Step
from ..resource import Resource
from .login import login_outcome
from .planner import SHELL_PROMPT, Awaited, LoginCheck, TelnetDetails, TelnetRole
from .session import TelnetSession

#: How long the login outcome may stay silent before we take the login as accepted (when no
#: shell prompt shows it sooner).  Longer than login(1)'s delay after a failure under PAM
#: (pam_faildelay: 3 s in Debian's /etc/pam.d/login), so "Login incorrect" is not missed.
OUTCOME_QUIET = 4.0


class NVTClient(telnetlib3.TelnetClient):
    """telnetlib3's client, kept in NVT mode: BINARY (RFC 856) is refused both ways.

    In NVT mode CR LF is the end of line and the server turns it into the one its terminal
    expects (RFC 854).  In binary mode octets pass as they are: a real telnetd (inetutils)
    then hands CR *and* LF to the pty, which reads two line ends — the password prompt gets
    an empty line.  telnet(1) stays in NVT mode too unless asked for binary.
    """

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        writer = self.writer
        assert writer is not None  # set by connection_made
        writer.always_wont = set(writer.always_wont) | {BINARY}
        writer.always_dont = set(writer.always_dont) | {BINARY}


async def connect(plan: Plan, options: Options) -> TelnetSession:
    """A telnet connection to the plan's host and port (policy-checked addresses)."""
    assert plan.host is not None and plan.port is not None
    addresses = await resolve_addresses(plan.host, plan.port, options)
    last: str = ""
    for address, port in addresses:
        options.note("*", f"connecting to {address} port {port}")
        try:
            reader, writer = await asyncio.wait_for(
                telnetlib3.open_connection(
                    address,
                    port,
                    encoding=False,
                    client_factory=NVTClient,
                    # What the server may ask for (TTYPE, NAWS): the terminal we run in.
                    term=os.environ.get("TERM", "unknown"),
                    cols=shutil.get_terminal_size().columns,
                    rows=shutil.get_terminal_size().lines,
                    connect_minwait=0.0,
                    connect_maxwait=min(2.0, options.connect_timeout),
                    connect_timeout=options.connect_timeout,
                ),
                options.connect_timeout + 2.5,
            )
        except TimeoutError:
            raise ResolveTimeout(
                f"timed out after {options.connect_timeout:g} s connecting to "
                f"{plan.host}:{plan.port}",
                component="host",
            ) from None
        except OSError as exc:  # ConnectionError included
            last = exc.strerror or str(exc)
            continue
        return TelnetSession(reader, writer, options, host=plan.host, port=plan.port)
    raise ConnectError(f"cannot connect to {plan.host}:{plan.port}: {last}", component="host")


async def _login_outcome(session: TelnetSession, step: Step) -> None:
    """After the login answers: refuse on the server's failure words or a new login prompt;
    accept on a shell prompt or once the server stays quiet.  Nothing is consumed."""
    failed = re.compile(step.data)
    again = re.compile(step.detail_as(LoginCheck).login_prompt.encode())
    prompt = re.compile(SHELL_PROMPT.encode())
    loop = asyncio.get_running_loop()
    deadline = loop.time() + session.options.read_timeout
    while loop.time() < deadline:
        outcome = login_outcome(session.peek(), failed, again, prompt)
        if outcome.verdict == "refused":
            raise AuthError(
                f"the telnet server refused the login: {outcome.said}", component="user"
            )
        if outcome.verdict == "accepted":
            return
        try:
            quiet = min(OUTCOME_QUIET, max(0.0, deadline - loop.time()))
            more = await session.fill(quiet, "the login outcome")
        except ResolveTimeout:
            return  # quiet: no refusal came
        if not more:
            return


async def execute(plan: Plan, options: Options) -> Resource:
    """Connect and carry out the plan's steps, in order; return the session resource."""
    session = await connect(plan, options)
    try:
        for step in plan.steps:
            if step.kind == "info":
                options.note("*", step.shown)
            elif step.role is TelnetRole.LOGIN_OUTCOME:
                await _login_outcome(session, step)
            elif step.kind == "expect":
                component = step.detail_as(Awaited).component
                await session.expect(re.compile(step.data), component=component)
            elif step.kind == "send":
                secret = any(v.component == "password" for v in step.values)
                await session.send(step.data, shown="****" if secret else None)
    except BaseException:
        await session.close()
        raise
    details = plan.details_as(TelnetDetails)
    user = details.user
    return Resource(
        plan,
        kind="session",
        session=session,
        metadata={
            "host": plan.host,
            "port": plan.port,
            "user": user,
            "password_given": details.password_given,
            "advisory": True,
            "logged_in": any(s.role is TelnetRole.LOGIN_OUTCOME for s in plan.steps),
        },
        close=session.close,
    )
