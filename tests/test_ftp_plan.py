"""The FTP planner against RFC 1738 §3.2: exact command lines, no I/O."""

from __future__ import annotations

import pytest

from omniurl import resolvers
from omniurl.resolvers import Options
from omniurl.resolvers.errors import DelimiterRefused, PlanError
from omniurl.resolvers.ftp.planner import FTPRole, Password

OPTS = Options(email="tester@example.org")

#: Passive mode: EPSV; EPSV again while the policy refuses its port; PASV if EPSV is refused;
#: PASV again likewise (each conditional but the first).
PASSIVE = ["EPSV", "EPSV", "PASV", "PASV"]


def steps(url: str, options: Options = OPTS) -> list[str]:
    return resolvers.plan(url, options).to_json()["steps"]


def wire(url: str, options: Options = OPTS) -> list[bytes]:
    return [s.data for s in resolvers.plan(url, options).steps]


def test_rfc_example_percent_2f_stays_inside_its_cwd_argument() -> None:
    # §3.2.2: "ftp://myname@host.dom/%2Fetc/motd" -> CWD /etc, RETR motd
    assert steps("ftp://myname@host.dom/%2Fetc/motd") == [
        "USER myname",
        "PASS ****",
        "CWD /etc",
        "TYPE I",
        "EPSV",
        "EPSV",  # again, only when the policy refused the data port the first one named
        "PASV",
        "PASV",  # (the same, for PASV)
        "RETR motd",
        "QUIT",
    ]


def test_rfc_example_empty_segment_is_a_null_argument_cwd() -> None:
    # §3.2.2: "ftp://myname@host.dom//etc/motd" -> CWD (null), CWD etc, RETR motd
    assert wire("ftp://myname@host.dom//etc/motd")[2:4] == [b"CWD ", b"CWD etc"]
    assert steps("ftp://myname@host.dom//etc/motd")[2:4] == ["CWD ", "CWD etc"]


def test_anonymous_login_sends_the_email_address_as_password() -> None:
    p = resolvers.plan("ftp://ftp.example.org/pub/file.bin", OPTS)
    assert [s.data for s in p.steps[:2]] == [b"USER anonymous", b"PASS tester@example.org"]
    assert p.steps[1].shown == "PASS ****"
    assert p.steps[1].when == "reply 331"


def test_password_from_url_is_sent_but_never_shown() -> None:
    p = resolvers.plan("ftp://joe:s3cret@h/f.bin", OPTS)
    assert p.steps[1].data == b"PASS s3cret"
    assert "s3cret" not in str(p.to_json())


def test_user_without_password_is_asked_at_run_time_not_sent_empty() -> None:
    p = resolvers.plan("ftp://joe@h/f.bin", OPTS)
    assert p.steps[1].detail == Password("ask")
    assert p.steps[1].role is FTPRole.PASS
    assert p.steps[1].shown == "PASS ****"


def test_user_without_password_takes_matching_credentials() -> None:
    opts = OPTS.with_(credentials={"h": ("joe", "pw")})
    step = resolvers.plan("ftp://joe@h/f.bin", opts).steps[1]
    assert (step.data, step.detail) == (b"PASS pw", Password("credentials"))
    # credentials for another user are not used
    other = OPTS.with_(credentials={"h": ("ann", "pw")})
    assert resolvers.plan("ftp://joe@h/f.bin", other).steps[1].detail == Password("ask")


#: After ``LIST -a``: the plain LIST where it is refused, and the re-list's three steps.
RELIST = ["LIST", "EPSV", "PASV", "LIST"]


