"""One scheme spec, one registry: every surface reads the spec, none names a scheme.

* No module of ``omniurl/`` (the CLI, the batch, the clients, the gateway, the integrations)
  names a built-in scheme in code: no string literal that is a scheme name or starts with
  ``name:``, and no import of a scheme's own module.  Docstrings and help texts may speak of
  schemes; dispatch may not.  A word that only looks like a scheme name (an entry kind
  "file", ASGI's scope type "http") carries a ``# not a scheme`` comment on its line.  The
  registration data (resolvers/builtin.py and schemes/registry.py) and the per-scheme demos
  (omniurl/demos/, like testservers/) are where scheme names belong.
* The built-ins are registered exactly as a plugin is: one ``"module:attr"`` line each, the
  same lines pyproject.toml declares in the ``omniurl.specs`` group.
* The exported error names are one list.
* No layer imports one above it: schemes/ nothing of resolvers/, and schemes/, resolvers/
  and testservers/ no surface of omniurl/ (docs/ARCHITECTURE.md).
"""

from __future__ import annotations

import ast
import dataclasses
import tomllib
from pathlib import Path

import pytest

import omniurl
from omniurl.resolvers import errors, registry
from omniurl.resolvers.builtin import ENVIRONMENT, FLAGS, SPECS
from omniurl.resolvers.options import Options
from omniurl.resolvers.spec import DEFAULT_PRESENTATION, Presentation, SchemeSpec, flags_of
from omniurl.schemes import registry as parsing

ROOT = Path(__file__).resolve().parent.parent
OMNIURL = ROOT / "omniurl"
#: Modules of omniurl/ that may name schemes: per-scheme demos (as test servers do) and the
#: 1994 box, a fixture of historical hosts by protocol.
ALLOWED = {OMNIURL / "demos", OMNIURL / "box1994.py"}
#: omniurl/schemes, omniurl/resolvers and omniurl/testservers are the repository's own
#: top-level packages (symlinks), not surfaces.
SUBPACKAGES = {"schemes", "resolvers", "testservers"}
BUILTIN_NAMES = frozenset([*SPECS, *parsing.BUILTIN_SCHEMES, "tn3270"])


def _surface_modules() -> list[Path]:
    found = []
    for path in sorted(OMNIURL.rglob("*.py")):
        parts = path.relative_to(OMNIURL).parts
        if parts[0] in SUBPACKAGES or any(path == a or a in path.parents for a in ALLOWED):
            continue
        found.append(path)
    return found


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def _names_a_scheme(text: str) -> str | None:
    for name in BUILTIN_NAMES:
        if text == name or text.startswith(f"{name}:"):
            return name
    return None


def scheme_names_in(path: Path) -> list[str]:
    """Each place in ``path`` that names a built-in scheme in code (see module doc)."""
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    lines = source.splitlines()
    docs = _docstrings(tree)
    help_texts = set()
    for node in ast.walk(tree):  # argparse help= and description= texts are prose
        if isinstance(node, ast.keyword) and node.arg in ("help", "description", "epilog"):
            help_texts.update(id(n) for n in ast.walk(node.value))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) in docs or id(node) in help_texts:
                continue
            if "# not a scheme" in lines[node.lineno - 1]:  # a word that is also a name
                continue
            name = _names_a_scheme(node.value)
            if name is not None:
                found.append(f"{path.name}:{node.lineno}: {node.value!r}")
        elif isinstance(node, ast.ImportFrom | ast.Import):
            modules = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            if isinstance(node, ast.Import):
                modules = [a.name for a in node.names]
            for module in modules:
                parts = module.split(".")
                owned = "resolvers" in parts or "schemes" in parts
                if owned and any(p in BUILTIN_NAMES for p in parts):
                    found.append(f"{path.name}:{node.lineno}: import {module}")
    return found


