"""Passwords are never shown (JSON, errors, -v, manifests) and a server's words cannot drive
the terminal: control characters in messages are escaped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _ftphttp import run_cli

from omniurl.cli.emit import terminal_safe
from omniurl.schemes.errors import OmniurlError
from omniurl.schemes.secrets import mask_passwords
from omniurl.testservers.ftp_server import start_ftp


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("ftp://u:SECRET@h/x", "ftp://u:****@h/x"),
        ("see ftp://u:p%40ss@h:21/ and http://a:b@c/", "see ftp://u:****@h:21/ and http://a:****@c/"),
        ("ftp://u@h/x", "ftp://u@h/x"),  # no password: nothing to hide
        ("mailto:joe@example.org", "mailto:joe@example.org"),
        ("no url here: a:b@c", "no url here: a:b@c"),
    ],
)  # fmt: skip
def test_mask_passwords(text: str, shown: str) -> None:
    assert mask_passwords(text) == shown


def test_every_error_message_is_masked() -> None:
    assert "SECRET" not in str(OmniurlError("cannot reach ftp://u:SECRET@h/: refused"))


def test_control_characters_are_escaped_for_the_terminal() -> None:
    assert terminal_safe("550 \x1b]0;owned\x07 no\tfile") == "550 \\x1b]0;owned\\x07 no\tfile"
    assert terminal_safe("plain text") == "plain text"
    # The gateway's page text keeps its line ends (checked in C, not per character) but
    # still escapes what else a server sent: a kept character never lets another through.
    page = "line one\r\n\tline two\n"
    assert terminal_safe(page, keep="\t\n\r") is page
    assert terminal_safe(page + "\x1b[2J\x85", keep="\t\n\r") == page + "\\x1b[2J\\x85"
    assert terminal_safe(page) == "line one\\r\\n\tline two\\n"


async def test_get_json_and_verbose_never_show_the_password(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_bytes(b"data\n")
    ftp = await start_ftp(tmp_path, users={"u": "SECRETPW"})
    try:
        url = f"ftp://u:SECRETPW@{ftp.netloc}/f.txt"
        status, out, err = await run_cli("get", "--json", "-v", url)
        missing = f"ftp://u:SECRETPW@{ftp.netloc}/nope.txt"
        status2, out2, err2 = await run_cli("get", missing)
        manifest = tmp_path / "m.jsonl"
        status3, _o, err3 = await run_cli("get", "--manifest", str(manifest), url, missing)
    finally:
        await ftp.close()
    assert status == 0, err
    assert json.loads(out.splitlines()[-1])["url"] == f"ftp://u:****@{ftp.netloc}/f.txt"
    assert status2 == 5 and status3 == 5
    for text in (out, err, out2, err2, err3, manifest.read_bytes()):
        assert b"SECRETPW" not in text
    assert b"PASS ****" in err


async def test_plan_of_a_userinfo_the_scheme_does_not_take_does_not_echo_it() -> None:
    status, out, _err = await run_cli("plan", "nntp://u:SECRETPW@h/")
    assert status == 2
    assert b"SECRETPW" not in out
    assert json.loads(out)["error"]["component"] == "user"


async def test_a_malformed_mailto_address_is_a_typed_refusal() -> None:
    status, out, err = await run_cli("plan", "mailto:a@%5Bx")
    assert status == 2, err
    assert json.loads(out)["error"]["type"] == "MailAddressRefused"
    assert b"Traceback" not in err
