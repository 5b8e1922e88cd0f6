"""schemes.uts46.to_ascii gives exactly what ``idna.encode(host, uts46=True,
std3_rules=False)`` gives — every A-label, and every refusal with idna's exception type and
message — on code points of every plane, the UTS #46 conformance strings, and generated hosts
of many scripts; and its punycode is Python's codec's (RFC 3492), byte for byte.

The oracle is the installed idna package itself, so the test holds whatever version (and
Unicode version) of idna is installed.  Run in both builds (the CI runs the compiled one
too: .ci/compiled.py), so that the pure and the compiled module give one answer.
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections.abc import Iterable, Iterator
from pathlib import Path

import idna
import pytest
from helpers import race
from idna import idnadata

from omniurl.schemes import HostError, parse, uts46

DATA = Path(__file__).parent / "data" / "idna_test_v2_strings.txt"

Answer = str | tuple[type, str]


def _idna(host: str) -> Answer:
    try:
        return idna.encode(host, uts46=True, std3_rules=False).decode("ascii")
    except (UnicodeError, ValueError) as exc:
        return (type(exc), str(exc))


def _ours(host: str) -> Answer:
    try:
        return uts46.to_ascii(host)
    except (UnicodeError, ValueError) as exc:
        return (type(exc), str(exc))


def _compare(hosts: Iterable[str]) -> tuple[int, int]:
    """Assert both answers agree on every host; (hosts idna accepts, of them those the fast
    way answered without idna)."""
    diffs: list[tuple[str, Answer, Answer]] = []
    n = fast = 0
    for host in hosts:
        want, got = _idna(host), _ours(host)
        if want != got:
            diffs.append((host, want, got))
        n += isinstance(want, str)
        if uts46._fast(host) is not None:
            fast += 1
            assert isinstance(want, str), host  # (what the fast way answers idna accepts)
    assert diffs[:5] == [] and len(diffs) == 0
    return n, fast


def _ranges(ranges: tuple[int, ...]) -> Iterator[int]:
    """The code points of one of idna's ``intranges`` tuples (start << 32 | end)."""
    for r in ranges:
        yield from range(r >> 32, r & 0xFFFFFFFF)


def _sample() -> list[int]:
    """A deterministic sample of code points: every 19th of U+0080..U+10FFFF (~58,000),
    and every code point of idna's CONTEXTJ and CONTEXTO classes, every one of the BMP and
    the SMP whose bidi class is R, AL or AN (the Bidi Rule's), and the dots and deviations."""
    cps = set(range(0x80, 0x110000, 19))
    cps.update(_ranges(idnadata.codepoint_classes["CONTEXTJ"]))
    cps.update(_ranges(idnadata.codepoint_classes["CONTEXTO"]))
    cps.update(
        cp for cp in range(0x80, 0x20000) if unicodedata.bidirectional(chr(cp)) in ("R", "AL", "AN")
    )
    cps.update((0x3002, 0xFF0E, 0xFF61, 0xDF, 0x3C2, 0x200C, 0x200D, 0x94D, 0x1E9E))
    return sorted(cp for cp in cps if not 0xD800 <= cp <= 0xDFFF)


def test_code_points_alone_and_inside_a_label() -> None:
    cps = _sample()
    assert len(cps) > 50_000
    hosts: list[str] = []
    for cp in cps:
        c = chr(cp)
        hosts += [c, f"a{c}b"]
    n, fast = _compare(hosts)
    assert fast > n // 2


def test_the_uts46_conformance_strings() -> None:
    """Every string of UTS #46's IdnaTestV2.txt (Unicode 13.0.0; tests/data's header), as
    itself, lower-cased and with a label before and after."""
    strings = []
    for line in DATA.read_text("utf-8").splitlines():
        if line and not line.startswith("#"):
            strings.append(_unescape(line))
    assert len(strings) > 7000
    hosts = []
    for s in strings:
        hosts += [s, s.lower(), f"www.{s}", f"{s}.bücher"]
    n, fast = _compare(hosts)
    assert fast > n // 2


def _unescape(s: str) -> str:
    s = re.sub(r"\\x\{([0-9A-Fa-f]+)\}", lambda m: chr(int(m.group(1), 16)), s)
    return re.sub(r"\\u([0-9A-Fa-f]{4})", lambda m: chr(int(m.group(1), 16)), s)