def test_the_checker_finds_what_it_must() -> None:
    """The grep can fail: each form of naming a scheme is caught."""
    sample = ROOT / "tests" / "_spec_sample.py"
    sample.write_text(
        '"""A docstring about gopher: allowed."""\n'
        "import omniurl.resolvers.gopher.planner\n"
        "from omniurl.schemes.news import NewsURL\n"
        "def f(url):\n"
        '    """ftp is fine here."""\n'
        '    if url.scheme == "gopher":\n'
        "        return 1\n"
        '    if url.startswith("news:"):\n'
        "        return 2\n"
        '    return {"https": 3}\n'
    )
    try:
        found = scheme_names_in(sample)
    finally:
        sample.unlink()
    assert sorted(found) == [
        "_spec_sample.py:10: 'https'",
        "_spec_sample.py:2: import omniurl.resolvers.gopher.planner",
        "_spec_sample.py:3: import omniurl.schemes.news",
        "_spec_sample.py:6: 'gopher'",
        "_spec_sample.py:8: 'news:'",
    ]


def test_no_surface_names_a_scheme() -> None:
    modules = _surface_modules()
    assert OMNIURL / "cli" / "get.py" in modules and OMNIURL / "batch.py" in modules
    found = [hit for path in modules for hit in scheme_names_in(path)]
    assert found == []


#: What each bottom layer may import of omniurl's own packages (docs/ARCHITECTURE.md): the
#: parsing side nothing above it, a resolver (its planners, machines, executors and
#: presentation hooks) the parsing side, and a test server both; none a surface of omniurl/
#: (cli/, gateway/, browse/, batch.py…), which are built on them.
LAYERS = {
    "schemes": {"schemes"},
    "resolvers": {"schemes", "resolvers"},
    "testservers": {"schemes", "resolvers", "testservers"},
}


