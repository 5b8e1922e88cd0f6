"""The default reading's one-match fast paths (each built-in class's ``_parse_default``) give
exactly what the general way gives (the letter's parser, then RFC 3986's check and mapping,
then the class's non-1738 parser): the same URL object, field for field, or the same error.

Compared on the benchmark's six mixes (benchmarks/parse_bench.py: every component of every
scheme, six differently shaped generators, the fourth, fifth and sixth written as held-out
checks of the fast paths: shapes across the schemes, shapes users meet, what users parse
weighted as they parse it), their mutations, the seventh (benchmarks/_mix_seventh.py: where
programs get their URLs) and its mutations, hand-picked edges, and Hypothesis' URLs.
"""

from __future__ import annotations

import importlib.util
import ipaddress
import json
import pickle
import random
import re
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from omniurl import schemes
from omniurl.schemes import fastparse, grammar, registry, rfc3986
from omniurl.schemes.errors import URLError

BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "parse_bench.py"


def load_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("parse_bench_fast", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def outcome(text: str) -> object:
    try:
        u = schemes.parse(text)
    except URLError as exc:
        return (type(exc).__name__, exc.component, exc.offset)
    return (type(u).__name__, u.to_json(), str(u), u)


def general(text: str) -> object:
    """What :func:`schemes.parse` gives with no class's ``_parse_default``.  (Only the
    entries of the text's scheme name, as written and in lower case, are the ones a parse
    reads: the table also holds the names of schemes no class serves, up to
    ``registry._GENERIC_KEPT`` of them.)"""
    for name in registry.BUILTIN_SCHEMES:
        registry.builtin_class(name)
    colon = text.find(":")
    names = {text[:colon], text[:colon].lower()} if colon > 0 else set()
    saved = {name: registry._parsers[name] for name in names if name in registry._parsers}
    try:
        for name, entry in saved.items():
            registry._parsers[name] = (entry[0], entry[1], None)
        return outcome(text)
    finally:
        for name in names:
            if name in saved:
                registry._parsers[name] = saved[name]
            else:  # (kept by this parse: not before it)
                registry._parsers.pop(name, None)


_loaded: list[bool] = []


def used_fast(text: str) -> bool:
    if not _loaded:  # (the registry's table holds a class once it was asked for)
        for name in registry.BUILTIN_SCHEMES:
            registry.builtin_class(name)
        _loaded.append(True)
    colon = text.find(":")
    name = text[:colon]
    entry = registry._parsers.get(name)
    if entry is None:  # (schemes.fastparse: a scheme name in another case)
        name = name.lower()
        entry = registry._parsers.get(name)
    return (
        entry is not None and entry[2] is not None and entry[2](text, colon + 1, name) is not None
    )


EDGES = [
    "http://u@h/p%20a/b?a=%41#top",
    "https://u:p@h:8443/~x/y?q=~#~",
    "http://a?b@h/x",
    "http://h/p?x=a@b",
    "http://[::1]/x",
    "http://[::1:2:3:4:5:6:7]/",
    "http://[1:2:3:4:5:6:7:8:9]/",
    "http://[1::2::3]/",
    "http://[12345::1]/",
    "http://[fe80::1%25eth0]/",
    "http://[fe80::1%25%41]/",
    "http://[fe80::1%25]/",
    "http://[1::2%25x]:1/",
    "ftp://[fe80::1%25eth0]/a",
    "http://[::ffff:1.2.3.4]/",
    "http://h:65535/",
    "http://h:65536/",
    "http://h:/",
    "http://u:p:q@h/",
    "http://%41@h/",
    "http://h/%zz",
    "ftp://u:p@[2001:db8::1]:2121/a/b;type=i",
    "ftp://h/~u/a%2Fb;type=A",
    "ftp://h/a?b",
    "ftp://a?b@h/",
    "gopher://h/1/~x%09s%09+",
    "gopher://[::1]:70/0/x",
    "gopher://h/%0A",
    "gopher://h/0a%0Db",
    "gopher://h/7a%09b%0a",
    "gopher://h/7a%09b%09c%0Ad",
    "gopher://h/7a%09b%09c%0dd",
    "mailto:a@b.example?subject=hi%20there&body=x",
    "mailto:a@b.c,d@e.f?cc=g@h.i",
    "mailto:?to=a@b",
    "mailto:a~b@c.d",
    "mailto:a@b?",
    "mailto:a@b?x",
    "mailto:a@b?=x&",
    "prospero://h:1525/a/b;OBJECT-VERSION=3;ATTR=val%20x",
    "prospero://h/a%00b",
    "prospero://[::1]/~a;X=~",
    "mid:abc.123@h.example/part1@h",
    "mid:abc~1@h",
    "mid:abc@h/x",
    "mid:@h",
    "cid:foo4@bar.net",
    "cid:foo~4@bar.net#f",
    "cid:nohost",
    "gemini://h/x?q",
    "gemini://h?q",
    "gemini://h?a@b",
    "gemini://h?a@b/c",
    "gemini://u@h?q",
    "gemini://u@h/",
    "gemini://h/~x",
    "telnet://u:p@[::1]:23/",
    "wais://[::1]/db?x~y",
    "nntp://[::1]/a.b/1",
    "file:///~x/y",
    "file://h/~x",
    "news:a~b@c.d",
    "news://h/x",
    "mailto://a@b",
    "mailto://a@b?x=1",
    "urn://x",
    # RFC 3986's shapes the default patterns take since the third mix (parse_bench.py)
    "http://h/p?next=/a/b?c",
    "http://h?q=1",
    "http://h?q=a@b",
    "http://u@h?q",
    "http://a?b@h",
    "http://h:/x",
    "http://[::1]:/x",
    "http://h_1.example/x",
    "http://1.2.3/x",
    "http://1.2.3.4/x",
    "http://1.2.3.256/x",
    "http://1.2.3.4a/x",
    "http://0001.2.3.4/x",
    "http://h.example./x",
    "http://a;b=c!$'()*+,.example/",
    "http://h%41.example/",
    "HTTP://h/x",
    "Http://u@h/x?y",
    "hTtPs://[::1]/",
    "MAILTO:a@b",
    "mailto:a@b?body=a/b?c",
    "mailto:?to=a@b&subject=x",
    "mailto:?",
    "mailto:",
    "mailto:a@b?subject=%26x&body=%3d",
    "mailto:a@b?subject=%C3&body=%A9",
    "mailto:a@b?subject=%E2%82&x=%AC",
    "mailto:a@b?s=a%20b&t=%e2%82%ac",
    "ftp://h/a;b=c/d;type=i",
    "ftp://h/a;b=c/d;type=x",
    "ftp://h/a;type=i/d",
    "ftp://h/;type=A",
    "ftp://u:p%40x@h_1.example/a;x=y/f.tar.gz;type=i",
    "ftps://h/a;b/c",
    "news:8i.nb67",
    "news:-x.y",
    "news:a*b",
    "news:a,b!c",
    "news:a:b;c=d",
    "nntp://h/8i.x/12",
    "nntp://h/_a.b",
    "nntp://h/a%2Eb/1",
    "nntp://h/a%80b",
    "nntp://h/a@b/1",
    "file:///a;b=c/d",
    "file://localhost/x;y/./z",
    "file:////h/s;x",
    "urn:a:b",
    "urn:",
    "urn::x",
    "urn:a_b:c",
    "urn:abcdefghijabcdefghijabcdefghijabc:x",
    "urn:isbn:1%41",
    "urn:isbn:1%4",
    "urn:x~y:z",
    "urn:/iana/x",
    "urn:a:b?c=d#f",
    "gemini://h_1.example:?q",
    "telnet://u@h_1.example:/",
    "gopher://h_1.example:/7x%09y",
    "wais://h_1.example/db?x",
    "prospero://h_1.example:/a;X=y",
    # RFC 5538's server form (news://, snews://), message-ids at any host, ";" in a WAIS
    # path, RFC 3986 hosts in file: URLs (issue 32, third round)
    "news://h/comp.lang",
    "snews://h.example:563/a.b+c",
    "snews://h.example:/a.b",
    "news://h",
    "news://h/",
    "news://h/*",
    "news://h/comp.*",
    "news://h/a*b,!c",
    "news://h/a@b",
    "news://h/@b",
    "news://h/a@",
    "news://h/a@b@c",
    "news://h/a%40b@c",
    "news://h/%3Ca@b%3E",
    "news://h/%3Ca@b",
    "news://h/a/b@c",
    "news://h/a?b@c",
    "news://h/a%20b",
    "news://h/a%2",
    "news://h/a@b%2",
    "news://h/a@b%0A",
    "news://u@h/a",
    "news://h:65535/a",
    "news://h:65536/a",
    "news://[::1]/a",
    "news://[::1:2:3:4:5:6:7]/a",
    "news://[fe80::1%25eth0]:119/a@b",
    "news://h_1.example/a#f",
    "news://1.2.3.256/a",
    "news:///a",
    "news://h//a",
    "news://h/a/b",
    "news://h/~a",
    "snews://h/a@b~c",
    "news:x@1.2.3.4",
    "news:x@1.2.3.256",
    "news:x@h_1.example",
    "news:x@h.example.",
    "news:a/b@h_1",
    "news:a%2Fb@h_1",
    "news:a~b@h_1",
    "news:%3Ca@h_1",
    "news:x@[::1]",
    "news:x@[::1:2:3:4:5:6:7]",
    "news:x@[1::2::3]",
    "news:x@[fe80::1%25eth0]",
    "news:a/b@[::1]",
    "news:a~b@[::1]",
    "news:a@b@[::1]",
    "news:x@[::1]#f",
    "wais://h/db;x=1",
    "wais://h/db/TEXT/a;b=c",
    "wais://h/db/TEXT/a;b=c/d",
    "wais://h/db;x?y;z",
    "wais://h/db;x/TEXT",
    "wais://[::1]/db;=",
    "file://[::1]/x",
    "file://[::1:2:3:4:5:6:7]/x",
    "file://[fe80::1%25eth0]/x",
    "file://h_1.example/x;y",
    "file://1.2.3.4/x",
    "file://1.2.3.256/x",
    "file://h.example./x",
    "file://[::1]//x",
    "file:////h_1/x",
    "file://a;b=c/x",
    "urn://x",
    "urn:/iana/x",
    # IPv6 literals with an IPv4 tail (RFC 3986 §3.2.2's ls32) on the default reading's fast
    # paths, and their near misses (issue 32, fourth round: each took the general way)
    "http://[::ffff:192.0.2.1]/x",
    "http://[::FFFF:192.0.2.1]:0080/",
    "http://[64:ff9b::1.2.3.4]/",
    "http://[1:2:3:4:5:6:1.2.3.4]/",
    "http://[::1.2.3.4]/",
    "http://[::1:2:3:4:5:1.2.3.4]/",
    "http://[1:2:3:4:5:6:7:1.2.3.4]/",
    "http://[1:2:3:4:5:6::1.2.3.4]/",
    "http://[1:2:3:4:5::1.2.3.4]/",
    "http://[::ffff:1.2.3.04]/",
    "http://[::ffff:1.2.3.256]/",
    "http://[::ffff:1.2.3]/",
    "http://[::ffff:1.2.3.4.5]/",
    "http://[::ffff:1..3.4]/",
    "http://[::ffff:.1.2.3]/",
    "http://[::ffff:1.2.3.]/",
    "http://[::1.2.3.4:5]/",
    "http://[1.2.3.4]/",
    "http://[:1.2.3.4]/",
    "http://[::1.2.3.4::]/",
    "http://[1.2.3.4::]/",
    "http://[::ffff:0.0.0.0]/",
    "http://[.::ffff:0.10.255.10]/",
    "http://[1.::ffff:1.2.3.4]/",
    "http://[::.:1.2.3.4]/",
    "http://[::1.2.3.4:1.2.3.4]/",
    "http://[::ffff:00.0.0.0]/",
    "http://[ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255]/",
    "http://[0000:0000:0000:0000:0000:ffff:255.255.255.255]/",
    "http://[fe80::1.2.3.4%25eth0]/",
    "http://u:p@[::ffff:10.0.0.1]:8080/a?b#c",
    "https://[::ffff:10.0.0.1]:/",
    "ftp://[::ffff:10.0.0.1]/a/b;type=i",
    "ftp://u@[64:ff9b::10.0.0.1]:00021/",
    "gopher://[::ffff:10.0.0.1]:70/7a%09b%09+",
    "nntp://[::ffff:10.0.0.1]/a.b/1",
    "telnet://u:p@[::ffff:10.0.0.1]:23/",
    "wais://[::ffff:10.0.0.1]/db?x",
    "prospero://[::ffff:10.0.0.1]/a;X=y",
    "gemini://[::ffff:10.0.0.1]/x?y",
    "file://[::ffff:10.0.0.1]/x",
    "news://[::ffff:10.0.0.1]/a.b",
    "news:x@[::ffff:10.0.0.1]",
    # a userinfo in prospero:, "/" and "?" in gemini and wais queries, RFC 3986 path
    # characters and "/" in WAIS paths, an absent or empty nntp group or article, "=" in a
    # mailto header value and an empty query, escapes in a news: group (issue 32, fourth
    # round), and their near misses
    "prospero://u@h.example/a",
    "prospero://u%40x:p%3A@h.example:01525/a;X=y#f",
    "prospero://@h/a",
    "prospero://:@h/a",
    "prospero://u:p:q@h/a",
    "prospero://a?b@h/x",
    "prospero://u@h/a@b;c=d@e",
    "prospero://h/a@b;c=d@e",
    "prospero://u@h/a%00b",
    "prospero://u@[::1]:/a",
    "prospero://u@h:65536/a",
    "prospero://u@h",
    "prospero://u@h/",
    "prospero://u%zz@h/a",
    "prospero://u~x:~@h/a;~=~",
    "gemini://h/a?x/y",
    "gemini://h/a?x?y#f",
    "gemini://h?x/y",
    "gemini://h?x/y@z",
    "gemini://h/?/",
    "wais://h/db?x/y",
    "wais://h/db?x?y",
    "wais://h/db?",
    "wais://h/d&b:c@d",
    "wais://h/d:b/t@/p:q",
    "wais://h/db/t/p/q",
    "wais://h/db/t/",
    "wais://h/db/",
    "wais://h/db/t/p?x",
    "wais://h/db/t?x/p",
    "wais://h//x",
    "wais://h//x/y",
    "wais://h/?x",
    "wais://u@h/db",
    "wais://h/db/t/p%2Fq/r",
    "nntp://h",
    "nntp://h/",
    "nntp://h#f",
    "nntp://h/#f",
    "nntp://h//5",
    "nntp://h/a/",
    "nntp://h/a/01",
    "nntp://h/a?b",
    "nntp://h/a?b/1",
    "nntp://h/a?/1",
    "nntp://h/a/1/2",
    "nntp://h/a/x",
    "nntp://h?x",
    "nntp://h:/",
    "mailto:a@h?subject=x=y",
    "mailto:a@h?body=x=y&cc=z",
    "mailto:a@h?body==&cc=z=",
    "mailto:a@h?body=%3D=x",
    "mailto:a@b?",
    "mailto:a@b?#f",
    "mailto:?",
    "mailto:?#f",
    "mailto:a@b??",
    "mailto:a@b?=",
    "mailto:a@b?x",
    "mailto:a@b?x=1&",
    "news:a%C3%A9",
    "news:a%20b",
    "news:a%2Fb",
    "news:a%40b",
    "news:%3Ca@h",
    "news:a%40b@h",
    "news:a%FFb",
    "news:a%7F",
    "news:a%09",
    "news:%2A",
    "news:a%C2%A0b",
    "news:a%C2%85b",
    "news:a%E2%80%A8",
    "news:a%",
    "cid:a@b/c@d",
    "cid://?@",
    "cid://a@b/c",
    "cid://a@b",
    "cid:a@b//c",
    "cid:a//b@c",
    "cid:/a@b//",
    "cid:a/b@c",
    "cid:/a@b",
    "cid:a@/",
    "cid:a/@b#f/",
    "cid:@b/c",
    "cid:a/b",
    "cid:a%2F@b/%41",
    "CID:a@b/c",
    # (issue 32, fifth round: IPv4 numbers with leading zeros, file: without an authority)
    "http://0177.0.0.1/",
    "http://0177.0.0.1:80/x",
    "http://u@00000000000000000001.0.0.1/",
    "http://0256.0.0.1/",
    "http://0300.0.0.1/",
    "http://00255.0255.000.0/",
    "http://0.0.0.00/",
    "http://01.2.3/",
    "http://01.2.3.4.5/",
    "http://01.2.3.4./",
    "http://0x7f.0.0.1/",
    "ftp://0177.0.0.1/a;type=i",
    "gopher://010.010.010.010/1x",
    "nntp://0177.0.0.1/a.b",
    "file://0177.0.0.1/x",
    "file:/",
    "file:/x",
    "file:/C:/x/y%20z",
    "file:/c|/x",
    "file:/x#f",
    "file:/x?y",
    "file:/x;y",
    "file:/%2Fx",
    "file:/~u/%E6%97%A5",
    "file:/%zz",
    "file:/x%",
    "file://",
    "file://h",
    "file://h/",
    "file:///",
    "file:////",
    "file:////h/s/x",
    "file://///h/s/x",
    "file:/ /x",
    "file:/x/../y",
    "file:x",
    "file:C:/x",
    "file:c|/x",
    "file:/#",
    "FILE:/x",
    # (issue 32, seventh round: schemes no class serves — GenericURL's one match, its
    # authority checked as RFC 3986 §3.2 says — and news: message-ids in encoded angle
    # brackets, with their near misses)
    "postgresql://u:p@h:5432/db?sslmode=require",
    "postgresql://u:p%40x@h1,h2:5433/db?sslmode=verify-full&target_session_attrs=any",
    "mysql://u@h/db",
    "redis://h",
    "redis://:pw@h:6379/0",
    "rediss://h:6380/1#f",
    "ssh://git@h:22/x.git",
    "ws://[::1]:80/x",
    "ws://[::ffff:1.2.3.4]/",
    "ws://[fe80::1%25eth0]/",
    "ws://[fe80::1%25]/",
    "ws://[fe80::1%eth0]/",
    "ws://[v1.x]/",
    "ws://[::1/",
    "ws://[1::2::3]/",
    "ws://[12345::1]/",
    "ws://[::1]x/",
    "ws://h:80:22/",
    "sc://te@s:t@/",
    "data://test:test",
    "x://a?b@h/",
    "x://u?:p@h/",
    "x://u%zz@h",
    "x://h%41/",
    "x://h%4/",
    "x://h%C3%A9/",
    "s3://bucket/key with space",
    "s3://b/k%20y",
    "git+https://h/x.git#egg=y",
    "git+ssh://git@h:org/x.git",
    "tag:a,2000:x",
    "geo:1,2;u=3",
    "tel:+1-555",
    "magnet:?xt=urn:btih:a&dn=b",
    "data:text/plain;base64,SGVsbG8=",
    "data:,a%20b",
    "matrix:r/x:y?action=join",
    "sip:alice@h;transport=tcp",
    "x:",
    "x://",
    "x:#",
    "x:a#b#c",
    "x:a#b?c/d",
    "x:a~b",
    "x:%",
    "x:%zz",
    "x:a b",
    "x:a<b",
    "x:[::1]",
    "x:a[b",
    "x://[::1]x",
    "x://h:/",
    "x://h:99999999/",
    "X-Foo://h/",
    "x:////a",
    "x:/a",
    "x://@",
    "x://u@",
    "x://h?#",
    "x:?",
    "x:a|b",
    "x://h/a|b",
    "x://h#a#b",
    "x://u:p:q@h/",
    "x://h?q=1/2?3",
    "x:a%2Fb",
    "x://%5B::1%5D/",
    "x://h/%",
    "x:a%",
    "x://[::1]:/",
    "x://:80",
    "x://h:8a/",
    "x://[::1]:8a/",
    "x://h#%",
    "x://h#%41",
    "x:é",
    "x://hé/",
    "x:a\tb",
    "Mixed+Case.-1://H/P",
    "1x:a",
    "x_y:a",
    "x:a@b@c",
    "x://a@b@c/",
    "x://u:p@[::1]:5/a?b#c",
    "x://[::1]@h/",
    "x://h/[x]",
    "x:?a#b",
    "x://h/?",
    "x:%41",
    "x://%41@%42:1/%43?%44#%45",
    "news:%3Ca@h%3E",
    "news:%3Ca@h%3e",
    "news:%3c1@h%3E#f",
    "news:%3C@%3E",
    "news:%3Ca@b%3E%3E",
    "news:%3C%3Ca@h%3E%3E",
    "news:%3Ca/b@h%3E",
    "news:%3Ca?b@h%3E",
    "news:%3Ca@h%3E?x",
    "news:%3Ca@h%3",
    "news:%3Ca@h%3Ex",
    "news:%3Cab%3E",
    "news:%3Ca@h%3E#f#g",
    "news:%3Ca~b@h%3E",
    "news:%3Ca%ZZ@h%3E",
    "news:%3Ca@h%3E/",
    "news:%3Ca%40h%3E",
    "NEWS:%3Ca@h%3E",
    "snews:%3Ca@h%3E",
    "news:%3C%3E",
    "news:%3C@h",
    "news:%3C@%3E%3E",
    "news:%3Ca%C3%A9@h%3E",
    "news:%3Ca%FF@h%3E",
    "news:%3Ca@h%2E%3E",
    "news:%3Ca@[::1]%3E",
    "news:%3Ca@h.example%3E#x/y?z",
    "news:%3Ca:b;c=d&e@h_1.example%3E",
    "news:%3Ca'b(c)@h%3E",
    "news:%3Ca@h%3E%20",
    "news:%3Ca@h%3C%3E",
    "news:%3E@%3C",
    "news:%3C%3E@%3C%3E",
    "news:%3Ca@%3E",
    "news:%3C@b%3E",
    "news:%3Ca%0A@h%3E",
    "news:%3Ca@h%00%3E",
    "news://h/%3Ca@b%3E",
    # (issue 32, seventh round: shapes moved onto the first step, and their neighbours)
    "file:C:/x",
    "file:c:/x/y%20z#f",
    "file:C:",
    "file:C:#f",
    "file:C:x",
    "file:C|/x",
    "file://C:/x",
    "file:///C:/x",
    "file:C:/x?y",
    "file:CD:/x",
    "file:////server/share/x",
    "file:////server",
    "file:////server/",
    "file:////server#f",
    "file://///server/share",
    "file://////server/share",
    "file:////server:80/x",
    "file:////%41/x",
    "file:////s%41/x",
    "file:////[::1]/x",
    "file:////[v1.x]/x",
    "file:////[::1%25eth0]/x",
    "file:////h?x/y",
    "file:////1.2.3.4/x",
    "file:////1.2.3.256/x",
    "file:////0x7f.1/x",
    "file:////a_b/x",
    "file:////./x",
    "file:////h./x",
    "file:////",
    "file://///",
    "http://h:00000000000000/c",
    "http://h:00000000000000000000080/c",
    "http://h:0000065536/c",
    "http://h:0000065535/c",
    "http://h:0/c",
    "http://h:/c",
    "http://h:00/c",
    "https://u:p@h:000443/",
    "ftp://h:0000021/x;type=i",
    "gopher://h:000070/1x",
    "gemini://h:0001965/",
    "nntp://h:00119/a.b",
    "news://h:00119/a.b",
    "telnet://h:0023/",
    "wais://h:000210/db",
    "prospero://h:001525/x",
    "http://[v7.fe80::abcd]/x",
    "http://[V1F.a:b]/x",
    "http://[v.a]/x",
    "http://[v1.]/x",
    "http://[v1.a%25b]/x",
    "http://u@[v7.x]:8/x",
    "ftp://[v7.x]/a",
    "gopher://[v7.x]/1a",
    "gemini://[v7.x]/a",
    "nntp://[v7.x]/a.b",
    "news://[v7.x]/a.b",
    "news:x@[v7.x]",
    "telnet://[v7.x]/",
    "wais://[v7.x]/db",
    "prospero://[v7.x]/a",
    "file://[v7.x]/a",
    "http://user@h?#",
    "https://u@h.example?",
    "http://u@h?q",
    "http://u@h?q@x",
    "http://u:p@h?q#@",
    "http://a?b@h",
    "http://u@h#x",
    "http://u@h?x/y",
    "https://%41/",
    "https://%41/x",
    "http://HO0_-st%41/x",
    "http://%30%78%63%30%2e%30%32%35%30.01/1",
    "http://%31.%32.3.4/x",
    "http://%31.%32.3.256/x",
    "http://a%2Fb/x",
    "http://a%3Ab/x",
    "http://a%00b/x",
    "http://a%C3%BC/x",
    "http://a%ff/x",
    "http://a%4/x",
    "http://u:p@h%41:80/x?q#f",
    "http://u%41@h%41/x",
    "ftp://%41/x;type=i",
    "gopher://%41/1x",
    "gemini://%41/x",
    "nntp://%41/a.b",
    "news://%41/a.b",
    "news:a@%41",
    "telnet://%41/",
    "wais://%41/db",
    "prospero://%41/x",
    "file://%41/x",
    "file:////%41/x",
    "mailto:a@%41",
    "http://[::1%2541]/",
    "http://h.example/你好你好/1",
    "http://h.example/😀1",
    "http://h.example/?q=日本語",
    "http://h.example/?q=日本語#片",
    "http://ü@h.example/",
    "http://u:ü@h.example/",
    "http://bücher.example/x",
    "http://h.example:١٢/x",
    "http://h.example/x?\ue000",
    "http://h.example/x\ue000",
    "http://h.example/x#\ue000",
    "http://h.example/x\ud800",
    "http://h.example/x\udcff",
    "http://h.example/x\x85",
    "http://h.example/x\ufffe",
    "http://h.example/x\U0001fffe",
    "http://h.example/x\U000e0100",
    "http://h.example/x\U000e1000",
    "http://h.example/x y",
    "http://h.example/ü y",
    "http://h.example/ü%zz",
    "http://h.example/ü<",
    "http://%41/ü",
    "http://[::1]/ü",
    "http://[ü]/x",
    "http://a?ü@h/x",
    "mailto:josé@example.com",
    "mailto:a@h?subject=café",
    "news:café.x",
    "nntp://h/café.x",
    "gopher://h/1café",
    "ftp://h/café/x;type=i",
    "file:///C:/Users/Zoë/x",
    "file:C:/Zoë",
    "file:////srv/Zoë",
    "telnet://ü@h/",
    "wais://h/dbü",
    "prospero://h/ü;a=ü",
    "gemini://h/ü?ü",
    "mid:ü@h",
    "cid:ü@h",
    "urn:x:ü",
    "HTTP://h.example/ü",
    # A news: message-id whose domain is an IP literal, and a character beyond US-ASCII
    # anywhere: RFC 3986's walk refuses the "[" in the path, so the UTF-8 mapping
    # (rfc3986.default_text) must not hand the news pattern a text it then takes
    "news:é@[::1]",
    "news:x@[::1]#é",
    "snews:é@[::1]#f",
    "news:x@[::1]é",
    "news:%3Cé@[::1]%3E",
]


@pytest.mark.parametrize("text", EDGES)
def test_edges_agree_with_the_general_way(text: str) -> None:
    assert outcome(text) == general(text)


ON_THE_FAST_PATH = [
    # (issue 32, seventh round: every URL of a scheme no class serves took the general way,
    # 10-24 µs; a news: message-id in encoded brackets 17-30 µs)
    "postgresql://u:p@db.example:5432/app?sslmode=require",
    "redis://:pw@h:6379/0",
    "ws://[::1]:8080/x",
    "git+https://h/x.git#egg=y",
    "X-Foo://h/",
    "tag:example.com,2000:x#f",
    "magnet:?xt=urn:btih:abc&dn=x",
    "data:,a%20b",
    "news:%3C1991Aug25.205708.9541@x.example%3E",
    "snews:%3ca@h%3e#f",
    # (issue 32, fifth round: valid shapes that took the general way)
    "http://0177.0.0.1/x",
    "https://u:p@010.010.010.010:0443/",
    "ftp://0177.0.0.1/a;type=i",
    "file:/C:/Users/x/y.txt",
    "file:/etc/x%20y",
    "file:/",
    # (issue 32, fourth round: valid shapes that took the general way, ~10-70 µs a URL)
    "http://[::ffff:192.0.2.1]/x",
    "https://u:p@[64:ff9b::1.2.3.4]:0443/",
    "ftp://[1:2:3:4:5:6:1.2.3.4]/a;type=i",
    "gopher://[::1.2.3.4]/7a%09b%09+",
    "nntp://[::ffff:10.0.0.1]/a.b/1",
    "telnet://u:p@[::ffff:10.0.0.1]:23/",
    "wais://[::ffff:10.0.0.1]/db?x",
    "prospero://[::ffff:10.0.0.1]/a;X=y",
    "gemini://[::ffff:10.0.0.1]/x?y",
    "file://[::ffff:10.0.0.1]/x",
    "http://[fe80::1.2.3.4%25eth0]/",
    "news:x@[::ffff:10.0.0.1]",
    "prospero://u:p@h.example/a;X=y",
    "gemini://h/a?q=/x?y",
    "wais://h/db?x/y",
    "wais://h/d:b@c/TEXT/p/q",
    "nntp://h.example",
    "nntp://h.example/",
    "mailto:a@h?body=k=v",
    "mailto:a@h?",
    "news:a%C3%A9.b",
    "cid:part1.abc@h.example/x%20y@h.example",
    # (issue 32, seventh round: valid shapes that took the general way, 7-60 µs a URL)
    "http://h.example:00000000000000000000080/c1",
    "http://h.example:00000000000000/c1",
    "https://u:p@h:000443/",
    "ftp://h:0000021/x;type=i",
    "gopher://h:000070/1x",
    "prospero://h:001525/x",
    "http://[v7.fe80::abcd]/x",
    "wais://[V1F.a:b]/db",
    "http://user@h?#",
    "https://u@h.example?",
    "http://u@h?x/y",
    "file:C:/Users/x/y%20z.txt",
    "file:d:/x#f",
    "file:C:",
    "file:////server/share/x",
    "file://///server/share",
    "file:////server",
    "file:////10.0.0.1/c$/x",
]

#: Shapes the first step now maps (rfc3986.default_text) and then reads in one match: a
#: percent-encoded host, characters beyond US-ASCII outside the host.
MAPPED_ON_THE_FAST_PATH = [
    "https://%41/",
    "http://HO0_-st%41/x",
    "http://%30%78%63%30%2e%30%32%35%30.01/1",
    "http://u:p@h%41:80/x?q#f",
    "ftp://%41/x;type=i",
    "news://%41/a.b",
    "file://%41/x",
    "http://h.example/你好你好/1",
    "http://h.example/😀1",
    "http://h.example/?q=日本語#片",
    "https://xn--bcher-kva.example/İstanbul?n=1",
    "http://ü@h.example/",
    "http://[::1]/ü",
    "http://%41/ü",
    "mailto:josé@example.com?subject=café",
    "news:café.x",
    "gopher://h/1café%09ü",
    "ftp://h/café/x;type=i",
    "file:///C:/Users/Zoë/x",
    "file:C:/Zoë",
    "file:////srv/Zoë",
    "prospero://h/ü;a=ü",
    "gemini://h/ü?ü",
    "mid:ü@h",
    "urn:x:ü",
    "HTTP://h.example/ü",
    "http://h.example/x\U000e1000",
]


@pytest.mark.parametrize("text", ON_THE_FAST_PATH)
def test_shapes_take_the_fast_path(text: str) -> None:
    """Valid shapes the default reading's one match takes (each gives what the general way
    gives: the tests above), so that a mix holding them is not held back by the general way.
    (A scheme no class serves is kept in the registry's table from its first URL on.)"""
    assert outcome(text) == general(text)
    assert used_fast(text)


def took_the_first_step(text: str) -> bool:
    """Whether :func:`schemes.parse` answered ``text`` without the registry's general way."""
    asked: list[str] = []

    def spy(text: object, strict: object, syntax: object, tried: bool) -> schemes.URL:
        asked.append(str(text))
        return registry._parse(text, strict, syntax, tried)  # type: ignore[arg-type]

    fastparse.install_general(spy, registry._opaque_parser)
    try:
        schemes.parse(text)
    finally:
        fastparse.install_general(registry._parse, registry._opaque_parser)  # type: ignore[arg-type]
    return not asked


@pytest.mark.parametrize("text", MAPPED_ON_THE_FAST_PATH)
def test_mapped_shapes_take_the_first_step(text: str) -> None:
    """A text the first step maps to its URI and reads in one match gives what the general
    way gives, and what its own ``str()`` parses to."""
    registry.builtin_class(text[: text.index(":")].lower())
    assert took_the_first_step(text)
    got = outcome(text)
    assert got == general(text)
    url = got[-1]  # type: ignore[index]
    assert schemes.parse(str(url)) == url


@pytest.mark.parametrize("text", ON_THE_FAST_PATH[-18:])
def test_moved_shapes_round_trip(text: str) -> None:
    url = schemes.parse(text)
    assert schemes.parse(str(url)) == url


@pytest.mark.parametrize(
    ("text", "error", "component", "offset"),
    [
        # each refused by the first step's mapping or match, then named by the general way
        ("http://h.example/ü y", "EncodingError", "path", 18),
        ("http://h.example/ü%zz", "EncodingError", "path", 18),
        ("http://h.example/x\ue000", "EncodingError", "path", 18),
        ("http://h.example/x#\ue000", "EncodingError", "fragment", 19),
        ("http://h.example/x\ud800", "EncodingError", None, 18),
        ("http://a?ü@h/x", "EncodingError", "user", 8),
        ("http://h.example:١٢/x", "PortError", "port", 17),
        ("http://a%2Fb/x", "HostError", "host", 7),
        ("http://a%ff/x", "HostError", "host", 7),
        ("http://u@h?q@x", "EncodingError", "user", 10),
        ("http://h:0000065536/c", "PortError", "port", 9),
        ("http://[v1.]/x", "HostError", "host", 7),
        ("file:C|/x", "EncodingError", "path", 6),
        ("file:CD:/x", "SchemeSyntaxError", "path", 5),
        ("file:////[::1]/x", "EncodingError", "path", 9),
    ],
)
def test_errors_of_moved_shapes_name_component_and_offset(
    text: str, error: str, component: str | None, offset: int
) -> None:
    with pytest.raises(URLError) as caught:
        schemes.parse(text)
    exc = caught.value
    assert (type(exc).__name__, exc.component, exc.offset) == (error, component, offset)
    assert outcome(text) == general(text)


@pytest.mark.parametrize(
    ("text", "syntax", "want"),
    [
        # The letter's and the lenient readings of the moved shapes, as before this round
        ("file:C:/x", "rfc1738", ("SchemeSyntaxError", "path", 5)),
        ("file:C:/x", "lenient", ("FileURL", "", "/C:/x")),
        ("file:////server/share/x", "rfc1738", ("FileURL", "", "//server/share/x")),
        ("file:////server/share/x", "lenient", ("FileURL", "server", "/share/x")),
        ("http://h:000080/c", "rfc1738", ("HTTPURL", "h", 80)),
        ("http://h:000080/c", "lenient", ("HTTPURL", "h", 80)),
        ("http://[v7.fe80::abcd]/x", "rfc1738", ("HostError", "host", 7)),
        ("http://[v7.fe80::abcd]/x", "lenient", ("HTTPURL", "[v7.fe80::abcd]", None)),
        ("http://user@h?#", "rfc1738", ("AuthorityError", "user", 7)),
        ("http://user@h?#", "lenient", ("HTTPURL", "h", None)),
        ("https://%41/", "rfc1738", ("HostError", "host", 8)),
        ("https://%41/", "lenient", ("HTTPSURL", "A", None)),
        ("http://h.example/ü", "lenient", ("HTTPURL", "h.example", None)),
    ],
)
def test_other_readings_of_moved_shapes(text: str, syntax: str, want: tuple[object, ...]) -> None:
    try:
        url = schemes.parse(text, syntax=syntax)
    except URLError as exc:
        got: tuple[object, ...] = (type(exc).__name__, exc.component, exc.offset)
    else:
        third = url.path if url.scheme == "file" else url.port  # type: ignore[attr-defined]
        got = (type(url).__name__, url.host, third)  # type: ignore[attr-defined]
    assert got == want


@pytest.mark.parametrize(
    ("text", "fields"),
    [
        ("prospero://h.example/a;X=b~c", (("X", "b~c"),)),
        ("prospero://[::1]/~a;X=~", (("X", "~"),)),
        ("prospero://h.example/a;X=~b;Y=%7E", (("X", "~b"), ("Y", "~"))),
    ],
)
def test_prospero_fields_keep_a_tilde(text: str, fields: tuple[tuple[str, str], ...]) -> None:
    """A "~" in a Prospero field value is data (RFC 3986 §2.3: unreserved); the fast path's
    field split once stopped at it, in the default and lenient readings alike."""
    for syntax in ("rfc3986", "lenient"):
        url = schemes.parse(text, syntax=syntax)
        assert url.fields == fields  # type: ignore[attr-defined]


@pytest.mark.parametrize("mix", ["main", "heldout", "third", "fourth", "fifth", "sixth"])
@pytest.mark.parametrize("seed", [99, 20261128])  # (20261128: a seed no fast path was shaped on)
def test_benchmark_mixes_agree_with_the_general_way(mix: str, seed: int) -> None:
    bench = load_bench()
    urls = bench.make_urls(200 * 3 * len(bench.MAIN), mix=mix, seed=seed)
    fast = 0
    for text in urls:
        assert outcome(text) == general(text), text
        fast += used_fast(text)
    assert fast > 0.9 * len(urls)  # the fast paths cover the component mix


def _mutations(text: str, rng: random.Random) -> Iterator[str]:
    for _ in range(6):
        at = rng.randrange(len(text) + 1)
        yield text[:at] + rng.choice("~?@:/;=%#[]!$&'()*+,.-_ aZ09%2") + text[at:]
        yield text[:at] + text[at + 1 :]


def test_mutated_benchmark_urls_agree_with_the_general_way() -> None:
    bench = load_bench()
    rng = random.Random(32)
    for mix in ("main", "heldout", "third", "fourth", "fifth", "sixth"):
        for text in bench.make_urls(200 * len(bench.MAIN), mix=mix, seed=5):
            for mutated in _mutations(text, rng):
                assert outcome(mutated) == general(mutated), mutated


def test_the_seventh_mix_and_its_mutations_agree_with_the_general_way() -> None:
    """The seventh mix (benchmarks/_mix_seventh.py), held out from the fast paths: its URLs
    and their mutations, exactly as the general way reads them (193,200 such inputs of three
    seeds gave 0 differences, pure and compiled; this runs ~14,000).  No share of them is
    required to take the fast paths: that is what the benchmark measures."""
    bench = load_bench()
    rng = random.Random(2392)
    for text in bench.make_urls(23 * 50, mix="seventh", seed=5):
        assert outcome(text) == general(text), text
        for mutated in _mutations(text, rng):
            assert outcome(mutated) == general(mutated), mutated


def test_the_eighth_mix_and_its_mutations_agree_with_the_general_way() -> None:
    """The eighth mix (benchmarks/_mix_eighth.py), held out from the fast paths: its URLs,
    the texts it holds for the parser to refuse (the same error, component and offset) and
    their mutations, exactly as the general way reads them (130,000 such inputs of two seeds
    gave 0 differences, pure and compiled; this runs 16,250)."""
    bench = load_bench()
    rng = random.Random(2368)
    for text in bench.make_urls(25 * 50, mix="eighth", seed=5):
        assert outcome(text) == general(text), text
        for mutated in _mutations(text, rng):
            assert outcome(mutated) == general(mutated), mutated


def _other_mutations(text: str, rng: random.Random) -> str:
    """One of the kinds of change the mixes and :func:`_mutations` do not make: a Unicode
    host, a percent-encoded delimiter (either case of hex), an empty component, a long run,
    a control or separator character, an IPv6 literal with a zone id, upper case."""
    at = rng.randrange(len(text) + 1)
    kind = rng.randrange(7)
    if kind == 0:
        host = rng.choice(["bücher.", "例え.", "ÄÖ.", "xn--bcher-kva.", "ﬀ.", "İ.", "ß."])
        return text.replace("://", "://" + host, 1)
    if kind == 1:
        code = ord(rng.choice(":/?#[]@;=&+$,~%\t "))
        return text[:at] + rng.choice(["%%%02X", "%%%02x"]) % code + text[at:]
    if kind == 2:
        pairs = [("//", "///"), ("@", "@@"), (":", "::"), ("?", "??"), ("/", "/./")]
        pairs += [(";", ";;"), ("=", "=="), ("", "?"), ("", "#"), ("", ";")]
        old, new = rng.choice(pairs)
        return text.replace(old, new, 1) if old else text + new
    if kind == 3:
        return (
            text[:at]
            + rng.choice(["a", "%41", "/", "é", ":"]) * rng.choice([400, 3000])
            + text[at:]
        )
    if kind == 4:
        return (
            text[:at] + chr(rng.choice([0, 1, 9, 10, 13, 27, 127, 0x85, 0xA0, 0x2028])) + text[at:]
        )
    if kind == 5:
        scheme, sep, rest = text.partition("://")
        if not sep:
            return text
        end = min(
            [i for i in (rest.find("/"), rest.find("?"), rest.find("#")) if i >= 0] or [len(rest)]
        )
        zone = rng.choice(["%25eth0", "%25", "%eth0", "%251", "%25%30", "%25ETH0", "%25lo0.1"])
        host = rng.choice(["fe80::1", "::1", "FE80::A", "::ffff:1.2.3.4"])
        port = rng.choice(["", ":21", ":", ":0"])
        return f"{scheme}://[{host}{zone}]{port}{rest[end:]}"
    if rng.random() < 0.5:
        return text.upper()
    scheme, colon, rest = text.partition(":")
    return scheme.upper() + colon + rest


def test_other_kinds_of_mutation_agree_with_the_general_way() -> None:
    """A held-out seed (2026-11-28) and :func:`_other_mutations`, up to three at a time:
    the fast path gives what the general way gives, or none (~120,000 such inputs of five
    seeds gave 0 differences, pure and compiled; this runs 3,000)."""
    bench = load_bench()
    rng = random.Random(20261128)
    fast = 0
    for mix in ("main", "third", "fourth", "fifth", "sixth", "seventh"):
        for text in bench.make_urls(500, mix=mix, seed=20261128):
            for _ in range(3):
                text = _other_mutations(text, rng)
                fast += used_fast(text)
                assert outcome(text) == general(text), text
    assert fast > 900  # (the mutations still reach the fast paths)


#: Hosts written in UTF-8 or as IDNs, valid and not (UTS #46 and IDNA 2008: tests/test_uts46.py).
_IDN_HOSTS = [
    "bücher.example",
    "Bücher.ExAmPlE",
    "faß.example",
    "пример.рф",
    "例え。テスト",
    "مثال.إختبار",
    "ｂüｃｈｅｒ．example",
    "ü.example.",
    "a\u200db.example",
    "ü..example",
    "ü_x.example",
    "ü%41.example",
    "\U000e0100ü.example",
    "ü\u0085.example",
    "-ü.example",
    "ü" * 70 + ".example",
    "www.bücher.xn--p1ai",
    "שלום.example",
    "\u05d01\u05b0.example",
]


def _idn_urls(rng: random.Random) -> Iterator[str]:
    """URLs of every scheme with a host, their host one of :data:`_IDN_HOSTS`, with logins,
    ports, paths, queries and fragments, some of them broken (a "?" before an "@", a raw
    character beyond US-ASCII elsewhere, an IP literal's bracket, a bad port)."""
    schemes_ = ["http", "https", "HTTP", "ftp", "ftps", "gopher", "nntp", "news", "snews"]
    schemes_ += ["telnet", "wais", "prospero", "gemini", "file", "mailto", "x-unknown"]
    for scheme in schemes_:
        for host in _IDN_HOSTS:
            for _ in range(6):
                login = rng.choice(["", "", "user@", "u:p@", "us%40er@", "u?x@"])
                port = rng.choice(["", "", ":80", ":", ":8x", ":0070"])
                path = rng.choice(["", "/", "/a/b", "/1/sel", "/grp/12", "/a;type=i", "/é"])
                query = rng.choice(["", "", "?q=1", "?", "?a@b", "?é"])
                frag = rng.choice(["", "", "#f", "#é"])
                text = f"{scheme}://{login}{host}{port}{path}{query}{frag}"
                if rng.random() < 0.1:
                    text = text.replace(host, f"[{host}]")
                yield text


def test_internationalized_hosts_agree_with_the_general_way() -> None:
    """A URL whose only characters beyond US-ASCII are in its host takes the default
    reading's one match after its A-labels (schemes.rfc3986.map_iri_host): exactly what the
    general way gives, URL or error, in every scheme; and the common ones take it."""
    rng = random.Random(3490)
    fast = 0
    n = 0
    for text in _idn_urls(rng):
        n += 1
        want = general(text)
        assert outcome(text) == want, text
        colon = text.find(":")
        mapped = rfc3986.map_iri_host(text, colon)
        fast += mapped is not None and used_fast(mapped)
    assert fast > n // 15  # (most are broken somewhere, or hold "é" outside the host)
    for text in ["https://Bücher.example/a?q=1#f", "ftp://u:p@пример.рф:21/a;type=i"]:
        mapped = rfc3986.map_iri_host(text, text.find(":"))
        assert mapped is not None and used_fast(mapped)


_CHARS = "abcAZ09-._~!$&'()*+,;=:@/?#%[]"


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from(sorted(registry.BUILTIN_SCHEMES)),
    st.text(alphabet=_CHARS, max_size=30),
)
def test_generated_text_agrees_with_the_general_way(scheme: str, rest: str) -> None:
    for text in (f"{scheme}:{rest}", f"{scheme}://{rest}", f"{scheme}://h/{rest}"):
        assert outcome(text) == general(text)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["x-gen", "Redis", "git+https", "news", "snews"]),
    st.text(alphabet=_CHARS + "<>", max_size=30),
)
def test_generated_generic_and_bracketed_text_agrees_with_the_general_way(
    scheme: str, rest: str
) -> None:
    """Schemes no class serves (their entry kept by the first URL: every later one takes
    GenericURL's one match) and news: message-ids in encoded angle brackets."""
    bracketed = rest.replace("<", "%3C").replace(">", "%3E")
    for text in (
        f"{scheme}:{rest}",
        f"{scheme}://{rest}",
        f"{scheme}://[::1]{rest}",
        f"{scheme}://u:p@h:1/{rest}",
        f"{scheme}:%3C{bracketed}@h%3E",
        f"{scheme}:%3c{bracketed}%3e",
    ):
        assert outcome(text) == general(text)


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from(["", "0", "1", "ab", "ffff", "12345", "F", "abcd"]), max_size=10),
       st.booleans(), st.booleans())  # fmt: skip
