"""The options ``plan`` and ``get`` share (ours and every resolver's), and the
:class:`~omniurl.resolvers.options.Options` they make.  Resolver modules are imported only
when these run, never for ``parse``."""

from __future__ import annotations

import sys
from collections.abc import Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any

    from omniurl.resolvers.options import Options
    from omniurl.resolvers.spec import SchemeSpec


def _parse_resolve(spec: str) -> tuple[tuple[str, int | None], tuple[str, int | None]]:
    """``HOST[:PORT]:ADDR[:PORT]`` (curl's ``--resolve``), parsed by the library's own
    :func:`resolvers.options.parse_resolve` (imported only when the option is used)."""
    from omniurl.resolvers.errors import ConfigurationError
    from omniurl.resolvers.options import parse_resolve

    try:
        return parse_resolve(spec)
    except ConfigurationError as exc:
        import argparse

        raise argparse.ArgumentTypeError(f"--{exc.message}") from None


def add_syntax_arguments(parser: argparse.ArgumentParser, *, lenient: bool = False) -> None:
    """How URL text is read (schemes.rfc3986): RFC 3986 by default, ``--rfc1738`` for the
    letter of RFC 1738 (and, for ``parse``, ``--lenient`` for text found in the wild)."""
    g = parser.add_argument_group(
        "URL syntax",
        "By default URLs are read as written today: RFC 3986, IRIs (RFC 3987) and the "
        "successor RFCs of each scheme (gopher 4266, news 5538, file 8089, mailto 6068, "
        "IPv6 zone ids 6874), with each scheme's meaning from RFC 1738.  This is about how "
        "a URL is written; --strict is about where it may go.",
    )
    m = g.add_mutually_exclusive_group()
    m.add_argument(
        "--rfc1738",
        dest="syntax",
        action="store_const",
        const="rfc1738",
        default="rfc3986",
        help="read URLs by the letter of RFC 1738 (refuses '~', '/' in a query, IRIs, ...), "
        "with its exact error messages: for validating URLs",
    )
    if lenient:
        m.add_argument(
            "--lenient",
            dest="syntax",
            action="store_const",
            const="lenient",
            help="accept what real-world text often holds and RFC 3986 refuses: unencoded "
            "spaces and unsafe characters (encoded on the way in for http), a '%%' that "
            "starts no escape",
        )


def add_resolve_arguments(parser: argparse.ArgumentParser, *, plugins: bool = True) -> None:
    """The options of ``plan`` and ``get``: ours, then every resolver's (``plugins=False``:
    the built-in resolvers' only, without reading the entry points; see :class:`_Parser`)."""
    add_our_resolve_arguments(parser)
    add_resolver_arguments(parser, plugins=plugins)


def add_resolve_arguments_named(parser: argparse.ArgumentParser, args: Sequence[str]) -> None:
    """The first stage of ``plan`` and ``get`` (:class:`.parser._Parser`): ours, and the
    built-in resolvers' only when ``args`` name one of their flags (a flag given imports
    every built-in spec, as before: the parser's groups stay in the order ``--help`` shows).
    Without them a built-in scheme's options are its defaults, completed in
    :func:`options_from_args` for the URLs' own schemes."""
    from omniurl.resolvers.builtin import FLAGS

    add_our_resolve_arguments(parser)
    named = {name for names in FLAGS.values() for name in names}
    if any(arg.partition("=")[0] in named for arg in args if arg.startswith("--")):
        add_resolver_arguments(parser, plugins=False)
    elif parser.get_default("scheme_specs") is None:
        parser.set_defaults(scheme_specs=())


