"""How fast ``schemes.parse`` is, against ``urllib.parse.urlsplit`` and yarl, in one process.

    python benchmarks/parse_bench.py [--count 100000] [--rounds 5] [--json]

100,000 distinct URLs across every scheme (so no parser's cache ever hits), each parsed by

- ``schemes.parse`` — the default reading (RFC 3986 syntax, RFC 1738 meanings): full
  validation per scheme, decoded components, an immutable URL object; and the same with
  ``syntax="rfc1738"`` (the letter of RFC 1738);
- ``urllib.parse.urlsplit`` — splits only, validates almost nothing; its LRU cache is cleared
  before every round and never hits on distinct URLs;
- ``yarl.URL`` — builds an immutable URL object (splits, then normalizes and encodes).

Each figure is the best of ``--rounds`` passes over the whole list (the least disturbed
one); the parsers take turns within each round, so a busy machine slows them alike.  The
target is ``schemes.parse`` / ``urlsplit`` >= 1.0; the exit status is 1 when it is missed,
so CI can run it.
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import random
import string
import sys
import time
import urllib.parse
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from omniurl import schemes

WORDS = [
    "pub",
    "doc",
    "rfc",
    "archive",
    "gopher",
    "news",
    "index",
    "people",
    "data",
    "src",
    "info",
    "www",
]


def _word(rng: random.Random) -> str:
    return rng.choice(WORDS) + "".join(rng.choices(string.ascii_lowercase + string.digits, k=3))


def _host(rng: random.Random, i: int) -> str:
    return f"{_word(rng)}{i}.{rng.choice(['example.com', 'cern.ch', 'umn.edu', 'isi.edu'])}"


def _port(rng: random.Random) -> str:
    return f":{rng.randint(1, 65535)}" if rng.random() < 0.2 else ""


def _frag(rng: random.Random) -> str:
    return f"#{_word(rng)}" if rng.random() < 0.1 else ""


def _path(rng: random.Random, n: int) -> str:
    parts = [_word(rng) for _ in range(n)]
    if parts and rng.random() < 0.2:
        parts[-1] += "%20" + _word(rng)
    return "/".join(parts)


GENERATORS: list[Callable[[random.Random, int], str]] = [
    lambda r, i: (
        f"http://{_host(r, i)}{_port(r)}/{_path(r, r.randint(1, 4))}"
        + (f"?q={_word(r)}&n={i}" if r.random() < 0.4 else "")
        + _frag(r)
    ),
    lambda r, i: f"https://{_host(r, i)}/{_path(r, r.randint(0, 3))}{_frag(r)}",
    lambda r, i: (
        f"ftp://{_host(r, i)}{_port(r)}/{_path(r, r.randint(1, 5))}"
        + r.choice(["", ";type=i", ";type=a", ";type=d"])
    ),
    lambda r, i: f"ftp://{_word(r)}:{_word(r)}@{_host(r, i)}/{_path(r, 3)}.txt",
    lambda r, i: (
        f"gopher://{_host(r, i)}{_port(r)}/{r.choice('0179')}/{_path(r, 2)}"
        + (f"%09{_word(r)}" if r.random() < 0.3 else "")
    ),
    lambda r, i: f"mailto:{_word(r)}.{i}@{_host(r, i)}",
    lambda r, i: (
        f"news:comp.{_word(r)}.{i}" if r.random() < 0.7 else f"news:{i}.{_word(r)}@{_host(r, i)}"
    ),
    lambda r, i: f"nntp://{_host(r, i)}/comp.lang.{_word(r)}/{i}",
    lambda r, i: f"telnet://{_word(r)}@{_host(r, i)}{_port(r)}/",
    lambda r, i: (
        f"wais://{_host(r, i)}/{_word(r)}"
        + r.choice([f"?{_word(r)}+{_word(r)}", f"/TEXT/{i}%20{_word(r)}", ""])
    ),
    lambda r, i: f"file://{r.choice(['', 'localhost', _host(r, i)])}/{_path(r, r.randint(1, 4))}",
    lambda r, i: f"prospero://{_host(r, i)}//{_path(r, 2)};OBJECT-VERSION={i}",
]


def make_urls(count: int, seed: int = 1738) -> list[str]:
    """``count`` distinct, strictly valid URLs, the schemes interleaved."""
    rng = random.Random(seed)
    urls: list[str] = []
    seen: set[str] = set()
    i = 0
    while len(urls) < count:
        url = GENERATORS[i % len(GENERATORS)](rng, i)
        i += 1
        if url not in seen:
            seen.add(url)
            urls.append(url)
    return urls


def one_pass(fn: Callable[[str], object], urls: Sequence[str]) -> float:
    """Seconds for one pass of ``fn`` over ``urls``."""
    gc.collect()
    start = time.perf_counter()
    for url in urls:
        fn(url)
    return time.perf_counter() - start


def best_rates(
    parsers: dict[str, tuple[Callable[[str], object], Callable[[], None]]],
    urls: Sequence[str],
    rounds: int,
) -> dict[str, float]:
    """URLs per second for each parser: the best of ``rounds`` passes.  The parsers take
    turns within each round, so a busy machine slows them alike and the ratio holds."""
    best = dict.fromkeys(parsers, float("inf"))
    for _ in range(rounds):
        for name, (fn, before) in parsers.items():
            before()
            best[name] = min(best[name], one_pass(fn, urls))
    return {name: len(urls) / seconds for name, seconds in best.items()}


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=100_000, help="distinct URLs (100000)")
    ap.add_argument("--rounds", type=int, default=5, help="passes per parser; best wins (5)")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args(argv)

    urls = make_urls(args.count)
    kinds = {schemes.parse(u).scheme for u in urls}  # all valid, strictly: or this raises
    nothing = lambda: None  # noqa: E731

    parsers: dict[str, tuple[Callable[[str], object], Callable[[], None]]] = {
        "schemes.parse": (schemes.parse, nothing),
        "schemes.parse --rfc1738": (functools.partial(schemes.parse, syntax="rfc1738"), nothing),
        "urllib.parse.urlsplit": (urllib.parse.urlsplit, urllib.parse.clear_cache),
    }
    try:
        import yarl
    except ImportError:  # the bench extra is not installed
        pass
    else:
        parsers["yarl.URL"] = (yarl.URL, getattr(yarl, "cache_clear", nothing))
    figures = best_rates(parsers, urls, args.rounds)
    ratio = figures["schemes.parse"] / figures["urllib.parse.urlsplit"]

    if args.json:
        print(
            json.dumps(
                {
                    "urls": len(urls),
                    "schemes": sorted(kinds),
                    "rates": figures,
                    "ratio_vs_urlsplit": round(ratio, 3),
                }
            )
        )
    else:
        print(f"{len(urls):,} distinct URLs, schemes: {', '.join(sorted(kinds))}")
        print(f"python {sys.version.split()[0]}, best of {args.rounds} rounds")
        for name, rate in figures.items():
            print(f"  {name:24} {rate:12,.0f} URLs/s")
        print(f"  schemes.parse / urlsplit {ratio:12.2f}   (target >= 1.0)")
        if "yarl.URL" in figures:
            print(
                f"  schemes.parse / yarl.URL {figures['schemes.parse'] / figures['yarl.URL']:12.2f}"
            )
    return 0 if ratio >= 1.0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