def test_ipv6_ok_is_ipaddress_on_hex_groups(groups: list[str], lead: bool, trail: bool) -> None:
    inner = ("::" if lead else "") + ":".join(groups) + ("::" if trail else "")
    if not re.fullmatch(grammar.IP_LITERAL_FAST, f"[{inner}]"):
        return
    try:
        ipaddress.IPv6Address(inner)
        expected = True
    except ValueError:
        expected = False
    assert grammar.ipv6_ok(f"[{inner}]") is expected


_V4 = ["1.2.3.4", "255.255.255.255", "0.0.0.0", "256.1.1.1", "01.2.3.4", "1.2.3", "1..2.3", "."]


@settings(max_examples=3000, deadline=None)
@given(
    st.lists(st.sampled_from(["", "0", "1", "ab", "ffff", "12345", "F", *_V4]), max_size=10),
    st.booleans(),
    st.booleans(),
    st.sampled_from(["", "%25eth0", "%25"]),
)
def test_ipv6_ok_is_ipaddress_with_ipv4_tails_and_zones(
    groups: list[str], lead: bool, trail: bool, zone: str
) -> None:
    """The default reading's IP literals (:data:`grammar.IP_LITERAL_LAX`: an IPv4 tail, a
    zone id): :func:`grammar.ipv6_ok` accepts exactly what ``ipaddress`` does."""
    inner = ("::" if lead else "") + ":".join(groups) + ("::" if trail else "")
    if not re.fullmatch(grammar.IP_LITERAL_LAX, f"[{inner}{zone}]"):
        return
    try:
        ipaddress.IPv6Address(inner)
        expected = True
    except ValueError:
        expected = False
    assert grammar.ipv6_ok(f"[{inner}{zone}]") is expected