#: Alphabets of scripts hosts are written in (code point ranges).
_SCRIPTS: dict[str, list[int]] = {
    "latin": [*range(0x61, 0x7B), *range(0xC0, 0x250)],
    "greek": [*range(0x391, 0x3AA), *range(0x3B1, 0x3CA), 0x3C2, 0x375],
    "cyrillic": [*range(0x410, 0x460)],
    "cjk": [*range(0x4E00, 0x4E80), *range(0x3041, 0x3097), *range(0x30A1, 0x30FB), 0x30FB],
    "arabic": [*range(0x621, 0x64B), *range(0x660, 0x66A), *range(0x6F0, 0x6FA), 0x64B],
    # (with the PVALID code points of bidi class ON, U+02B9..., and an NSM, U+05B0)
    "hebrew": [*range(0x5D0, 0x5EB), 0x5F3, 0x5F4, *range(0x30, 0x3A), 0x2B9, 0x2C8, 0x5B0],
    # (Hanifi Rohingya: AL letters and the only PVALID digits of bidi class AN)
    "rohingya": [*range(0x10D00, 0x10D24), *range(0x10D30, 0x10D3A), *range(0x30, 0x3A)],
    "devanagari": [*range(0x905, 0x940), 0x94D, 0x200C, 0x200D, 0x93C],
    "emoji": [*range(0x1F600, 0x1F650), *range(0x2600, 0x2620), 0xFE0F],
    "fullwidth": [*range(0xFF21, 0xFF3B), *range(0xFF41, 0xFF5B), *range(0xFF10, 0xFF1A)],
    "upper": [*range(0x41, 0x5B), 0x130, 0x1E9E, 0x3A3, 0xC4, 0xD6, 0xDC],
    "deviations": [0xDF, 0x3C2, 0x200C, 0x200D, 0x61, 0x73],
    "mixed": [0x2D, 0x5F, 0x301, 0x308, 0xAD, 0x34F, 0x2E, 0x3002, 0xFF0E, 0xFF61],
}
_ALPHABETS = list(_SCRIPTS.values())


def _label(r: random.Random) -> str:
    x = r.random()
    if x < 0.15:
        return "".join(r.choices("abcdefghijklmnopqrstuvwxyz0123456789-", k=r.randint(1, 12)))
    if x < 0.22:  # an A-label: valid (from idna), its case changed, or broken
        word = "".join(chr(r.choice(r.choice(_ALPHABETS[:9]))) for _ in range(r.randint(1, 6)))
        try:
            a = idna.encode(word, uts46=True, std3_rules=False).decode("ascii").split(".")[0]
        except (UnicodeError, ValueError):
            a = "xn--" + word.encode("punycode").decode("ascii")
        return r.choice([a, a.upper(), a[:-1], a + "-", "xn--", "xn--zz9" + a[4:], a + "9"])
    if x < 0.25:  # too long, or nearly
        return chr(r.choice(_SCRIPTS["latin"])) * r.randint(55, 70)
    alphabet = r.choice(_ALPHABETS)
    n = r.randint(1, 14)
    chars = [chr(r.choice(alphabet)) for _ in range(n)]
    if r.random() < 0.2:  # a second script, or ASCII, in the same label
        chars.insert(r.randrange(n + 1), chr(r.choice(r.choice(_ALPHABETS))))
    return "".join(chars)


def _hosts(seed: int, count: int) -> Iterator[str]:
    r = random.Random(seed)
    for _ in range(count):
        labels = [_label(r) for _ in range(r.choice([1, 2, 2, 2, 3, 3, 4]))]
        if r.random() < 0.5:
            labels.append(r.choice(["example", "de", "xn--p1ai", "рф", "中国", "com", "テスト"]))
        host = r.choice([".", "\u3002", "\uff0e", "\uff61"]).join(labels)
        x = r.random()
        if x < 0.06:
            host += "."
        elif x < 0.08:
            host = "." + host
        elif x < 0.10:
            host = host.replace(".", "..", 1)
        elif x < 0.12:
            host = ".".join([host] * 8)  # (too long, as a whole)
        yield host


def test_generated_hosts_of_many_scripts() -> None:
    n, fast = _compare(_hosts(seed=5891, count=12_000))
    assert fast > n // 2


def test_hand_picked_hosts() -> None:
    hosts = [
        "bücher.example",
        "faß.ExAmPlE",
        "FASS.example",
        "ς.gr",
        "Σ.gr",
        "例え。テスト",
        "例え．テスト",
        "例え｡テスト",
        "مثال.إختبار",
        "שלום.example",
        "א1.example",
        "1א.example",
        "א١.example",
        "١٢٣.example",
        "\U00010d00\U00010d31.example",
        "\u05d0\u02b9.example",
        "\u05d0\u02b9\u05d0.example",
        "\u05d0\u05b0.example",
        "\u05d01\u05b0.example",
        "\u05d0\u02b9\u05b0.example",
        "\U00010d00\U00010d311.example",
        "\U00010d001\U00010d31.example",
        "\U00010d001.example",
        "\U00010d00-1.example",
        "\U00010d00\u0300.example",
        "\U00010d00a.example",
        "۱٢.example",
        "क्\u200dष.example",
        "a\u200db.example",
        "a\u200cb.example",
        "ب\u200cب.example",
        "l·l.cat",
        "a·l.cat",
        "\u0375α.gr",
        "a\u0375.gr",
        "א׳.example",
        "ア・イ.jp",
        "・.jp",
        "😀.example",
        "xn--bcher-kva.example",
        "XN--BCHER-KVA.example",
        "xn--bcher-kvab.example",
        "xn--.example",
        "xn--a-.example",
        "xn---bbk.example",
        "ab--cd.bücher",
        "-ü.example",
        "ü-.example",
        "üü--x.example",
        "\u0301ü.example",
        "ü\u0301.example",
        "u\u0308.example",
        "ü" * 59 + ".example",
        "ü" * 60 + ".example",
        ("ü" * 50 + ".") * 5,
        "ü..example",
        ".ü.example",
        "ü.example.",
        "ü.example..",
        "",
        ".",
        "ü",
        "ü_x.example",
        "a_b.bücher",
        "\u00ad\u00adü.example",
        "\u00ad" * 300 + "ü.example",
        "ü" * 1100,
        "ﬀ.example",
        "İ.example",
        "ẞ.example",
        "㎒.example",
        "Ⅻ.example",
        "\U000e0100ü.example",
        "\ufdfa.example",
        "\x00ü",
        "ü\u3002",
    ]
    n, fast = _compare(hosts)
    assert fast > n // 2


