"""The ``omniurl`` command line.

Subcommands: ``parse``, ``join``, ``extract`` (pure, from ``schemes``); ``plan``, ``get``
(from ``resolvers``); ``serve`` and ``demo`` (from ``testservers``).  JSON output of ``parse``
and ``plan`` is a contract other programs rely on: its keys never change.

Start-up time is part of every command's time (``omniurl get`` is measured against curl), so
this module imports only what ``parse`` needs; ``resolvers`` (and asyncio) are imported when
``plan`` or ``get`` runs, their options are added to those subcommands only when one of them
is used (or its ``--help`` shown, complete), and ``get`` imports the planner and executor of
its URL's scheme alone (see resolvers/lazy.py).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import json
import os
import sys
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from omniurl import schemes
from omniurl.schemes.errors import OmniurlError, URLError

if TYPE_CHECKING:
    from pathlib import Path

    from omniurl.resolvers.options import Options
    from omniurl.resolvers.resource import Resource

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_REFUSED = 2  # invalid URL, bad usage, or refused by the safety policy: nothing was sent
EXIT_UNSUPPORTED = 3  # no resolver, missing configuration, input needed
EXIT_TRANSPORT = 4  # could not connect, timed out, connection closed early
EXIT_REPLY = 5  # the server refused (not found, HTTP error status, Gopher error item)
EXIT_PROTOCOL = 6  # the server broke the protocol or a limit
EXIT_AUTH = 7  # credentials missing or refused
EXIT_INTERRUPTED = 130

EXIT_STATUS_HELP = """\
exit status:
  0  success
  1  any other failure
  2  the URL is invalid or names nothing omniurl can do, or the safety policy
     refused it (nothing was sent)
  3  no resolver for the scheme, configuration missing, or input needed
  4  network failure: cannot connect, timed out, connection closed early
  5  the server refused: not found, HTTP error status, Gopher error item
  6  the server broke the protocol (or exceeded a size limit)
  7  credentials missing or refused
130  interrupted
"""


PARSE_KEYS_HELP = """\
keys (every object has "scheme" and "fragment"):
  network schemes  user, password, host, port (explicit or null), default_port
  ftp       cwd (list: one CWD each, "" = a null-argument CWD), name, typecode (a/i/d/null)
  http(s)   path, search (both still encoded, as sent on the wire)
  gopher    gtype ("1" when the path is empty), selector, search, gopher_plus
  mailto    address, headers (list of [name, value], RFC 6068)
  news      newsgroup ("*" = all groups), message_id (without <>)
  nntp      newsgroup, article (a number or null)
  telnet    trailing_slash (user and password are advisory only, RFC 1738 §3.8)
  wais      database, search, wtype, wpath
  file      host ("", "localhost" or a name), path (decoded, "/" first)
  prospero  hsoname, fields (list of [name, value]), version (RFC 1630 %00)
  mid       message_id, content_id       cid  content_id       urn  nid, nss
  other     scheme_specific_part (as written)
errors:
  {"error": {"type": "PortError", "message": ..., "component": "port", "offset": 9}}
  component names the part to blame and offset the character where it starts;
  the exit status is 2 if any URL failed.

examples:
  omniurl parse 'ftp://myname@host.dom//etc/motd;type=a'
  omniurl parse 'gopher://localhost:7070/7search%09words'
  printf '%s\\n' URL1 URL2 | omniurl parse -
"""


GET_EXAMPLES = """\
examples:
  omniurl get ftp://ftp.example.org/pub/README
      anonymous FTP (RFC 1738 §3.2.1): USER anonymous, your e-mail address as password
  omniurl get -o motd 'ftp://me@host.example/%2Fetc/motd'
      CWD /etc (%2F stays inside its argument); asks for the password on a terminal
  omniurl get --json 'ftp://host.example/pub/'
      a directory listing (NLST) as JSON, each entry with its own URL
  omniurl get -O -v https://example.org/files/report.pdf
      saved as report.pdf (atomically), the conversation shown on stderr
  omniurl plan 'ftp://host.example/pub/file;type=i'
      every command line first, without sending anything

files written with -o/-O appear only once complete (a temporary file is renamed); an
interrupted or failed transfer leaves the previous file, if any, untouched.  A FIFO or a
device (-o /dev/null) is written into directly, never replaced.