@settings(max_examples=2000, deadline=None)
@given(st.text(alphabet="%0aF9g/", max_size=12), st.integers(min_value=0, max_value=13))
def test_escapes_ok_is_the_stray_percent_search(text: str, start: int) -> None:
    """grammar.escapes_ok (the fast paths' check) answers as the pattern it replaced."""
    expected = "%" not in text or grammar.STRAY_PERCENT.search(text, start) is None
    assert grammar.escapes_ok(text, start) is expected


MAILTO_QUERIES = [
    "mailto:a@b.example?subject=hi%20there&body=x",
    "mailto:a@b?subject=%26x&body=%3d",
    "mailto:a@b?subject=%C3&body=%A9",
    "mailto:?to=a@b&subject=x#f",
    "mailto:a@b?s=a%20b&t=%e2%82%ac",
]


@pytest.mark.parametrize("text", MAILTO_QUERIES)
def test_mailto_header_fields_read_as_the_decoded_tuple(text: str) -> None:
    """A mailto: URL's header fields, kept as written until first read, are the decoded
    tuple to every reader: the attribute, equality and hash with the general way's URL (the
    fields decoded at parse time), repr, replace, asdict, pickling and copying."""
    import copy
    import dataclasses
    import pickle

    from omniurl.schemes import records

    fast = schemes.parse(text)
    assert type(fast.headers) is tuple  # type: ignore[attr-defined]
    assert fast.headers == general(text)[3].headers  # type: ignore[index]
    # the same URL built with its fields decoded (a tuple in the URL's tuple)
    slow = type(fast)(
        scheme=fast.scheme,
        fragment=fast.fragment,
        address=fast.address,  # type: ignore[attr-defined]
        headers=fast.headers,  # type: ignore[attr-defined]
    )
    assert type(tuple.__getitem__(slow, 3)) is tuple  # type: ignore[arg-type]
    assert fast == slow and slow == fast
    assert (fast != slow) is False and (slow != fast) is False
    assert hash(fast) == hash(slow) and hash(schemes.parse(text)) == hash(fast)
    assert repr(fast) == repr(slow)
    assert dataclasses.asdict(fast) == dataclasses.asdict(slow)  # type: ignore[call-overload]
    assert records.replace(fast, address="z") == records.replace(slow, address="z")
    for copied in (pickle.loads(pickle.dumps(fast)), copy.copy(fast), copy.deepcopy(fast)):
        assert copied == slow and copied.headers == slow.headers  # type: ignore[attr-defined]
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):  # (the same bytes: a cache's key)
        assert pickle.dumps(fast, protocol) == pickle.dumps(slow, protocol)
    assert {fast: 1}[slow] == 1


