"""Unknown schemes in the default reading: RFC 3986 §3.2's generic authority grammar.

A scheme omniurl has no class for is RFC 3986's generic syntax, and its authority has rules:
``userinfo = *( unreserved / pct-encoded / sub-delims / ":" )``, ``host = IP-literal /
IPv4address / reg-name`` (a reg-name holds no ":" and no "@"), ``port = *DIGIT``.  The cases
are the kinds web-platform-tests' urltestdata, uriparser and the rfc3986 package check, where
WHATWG and RFC 3986 agree.
"""

from __future__ import annotations

import pytest

from omniurl import schemes
from omniurl.schemes import AuthorityError, EncodingError, GenericURL, HostError, PortError

REFUSED = [
    # (url, error type, component, offset)
    ("data://test:test", PortError, "port", 12),
    ("sc://h:8a/", PortError, "port", 8),
    ("sc://h:-1/", PortError, "port", 7),
    ("sc://h: 1/", PortError, "port", 7),
    ("sc://te@s:t@/", EncodingError, "user", 7),
    ("sc://u:p@q@h/", EncodingError, "password", 8),
    ("ssh://user:pass@localhost:80:80:80:22", HostError, "host", 25),
    ("sc://a:b:c/", HostError, "host", 6),
    ("foo://::1/", HostError, "host", 6),
    ("sc://[::1/", HostError, "host", 5),
    ("sc://[zz]/", HostError, "host", 5),
    ("sc://[1:2:3:4:5:6:7:8:9]/", HostError, "host", 5),
    ("sc://[v1]/", HostError, "host", 5),
    ("sc://[::1]x/", HostError, "host", 10),
    ("sc://a]b/", EncodingError, "host", 6),
    ("sc://a[b/", EncodingError, "host", 6),
    ("sc://a^b", EncodingError, "host", 6),
    ("sc://a|b/", EncodingError, "host", 6),
    ("sc://a<b", EncodingError, "host", 6),
    ("sc://a b/", EncodingError, "host", 6),
    ("sc://a\\b/", EncodingError, "host", 6),
    ("sc://%/", EncodingError, "host", 5),
    ("sc://a%zz/", EncodingError, "host", 6),
    ("sc://u%x@h/", EncodingError, "user", 6),
]


@pytest.mark.parametrize(("url", "kind", "component", "offset"), REFUSED)
def test_generic_authority_faults_are_refused(
    url: str, kind: type[Exception], component: str, offset: int
) -> None:
    with pytest.raises(kind) as info:
        schemes.parse(url)
    assert isinstance(info.value, AuthorityError | EncodingError)
    assert (info.value.component, info.value.offset) == (component, offset)


ACCEPTED = [
    # (url, the scheme-specific part kept)
    ("sc://h:8080/p?q", "//h:8080/p?q"),
    ("sc://h:/", "//h:/"),  # port = *DIGIT: empty is a port
    ("sc://h:99999/", "//h:99999/"),  # no range in the generic syntax
    ("sc://:80/", "//:80/"),
    ("sc:///x", "///x"),
    ("sc://", "//"),
    ("sc://@h", "//@h"),
    ("sc://u:p:q@h/", "//u:p:q@h/"),  # ":" is userinfo
    ("sc://!$&'()*+,;=@h/", "//!$&'()*+,;=@h/"),
    ("sc://a!$&'()*+,;=b/", "//a!$&'()*+,;=b/"),  # sub-delims in a reg-name
    ("sc://a%3Ab/", "//a%3Ab/"),  # an escaped ":" is reg-name data, kept as written
    ("sc://%41/", "//%41/"),
    ("sc://fa%C3%9F.ExAmPlE/", "//fa%C3%9F.ExAmPlE/"),
    ("sc://ñ.test/", "//%C3%B1.test/"),  # RFC 3987 §3.1, no IDNA for an unknown scheme
    ("sc://[::1]:80/", "//[::1]:80/"),
    ("sc://[v1.x:y]/", "//[v1.x:y]/"),
    ("sc://[fe80::1%25eth0]/", "//[fe80::1%25eth0]/"),
    ("sc://h?x@y", "//h?x@y"),  # "?" ends the authority: the "@" is query data
    ("sc://h#x@y:z", "//h"),
    ("data:test:test", "test:test"),  # no "//": no authority, ":" is path data
    ("sc:a:b@c:d", "a:b@c:d"),
]


@pytest.mark.parametrize(("url", "ssp"), ACCEPTED)
def test_generic_authorities_rfc3986_allows(url: str, ssp: str) -> None:
    u = schemes.parse(url)
    assert isinstance(u, GenericURL)
    assert u.scheme_specific_part == ssp
    assert schemes.parse(str(u)) == u


@pytest.mark.parametrize("url", ["data://test:test", "sc://te@s:t@/", "ssh://u:p@h:80:22"])
def test_rfc1738_letter_reads_them_as_xchars(url: str) -> None:
    # RFC 1738 §5: schemepart = *xchar | ip-schemepart; "//test:test" is *xchar.
    u = schemes.parse(url, syntax="rfc1738")
    assert isinstance(u, GenericURL)
    assert str(u) == url