def add_our_resolve_arguments(parser: argparse.ArgumentParser) -> None:
    """omniurl's own options of ``plan`` and ``get`` (no resolver's)."""
    add_syntax_arguments(parser)
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
        "-m",
        "--max-time",
        type=_seconds,
        metavar="S",
        help="end the whole transfer after S seconds, redirects and referrals included "
        "(curl's -m; default: no limit)",
    )
    g.add_argument(
        "--speed-limit",
        type=int,
        default=1,
        metavar="B",
        help="end a transfer slower than B bytes/s for --speed-time seconds (1; 0: never); "
        "before the content starts, connecting, login and headers must end within "
        "--speed-time",
    )
    g.add_argument("--speed-time", type=_seconds, default=60.0, metavar="S", help="seconds (60)")
    g.add_argument(
        "--max-entries",
        type=int,
        metavar="N",
        help="end a listing (menu, directory, group, search) after N entries with an error "
        "(exit 6); listings are printed as they arrive, never held whole",
    )
    g.add_argument(
        "--email",
        help="e-mail address sent as the anonymous FTP password (default: $EMAIL)",
    )
    g.add_argument("--no-follow", action="store_true", help="do not follow redirects")
    g.add_argument(
        "--max-redirs",
        type=int,
        metavar="N",
        help="follow at most N redirects or referrals (curl's; default 10, 5 with --strict; "
        "-1: the policy's default)",
    )
    g.add_argument(
        "-x",
        "--proxy",
        metavar="URL",
        help="connect through a proxy: socks5://host:port (omniurl resolves names), "
        "socks5h://host:port (the proxy does), or http://host:port (http and https as "
        "proxy requests and CONNECT, ftp as 'GET ftp://…' requests as curl does, other "
        "schemes through a CONNECT tunnel); a login for the proxy goes in its URL "
        "(http://user:password@host:port: Proxy-Authorization Basic; socks5://user:"
        "password@…: RFC 1929); the address policy applies to the proxy too",
    )
    g.add_argument(
        "-p",
        "--proxytunnel",
        action="store_true",
        help="through an HTTP proxy, tunnel ftp with CONNECT too (FTP end to end, as curl's "
        "-p), instead of asking the proxy for 'GET ftp://…'",
    )
    g.add_argument(
        "--noproxy",
        metavar="LIST",
        help="hosts or domains (comma-separated; '*' for all) reached without the proxy",
    )
    g.add_argument("-k", "--insecure", action="store_true", help="do not verify TLS certificates")
    g.add_argument(
        "--proxy-env",
        action="store_true",
        help="http(s) URLs use the environment's proxy (http_proxy, https_proxy, all_proxy; "
        "no_proxy bypasses) as if given with -x (-x wins); off by default",
    )
    add_tls_arguments(parser)
    add_request_arguments(parser)


def _header(text: str) -> tuple[str, str]:
    """``-H 'Name: value'`` (curl's form; ``'Name:'`` removes a default field)."""
    name, colon, value = text.partition(":")
    if not colon or not name.strip():
        import argparse

        raise argparse.ArgumentTypeError(f"'Name: value', not {text!r}")
    return name.strip(), value.strip()


def add_request_arguments(parser: argparse.ArgumentParser) -> None:
    """HTTP request header fields (curl's names); each shows in ``omniurl plan``."""
    g = parser.add_argument_group("request headers (http, https)")
    g.add_argument(
        "-H",
        "--header",
        type=_header,
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help="add (or replace) a request header field; 'NAME:' removes a default one; "
        "CR, LF and NUL are refused before anything is sent; repeatable",
    )
    g.add_argument("-A", "--user-agent", metavar="TEXT", help="the User-Agent field")
    g.add_argument(
        "--compressed",
        action="store_true",
        help="ask for a gzip or deflate body and decode it as it arrives, never past "
        "--max-filesize (a decompression bomb ends with exit 6)",
    )
    g.add_argument(
        "--max-filesize",
        type=int,
        default=None,
        metavar="BYTES",
        help="refuse a content larger than BYTES, any scheme, as curl: before the transfer "
        "when its size is known, during it otherwise, no file left (default: no bound, but "
        "a --compressed body may expand to 1 GiB at most)",
    )
    g.add_argument(
        "--max-expansion",
        type=int,
        default=1000,
        metavar="RATIO",
        help="past its first MiB, a --compressed body may be at most RATIO times the bytes "
        "received (1000; 0: no ratio bound, --max-filesize still applies)",
    )
    c = parser.add_argument_group("credentials")
    c.add_argument(
        "-u",
        "--user",
        metavar="USER[:PASSWORD]",
        help="log in as USER (ftp, http Basic/Digest, nntp AUTHINFO); without :PASSWORD it is "
        "asked for on a terminal; sent to the URL's origin only (scheme, host and port), "
        "never after a redirect to another",
    )
    c.add_argument(
        "--location-trusted",
        action="store_true",
        help="send -u's login after a redirect to another host, port or scheme too (curl's)",
    )
    c.add_argument(
        "--digest",
        action="store_true",
        help="http: Digest authentication (RFC 7616), answered to the server's 401 challenge, "
        "instead of Basic (RFC 7617), which is sent with the request",
    )
    c.add_argument(
        "--netrc",
        action="store_true",
        help="use ~/.netrc for logins (the default; kept for curl's habits)",
    )
    c.add_argument(
        "--netrc-file",
        metavar="FILE",
        help="read logins from FILE instead of ~/.netrc (machine/login/password)",
    )
    g.add_argument("-e", "--referer", metavar="URL", help="the Referer field")


