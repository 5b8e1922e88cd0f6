"""Plugins: ``schemes.register`` and the ``omniurl.schemes`` entry-point group."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest
from helpers import race

from omniurl import schemes
from omniurl.schemes import registry
from omniurl.schemes.authority import format_fragment
from omniurl.schemes.base import URL


@dataclass(frozen=True, kw_only=True)
class DictURL(URL):
    """``dict:word`` — a toy scheme written the way a third party would (from_text only)."""

    word: str = ""

    schemes: ClassVar[tuple[str, ...]] = ("dict",)
    DEFAULT_PORT: ClassVar[int | None] = 2628

    @classmethod
    def from_text(cls, text: str, *, scheme: str, rest: str, strict: bool = True) -> DictURL:
        if strict and not rest.isalpha():
            raise schemes.SchemeSyntaxError(
                "a dict: word is letters", component="word", offset=len(text) - len(rest)
            )
        return cls(scheme=scheme, word=rest)

    def __str__(self) -> str:
        return f"{self.scheme}:{self.word}{format_fragment(self.fragment)}"

    def components(self) -> dict[str, Any]:
        return {"word": self.word}


@pytest.fixture
def clean_registry() -> Iterator[None]:
    saved = dict(registry._classes)
    saved_parsers = dict(registry._parsers)
    saved_names = dict(registry._generic_names)
    loaded = registry._loaded
    yield
    registry._classes.clear()
    registry._classes.update(saved)
    registry._parsers.clear()
    registry._parsers.update(saved_parsers)
    # (the kept names with their entries: a kept entry restored without its name is never
    # dropped, and test_kept_entries_are_bounded then counted more than _GENERIC_KEPT)
    registry._generic_names.clear()
    registry._generic_names.update(saved_names)
    registry._loaded = loaded


@pytest.mark.usefixtures("clean_registry")
def test_registered_scheme_parses_like_a_builtin() -> None:
    assert isinstance(schemes.parse("dict:hello"), schemes.GenericURL)
    schemes.register("DICT", DictURL)
    u = schemes.parse("Dict:hello#x")
    assert isinstance(u, DictURL)
    assert (u.scheme, u.word, u.fragment, u.default_port) == ("dict", "hello", "x", 2628)
    assert str(u) == "dict:hello#x"
    assert schemes.parse(str(u)) == u
    assert u.to_json() == {"scheme": "dict", "word": "hello", "fragment": "x"}
    with pytest.raises(schemes.EncodingError):  # not RFC 3986 (§3.3), whatever the plugin
        schemes.parse("dict:two words")
    with pytest.raises(schemes.SchemeSyntaxError) as e:
        schemes.parse("dict:two words", syntax="rfc1738")
    assert (e.value.component, e.value.offset) == ("word", 5)
    assert schemes.scheme_class("dict") is DictURL


@pytest.mark.usefixtures("clean_registry")
def test_register_may_override_a_builtin() -> None:
    schemes.register("news", DictURL)
    assert isinstance(schemes.parse("news:abc"), DictURL)


@pytest.mark.usefixtures("clean_registry")
def test_register_checks_its_arguments() -> None:
    with pytest.raises(schemes.SchemeError):
        schemes.register("bad scheme", DictURL)
    with pytest.raises(TypeError):
        schemes.register("ok", dict)  # type: ignore[arg-type]


@pytest.mark.usefixtures("clean_registry")
def test_a_plugin_bug_is_still_a_url_error() -> None:
    class Broken(DictURL):
        @classmethod
        def from_text(cls, text: str, *, scheme: str, rest: str, strict: bool = True) -> DictURL:
            raise KeyError("oops")

    schemes.register("broken", Broken)
    with pytest.raises(schemes.URLError) as e:
        schemes.parse("broken:x")
    assert "KeyError" in e.value.message


@pytest.mark.usefixtures("clean_registry")
def test_entry_points_are_loaded_once(monkeypatch: pytest.MonkeyPatch) -> None:
    class FakeEntryPoint:
        name = "Dict"

        def load(self) -> type[URL]:
            return DictURL

    calls: list[str] = []

    def fake_entry_points(*, group: str) -> list[FakeEntryPoint]:
        calls.append(group)
        return [FakeEntryPoint()]

    monkeypatch.setattr(registry, "entry_points", fake_entry_points)
    registry._loaded = False
    u = schemes.parse("dict:word")
    assert isinstance(u, DictURL)
    schemes.parse("x-other:1")
    schemes.parse("dict:again")
    assert calls == ["omniurl.specs", "omniurl.schemes"]  # each group read once
    assert registry.registered()["dict"] is DictURL


@pytest.mark.usefixtures("clean_registry")
def test_entry_point_never_replaces_a_builtin(monkeypatch: pytest.MonkeyPatch) -> None:
    class FakeEntryPoint:
        name = "ftp"

        def load(self) -> type[URL]:
            return DictURL

    monkeypatch.setattr(registry, "entry_points", lambda *, group: [FakeEntryPoint()])
    registry._loaded = False
    assert isinstance(schemes.parse("ftp://h/"), schemes.FTPURL)
    assert registry.registered()["ftp"] is schemes.FTPURL


def _kept(name: str) -> bool:
    """Whether the registry's table holds the generic entry of ``name`` (schemes.fastparse
    then reads its URLs with GenericURL's one match)."""
    entry = registry._parsers.get(name)
    return entry is not None and entry[2] is registry._generic_default


