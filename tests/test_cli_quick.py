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
        [], ["parse"], ["plan"], ["get", "-v", "http://h/"], ["join", "http://a/", "b"],
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


def printed(code: str) -> str:
    """What ``python -c CODE`` prints, run in a fresh interpreter from the checkout (its
    ``sys.modules`` is the point); a nonzero exit fails the test."""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60,
        check=True,
    )  # fmt: skip
    return done.stdout


def test_parse_and_plan_import_no_argparse() -> None:
    """Nor gettext and locale, which argparse brings (tests/test_startup.py holds the rest)."""
    code = (
        "import sys; from omniurl.cli import main; "
        "status = [main(['parse', 'http://a/b?c']), main(['plan', 'ftp://h/x'])]; "
        "print(status, sorted({'argparse', 'gettext', 'locale'} & set(sys.modules)))"
    )
    out = printed(code)
    assert out.endswith("[0, 0] []\n"), out


def test_an_option_still_goes_through_argparse(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "--strict", "ftp://h:2121/x"]) == 2
    assert '"type": "PortRefused"' in capsys.readouterr().out


GET_LINES = [
    ["get", "http://h/x"], ["get", "ftp://h/x.bin"], ["get", "gopher://h/0/a"],
    ["get", "-o", "out", "ftp://h/x"], ["get", "ftp://h/x", "-o", "out"],
    ["get", "--output", "out", "http://h/x"], ["get", "-o", "-", "http://h/x"],
    ["get", "-O", "http://h/x"], ["get", "--remote-name", "http://h/x"],
    ["get", "-s", "http://h/x"], ["get", "--silent", "http://h/x"],
    ["get", "-s", "-o", "out", "http://h/x"], ["get", "http://h/x", "-s", "-s"],
    ["get", "-o", "a", "http://h/a", "-o", "b", "http://h/b", "http://h/c"],
    ["get", "-O", "http://h/a", "-o", "b", "http://h/b"],
    ["get", "-o", "a", "-O", "http://h/a", "http://h/b"],
    ["get", "http://h/a", "-s", "http://h/b", "-O", "gopher://h/1/"],
    ["get", "-o", "a", "-o", "b", "ftp://h/x"], ["get", "-o", "x=y", "mailto:a@b.example"],
    ["get", "-o", "with space", "file:///etc/hosts"], ["get", "telnet://h/", "nntp://h/g/1"],
    ["get", "-o", "a", "wais://h/db", "-O", "prospero://h/x", "gemini://h/"],
]  # fmt: skip


@pytest.mark.parametrize("words", GET_LINES, ids=[" ".join(w) for w in GET_LINES])
def test_the_get_namespace_is_argparses(words: list[str]) -> None:
    quick = quick_args(words)
    assert quick is not None
    theirs = build_parser("get").parse_args(words)
    assert list(vars(quick).items()) == list(vars(theirs).items())
    assert options_from_args(quick) == options_from_args(theirs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "words",
    [
        ["get"], ["get", "-s"], ["get", "-o", "f"], ["get", "-v", "http://h/"],
        ["get", "http://h/", "-o"], ["get", "-o", "-s", "http://h/"],
        ["get", "-o", "--x", "http://h/"], ["get", "-o", "", "http://h/"],
        ["get", "-ofile", "http://h/"], ["get", "--output=file", "http://h/"],
        ["get", "--outp", "f", "http://h/"], ["get", "--sil", "http://h/"],
        ["get", "-sS", "http://h/"], ["get", "-Os", "http://h/"], ["get", "--", "http://h/"],
        ["get", "-", "-o", "f"], ["get", "-h"], ["get", "http://h/", "-h"],
        ["get", "http://h/", "--help"], ["get", ""], ["get", "http://h/", "x-startup:abc"],
        ["get", "-o", "-1", "http://h/"], ["get", "--proxy", "p", "http://h/"],
        ["get", "http://h/", "-i", "list"], ["get", "-s", "-Z", "http://h/", "http://h/b"],
    ],
)  # fmt: skip
def test_every_other_get_is_argparses(words: list[str]) -> None:
    assert quick_args(words) is None


def test_get_imports_no_argparse(tmp_path: Path) -> None:
    """A get of a file:// URL (no server needed) to -o: neither argparse nor gettext, which
    it brings (locale too, but an in-process main imports asyncio whole, whose subprocess
    imports it: tests/test_get_startup.py holds the command's own process without it)."""
    source = tmp_path / "x.bin"
    source.write_bytes(b"1234")
    target = tmp_path / "out"
    code = (
        "import sys; from omniurl.cli import main; "
        f"status = main(['get', '-s', '-o', {str(target)!r}, {source.as_uri()!r}]); "
        "print(status, sorted({'argparse', 'gettext'} & set(sys.modules)))"
    )
    out = printed(code)
    assert out.endswith("0 []\n"), out
    assert target.read_bytes() == b"1234"
