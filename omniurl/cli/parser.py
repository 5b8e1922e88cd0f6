"""The argument parser: every subcommand, its help and examples, and the staged parser that
adds the resolvers' options only when ``plan`` or ``get`` needs them."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from omniurl.exitstatus import EXIT_STATUS_HELP

from .arguments import (
    add_batch_arguments,  # noqa: F401 (importable from here, as before)
    add_get_arguments,
    add_resolve_arguments_named,
    add_resolver_arguments,
    add_syntax_arguments,
    names_other_scheme,
)
from .commands import (  # (the same objects: main compares ``args.func`` with ``cmd_get``)
    _lazy,  # noqa: F401 (importable from here, as before)
    cmd_browse,
    cmd_demo,
    cmd_extract,
    cmd_get,  # noqa: F401 (importable from here, as before)
    cmd_join,
    cmd_mirror,
    cmd_parse,
    cmd_plan,
    cmd_serve,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

Command = Callable[[argparse.Namespace], int]


GET_EXAMPLES = """\
examples:
  omniurl get ftp://ftp.example.org/pub/README
      anonymous FTP (RFC 1738 §3.2.1): USER anonymous, your e-mail address as password
  omniurl get -o motd 'ftp://me@host.example/%2Fetc/motd'
      CWD /etc (%2F stays inside its argument); asks for the password on a terminal
  omniurl get --json 'ftp://host.example/pub/'
      a directory listing (MLSD, else LIST) as JSON, each entry with its own URL
  omniurl get -O -v https://example.org/files/report.pdf
      saved as report.pdf (atomically), the conversation shown on stderr
  omniurl plan 'ftp://host.example/pub/file;type=i'
      every command line first, without sending anything
  omniurl get -sf -o /dev/null -w '%{http_code} %{time_total}\\n' https://example.org/
      curl's habits: -f fails on an HTTP error status (exit 22), -w reports each transfer
  omniurl get -o a.txt URL1 -o b.txt URL2 URL3
      -o/-O pair with the URLs in order (URL3 to standard output), options go anywhere
  omniurl get -Z --parallel-max 50 -i urls.txt --output-dir d --manifest m.jsonl
      a batch: 50 transfers at once (at most 6 per server), each saved in d under a
      name of its own, one JSON line per URL in m.jsonl as each finishes

files written with -o/-O appear only once complete (a temporary file is renamed); an
interrupted or failed transfer leaves the previous file, if any, untouched.  A FIFO or a
device (-o /dev/null) is written into directly, never replaced.

a batch (several URLs, -i, -Z) exits 0 when every URL succeeded, else with the status
of the first failure in input order (below; with -Z too, whichever ended first), and
prints the counts on stderr.