@pytest.mark.usefixtures("clean_registry")
def test_a_scheme_no_class_serves_is_kept_until_a_class_is_registered() -> None:
    """The entry of a name no class serves is kept (the next URL of the scheme is one lookup
    and one match, issue 32), and ``register`` replaces it: the class wins from the next URL
    on, in any case of the name."""
    assert isinstance(schemes.parse("x-kept:hello"), schemes.GenericURL)
    assert _kept("x-kept")
    assert isinstance(schemes.parse("x-kept:again"), schemes.GenericURL)
    schemes.register("X-Kept", DictURL)
    assert not _kept("x-kept")
    for text in ("x-kept:word", "X-KEPT:word"):
        u = schemes.parse(text)
        assert isinstance(u, DictURL) and (u.scheme, u.word) == ("x-kept", "word")


@pytest.mark.usefixtures("clean_registry")
def test_a_class_registered_by_reference_replaces_a_kept_entry() -> None:
    assert isinstance(schemes.parse("x-lazy:hello"), schemes.GenericURL)
    assert _kept("x-lazy")
    registry.register_lazy("x-lazy", f"{__name__}:DictURL")
    try:
        assert not _kept("x-lazy")
        u = schemes.parse("x-lazy:word")
        assert type(u).__name__ == "DictURL" and u.word == "word"  # type: ignore[attr-defined]
    finally:
        registry._lazy.pop("x-lazy", None)


@pytest.mark.usefixtures("clean_registry")
def test_an_entry_point_read_again_wins_over_a_kept_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Entries kept while the entry points are marked unread answer nothing: the entry
    points are read, and a plugin's class wins (the fast step and the general way alike)."""

    class FakeEntryPoint:
        name = "x-late"

        def load(self) -> type[URL]:
            return DictURL

    for syntax in ("rfc3986", "rfc1738", "lenient"):
        monkeypatch.setattr(registry, "entry_points", lambda *, group: [])
        registry._loaded = False
        assert isinstance(schemes.parse("x-late:first"), schemes.GenericURL)
        assert _kept("x-late")
        monkeypatch.setattr(registry, "entry_points", lambda *, group: [FakeEntryPoint()])
        registry._loaded = False
        # (the default reading: the kept entry's one match declines; the other two: the
        # general way finds the kept entry and drops it)
        u = schemes.parse("x-late:hello", syntax=syntax)
        assert isinstance(u, DictURL) and u.word == "hello", syntax
        assert not _kept("x-late")
        registry._classes.pop("x-late", None)
        registry._parsers.pop("x-late", None)


