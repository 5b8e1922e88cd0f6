"""A host's IDNA A-labels: UTS #46 processing and IDNA 2008 ToASCII, the ``idna`` package's
answers at a fraction of its cost (issue 32, docs/speed.md *seventh round (IDN hosts)*).

:func:`to_ascii` gives exactly ``idna.encode(host, uts46=True, std3_rules=False)`` decoded
as ASCII, or raises exactly its exception (tests/test_uts46.py holds code points of every
plane, the UTS #46 conformance vectors and generated hosts of many scripts to that).  Why not
call idna every time: it costs 35-100 µs a host (UTS #46 mapping by bisect, IDNA 2008
validity by bisect over range tables for each code point of every label, ASCII labels
included, and Python's pure-Python punycode codec), where the rest of a URL's parse costs
1-10 µs.

The shape (every rule from idna's own data and functions, never a copied table):

1. UTS #46 §4 mapping, one code point at a time: a code point's mapping is a property of the
   code point, asked of ``idna.uts46_remap`` once and kept (:func:`_learn`); then NFC
   (``unicodedata``), skipped when ``unicodedata.is_normalized`` says it changes nothing;
2. the labels (RFC 5891 §4.2): a label of ASCII letters, digits and inner hyphens is itself;
   a label whose every code point is PVALID (``idna.idnadata.codepoint_classes``), no
   combining mark first (RFC 5891 §4.2.3.2), in NFC, without hyphens at its ends or in
   positions 3-4, and that keeps RFC 5893's Bidi Rule where idna applies it (a label holding
   a code point of bidi class R, AL or AN), becomes ``xn--`` and its punycode
   (:func:`punycode`, RFC 3492 §6.3, compiled);
3. anything rarer — a joiner (CONTEXTJ) or CONTEXTO code point, an ``xn--`` label to verify,
   hyphens in positions 3-4 — is handed, label by label, to idna's own ``check_label`` /
   ``alabel``; and whatever is not valid, or is too long, or anything unexpected, to
   ``idna.encode`` itself, which raises its own error.  So every refusal is idna's, word for
   word, and the rare rules are idna's code.

What is kept is a few bits a code point (its mapping's kind, its IDNA 2008 class, its bidi
class), in pages of 256 made on first use, at most :data:`_KEEP_PAGES` of them (a script
needs one to a few); past that a code point's answer is computed again each time.
"""

from __future__ import annotations

import unicodedata

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

__all__ = ["punycode", "to_ascii"]

#: What is known of a code point, as bits (-1: not asked yet).
#: Its IDNA 2008 class (RFC 5892), the low two bits:
_PVALID: Final = 0
_MARK: Final = 1  # PVALID, and a combining mark (category M*): never first in a label
_CONTEXT: Final = 2  # CONTEXTJ or CONTEXTO: idna's own check_label decides
_INVALID: Final = 3  # neither: idna.encode refuses it
_CLASS_BITS: Final = 3
#: UTS #46 maps it to something else (:data:`_MAPPED`), or disallows it:
_MAPS: Final = 4
_DISALLOWED: Final = 8
#: Its bidi class as RFC 5893 (and idna's check_bidi) groups them, bits 4-6:
_BIDI_SHIFT: Final = 4
_B_L: Final = 0  # L
_B_RTL: Final = 1  # R, AL
_B_AN: Final = 2  # AN
_B_EN: Final = 3  # EN
_B_NEUTRAL: Final = 4  # ES, CS, ET, ON, BN: allowed in either direction
_B_NSM: Final = 5  # NSM
_B_OTHER: Final = 6  # allowed in no label holding R, AL or AN (WS, B, S, LRE…)
_B_UNKNOWN: Final = 7  # "": newer than unicodedata's Unicode; check_bidi refuses it
_BIDI: Final[dict[str, int]] = {
    "L": _B_L,
    "R": _B_RTL,
    "AL": _B_RTL,
    "AN": _B_AN,
    "EN": _B_EN,
    "ES": _B_NEUTRAL,
    "CS": _B_NEUTRAL,
    "ET": _B_NEUTRAL,
    "ON": _B_NEUTRAL,
    "BN": _B_NEUTRAL,
    "NSM": _B_NSM,
    "": _B_UNKNOWN,
}

#: Pages of 256 code points' bits, made on first use (None: not yet).
_PAGES: Final[list[list[int] | None]] = [None] * 0x1100
#: How many pages may be made (each 2 KiB); past that, answers are computed each time.
_KEEP_PAGES: Final = 256
_made: list[int] = [0]
#: code point -> its UTS #46 mapping, for those with :data:`_MAPS` (bounded by the pages).
_MAPPED: Final[dict[int, str]] = {}

_DIGITS: Final = "abcdefghijklmnopqrstuvwxyz0123456789"