def omniurl_imports(path: Path, package: list[str]) -> list[tuple[int, str]]:
    """Each import in ``path`` (a module of ``package``) of an omniurl module, by line:
    absolute or relative, at the top or inside a function (a deferred import is a
    dependency too)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            modules = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module.split(".") if node.module else []
            if node.level:
                base = package[: len(package) - node.level + 1] + base
            modules = [".".join(base)]
            if not node.module or base == ["omniurl"]:  # (from omniurl import cli: modules)
                modules = [".".join([*base, a.name]) for a in node.names]
        else:
            continue
        found += [(node.lineno, m) for m in modules if m.split(".")[0] == "omniurl"]
    return found


def upward_imports(path: Path, layer: str) -> list[str]:
    """Each import in ``path`` (a module of ``layer``, imported as ``omniurl.<layer>.…``) of
    an omniurl module its layer may not import."""
    package = ["omniurl", layer, *path.relative_to(ROOT / layer).parent.parts]
    return [
        f"{path.relative_to(ROOT)}:{line}: {module}"
        for line, module in omniurl_imports(path, package)
        if len(parts := module.split(".")) == 1 or parts[1] not in LAYERS[layer]
    ]


def test_the_layering_checker_finds_what_it_must() -> None:
    """Each form of an upward import is caught (a resolver reaching the CLI was missed)."""
    sample = ROOT / "resolvers" / "gemini" / "_layer_sample.py"
    sample.write_text(
        "import omniurl.schemes.base\n"
        "from omniurl.cli.emit import terminal_safe\n"
        "from ...schemes import percent\n"
        "from ..spec import Presentation\n"
        "from omniurl import schemes\n"
        "from omniurl import client\n"
        "def f():\n"
        "    from ...cli import emit\n"
        "    from ... import gateway\n"
        "    import omniurl\n"
        "    import omniurl.browse.app\n"
    )
    try:
        found = upward_imports(sample, "resolvers")
    finally:
        sample.unlink()
    assert found == [
        "resolvers/gemini/_layer_sample.py:2: omniurl.cli.emit",
        "resolvers/gemini/_layer_sample.py:6: omniurl.client",
        "resolvers/gemini/_layer_sample.py:8: omniurl.cli",
        "resolvers/gemini/_layer_sample.py:9: omniurl.gateway",
        "resolvers/gemini/_layer_sample.py:10: omniurl",
        "resolvers/gemini/_layer_sample.py:11: omniurl.browse.app",
    ]


#: The command line: the CLI and ``python -m omniurl``.
COMMAND_LINE = {"cli", "__main__.py"}


def test_the_library_imports_nothing_of_the_command_line() -> None:
    """The batch, the clients, the mirror, the integrations, the save paths, the gateway
    and the browser are built beside the CLI, not on it: none imports ``omniurl.cli`` (even
    inside a function), which imports them (``batch_procs`` named ``cli.signals.ENDING``, a
    circle cli.batch -> batch_procs -> cli, now omniurl/exitstatus.py's; the gateway and the
    browser took ``terminal_safe`` from ``cli.emit``, which has it from schemes/secrets.py)."""
    library = [
        path
        for path in _surface_modules()
        if path.relative_to(OMNIURL).parts[0] not in COMMAND_LINE
    ]
    assert OMNIURL / "batch_procs.py" in library and OMNIURL / "gateway" / "render.py" in library
    found = [
        f"{path.relative_to(ROOT)}:{line}: {module}"
        for path in library
        for line, module in omniurl_imports(
            path, ["omniurl", *path.relative_to(OMNIURL).parent.parts]
        )
        if module == "omniurl.cli" or module.startswith("omniurl.cli.")
    ]
    assert found == []


@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_no_layer_imports_one_above_it(layer: str) -> None:
    """schemes/ never imports resolvers/; neither imports a surface of omniurl/ (the CLI,
    the gateway, browse…): what they share lives in the lower layer (``terminal_safe`` in
    schemes/secrets.py, beside ``mask_passwords``)."""
    modules = sorted((ROOT / layer).rglob("*.py"))
    assert len(modules) > 5
    found = [hit for path in modules for hit in upward_imports(path, layer)]
    assert found == []


def test_builtins_register_as_plugins_do() -> None:
    """One ``module:attr`` line per scheme, the same lines pyproject.toml declares in the
    plugins' group; each names a SchemeSpec serving that scheme."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    declared = project["project"]["entry-points"][registry.ENTRY_POINT_GROUP]
    assert declared == SPECS
    for name, ref in SPECS.items():
        spec = registry.spec_for(name)
        assert isinstance(spec, SchemeSpec)
        assert name in spec.names
        module, _, attr = ref.partition(":")
        assert getattr(__import__(module, fromlist=[attr]), attr) is spec
        # the parsing side knows every built-in scheme too (schemes/ imports no resolver)
        assert name in parsing.BUILTIN_SCHEMES


def test_the_builtins_flags_as_data_are_what_their_specs_declare() -> None:
    """``plan``/``get`` add a built-in's flags only when the command line names one of
    them (builtin.FLAGS): the table must list every flag each spec's options declare."""
    declared = {}
    for ref in dict.fromkeys(SPECS.values()):
        spec = registry.spec_for(next(n for n, r in SPECS.items() if r == ref))
        names = [n for _name, f in flags_of(spec.options) for n in f.names] if spec.options else []
        if names:
            declared[ref] = tuple(names)
    assert declared == FLAGS