@pytest.mark.usefixtures("clean_registry")
def test_kept_entries_are_bounded() -> None:
    for i in range(registry._GENERIC_KEPT + 50):
        assert isinstance(schemes.parse(f"x-many{i}:a"), schemes.GenericURL)
    kept = [name for name in registry._parsers if _kept(name)]
    assert 0 < len(kept) <= registry._GENERIC_KEPT
    assert len(registry._generic_names) <= registry._GENERIC_KEPT


@pytest.mark.usefixtures("clean_registry")
def test_one_name_too_many_drops_only_the_oldest() -> None:
    """Past registry._GENERIC_KEPT names, the oldest kept name is dropped, not every one
    (before: one more name dropped them all, and a program meeting 70 names in rotation —
    the eighth mix's infrastructure and app links — parsed most URLs the general way)."""
    registry._forget_generic()
    try:
        names = [f"x-evict{i}" for i in range(registry._GENERIC_KEPT + 1)]
        for name in names:
            assert schemes.parse(f"{name}://h/a").scheme == name
        assert not _kept(names[0])
        assert all(_kept(name) for name in names[1:])
        assert list(registry._generic_names) == names[1:]
    finally:
        registry._forget_generic()


@pytest.mark.usefixtures("clean_registry")
def test_a_refused_text_asks_the_letter_at_most_once() -> None:
    """A text RFC 3986's check refuses is handed to RFC 1738's letter once at most (before:
    twice, once to name the component, once for its URL: ~7-13 µs each), and not at all
    where its answer is known (a space in an http path); the errors stay exactly as they
    were (type, component, offset: test_parse_errors, test_parse_fast_default)."""
    calls: list[bool] = []
    registry.builtin_class("https")
    https = registry._parsers["https"]

    def counted(text: str, start: int, scheme: str, strict: bool) -> URL:
        calls.append(strict)
        return https[0](text, start, scheme, strict)

    registry._parsers["https"] = (counted, https[1], https[2])
    for text, want, letters in [
        ("https://h/search?q=a b", ("EncodingError", "search", 20), 1),
        ("https://h/a b/c.pdf", ("EncodingError", "path", 11), 0),
        ("https://h/a#b c", ("EncodingError", "fragment", 13), 0),
        ("https://h/a%zz/b", ("EncodingError", "path", 11), 0),
        ("https:%//h/a", ("EncodingError", "authority", 6), 1),
    ]:
        calls.clear()
        with pytest.raises(schemes.URLError) as e:
            schemes.parse(text)
        assert (type(e.value).__name__, e.value.component, e.value.offset) == want, text
        assert calls.count(True) == letters, text


def test_threads_parsing_many_unknown_schemes_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Kept generic entries are dropped (past registry._GENERIC_KEPT names) while other
    threads keep and drop names: every URL still parses (before: the drop's comprehension
    over the live table and its ``del`` raised KeyError or RuntimeError, reported as
    'cannot parse this URL')."""

    def work(k: int) -> None:
        for i in range(10000):
            name = f"x{(i * 7 + k) % 100}"  # (the same names in every thread)
            url = schemes.parse(f"{name}:abc")
            assert url.scheme == name

    monkeypatch.setattr(registry, "_GENERIC_KEPT", 2)  # (the names dropped often)
    try:
        errors = race(work)
    finally:
        registry._forget_generic()
    assert errors == []


@pytest.mark.usefixtures("clean_registry")
def test_a_class_registered_while_a_url_of_its_scheme_is_read_wins(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A class registered for a name between a URL's lookup of it (no class: GenericURL's
    reading) and the keeping of its generic entry (another thread's ``register``): the URL
    in hand is GenericURL's, every later one the class's.  (Before, the generic entry was
    kept over the class's, and every later URL of the scheme was GenericURL's.)"""
    generic = registry._generic
    armed = [True]

    def register_meanwhile() -> type[URL]:
        # (the keeping's first step: the other thread's register lands here)
        if armed.pop() if armed else False:
            schemes.register("x-meanwhile", DictURL)
        return generic()

    monkeypatch.setattr(registry, "_generic", register_meanwhile)
    assert isinstance(schemes.parse("x-meanwhile:first"), schemes.GenericURL)
    assert not armed
    monkeypatch.setattr(registry, "_generic", generic)
    assert not _kept("x-meanwhile")
    u = schemes.parse("x-meanwhile:word")
    assert isinstance(u, DictURL) and u.word == "word"


