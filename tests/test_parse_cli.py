"""``omniurl parse``: the JSON contract, errors, exit status."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from omniurl.cli import main

ROOT = Path(__file__).resolve().parent.parent
AUTHORITY = ["user", "password", "host", "port", "default_port"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[dict[str, object]]]:
    status = main(["parse", *argv])
    out = capsys.readouterr().out
    return status, [json.loads(line) for line in out.splitlines()]


@pytest.mark.parametrize(
    ("url", "keys"),
    [
        ("ftp://h/a/b", ["scheme", *AUTHORITY, "cwd", "name", "typecode", "fragment"]),
        ("http://h/", ["scheme", *AUTHORITY, "path", "search", "fragment"]),
        ("https://h/", ["scheme", *AUTHORITY, "path", "search", "fragment"]),
        (
            "gopher://h/",
            ["scheme", *AUTHORITY, "gtype", "selector", "search", "gopher_plus", "fragment"],
        ),
        ("mailto:a@b", ["scheme", "address", "headers", "fragment"]),
        ("news:*", ["scheme", "newsgroup", "message_id", "fragment"]),
        ("nntp://h/g", ["scheme", *AUTHORITY, "newsgroup", "article", "fragment"]),
        ("telnet://h", ["scheme", *AUTHORITY, "trailing_slash", "fragment"]),
        (
            "wais://h/db",
            ["scheme", *AUTHORITY, "database", "search", "wtype", "wpath", "fragment"],
        ),
        ("file:///x", ["scheme", "host", "path", "fragment"]),
        (
            "prospero://h/x",
            ["scheme", *AUTHORITY, "hsoname", "fields", "version", "fragment"],
        ),
        ("mid:a@b", ["scheme", "message_id", "content_id", "fragment"]),
        ("cid:a@b", ["scheme", "content_id", "fragment"]),
        ("urn:isbn:1", ["scheme", "nid", "nss", "fragment"]),
        ("x-y:z", ["scheme", "scheme_specific_part", "fragment"]),
    ],
)
def test_keys_per_scheme(capsys: pytest.CaptureFixture[str], url: str, keys: list[str]) -> None:
    status, objs = run(capsys, url)
    assert status == 0
    assert list(objs[0]) == keys


def test_ftp_object_exactly(capsys: pytest.CaptureFixture[str]) -> None:
    status, objs = run(capsys, "FTP://myname@host.dom//etc/motd;type=A#top")
    assert status == 0
    assert objs == [
        {
            "scheme": "ftp",
            "user": "myname",
            "password": None,
            "host": "host.dom",
            "port": None,
            "default_port": 21,
            "cwd": ["", "etc"],
            "name": "motd",
            "typecode": "a",
            "fragment": "top",
        }
    ]


def test_gopher_object_exactly(capsys: pytest.CaptureFixture[str]) -> None:
    _, objs = run(capsys, "gopher://h:7070/7find%09a%20b%09+")
    assert objs[0] == {
        "scheme": "gopher",
        "user": None,
        "password": None,
        "host": "h",
        "port": 7070,
        "default_port": 70,
        "gtype": "7",
        "selector": "find",
        "search": "a b",
        "gopher_plus": "+",
        "fragment": None,
    }


def test_mailto_and_prospero_pairs_are_lists(capsys: pytest.CaptureFixture[str]) -> None:
    _, objs = run(capsys, "mailto:a@b?subject=Hi%20there&cc=c@d", "prospero://h/x;A=1")
    assert objs[0]["headers"] == [["subject", "Hi there"], ["cc", "c@d"]]
    assert objs[1]["fields"] == [["A", "1"]]


def test_non_utf8_octets_print_as_percent_xx(capsys: pytest.CaptureFixture[str]) -> None:
    _, objs = run(capsys, "ftp://h/caf%C3%A9/%FF%FEx")
    assert objs[0]["cwd"] == ["café"]
    assert objs[0]["name"] == "%FF%FEx"


def test_absent_null_and_empty_string(capsys: pytest.CaptureFixture[str]) -> None:
    _, objs = run(capsys, "ftp://@h/", "ftp://h")
    assert (objs[0]["user"], objs[0]["password"], objs[0]["name"]) == ("", None, "")
    assert (objs[1]["user"], objs[1]["password"]) == (None, None)


def test_error_object_and_exit_status_2(capsys: pytest.CaptureFixture[str]) -> None:
    status, objs = run(capsys, "http://h/", "http://h:99999/", "news:*")
    assert status == 2
    assert objs[0]["scheme"] == "http"
    assert objs[1] == {
        "error": {
            "type": "PortError",
            "message": "the port 99999 is out of range 0-65535",
            "component": "port",
            "offset": 9,
        }
    }
    assert objs[2]["newsgroup"] == "*"


def test_lenient_flag(capsys: pytest.CaptureFixture[str]) -> None:
    status, objs = run(capsys, "--lenient", "http://u:p@h/a b")
    assert status == 0
    assert (objs[0]["user"], objs[0]["path"]) == ("u", "/a%20b")


def test_urls_from_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("news:*\r\nnntp://h/g/3\n"))
    status, objs = run(capsys, "-")
    assert status == 0
    assert [o["scheme"] for o in objs] == ["news", "nntp"]
    assert objs[1]["article"] == 3


def test_as_a_program() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "omniurl", "parse", "wais://h/db?x", "bad"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert lines[0]["search"] == "x"
    assert lines[1]["error"]["type"] == "SchemeError"


def test_lenient_octets_print_as_percent_xx(capsys: pytest.CaptureFixture[str]) -> None:
    status, objs = run(capsys, "--lenient", "x-y:a\udc80b#\udcff")
    assert status == 0
    assert (objs[0]["scheme_specific_part"], objs[0]["fragment"]) == ("a%80b", "%FF")