def test_builtin_command_line_hooks_change_nothing_by_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``plan``/``get`` build a built-in's options only for the URLs' schemes, a flag given,
    or an environment variable of builtin.ENVIRONMENT that is set: for any other scheme the
    hooks must give back the defaults (else a redirect to it would see other options)."""
    for variable in ENVIRONMENT:
        monkeypatch.delenv(variable, raising=False)
    policy = Options().policy
    hooked = set(ENVIRONMENT.values())
    for ref in dict.fromkeys(SPECS.values()):
        spec = registry.spec_for(next(n for n, r in SPECS.items() if r == ref))
        if spec.options is None:
            continue
        default = spec.options()
        presentation = spec.present()
        assert presentation.cli_options(default, ["x-other:/"]) == default, ref
        assert presentation.cli_options(default, []) == default, ref
        assert presentation.cli_policy(policy, default) == policy, ref
        if ref in hooked:
            for variable in (v for v, r in ENVIRONMENT.items() if r == ref):
                monkeypatch.setenv(variable, "news.example:119")
            assert presentation.cli_options(default, []) != default, ref
    assert hooked <= set(SPECS.values())


def test_every_spec_is_well_formed() -> None:
    for spec in registry.all_specs(plugins=False):
        assert spec.names and all(n == n.lower() for n in spec.names)
        assert isinstance(spec.present(), Presentation)
        assert spec.resolver_type()().plan is not None
        if spec.options is not None:
            assert dataclasses.is_dataclass(spec.options)
            default = spec.options()  # every field has a default
            assert Options().of(spec.options) == default
            for _name, f in flags_of(spec.options):
                assert f.names and all(n.startswith("--") for n in f.names)


def test_options_are_typed_and_set_by_type() -> None:
    from omniurl.resolvers.nntp.settings import NNTPOptions, StartTLS

    options = Options(schemes=(NNTPOptions(server="h:119"),))
    assert options.of(NNTPOptions).server == "h:119"
    assert options.of(NNTPOptions).starttls is StartTLS.NEVER
    again = options.with_scheme(NNTPOptions(max_articles=3))
    assert (again.of(NNTPOptions).server, again.of(NNTPOptions).max_articles) == (None, 3)
    assert not hasattr(Options(), "extra")


def test_a_scheme_without_a_spec_gets_the_default_presentation() -> None:
    assert registry.presentation_of("x-nothing-registered") is DEFAULT_PRESENTATION


def test_exported_errors_are_one_list() -> None:
    names = omniurl._ERROR_NAMES
    assert names == errors.__all__
    classes = {
        n
        for n, v in vars(errors).items()
        if isinstance(v, type) and issubclass(v, errors.ResolveError)
    }
    assert set(names) == classes
    assert set(names) <= set(omniurl.__all__)
    for name in names:
        assert getattr(omniurl, name) is getattr(errors, name)


@pytest.mark.parametrize("name", ["gopher", "wais", "news", "mailto", "telnet", "gemini"])
def test_resolver_packages_import_no_terminal_library(name: str) -> None:
    """A resolver package is imported for an `omniurl get` of its URLs (or its flags) and by
    library callers: neither rich nor argparse there (the presentation imports them when used)."""
    import subprocess
    import sys

    code = (
        f"import sys; import omniurl.resolvers.{'nntp' if name == 'news' else name}; "
        "print('rich' in sys.modules or 'argparse' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=True,
    )
    assert done.stdout.strip() == "False"


def test_the_older_entry_point_group_still_works(monkeypatch: pytest.MonkeyPatch) -> None:
    """A plugin of the older kind (a Resolver class in ``omniurl.resolvers``) still gets a
    spec, with the default presentation and no options."""
    from omniurl.resolvers.base import Resolver

    class OldResolver(Resolver):
        pass

    class OldEntryPoint:
        name = "x-old-style"
        value = "old:OldResolver"

        def load(self) -> type[Resolver]:
            return OldResolver

    groups: list[str] = []

    def entry_points(*, group: str) -> list[OldEntryPoint]:
        groups.append(group)
        return [OldEntryPoint()] if group == registry.LEGACY_GROUP else []

    monkeypatch.setattr(registry, "entry_points", entry_points)
    monkeypatch.setattr(registry, "_loaded", False)
    monkeypatch.setattr(registry, "_specs", dict(registry._specs))
    spec = registry.spec_for("x-old-style")
    assert groups == [registry.ENTRY_POINT_GROUP, registry.LEGACY_GROUP]
    assert spec.resolver_type() is OldResolver and spec.options is None
    assert spec.present() is DEFAULT_PRESENTATION
    assert isinstance(registry.get("x-old-style"), OldResolver)


#: Where ``gemini`` — the first scheme added entirely through the spec — may be named: its
#: own modules, and the registration data (the built-ins' table, the parsing side's table,
#: the test servers' catalog, pyproject's entry points).
GEMINI_OWN = {
    ROOT / "schemes" / "gemini.py",
    ROOT / "resolvers" / "gemini",
    ROOT / "testservers" / "gemini.py",
    OMNIURL / "demos" / "gemini.py",
}
GEMINI_REGISTRATION = {
    ROOT / "resolvers" / "builtin.py",
    ROOT / "schemes" / "registry.py",
    ROOT / "testservers" / "catalog.py",
    ROOT / "testservers" / "base.py",
}


def test_nothing_outside_geminis_own_modules_names_it() -> None:
    """Not only the surfaces: no module of schemes/, resolvers/, testservers/ or omniurl/
    names gemini in code (a string or an import) but its own and the registration data."""
    found = []
    for top in (ROOT / "schemes", ROOT / "resolvers", ROOT / "testservers", OMNIURL):
        for path in sorted(top.rglob("*.py")):
            if top == OMNIURL and path.relative_to(OMNIURL).parts[0] in SUBPACKAGES:
                continue  # (the links to the top-level packages, walked above)
            if path in GEMINI_REGISTRATION or any(
                path == own or own in path.parents for own in GEMINI_OWN
            ):
                continue
            source = path.read_text(encoding="utf-8")
            if "gemini" not in source.lower():
                continue
            tree = ast.parse(source)
            docs = _docstrings(tree)
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    if id(node) not in docs and "gemini" in node.value.lower():
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
                elif isinstance(node, ast.ImportFrom | ast.Import):
                    names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
                    names += [a.name for a in node.names]
                    if any("gemini" in n for n in names):
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno}: import")
    assert found == []


def test_every_builtin_test_server_is_one_omniurl_serve_starts() -> None:
    """A built-in spec's ``test_server`` is a name of omniurl's own servers (a plugin's is
    a ``"module:callable"``: tests/test_plugin_xfinger.py)."""
    from omniurl import testservers

    servers = testservers.known()
    for name in SPECS:  # (the built-ins only: a plugin registered in-process may be here)
        spec = registry.spec_for(name)
        if spec.test_server is not None:
            assert spec.test_server in servers, spec.name


async def test_a_scheme_without_a_test_server_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from omniurl import testservers
    from omniurl.resolvers.base import Resolver

    monkeypatch.setattr(registry, "_specs", dict(registry._specs))

    class NoServer(Resolver):
        pass

    spec = SchemeSpec(names=("x-no-server",), resolver=NoServer)
    registry.register_spec(spec)
    with pytest.raises(KeyError, match=r"the x-no-server: scheme declares no test server"):
        await testservers.start("x-no-server", tmp_path)


class _NotAServer:
    pass


async def _bad_starter(**kw: object) -> _NotAServer:
    return _NotAServer()


async def _asyncio_starter(*, host: str, port: int, root: Path) -> object:
    import asyncio

    async def answer(reader: object, writer: asyncio.StreamWriter) -> None:
        writer.write(b"hello\r\n")
        writer.close()

    return await asyncio.start_server(answer, host, port)


class _Stoppable:
    def __init__(self, server: object, port: int) -> None:
        self.server, self.port, self.stopped = server, port, False

    def stop(self) -> None:
        self.stopped = True
        self.server.close()  # type: ignore[attr-defined]


_stoppables: list[_Stoppable] = []


async def _stoppable_starter(*, host: str, port: int, root: Path) -> _Stoppable:
    server = await _asyncio_starter(host=host, port=port, root=root)
    made = _Stoppable(server, server.sockets[0].getsockname()[1])  # type: ignore[attr-defined]
    _stoppables.append(made)
    return made


async def test_a_declared_test_server_may_be_an_asyncio_server_or_have_stop(
    tmp_path: Path,
) -> None:
    """The sensible defaults of the contract: what ``asyncio.start_server`` returns, or an
    object with ``port`` and a plain ``stop()``."""
    import asyncio

    from omniurl.testservers.base import start_declared

    for ref in ("_asyncio_starter", "_stoppable_starter"):
        server = await start_declared("x-demo", f"{__name__}:{ref}", tmp_path)
        try:
            assert server.host == "127.0.0.1" and server.port > 0
            reader, writer = await asyncio.open_connection(server.host, server.port)
            assert await asyncio.wait_for(reader.read(), 5) == b"hello\r\n"
            writer.close()
        finally:
            await server.close()
        with pytest.raises(OSError):
            await asyncio.open_connection(server.host, server.port)
    assert _stoppables[-1].stopped


async def test_a_declared_test_server_that_breaks_the_contract_is_a_clear_error(
    tmp_path: Path,
) -> None:
    from omniurl.testservers.base import start_declared

    with pytest.raises(LookupError, match=r"'no_such_module_here:start' cannot be loaded"):
        await start_declared("x-demo", "no_such_module_here:start", tmp_path)
    with pytest.raises(TypeError, match=r"returned _NotAServer, which has no int port"):
        await start_declared("x-demo", f"{__name__}:_bad_starter", tmp_path)


def test_older_command_line_hooks_warn_that_they_are_not_called(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The older resolver hooks (``add_arguments``, ``options_from_args``) are not called:
    registering a class that defines them says so, and the way to a spec; one without them
    registers quietly."""
    import warnings

    from omniurl.resolvers.base import Resolver

    monkeypatch.setattr(registry, "_specs", dict(registry._specs))

    class Hooked(Resolver):
        @classmethod
        def add_arguments(cls, parser: object) -> None: ...

        def options_from_args(self, args: object, options: object) -> object:
            return options

    with pytest.warns(registry.PluginDeprecationWarning) as caught:
        registry.register("x-hooked")(Hooked)
    message = str(caught[0].message)
    assert "defines add_arguments and options_from_args, which omniurl no longer calls" in message
    assert "flag() fields of an options dataclass in a SchemeSpec" in message
    assert registry.spec_for("x-hooked").resolver_type() is Hooked  # still resolves

    class Quiet(Resolver):
        pass

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        registry.register("x-quiet")(Quiet)
        registry.register_spec(SchemeSpec(names=("x-quiet2",), resolver=Quiet))


