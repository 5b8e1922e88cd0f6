"""Differential fuzzing of ``schemes.parse``: the fast first step against the general way.

    python tools/parse_fuzz.py --seed 1 --count 200000            # compare, print differences
    python tools/parse_fuzz.py --seed 1 --count 20000 --dump F    # also write each outcome
    python tools/parse_fuzz.py --corpus urltestdata.json --corpus lib1560.c ...

Each input is parsed twice: by :func:`schemes.parse` as a user calls it (the first step's
one-match readings, ``schemes.fastparse``, the IRI mappings ``rfc3986.default_text`` and
``map_iri_host``, the registry's kept generic entries), and by the general way alone (every
entry of the text's scheme name without its ``_parse_default``, as
tests/test_parse_fast_default.py's ``general`` does).  The two must give equal objects, equal
``str()``, equal ``to_json()`` and equal errors (type, component, offset and message).

``--dump FILE`` writes one line per input (its outcome), so that two builds can be compared
on the same inputs (run it with the pure sources, then with ``.ci/compiled.py in``, and
``cmp`` the files).

The inputs (all drawn from ``--seed``):

* a grammar of each scheme's components (logins, reg-names, IPv4, IPv6 with IPv4 tails and
  zone ids, IPvFuture, percent-encoded and internationalized hosts, zero-padded ports,
  paths, queries, fragments; every built-in scheme, unknown ones, names in any case);
* mutations of seeds (the benchmark's mixes, tests/test_parse_fast_default.py's edges, and
  any ``--corpus``: a JSON list of WPT's ``{"input": ...}`` records or of strings, a C file
  whose ``{"...`` table rows start with a URL, or a text file of one URL a line): a
  character inserted (every code point 0x00-0xFF and a sample beyond), deleted, its case
  flipped, percent-encoded or decoded, a delimiter doubled;
* for a share of the seeds, every one of those characters inserted at every component
  boundary (after the scheme, around the login's ":" and "@", the host's ends, the port,
  each "/", "?", "#", the end).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import json
import random
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from omniurl import schemes  # noqa: E402
from omniurl.schemes import registry  # noqa: E402
from omniurl.schemes.errors import URLError  # noqa: E402

#: The characters inserted: every code point 0x00-0xFF and a sample beyond (IRI characters,
#: ones that are not, IDNA-mapped ones, surrogates, private use, noncharacters, astral).
SAMPLE = [chr(c) for c in range(0x100)] + [
    "\u0100", "\u017f", "\u0300", "\u0345", "\u05d0", "\u0627", "\u0660", "\u06f0",
    "\u200b", "\u200c", "\u200d", "\u2028", "\u202e", "\u2044", "\u2100", "\u2115",
    "\u2488", "\u3002", "\u30c6", "\ud7ff", "\ud800", "\udc80", "\udfff", "\ue000",
    "\uf8ff", "\uf900", "\ufdcf", "\ufdd0", "\ufdef", "\ufdf0", "\ufe0f", "\ufeff",
    "\uff0e", "\uff0f", "\uff1a", "\uff1f", "\uff20", "\uff03", "\uff05", "\uff21",
    "\ufffd", "\uffef", "\ufffe", "\uffff", "\U00010000", "\U0001f600", "\U0001fffe",
    "\U000e0001", "\U000e0100", "\U000e1000", "\U000efffd", "\U000f0000", "\U0010fffd",
    "\u00df", "\u03c2", "\u0130", "\u1e9e", "\u2126", "\u212a", "\ufb00", "\u2163",
]  # fmt: skip

BUILTIN = sorted(registry.BUILTIN_SCHEMES)
UNKNOWN = ["x-gen", "redis", "git+https", "a", "z39.50r", "web+x", "ldap", "data", "about"]


# -- the two ways ---------------------------------------------------------------------------


def outcome(call: Callable[[], object]) -> tuple[object, ...]:
    """What one parse gives, as a comparable value."""
    try:
        u = call()
    except URLError as exc:
        return ("error", type(exc).__name__, exc.component, exc.offset, exc.message)
    except Exception as exc:  # (never allowed: schemes.parse raises URLError only)
        return ("escaped", type(exc).__name__, str(exc))
    assert isinstance(u, schemes.URL)
    return ("url", type(u).__name__, str(u), _json(u.to_json()), u)


def _json(value: object) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=True, default=repr)


def _load_builtins() -> None:
    for name in registry.BUILTIN_SCHEMES:
        registry.builtin_class(name)


def fast(text: str) -> tuple[object, ...]:
    return outcome(lambda: schemes.parse(text))


def general(text: str) -> tuple[object, ...]:
    """What :func:`schemes.parse` gives with no class's ``_parse_default`` for the text's
    scheme name (as written and in lower case)."""
    colon = text.find(":")
    names = {text[:colon], text[:colon].lower()} if colon > 0 else set()
    saved = {name: registry._parsers[name] for name in names if name in registry._parsers}
    try:
        for name, entry in saved.items():
            registry._parsers[name] = (entry[0], entry[1], None)
        return outcome(lambda: schemes.parse(text))
    finally:
        for name in names:
            if name in saved:
                registry._parsers[name] = saved[name]
            else:
                registry._parsers.pop(name, None)


def compare(text: str) -> tuple[tuple[object, ...], tuple[object, ...] | None]:
    """(the fast outcome, the general one where it differs, else None)."""
    a = fast(text)
    b = general(text)
    if a == b and (a[0] != "url" or _same_fields(a[4], b[4])):
        return a, None
    return a, b


def _same_fields(x: object, y: object) -> bool:
    """Equal field by field as read (a lazily decoded field reads as the decoded text)."""
    import dataclasses

    if not dataclasses.is_dataclass(x):
        return True
    for f in dataclasses.fields(x):  # type: ignore[arg-type,unused-ignore]
        vx, vy = getattr(x, f.name), getattr(y, f.name)
        if vx != vy or (
            type(vx) is not type(vy) and not (isinstance(vx, str) and isinstance(vy, str))
        ):
            return False
    return True


# -- inputs ---------------------------------------------------------------------------------


def _w(r: random.Random, alpha: str, lo: int = 0, hi: int = 8) -> str:
    return "".join(r.choice(alpha) for _ in range(r.randint(lo, hi)))


_ASCII_ODD = "abcXY09-._~!$&'()*+,;=:@/?#%[]<>\"{}|\\^` \t"
_U8 = "éü中ß€ñ\u0300\U0001f600\ufffd\u00a0"


#: How often a piece holds an escape, a character beyond ASCII or an odd one (set per URL).
_NOISE = [0.3]


def _piece(r: random.Random, base: str) -> str:
    out = []
    for _ in range(r.randint(0, 6)):
        k = r.random()
        if k > _NOISE[0]:
            out.append(r.choice(base))
            continue
        k = r.random()
        if k < 0.4:
            out.append(r.choice(base))
        elif k < 0.75:
            out.append(
                r.choice(
                    [
                        "%41",
                        "%2F",
                        "%3f",
                        "%23",
                        "%40",
                        "%25",
                        "%00",
                        "%C3%A9",
                        "%E2%82",
                        "%FF",
                        "%3C",
                        "%3E",
                        "%09",
                        "%2",
                        "%",
                        "%zz",
                    ]
                )
            )
        elif k < 0.9:
            out.append(r.choice(_U8))
        else:
            out.append(r.choice(_ASCII_ODD))
    return "".join(out)


def _host(r: random.Random) -> str:
    k = r.randrange(14)
    if k < 4:
        return ".".join(_w(r, "abcxyz019-", 1, 6) for _ in range(r.randint(1, 3)))
    if k == 4:
        return ".".join(
            str(r.choice([0, 1, 9, 10, 99, 127, 255, 256, 1000, 4294967295]))
            for _ in range(r.choice([1, 2, 3, 4, 4, 4, 5]))
        )
    if k == 5:
        groups = [
            r.choice(["", "0", "1", "fe80", "FFFF", "abcd", "12345", "g"])
            for _ in range(r.randint(1, 9))
        ]
        inner = ":".join(groups)
        if r.random() < 0.3:
            inner += r.choice([":1.2.3.4", ":255.255.255.255", ":1.2.3.04", ":1.2.3"])
        if r.random() < 0.3:
            inner = "::" + inner
        if r.random() < 0.3:
            inner += r.choice(["%25eth0", "%25", "%eth0", "%25%41", "%25é", "%25a~b", "%251"])
        return f"[{inner}]"
    if k == 6:
        return (
            "[" + r.choice(["v1.x", "V7.a:b", "vF.!$", "v.x", "v1.", "v1x", "vg.1", "v12.é"]) + "]"
        )
    if k == 7:
        return (
            _w(r, "abc", 0, 3)
            + r.choice(
                ["%41", "%2e", "%2E", "%C3%BC", "%20", "%3A", "%25", "%7e", "%5F", "%zz", "%4"]
            )
            + _w(r, "abc", 0, 3)
        )
    if k == 8:
        return r.choice(
            [
                "bücher.example",
                "пример.рф",
                "例え。テスト",
                "ＡＢＣ.example",
                "faß.de",
                "xn--bcher-kva.example",
                "xn--zz.example",
                "a\u200db",
                "ü..x",
                "İ.example",
                "ß",
                "\u0660\u06f0.x",
                "a。b",
                "a．b",
                "ⅷ.x",
            ]
        )
    if k == 9:
        return ""
    if k == 10:
        return r.choice(["localhost", "LOCALHOST", "h_1.example", "h.example.", "-h", "h-"])
    return _piece(r, "abcXYZ09-._~!$&'()*+,;=")


def _port(r: random.Random) -> str:
    return r.choice(
        [
            "",
            "",
            "",
            ":",
            ":80",
            ":0080",
            ":00000000000000000080",
            ":65535",
            ":65536",
            ":0",
            ":99999999999999999999",
            ":8x",
            ": 1",
            ":+1",
            ":٣",
        ]
    )


def _login(r: random.Random) -> str:
    k = r.randrange(6)
    if k < 2:
        return ""
    if k == 2:
        return _piece(r, "uUs9-._~!$&'()*+,;=") + "@"
    if k == 3:
        return _piece(r, "u9-._~") + ":" + _piece(r, "p9-._~:") + "@"
    if k == 4:
        return r.choice(["@", ":@", "u:@", ":p@", "u@@", "a?b@", "u:p:q@", "é@", "u:é@"])
    return _piece(r, "ab@:") + "@"


def _path(r: random.Random, scheme: str) -> str:
    segs = []
    for _ in range(r.randint(0, 4)):
        base = "abc09-._~!$&'()*+,;=:@"
        if scheme.startswith("ftp"):
            base += ";"
            if r.random() < 0.2:
                segs.append(r.choice(["a;type=i", "b;type=A", ";type=d", "x;type=q", "y;type="]))
                continue
        if scheme.startswith("gopher") and not segs and r.random() < 0.5:
            segs.append(
                r.choice("0179+ghIs")
                + _piece(r, base + "\t")
                + r.choice(["", "%09x", "%09x%09+", "%09%09!", "%09"])
            )
            continue
        segs.append(_piece(r, base))
    path = "/".join(segs)
    return ("/" + path) if path or r.random() < 0.5 else ""


def _query(r: random.Random) -> str:
    k = r.random()
    if k < 0.5:
        return ""
    return "?" + _piece(r, "abc09-._~!$&'()*+,;=:@/?")


def _frag(r: random.Random) -> str:
    return "" if r.random() < 0.6 else "#" + _piece(r, "abc09-._~!$&'()*+,;=:@/?#")


def _scheme(r: random.Random) -> str:
    name = r.choice(BUILTIN + BUILTIN + UNKNOWN)
    k = r.random()
    if k < 0.1:
        return name.upper()
    if k < 0.15:
        return "".join(c.upper() if r.random() < 0.5 else c for c in name)
    return name


def grammar_url(r: random.Random) -> str:
    _NOISE[0] = r.choice([0.0, 0.02, 0.05, 0.1, 0.3])
    scheme = _scheme(r)
    low = scheme.lower()
    k = r.random()
    if low == "mailto" and k < 0.7:
        addr = ",".join(_piece(r, "ab.~") + "@" + _host(r) for _ in range(r.randint(0, 2)))
        hdrs = "&".join(
            _piece(r, "abto=") + "=" + _piece(r, "ab=@/?~ ") for _ in range(r.randint(0, 3))
        )
        return f"{scheme}:{addr}" + (("?" + hdrs) if hdrs or r.random() < 0.3 else "") + _frag(r)
    if low in ("news", "snews", "mid", "cid", "urn") and k < 0.6:
        body = _piece(r, "abc.-+_*!,~") + r.choice(["", "@" + _host(r), "@", "%40x"])
        if r.random() < 0.3:
            body = r.choice(["%3C", "%3c", "<"]) + body + r.choice(["%3E", "%3e", ">", ""])
        if low == "urn":
            body = _w(r, "abc-9", 0, 33) + ":" + body
        return f"{scheme}:{body}{_frag(r)}"
    if low == "file" and k < 0.5:
        return (
            scheme
            + ":"
            + r.choice(
                [
                    "",
                    "/",
                    "//",
                    "///",
                    "////",
                    "/////",
                    "C:",
                    "C|",
                    "//C:",
                    "///C:",
                    "//h",
                    "//localhost",
                    "//[::1]",
                ]
            )
            + _path(r, low)
        )
    if k < 0.1:
        return f"{scheme}:{_piece(r, 'abc/:@?#.')}"
    return f"{scheme}://{_login(r)}{_host(r)}{_port(r)}{_path(r, low)}{_query(r)}{_frag(r)}"


def mutate(text: str, r: random.Random) -> str:
    for _ in range(r.choice([1, 1, 1, 2, 3])):
        at = r.randrange(len(text) + 1)
        k = r.randrange(8)
        if k < 3:
            text = text[:at] + r.choice(SAMPLE) + text[at:]
        elif k == 3:
            text = text[:at] + text[at + 1 :]
        elif k == 4 and at < len(text):
            c = text[at]
            text = text[:at] + (c.lower() if c.isupper() else c.upper()) + text[at + 1 :]
        elif k == 5 and at < len(text):
            code = "".join(f"%{b:02X}" for b in text[at].encode("utf-8", "surrogatepass"))
            text = text[:at] + (code.lower() if r.random() < 0.3 else code) + text[at + 1 :]
        elif k == 6:
            m = [x.start() for x in re.finditer(r"%[0-9A-Fa-f]{2}", text)]
            if m:
                i = r.choice(m)
                c = chr(int(text[i + 1 : i + 3], 16))
                text = text[:i] + c + text[i + 3 :]
        else:
            for old in r.sample([":", "/", "@", "?", "#", "[", "]", ";", "=", "."], 3):
                if old in text:
                    text = text.replace(old, old + old, 1)
                    break
    return text


def boundaries(text: str) -> list[int]:
    """Where a URL's components meet (approximately: every delimiter, both sides)."""
    points = {0, len(text)}
    for m in re.finditer(r"[:/@?#\[\];=&.%]", text):
        points.add(m.start())
        points.add(m.end())
    return sorted(points)


