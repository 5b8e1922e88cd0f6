"""Schemes without an authority refuse RFC 3986's ``//`` form in the default reading
(issue 31 item 22).

``mailto:`` (RFC 6068 §2: ``mailtoURI = "mailto:" [ to ] [ hfields ]``, an addr-spec in which
"/" is written ``%2F``) and ``urn:`` (RFC 8141 §2: ``urn:NID:NSS``) have no authority; RFC
3986 §3.2 reads ``//test:test`` as host "test", port "test", which is no port (``port =
*DIGIT``).  Before, ``mailto://test:test`` was the address ``//test:test`` and
``urn://test:test`` the NSS ``//test:test``.  RFC 1738's letter (``*xchar``) still takes
them, as it takes ``data://…``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from omniurl import schemes
from omniurl.schemes import PortError, SchemeSyntaxError

REFUSED = [
    # (url, error type, component, offset)
    ("mailto://test:test", PortError, "port", 14),
    ("urn://test:test", PortError, "port", 11),
    ("MAILTO://test:test", PortError, "port", 14),
    ("mailto://a@b", SchemeSyntaxError, "address", 7),
    ("mailto://h/x?subject=y", SchemeSyntaxError, "address", 7),
    ("urn://h:1/x", SchemeSyntaxError, "nid", 4),
    ("urn://isbn:1", SchemeSyntaxError, "nid", 4),
]


@pytest.mark.parametrize(("url", "kind", "component", "offset"), REFUSED)
@pytest.mark.parametrize("syntax", ["rfc3986", "lenient"])
def test_authority_form_is_refused(
    url: str, kind: type[Exception], component: str, offset: int, syntax: str
) -> None:
    with pytest.raises(kind) as info:
        schemes.parse(url, syntax=syntax)  # type: ignore[arg-type]
    assert (info.value.component, info.value.offset) == (component, offset)  # type: ignore[attr-defined]


ACCEPTED = [
    ("mailto:test@example.org", "address", "test@example.org"),
    ("mailto:%2F%2Ftest@example.org", "address", "//test@example.org"),
    ("mailto:?to=//x", "headers", (("to", "//x"),)),
    ("urn:isbn:0451450523", "nss", "0451450523"),
    ("urn:/iana/dns/ch/cern", "nss", "/iana/dns/ch/cern"),  # RFC 1630's early form
]


@pytest.mark.parametrize(("url", "field", "value"), ACCEPTED)
def test_the_forms_without_an_authority_still_parse(url: str, field: str, value: object) -> None:
    assert getattr(schemes.parse(url), field) == value


def test_the_letter_of_rfc1738_still_reads_xchars() -> None:
    # encoded822addr = 1*xchar, and "/" is an xchar (§5).
    url = schemes.parse("mailto://test:test", syntax="rfc1738")
    assert url.address == "//test:test"  # type: ignore[attr-defined]
    assert str(url) == "mailto:%2F%2Ftest:test"
    assert schemes.parse(str(url)).address == "//test:test"  # type: ignore[attr-defined]


def test_the_cli_refuses_it_with_a_typed_error() -> None:
    root = Path(__file__).resolve().parent.parent
    for url in ("mailto://test:test", "urn://test:test"):
        done = subprocess.run(
            [sys.executable, "-m", "omniurl", "parse", url],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 2, (url, done.stdout)
        assert json.loads(done.stdout)["error"]["type"] == "PortError"