"""


def exit_status(exc: BaseException) -> int:
    """The documented exit status for an error."""
    from omniurl.resolvers.errors import (
        AuthError,
        ConfigurationError,
        InputNeeded,
        PlanError,
        PolicyError,
        ProtocolError,
        ReplyError,
        TransportError,
        UnsupportedScheme,
    )

    for cls, status in (
        (URLError, EXIT_REFUSED),
        (PolicyError, EXIT_REFUSED),
        (UnsupportedScheme, EXIT_UNSUPPORTED),
        (ConfigurationError, EXIT_UNSUPPORTED),
        (InputNeeded, EXIT_UNSUPPORTED),
        (PlanError, EXIT_REFUSED),
        (TransportError, EXIT_TRANSPORT),
        (ReplyError, EXIT_REPLY),
        (ProtocolError, EXIT_PROTOCOL),
        (AuthError, EXIT_AUTH),
    ):
        if isinstance(exc, cls):
            return status
    return EXIT_FAILURE


def _print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")


def _error_json(exc: OmniurlError) -> dict[str, Any]:
    return {"error": exc.to_json()}


# -- parse / join / extract ----------------------------------------------------------------


def cmd_parse(args: argparse.Namespace) -> int:
    """One JSON object per URL (the contract in PARSE_KEYS_HELP); exit 2 if any failed."""
    status = EXIT_OK
    texts: Iterable[str] = args.urls
    if args.urls == ["-"]:
        texts = (line.rstrip("\r\n") for line in sys.stdin)
    for text in texts:
        try:
            _print_json(schemes.parse(text, strict=not args.lenient).to_json())
        except URLError as exc:
            _print_json(_error_json(exc))
            status = EXIT_REFUSED
    return status


def cmd_join(args: argparse.Namespace) -> int:
    """Print the target of each reference, one per line (an error prints JSON, status 2)."""
    rfc: Literal["3986", "1630"] = "1630" if args.rfc1630 or args.rfc == "1630" else "3986"
    status = EXIT_OK
    for ref in args.refs:
        try:
            print(schemes.join(args.base, ref, rfc=rfc, strict=not args.backward_compatible))
        except URLError as exc:
            _print_json(_error_json(exc))
            status = EXIT_REFUSED
    return status


def _read_inputs(paths: Sequence[str]) -> list[tuple[str, str]]:
    """(name, text) of each input: files as UTF-8 (undecodable bytes kept), or standard input."""
    from pathlib import Path

    if not paths:
        paths = ["-"]
    out = []
    for path in paths:
        if path == "-":
            raw = getattr(sys.stdin, "buffer", None)
            text = raw.read().decode("utf-8", "surrogateescape") if raw else sys.stdin.read()
            out.append(("<stdin>", text))
        else:
            out.append((path, Path(path).read_text(encoding="utf-8", errors="surrogateescape")))
    return out


def cmd_extract(args: argparse.Namespace) -> int:
    """Print each URL on a line of its own, as the text means it (RFC 1738 appendix)."""
    try:
        inputs = _read_inputs(args.files)
    except OSError as exc:
        sys.stderr.write(f"omniurl: {exc}\n")
        return EXIT_FAILURE
    if isinstance(sys.stdout, io.TextIOWrapper):
        # octets that were not UTF-8 in the input go out as they came in
        sys.stdout.reconfigure(errors="surrogateescape")
    for name, text in inputs:
        for found in schemes.extract(text, schemes=args.scheme or ()):
            if args.json:
                _print_json({"input": name, **found.to_json()})
                continue
            print(found.url)
            if found.ambiguous:
                line = text.count("\n", 0, found.start) + 1
                sys.stderr.write(
                    f"omniurl: {name}:{line}: a hyphen ends a line inside {found.url}; it may "
                    "not be part of the URL (RFC 1738 appendix); without it: "
                    f"{found.without_break_hyphens}\n"
                )
    return EXIT_OK


# -- options shared by plan and get --------------------------------------------------------


def _parse_resolve(spec: str) -> tuple[tuple[str, int | None], tuple[str, int | None]]:
    """``HOST[:PORT]:ADDR[:PORT]`` (curl's ``--resolve``), parsed by the library's own
    :func:`resolvers.options.parse_resolve` (imported only when the option is used)."""
    from omniurl.resolvers.errors import ConfigurationError
    from omniurl.resolvers.options import parse_resolve

    try:
        return parse_resolve(spec)
    except ConfigurationError as exc:
        raise argparse.ArgumentTypeError(f"--{exc.message}") from None


def add_resolve_arguments(parser: argparse.ArgumentParser, *, plugins: bool = True) -> None:
    """The options of ``plan`` and ``get``: ours, then every resolver's (``plugins=False``:
    the built-in resolvers' only, without reading the entry points; see :class:`_Parser`)."""
    g = parser.add_argument_group("safety and connection")
    g.add_argument(
        "--strict",
        action="store_true",
        help="the strict policy for untrusted URLs: default ports only, public addresses "
        "only, no file:, no scheme change on redirect",
    )
    g.add_argument(
        "--allow-port",
        metavar="N",
        type=int,
        action="append",
        default=[],
        help="allow an explicit port the policy refuses (reserved below 1024, or a known "
        "cross-protocol target such as 6379); repeatable",
    )
    g.add_argument(
        "--resolve",
        metavar="HOST[:PORT]:ADDR[:PORT]",
        type=_parse_resolve,
        action="append",
        default=[],
        help="connect to ADDR (and PORT) whenever the URL names HOST (and PORT), like curl",
    )
    g.add_argument("--connect-timeout", type=float, default=10.0, metavar="S", help="seconds (10)")
    g.add_argument("--timeout", type=float, default=30.0, metavar="S", help="seconds per read (30)")
    g.add_argument(
        "--email",
        help="e-mail address sent as the anonymous FTP password (default: $EMAIL)",
    )
    g.add_argument("--no-follow", action="store_true", help="do not follow redirects")
    g.add_argument("--insecure", action="store_true", help="do not verify TLS certificates")
    g.add_argument(
        "--proxy-env",
        action="store_true",
        help="use proxies from the environment (HTTP_PROXY...); off by default",
    )
    add_resolver_arguments(parser, plugins=plugins)


def add_resolver_arguments(parser: argparse.ArgumentParser, *, plugins: bool = True) -> None:
    """Each resolver's own options (``--smtp``, ``--login``...), once per class; the classes
    whose options the parser has go into the namespace as ``resolver_classes``, so that
    :func:`options_from_args` asks exactly those.  A resolver package's ``__init__`` is cheap
    (resolvers/lazy.py): this imports no planner, no executor."""
    from omniurl.resolvers import registry

    added: list[Any] = list(parser.get_default("resolver_classes") or ())
    for cls in registry.all_classes(plugins=plugins):
        if cls not in added:
            cls.add_arguments(parser)
            added.append(cls)
    parser.set_defaults(resolver_classes=tuple(added))


def _names_other_scheme(args: argparse.Namespace) -> bool:
    """Whether a URL given to ``plan``/``get`` is of a scheme no built-in resolver handles
    (a plugin's, whose resolver may take options of its own)."""
    from omniurl.resolvers.registry import BUILTIN_SCHEMES

    urls = getattr(args, "urls", None) or [getattr(args, "url", "")]
    return any(url.partition(":")[0].lower() not in BUILTIN_SCHEMES for url in urls)


async def _terminal_ask(prompt: str, secret: bool = False) -> str:
    """Ask the person at the terminal (used by resolvers through ``Options.ask``)."""
    import asyncio

    if secret:
        import getpass

        return await asyncio.to_thread(getpass.getpass, prompt)
    sys.stderr.write(prompt)
    sys.stderr.flush()
    line = await asyncio.to_thread(sys.stdin.readline)
    return line.rstrip("\n")


def _netrc_credentials() -> dict[str, tuple[str, str]]:
    import netrc

    try:
        rc = netrc.netrc()
    except (FileNotFoundError, netrc.NetrcParseError, OSError):
        return {}
    creds: dict[str, tuple[str, str]] = {}
    for host, (login, _account, password) in rc.hosts.items():
        if login and password is not None:
            creds[host.lower()] = (login, password)
    return creds


def options_from_args(args: argparse.Namespace) -> Options:
    from omniurl.resolvers import registry
    from omniurl.resolvers.options import Options
    from omniurl.resolvers.policy import PRESETS

    policy = PRESETS["strict" if args.strict else "default"].allowing_ports(args.allow_port)
    # mailto header fields the caller lets a URL set (--allow-header, resolvers.mailto).
    policy = policy.allowing_mail_headers(getattr(args, "allow_header", None) or ())
    extra: dict[str, Any] = {}
    classes = getattr(args, "resolver_classes", None)
    for cls in registry.all_classes() if classes is None else classes:
        extra.update(cls.options_from_args(args))
    kw: dict[str, Any] = {}
    if args.email:
        kw["email"] = args.email
    verbose = getattr(args, "verbose", False)
    return Options(
        policy=policy,
        connect_timeout=args.connect_timeout,
        read_timeout=args.timeout,
        resolve=dict(args.resolve),
        credentials=_netrc_credentials(),
        ask=_terminal_ask if sys.stdin.isatty() else None,
        transcript=_stderr_transcript if verbose else None,
        follow=not args.no_follow,
        verify_tls=not args.insecure,
        trust_env=args.proxy_env,
        extra=extra,
        **kw,
    )


def _stderr_transcript(direction: str, text: str) -> None:
    sys.stderr.write(f"{direction} {text}\n")
    sys.stderr.flush()


# -- plan ------------------------------------------------------------------------------------


def cmd_plan(args: argparse.Namespace) -> int:
    from omniurl.resolvers import check

    options = options_from_args(args)
    status = EXIT_OK
    for text in args.urls:
        try:
            _print_json(check(text, options).to_json())
        except OmniurlError as exc:
            _print_json(_error_json(exc))
            status = max(status, exit_status(exc))
    return status


# -- get -------------------------------------------------------------------------------------


def cmd_get(args: argparse.Namespace) -> int:
    import asyncio

    options = options_from_args(args)
    try:
        return asyncio.run(_get(args, options))
    except KeyboardInterrupt:
        sys.stderr.write("omniurl: interrupted\n")
        return EXIT_INTERRUPTED


async def _get(args: argparse.Namespace, options: Options) -> int:
    from omniurl.resolvers import registry, resolve

    try:
        url = schemes.parse(args.url)
        # Input a URL lacks (search words, form fields, a password) is asked for by the
        # resolvers themselves through ``options.ask``, which is the terminal here.
        resource = await resolve(url, options)
    except OmniurlError as exc:
        return _report(args, exc)
    async with resource:
        try:
            resolver = registry.get(resource.url.scheme)
            presented = await resolver.present(resource, args)
            if presented is not None:
                return presented
            if resource.kind == "listing" and _output_path(args, resource) is not None:
                await _write_content(args, resource, _listing_lines(resource))
            elif resource.kind == "listing":
                _show_listing(args, resource)
            elif resource.kind == "session":
                sys.stderr.write("omniurl: this resolver opened a session it cannot show\n")
                return EXIT_FAILURE
            else:
                await _write_content(args, resource)
        except OmniurlError as exc:
            return _report(args, exc)
    if args.json:
        _print_json(resource.describe())
    return EXIT_OK


def _report(args: argparse.Namespace, exc: OmniurlError) -> int:
    if getattr(args, "json", False):
        _print_json(_error_json(exc))
    else:
        sys.stderr.write(f"omniurl: {exc}\n")
    return exit_status(exc)


def _show_listing(args: argparse.Namespace, resource: Resource) -> None:
    if args.json:
        return  # describe() at the end carries the entries
    if sys.stdout.isatty():
        from rich.console import Console
        from rich.table import Table
        from rich.text import Text

        # Text(): names and URLs come from the server, never rich markup ("[/]" would raise,
        # "[link=...]" forge a hyperlink).
        table = Table(title=Text(str(resource.url)), show_lines=False)
        table.add_column("kind")
        table.add_column("name")
        table.add_column("url", overflow="fold")
        for e in resource.entries:
            table.add_row(Text(e.kind), Text(e.name), Text(e.url or ""))
        Console().print(table)
    else:
        for e in resource.entries:
            sys.stdout.write(f"{e.kind}\t{e.name}\t{e.url or ''}\n")


class OutputError(OmniurlError):
    """The content arrived but cannot be written where ``-o``/``-O`` says (no such folder, a
    folder in the way, a full disk): exit status 1, never a traceback."""


def _output_failed(path: Path, exc: OSError) -> OutputError:
    return OutputError(f"cannot write {path}: {exc.strerror or exc}", component="output")


def _output_path(args: argparse.Namespace, resource: Resource) -> Path | None:
    from pathlib import Path

    if args.output:
        return Path(args.output)
    if args.remote_name:
        name = str(resource.url).rstrip("/").rsplit("/", 1)[-1].split(";", 1)[0]
        name = name.split("?", 1)[0] or "index"
        return Path(os.path.basename(name))
    return None


async def _listing_lines(resource: Resource) -> AsyncIterator[bytes]:
    """A listing as ``_show_listing`` prints it when stdout is no terminal (for ``-o``)."""
    for e in resource.entries:
        yield f"{e.kind}\t{e.name}\t{e.url or ''}\n".encode("utf-8", "surrogateescape")


async def _write_content(
    args: argparse.Namespace, resource: Resource, chunks: AsyncIterable[bytes] | None = None
) -> None:
    """Stream the body (or ``chunks``) to stdout or to a file, atomically: a temporary file in
    the same folder, renamed over the target only once the transfer completed."""
    path = _output_path(args, resource)
    source: AsyncIterable[bytes] = resource if chunks is None else chunks
    if path is None and args.json:
        # stdout carries the metadata JSON: the content is read (to know it arrived whole)
        # and counted, not printed.
        async for _chunk in resource:
            pass
        resource.metadata["bytes"] = resource.bytes_read
        return
    if path is None:
        out = sys.stdout.buffer
        # Content redirected to a file or pipe while a person watches stderr: show progress
        # (as curl does); never when the content itself goes to the terminal.
        bar = _Progress(resource) if sys.stderr.isatty() and not sys.stdout.isatty() else None
        try:
            async for chunk in resource:
                out.write(chunk)
                if bar:
                    bar.update()
            out.flush()
        except BrokenPipeError:
            raise  # the reader went away (| head): main() ends quietly
        except OSError as exc:  # a full disk behind a redirection
            raise OutputError(
                f"cannot write standard output: {exc.strerror or exc}", component="output"
            ) from None
        finally:
            if bar:
                bar.stop()
        return
    if _is_special(path):
        await _write_special(path, resource, source)
        return
    import tempfile
    from pathlib import Path

    folder = path.parent if str(path.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=folder)
    except OSError as exc:
        raise _output_failed(path, exc) from None
    progress = _Progress(resource) if sys.stderr.isatty() else None
    written = 0
    try:
        try:
            with os.fdopen(fd, "wb") as fh:
                async for chunk in source:  # resources raise typed errors, never OSError
                    fh.write(chunk)
                    written += len(chunk)
                    if progress:
                        progress.update()
        except OSError as exc:  # the write or the final flush (a full disk)
            raise _output_failed(path, exc) from None
        # mkstemp made the file private (0600); give it the mode a new file normally gets.
        umask = os.umask(0)
        os.umask(umask)
        try:
            os.chmod(tmp, 0o666 & ~umask)
            os.replace(tmp, path)
        except OSError as exc:
            raise _output_failed(path, exc) from None
        resource.metadata["bytes"] = written
        resource.metadata["output"] = str(path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    finally:
        if progress:
            progress.stop()


def _is_special(path: Path) -> bool:
    """A FIFO or a device (``-o /dev/null``): written into, never replaced by a file."""
    import stat

    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode) or stat.S_ISBLK(mode)


async def _write_special(path: Path, resource: Resource, source: AsyncIterable[bytes]) -> None:
    """Stream into a FIFO or a device as it is: there is no file to swap in atomically."""
    written = 0
    try:
        with open(path, "wb") as fh:
            async for chunk in source:  # resources raise typed errors, never OSError
                fh.write(chunk)
                written += len(chunk)
    except OSError as exc:
        raise _output_failed(path, exc) from None
    resource.metadata["bytes"] = written
    resource.metadata["output"] = str(path)


class _Progress:
    """A rich progress bar fed from ``Resource.bytes_read`` (size when known)."""

    def __init__(self, resource: Resource) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            Progress,
            TransferSpeedColumn,
        )

        self.resource = resource
        self.progress = Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            DownloadColumn(),
            TransferSpeedColumn(),
            transient=True,
            # stderr: stdout may be carrying the content itself.
            console=Console(stderr=True),
        )
        self.task = self.progress.add_task(str(resource.url)[-40:], total=resource.size)
        self.progress.start()

    def update(self) -> None:
        self.progress.update(self.task, completed=self.resource.bytes_read)

    def stop(self) -> None:
        self.progress.stop()