GOPHER_ESCAPED = [
    "gopher://h/7a%20b%09c%20d%09+x%20y",
    "gophers://h/7%C3%A9%09%E2%82%AC",
    "gopher://h/0a%2Fb",
    "gopher://h/7a%09%09$",
    "gopher://h/7a%09b%09c%0Ad",
    "gopher://h/1%09%09%09x#f%20",
]


FTP_ESCAPED = [
    "ftp://h/a%20b/c%2Fd/e%41;type=i",
    "ftp://h/x%20y",
    "ftp://h/a/b/c%20",
    "ftp://h/%20/b",
    "ftps://u:p@h/%C3%A9//%E2%82%AC/x#f",
    "ftp://h/a%2fb/",
]


PROSPERO_ESCAPED = [
    "prospero://h/a%20b;X=%C3%A9;Y=z",
    "prospero://h/a%2Fb",
    "prospero://h/a;X=%3B;Y=%3D",
    "prospero://u%40x:p@h:1525/%E2%82%AC;%41=%42#f%20",
    "prospero://h/a;%C3=%A9",
    "prospero://h/x;A=;B=%20",
]


MAILTO_ESCAPED = [
    "mailto:a%2Bb@h.example",
    "mailto:a%2Bb@h.example,c@d.example?subject=x%20y&body=z",
    "mailto:%22a%40b%22@h.example",
    "mailto:%22a%2Cb%22@h.example,c@d",
    "mailto:a%C3%A9@h.example?cc=b%2Bc@h",
    "mailto:a%E9@h.example",
    "mailto:%25@h#f%20g",
    "MAILTO:A%2B@H",
]


