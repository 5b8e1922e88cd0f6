"""``get`` without a scheme says what was probably meant (issue 11, terminal manners)."""

from __future__ import annotations

import pytest

from omniurl.cli.hints import missing_scheme_hint
from omniurl.cli.main import main


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("127.0.0.1:8081/x", "http://127.0.0.1:8081/x"),
        ("localhost:8080", "http://localhost:8080"),
        ("example.org/a?b", "http://example.org/a?b"),
        ("[::1]:8081/", "http://[::1]:8081/"),
        ("http://127.0.0.1/", None),
        ("mailto:a@b", None),
        ("news:comp.lang.python", None),
        ("gopher:x", None),
    ],
)
def test_missing_scheme_hint(text: str, expected: str | None) -> None:
    assert missing_scheme_hint(text) == expected


def test_get_without_scheme_suggests_http(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["get", "127.0.0.1:8081/x"])
    captured = capsys.readouterr()
    assert captured.err == "omniurl: no scheme: did you mean http://127.0.0.1:8081/x?\n"
    assert captured.out == ""
    assert status == 3  # nothing was sent: the unsupported-scheme status is unchanged
