"""The 1994 Internet in a box: every URL RFC 1738 and RFC 1630 cite, resolved against local
stand-ins for the hosts they named.

In 1994 ``ds.internic.net`` served RFCs over FTP, ``gopher.micro.umn.edu`` served Gopher,
``quake.think.com`` served WAIS.  None of them answers any more, so the box starts one local
server per (host, protocol) — each serving a small stand-in tree whose documents say what they
stand for — and maps each host's default port to it with the ``--resolve`` mechanism
(:attr:`resolvers.options.Options.resolve`).  The URLs are used exactly as the RFCs print them:
default ports, real 1994 host names.  Every other port of those hosts is mapped to a closed
loopback port, so nothing in the box ever leaves this machine.

A URL that cannot be resolved as written (raw spaces, a file on another machine, a directory
retrieved as a file) is part of the show: omniurl prints the clear error it gives.
"""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omniurl import schemes, testservers
from omniurl.resolvers.nntp.settings import NNTPOptions
from omniurl.resolvers.options import Options
from omniurl.schemes.base import InternetURL
from omniurl.schemes.ftp import FTPURL
from omniurl.schemes.gopher import GopherURL
from omniurl.schemes.http import HTTPURL
from omniurl.schemes.wais import WAISURL


@dataclass(frozen=True)
class Cited:
    """A URL as one of the RFCs prints it, where, and what omniurl should make of it."""

    url: str
    source: str
    title: str
    #: ``None``: it resolves; otherwise the reason it cannot be resolved as written.
    fails: str | None = None


