"""``cli.quick``: ``parse URL…`` and ``plan URL…`` without options get argparse's namespace,
key for key and in order, without argparse; every other command line is argparse's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from omniurl.cli import main
from omniurl.cli.arguments import options_from_args
from omniurl.cli.parser import build_parser
from omniurl.cli.quick import Namespace, quick_args

ROOT = Path(__file__).resolve().parent.parent

URLS = [
    "ftp://h/x", "ftp://u:p@h:2121/a/b;type=a", "ftps://h/x", "http://a/b?c", "https://h/",
    "gopher://h/1/", "gophers://h/1/", "mailto:a@b.example", "news:comp.lang", "snews:x",
    "nntp://h/g/1", "telnet://h/", "wais://h/db", "file:///etc/hosts", "prospero://h/x",
    "gemini://h/", "HTTP://H/X", "", "not a url", "localhost:8081/x",
]  # fmt: skip

LINES = [
    *(["parse", url] for url in URLS),
    *(["plan", url] for url in URLS if url.partition(":")[0].lower() in {
        "ftp", "ftps", "http", "https", "gopher", "gophers", "mailto", "news", "snews", "nntp",
        "telnet", "wais", "file", "prospero", "gemini"})
    ,
    ["parse", *URLS],
    ["plan", "ftp://h/x", "gopher://h/1/", "http://h/", "mailto:a@b.example"],
]  # fmt: skip


def argparse_namespace(words: list[str]) -> dict[str, object]:
    return vars(build_parser(words[0]).parse_args(words))


@pytest.mark.parametrize("words", LINES, ids=[" ".join(w) for w in LINES])
@pytest.mark.parametrize("nntpserver", [None, "news.example"])
def test_the_namespace_is_argparses(
    words: list[str], nntpserver: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    if nntpserver is None:
        monkeypatch.delenv("NNTPSERVER", raising=False)
    else:
        monkeypatch.setenv("NNTPSERVER", nntpserver)
    quick = quick_args(words)
    assert quick is not None
    theirs = argparse_namespace(words)
    assert list(vars(quick).items()) == list(theirs.items())
    if words[0] == "plan":  # and the options made from either are the same
        assert options_from_args(quick) == options_from_args(build_parser("plan").parse_args(words))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "words",
    [
        [], ["parse"], ["plan"], ["get", "http://h/"], ["join", "http://a/", "b"],
        ["parse", "-"], ["parse", "--rfc1738", "http://h/"], ["parse", "http://h/", "--lenient"],
        ["plan", "--strict", "ftp://h/"], ["plan", "ftp://h/", "-x", "socks5://p:1"],
        ["plan", "--", "ftp://h/"], ["plan", "x-startup:abc"], ["plan", "ftp://h/", "foo:bar"],
        ["--version"], ["plan", "-h"],
    ],
)  # fmt: skip
def test_every_other_command_line_is_argparses(words: list[str]) -> None:
    assert quick_args(words) is None


def test_namespace_behaves_as_argparses() -> None:
    import argparse

    ours, theirs = Namespace(a=1, b="x"), argparse.Namespace(a=1, b="x")
    assert repr(ours) == repr(theirs)
    assert ("a" in ours, "z" in ours) == ("a" in theirs, "z" in theirs) == (True, False)
    assert ours == Namespace(a=1, b="x") and ours != Namespace(a=2, b="x")
    assert vars(ours) == vars(theirs)


def test_parse_and_plan_import_no_argparse() -> None:
    """Nor gettext and locale, which argparse brings (tests/test_startup.py holds the rest)."""
    code = (
        "import sys; from omniurl.cli import main; "
        "status = [main(['parse', 'http://a/b?c']), main(['plan', 'ftp://h/x'])]; "
        "print(status, sorted({'argparse', 'gettext', 'locale'} & set(sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60,
        check=True,
    )  # fmt: skip
    assert done.stdout.endswith("[0, 0] []\n"), done.stdout


def test_an_option_still_goes_through_argparse(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "--strict", "ftp://h:2121/x"]) == 2
    assert '"type": "PortRefused"' in capsys.readouterr().out