def sweep(text: str, r: random.Random) -> Iterator[str]:
    """Every :data:`SAMPLE` character at two boundaries of ``text`` drawn from ``r``."""
    points = boundaries(text)
    for at in r.sample(points, min(2, len(points))):
        for c in SAMPLE:
            yield text[:at] + c + text[at:]


def read_corpus(path: Path) -> list[str]:
    """The URLs of a corpus file (see the module's docstring)."""
    raw = path.read_text(encoding="utf-8", errors="surrogateescape")
    if path.suffix == ".json":
        data = json.loads(raw)
        out = []
        for item in data:
            if isinstance(item, str) and not item.startswith("#"):
                out.append(item)
            elif isinstance(item, dict) and isinstance(item.get("input"), str):
                out.append(item["input"])
                if isinstance(item.get("href"), str):
                    out.append(item["href"])
        return out
    if path.suffix == ".c":
        out = []
        for m in re.finditer(r'^\s*\{\s*("(?:[^"\\]|\\.)*")', raw, re.M):
            with contextlib.suppress(ValueError, SyntaxError):
                out.append(ast.literal_eval(m.group(1)))
        return out
    return [line for line in raw.splitlines() if line and not line.startswith("#")]


def seeds(extra: list[Path], edges: list[str] | None = None) -> list[str]:
    """The benchmark's mixes (a few of each), the test's edges (``edges``, else read from
    tests/test_parse_fast_default.py), and every corpus given."""
    import importlib.util

    out: list[str] = []
    spec = importlib.util.spec_from_file_location("pb", ROOT / "benchmarks" / "parse_bench.py")
    if spec is not None and spec.loader is not None:
        sys.path.insert(0, str(ROOT / "benchmarks"))
        bench = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(bench)
        for mix in ("main", "heldout", "third", "fourth", "fifth", "sixth", "seventh"):
            out += bench.make_urls(300, mix=mix, seed=424242)
    if edges is None:
        try:
            sys.path.insert(0, str(ROOT / "tests"))
            from test_parse_fast_default import EDGES  # type: ignore[import-not-found]

            edges = list(EDGES)
        except Exception:  # (no tests in this checkout, or no hypothesis: the rest)
            edges = []
    out += edges
    for path in extra:
        out += read_corpus(path)
    return out