#: Every URL the two RFCs cite, in the order they cite them.  Broken lines are joined as the
#: RFC 1738 appendix says (whitespace inside ``<URL:...>`` is ignored).
CITED: tuple[Cited, ...] = (
    Cited(
        "http://www.acl.lanl.gov/URI/archive/uri-archive.index.html",
        "RFC 1738, Status of this Memo",
        "the URI working group's mailing-list archive",
    ),
    Cited(
        "ftp://@host.com/",
        "RFC 1738 §3.1",
        "an empty user name and no password",
        fails="USER with an empty name, which the stand-in (like most servers) refuses",
    ),
    Cited("ftp://host.com/", "RFC 1738 §3.1", "no user name: anonymous FTP"),
    Cited("ftp://foo:@host.com/", "RFC 1738 §3.1", "user foo with an empty password"),
    Cited("ftp://myname@host.dom/%2Fetc/motd", "RFC 1738 §3.2.2", "CWD /etc, then RETR motd"),
    Cited("ftp://myname@host.dom/etc/motd", "RFC 1738 §3.2.2", "CWD etc, then RETR motd"),
    Cited(
        "ftp://myname@host.dom//etc/motd",
        "RFC 1738 §3.2.2",
        "a null CWD (the stand-in stays put; vsftpd would refuse it), then CWD etc",
    ),
    Cited(
        "news:*",
        "RFC 1738 §3.6",
        "every newsgroup on the reader's own news server (news: names no host)",
    ),
    Cited(
        "file://vms.host.edu/disk$user/my/notes/note12345.txt",
        "RFC 1738 §3.10",
        "a file on another machine",
        fails="file: has no protocol to reach another machine",
    ),
    Cited(
        "prospero://host.dom//pros/name",
        "RFC 1738 §3.11",
        "a Prospero link, resolved through its access method",
    ),
    Cited(
        "ftp://info.cern.ch/pub/www/doc;type=d",
        "RFC 1738, Appendix (the 'Yes, Jim' paragraph)",
        "a directory listing (NLST)",
    ),
    Cited(
        "ftp://ds.internic.net/rfc",
        "RFC 1738, Appendix (the 'Yes, Jim' paragraph)",
        "the RFC directory, written without a trailing slash",
        fails="without ';type=d' or a trailing '/', §3.2.3 makes it a file: RETR rfc, "
        "which the server refuses (it is a directory)",
    ),
    Cited(
        "http://ds.internic.net/instructions/overview.html#WARNING",
        "RFC 1738, Appendix (the 'Yes, Jim' paragraph)",
        "the InterNIC overview; the fragment stays here",
    ),
    Cited(
        "ftp://ds.internic.net/rfc/rfc1436.txt;type=a",
        "RFC 1738 [1]",
        "RFC 1436, The Internet Gopher Protocol",
    ),
    Cited(
        "ftp://boombox.micro.umn.edu/pub/gopher/gopher_protocol/Gopher+/Gopher+.txt",
        "RFC 1738 [2]",
        "Gopher+: upward compatible enhancements",
    ),
    Cited("ftp://ds.internic.net/rfc/rfc1630.txt", "RFC 1738 [3]", "RFC 1630, URIs in WWW"),
    Cited(
        "ftp://info.cern.ch/pub/www/doc/http-spec.txt.Z",
        "RFC 1738 [4]",
        "HTTP as of November 1993 (compressed)",
    ),
    Cited("ftp://ds.internic.net/rfc/rfc1123.txt", "RFC 1738 [5]", "RFC 1123, Host Requirements"),
    Cited(
        "ftp://ds.internic.net/rfc/rfc822.txt",
        "RFC 1738 [6]",
        "RFC 822, ARPA Internet Text Messages",
    ),
    Cited(
        "ftp://quake.think.com/pub/wais/doc/protspec.txt",
        "RFC 1738 [7]",
        "WAIS Interface Protocol Prototype Functional Specification",
    ),
    Cited("ftp://ds.internic.net/rfc/rfc1036.txt", "RFC 1738 [8]", "RFC 1036, USENET messages"),
    Cited(
        "ftp://quake.think.com/pub/wais/doc/doc-ids.txt",
        "RFC 1738 [10]",
        "Document Identifiers, or ISBNs for the Electronic Age",
    ),
    Cited("ftp://ds.internic.net/rfc/rfc977.txt", "RFC 1738 [11]", "RFC 977, NNTP"),
    Cited(
        "ftp://ds.internic.net/internet-drafts/draft-ietf-uri-irl-fun-req-02.txt",
        "RFC 1738 [12]",
        "Functional Requirements for Internet Resource Locators",
    ),
    Cited("ftp://ds.internic.net/rfc/rfc1034.txt", "RFC 1738 [13]", "RFC 1034, Domain Names"),
    Cited(
        "ftp://prospero.isi.edu/pub/prospero/doc/prospero-protocol.PS.Z",
        "RFC 1738 [14]",
        "The Prospero Protocol (compressed PostScript)",
    ),
    Cited("ftp://ds.internic.net/rfc/rfc959.txt", "RFC 1738 [15]", "RFC 959, FTP"),
    Cited("ftp://ds.internic.net/rfc/rfc1737.txt", "RFC 1738 [16]", "RFC 1737, URN requirements"),
    Cited(
        "ftp://ds.internic.net/rfc/rfc1625.txt", "RFC 1738 [17]", "RFC 1625, WAIS over Z39.50-1988"
    ),
    Cited(
        "ftp://uu.psi.com/wp/nir.txt", "RFC 1738 [18]", "Towards Networked Information Retrieval"
    ),
    Cited(
        "http://info.cern.ch/hypertext/WWW/Addressing/URL/URI_Overview.html",
        "RFC 1630, introduction",
        "the hypertext version of RFC 1630",
    ),
    Cited(
        "http://info.cern.ch:8000/imaginary/test",
        "RFC 1630 §4 (example of a port)",
        "an imaginary server on port 8000",
        fails="info.cern.ch never had a server on port 8000: connection refused",
    ),
    Cited(
        "ftp://boombox.micro.umn.edu/pub/gopher/gopher_protocol",
        "RFC 1630, references (Alberti et al.)",
        "the Gopher protocol notes (a directory)",
        fails="without a trailing '/', §3.2.3 makes it a file: RETR gopher_protocol, "
        "which the server refuses (it is a directory)",
    ),
    Cited(
        "gopher://gopher.micro.umn.edu/00/Information About Gopher/About Gopher",
        "RFC 1630, references (as printed, with raw spaces)",
        "About Gopher",
        fails="RFC 1738 §2.2: a space is unsafe and must be encoded as %20",
    ),
    Cited(
        "gopher://gopher.micro.umn.edu/00/Information%20About%20Gopher/About%20Gopher",
        "RFC 1630, references (encoded as RFC 1738 §2.2 requires)",
        "About Gopher",
    ),
    Cited(
        "ftp://info.cern.ch/pub/www/doc/http-spec.txt",
        "RFC 1630, references (Berners-Lee)",
        "HTTP as of December 1991, updated from time to time",
    ),
    Cited(
        "ftp://quake.think.com/pub/wais/doc/protspec.txt",
        "RFC 1630, references (Davis et al.)",
        "WAIS Interface Protocol: Prototype Functional Specification",
    ),
    Cited(
        "ftp://quake.think.com/pub/wais/doc/doc-ids.txt",
        "RFC 1630, references (Kahle)",
        "Document Identifiers",
    ),
    Cited(
        "wais://quake.think.com/wais-discussion-archives?lynch",
        "RFC 1630, references (Lynch)",
        "Workshop on ID and Reference Structures for Networked Information",
    ),
    Cited(
        "ftp://prospero.isi.edu/pub/prospero/oir.ps",
        "RFC 1630, references (Neuman)",
        "Prospero: A Tool for Organizing Internet Resources",
    ),
)

#: Named users the stand-ins know (RFC 1738's examples log in as them).
USERS: dict[str, dict[str, str]] = {
    "host.com": {"foo": ""},
    "host.dom": {"myname": "myname's password"},
}

#: Where the Prospero stand-in points ``/pros/name`` (an AFTP access method, RFC 1738 §3.11).
PROSPERO_TARGET = ("ds.internic.net", "/rfc/rfc1630.txt")