def to_ascii(host: str) -> str:
    """``host``'s A-labels: ``idna.encode(host, uts46=True, std3_rules=False)``, as str.

    Raises what that raises (``idna.IDNAError`` and its kin, a ``UnicodeError``).
    """
    out = _fast(host)
    if out is not None:
        return out
    import idna

    encoded: bytes = idna.encode(host, uts46=True, std3_rules=False)
    return encoded.decode("ascii")


def _fast(host: str) -> str | None:
    """The A-labels of ``host``, or None where only idna may answer (an error, or a case
    this does not cover)."""
    n = len(host)
    if n > 254:
        # (a longer input yields a valid name only through ignored code points; idna 3.15+
        # refuses an input over 1024 characters outright: its answer either way)
        return None
    # 1. UTS #46 §4 mapping, then NFC
    pages = _PAGES
    changed = False
    for i in range(n):
        cp = ord(host[i])
        page = pages[cp >> 8]
        bits = -1 if page is None else page[cp & 0xFF]
        if bits < 0:
            bits = _learn(cp)
        if bits & (_MAPS | _DISALLOWED):
            if bits & _DISALLOWED:
                return None
            changed = True
    text = _remapped(host) if changed else host
    if not unicodedata.is_normalized("NFC", text):
        text = unicodedata.normalize("NFC", text)
    # 2. the labels (idna.encode: split at the dots, a trailing one kept, no empty label)
    labels = text.split(".")
    trailing = False
    if labels[-1] == "":
        if len(labels) == 1:
            return None  # "Empty domain"
        labels.pop()
        trailing = True
    out: list[str] = []
    for label in labels:
        if not label:
            return None  # "Empty label"
        a = _ascii_label(label) if label.isascii() else _label(label)
        if a is None:
            a = _idna_label(label)
            if a is None:
                return None
        out.append(a)
    if trailing:
        out.append("")
    result = ".".join(out)
    if len(result) > (254 if trailing else 253):
        return None  # "Domain too long"
    return result


def _remapped(host: str) -> str:
    """``host`` with each code point UTS #46 maps replaced by its mapping (none disallowed:
    :func:`_fast` looked), runs of the others copied as they are."""
    pieces: list[str] = []
    start = 0
    for i in range(len(host)):
        cp = ord(host[i])
        if _bits(cp) & _MAPS:
            if start < i:
                pieces.append(host[start:i])
            m = _MAPPED.get(cp)
            pieces.append(_mapping(cp) if m is None else m)
            start = i + 1
    pieces.append(host[start:])
    return "".join(pieces)


def _ascii_label(label: str) -> str | None:
    """An ASCII label after mapping: itself when it is LDH (idna's ``ulabel``: every code
    point PVALID — lower-case letters, digits, '-' — no '-' first or last, no '--' in
    positions 3-4, which says ``xn--``) and at most 63 octets; None for idna to answer."""
    n = len(label)
    if n > 63 or label[0] == "-" or label[n - 1] == "-" or label[2:4] == "--":
        return None
    for i in range(n):
        c = ord(label[i])
        if not (0x61 <= c <= 0x7A or 0x30 <= c <= 0x39 or c == 0x2D):
            return None
    return label


def _label(label: str) -> str | None:
    """A non-ASCII label (mapped, NFC) that RFC 5891 §4.2.3 and RFC 5893 find valid with no
    contextual rule to run: ``xn--`` and its punycode; None where idna's checks must run."""
    pages = _PAGES
    n = len(label)
    rtl = an = en = False
    other = False  # a code point of a bidi class no right-to-left label may hold
    first_bidi = last_bidi = _B_L
    for i in range(n):
        cp = ord(label[i])
        page = pages[cp >> 8]
        bits = -1 if page is None else page[cp & 0xFF]
        if bits < 0:
            bits = _learn(cp)
        cls = bits & _CLASS_BITS
        if cls != _PVALID and (cls != _MARK or i == 0):
            return None
        bidi = (bits >> _BIDI_SHIFT) & 7
        if i == 0:
            first_bidi = bidi
        if bidi == _B_RTL:
            rtl = True
        elif bidi == _B_AN:
            rtl = an = True
        elif bidi == _B_EN:
            en = True
        elif bidi == _B_UNKNOWN:
            return None
        elif bidi in (_B_L, _B_OTHER):
            other = True
        if bidi != _B_NSM:
            last_bidi = bidi
    if rtl and (
        # RFC 5893 §2 (idna's check_bidi): rule 1, the first is R or AL; rule 2, only
        # R AL AN EN ES CS ET ON BN NSM; rule 3, the last but NSMs is R AL EN or AN;
        # rule 4, not both AN and EN
        first_bidi != _B_RTL or other or last_bidi not in (_B_RTL, _B_AN, _B_EN) or (an and en)
    ):
        return None
    if label[0] == "-" or label[n - 1] == "-" or label[2:4] == "--":
        return None
    if not unicodedata.is_normalized("NFC", label):
        return None
    a = "xn--" + punycode(label)
    if len(a) > 63:
        return None
    return a