def test_default_head_lines_offer_ranges_only_for_a_resumable_plan() -> None:
    """``-I`` of a scheme with the default presentation: ``Accept-ranges`` only where
    ``-C`` works (the plan says ``resumable``)."""
    from dataclasses import dataclass

    from omniurl.resolvers.plan import Plan
    from omniurl.resolvers.resource import Resource
    from omniurl.schemes.generic import GenericURL

    @dataclass(frozen=True)
    class Details:
        resumable: bool

    url = omniurl.parse("x-anything://h/x")
    assert isinstance(url, GenericURL)
    for resumable, expected in ((False, []), (True, ["Accept-ranges: bytes"])):
        plan = Plan(url, "x-anything", "h", 1, "tcp", (), details=Details(resumable))
        assert DEFAULT_PRESENTATION.head_lines(Resource(plan)) == expected


def test_a_plugin_declares_its_own_wire_context(monkeypatch: pytest.MonkeyPatch) -> None:
    """A protocol whose arguments end at a space (none of the policy's contexts) declares
    its context in the spec; the policy then refuses its delimiters, CR/LF/NUL always.  A
    context the policy does not know is a clear error before anything is sent, never a
    KeyError."""
    from omniurl.resolvers import policy
    from omniurl.resolvers.base import Resolver
    from omniurl.resolvers.errors import ConfigurationError, DelimiterRefused
    from omniurl.resolvers.plan import Plan, Step, WireValue
    from omniurl.schemes.percent import to_octets

    monkeypatch.setattr(policy, "DELIMITERS", dict(policy.DELIMITERS))
    monkeypatch.setattr(registry, "_specs", dict(registry._specs))

    def resolver_for(context: str) -> type[Resolver]:
        class Words(Resolver):
            def plan(self, url: omniurl.URL, options: Options) -> Plan:
                word = str(url).partition("://h/")[2].replace("%20", " ").replace("%0A", "\n")
                step = Step.line(
                    f"WORD {word}", values=[WireValue("word", to_octets(word), context)]
                )
                return Plan(url, url.scheme, "h", 4321, "tcp", (step,))

        return Words

    registry.register_spec(
        SchemeSpec(
            names=("x-words",),
            resolver=resolver_for("x-words-arg"),
            delimiters={"x-words-arg": b" \t"},
        )
    )
    assert policy.DELIMITERS["x-words-arg"] == frozenset(b" \t\r\n\x00")
    omniurl.check("x-words://h/one")
    for text, octet in (("x-words://h/one%20two", 0x20), ("x-words://h/a%0Ab", 0x0A)):
        with pytest.raises(DelimiterRefused) as info:
            omniurl.check(text)
        assert (info.value.component, info.value.octet) == ("word", octet)
    with pytest.raises(ValueError, match="'line' exists with other delimiters"):
        policy.add_context("line", b" ")

    registry.register_spec(SchemeSpec(names=("x-words2",), resolver=resolver_for("x-nowhere")))
    with pytest.raises(ConfigurationError, match="wire context 'x-nowhere', which the policy"):
        omniurl.check("x-words2://h/one")