def stand_in_text(url: str, title: str, source: str) -> str:
    return (
        f"{title}\n\n"
        f"This document stands in for <URL:{url}>, cited in {source}.\n"
        "The 1994 original is long gone from that host; omniurl's 1994 Internet in a box\n"
        "serves this stand-in from a local server so the URL can be resolved exactly as the\n"
        "RFC prints it.  lynch: the WAIS stand-in indexes this word.\n"
    )


@dataclass
class Box:
    """The stand-in servers and the ``Options`` that route the 1994 hosts to them."""

    root: Path
    servers: list[testservers.RunningServer] = field(default_factory=list)
    resolve: dict[tuple[str, int | None], tuple[str, int | None]] = field(default_factory=dict)
    credentials: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: Scheme options the box sets (the news server that news: URLs use, §3.6).
    schemes: list[Any] = field(default_factory=list)

    def options(self, base: Options | None = None) -> Options:
        base = base or Options()
        return base.with_(
            resolve={**base.resolve, **self.resolve},
            credentials={**base.credentials, **self.credentials},
        ).with_scheme(*self.schemes)

    async def aclose(self) -> None:
        for server in reversed(self.servers):
            await server.close()
        self.servers.clear()


def _host_root(root: Path, host: str, protocol: str) -> Path:
    path = root / "1994" / protocol / host
    path.mkdir(parents=True, exist_ok=True)
    return path


def build_trees(root: Path, cited: Iterable[Cited] = CITED) -> dict[tuple[str, str], Path]:
    """Write each cited document into its host's stand-in tree; (protocol, host) -> root.

    A path that one URL names as a file and others use as a directory (``ftp://ds.internic
    .net/rfc``) stays a directory, as it was on the real host.
    """
    roots: dict[tuple[str, str], Path] = {}
    files: dict[Path, str] = {}
    folders: set[Path] = set()
    cited = list(cited)
    sources: dict[str, list[str]] = {}
    for item in cited:
        sources.setdefault(item.url, []).append(item.source)
    for item in cited:
        try:
            url = schemes.parse(item.url)
        except schemes.URLError:
            continue  # shown with its error; nothing to serve
        if not isinstance(url, InternetURL):
            continue
        host = url.hostname
        text = stand_in_text(item.url, item.title, " and ".join(sources[item.url]))
        base = roots.setdefault((url.scheme, host), _host_root(root, host, url.scheme))
        if isinstance(url, FTPURL):
            folder = base.joinpath(*[s.lstrip("/") for s in url.cwd if s])
            if url.typecode == "d" or not url.name:
                target = folder / url.name if url.name else folder
                folders.add(target)
                files[target / "README"] = text
            else:
                files[folder / url.name] = text
        elif isinstance(url, HTTPURL):
            files[base / url.path.lstrip("/")] = f"<html><body><pre>{text}</pre></body></html>\n"
        elif isinstance(url, GopherURL):
            files[base / url.selector.lstrip("/")] = text
        elif isinstance(url, WAISURL):
            files[base / url.database / "lynch-workshop.txt"] = text
    # §3.2.2's examples: /etc/motd on host.dom (CWD /etc and CWD etc both reach it).
    files[roots[("ftp", "host.dom")] / "etc" / "motd"] = (
        "Message of the day on host.dom.  This file stands in for <URL:ftp://myname@host.dom/"
        "%2Fetc/motd>, RFC 1738 §3.2.2's example.\n"
    )
    for path in files:
        folders.update(path.parents)
    for folder in sorted(folders):
        folder.mkdir(parents=True, exist_ok=True)
    for path, text in files.items():
        if path not in folders:
            path.write_text(text)
    return roots


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with contextlib.closing(socket.socket()) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


DEFAULT_PORTS = {"ftp": 21, "http": 80, "gopher": 70, "wais": 210, "prospero": 1525}


async def open_box(root: Path, cited: Iterable[Cited] = CITED) -> Box:
    """Build the stand-in trees, start one server per (protocol, host), map the hosts."""
    box = Box(root)
    roots = build_trees(root, cited)
    closed = _closed_port()
    try:
        for (protocol, host), tree in sorted(roots.items()):
            kw: dict[str, Any] = {}
            if protocol == "ftp" and host in USERS:
                kw["users"] = USERS[host]
            if protocol == "prospero":
                kw.update(await _prospero_table(box))
            server = await testservers.start(protocol, tree, **kw)
            box.servers.append(server)
            box.resolve[(host, DEFAULT_PORTS[protocol])] = (server.host, server.port)
            box.resolve.setdefault((host, None), ("127.0.0.1", closed))
        news = await testservers.start("nntp", _host_root(root, "news", "nntp"))
        box.servers.append(news)
        box.schemes.append(NNTPOptions(server=news.netloc))
        for host, users in USERS.items():
            for user, password in users.items():
                box.credentials[host] = (user, password)
    except BaseException:
        await box.aclose()
        raise
    return box


async def _prospero_table(box: Box) -> dict[str, Any]:
    """The Prospero stand-in's object table: ``/pros/name`` -> an AFTP access method."""
    host, path = PROSPERO_TARGET
    return {"objects": {"/pros/name": {"method": "AFTP", "host": host, "path": path}}}
