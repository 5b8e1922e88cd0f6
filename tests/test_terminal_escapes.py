"""Server text with terminal escapes reaches stderr escaped (issue 14, "Smaller").

An FTP 550 line carrying ``ESC ] 0 ; title BEL`` or a CSI sequence used to be written raw to
the user's terminal inside the error message.
"""

from __future__ import annotations

import argparse
import io

import pytest

from omniurl.cli.emit import report, visible
from omniurl.resolvers.errors import NotFound


def test_visible_escapes_c0_del_and_c1_but_keeps_text_and_tab() -> None:
    assert visible("550 \x1b]0;pwned\x07 no\tfile \x9b31m é") == (
        "550 \\x1b]0;pwned\\x07 no\tfile \\x9b31m é"
    )
    assert visible("line\r\nnext\x7f") == "line\\x0d\\x0anext\\x7f"


def test_error_line_on_stderr_is_escaped(monkeypatch: pytest.MonkeyPatch) -> None:
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    status = report(argparse.Namespace(json=False), NotFound("550 \x1b[2J\x1b]0;x\x07gone"))
    assert err.getvalue() == "omniurl: 550 \\x1b[2J\\x1b]0;x\\x07gone\n"
    assert "\x1b" not in err.getvalue()
    assert status == 5