@pytest.mark.parametrize(
    ("text", "names", "items"),
    [(t, ("selector", "search", "gopher_plus"), (7, 8, 9)) for t in GOPHER_ESCAPED]
    + [(t, ("cwd", "name"), (6, 7)) for t in FTP_ESCAPED]
    + [(t, ("hsoname", "fields"), (6, 7)) for t in PROSPERO_ESCAPED]
    + [(t, ("address", "headers"), (2, 3)) for t in MAILTO_ESCAPED],
)
def test_escaped_fields_read_as_the_decoded_text(
    text: str, names: tuple[str, ...], items: tuple[int, ...]
) -> None:
    """A Gopher URL's selector, search and Gopher+ string, an FTP URL's cwd and name, a
    Prospero URL's hsoname and fields and a mailto: URL's address, kept as written until
    first read, are the decoded values to every reader (as the mailto test above)."""
    import copy
    import dataclasses
    import pickle

    from omniurl.schemes import records

    fast = schemes.parse(text)
    assert general(text)[3] == fast  # type: ignore[index]
    values = {n: getattr(fast, n) for n in names}
    assert all(type(v) in (str, tuple, type(None)) for v in values.values())
    slow = type(fast)(**{f.name: getattr(fast, f.name) for f in dataclasses.fields(fast)})  # type: ignore[arg-type]
    for i in items:
        assert type(tuple.__getitem__(slow, i)) in (str, tuple, type(None))  # type: ignore[arg-type]
    assert fast == slow and slow == fast
    assert (fast != slow) is False and (slow != fast) is False
    assert hash(fast) == hash(slow) and repr(fast) == repr(slow) and str(fast) == str(slow)
    assert dataclasses.asdict(fast) == dataclasses.asdict(slow)  # type: ignore[call-overload]
    assert records.replace(fast, fragment="z") == records.replace(slow, fragment="z")
    for copied in (pickle.loads(pickle.dumps(fast)), copy.copy(fast), copy.deepcopy(fast)):
        assert copied == slow and {n: getattr(copied, n) for n in names} == values
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):  # (the same bytes: a cache's key)
        assert pickle.dumps(fast, protocol) == pickle.dumps(slow, protocol)
    assert {fast: 1}[slow] == 1


