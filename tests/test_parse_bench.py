"""The benchmark runs, and its URL mixes are what they claim: distinct, valid in the default
reading, every scheme, every family in both the main and the held-out mix."""

from __future__ import annotations

import importlib.util
import json
import random
from pathlib import Path
from types import ModuleType

import pytest

from omniurl import schemes

BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "parse_bench.py"

SCHEMES = {
    "ftp", "http", "https", "gopher", "mailto", "news", "nntp", "telnet", "wais", "file",
    "prospero", "gemini", "mid", "cid",
}  # fmt: skip


def load_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("parse_bench", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("mix", ["main", "heldout"])
def test_url_mix_is_distinct_valid_and_covers_every_scheme(mix: str) -> None:
    bench = load_bench()
    blocks = bench.make_blocks(200 * 2 * len(bench.MAIN), mix)
    urls = [u for _f, block in blocks for u in block]
    assert len(set(urls)) == len(urls)
    parsed = [schemes.parse(u) for u in urls]  # the default reading: every one is valid
    assert {u.scheme for u in parsed} == SCHEMES
    assert {f for f, _ in blocks} == set(bench.MAIN) == set(bench.HELDOUT)
    # the components the issue lists all occur
    texts = "\n".join(urls)
    for piece in (
        "@",
        ";type=",
        "%09",
        "?subject=",
        "[",
        "#",
        "%C3%A9" if mix == "main" else "%E2",
    ):
        assert piece in texts, piece
    assert any(getattr(u, "gopher_plus", None) for u in parsed)
    assert any(getattr(u, "fields", None) for u in parsed)  # Prospero attributes
    assert any(getattr(u, "headers", None) for u in parsed)  # mailto queries
    assert any(getattr(u, "port", None) for u in parsed)


def test_the_mixes_differ_and_a_seed_changes_the_urls() -> None:
    bench = load_bench()
    main = bench.make_urls(500, mix="main")
    assert not set(main) & set(bench.make_urls(500, mix="heldout"))
    assert main == bench.make_urls(500, mix="main")
    assert main != bench.make_urls(500, seed=7, mix="main")


def test_bench_prints_rates_ratios_and_the_worst_family(capsys: pytest.CaptureFixture[str]) -> None:
    bench = load_bench()
    bench.main(["--count", "400", "--rounds", "1", "--mix", "main", "--json"])
    out = json.loads(capsys.readouterr().out)
    [result] = out["results"]
    assert result["urls"] == 400
    assert {"schemes.parse", "urlsplit"} <= set(result["rates"])
    assert result["ratio_vs_urlsplit"] > 0
    family, ratio = result["worst_family"]
    assert ratio == min(result["by_family"].values()) and family in result["by_family"]
    assert {"python", "load_1min", "date"} <= set(out["environment"])


def test_the_fourth_mix_is_distinct_valid_and_holds_its_shapes() -> None:
    """The fourth mix (shapes across the schemes): distinct URLs, each valid in the default
    reading, every scheme, and the shapes it was written for."""
    bench = load_bench()
    blocks = bench.make_blocks(200 * 2 * len(bench.FOURTH), "fourth")
    urls = [u for _f, block in blocks for u in block]
    assert len(set(urls)) == len(urls)
    parsed = [schemes.parse(u) for u in urls]
    assert {u.scheme for u in parsed} >= SCHEMES
    assert {f for f, _ in blocks} == set(bench.FOURTH)
    texts = "\n".join(urls)
    for piece in ("HTTP", "::ffff:", "%25eth", ":000", ".com./", "%e2", "news:*", ";type=a\n"):
        assert piece in texts, piece
    assert any(u.startswith("prospero://") and "@" in u.split("/")[2] for u in urls)
    assert max(map(len, urls)) > 1000 and min(map(len, urls)) < 16


def test_the_fifth_mix_is_distinct_valid_and_holds_its_shapes() -> None:
    """The fifth mix (shapes users meet): distinct URLs, each valid in the default reading,
    every scheme, and the shapes it was written for."""
    bench = load_bench()
    blocks = bench.make_blocks(200 * 2 * len(bench.FIFTH), "fifth")
    urls = [u for _f, block in blocks for u in block]
    assert len(set(urls)) == len(urls)
    parsed = [schemes.parse(u) for u in urls]
    assert {u.scheme for u in parsed} >= SCHEMES
    assert {f for f, _ in blocks} == set(bench.FIFTH)
    texts = "\n".join(urls)
    for piece in ("xn--", "XN--", "0x7f.", "0177.", ":65535", ":00080", "%F0%9F%98%80",
                  "%5B%5D", "X-Amz-Signature=", "#:~:text=", "%09%09+", "file:///C:/",
                  "MAILTO:", "news:", "mid:", "cid:", "%0D%0A", "snews://"):  # fmt: skip
        assert piece in texts, piece
    assert any(u.startswith("file:/") and u[6] != "/" for u in urls)  # (no authority)
    assert max(u.count("&") for u in urls) >= 40
    assert max(u.count("@") for u in urls if u.startswith("mailto:")) >= 20


def test_the_sixth_mix_is_weighted_distinct_valid_and_holds_its_shapes() -> None:
    """The sixth mix (what users parse, weighted): distinct URLs, each valid in the default
    reading, every scheme, http(s) the majority by its weights, and the shapes it was
    written for."""
    bench = load_bench()
    weights = bench.SIXTH_WEIGHTS
    per_round = sum(weights.get(f, 1) for f in bench.SIXTH)
    blocks = bench.make_blocks(200 * 2 * per_round, "sixth")
    urls = [u for _f, block in blocks for u in block]
    assert len(set(urls)) == len(urls)
    parsed = [schemes.parse(u) for u in urls]
    assert {u.scheme for u in parsed} >= SCHEMES | {"urn", "ftps", "gophers", "snews"}
    families = [f for f, _ in blocks]
    assert set(families) == set(bench.SIXTH)
    for family in bench.SIXTH:  # each family's blocks as weighted, every round
        assert families.count(family) == 2 * weights.get(family, 1), family
    web = sum(u.scheme in ("http", "https") for u in parsed)
    assert 0.6 * len(urls) < web < 0.8 * len(urls)
    texts = "\n".join(urls)
    for piece in ("redirect_uri=https%3A%2F%2F", "%253A%252F%252F", "utm_source=", "gclid=",
                  "Signature=", "$filter=", "!A1:", "/.well-known/", "#sha256=", "/../",
                  "%25eth0]", "[::ffff:", "bücher.example", "xn--", "0Xc0.0250.01",
                  "http://a/b/c/g;x?y#s", ";type=d", ";type=i", "%09%09+", "gorby%25kremvax",
                  "mailto:?to=", "In-Reply-To=%3C", "news:*", "nntp://", "file:////",
                  "file:c:/", "file:///C:/", "telnet://", "wais://", "prospero://", ";type=",
                  "gemini://", "mid:", "cid:", "urn:"):  # fmt: skip
        assert piece in texts, piece
    gtypes = {u.gtype for u in parsed if u.scheme in ("gopher", "gophers")}  # type: ignore[attr-defined]
    assert len(gtypes) >= 25


def test_the_sixth_mix_stays_valid_at_the_benchmark_s_counts() -> None:
    """The URL's number grows to --count (100,000): no shape may depend on it staying small
    (a port "{i}" did: telnet://127.0.0.1:66246/ stopped the first full run)."""
    bench = load_bench()
    for template in bench._S_SEEN:
        for i in (0, 65_535, 99_999, 10**6):
            schemes.parse(template.format(h="h.example", i=i, p=i % 65536))
    rng = random.Random(3986)
    for gen in bench.SIXTH.values():
        for i in (65_536, 99_999, 10**6):
            for _ in range(30):
                schemes.parse(gen(rng, i))


def test_a_weighted_mix_rotates_its_families_in_every_round() -> None:
    bench = load_bench()
    blocks = bench.make_blocks(200 * 3, "sixth")  # the first three blocks: one family each
    assert [f for f, _ in blocks] == list(bench.SIXTH)[:3]
    assert bench.make_urls(300, mix="sixth") == bench.make_urls(300, mix="sixth")
    assert bench.make_urls(300, mix="sixth") != bench.make_urls(300, mix="sixth", seed=7)


def test_the_seventh_mix_is_weighted_distinct_valid_and_holds_its_shapes() -> None:
    """The seventh mix (benchmarks/_mix_seventh.py: where programs get their URLs, weighted):
    distinct URLs, each valid in the default reading, every scheme of RFC 1738, http(s) the
    majority by its weights, and the shapes it was written for."""
    bench = load_bench()
    assert bench.MIXES["seventh"][1] == 2392
    gens = bench.MIXES["seventh"][0]
    weights = bench.WEIGHTS["seventh"]
    per_round = sum(weights.get(f, 1) for f in gens)
    assert per_round == 23
    blocks = bench.make_blocks(200 * 2 * per_round, "seventh")
    urls = [u for _f, block in blocks for u in block]
    assert len(set(urls)) == len(urls) == 200 * 2 * per_round
    parsed = [schemes.parse(u) for u in urls]
    assert {u.scheme for u in parsed} >= SCHEMES - {"gemini", "mid", "cid"}
    families = [f for f, _ in blocks]
    for family in gens:  # each family's blocks as weighted, every round
        assert families.count(family) == 2 * weights.get(family, 1), family
    web = sum(u.scheme in ("http", "https") for u in parsed)
    assert 0.6 * len(urls) < web < 0.7 * len(urls)  # (15 of 23 blocks: 65 %)
    texts = "\n".join(urls)
    for piece in ("//xmlrpc.php", "%2e%2e/", "/.env", ":443/", "/feed/", "/redirect.mp3/",
                  "files.pythonhosted.org/packages/", "#sha256=", "%2f", ".git", "/@v/",
                  "+dfsg", "X-Amz-Security-Token=", "X-Goog-Signature=", "sig=", "%2F",
                  "matrix.to/#/%23", "?thread_ts=", "19%3a", "/maps/place/", "+", "%20",
                  "#map=", "/../", "/./", "HTTP://", ".:", "/%7E", "mailto:?subject=",
                  "cc=", "bcc=", "body=", "%0D%0A", ";type=d", "%09%09+", "hURL:",
                  "file:///C:/", "file:///Users/", "file:///home/", "Pine.LNX.",
                  "nntp://", "telnet://guest@", "wais://", "%09", "prospero://",
                  "git+https://", "magnet:?", "tag:"):  # fmt: skip
        assert piece in texts, piece
    hosts = [u.host for u in parsed if getattr(u, "host", None)]  # type: ignore[attr-defined]
    assert len(set(hosts)) > 0.5 * len(hosts)  # (hosts drawn anew: little for a cache)
    assert any(h.count(".") == 3 and h.startswith("0") for h in hosts)  # 010.000.000.001
    assert any(h.endswith(".") for h in hosts)


def test_the_seventh_mix_stays_valid_at_the_benchmark_s_counts() -> None:
    """Every family valid for the URL numbers a full run reaches (--count 100,000 and more)."""
    bench = load_bench()
    rng = random.Random(2392)
    for gen in bench.MIXES["seventh"][0].values():
        for i in (0, 65_535, 99_999, 10**6):
            for _ in range(50):
                schemes.parse(gen(rng, i))


def test_the_eighth_mix_is_weighted_distinct_and_holds_its_shapes() -> None:
    """The eighth mix (benchmarks/_mix_eighth.py: sources the seven did not use, and the texts
    a parser must refuse): distinct URLs, each valid in the default reading but for the refused
    family's, each of which the default reading refuses with a URLError; every scheme of RFC
    1738 and generic URLs, http(s) the majority by its weights, and its shapes."""
    bench = load_bench()
    assert bench.MIXES["eighth"][1] == 2368
    gens = bench.MIXES["eighth"][0]
    weights = bench.WEIGHTS["eighth"]
    refused = bench.REFUSED["eighth"]
    per_round = sum(weights.get(f, 1) for f in gens)
    assert per_round == 25 and refused == {"refused inputs"} and refused <= set(gens)
    blocks = bench.make_blocks(200 * 2 * per_round, "eighth")
    urls = [u for _f, block in blocks for u in block]
    assert len(set(urls)) == len(urls) == 200 * 2 * per_round
    families = [f for f, _ in blocks]
    for family in gens:  # each family's blocks as weighted, every round
        assert families.count(family) == 2 * weights.get(family, 1), family
    parsed = []
    for family, block in blocks:
        for u in block:
            if family in refused:
                with pytest.raises(schemes.URLError):
                    schemes.parse(u)
            else:
                parsed.append(schemes.parse(u))
    assert 0.03 * len(urls) < len(urls) - len(parsed) < 0.05 * len(urls)  # (4 %)
    assert {u.scheme for u in parsed} >= SCHEMES - {"gemini", "mid", "cid"} | {"urn", "snews"}
    assert sum(type(u).__name__ == "GenericURL" for u in parsed) >= 2 * 2 * 200 * 0.9
    web = sum(u.scheme in ("http", "https") for u in parsed)
    assert 0.6 * len(urls) < web < 0.7 * len(urls)  # (16 of 25 blocks: 64 %)
    texts = "\n".join(urls)
    for piece in ("list-manage.com/track/click?u=", "ct.sendgrid.net/ls/click?upn=", "-3D",
                  "urldefense.proofpoint.com/v2/url?u=https-3A__", "urldefense.com/v3/__",
                  "utm_source=", "=3D", "&amp;", "redirect_uri=", "%253A", "code_challenge=",
                  "SAMLRequest=", "query=", "variables=%7B", "filter%5B", "%7b",
                  "web.archive.org/web/", "id_/http://", "/cdn-cgi/image/width=",
                  "filters:quality(", "/_next/image?url=", "/w_", ";jsessionid=",
                  ";JSESSIONID=", "/(S(", "&&", "?#", "http://", "HTTP://", ":65535",
                  ":0/", ":1/", "%25eth0]", "::ffff:", "64:ff9b::", "%40", "%3A",
                  ";type=a", ";type=i", ";type=d", "gopher://", "/7", "%09%09+", "%09%09!",
                  "%09%09$", "file:/", "file:///", "file://localhost/", "file:////",
                  "file://///", "%7C/", "mailto:", "%2C", "in-reply-to=", "keywords=",
                  "nntp://", "news:", "snews://", "telnet://", "wais://", "prospero://",
                  "git+ssh://", "s3://", "redis://", "magnet:?xt=urn:btih:", "urn:", "tel:",
                  "sip:", "spotify:", "otpauth://", "ldap://", "mongodb+srv://",
                  "news:%3C", "\t", " ", "%zz"):  # fmt: skip
        assert piece in texts, piece
    assert any(not u.isascii() for u in urls)  # raw UTF-8 as pasted
    assert any(u in ("http://a", "https://a") or len(u) <= 10 for u in urls)
    hosts = [u.host for u in parsed if getattr(u, "host", None)]  # type: ignore[attr-defined]
    assert len(set(hosts)) > 0.5 * len(hosts)  # (hosts drawn anew: little for a cache)


def test_the_eighth_mix_stays_valid_at_the_benchmark_s_counts() -> None:
    """Every family valid (or, the refused family, refused) for the URL numbers a full run
    reaches (--count 100,000 and more)."""
    bench = load_bench()
    rng = random.Random(2368)
    for family, gen in bench.MIXES["eighth"][0].items():
        for i in (0, 65_535, 99_999, 10**6):
            for _ in range(50):
                if family in bench.REFUSED["eighth"]:
                    with pytest.raises(schemes.URLError):
                        schemes.parse(gen(rng, i))
                else:
                    schemes.parse(gen(rng, i))


def test_the_bench_times_refusals_and_reports_them(capsys: pytest.CaptureFixture[str]) -> None:
    """A mix with a refused family runs (its texts in a ``try`` for every parser) and reports
    the CPU time of one refusal beside urlsplit's on the same texts."""
    bench = load_bench()
    bench.main(["--count", "5000", "--rounds", "1", "--mix", "eighth", "--json"])
    out = json.loads(capsys.readouterr().out)
    [result] = out["results"]
    assert result["families"] == 17 and "refused inputs" in result["by_family"]
    refused = result["refused"]
    assert refused["urls"] == 200
    assert {"schemes.parse", "urlsplit"} <= set(refused["us_per_url"])
    assert all(us > 0 for us in refused["us_per_url"].values())
