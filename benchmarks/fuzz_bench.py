"""10⁶ generated URLs through parse + plan + the policy check, for every scheme: the count of
untyped exceptions (the goal is 0) and the slowest input's time.

The generator joins pieces that mean something to some scheme (``%2F``, ``;type=``, ``%09``,
``[::1]``, ``user:pw@``, ``?subject=``…) at random, as ``tests/test_fuzz_plans.py`` does with
hypothesis; this script runs many more of them, from a fixed seed (reproducible).

    python benchmarks/fuzz_bench.py [--count 1000000] [--seed 1994]
"""

from __future__ import annotations

import argparse
import collections
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from test_fuzz_plans import OPTIONS, PIECES, SCHEMES

from omniurl import resolvers, schemes
from omniurl.schemes.errors import OmniurlError


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--count", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1994)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    untyped: collections.Counter[str] = collections.Counter()
    examples: dict[str, str] = {}
    typed = ok = 0
    slowest = (0.0, "")
    started = time.perf_counter()
    for _ in range(args.count):
        text = (
            rng.choice(SCHEMES)
            + rng.choice(["://", ":", ":/", "://h/"])
            + "".join(rng.choice(PIECES) for _ in range(rng.randrange(13)))
        )
        t0 = time.perf_counter()
        try:
            plan = resolvers.plan(schemes.parse(text, strict=rng.random() < 0.5), OPTIONS)
            OPTIONS.policy.check_plan(plan)
            ok += 1
        except OmniurlError:
            typed += 1
        except Exception as exc:  # what the goal says must never happen
            name = type(exc).__name__
            untyped[name] += 1
            examples.setdefault(name, text)
        took = time.perf_counter() - t0
        if took > slowest[0]:
            slowest = (took, text)
    total = time.perf_counter() - started
    print(f"{args.count} URLs in {total:.1f} s: {ok} planned, {typed} typed errors, "
          f"{sum(untyped.values())} untyped exceptions (goal 0)")  # fmt: skip
    for name, n in untyped.most_common():
        print(f"  {name}: {n}, e.g. {examples[name]!r}")
    print(f"slowest input: {slowest[0] * 1000:.2f} ms for {slowest[1]!r}")
    return 1 if untyped else 0


if __name__ == "__main__":
    raise SystemExit(main())
