"""The 1994 Internet in a box: every URL the RFCs cite resolves (or fails) as documented."""

from __future__ import annotations

from pathlib import Path

from omniurl import schemes
from omniurl.box1994 import CITED, open_box
from omniurl.resolvers import resolve
from omniurl.resolvers.errors import ConnectError, NotFound, PlanError
from omniurl.schemes.errors import OmniurlError, URLError

#: RFC 1738 as published (December 1994), kept with the tests so the suite needs nothing
#: outside the repository.
RFC1738 = Path(__file__).resolve().parent / "data" / "rfc1738.txt"


async def test_every_cited_url_resolves_or_fails_as_documented(tmp_path: Path) -> None:
    box = await open_box(tmp_path)
    try:
        options = box.options()
        outcomes: dict[str, str] = {}
        for item in CITED:
            try:
                async with await resolve(item.url, options) as resource:
                    if resource.kind == "listing":
                        body = "\n".join(e.name for e in resource.entries).encode()
                    else:
                        body = await resource.read()
                outcomes[item.url] = "ok"
                assert item.fails is None, f"{item.url} should fail: {item.fails}"
                if resource.kind == "content" and not item.url.startswith("prospero:"):
                    # Each stand-in says what it stands for.
                    assert b"stands in for <URL:" in body, item.url
            except OmniurlError as exc:
                outcomes[item.url] = type(exc).__name__
                assert item.fails is not None, f"{item.url} failed: {exc}"
    finally:
        await box.aclose()
    assert outcomes["ftp://ds.internic.net/rfc"] == NotFound.__name__
    assert outcomes["http://info.cern.ch:8000/imaginary/test"] == ConnectError.__name__
    assert outcomes["file://vms.host.edu/disk$user/my/notes/note12345.txt"] == PlanError.__name__
    raw = "gopher://gopher.micro.umn.edu/00/Information About Gopher/About Gopher"
    assert issubclass(getattr(schemes.errors, outcomes[raw]), URLError)


async def test_the_box_maps_only_its_hosts_and_nothing_leaves_loopback(tmp_path: Path) -> None:
    box = await open_box(tmp_path)
    try:
        assert box.resolve, "no host mapped"
        for (host, _port), (address, _to) in box.resolve.items():
            assert address == "127.0.0.1", (host, address)
        hosts = {h for h, _ in box.resolve}
        for item in CITED:
            try:
                url = schemes.parse(item.url)
            except URLError:
                continue
            host = getattr(url, "hostname", "")
            if host and url.scheme != "file":
                assert host in hosts, f"{item.url} would leave the box"
    finally:
        await box.aclose()


def test_the_list_matches_what_extract_finds_in_rfc_1738() -> None:
    """Every <URL:...> in RFC 1738's text (minus its templates) is in the box."""
    text = RFC1738.read_text()
    found = {f.url for f in schemes.extract(text) if f.wrapper == "<URL:>"}
    templates = {u for u in found if "<" in u}
    cited = {c.url for c in CITED}
    missing = found - templates - cited
    assert not missing, missing