def test_punycode_is_rfc3492() -> None:
    """Python's codec (encodings.punycode, RFC 3492) on labels of one to 40 code points of
    every range: single code points of the sample, and random mixes with repeats."""
    labels = [chr(cp) for cp in _sample()[::7]]
    labels += [f"a{c}b{c}" for c in labels[::3]]
    r = random.Random(3492)
    pool = [cp for a in _ALPHABETS for cp in a] + [0x80, 0x10FFFD, 0xE000, 0x7F]
    for _ in range(4_000):
        labels.append("".join(chr(r.choice(pool)) for _ in range(r.randint(1, 40))))
    diffs = [s for s in labels if uts46.punycode(s) != s.encode("punycode").decode("ascii")]
    assert diffs == []


def test_the_parse_of_an_idn_host() -> None:
    """What a parse makes of it: the A-labels, and idna's refusal as a HostError naming the
    host and its offset, quoting idna's reason."""
    url = parse("https://Bücher.ExAmPlE/straße")
    assert url.host == "xn--bcher-kva.example"  # type: ignore[attr-defined]
    assert str(url) == "https://xn--bcher-kva.example/stra%C3%9Fe"
    with pytest.raises(HostError) as info:
        parse("https://user@a\u200db.example/")
    assert info.value.component == "host"
    assert info.value.offset == 13
    with pytest.raises(idna.IDNAError) as reason:
        idna.encode("a\u200db.example", uts46=True, std3_rules=False)
    assert info.value.message == (
        f"'a\\u200db.example' is not a valid internationalized domain name ({reason.value})"
    )


def test_the_fast_way_answers_the_common_hosts() -> None:
    """Hosts as people write them take the compiled way, not idna's (the speed-up the
    module is for: docs/speed.md), and give idna's answer."""
    hosts = [
        "bücher.example",
        "Bücher.Example",
        "faß.example",
        "münchen.de",
        "пример.рф",
        "例え.テスト",
        "中国.cn",
        "ελληνικά.gr",
        "مثال.إختبار",
        "שלום.example",
        "\u05d0\u05b0.example",
        "räksmörgås.se",
        "www.bücher.xn--p1ai.",
        "ｂüｃｈｅｒ。example",
    ]
    for host in hosts:
        assert uts46._fast(host) == _idna(host), host


def test_threads_learning_code_points_past_the_kept_pages() -> None:
    """Past :data:`uts46._KEEP_PAGES` a code point's answer is computed each time; threads
    doing so for the same mapped code points at once get its mapping, never an exception
    (before: ``_learn`` kept the mapping, then deleted it, and a second thread's delete of
    the same key raised ``KeyError``, which escaped ``parse`` as a raw traceback)."""
    targets = [0x1E, 0x1F, 0x24, 0xFF]  # (Latin, Greek, enclosed, full-width: many mapped)
    saved_pages = [uts46._PAGES[t] for t in targets]
    saved_made = uts46._made[0]
    mapped: dict[int, str] = {}
    for cp in (cp for t in targets for cp in range(t << 8, (t + 1) << 8)):
        try:
            m = idna.uts46_remap(chr(cp), std3_rules=False)
        except (UnicodeError, ValueError):
            continue
        if m != chr(cp):
            mapped[cp] = m

    def work(_thread: int) -> None:
        for _ in range(60):
            for cp, m in mapped.items():
                uts46._learn(cp)
                assert uts46._remapped(chr(cp)) == m

    try:
        for t in targets:
            uts46._PAGES[t] = None
        uts46._made[0] = 1 << 30  # (no page may be made)
        errors = race(work)
    finally:
        uts46._made[0] = saved_made
        for t, page in zip(targets, saved_pages, strict=True):
            uts46._PAGES[t] = page
    assert errors == []
    assert to_ascii_is_idna("\u1e00\u1f08.\uff21")


def to_ascii_is_idna(host: str) -> bool:
    return uts46.to_ascii(host) == idna.encode(host, uts46=True, std3_rules=False).decode()
