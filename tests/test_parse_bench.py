"""The benchmark runs, and its URL mix is what it claims: distinct, valid, every scheme."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

from omniurl import schemes

BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "parse_bench.py"


def load_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("parse_bench", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_url_mix_is_distinct_valid_and_covers_every_scheme() -> None:
    bench = load_bench()
    urls = bench.make_urls(2000)
    assert len(set(urls)) == 2000
    kinds = {schemes.parse(u).scheme for u in urls}  # strict: every one is valid
    assert kinds == {
        "ftp",
        "http",
        "https",
        "gopher",
        "mailto",
        "news",
        "nntp",
        "telnet",
        "wais",
        "file",
        "prospero",
    }


def test_bench_prints_rates_and_ratio(capsys: pytest.CaptureFixture[str]) -> None:
    bench = load_bench()
    bench.main(["--count", "300", "--rounds", "1", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert out["urls"] == 300
    assert {"schemes.parse", "urllib.parse.urlsplit"} <= set(out["rates"])
    assert out["ratio_vs_urlsplit"] > 0
