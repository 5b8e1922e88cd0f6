"""The telnet executor (I/O): open the connection, carry out the plan's expect/send steps,
hand back the live :class:`~resolvers.telnet.session.TelnetSession`.

The connection is a :class:`resolvers.net.Stream` (the policy's address rules,
``--resolve``, every wait bounded); the telnet protocol itself — commands, option
negotiation — is :class:`resolvers.telnet.nvt.NVTMachine`'s, pure and tested with bytes.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil

from .. import net
from ..errors import AuthError, ResolveTimeout
from ..options import Options
from ..plan import Plan, Step
from ..resource import Resource
from .login import login_outcome
from .nvt import NVTMachine
from .planner import SHELL_PROMPT, Awaited, LoginCheck, TelnetDetails, TelnetRole
from .result import TelnetResult
from .session import TelnetSession

#: How long the login outcome may stay silent before we take the login as accepted (when no
#: shell prompt shows it sooner).  Longer than login(1)'s delay after a failure under PAM
#: (pam_faildelay: 3 s in Debian's /etc/pam.d/login), so "Login incorrect" is not missed.
OUTCOME_QUIET = 4.0


async def connect(plan: Plan, options: Options) -> TelnetSession:
    """A telnet connection to the plan's host and port (policy-checked addresses, each
    connect bounded), in NVT mode: what the server may ask about our terminal (TTYPE,
    NAWS) is the terminal we run in (resolvers.telnet.nvt)."""
    assert plan.host is not None and plan.port is not None
    size = shutil.get_terminal_size()
    machine = NVTMachine(term=os.environ.get("TERM", "unknown"), cols=size.columns, rows=size.lines)
    stream = await net.connect(plan.host, plan.port, options.with_(proxy=None))
    return TelnetSession(stream, machine, options, host=plan.host, port=plan.port)


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
        result=TelnetResult(
            host=plan.host,
            port=plan.port,
            user=user,
            password_given=details.password_given,
            logged_in=any(s.role is TelnetRole.LOGIN_OUTCOME for s in plan.steps),
        ),
        close=session.close,
    )
