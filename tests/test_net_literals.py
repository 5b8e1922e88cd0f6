"""``resolvers.net._is_ip_literal``: whether a host is an address already (no DNS lookup).

A dotted IPv4 address is answered by ``socket.inet_pton`` without importing ``ipaddress``
(issue 32: ~1 ms of a get's start); every answer must stay ``ipaddress.ip_address``'s.
"""

from __future__ import annotations

import ipaddress
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from omniurl.resolvers.net import _is_ip_literal

ROOT = Path(__file__).resolve().parent.parent


def reference(host: str) -> bool:
    """What the function answered before: a digit or a colon first, then ipaddress's."""
    if not host or not (host[0].isdigit() or ":" in host):
        return False
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


EDGES = [
    "127.0.0.1", "0.0.0.0", "255.255.255.255", "1.2.3.4", "10.0.0.01", "01.2.3.4",
    "00.0.0.0", "0.00.0.0", "256.1.1.1", "1.2.3.256", "1.2.3", "1.2.3.4.5", "1..3.4",
    "1.2.3.4.", ".1.2.3.4", "1.2.3.4 ", " 1.2.3.4", "1.2.3.4\n", "1.2.3.4\x00",
    "1.2.3.4%eth0", "127.1", "2130706433", "0x7f.0.0.1", "1.2.3.0x4", "1.2.3.-4",
    "1.2.3.+4", "\uff11.2.3.4", "1.2.3.\u0664", "1.2.3.4/32", "999.1.1.1", "1.2.3.0004",
    "::1", "::", "fe80::1%eth0", "fe80::1%25", "::ffff:1.2.3.4", "::ffff:01.2.3.4",
    "1::2::3", "12345::", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8:9", "[::1]", "::1 ",
    "2001:db8::", "2001:DB8::A", "g::1", "1:2:3:4:5:6:1.2.3.4", "", "a.b.c.d", "localhost",
    "1e3.1.1.1", "١٢٣.1.1.1", "1.2.3.4:80",
]  # fmt: skip


@pytest.mark.parametrize("host", EDGES)
def test_an_edge_case_is_answered_as_ipaddress_answers_it(host: str) -> None:
    _is_ip_literal.cache_clear()
    assert _is_ip_literal(host) == reference(host)


def test_random_dotted_texts_are_answered_as_ipaddress_answers_them() -> None:
    rng = random.Random(32)
    alphabet = "0123456789" * 4 + "..." + "x:%a -+\u0660"
    octets = ["0", "00", "01", "1", "9", "10", "99", "100", "199", "249", "255", "256", "300"]
    texts = [
        "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 16))) for _ in range(5000)
    ]
    for _ in range(5000):
        texts.append(".".join(rng.choice(octets) for _ in range(rng.choice((3, 4, 4, 4, 5)))))
    assert sum(reference(t) for t in texts) > 500  # (the control: many are addresses)
    _is_ip_literal.cache_clear()
    wrong = [t for t in texts if _is_ip_literal(t) != reference(t)]
    assert wrong == []


def test_a_dotted_ipv4_address_imports_no_ipaddress() -> None:
    code = (
        "import sys; from omniurl.resolvers.net import _is_ip_literal\n"
        "a = _is_ip_literal('127.0.0.1'), 'ipaddress' in sys.modules\n"
        "b = _is_ip_literal('::1'), 'ipaddress' in sys.modules\n"
        "print(a, b)\n"
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", code], capture_output=True, text=True, timeout=60,
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True,
    )  # fmt: skip
    assert done.stdout.strip() == "(True, False) (True, True)"