def request_headers(args: argparse.Namespace) -> tuple[tuple[str, str], ...]:
    """``-H``, ``-A`` and ``-e`` as ``Options.headers`` (in that order)."""
    headers = list(getattr(args, "header", None) or ())
    if getattr(args, "user_agent", None):
        headers.append(("User-Agent", args.user_agent))
    if getattr(args, "referer", None):
        headers.append(("Referer", args.referer))
    return tuple(headers)


def add_tls_arguments(parser: argparse.ArgumentParser) -> None:
    """TLS options for every scheme that speaks it (curl's names; see resolvers.tls)."""
    g = parser.add_argument_group("TLS")
    g.add_argument(
        "--cacert",
        metavar="FILE",
        help="trust the CA certificates in FILE (PEM) instead of the system's store; "
        "default: $SSL_CERT_FILE when set",
    )
    g.add_argument(
        "--capath",
        metavar="DIR",
        help="trust the hashed CA certificates in DIR; default: $SSL_CERT_DIR when set",
    )
    g.add_argument("--cert", metavar="FILE", help="offer the client certificate in FILE (PEM)")
    g.add_argument(
        "--key", metavar="FILE", help="the client certificate's key (default: in --cert)"
    )
    floor = g.add_mutually_exclusive_group()
    floor.add_argument(
        "--tlsv1.2",
        dest="tls_min_version",
        action="store_const",
        const="1.2",
        default="1.2",
        help="use TLS 1.2 or later (the default)",
    )
    floor.add_argument(
        "--tlsv1.3", dest="tls_min_version", action="store_const", const="1.3", help="use TLS 1.3"
    )


def tls_options(args: argparse.Namespace) -> dict[str, Any]:
    """The ``Options`` fields of :func:`add_tls_arguments`."""
    return {
        "ca_file": getattr(args, "cacert", None),
        "ca_path": getattr(args, "capath", None),
        "client_cert": getattr(args, "cert", None),
        "client_key": getattr(args, "key", None),
        "tls_min_version": getattr(args, "tls_min_version", None) or "1.2",
    }


def _seconds(text: str) -> float:
    """A positive number of seconds."""
    import argparse  # (argparse calls this: imported already)

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"seconds, not {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"a positive number of seconds, not {text!r}")
    return value


