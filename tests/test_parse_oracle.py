"""The default reading's components against an independent splitter: ``urllib.parse.urlsplit``
(RFC 3986 Appendix B's split), on the sixth mix of benchmarks/parse_bench.py (what users parse,
weighted so), on the seventh (benchmarks/_mix_seventh.py: where programs get their URLs), on
the eighth (benchmarks/_mix_eighth.py: sources the seven did not use) and on mutants of the
three, and ``schemes.parse(str(url)) == url`` on the same URLs.

tests/test_parse_fast_default.py holds the fast paths to the general way; both could read a
component wrongly alike.  This holds both to a splitter that shares no code with them: the
scheme, the userinfo (decoded), the host (decoded, IDNA-mapped), the port, http's path and
query as written, ftp's segments and ``;type=``, Gopher's type, selector, search and Gopher+
string, mailto's addresses and fields, file's host and path, nntp's group and article,
news's group or message-id (and RFC 5538's server), wais's database, search, type and path,
telnet's trailing "/", Prospero's name and fields, a generic URL's scheme-specific part as
written, and the fragment — except where omniurl reads RFC 1738 on purpose (docs/urls.md):
"?" is path data in ftp:, file:, Prospero and Gopher URLs, a ``;type=`` that is not one of
a, i, d stays in the name, an IRI's characters are percent-encoded, ``file:c:/x`` is
``file:///c:/x``, a message-id loses one enclosing "<>" pair (not a lone bracket: RFC 5538
§2.2) and ``news://server`` names every group ("*").  (Written with the sixth mix, which
found two round trips this now holds: a host decoding to ``"`` and a news domain literal;
extended to news, nntp, wais, telnet, Prospero and generic URLs with the seventh, which
found a message-id in doubled brackets written back one pair short; the eighth, written
before its author read the fast paths, found no difference: 57,600 of its URLs of four seeds
(and its 2,400 texts to refuse, each refused) and 45,619 mutants that parse, pure and
compiled.)
"""

from __future__ import annotations

import importlib.util
import random
import urllib.parse as up
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from omniurl import schemes

BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "parse_bench.py"
DRIVES = {f"{c}:" for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"}
#: The schemes of RFC 1738 §3.1's common syntax (and gemini's): user, password, host, port.
INTERNET = {"http", "https", "ftp", "ftps", "gopher", "gophers", "telnet", "wais", "prospero",
            "nntp", "gemini"}  # fmt: skip
#: The schemes omniurl has a class for (any other parses as a GenericURL).
KNOWN = INTERNET | {"http", "https", "mailto", "news", "snews", "file", "mid", "cid", "urn"}
#: What RFC 3987 §3.1 leaves raw when it maps an IRI's characters (the rest: UTF-8 %XX).
IRI_SAFE = "/?%:@!$&'()*+,;=-._~#[]"


def load_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("parse_bench", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def unq(s: str) -> str:
    return up.unquote(s, errors="surrogateescape")


def iri(s: str) -> str:
    return s if s.isascii() else up.quote(s, safe=IRI_SAFE)


def host_of(raw: str) -> str:
    """The host as the default reading keeps it: decoded, non-ASCII as IDNA A-labels."""
    if raw.startswith("["):
        return raw
    h = unq(raw)
    if h.isascii():
        return h
    import idna

    return str(idna.encode(h, uts46=True, std3_rules=False).decode("ascii"))


def split_netloc(netloc: str) -> tuple[str | None, str | None, str, str | None]:
    userinfo, at, hostport = netloc.rpartition("@")
    if hostport.startswith("["):
        host, _, rest = hostport.partition("]")
        host += "]"
        port = rest[1:] if rest.startswith(":") else None
    else:
        host, colon, port_text = hostport.partition(":")
        port = port_text if colon else None
    user = password = None
    if at:
        user, colon, pw = userinfo.partition(":")
        password = pw if colon else None
    return user, password, host, port


def expected(text: str) -> dict[str, Any]:
    """The components ``urlsplit`` gives, in omniurl's fields."""
    sp = up.urlsplit(text)
    scheme, rest = text.split(":", 1)
    scheme = scheme.lower()
    before_fragment = text.split("#", 1)[0]
    has_query = "?" in before_fragment
    path_and_query = sp.path + ("?" + sp.query if has_query else "")
    out: dict[str, Any] = {
        "scheme": scheme,
        "fragment": iri(sp.fragment) if "#" in text else None,
    }
    if rest.startswith("//") and scheme in INTERNET:
        user, password, host, port = split_netloc(sp.netloc)
        out["user"] = None if user is None else unq(user)
        out["password"] = None if password is None else unq(password)
        out["host"] = host_of(host)
        out["port"] = int(port) if port else None
    if scheme in ("http", "https", "gemini"):
        out["path"] = iri(sp.path)
        out["search" if scheme != "gemini" else "query"] = iri(sp.query) if has_query else None
    elif scheme in ("ftp", "ftps"):
        segments = path_and_query[1:].split("/") if path_and_query else []
        typecode = None
        if segments:
            name, sep, code = segments[-1].rpartition(";")
            if sep and code[:5].lower() == "type=" and code[5:].lower() in ("a", "i", "d"):
                segments[-1], typecode = name, code[5:].lower()
        decoded = [unq(s) for s in segments]
        out["cwd"] = tuple(decoded[:-1])
        out["name"] = decoded[-1] if decoded else ""
        out["typecode"] = typecode
    elif scheme in ("gopher", "gophers"):
        path = iri(path_and_query)[1:]  # (the type is one octet: of an IRI's, its first)
        if path.startswith("%"):
            gtype, path = unq(path[:3]), path[3:]
        elif path:
            gtype, path = path[0], path[1:]
        else:
            gtype = "1"
        parts = path.split("%09")
        out["gtype"] = gtype
        out["selector"] = unq(parts[0])
        out["search"] = unq(parts[1]) if len(parts) > 1 else None
        out["gopher_plus"] = unq("%09".join(parts[2:])) if len(parts) > 2 else None
    elif scheme == "mailto":
        out["address"] = unq(sp.path)
        fields = []
        for pair in sp.query.split("&") if sp.query else ():
            if not pair:  # ("a@h?x=1&&y=2", "a@h?x=1&": no field between the "&")
                continue
            name, _, value = pair.partition("=")
            fields.append((unq(name), unq(value)))
        out["headers"] = tuple(fields)
    elif scheme == "nntp":  # RFC 1738 §3.7: nntp://host/group[/article]
        segments = path_and_query[1:].split("/")
        out["newsgroup"] = unq(segments[0])
        out["article"] = int(segments[1]) if len(segments) > 1 else None
    elif scheme in ("news", "snews"):  # RFC 5538 §2: an "@" as written makes a message-id
        opaque = (path_and_query[1:] if rest.startswith("//") else path_and_query) or ""
        if rest.startswith("//"):
            _user, _password, host, port = split_netloc(sp.netloc)
            out["host"] = host_of(host)
            out["port"] = int(port) if port else None
        if "@" in opaque:
            message_id = unq(opaque)
            if message_id[:1] == "<" and message_id[-1:] == ">":  # (a pair only: by design)
                message_id = message_id[1:-1]
            out["message_id"] = message_id
            out["newsgroup"] = None
        else:  # ("news://server": every group of it, as "news://server/" and "news:*")
            out["newsgroup"] = unq(opaque) or ("*" if rest.startswith("//") else "")
            out["message_id"] = None
    elif scheme == "wais":  # RFC 4156 §2: /database[?search] or /database/wtype/wpath
        database, slash, typed = sp.path[1:].partition("/")
        out["database"] = unq(database)
        out["search"] = unq(sp.query) if has_query else None
        wtype, _, wpath = typed.partition("/")
        out["wtype"] = unq(wtype) if slash else None
        out["wpath"] = unq(wpath) if slash else None
    elif scheme == "telnet":  # RFC 4248: nothing after the authority but an optional "/"
        out["trailing_slash"] = path_and_query == "/"
    elif scheme == "prospero":  # RFC 4157 §2: /hsoname;field=value… ("?" is path data)
        hsoname, *fields = path_and_query[1:].split(";")
        out["hsoname"] = unq(hsoname)
        pairs = [f.partition("=") for f in fields]
        out["fields"] = tuple((unq(n), unq(v)) for n, _, v in pairs)
    elif scheme not in KNOWN:  # a generic URL: everything before "#", as written (IRI mapped)
        out["scheme_specific_part"] = iri(rest.split("#", 1)[0])
    elif scheme == "file":
        path = unq(path_and_query)  # (RFC 1738 §3.10: "?" is path data)
        if path[:2] in DRIVES:
            path = "/" + path  # RFC 8089 E.2's "file:c:/x"
        out["host"] = sp.netloc if rest.startswith("//") else ""
        out["path"] = path or "/"
    return out


def actual(url: schemes.URL, keys: list[str]) -> dict[str, Any]:
    out = {k: getattr(url, k) for k in keys}
    if "host" in out and url.scheme == "file":
        out["host"] = out["host"].lower()
    return out


def disagreement(text: str) -> str | None:
    """Why ``text``'s parse differs from urlsplit's split or from its own ``str()``; None."""
    url = schemes.parse(text)
    again = schemes.parse(str(url))  # a URL the default reading refuses raises here
    if again != url:
        return f"str() {str(url)!r} parses to {again.components()}"
    if text.lower().startswith("file:////"):  # RFC 8089 E.3.2's UNC form: the host in the path
        return None
    try:
        want = expected(text)
    except ValueError:  # (urlsplit refuses some zone ids Python's ipaddress does not take)
        return None
    if url.scheme == "file":
        want["host"] = host_of(want["host"]).lower() if want["host"] else ""
    got = actual(url, list(want))
    if got != want:
        return f"{got} != urlsplit's {want}"
    return None


def mutants(text: str, rng: random.Random) -> list[str]:
    pieces = [*"/?#@:;=&%._~!$'()*+,-", "%2F", "%3F", "%23", "%40", "%25", "%3A", "%09",
              "%2e", "..", "//", "é", "%41", "A", "0", ":0", "%5B", "%5D", "%22"]  # fmt: skip
    out = []
    for _ in range(3):
        at = rng.randrange(len(text) + 1)
        if rng.random() < 0.3 and at < len(text):
            out.append(text[:at] + text[at + 1 :])
        else:
            out.append(text[:at] + rng.choice(pieces) + text[at:])
    return out


@pytest.mark.parametrize("seed", [None, 20261129])
def test_the_sixth_mix_reads_as_urlsplit_splits_it(seed: int | None) -> None:
    bench = load_bench()
    urls = bench.make_urls(22 * 200, mix="sixth", seed=seed)
    wrong = [(u, why) for u in urls if (why := disagreement(u)) is not None]
    assert wrong == []


@pytest.mark.parametrize("seed", [None, 20261129])
def test_the_seventh_mix_reads_as_urlsplit_splits_it(seed: int | None) -> None:
    """The seventh mix (benchmarks/_mix_seventh.py: where programs get their URLs), held out
    from the fast paths: two seeds, every family as weighted."""
    bench = load_bench()
    urls = bench.make_urls(23 * 200, mix="seventh", seed=seed)
    wrong = [(u, why) for u in urls if (why := disagreement(u)) is not None]
    assert wrong == []


@pytest.mark.parametrize("seed", [None, 20261129])
def test_the_eighth_mix_reads_as_urlsplit_splits_it(seed: int | None) -> None:
    """The eighth mix (benchmarks/_mix_eighth.py: e-mail links, OIDC, JSON in queries,
    non-English sitemaps, Wayback URLs, CDN transformations, matrix parameters, edge shapes,
    every RFC 1738 scheme and schemes without a class), held out from the fast paths: two
    seeds, every family as weighted; its refused family's texts are each refused."""
    bench = load_bench()
    refused = bench.REFUSED["eighth"]
    wrong, taken = [], []
    for family, block in bench.make_blocks(25 * 200, "eighth", seed):
        for u in block:
            if family not in refused:
                if (why := disagreement(u)) is not None:
                    wrong.append((u, why))
                continue
            try:
                schemes.parse(u)
            except schemes.URLError:
                continue
            taken.append(u)
    assert wrong == []
    assert taken == []


@pytest.mark.parametrize("mix", ["main", "heldout", "third", "fourth", "fifth"])
def test_the_other_mixes_read_as_urlsplit_splits_them(mix: str) -> None:
    bench = load_bench()
    urls = bench.make_urls(1000, mix=mix, seed=20261129)
    wrong = [(u, why) for u in urls if (why := disagreement(u)) is not None]
    assert wrong == []


@pytest.mark.parametrize(
    ("mix", "families", "seed"), [("sixth", 22, 3986), ("seventh", 23, 2392), ("eighth", 25, 2368)]
)
def test_mutants_of_the_held_out_mixes_read_as_urlsplit_splits_them(
    mix: str, families: int, seed: int
) -> None:
    bench = load_bench()
    rng = random.Random(seed)
    checked, wrong = 0, []
    for text in bench.make_urls(families * 100, mix=mix, seed=7):
        for m in mutants(text, rng):
            try:
                schemes.parse(m)
            except schemes.URLError:
                continue
            checked += 1
            if (why := disagreement(m)) is not None:
                wrong.append((m, why))
    assert wrong == []
    assert checked > 4000  # (most mutants still parse: the check ran)


@pytest.mark.parametrize(
    "text",
    [
        "http://u%3Ap:p%40ss@h.example:0080/a%2Fb;c?d=%41&e#f%20g",
        "https://[fe80::1%25eth0]:8443/?#",
        "https://bücher.example/straße?q=café#ü",
        "ftp://u@h.example/a/b%3Bc/d.txt;type=I",
        "ftp://h.example/a?b;type=d",
        "gopher://h.example/%2F?x%09y%09+",
        "gopher://h.example/7cgi?q=1%09a%20b",
        "mailto:a%2Bb@h.example,c@h.example?cc=d@h.example&body=x%0D%0Ay&=z",
        "file:///C:/x?y#z",
        "file:c:/Program%20Files/a",
        "file://LOCALHOST/etc/a%20b",
        "news:%3C%3Ca@h.example%3E%3E",
        "news://s.example",
        "nntp://s.example/comp.lang.c/1234",
        "wais://s.example:210/db/TEXT/a%2Fb",
        "wais://s.example/db?a+b%20c",
        "prospero://s.example/a%3Bb?c;x=%3D;y=",
        "telnet://u:p@s.example:23/",
        "git+https://s.example/o/r.git@v1#egg=r",
        "tag:s.example,2005:é",
        # (issue 32, seventh round: shapes moved onto the first step)
        "http://h.example:00000000000000000000080/c1",
        "https://u:p@h.example:000443/x",
        "http://user@h.example?#",
        "https://u@h.example?",
        "http://HO0_-st%41/x",
        "https://%41/",
        "http://h.example/你好你好/1?q=日本語#片",
        "https://u:ü@h.example/😀?q=İstanbul",
        "file:C:/Users/x/y%20z.txt",
        "file:////server/share/x",
    ],
)
def test_hand_picked_urls_read_as_urlsplit_splits_them(text: str) -> None:
    assert disagreement(text) is None
