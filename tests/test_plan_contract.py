"""The plan contract every built-in planner keeps (resolvers/plan.py): each step names what it
is for with its scheme's typed role, and each conditional step carries its condition — the
words ``omniurl plan`` prints and the pure decision the executor asks, the same object."""

from __future__ import annotations

from enum import StrEnum

import pytest

from omniurl import resolvers
from omniurl.resolvers import Options
from omniurl.resolvers.ftp import FTPSessions
from omniurl.resolvers.ftp.planner import FTPDetails, FTPRole
from omniurl.resolvers.http.planner import HeaderField, HTTPDetails, HTTPRole
from omniurl.resolvers.mailto.settings import MailtoOptions
from omniurl.resolvers.nntp.settings import NNTPOptions
from omniurl.resolvers.options import Shared
from omniurl.resolvers.plan import Condition, Plan, Role, Step
from omniurl.resolvers.telnet.planner import TelnetRole
from omniurl.resolvers.telnet.settings import TelnetOptions

SESSIONS = "sessions"
NEWS = {"schemes": (NNTPOptions(server="news.example:1119"),)}
SMTP = {"schemes": (MailtoOptions(smtp="127.0.0.1:2525"),)}
TELNET_LOGIN = {"schemes": (TelnetOptions(login=True),)}

#: (url, extra options): a plan of every built-in scheme and each of its conditional forms.
PLANS = [
    ("ftp://joe@h/a/b/f.txt", {}),
    ("ftp://joe:pw@h/a/", {}),
    ("ftp://h/f.bin", {"resume": 10}),
    ("ftp://h/d/f.bin", {SESSIONS: True}),
    ("http://h:8080/p?q", {}),
    ("http://h/p", {"resume": 10}),
    ("news:a.b", NEWS),
    ("news:*", NEWS),
    ("news:1@example.com", NEWS),
    ("nntp://h/a.b/3", {}),
    ("wais://h/db?words", {}),
    ("wais://h/db/TEXT/docid", {}),
    ("gopher://h/1/dir", {}),
    ("gopher://h/7/s%09words", {}),
    ("prospero://h/pub/f.txt", {}),
    ("mailto:a@example.com", SMTP),
    (
        "mailto:a@example.com",
        {"schemes": (MailtoOptions(smtp="127.0.0.1:2525", smtp_user="me", starttls=True),)},
    ),
    ("mailto:a@example.com", {}),
    ("telnet://u:p@h/", TELNET_LOGIN),
]


def _plan(url: str, extra: dict[str, object]) -> Plan:
    options = Options(
        schemes=extra.get("schemes", ()),  # type: ignore[arg-type]
        credentials={"news.example": ("fred", "pw"), "h": ("fred", "pw")},
    )
    if "resume" in extra:
        options = options.with_(resume_from=int(str(extra["resume"])))
    if SESSIONS in extra:
        options = options.with_(shared=Shared(FTPSessions()))
    return resolvers.plan(url, options)


@pytest.mark.parametrize(("url", "extra"), PLANS)
def test_every_step_has_a_typed_role_and_every_condition_its_decision(
    url: str, extra: dict[str, object]
) -> None:
    plan = _plan(url, extra)
    for step in plan.steps:
        if step.kind != "info":  # a note sends nothing; every other step says what it is for
            assert isinstance(step.role, Role), step
            assert isinstance(step.role, StrEnum) and type(step.role) is not Role
        if step.when is None:
            assert step.condition is None, step
        else:
            # The words printed are the condition's own: written once, beside the decision.
            assert isinstance(step.condition, Condition), step
            assert step.condition.text == step.when
    json = plan.to_json()
    # The plan object's keys are a contract: roles are typed in the API, not new JSON keys.
    assert list(json) == ["url", "scheme", "host", "port", "transport", "steps", "when"]
    assert len(json["steps"]) == len(json["when"])


def test_conditions_print_as_their_words_and_decide_purely() -> None:
    plan = resolvers.plan("ftp://joe:pw@h/f.txt", Options())
    pass_step, pasv = plan.steps[1], plan.steps[5]
    assert (pass_step.role, pasv.role) == (FTPRole.PASS, FTPRole.PASV)
    assert (pass_step.due("331"), pass_step.due("230"), pass_step.due("530")) == (
        True, False, False
    )  # fmt: skip
    assert (pasv.due("229"), pasv.due("500"), pasv.due("502")) == (False, True, True)
    assert str(pasv.condition) == "EPSV refused"
    assert Step.line("NOOP").due(object())  # an unconditional step is always due


def test_ftp_with_kept_connections_names_both_conditions() -> None:
    plan = resolvers.plan("ftp://joe:pw@h/d/f.txt", Options(shared=Shared(FTPSessions())))
    by_role = {s.role: s for s in plan.steps}
    assert by_role[FTPRole.USER].when == "a new connection"
    assert by_role[FTPRole.CWD].when == "a new connection"
    # The longer words keep the reply's decision: PASS on 331 over a new connection.
    assert by_role[FTPRole.PASS].when == "a new connection; reply 331"
    assert by_role[FTPRole.PASS].due("331") and not by_role[FTPRole.PASS].due("230")
    assert by_role[FTPRole.QUIT].due(False) and not by_role[FTPRole.QUIT].due(True)


def test_details_are_typed_and_a_mismatch_is_a_defect_not_a_guess() -> None:
    ftp = resolvers.plan("ftp://h/f.bin", Options())
    assert ftp.details_as(FTPDetails).type == "I"
    with pytest.raises(TypeError, match="FTPDetails, not HTTPDetails"):
        ftp.details_as(HTTPDetails)
    http = resolvers.plan("http://h/", Options())
    headers = [s.detail_as(HeaderField) for s in http.steps if s.role is HTTPRole.HEADER]
    assert (headers[0].name, headers[0].value) == ("Host", "h")
    with pytest.raises(TypeError):
        http.steps[0].detail_as(HeaderField)  # the request line has no header detail
    assert ftp.resumable is True and ftp.listing is False


def test_the_telnet_login_outcome_is_not_a_conditional_step() -> None:
    plan = _plan("telnet://u:p@h/", TELNET_LOGIN)
    outcome = next(s for s in plan.steps if s.role is TelnetRole.LOGIN_OUTCOME)
    assert outcome.when is None and "after the login answers" in outcome.shown