def _holds_lazy(text: str) -> bool:
    from omniurl.schemes.percent import LazilyDecoded

    return any(isinstance(v, LazilyDecoded) for v in tuple.__iter__(schemes.parse(text)))  # type: ignore[arg-type]


#: The URLs above whose parse keeps a field as written (not gopher://h/7a%09%09$, whose
#: escapes are the tabs between fields; nor one the fast path leaves to the general way)
LAZY = [
    t
    for t in MAILTO_QUERIES + MAILTO_ESCAPED + GOPHER_ESCAPED + FTP_ESCAPED + PROSPERO_ESCAPED
    if _holds_lazy(t)
]


def test_the_lazy_urls_cover_every_lazily_decoded_field() -> None:
    """LAZY has a URL of each field a fast path decodes on first read."""
    import dataclasses

    from omniurl.schemes.percent import LazilyDecoded

    kinds = set()
    for text in LAZY:
        url = schemes.parse(text)
        names = [f.name for f in dataclasses.fields(url)]  # type: ignore[arg-type]
        for name, value in zip(names, tuple.__iter__(url), strict=True):  # type: ignore[arg-type]
            if isinstance(value, LazilyDecoded):
                kinds.add((url.scheme, name))
    assert kinds >= {
        ("mailto", "address"),
        ("mailto", "headers"),
        ("gopher", "selector"),
        ("gopher", "search"),
        ("gopher", "gopher_plus"),
        ("ftp", "cwd"),
        ("ftp", "name"),
        ("prospero", "hsoname"),
        ("prospero", "fields"),
    }