def inputs(
    seed: int, count: int, extra: list[Path], edges: list[str] | None = None
) -> Iterator[str]:
    """``count`` texts drawn from ``seed`` (see the module's docstring)."""
    r = random.Random(seed)
    pool = seeds(extra, edges)
    made = 0
    while made < count:
        k = r.random()
        if k < 0.35:
            yield grammar_url(r)
            made += 1
        elif k < 0.45:
            text = r.choice(pool)
            yield text
            made += 1
        elif k < 0.98:
            yield mutate(r.choice(pool) if r.random() < 0.7 else grammar_url(r), r)
            made += 1
        else:
            text = r.choice(pool) if r.random() < 0.5 else grammar_url(r)
            for swept in sweep(text, r):
                yield swept
                made += 1
                if made >= count:
                    return


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=20000)
    ap.add_argument("--corpus", type=Path, action="append", default=[])
    ap.add_argument("--only-corpus", action="store_true", help="the corpora as they are")
    ap.add_argument("--dump", type=Path, help="one line per input: its outcome (both builds)")
    ap.add_argument("--show", type=int, default=20, help="differences printed")
    args = ap.parse_args(argv)
    _load_builtins()
    texts: Iterator[str] = (
        iter([t for p in args.corpus for t in read_corpus(p)])
        if args.only_corpus
        else inputs(args.seed, args.count, args.corpus)
    )
    dump = args.dump.open("w", encoding="utf-8", errors="surrogateescape") if args.dump else None
    n = bad = took = 0
    for text in texts:
        n += 1
        a, b = compare(text)
        if b is not None:
            bad += 1
            if bad <= args.show:
                print(f"DIFF {text!r}\n  fast:    {a[:4]}\n  general: {b[:4]}", flush=True)
        elif a[0] == "url":
            took += 1
        if dump is not None:
            dump.write(_json([text, list(a[:4])]) + "\n")
    if dump is not None:
        dump.close()
    print(f"parse_fuzz: seed {args.seed}: {n} inputs, {took} URLs, {bad} differences")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
