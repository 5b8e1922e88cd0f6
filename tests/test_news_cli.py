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
    # the command line's ways, not a program's argument
    message = obj["error"]["message"]
    assert "set NNTPSERVER=host[:port] or pass --nntp-server host[:port]" in message
    assert "NNTPOptions" not in message


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


def test_o_saves_each_news_url_under_its_group_or_message_id(served: str, tmp_path: Path) -> None:
    """``-O news:a@x -O news:b@x`` saved both articles as ``index``, the second replacing the
    first; ``news:group`` was ``index.HASH.tsv`` where ``nntp://h/group`` is ``group.HASH.tsv``.
    Each is named by its opaque part now (RFC 5538 §2.2), the same bytes as to stdout."""
    env = {"NNTPSERVER": served}
    ids = ("welcome@omniurl.test", "dots@omniurl.test")
    single, batch = tmp_path / "single", tmp_path / "batch"
    argv = ["--output-dir", str(single), "--create-dirs"]
    done = omniurl("get", *argv, *(a for i in ids for a in ("-O", f"news:{i}")), env=env)
    assert done.returncode == 0, done.stderr
    batch.mkdir()
    done = omniurl("get", "-Z", "--output-dir", str(batch), *(f"news:{i}" for i in ids), env=env)
    assert done.returncode == 0, done.stderr
    assert sorted(os.listdir(single)) == sorted(os.listdir(batch)) == sorted(ids)
    for message_id in ids:
        shown = omniurl("get", f"news:{message_id}", env=env)
        assert shown.returncode == 0 and shown.stdout.startswith(b"Path: ")
        assert (single / message_id).read_bytes() == (batch / message_id).read_bytes()
        assert (single / message_id).read_bytes() == shown.stdout

    done = omniurl("get", *argv, "-O", "news:omniurl.test", env=env)
    assert done.returncode == 0, done.stderr
    [listing] = [n for n in os.listdir(single) if n.endswith(".tsv")]
    assert re.fullmatch(r"omniurl\.test\.[0-9a-f]{8}\.tsv", listing), listing


def test_a_news_urls_file_name_is_its_opaque_part() -> None:
    from omniurl.batch import output_name
    from omniurl.schemes import parse

    assert output_name(parse("news:a/b@example.com"), listing=False) == "a_b@example.com"
    assert output_name(parse("news:.dot@example.com"), listing=False) == "dot@example.com"
    assert output_name(parse("news:*"), listing=True).startswith("index.")
    assert output_name(parse("snews:comp.lang.python"), listing=True).startswith(
        "comp.lang.python."
    )
    # (a scheme without opaque_names keeps its index: mailto's draft, file:/a.txt's path)
    assert output_name(parse("mailto:a@example.com")) == "index"
    assert output_name(parse("file:/tmp/a.txt")) == "a.txt"