def _decoded_twin(fast: object) -> object:
    """``fast`` built again with its fields decoded (no LazilyDecoded in its tuple)."""
    import dataclasses

    return type(fast)(**{f.name: getattr(fast, f.name) for f in dataclasses.fields(fast)})  # type: ignore[arg-type]


def _plan_json(url: object) -> dict[str, object]:
    """``omniurl plan``'s object for ``url`` (or its error's), a mailto draft's Date and
    Message-ID (the clock and a random id) blanked."""
    import re

    from omniurl.resolvers import check
    from omniurl.schemes.errors import OmniurlError

    try:
        out = check(url).to_json()  # type: ignore[arg-type]
    except OmniurlError as exc:
        return {"error": exc.to_json()}
    out["steps"] = [re.sub(r"(Date|Message-ID): [^\r]*", r"\1: -", s) for s in out["steps"]]
    return out


@pytest.mark.parametrize("text", LAZY)
def test_a_lazily_decoded_url_writes_the_json_of_its_decoded_twin(text: str) -> None:
    """Every JSON a URL is written as is the same whether the fast path kept a field as
    written (schemes.percent.LazilyDecoded) or it was decoded at parse time: json.dumps of
    the URL itself (a tuple to json, which refused a LazilyDecoded), of its ``to_json()``
    (``omniurl parse``'s object; the command's own encoder too), of ``asdict``, and the
    plan's JSON (``omniurl plan``)."""
    import dataclasses
    import json

    from omniurl.cli.emit import dumps
    from omniurl.schemes.percent import LazilyDecoded

    fast = schemes.parse(text)
    slow = _decoded_twin(fast)
    assert not any(isinstance(v, LazilyDecoded) for v in tuple.__iter__(slow))  # type: ignore[arg-type]
    assert json.dumps(fast) == json.dumps(slow)
    assert json.dumps(fast, indent=1) == json.dumps(slow, indent=1)  # (json's Python encoder)
    assert [type(v) for v in fast] == [type(v) for v in slow]  # type: ignore[attr-defined]
    assert (
        dumps(fast.to_json())
        == dumps(slow.to_json())
        == json.dumps(slow.to_json(), ensure_ascii=False)
    )  # type: ignore[attr-defined]
    assert json.dumps(dataclasses.asdict(fast)) == json.dumps(dataclasses.asdict(slow))  # type: ignore[call-overload]
    assert _plan_json(schemes.parse(text)) == _plan_json(slow)