LEGACY_PLUGIN = """
from omniurl.resolvers import Plan, Resolver, Step


class LegacyResolver(Resolver):
    @classmethod
    def add_arguments(cls, parser):
        parser.add_argument("--legacy-flag")

    def options_from_args(self, args, options):
        return options

    def plan(self, url, options):
        return Plan(url, url.scheme, "h", 9999, "tcp", (Step.line("HELLO"),), explicit_port=True)
"""


async def test_the_cli_says_why_an_older_plugins_flag_is_unrecognized(tmp_path: Path) -> None:
    """An older plugin (an ``omniurl.resolvers`` entry point, found through a distribution
    on the path) with its command-line hooks: its URLs plan, and the command says in one
    line of its own — not Python's file-and-line report — why its flag is refused."""
    import os

    from helpers import run_omniurl

    (tmp_path / "legacy_mod.py").write_text(LEGACY_PLUGIN)
    info = tmp_path / "omniurl_x_legacy-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: omniurl-x-legacy\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[omniurl.resolvers]\nx-legacy = legacy_mod:LegacyResolver\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    warning = (
        b"omniurl: warning: legacy_mod.LegacyResolver (x-legacy:) defines add_arguments and "
        b"options_from_args, which omniurl no longer calls"
    )
    status, out, err = await run_omniurl("plan", "x-legacy:foo", env=env, timeout=60)
    assert status == 0, err
    assert json_steps(out) == ["HELLO"]
    assert err.startswith(warning) and err.count(b"\n") == 1
    status, out, err = await run_omniurl(
        "plan", "--legacy-flag", "1", "x-legacy:foo", env=env, timeout=60
    )
    assert status == 2 and out == b""
    first, *rest = err.splitlines()
    assert first.startswith(warning)
    assert rest[-1] == b"omniurl: error: unrecognized arguments: --legacy-flag"


def json_steps(out: bytes) -> list[str]:
    import json

    steps: list[str] = json.loads(out)["steps"]
    return steps
