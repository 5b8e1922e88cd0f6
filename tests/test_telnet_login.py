"""The telnet login outcome, decided without sockets (resolvers/telnet/login.py)."""

from __future__ import annotations

import re

import pytest

from omniurl.resolvers.telnet.login import login_outcome
from omniurl.resolvers.telnet.planner import SHELL_PROMPT

FAILED = re.compile(rb"(?i)login incorrect|authentication failure")
AGAIN = re.compile(rb"(?i)login: *$")
PROMPT = re.compile(SHELL_PROMPT.encode())


@pytest.mark.parametrize(
    ("seen", "verdict", "said"),
    [
        (b"\r\nLogin incorrect\r\n", "refused", "'Login incorrect'"),
        (b"\r\nlogin: ", "refused", "it asked for the login again"),
        (b"Last login: Mon\r\n$ ", "accepted", ""),
        (b"Last login: Mon\r\n", "wait", ""),
        (b"", "wait", ""),
    ],
)
def test_login_outcome(seen: bytes, verdict: str, said: str) -> None:
    outcome = login_outcome(seen, FAILED, AGAIN, PROMPT)
    assert (outcome.verdict, outcome.said) == (verdict, said)