def _idna_label(label: str) -> str | None:
    """A label checked by idna's own code (``alabel``: its ``check_label`` — NFC, hyphens,
    a leading mark, CONTEXTJ and CONTEXTO rules, the Bidi Rule — or, for an ASCII label,
    its ``ulabel``, which verifies an ``xn--`` label), or None where idna refuses it."""
    import idna

    try:
        if label.isascii():
            ascii_label: bytes = idna.alabel(label)
            return ascii_label.decode("ascii")
        idna.check_label(label)
    except (UnicodeError, ValueError):
        return None
    a = "xn--" + punycode(label)
    return a if len(a) <= 63 else None


def _bits(cp: int) -> int:
    page = _PAGES[cp >> 8]
    bits = -1 if page is None else page[cp & 0xFF]
    return _learn(cp) if bits < 0 else bits


def _learn(cp: int) -> int:
    """What is known of code point ``cp`` (the bits above), from idna's UTS #46 table
    (``idna.uts46_remap`` of it alone), idna's IDNA 2008 classes (``codepoint_classes``)
    and ``unicodedata``'s bidi class and category — what idna itself asks; kept."""
    import idna
    from idna import idnadata

    ch = chr(cp)
    bits = 0
    m = ch
    try:
        m = idna.uts46_remap(ch, std3_rules=False)
    except (UnicodeError, ValueError):
        bits |= _DISALLOWED
    else:
        if m != ch:
            # (NFC of this one code point's mapping: _fast normalises the whole again, and
            # NFC of a concatenation of canonically equivalent pieces is one string)
            bits |= _MAPS
    classes = idnadata.codepoint_classes
    if idna.intranges_contain(cp, classes["PVALID"]):
        bits |= _MARK if unicodedata.category(ch)[0] == "M" else _PVALID
    elif idna.intranges_contain(cp, classes["CONTEXTJ"]) or idna.intranges_contain(
        cp, classes["CONTEXTO"]
    ):
        bits |= _CONTEXT
    else:
        bits |= _INVALID
    bits |= _BIDI.get(unicodedata.bidirectional(ch), _B_OTHER) << _BIDI_SHIFT
    page = _PAGES[cp >> 8]
    if page is None and _made[0] < _KEEP_PAGES:
        _made[0] += 1
        page = _PAGES[cp >> 8] = [-1] * 256
    if page is not None:
        # (the mapping kept before the bits that say so: another thread reading the page
        # finds it; none is kept where the page is not — _remapped asks _mapping then —, so
        # threads learning one code point never add and delete one key in turn)
        if bits & _MAPS:
            _MAPPED[cp] = m
        page[cp & 0xFF] = bits
    return bits


def _mapping(cp: int) -> str:
    """``cp``'s UTS #46 mapping where :data:`_MAPPED` does not keep it."""
    import idna

    m: str = idna.uts46_remap(chr(cp), std3_rules=False)
    return m


def punycode(label: str) -> str:
    """RFC 3492 §6.3's encoding of ``label`` (what ``label.encode("punycode")`` gives, as
    str): the basic code points in order, a "-" if there were any, then the deltas of the
    others as generalized variable-length integers (§3.3), the bias adapted (§6.1).

    Python's codec is pure Python (~5-20 µs a label); this one compiles (setup.py)."""
    total = len(label)
    out: list[str] = []
    for i in range(total):
        if ord(label[i]) < 0x80:
            out.append(label[i])
    h = b = len(out)
    if b:
        out.append("-")
    n = 0x80
    delta = 0
    bias = 72
    while h < total:
        m = 0x110000
        for i in range(total):
            c = ord(label[i])
            if n <= c < m:
                m = c
        delta += (m - n) * (h + 1)
        n = m
        for i in range(total):
            c = ord(label[i])
            if c < n:
                delta += 1
            elif c == n:
                q = delta
                k = 36
                while True:
                    t = 1 if k <= bias else 26 if k >= bias + 26 else k - bias
                    if q < t:
                        break
                    out.append(_DIGITS[t + (q - t) % (36 - t)])
                    q = (q - t) // (36 - t)
                    k += 36
                out.append(_DIGITS[q])
                # adapt (§6.1)
                d = delta // 700 if h == b else delta // 2
                d += d // (h + 1)
                k = 0
                while d > 455:
                    d //= 35
                    k += 36
                bias = k + (36 * d) // (d + 38)
                delta = 0
                h += 1
        delta += 1
        n += 1
    return "".join(out)
