"""Passwords in URLs are masked wherever a URL is shown (issue 14 item 9, issue 11)."""

from __future__ import annotations

import argparse

import pytest

from omniurl.cli.emit import report
from omniurl.schemes.errors import OmniurlError
from omniurl.schemes.mask import mask_json, mask_url


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ftp://u:SECRETPW@h/x", "ftp://u:***@h/x"),
        ("nntp://u:SECRETPW@h/", "nntp://u:***@h/"),
        ("http://a:b%40c@127.0.0.1:8081/secret/", "http://a:***@127.0.0.1:8081/secret/"),
        ("ftp://u@h/x", "ftp://u@h/x"),
        ("ftp://h/a@b", "ftp://h/a@b"),
        ("mailto:a@b", "mailto:a@b"),
        ("no url here", "no url here"),
        (
            "cannot reach ftp://u:pw@h/x (from http://a:b@c/)",
            "cannot reach ftp://u:***@h/x (from http://a:***@c/)",
        ),
    ],
)
def test_mask_url(text: str, expected: str) -> None:
    assert mask_url(text) == expected


def test_mask_json_walks_nested_values() -> None:
    value = {"url": "ftp://u:pw@h/", "chain": ["ftp://u:pw@h/", 3], "n": None}
    assert mask_json(value) == {"url": "ftp://u:***@h/", "chain": ["ftp://u:***@h/", 3], "n": None}


@pytest.mark.parametrize("as_json", [False, True])
def test_reported_error_does_not_echo_password(
    as_json: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    exc = OmniurlError("cannot reach ftp://u:SECRETPW@h/x", component="host")
    report(argparse.Namespace(json=as_json), exc)
    captured = capsys.readouterr()
    shown = captured.err + captured.out
    assert "SECRETPW" not in shown
    assert "ftp://u:***@h/x" in shown
