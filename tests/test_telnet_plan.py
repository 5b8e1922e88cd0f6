"""telnet planner (RFC 1738 §3.8): advisory credentials, --login expect/send steps, scripts,
and the policy's "telnet" context (curl CVE-2023-27533) — all pure, nothing sent."""

from __future__ import annotations

import pytest

from omniurl.resolvers import Options, check, plan
from omniurl.resolvers.errors import DelimiterRefused, PlanError, PortRefused
from omniurl.resolvers.telnet import parse_script
from omniurl.resolvers.telnet.planner import (
    DEFAULT_LOGIN_PROMPT,
    DEFAULT_PASSWORD_PROMPT,
    LoginCheck,
    ScriptStep,
    TelnetRole,
)
from omniurl.resolvers.telnet.settings import TelnetOptions

LOGIN = Options(schemes=(TelnetOptions(login=True),))


def test_default_plan_is_a_session_and_sends_nothing() -> None:
    p = plan("telnet://demo:secret@host.example/")
    assert (p.host, p.port, p.transport, p.explicit_port) == ("host.example", 23, "tcp", False)
    assert [s.kind for s in p.steps] == ["info"]
    assert p.steps[0].shown == (
        "open an interactive session (RFC 1738 §3.8): advisory user 'demo', password given "
        "(not sent; --login answers the prompts)"
    )
    assert list(p.wire_values()) == []
    assert "secret" not in str(p.to_json()["steps"])


def test_login_plan_answers_the_prompts_with_user_and_masked_password() -> None:
    p = plan("telnet://demo:s3cret@host.example:2323", LOGIN)
    assert (p.port, p.explicit_port) == (2323, True)
    kinds = [s.kind for s in p.steps]
    assert kinds == ["info", "expect", "send", "expect", "send", "expect"]
    assert p.steps[1].data == DEFAULT_LOGIN_PROMPT.encode()
    assert p.steps[2].data == b"demo"
    assert p.steps[2].shown == "send demo"
    assert p.steps[3].data == DEFAULT_PASSWORD_PROMPT.encode()
    assert p.steps[4].data == b"s3cret"
    assert p.steps[4].shown == "send ****"
    assert p.steps[5].role is TelnetRole.LOGIN_OUTCOME
    assert p.steps[5].detail == LoginCheck(DEFAULT_LOGIN_PROMPT)
    assert [s.when for s in p.steps] == [None] * 6
    assert [(v.component, v.value, v.context) for v in p.wire_values()] == [
        ("user", b"demo", "telnet"),
        ("password", b"s3cret", "telnet"),
    ]
    assert "s3cret" not in str(p.to_json()["steps"])


def test_login_without_password_answers_only_the_login_prompt() -> None:
    p = plan("telnet://guest@host.example/", LOGIN)
    assert [s.shown for s in p.steps if s.kind == "send"] == ["send guest"]
    assert not any(v.component == "password" for v in p.wire_values())


def test_login_without_user_sends_nothing() -> None:
    p = plan("telnet://host.example/", LOGIN)
    assert [s.kind for s in p.steps] == ["info"]
    assert p.steps[0].shown.startswith("open an interactive session (RFC 1738 §3.8): no user")


def test_prompts_are_configurable() -> None:
    options = Options(
        schemes=(
            TelnetOptions(
                login=True,
                login_prompt=r"Benutzer:\s*$",
                password_prompt=r"Kennwort:\s*$",
            ),
        )
    )
    p = plan("telnet://a:b@h.example/", options)
    assert [s.data for s in p.steps if s.kind == "expect"][:2] == [
        rb"Benutzer:\s*$",
        rb"Kennwort:\s*$",
    ]


@pytest.mark.parametrize(
    ("url", "component", "octet"),
    [
        ("telnet://us%FFer:pw@h.example/", "user", 0xFF),  # IAC (CVE-2023-27533)
        ("telnet://a%0D%0Ab:pw@h.example/", "user", 0x0D),
        ("telnet://a%00:pw@h.example/", "user", 0x00),
        ("telnet://a%1B%5B2J:pw@h.example/", "user", 0x1B),  # ESC: terminal control
        ("telnet://%C3%A9:pw@h.example/", "user", 0xC3),  # not ASCII
        ("telnet://a:p%FFw@h.example/", "password", 0xFF),
        ("telnet://a:p%0Aw@h.example/", "password", 0x0A),
    ],
)
def test_policy_refuses_non_ascii_or_control_user(url: str, component: str, octet: int) -> None:
    with pytest.raises(DelimiterRefused) as info:
        check(url, LOGIN)
    assert info.value.component == component
    assert info.value.octet == octet


def test_refused_user_is_only_refused_when_it_would_be_sent() -> None:
    # Without --login the advisory user is never sent, so nothing is there to refuse.
    assert check("telnet://us%FFer@h.example/").steps[0].kind == "info"


def test_port_policy_applies() -> None:
    with pytest.raises(PortRefused):
        check("telnet://h.example:25/")
    assert check("telnet://h.example:23/").port == 23


def test_script_steps_follow_the_login() -> None:
    script = parse_script("# a comment\n\nexpect $ \nsend whoami\nexpect-re ^demo\\s\nsend\n")
    assert script == (
        ScriptStep("expect", "$ "),
        ScriptStep("send", "whoami"),
        ScriptStep("expect-re", "^demo\\s"),
        ScriptStep("send", ""),
    )
    p = plan(
        "telnet://a:b@h.example/", Options(schemes=(TelnetOptions(login=True, script=script),))
    )
    tail = p.steps[6:]
    assert [(s.kind, s.data, s.shown) for s in tail] == [
        ("expect", rb"\$\ ", "expect '$ '"),
        ("send", b"whoami", "send whoami"),
        ("expect", rb"^demo\s", "expect /^demo\\s/"),
        ("send", b"", "send "),
    ]
    # Script text is the caller's, not the URL's: it is not a URL value for the policy.
    assert [v.component for v in p.wire_values()] == ["user", "password"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("wait 5\n", "line 1: 'wait' is not expect, expect-re or send"),
        ("send x\nexpect\n", "line 2: expect what?"),
        ("expect-re (\n", "line 1: bad regular expression"),
    ],
)
def test_script_errors_name_the_line(text: str, message: str) -> None:
    with pytest.raises(PlanError) as info:
        parse_script(text)
    assert message in str(info.value)
    assert info.value.component == "script"


def test_script_given_as_text_through_options() -> None:
    p = plan("telnet://h.example/", Options(schemes=(TelnetOptions(script="send help\n"),)))
    assert [(s.kind, s.data) for s in p.steps] == [("info", b""), ("send", b"help")]


def test_bad_prompt_pattern_is_a_plan_error() -> None:
    with pytest.raises(PlanError) as info:
        plan("telnet://a:b@h.example/", Options(schemes=(TelnetOptions(login_prompt="login:("),)))
    assert info.value.component == "login_prompt"