def test_the_parse_and_plan_commands_write_the_decoded_twins_json() -> None:
    """``omniurl parse`` and ``omniurl plan`` (one run each, every lazily decoded kind) print
    the JSON of the URL built decoded."""
    import json
    import subprocess
    import sys

    from omniurl.cli.emit import dumps

    root = Path(__file__).resolve().parent.parent
    twins = [_decoded_twin(schemes.parse(t)) for t in LAZY]
    run = subprocess.run(
        [sys.executable, "-m", "omniurl", "parse", *LAZY],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert run.stdout.splitlines() == [dumps(t.to_json()) for t in twins]  # type: ignore[attr-defined]
    # (not a draft: its Date is the clock)
    planned = [t for t in LAZY if not t.lower().startswith("mailto:")]
    run = subprocess.run(
        [sys.executable, "-m", "omniurl", "plan", *planned],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
    )
    shown = [json.loads(line) for line in run.stdout.splitlines()]
    assert shown == [_plan_json(_decoded_twin(schemes.parse(t))) for t in planned]


def test_differential_fuzzing_agrees_with_the_general_way() -> None:
    """tools/parse_fuzz.py, bounded: 3,000 texts of its own seed (a grammar of every scheme's
    components, mutations of the mixes and of :data:`EDGES` — every code point 0x00-0xFF and
    a sample beyond, inserted, deleted, case-flipped, escaped — and characters swept over
    component boundaries), each read by ``schemes.parse`` and by the general way alone: the
    same URL (fields as read, ``str()``, ``to_json()``) or the same error, its message too.
    (A longer run is the tool's own: ``python tools/parse_fuzz.py --seed N --count N``.)"""
    spec = importlib.util.spec_from_file_location(
        "parse_fuzz", Path(__file__).resolve().parent.parent / "tools" / "parse_fuzz.py"
    )
    assert spec is not None and spec.loader is not None
    fuzz = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fuzz)
    fuzz._load_builtins()
    differences = []
    urls = 0
    for text in fuzz.inputs(20261129, 3000, [], edges=EDGES):
        got, other = fuzz.compare(text)
        urls += got[0] == "url"
        if other is not None:
            differences.append((text, got[:4], other[:4]))
    assert differences == []
    assert urls > 600  # (the inputs still reach URLs, not only errors)


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ("file:///home/r%C3%A9sum%C3%A9.pdf", "/home/résumé.pdf"),
        ("file:///home/résumé.pdf", "/home/résumé.pdf"),
        ("file:///C:/Users/%D0%9C%D0%BE%D0%B8%20docs/桌面/x.txt", "/C:/Users/Мои docs/桌面/x.txt"),
        ("file:////srv/sh%20are/%E6%97%A5.txt", "/sh are/日.txt"),
        ("file:/a%2Fb", "/a/b"),
        ("file://localhost/x%FFy", "/x\udcffy"),
    ],
)
def test_a_file_path_decoded_when_read_is_what_it_was(text: str, path: str) -> None:
    """A file URL's path with escapes is decoded when first read (percent.Decoded, as ftp's
    and Gopher's fields), not at parse time: every reader still sees the decoded ``str``
    — the attribute, ``to_json()``, ``str()``, equality and hash, a tuple, a pickle — as the
    general way, which decodes at once, gives it."""
    url = schemes.parse(text)
    want = general(text)
    assert type(url.path) is str and url.path == path  # type: ignore[attr-defined]
    assert outcome(text) == want
    assert tuple(url) == tuple(want[3]) and hash(url) == hash(want[3])  # type: ignore[index]
    assert pickle.loads(pickle.dumps(url)) == url
    assert json.dumps(url.to_json()) == json.dumps(want[3].to_json())  # type: ignore[index]
    assert url.drive == want[3].drive  # type: ignore[attr-defined,index]
