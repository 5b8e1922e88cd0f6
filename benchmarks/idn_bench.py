"""How fast URLs with internationalized hosts parse, each host new (issue 32, seventh round).

    VENV/bin/python benchmarks/idn_bench.py [--count 10000] [--rounds 3] [--seed 1122]

Run it with the interpreter of a fresh venv of this checkout (benchmarks/_venv.py prints
one; from a copy of benchmarks/, so that the installed build is what is imported).

Why its own script: parse_bench's IRI family draws its UTF-8 hosts from ten names, so a
parser that kept whole hosts would look fast there and nowhere else.  Here every URL's host
is distinct: 1-3 labels of 2-12 code points drawn from one script each (Latin with
diacritics, Greek, Cyrillic, Han, Hiragana and Katakana, Hangul, Arabic, Hebrew, Devanagari,
Thai), upper case mixed in, and a top-level label of ASCII or of a script; only hosts idna
accepts are kept.  Measured, the parsers taking turns block by block, CPU time (thread
time), median of the rounds: ``schemes.parse`` (the URL's A-labels and every component),
``urllib.parse.urlsplit`` (splits, maps nothing; its cache cleared), ``ada_url.URL`` and
``yarl.URL`` when installed (both map the host to A-labels too); and the host's mapping
alone: ``schemes.uts46.to_ascii`` against ``idna.encode(host, uts46=True,
std3_rules=False)``, whose answers it gives.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import statistics
import sys
import time
import urllib.parse
from collections.abc import Callable

import idna

from omniurl import schemes

try:
    from omniurl.schemes import uts46
except ImportError:  # (a build from before schemes/uts46.py: idna.encode alone is timed)
    uts46 = None  # type: ignore[assignment]

#: Letters of the scripts hosts are written in (code point ranges, lower and upper case).
SCRIPTS: dict[str, list[int]] = {
    "latin": [*range(0x61, 0x7B), *range(0xE0, 0xFF), *range(0x100, 0x17F)],
    "greek": [*range(0x3B1, 0x3CA), *range(0x391, 0x3AA)],
    "cyrillic": [*range(0x430, 0x450), *range(0x410, 0x430)],
    "han": [*range(0x4E00, 0x9FA0, 7)],
    "kana": [*range(0x3041, 0x3097), *range(0x30A1, 0x30FB)],
    "hangul": [*range(0xAC00, 0xD7A0, 11)],
    "arabic": [*range(0x628, 0x63B), *range(0x641, 0x64B)],
    "hebrew": [*range(0x5D0, 0x5EB)],
    "devanagari": [*range(0x905, 0x93A), *range(0x93E, 0x94D)],
    "thai": [*range(0xE01, 0xE2F)],
}
TLDS = ["com", "de", "example", "рф", "中国", "テスト", "إختبار", "ελ", "org", "भारत"]
BLOCK = 200


def hosts(count: int, seed: int) -> list[str]:
    """``count`` distinct hosts idna accepts, drawn with ``seed``."""
    rng = random.Random(seed)
    out: list[str] = []
    seen: set[str] = set()
    scripts = list(SCRIPTS.values())
    while len(out) < count:
        labels = []
        for _ in range(rng.randint(1, 3)):
            alphabet = rng.choice(scripts)
            labels.append("".join(chr(rng.choice(alphabet)) for _ in range(rng.randint(2, 12))))
        labels.append(rng.choice(TLDS))
        host = ".".join(labels)
        if host in seen:
            continue
        try:
            idna.encode(host, uts46=True, std3_rules=False)
        except (UnicodeError, ValueError):
            continue
        seen.add(host)
        out.append(host)
    return out


def urls(names: list[str], seed: int) -> list[str]:
    rng = random.Random(seed + 1)
    return [
        f"{rng.choice(['http', 'https', 'https'])}://{host}"
        f"{rng.choice(['/', '/index.html', f'/a/{i}', f'/search?q={i}'])}"
        for i, host in enumerate(names)
    ]


Timed = dict[str, tuple[Callable[[str], object], Callable[[], object]]]


def timed(fns: Timed, items: list[str], rounds: int) -> dict[str, float]:
    """Median CPU µs an item, the functions taking turns block by block; each function's
    ``before`` runs before every round (clearing a parser's cache: every item is new to it
    within a round)."""
    names = list(fns)
    per: dict[str, list[float]] = {n: [] for n in names}
    blocks = [items[i : i + BLOCK] for i in range(0, len(items), BLOCK)]
    for _ in range(rounds):
        spent = dict.fromkeys(names, 0.0)
        for _fn, before in fns.values():
            before()
        gc.collect()
        for b, block in enumerate(blocks):
            for k in range(len(names)):
                name = names[(b + k) % len(names)]
                fn = fns[name][0]
                t0 = time.thread_time()
                for item in block:
                    fn(item)
                spent[name] += time.thread_time() - t0
        for n in names:
            per[n].append(spent[n] / len(items) * 1e6)
    out = {n: round(statistics.median(v), 2) for n, v in per.items()}
    # (the first round apart: it pays what is learnt once a process, e.g. uts46's
    # per-code-point answers, for the ~4,000 code points the hosts are drawn from)
    out.update({f"{n} (first round)": round(v[0], 2) for n, v in per.items()})
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--count", type=int, default=10_000, help="distinct hosts (10000)")
    ap.add_argument("--rounds", type=int, default=3, help="passes; median (3)")
    ap.add_argument("--seed", type=int, default=1122, help="the hosts' seed (1122)")
    args = ap.parse_args(argv)
    names = hosts(args.count, args.seed)
    texts = urls(names, args.seed)
    for host in names[:500] if uts46 is not None else ():  # (tests/test_uts46.py: the rest)
        assert uts46.to_ascii(host) == idna.encode(host, uts46=True, std3_rules=False).decode()
    nothing = lambda: None  # noqa: E731
    parsers: Timed = {
        "schemes.parse": (schemes.parse, nothing),
        "urlsplit": (urllib.parse.urlsplit, urllib.parse.clear_cache),
    }
    try:
        import ada_url
    except ImportError:
        pass
    else:
        parsers["ada_url.URL"] = (ada_url.URL, nothing)
    try:
        import yarl
    except ImportError:
        pass
    else:  # (its host cache cleared every round: each host is new to it too)
        parsers["yarl.URL"] = (yarl.URL, getattr(yarl, "cache_clear", nothing))
    parse_us = timed(parsers, texts, args.rounds)
    mappers: Timed = {
        "idna.encode": (lambda h: idna.encode(h, uts46=True, std3_rules=False), nothing)
    }
    if uts46 is not None:
        mappers["uts46.to_ascii"] = (uts46.to_ascii, nothing)
    hosts_us = timed(mappers, names, args.rounds)
    load = os.getloadavg()[0]
    print(
        json.dumps(
            {
                "python": sys.version.split()[0],
                "prefix": sys.prefix,
                "compiled": not (schemes.parse.__module__ or "").endswith("registry")
                and not str(
                    getattr(sys.modules["omniurl.schemes.rfc3986"], "__file__", "")
                ).endswith(".py"),
                "date": time.strftime("%Y-%m-%d %H:%M %Z"),
                "load_1min": round(load, 2),
                "hosts": len(names),
                "seed": args.seed,
                "rounds": args.rounds,
                "parse_us_per_url": parse_us,
                "host_us": hosts_us,
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