"""


class _Parser(argparse.ArgumentParser):
    """An argument parser that adds some of its arguments only when they are needed.

    ``plan`` and ``get`` take every resolver's options: adding them imports every resolver
    package (``omniurl parse`` or ``omniurl --help`` has no use for that, nor a ``get`` of
    one gopher URL), and the plugins' options need the entry points read (~15 ms, which a
    built-in scheme has no use for).  So such a parser is given ``stages`` (each adds
    arguments, given the arguments to parse) and ``wants_more``:

    - before it parses anything, the first stage is run (ours, and the built-in resolvers'
      when the arguments name one of their flags: ``resolvers/builtin.py``'s ``FLAGS``);
    - if that parse leaves an argument unrecognized, or ``wants_more(namespace)`` (a URL of a
      scheme that is not built in), the other stages are run and the arguments parsed again;
    - before it formats its usage or help, every stage is run.

    So what is accepted, what an error says and what ``--help`` shows are what they would be
    had every argument been added up front.  (argparse hands a subcommand's arguments to its
    parser's ``parse_known_args``, with a fresh namespace; subparsers are of their parent's
    class.)
    """

    def __init__(
        self,
        *args: Any,
        stages: Sequence[Callable[[argparse.ArgumentParser, Sequence[str]], None]] = (),
        wants_more: Callable[[argparse.Namespace], bool] | None = None,
        intermixed: str | None = None,
        describe: Callable[[], str] | None = None,
        **kwargs: Any,
    ) -> None:
        # No prefix matching of long options: "--proxy URL" must never be read as another
        # option that starts the same way; every parser (subcommands too) is of this class.
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)
        self._stages = list(stages)
        self._started = False
        self._wants_more = wants_more
        self._intermixed = intermixed
        #: Makes the description when help is shown (it may read the registry), never on
        #: a start that shows none.
        self._describe = describe

    def _run_stages(self, *, every: bool, args: Sequence[str] = ()) -> None:
        while self._stages and (every or not self._started):
            self._started = True
            self._stages.pop(0)(self, args)

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: Any = None
    ) -> tuple[Any, list[str]]:
        args = sys.argv[1:] if args is None else list(args)
        self._run_stages(every=namespace is not None, args=args)
        if self._stages:
            parsed, extras = self._absorb(*super().parse_known_args(args, None))
            if not extras and not (self._wants_more and self._wants_more(parsed)):
                return parsed, extras
            self._run_stages(every=True)
        parsed, extras = self._absorb(*super().parse_known_args(args, namespace))
        if self._intermixed and extras:
            self._unknown_option(extras)
        return parsed, extras

    def _absorb(self, parsed: Any, extras: list[str]) -> tuple[Any, list[str]]:
        """Options anywhere, as curl takes them (``get URL1 -s URL2``): argparse fills a
        ``nargs="*"`` positional from one run of arguments only and leaves the URLs after an
        option as extras; those are the positional's too, in the order given."""
        if not self._intermixed:
            return parsed, extras
        positional = [a for a in extras if not a.startswith("-") or a == "-"]
        if positional:
            setattr(parsed, self._intermixed, [*getattr(parsed, self._intermixed), *positional])
            extras = [a for a in extras if a.startswith("-") and a != "-"]
        return parsed, extras

    def _unknown_option(self, extras: list[str]) -> None:
        """One line for an option ``get`` does not know (often one of curl's), not the
        top-level usage: exit 2."""
        option = extras[0].partition("=")[0]
        sys.stderr.write(
            f"omniurl: {option} is not an option of {self.prog} (curl's options that omniurl "
            f"takes are listed in {self.prog} --help)\n"
        )
        sys.exit(2)

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        # argparse makes a help formatter for every argument (to check a metavar tuple
        # against nargs) and for add_subparsers (the subcommands' "prog"), and a formatter's
        # width is shutil.get_terminal_size(): importing shutil (bz2, lzma with it) cost
        # ~1.5 ms of a start that prints no help.  Neither result depends on the width (the
        # prog is one short line), so they get a fixed one; help and usage get the terminal's.
        self._checking = True
        try:
            return super().add_argument(*args, **kwargs)
        finally:
            self._checking = False

    def add_subparsers(self, **kwargs: Any) -> Any:
        self._checking = True
        try:
            return super().add_subparsers(**kwargs)
        finally:
            self._checking = False

    def _get_formatter(self) -> argparse.HelpFormatter:
        if getattr(self, "_checking", False):
            make: Any = self.formatter_class  # (every HelpFormatter takes a width)
            formatter: argparse.HelpFormatter = make(prog=self.prog, width=80)
            return formatter
        return super()._get_formatter()

    def format_usage(self) -> str:
        self._run_stages(every=True)
        return super().format_usage()

    def format_help(self) -> str:
        self._run_stages(every=True)
        if self._describe is not None:
            self.description, self._describe = self._describe(), None
        return super().format_help()


class _PairedOutput(argparse.Action):
    """``-o FILE`` and ``-O`` in the order given (``args.outputs``: FILE, or None for
    ``-O``), paired with the URLs in order as curl does; ``args.output`` and
    ``args.remote_name`` keep the first of them for the one-URL case."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        given = values if isinstance(values, str) else None
        outputs = [*(getattr(namespace, "outputs", None) or ()), given]
        namespace.outputs = outputs
        first = outputs[0]
        namespace.output = first
        namespace.remote_name = first is None


def _description() -> str:
    """The top-level help's first words: every scheme the registry serves (the built-ins
    and the plugins installed), never a list kept by hand."""
    import textwrap

    return textwrap.fill(
        "Do what a URL says, for every RFC 1738 scheme and those added since: "
        + ", ".join(registered_schemes())
        + " (the schemes registered here, plugins included).  Start with `omniurl demo`.",
        width=88,
    )


def registered_schemes() -> list[str]:
    """The schemes ``resolvers.registry.known()`` would list, read as the registry reads
    them but without importing a resolver (``omniurl --help`` imports none:
    tests/test_startup.py): the built-ins' registration table, ``resolvers/builtin.py``, is
    plain data and is read from its file; the plugins' are the names of their entry points
    (``omniurl.specs``, and the older ``omniurl.resolvers``), not loaded."""
    import importlib.util
    from importlib.metadata import entry_points
    from pathlib import Path

    table = Path(__file__).resolve().parent.parent / "resolvers" / "builtin.py"
    spec = importlib.util.spec_from_file_location("_omniurl_builtin_table", table)
    names: set[str] = set()
    try:
        if spec is None or spec.loader is None:
            raise FileNotFoundError(table)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        names.update(module.SPECS)
    except OSError:  # (an installation without the file as such: ask the registry itself)
        from omniurl.resolvers.registry import known

        return known()
    for group in ("omniurl.specs", "omniurl.resolvers"):
        names.update(ep.name.lower() for ep in entry_points(group=group))
    return sorted(names)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``omniurl`` parser; ``command``: only that subcommand's parser is built, for a
    command line that names it first (the others' parsers are never used then, and building
    all eight cost ~5-10 ms of every start: issue 32 item 3).  What the command accepts,
    prints and refuses is the same either way."""
    parser = _Parser(
        prog="omniurl",
        describe=_description,
        epilog="Examples:\n"
        "  omniurl parse 'ftp://myname@host.dom/%2Fetc/motd'\n"
        "  omniurl plan 'gopher://localhost:7070/7search%09words'\n"
        "  omniurl get -o rfc.txt 'ftp://ftp.example.org/rfc/rfc1738.txt;type=a'\n\n"
        + EXIT_STATUS_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    from omniurl import __version__

    parser.add_argument("--version", action="version", version=f"omniurl {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, add in COMMANDS.items():
        if command is None or command == name:
            add(sub)
    return parser


def _resolve_stages() -> tuple[Callable[[argparse.ArgumentParser, Sequence[str]], None], ...]:
    """plan and get: our options (and the built-in resolvers' when the command line names
    one of their flags), then the built-in resolvers', then the plugins' (see _Parser)."""
    return (
        add_resolve_arguments_named,
        lambda parser, _args: add_resolver_arguments(parser, plugins=False),
        lambda parser, _args: add_resolver_arguments(parser),
    )


def _add_parse(sub: Any) -> None:
    from .text import PARSE_KEYS_HELP  # (its module: parse's own, not every command's)

    p = sub.add_parser(
        "parse",
        help="print each URL's components as JSON",
        description="Parse URLs and print one JSON object per URL, in order: as written today\n"
        "(RFC 3986, IRIs, the successor RFCs) by default, by the letter of RFC 1738 with\n"
        "--rfc1738.  IRIs come out as URIs: UTF-8 %XX, IDNA host names.\n"
        "Scheme names are case-insensitive; unknown schemes (x-...)\n"
        "parse as generic URLs.  Decoded values are text where their octets are UTF-8,\n"
        'with %XX kept for the octets that are not.  Absent parts are null, empty ones "".',
        epilog=PARSE_KEYS_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "urls",
        nargs="+",
        metavar="URL",
        help="the URLs to parse; a single '-' reads one URL per line from standard input",
    )
    add_syntax_arguments(p, lenient=True)
    p.set_defaults(func=cmd_parse)


def _add_join(sub: Any) -> None:
    p = sub.add_parser(
        "join",
        help="resolve relative references against a base URL (RFC 3986 §5 or RFC 1630)",
        description="Print the URL each relative reference REF stands for in the context of\n"
        "BASE, one per line.  RFC 3986 §5 by default; --rfc 1630 applies RFC 1630 §4.1.3,\n"
        "whose multiple-slash rule keeps the context up to the first run of as many\n"
        "slashes as REF starts with.  A fragment (#...) is kept in the output; it is never\n"
        "sent to a server.  RFC 3986 resolves against any base, one without a path\n"
        "hierarchy too (foo:a/b + c/d = foo:a/c/d; RFC 1630 refuses those); a target\n"
        "its scheme does not define (mailto:a@b?x) is printed, and standard error notes\n"
        "what the scheme's parser answers, as omniurl parse would.  An invalid\n"
        'BASE or REF (RFC 3986 §4.1) prints {"error": {...}} naming it and the offset;\n'
        "exit status 2.",
        epilog="Examples:\n"
        "  omniurl join 'http://a/b/c/d;p?q' ../g '?y' '#s'       (http://a/b/g ...)\n"
        "  omniurl join --rfc 1630 'magic://a/b/c//d/e/f' /g //g  (magic://a/g, magic://g)\n",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("base", metavar="BASE", help="the absolute URL of the context")
    p.add_argument("refs", nargs="+", metavar="REF", help="a relative (or absolute) reference")
    p.add_argument(
        "--rfc",
        choices=("3986", "1630"),
        default="3986",
        help="which rules: RFC 3986 §5.2 (default) or RFC 1630 §4.1.3",
    )
    p.add_argument("--rfc1630", action="store_true", help="the same as --rfc 1630")
    p.add_argument(
        "--backward-compatible",
        action="store_true",
        help="RFC 3986 §5.2.2's non-strict reading: 'http:g' against an http: base is "
        "relative (http://a/b/c/g), not the absolute URL 'http:g'",
    )
    p.set_defaults(func=cmd_join)


def _add_extract(sub: Any) -> None:
    p = sub.add_parser(
        "extract",
        help="find the URLs in text (RFC 1738 appendix: <URL:...> wrappers)",
        description="Read text (files, or standard input) and print each URL it contains on\n"
        "a line of its own, exactly as the text means it: <URL:...> and <...> wrappers and\n"
        "the whitespace inserted to break long URLs across lines are removed.  Bare URLs of\n"
        "the RFC 1738 schemes are found too, without the punctuation ending a sentence.\n"
        "A hyphen at a line break may or may not be part of the URL (RFC 1738 appendix):\n"
        "the URL is printed with it, and a note on standard error gives the other reading.",
        epilog="Example:\n"
        "  printf 'see <URL:ftp://ds.in\\n ternic.net/rfc>.\\n' | omniurl extract\n"
        "  ftp://ds.internic.net/rfc\n",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("files", nargs="*", metavar="FILE", help="files to read ('-' or none: stdin)")
    p.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object per URL: url, start, end, wrapper, ambiguous_hyphens, "
        "alternative",
    )
    p.add_argument(
        "--scheme",
        action="append",
        metavar="NAME",
        help="also find bare and <...> URLs of this scheme (repeatable)",
    )
    p.set_defaults(func=cmd_extract)


def _add_plan(sub: Any) -> None:
    p = sub.add_parser(
        "plan",
        help="print the exact protocol steps each URL stands for, as JSON (sends nothing)",
        description="Print the access plan of each URL: where omniurl would connect and each "
        "protocol line exactly as it would be sent (secrets masked).  The safety policy is "
        'applied: a refused URL prints {"error": {...}} with exit status 2.',
        epilog=EXIT_STATUS_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        stages=_resolve_stages(),
        wants_more=names_other_scheme,
    )
    p.add_argument("urls", nargs="+", metavar="URL")
    p.set_defaults(func=cmd_plan)


def _add_get(sub: Any) -> None:
    p = sub.add_parser(
        "get",
        help="do what the URL says: fetch, list, search, post, or open a session",
        description="Resolve a URL: plan it, check the plan against the safety policy, carry "
        "it out, and stream the result to standard output or a file.",
        epilog=GET_EXAMPLES + EXIT_STATUS_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        stages=_resolve_stages(),
        wants_more=names_other_scheme,
        intermixed="urls",
    )
    p.register("action", "paired_output", _PairedOutput)
    add_get_arguments(p)


def _add_mirror(sub: Any) -> None:
    from .mirror import add_mirror_arguments

    p = sub.add_parser(
        "mirror",
        help="copy the tree under a URL into a folder, and keep it current (lftp mirror, wget -m)",
        description="Copy the tree under URL into DIR: an FTP directory, an HTTP directory\n"
        "(autoindex and the links of its pages), a Gopher hole, a capsule of linked\n"
        "documents, a file: folder.\n"
        "Only the same server (host and port) and paths below URL are followed.\n"
        "Run again, only what changed is transferred (FTP size and time, HTTP conditional\n"
        "requests; menus and documents fetched again and written only when they differ).\n"
        "A file appears under its name only once complete; a killed run completes when run\n"
        "again.  DIR/.omniurl-mirror holds the mirror's state.",
        epilog="Examples:\n"
        "  omniurl mirror ftp://ftp.example.org/pub/ pub/        (lftp -e 'mirror /pub pub')\n"
        "  omniurl mirror http://h/dir/ dir/ --delete             (wget -m -np http://h/dir/)\n"
        "  omniurl mirror gopher://h/1/ hole/ --warc hole.warc.gz\n\n" + EXIT_STATUS_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        stages=_resolve_stages(),
        wants_more=names_other_scheme,
    )
    add_mirror_arguments(p)
    p.set_defaults(func=cmd_mirror)


def _add_browse(sub: Any) -> None:
    p = sub.add_parser(
        "browse",
        help="walk menus, directories, groups and texts in the terminal, lynx's keys "
        "(pip install 'omniurl[browse]')",
        description="A terminal browser for every scheme: listings as pages of links, texts\n"
        "wrapped with their URLs as links; every link is checked by the policy before\n"
        "anything is sent (a refusal is shown with its rule).\n\n"
        "Keys (lynx's): arrows or j/k move, Enter or right follows, left or h goes back,\n"
        "g opens a URL, / searches the page, n finds the next hit, = shows the link's URL,\n"
        "p its plan (nothing sent), \\ the source, d downloads, a adds a bookmark, v shows\n"
        "them, Backspace the history, Esc cancels a fetch, ? lists every key, q or Q quits.\n"
        "History and bookmarks: $XDG_DATA_HOME/omniurl.",
        epilog="Examples:\n  omniurl browse gopher://127.0.0.1:7070/1/\n  omniurl browse",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("url", nargs="?", metavar="URL", help="the page to open first")
    p.add_argument("--smtp", metavar="HOST[:PORT]", help="send composed mail through this relay")
    p.set_defaults(func=cmd_browse)


def _add_serve(sub: Any) -> None:
    from omniurl.testservers import catalog

    servers = dict(
        sorted(
            {
                **catalog.builtin(),
                "gateway": "every RFC 1738 scheme in a web browser, and a gopher/ftp/wais/nntp "
                "proxy for lynx and curl (strict policy; pip install 'omniurl[gateway]')",
            }.items()
        )
    )
    p = sub.add_parser(
        "serve",
        help="run a local test server (" + ", ".join(servers) + ")",
        description="Run one of omniurl's local protocol servers in the foreground.\n\n"
        + "\n".join(f"  {name:10} {text}" for name, text in servers.items())
        + "\n\nNAME may also be a scheme: the test server its spec declares (a plugin's too).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("name", metavar="NAME", help="a server above, or a scheme")
    p.add_argument(
        "--root", default=".", help="the directory to serve (default: the current directory)"
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind (127.0.0.1)")
    p.add_argument("--port", type=int, default=0, help="port (0: any free port)")
    p.add_argument(
        "--tls",
        action="store_true",
        help="gopher, ftp, nntp: speak TLS with a throw-away certificate (gophers:, ftps: "
        "implicit, nntp STARTTLS; its CA is written to a file to pass to --cacert)",
    )
    gw = p.add_argument_group("gateway")
    gw.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="HOST",
        help="let URLs name this host although it resolves to a loopback or private "
        "address (the gateway's policy is --strict); repeatable",
    )
    gw.add_argument(
        "--allow-port",
        action="append",
        default=[],
        type=int,
        metavar="N",
        help="let URLs name this port although it is not the scheme's default; repeatable",
    )
    gw.add_argument("--smtp", metavar="HOST[:PORT]", help="send mailto: forms through this relay")
    gw.add_argument(
        "--max-concurrent", type=int, default=64, metavar="N", help="URLs resolved at once (64)"
    )
    gw.add_argument(
        "--max-per-client",
        type=int,
        default=8,
        metavar="N",
        help="URLs resolved at once for one client address; beyond it, 429 (8)",
    )
    gw.add_argument(
        "--head-timeout",
        type=float,
        default=10.0,
        metavar="S",
        help="seconds a client has to send a whole request head; then 408 and closed (10)",
    )
    gw.add_argument(
        "--max-connections-per-client",
        type=int,
        default=32,
        metavar="N",
        help="connections one client address may hold open; beyond it, 429 and closed (32)",
    )
    a = p.add_argument_group("adversary")
    a.add_argument(
        "--mode",
        help="how the adversary server misbehaves: " + ", ".join(catalog.ADVERSARY_MODES),
    )
    a.add_argument("--count", type=int, help="entries of a huge listing (10000000)")
    a.add_argument("--interval", type=float, help="seconds between trickled bytes (1.5)")
    p.set_defaults(func=cmd_serve)


def _add_demo(sub: Any) -> None:
    p = sub.add_parser(
        "demo",
        help="start every local server, resolve one URL per scheme, show plan and outcome",
        description="A tour of omniurl that needs no network: build sample files in a\n"
        "temporary folder, start omniurl's own servers on loopback, then for a few URLs\n"
        "of each scheme print the URL, its plan (the protocol lines it stands for) and\n"
        "what resolving it gave.  Everything is shut down and removed at the end.",
        epilog="Examples:\n  omniurl demo\n  omniurl demo --only ftp --only gopher",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--only",
        action="append",
        metavar="SCHEME",
        help="show only this scheme (repeat for several; default: every scheme)",
    )
    p.set_defaults(func=cmd_demo)


#: Each subcommand's parser, in the order ``--help`` lists them.
COMMANDS: dict[str, Callable[[Any], None]] = {
    "parse": _add_parse,
    "join": _add_join,
    "extract": _add_extract,
    "plan": _add_plan,
    "get": _add_get,
    "mirror": _add_mirror,
    "browse": _add_browse,
    "serve": _add_serve,
    "demo": _add_demo,
}


#: Optional imports of our dependencies that the command never uses, each made by its
#: importer inside ``try: ... except ImportError``: httpx imports its own command line