@pytest.mark.parametrize(
    ("url", "tail"),
    [
        ("ftp://h/a/b;type=a", ["CWD a", "TYPE A", *PASSIVE, "RETR b", "QUIT"]),
        ("ftp://h/a/b;type=i", ["CWD a", "TYPE I", *PASSIVE, "RETR b", "QUIT"]),
        ("ftp://h/a/b;type=d", ["CWD a", *PASSIVE, "NLST b", "QUIT"]),
        ("ftp://h/a/;type=d", ["CWD a", *PASSIVE, "NLST", "QUIT"]),
        # a directory URL: MLSD or LIST -a (dotfiles too; plain LIST where -a is refused,
        # or after it listed nothing or only "-a": EPSV or PASV again for it) for types,
        # sizes and times (issue 11)
        ("ftp://h/a/", ["CWD a", "FEAT", *PASSIVE, "MLSD", "LIST -a", *RELIST, "QUIT"]),
        ("ftp://h/", ["FEAT", *PASSIVE, "MLSD", "LIST -a", *RELIST, "QUIT"]),
        ("ftp://h/notes.txt", ["TYPE A", *PASSIVE, "RETR notes.txt", "QUIT"]),
        ("ftp://h/image.tar.gz", ["TYPE I", *PASSIVE, "RETR image.tar.gz", "QUIT"]),
        ("ftp://h/noext", ["TYPE I", *PASSIVE, "RETR noext", "QUIT"]),
    ],
)
def test_typecodes_and_guessed_types(url: str, tail: list[str]) -> None:
    assert steps(url)[2:] == tail


def test_conditional_steps_say_their_condition() -> None:
    p = resolvers.plan("ftp://h/f.bin", OPTS)
    when = {s.role: s.when for s in p.steps}
    assert when[FTPRole.EPSV] is None
    assert when[FTPRole.EPSV_AGAIN] == "the policy refused the port EPSV named; at most 3 times"
    assert when[FTPRole.PASV] == "EPSV refused"
    assert when[FTPRole.PASV_AGAIN] == "the policy refused the port PASV named; at most 3 times"
    assert when[FTPRole.TRANSFER] is None


def test_a_refused_data_port_is_asked_for_again_at_most_three_times() -> None:
    """The "again" steps are due on the count of data ports the policy refused so far (this
    one included): 1, 2, 3 — never 0 (nothing refused), never a fourth time."""
    p = resolvers.plan("ftp://h/f.bin", OPTS)
    for role in (FTPRole.EPSV_AGAIN, FTPRole.PASV_AGAIN):
        (step,) = (s for s in p.steps if s.role is role)
        assert [step.due(n) for n in range(5)] == [False, True, True, True, False]


def test_plan_json_contract() -> None:
    out = resolvers.plan("ftp://h:2121/f.bin", OPTS).to_json()
    # The keys are a contract: never renamed or removed.
    assert list(out) == ["url", "scheme", "host", "port", "transport", "steps", "when"]
    assert (out["scheme"], out["host"], out["port"], out["transport"]) == ("ftp", "h", 2121, "tcp")


def test_empty_name_with_a_retrieval_typecode_is_a_plan_error() -> None:
    with pytest.raises(PlanError) as info:
        resolvers.plan("ftp://h/dir/;type=i", OPTS)
    assert info.value.component == "name"


@pytest.mark.parametrize(
    ("url", "component", "octet"),
    [
        ("ftp://h/a%0D%0ADELE%20x/f", "cwd[0]", 0x0D),
        ("ftp://h/a/f%0Aname", "name", 0x0A),
        ("ftp://us%00er@h/f", "user", 0x00),
        ("ftp://u:pa%FFss@h/f", "password", 0xFF),
        ("ftp://h/%FF%F4/f", "cwd[0]", 0xFF),
    ],
)
def test_delimiters_in_any_ftp_argument_are_refused(url: str, component: str, octet: int) -> None:
    with pytest.raises(DelimiterRefused) as info:
        resolvers.check(url, OPTS)
    assert info.value.component == component
    assert info.value.octet == octet


def test_email_with_a_line_break_is_refused_too() -> None:
    with pytest.raises(DelimiterRefused) as info:
        resolvers.check("ftp://h/f", OPTS.with_(email="me@x\r\nDELE f"))
    assert info.value.component == "email"