# -- serve / demo ----------------------------------------------------------------------------


def cmd_serve(args: argparse.Namespace) -> int:
    import asyncio
    from pathlib import Path

    from omniurl import testservers

    async def run() -> None:
        server = await testservers.start(args.name, Path(args.root), host=args.host, port=args.port)
        sys.stderr.write(
            f"omniurl: {args.name} server on {server.transport} {server.netloc}, serving "
            f"{args.root}; Ctrl-C stops it\n"
        )
        try:
            await asyncio.Event().wait()
        finally:
            await server.close()

    try:
        asyncio.run(run())
    except KeyboardInterrupt:
        return EXIT_OK
    return EXIT_OK


def cmd_demo(args: argparse.Namespace) -> int:
    import asyncio

    from omniurl.demo import run_demo

    return asyncio.run(run_demo(only=args.only))


# -- the parser ------------------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    """An argument parser that adds some of its arguments only when they are needed.

    ``plan`` and ``get`` take every resolver's options: adding them imports every resolver
    package (``omniurl parse`` or ``omniurl --help`` has no use for that), and the plugins'
    options need the entry points read (~15 ms, which a built-in scheme has no use for).  So
    such a parser is given ``stages`` (each adds arguments) and ``wants_more``:

    - before it parses anything, the first stage is run (ours and the built-in resolvers');
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
        stages: Sequence[Callable[[argparse.ArgumentParser], None]] = (),
        wants_more: Callable[[argparse.Namespace], bool] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self._stages = list(stages)
        self._started = False
        self._wants_more = wants_more

    def _run_stages(self, *, every: bool) -> None:
        while self._stages and (every or not self._started):
            self._started = True
            self._stages.pop(0)(self)

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: Any = None
    ) -> tuple[Any, list[str]]:
        self._run_stages(every=namespace is not None)
        if self._stages:
            args = sys.argv[1:] if args is None else list(args)
            parsed, extras = super().parse_known_args(args, None)
            if not extras and not (self._wants_more and self._wants_more(parsed)):
                return parsed, extras
            self._run_stages(every=True)
        return super().parse_known_args(args, namespace)

    def format_usage(self) -> str:
        self._run_stages(every=True)
        return super().format_usage()

    def format_help(self) -> str:
        self._run_stages(every=True)
        return super().format_help()


