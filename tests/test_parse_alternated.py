"""``grammar.alternated``: the default reading's patterns with each optional group written as an
alternation with an empty branch (``(?:X)?`` as ``(?:X|)``, ``(X)?`` as ``(?:(X)|)``), which
``re`` runs in fewer steps (docs/speed.md, *sixth round (parsing)*).  The rewrite must keep
the language and the groups: each scheme's default pattern, as the scheme module compiles it,
matches the benchmark mixes' URLs and their mutations exactly as the pattern written with
``?`` does, group for group.
"""

from __future__ import annotations

import importlib.util
import random
import re
from pathlib import Path
from types import ModuleType

import pytest

from omniurl.schemes import (
    file,
    ftp,
    gemini,
    gopher,
    grammar,
    http,
    mailto,
    news,
    nntp,
    prospero,
    rfc1630,
    telnet,
    wais,
)

BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "parse_bench.py"


def load_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("parse_bench_alternated", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("(?:a)?", "(?:a|)"),
        ("(a)?", "(?:(a)|)"),
        ("(?:a|b)?", "(?:a|b|)"),
        ("(?P<n>a)?", "(?:(?P<n>a)|)"),
        ("(?:x(y)?z)?w", "(?:x(?:(y)|)z|)w"),
        # left as they are: lazy and possessive groups, lookarounds, a single character's
        # "?", escaped parentheses, parentheses in a class (also after "]" or "^]" first)
        ("(a)??", "(a)??"),
        ("(a)?+", "(a)?+"),
        ("(?=a)?b", "(?=a)?b"),
        ("a?[(]?", "a?[(]?"),
        (r"\(a\)?", r"\(a\)?"),
        ("[]a)]?(b)?", "[]a)]?(?:(b)|)"),
        ("[^]a)]?(b)?", "[^]a)]?(?:(b)|)"),
        (r"[\])](c)?", r"[\])](?:(c)|)"),
    ],
)
def test_alternated_rewrites_only_optional_groups(source: str, expected: str) -> None:
    assert grammar.alternated(source) == expected
    re.compile(expected)


def _default_unalternated(pattern: str) -> str:
    """What ``grammar.default`` made before it alternated (its other steps, as they are)."""
    pattern = grammar.lax(pattern)
    host = grammar.HOST_FAST.replace(grammar.IP_LITERAL_FAST, grammar.IP_LITERAL_LAX)
    pattern = pattern.replace(host, grammar.HOST_DEFAULT)
    return pattern.replace(grammar._PORT_FAST, grammar._PORT_DEFAULT)


def _pairs() -> list[tuple[str, str, re.Pattern[str]]]:
    """(scheme, the pattern written with "?", the compiled default pattern of the module)."""
    wais_source = (
        "//"
        + grammar.HOSTPORT_FAST
        + rf"/({wais._PCHARS})(?:\?({grammar.fast(grammar.SEARCH + '/?')})"
        + rf"|/({wais._PCHARS})/({grammar.fast(grammar.UCHAR + ';=:@&/')}))?"
        + grammar.FRAGMENT_FAST
    )
    mailto_source = grammar.lax(
        f"({grammar.fast(grammar.UNRESERVED + ';/:@&=')})"
        + rf"(?:\?({mailto._DEFAULT_HFIELDS})?)?"
        + grammar.FRAGMENT_FAST
    )
    return [
        ("http", _default_unalternated(http._DEFAULT_PATTERN), http._DEFAULT.get()),
        (
            "http",
            _default_unalternated(grammar.without_login(http._DEFAULT_PATTERN)),
            http._DEFAULT_HOST,
        ),
        ("ftp", _default_unalternated(ftp._DEFAULT_PATTERN), ftp._DEFAULT.get()),
        (
            "ftp",
            _default_unalternated(grammar.without_login(ftp._DEFAULT_PATTERN)),
            ftp._DEFAULT_HOST,
        ),
        ("telnet", _default_unalternated(telnet._PATTERN), telnet._DEFAULT.get()),
        (
            "telnet",
            _default_unalternated(grammar.without_login(telnet._PATTERN)),
            telnet._DEFAULT_HOST,
        ),
        ("gopher", _default_unalternated(gopher._PATTERN), gopher._DEFAULT),
        ("prospero", _default_unalternated(prospero._PATTERN), prospero._DEFAULT),
        ("wais", _default_unalternated(wais_source), wais._DEFAULT),
        ("mailto", mailto_source, mailto._DEFAULT),
        ("mid", grammar.lax(rfc1630._MID), rfc1630._MID_LAX),
    ]


def test_the_modules_compile_the_alternated_patterns() -> None:
    for _scheme, source, compiled in _pairs():
        assert compiled.pattern == grammar.alternated(source)
        assert compiled.pattern != source  # (each has an optional group)
    inline = [file._DEFAULT, gemini._DEFAULT, news._DEFAULT, news._SERVER, nntp._DEFAULT]
    inline += [rfc1630._CID_DEFAULT, rfc1630._URN_DEFAULT]
    for compiled in inline:  # (built inline: alternated, no optional group left)
        assert re.search(r"\)\?(?![?+])", compiled.pattern) is None


def _mutations(text: str, rng: random.Random) -> list[str]:
    out = []
    for _ in range(4):
        at = rng.randrange(len(text) + 1)
        out.append(text[:at] + rng.choice("~?@:/;=%#[]!$&'()*+,.-_ aZ09%2") + text[at:])
        out.append(text[:at] + text[at + 1 :])
    return out


def test_alternated_patterns_match_as_the_optional_groups() -> None:
    """Each default pattern, alternated, gives the same match (or none) with the same groups
    as written with "?", on the five mixes' URLs of its scheme and their mutations."""
    bench = load_bench()
    rng = random.Random(6)
    pairs = [(s, re.compile(src), compiled) for s, src, compiled in _pairs()]
    checked = matched = 0
    for mix in ("main", "heldout", "third", "fourth", "fifth"):
        for text in bench.make_urls(200 * len(bench.MAIN), mix=mix, seed=11):
            colon = text.find(":")
            scheme = text[:colon].lower()
            for name, written, compiled in pairs:
                if scheme.rstrip("s") != name and scheme != name:
                    continue
                for t in [text, *_mutations(text, rng)]:
                    a = written.fullmatch(t, colon + 1)
                    b = compiled.fullmatch(t, colon + 1)
                    assert (a is None) == (b is None), (t, written.pattern)
                    if a is not None and b is not None:
                        assert a.groups() == b.groups(), t
                        matched += 1
                    checked += 1
    assert matched > 10_000 and checked - matched > 10_000  # (matches and misses alike)