@pytest.mark.usefixtures("clean_registry")
def test_a_plugin_url_read_while_another_thread_reads_the_entry_points(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A thread whose URL names a plugin's scheme while another thread reads the entry points
    waits for the scan, and gets the plugin's class (before: the first thread had marked
    them read before reading them, so the second found no class, read the URL as GenericURL
    and kept that entry)."""

    class FakeEntryPoint:
        name = "x-scanned"

        def load(self) -> type[URL]:
            return DictURL

    scanning = threading.Event()
    release = threading.Event()

    def slow_entry_points(*, group: str) -> list[FakeEntryPoint]:
        if group == registry.SPEC_GROUP:
            scanning.set()
            release.wait(10)  # (the other thread parses meanwhile)
            return []
        return [FakeEntryPoint()]

    monkeypatch.setattr(registry, "entry_points", slow_entry_points)
    registry._loaded = False
    got: dict[str, object] = {}

    def scan() -> None:
        got["scan"] = schemes.parse("x-first-unknown:a")

    def meanwhile() -> None:
        scanning.wait(10)
        got["meanwhile"] = schemes.parse("x-scanned:word")

    threads = [threading.Thread(target=scan), threading.Thread(target=meanwhile)]
    for thread in threads:
        thread.start()
    threads[1].join(timeout=0.5)  # (it waits for the scan: it ends here only before the fix)
    release.set()
    for thread in threads:
        thread.join(timeout=10)
    assert not any(thread.is_alive() for thread in threads)
    assert isinstance(got["scan"], schemes.GenericURL)
    assert isinstance(got["meanwhile"], DictURL)
    assert isinstance(schemes.parse("x-scanned:again"), DictURL)


def test_a_scheme_registered_with_generic_url_keeps_its_host_opaque() -> None:
    """GenericURL registered for a name reads a non-ASCII host as the general way does, as
    UTF-8 escapes (RFC 3986 §3.2.2, RFC 3987 §3.1), never A-labels (before: the fast step
    mapped it to xn--ida, the general way gave %C3%B1)."""
    from omniurl.schemes.generic import GenericURL

    registry.register("x-opaque-gen", GenericURL)
    try:
        for text, want in [
            ("x-opaque-gen://ñ.test/", "x-opaque-gen://%C3%B1.test/"),
            ("x-opaque-gen://u@ñ.test:1/a?b#c", "x-opaque-gen://u@%C3%B1.test:1/a?b#c"),
        ]:
            assert str(schemes.parse(text)) == want
    finally:
        registry._classes.pop("x-opaque-gen", None)
        registry._parsers.pop("x-opaque-gen", None)


@pytest.mark.usefixtures("clean_registry")
def test_a_name_kept_while_all_are_dropped_stays_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """A name another thread keeps while this one drops every kept entry (the oldest-first
    drop's fallback) is either dropped with them or still counted among the kept names:
    never an entry in the table that no drop reads again (the bound of _GENERIC_KEPT held
    only by one thread: 8 threads parsing 100 names in rotation left 100 kept entries)."""
    assert isinstance(schemes.parse("x-before:a"), schemes.GenericURL)
    assert _kept("x-before")

    class Table(dict):  # type: ignore[type-arg]
        def items(self):  # type: ignore[no-untyped-def]
            snapshot = list(super().items())
            registry._keep_generic("x-meanwhile")  # (another thread, after the snapshot)
            return snapshot

    monkeypatch.setattr(registry, "_parsers", Table(registry._parsers))
    registry._forget_generic()
    assert not _kept("x-before") and "x-before" not in registry._generic_names
    assert _kept("x-meanwhile") == ("x-meanwhile" in registry._generic_names)
