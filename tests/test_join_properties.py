"""Properties of schemes.join (hypothesis): results parse, are stable, agree with an oracle."""

from __future__ import annotations

from urllib.parse import urljoin

from hypothesis import assume, given
from hypothesis import strategies as st

from omniurl import schemes
from omniurl.schemes import join
from omniurl.schemes.join import split_reference

# Path segments: plain names (with RFC 1738's safe characters and escapes), dot segments,
# and names that only look like them.
plain = st.sampled_from(["g", "h", "g;x", "g.", ".g", "..g", "a%2Fb", "x-y_z", "%41"])
segment = st.one_of(plain, st.sampled_from([".", ".."]))
query = st.one_of(st.none(), st.sampled_from(["", "y", "a=1&b=2", "y/../x"]))
fragment = st.one_of(st.none(), st.sampled_from(["", "s", "s/./x"]))


# ";" is reserved inside ftp and file path segments (§3.2.2, §3.10): names without it.
plain_no_params = st.sampled_from(["g", "h", "g.", ".g", "..g", "a%2Fb", "x-y_z", "%41"])


@st.composite
def references(draw: st.DrawFn, *, empty_segments: bool = True, with_query: bool = True) -> str:
    seg = st.one_of(plain if with_query else plain_no_params, st.sampled_from([".", ".."]))
    segs = draw(st.lists(st.one_of(seg, st.just("")) if empty_segments else seg))
    path = "/".join(segs)
    if draw(st.booleans()):
        path = "/" + path
    q, f = draw(query) if with_query else None, draw(fragment)
    return path + ("" if q is None else "?" + q) + ("" if f is None else "#" + f)


@st.composite
def http_bases(draw: st.DrawFn, *, empty_segments: bool = True) -> str:
    host = draw(st.sampled_from(["a", "example.org", "127.0.0.1", "h:8080"]))
    segs = draw(st.lists(st.one_of(plain, st.just("")) if empty_segments else plain))
    q = draw(query)
    return f"http://{host}/" + "/".join(segs) + ("" if q is None else "?" + q)


@given(http_bases(empty_segments=False), references(empty_segments=False))
def test_agrees_with_urllib_where_urllib_follows_rfc3986(base: str, ref: str) -> None:
    # urllib.parse.urljoin implements RFC 3986 §5.2 except that it drops empty segments
    # ("g//h" -> "g/h") and an empty query or fragment ("#" -> ""), so the oracle is only
    # asked about references without them.
    assume(not ref.endswith(("?", "#")) and "?#" not in ref and not base.endswith("?"))
    assert join(base, ref) == urljoin(base, ref)


@given(http_bases(), references())
def test_result_has_no_dot_segments_and_resolves_to_itself(base: str, ref: str) -> None:
    target = join(base, ref)
    parts = split_reference(target)
    assert parts.scheme == "http"
    assert not {".", ".."} & set(parts.path.split("/"))
    # an absolute URL is its own target, against any base
    assert join(base, target) == target
    assert join("ftp://elsewhere/x/y", target) == target


@given(http_bases(), st.lists(plain, min_size=1), query, fragment)
def test_rfc1630_and_rfc3986_agree_on_plain_relative_paths(
    base: str, segs: list[str], q: str | None, f: str | None
) -> None:
    ref = "/".join(segs) + ("" if q is None else "?" + q) + ("" if f is None else "#" + f)
    assert join(base, ref, rfc="1630") == join(base, ref, rfc="3986")


@given(http_bases(), references())
def test_fragment_of_the_reference_is_kept_and_the_base_one_dropped(base: str, ref: str) -> None:
    for rfc in ("3986", "1630"):
        target = join(base + "#base-fragment", ref, rfc=rfc)  # type: ignore[arg-type]
        assert "base-fragment" not in target
        assert split_reference(target).fragment == split_reference(ref).fragment


@st.composite
def parseable_bases(draw: st.DrawFn) -> str:
    scheme = draw(st.sampled_from(["http", "ftp", "gopher", "file"]))
    host = draw(st.sampled_from(["a", "example.org", "127.0.0.1"]))
    names = plain if scheme == "http" else plain_no_params
    if scheme == "gopher":
        return f"gopher://{host}/1" + "/".join(draw(st.lists(names, min_size=1)))
    if scheme == "file":
        return "file:///" + "/".join(draw(st.lists(names)))
    return f"{scheme}://{host}/" + "/".join(draw(st.lists(names)))


@given(parseable_bases(), st.data())
def test_join_results_parse(base: str, data: st.DataObject) -> None:
    scheme = split_reference(base).scheme
    # ftp, gopher and file have no search part in RFC 1738 and no ";" in segments: their
    # references have neither
    ref = data.draw(references(with_query=scheme == "http"))
    # a network-path reference ("//g") brings a host of its own, valid or not; and RFC 1738
    # §3.3 reserves "/" in an http search (RFC 3986's "g?y/../x" is no RFC 1738 URL)
    assume(not ref.startswith("//") and "/" not in ref.partition("?")[2].partition("#")[0])
    target = join(base, ref)
    url = schemes.parse(target)
    assert url.scheme == scheme
    assert url.fragment == split_reference(ref).fragment


_fuzz = st.one_of(
    st.text(), st.text(alphabet=st.sampled_from(list("ab:/?#.%2F@[]- \n")), max_size=25)
)


@given(_fuzz, _fuzz, st.sampled_from(["3986", "1630"]), st.booleans())
def test_no_other_exception_escapes(base: str, ref: str, rfc: str, strict: bool) -> None:
    try:
        target = join(base, ref, rfc=rfc, strict=strict)  # type: ignore[arg-type]
    except schemes.URLError:
        return
    assert isinstance(target, str)


@st.composite
def rootless_bases(draw: st.DrawFn) -> tuple[str, str]:
    """A rootless base (``foo:b/c/d;p?q``) and the hierarchical base with the same path
    under a root (``http://a/b/c/d;p?q``)."""
    segs = draw(st.lists(plain, min_size=1, max_size=4))
    q = draw(query)
    tail = "/".join(segs) + ("" if q is None else "?" + q)
    return "foo:" + tail, "http://a/" + tail


@given(rootless_bases(), references())
def test_a_rootless_base_resolves_as_its_rooted_twin_without_the_root(
    bases: tuple[str, str], ref: str
) -> None:
    """RFC 3986 §5.2 is the same text operation for a base without hierarchy: a rootless
    base resolves every path reference as the same path under a root would, the root then
    taken away (``..`` never climbs above it: foo:a/b + ../../c is foo:c)."""
    rootless, rooted = bases
    assume(not ref.startswith("/"))  # "/g" is rooted in both; "//g" names an authority
    target = join(rootless, ref)
    twin = join(rooted, ref)
    assert twin.startswith("http://a/")
    assert target == "foo:" + _no_authority(twin[len("http://a/") :])
    path = split_reference(target).path
    assert not {".", ".."} & set(path.removeprefix("/.//").split("/"))  # ("/." is §3.3's)


@given(rootless_bases(), references())
def test_a_rooted_reference_against_a_rootless_base(bases: tuple[str, str], ref: str) -> None:
    rootless, rooted = bases
    assume(ref.startswith("/") and not ref.startswith("//"))
    assert join(rootless, ref) == "foo:" + _no_authority(join(rooted, ref)[len("http://a") :])


def _no_authority(path: str) -> str:
    """§3.3: without an authority a path cannot begin with "//"; join writes "/." first."""
    return "/." + path if path.startswith("//") else path