def build_parser() -> argparse.ArgumentParser:
    from omniurl.testservers import catalog

    parser = _Parser(
        prog="omniurl",
        description="Do what a URL says, for every RFC 1738 scheme: ftp, http(s), gopher, "
        "mailto, news, nntp, telnet, wais, file, prospero.  Start with `omniurl demo`.",
        epilog="Examples:\n"
        "  omniurl parse 'ftp://myname@host.dom/%2Fetc/motd'\n"
        "  omniurl plan 'gopher://localhost:7070/7search%09words'\n"
        "  omniurl get -o rfc.txt 'ftp://ftp.example.org/rfc/rfc1738.txt;type=a'\n\n"
        + EXIT_STATUS_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    # plan and get: our options and the built-in resolvers', then the plugins' (see _Parser).
    resolve_stages = (
        functools.partial(add_resolve_arguments, plugins=False),
        add_resolver_arguments,
    )

    p = sub.add_parser(
        "parse",
        help="print each URL's components as JSON",
        description="Parse URLs exactly as RFC 1738 defines them and print one JSON object\n"
        "per URL, in order.  Scheme names are case-insensitive; unknown schemes (x-...)\n"
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
    p.add_argument(
        "--lenient",
        action="store_true",
        help="accept what real-world text often holds and RFC 1738 refuses: unencoded "
        "unsafe characters (encoded on the way in for http), a '%%' that starts no escape, "
        "user:password in http, file:/path",
    )
    p.set_defaults(func=cmd_parse)

    p = sub.add_parser(
        "join",
        help="resolve relative references against a base URL (RFC 3986 §5 or RFC 1630)",
        description="Print the URL each relative reference REF stands for in the context of\n"
        "BASE, one per line.  RFC 3986 §5 by default; --rfc 1630 applies RFC 1630 §4.1.3,\n"
        "whose multiple-slash rule keeps the context up to the first run of as many\n"
        "slashes as REF starts with.  A fragment (#...) is kept in the output; it is never\n"
        'sent to a server.  An invalid BASE or REF prints {"error": {...}}; exit status 2.',
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

    p = sub.add_parser(
        "plan",
        help="print the exact protocol steps each URL stands for, as JSON (sends nothing)",
        description="Print the access plan of each URL: where omniurl would connect and each "
        "protocol line exactly as it would be sent (secrets masked).  The safety policy is "
        'applied: a refused URL prints {"error": {...}} with exit status 2.',
        epilog=EXIT_STATUS_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        stages=resolve_stages,
        wants_more=_names_other_scheme,
    )
    p.add_argument("urls", nargs="+", metavar="URL")
    p.set_defaults(func=cmd_plan)

    p = sub.add_parser(
        "get",
        help="do what the URL says: fetch, list, search, post, or open a session",
        description="Resolve a URL: plan it, check the plan against the safety policy, carry "
        "it out, and stream the result to standard output or a file.",
        epilog=GET_EXAMPLES + EXIT_STATUS_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        stages=resolve_stages,
        wants_more=_names_other_scheme,
    )
    p.add_argument("url", metavar="URL")
    out = p.add_mutually_exclusive_group()
    out.add_argument("-o", "--output", metavar="FILE", help="write the content to FILE")
    out.add_argument(
        "-O", "--remote-name", action="store_true", help="write to a file named like the URL's"
    )
    p.add_argument(
        "-v", "--verbose", action="store_true", help="show the protocol conversation on stderr"
    )
    p.add_argument("--json", action="store_true", help="print metadata (or a listing) as JSON")
    p.set_defaults(func=cmd_get)

    servers = catalog.builtin()
    p = sub.add_parser(
        "serve",
        help="run a local test server (" + ", ".join(servers) + ")",
        description="Run one of omniurl's local protocol servers in the foreground.\n\n"
        + "\n".join(f"  {name:10} {text}" for name, text in servers.items()),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("name", choices=sorted(servers), metavar="NAME")
    p.add_argument("--root", required=True, help="the directory to serve")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (127.0.0.1)")
    p.add_argument("--port", type=int, default=0, help="port (0: any free port)")
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser(
        "demo",
        help="start every local server, resolve one URL per scheme, show plan and outcome",
    )
    p.add_argument("--only", action="append", metavar="SCHEME", help="only these schemes")
    p.set_defaults(func=cmd_demo)
    return parser


#: Optional imports of our dependencies that the command never uses, each made by its
#: importer inside ``try: ... except ImportError``: httpx imports its own command line
#: (``httpx._main``: click, rich, pygments, ~30 ms) and httpcore imports trio when it is
#: installed (~40 ms; omniurl runs on asyncio).  Together they cost more than an HTTP GET.
UNUSED_OPTIONAL_IMPORTS = ("httpx._main", "trio")


def _skip_unused_optional_imports() -> None:
    """Tell Python the modules of :data:`UNUSED_OPTIONAL_IMPORTS` are absent (a ``None`` entry
    in ``sys.modules`` makes their import raise ImportError), unless already imported.  Only
    for the ``omniurl`` process itself: never inside a program that calls ``main([...])``."""
    for name in UNUSED_OPTIONAL_IMPORTS:
        sys.modules.setdefault(name, None)  # type: ignore[arg-type]


def main(argv: Sequence[str] | None = None) -> int:
    """The ``omniurl`` command; ``argv`` (default ``sys.argv[1:]``) without the program name."""
    if argv is None:
        _skip_unused_optional_imports()
    parser = build_parser()
    args = parser.parse_args(argv)
    if argv is None and args.func is cmd_get:
        from omniurl.resolvers.options import Options

        from .memory import tune_for_transfers

        tune_for_transfers(Options.chunk_size)
    try:
        return int(args.func(args))
    except BrokenPipeError:
        return EXIT_OK