def add_get_arguments(p: argparse.ArgumentParser) -> None:
    """``get``'s own arguments (then the batch's, then its defaults).  Called with
    :func:`.parser._Parser` (which registers the action ``paired_output``: ``-o`` and
    ``-O`` paired with the URLs) and with :mod:`.quick`'s recorder, which reads each
    argument's destination and default from here: one list of get's arguments."""
    p.add_argument(
        "urls",
        nargs="*",
        metavar="URL",
        help="one URL, or several (a batch; see -i and -Z); options may come before, between "
        "or after the URLs",
    )
    p.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        action="paired_output",
        help="write the content to FILE ('-': standard output); with several URLs, each -o "
        "or -O goes with the next URL in order, as curl's (-o a URL1 -o b URL2)",
    )
    p.add_argument(
        "-O",
        "--remote-name",
        nargs=0,
        action="paired_output",
        help="write to a file named like the URL's; -O URL1 -O URL2 pairs as curl's; a single "
        "-O with several URLs (or -i) saves every one, as --remote-name-all",
    )
    p.add_argument(
        "--remote-name-all",
        action="store_true",
        help="every URL without its own -o/-O is saved under its URL's name",
    )
    p.add_argument(
        "--create-dirs",
        action="store_true",
        help="create the folders -o FILE or --output-dir DIR name (by default a missing "
        "--output-dir is refused before anything is fetched, and -o FILE in a missing "
        "folder is a write error once the reply has come, as curl's: exit 23, nothing saved)",
    )
    p.add_argument(
        "-L",
        "--location",
        action="store_true",
        help="accepted for curl's habit: redirects are followed by default (--no-follow "
        "turns that off; --max-redirs bounds them); with -I, follow them and show each "
        "hop's head (without -L, -I shows the redirect itself, as curl's)",
    )
    p.add_argument(
        "-f",
        "--fail",
        action="store_true",
        help="an HTTP error status (400 and above) exits 22, as curl's -f (otherwise 5, or 7 "
        "for 401/407); no body is ever written for one",
    )
    p.add_argument(
        "-w",
        "--write-out",
        metavar="FORMAT",
        help="after each transfer print FORMAT with curl's variables: %%{http_code}, "
        "%%{content_type}, %%{size_download}, %%{size_header}, %%{speed_download}, "
        "%%{time_namelookup}, %%{time_connect}, %%{time_appconnect}, %%{time_pretransfer}, "
        "%%{time_starttransfer}, %%{time_redirect}, %%{time_total}, %%{num_redirects}, "
        "%%{num_connects}, %%{redirect_url}, %%{url_effective}, %%{url}, %%{remote_ip}, "
        "%%{remote_port}, %%{local_ip}, %%{local_port}, %%{scheme}, %%{method}, "
        "%%{http_version}, %%{filename_effective}, %%{exitcode}, %%{errormsg} and more "
        "(docs/cli.md); \\n and \\t escapes; %%{stderr} / %%{stdout} switch the stream; "
        "@FILE reads it",
    )
    p.add_argument(
        "-J",
        "--remote-header-name",
        action="store_true",
        help="with -O: the file name the server gives (Content-Disposition), made safe (no "
        "folder, no leading dot); else the URL's name",
    )
    p.add_argument(
        "--raw",
        action="store_true",
        help="a Gopher text item as on the wire (dot-stuffing and the closing '.'); by "
        "default only that framing is removed, the line ends are the server's "
        "(docs/saving.md)",
    )
    p.add_argument(
        "-I",
        "--head",
        action="store_true",
        help="only what the server says about the resource: http HEAD (its header fields "
        "are printed; a redirect's own head unless -L), ftp SIZE and MDTM and a file's "
        "size and date (printed as Content-Length and Last-Modified, as curl does); no "
        "content is transferred; a scheme without such a request is refused",
    )
    p.add_argument(
        "-C",
        "--continue-at",
        metavar="OFFSET",
        type=_offset,
        help="resume a transfer (FTP REST, HTTP Range): '-' continues after the bytes kept "
        "in .NAME.part (or in the file itself), N at byte N; the file becomes NAME only once "
        "its size is the server's, and a failed attempt keeps .NAME.part for the next -C -",
    )
    p.add_argument(
        "-v", "--verbose", action="store_true", help="show the protocol conversation on stderr"
    )
    p.add_argument("--json", action="store_true", help="print metadata (or a listing) as JSON")
    p.add_argument(
        "-s", "--silent", action="store_true", help="no progress bar and no error line (curl's)"
    )
    p.add_argument(
        "-S", "--show-error", action="store_true", help="with -s: still print the error line"
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_batch_arguments(p)
    from .commands import cmd_get

    p.set_defaults(func=cmd_get, outputs=[], remote_name=False)


def add_batch_arguments(parser: argparse.ArgumentParser) -> None:
    """``get``'s batch options (curl's names where curl has them)."""
    g = parser.add_argument_group("many URLs")
    g.add_argument(
        "-i",
        "--input",
        metavar="FILE",
        action="append",
        default=[],
        help="read URLs from FILE, one a line ('#' starts a comment; '-' is standard "
        "input), lazily: a list of millions is fine; repeatable",
    )
    g.add_argument(
        "-Z",
        "--parallel",
        action="store_true",
        help="run transfers at once instead of one after the other",
    )
    g.add_argument(
        "--parallel-max",
        metavar="N",
        type=int,
        default=50,
        help="with -Z: at most N transfers at once (50)",
    )
    g.add_argument(
        "--parallel-max-host",
        metavar="N",
        type=int,
        default=6,
        help="at most N at once to one server — the address connected to, after --resolve; 0: "
        "no limit but --parallel-max, curl's default (6 here: RFC 9112 §9.4 asks a client to "
        "limit its connections to one server, and browsers keep to 6)",
    )
    g.add_argument(
        "--procs",
        metavar="N",
        type=int,
        default=None,
        help="with -Z: split the batch across N processes (default: one per idle core when "
        "the batch has 200 URLs or more, else 1; --parallel-max and --parallel-max-host "
        "are divided between them, so both stay caps on the whole batch)",
    )
    g.add_argument(
        "--output-dir",
        metavar="DIR",
        help="save each content in DIR under its URL's name; a name already taken gets "
        "a number (a.txt, a.1.txt): no file is ever overwritten",
    )
    g.add_argument(
        "--manifest",
        metavar="FILE",
        help="write one JSON line per URL to FILE as each finishes (url, ok, error_type, "
        "error_message, exit_status, bytes, sha256, media_type, elapsed, chain, path)",
    )
    g.add_argument(
        "--dask",
        metavar="SCHEDULER",
        help="run the batch on a Dask cluster: a scheduler address (tcp://host:8786) or "
        "local:N for a local cluster of N worker processes; URLs are partitioned by server "
        "so --parallel-max-host holds across workers (pip install 'omniurl[dask]')",
    )


def _offset(text: str) -> str:
    """``-C``'s value: ``-`` or a byte offset (curl's ``--continue-at``)."""
    import argparse  # (argparse calls this: imported already)

    if text == "-" or (text.isascii() and text.isdigit()):
        return text
    raise argparse.ArgumentTypeError(f"'-' or a byte offset, not {text!r}")


def add_resolver_arguments(parser: argparse.ArgumentParser, *, plugins: bool = True) -> None:
    """Each scheme's own flags (``--smtp``, ``--login``...), as its spec's options dataclass
    declares them (:func:`resolvers.spec.flag`), once per spec; the specs whose flags the
    parser has go into the namespace as ``scheme_specs``, so that :func:`options_from_args`
    builds exactly those.  A spec's module is cheap (resolvers/lazy.py): this imports no
    planner, no executor."""
    from omniurl.resolvers import registry

    added: list[Any] = list(parser.get_default("scheme_specs") or ())
    for spec in registry.all_specs(plugins=plugins):
        if spec not in added:
            add_spec_arguments(parser, spec)
            added.append(spec)
    parser.set_defaults(scheme_specs=tuple(added))


def _dest(spec: Any, name: str) -> str:
    return f"{spec.name.replace('-', '_').replace('.', '_').replace('+', '_')}_{name}"


def add_spec_arguments(parser: argparse.ArgumentParser, spec: Any) -> None:
    """One argument group: the flags of ``spec``'s options (their defaults are the
    dataclass's: argparse's stay None, so a flag not given leaves the field alone)."""
    from omniurl.resolvers.spec import flags_of

    if spec.options is None or not flags_of(spec.options):
        return
    g = parser.add_argument_group(spec.title or spec.name, spec.description)
    for name, f in flags_of(spec.options):
        kw: dict[str, Any] = {"dest": _dest(spec, name), "help": f.help}
        if f.action in ("store_true", "store_false"):
            kw["action"] = f.action
            kw["default"] = None
        else:
            if f.action is not None:
                kw["action"] = f.action
            if f.metavar is not None:
                kw["metavar"] = f.metavar
            if f.type is not None:
                kw["type"] = f.type
            if f.choices is not None:
                kw["choices"] = list(f.choices)
        g.add_argument(*f.names, **kw)


def spec_options(spec: Any, args: argparse.Namespace) -> Any:
    """``spec``'s options instance from the flags given (the others keep their defaults),
    completed by the spec's presentation for the command line (``cli_options``).  A value
    its ``convert`` refuses is a usage error (status 2)."""
    from omniurl.resolvers.spec import flags_of
    from omniurl.schemes.records import is_dataclass

    values: dict[str, Any] = {}
    for name, f in flags_of(spec.options):
        given = getattr(args, _dest(spec, name), None)
        if given is None:
            continue
        if f.convert is not None:
            try:
                given = f.convert(given)
            except ValueError as exc:
                sys.stderr.write(
                    f"omniurl: {f.names[0]} {getattr(args, _dest(spec, name))}: {exc}\n"
                )
                raise SystemExit(2) from None
        values[name] = given
    options = spec.options(**values) if values else spec.options()
    urls = getattr(args, "urls", None)
    if urls is None:
        text = getattr(args, "url", None)
        urls = [text] if isinstance(text, str) else []
    elif getattr(args, "input", None):
        urls = []  # a batch read from a file asks nothing
    done = spec.present().cli_options(options, list(urls))
    assert is_dataclass(done)
    return done


def implied_specs(args: argparse.Namespace) -> list[SchemeSpec]:
    """The built-in specs whose options ``plan``/``get`` build although the parser added
    none of their flags: those of the URLs' schemes (every built-in for a batch whose URLs
    come from a list, or a URL whose scheme is not a built-in's), and those whose
    command-line hook reads an environment variable that is set (``resolvers/builtin.py``'s
    ``ENVIRONMENT``).  Any other built-in's options are their defaults on the command line
    (tests/test_spec.py), which a resolver gets without them (``Options.of``)."""
    import os

    from omniurl.resolvers import registry
    from omniurl.resolvers.builtin import ENVIRONMENT, SPECS

    urls = getattr(args, "urls", None)
    if urls is None:
        text = getattr(args, "url", None)
        urls = [text] if isinstance(text, str) else []
    if getattr(args, "input", None) or getattr(args, "dask", None) is not None:
        return registry.all_specs(plugins=False)
    names = [url.partition(":")[0].lower() for url in urls]
    if not all(name in SPECS for name in names):
        return registry.all_specs(plugins=False)
    wanted = {ref for variable, ref in ENVIRONMENT.items() if os.environ.get(variable)}
    names += [name for name, ref in SPECS.items() if ref in wanted]
    return list({id(s): s for s in map(registry.spec_for, names)}.values())


def names_other_scheme(args: argparse.Namespace) -> bool:
    """Whether a URL given to ``plan``/``get`` is of a scheme no built-in resolver handles
    (a plugin's, whose resolver may take options of its own)."""
    from omniurl.resolvers.registry import BUILTIN_SCHEMES

    urls = getattr(args, "urls", None)
    if urls is None:
        urls = [getattr(args, "url", "")]
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


def _netrc_credentials(path: str | None = None) -> dict[str, tuple[str, str]]:
    """~/.netrc (or ``path``: ``--netrc-file``) as host -> (login, password); a file given
    on the command line that cannot be read is an error, ~/.netrc's absence is not."""
    import os

    if path is None and not os.path.exists(os.path.join(os.path.expanduser("~"), ".netrc")):
        return {}  # (netrc's own test, without importing netrc and shlex for nothing)
    import netrc

    try:
        rc = netrc.netrc(path)
    except (FileNotFoundError, netrc.NetrcParseError, OSError) as exc:
        if path is not None:
            from omniurl.resolvers.errors import ConfigurationError

            raise ConfigurationError(
                f"cannot read the netrc file {path}: {exc}", component="netrc"
            ) from None
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
    max_redirs = getattr(args, "max_redirs", None)
    if max_redirs is not None and max_redirs >= 0:
        policy = policy.with_(max_redirects=max_redirs)
    per_scheme: dict[type, Any] = {}
    specs = getattr(args, "scheme_specs", None)
    if specs is None:
        specs = registry.all_specs()
    else:
        specs = [*specs, *(s for s in implied_specs(args) if s not in specs)]
    for spec in specs:
        if spec.options is not None:
            value = spec_options(spec, args)
            per_scheme[spec.options] = value
            # a scheme's options may open the policy (mailto: --allow-header)
            policy = spec.present().cli_policy(policy, value)
    kw: dict[str, Any] = {}
    if args.email:
        kw["email"] = args.email
    verbose = getattr(args, "verbose", False)
    silent = bool(getattr(args, "silent", False))
    return Options(
        policy=policy,
        connect_timeout=args.connect_timeout,
        read_timeout=args.timeout,
        resolve=dict(args.resolve),
        credentials=_netrc_credentials(getattr(args, "netrc_file", None)),
        user=_user(getattr(args, "user", None)),
        location_trusted=bool(getattr(args, "location_trusted", False)),
        http_auth="digest" if getattr(args, "digest", False) else "basic",
        head=bool(getattr(args, "head", False)),
        compressed=bool(getattr(args, "compressed", False)),
        raw=bool(getattr(args, "raw", False)),
        proxy=_proxy(getattr(args, "proxy", None)),
        proxy_tunnel=bool(getattr(args, "proxytunnel", False)),
        noproxy=tuple(
            x.strip() for x in (getattr(args, "noproxy", None) or "").split(",") if x.strip()
        ),
        max_decoded=_max_filesize(args) or 1 << 30,
        max_filesize=_max_filesize(args),
        max_expansion=max(int(getattr(args, "max_expansion", 1000)), 0),
        ask=_terminal_ask if sys.stdin.isatty() else None,
        transcript=_stderr_transcript if verbose else None,
        # (curl's -s silences messages, -S shows errors again: a notice goes with them)
        notice=_stderr_notice if not silent or getattr(args, "show_error", False) else None,
        follow=not args.no_follow,
        verify_tls=not args.insecure,
        trust_env=args.proxy_env,
        command_line=True,
        schemes=per_scheme,
        max_time=getattr(args, "max_time", None),
        # The command prints (or saves) a listing as its entries arrive.
        stream_listings=True,
        max_entries=getattr(args, "max_entries", None),
        speed_limit=max(getattr(args, "speed_limit", 1), 0),
        speed_time=getattr(args, "speed_time", 60.0),
        **tls_options(args),
        headers=request_headers(args),
        syntax=getattr(args, "syntax", "rfc3986"),
        **kw,
    )


def _proxy(given: str | None) -> str | None:
    """``-x``: checked now, so a bad proxy is one line before anything is sent."""
    if not given:
        return None
    from omniurl.resolvers.proxy import parse_proxy

    return parse_proxy(given).with_login()


def _max_filesize(args: argparse.Namespace) -> int | None:
    """``--max-filesize BYTES`` (None: not given)."""
    given = getattr(args, "max_filesize", None)
    return None if given is None else int(given)


def _user(given: str | None) -> tuple[str, str] | None:
    """``-u USER[:PASSWORD]``: the password is asked for on a terminal when not given."""
    if given is None:
        return None
    user, sep, password = given.partition(":")
    if sep:
        return user, password
    if not sys.stdin.isatty():
        from omniurl.resolvers.errors import ConfigurationError

        raise ConfigurationError(
            f"-u {user}: no password given and no terminal to ask on (write -u USER:PASSWORD)",
            component="user",
        )
    import getpass

    return user, getpass.getpass(f"Password for {user}: ")


def _stderr_notice(text: str) -> None:
    """A notice (trust on first use) on stderr, one line, as ``omniurl: …`` messages are."""
    from .emit import terminal_safe

    sys.stderr.write(f"omniurl: {terminal_safe(text)}\n")
    sys.stderr.flush()


def _stderr_transcript(direction: str, text: str) -> None:
    from omniurl.schemes.secrets import mask_passwords

    from .emit import terminal_safe

    sys.stderr.write(f"{direction} {terminal_safe(mask_passwords(text))}\n")
    sys.stderr.flush()
