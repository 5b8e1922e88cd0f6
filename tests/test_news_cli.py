"""The command line for news: and nntp: — ``plan`` shows the NNTP commands, the server comes
from ``--nntp-server`` or ``$NNTPSERVER``, and ``get`` reads our server in a subprocess."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from omniurl.cli import EXIT_REFUSED, EXIT_REPLY, EXIT_UNSUPPORTED, main

ROOT = Path(__file__).resolve().parent.parent
PYTHONPATH = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)


def plan_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[dict]]:
    status = main(["plan", *argv])
    out = capsys.readouterr().out
    return status, [json.loads(line) for line in out.splitlines()]


def test_plan_shows_the_nntp_commands(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NNTPSERVER", raising=False)
    status, [obj] = plan_json(capsys, "--nntp-server", "news.example:1119", "news:1@example.com")
    assert status == 0
    assert obj == {
        "url": "news:1@example.com",
        "scheme": "news",
        "host": "news.example",
        "port": 1119,
        "transport": "tcp",
        "steps": ["CAPABILITIES", "MODE READER", "ARTICLE <1@example.com>", "QUIT"],
        "when": [
            None,
            "CAPABILITIES lists MODE-READER, or the server does not know CAPABILITIES",
            None,
            None,
        ],
    }


def test_nntpserver_environment_and_the_option_wins(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NNTPSERVER", "from-env.example")
    _, [obj] = plan_json(capsys, "news:a.b")
    assert (obj["host"], obj["port"]) == ("from-env.example", 119)
    _, [obj] = plan_json(capsys, "--nntp-server", "[::1]:1119", "news:a.b")
    assert (obj["host"], obj["port"]) == ("::1", 1119)


def test_no_server_is_a_configuration_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NNTPSERVER", raising=False)
    status, [obj] = plan_json(capsys, "news:a.b")
    assert status == EXIT_UNSUPPORTED
    assert obj["error"]["type"] == "ConfigurationError"
    assert obj["error"]["component"] == "host"


def test_refused_group_exit_status(capsys: pytest.CaptureFixture[str]) -> None:
    status, [obj] = plan_json(capsys, "nntp://h:6379/a.b")
    assert status == EXIT_REFUSED
    assert obj["error"]["type"] == "PortRefused"


def test_help_teaches_the_nntp_options(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["get", "--help"])
    out = capsys.readouterr().out
    assert "--nntp-server HOST[:PORT]" in out and "NNTPSERVER" in out
    assert "--nntp-max-articles" in out


# -- a real get, in subprocesses -------------------------------------------------------------


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    """``omniurl serve nntp`` in a subprocess; yields its host:port."""
    env = {**os.environ, "PYTHONPATH": PYTHONPATH}
    proc = subprocess.Popen(
        [sys.executable, "-m", "omniurl", "serve", "nntp", "--root", str(tmp_path)],
        cwd=ROOT,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()  # "omniurl: nntp server on tcp 127.0.0.1:PORT, ..."
        match = re.search(r"tcp (\S+:\d+),", line)
        assert match, line
        yield match.group(1)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        if proc.stderr is not None:
            proc.stderr.close()


def omniurl(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "omniurl", *argv],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": PYTHONPATH, **(env or {})},
        capture_output=True,
        timeout=30,
    )


def test_get_article_and_listing_from_the_served_nntp(served: str) -> None:
    done = omniurl("get", "news:dots@omniurl.test", env={"NNTPSERVER": served})
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith(
        b"\r\n\r\nLines that start with a dot:\r\n.\r\n.hidden\r\n..two dots\r\nthe end\r\n"
    )

    done = omniurl("get", "--nntp-max-articles", "2", f"nntp://{served}/omniurl.test")
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().splitlines() == [
        f"article\tDot-stuffing\tnntp://{served}/omniurl.test/2",
        f"article\tGrüße from the test server\tnntp://{served}/omniurl.test/3",
    ]

    done = omniurl("get", "-v", f"nntp://{served}/omniurl.test/99")
    assert done.returncode == EXIT_REPLY
    assert b"> ARTICLE 99" in done.stderr and b"< 423 " in done.stderr
