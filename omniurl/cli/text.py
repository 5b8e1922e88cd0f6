"""``parse``, ``join`` and ``extract``: the pure commands, from ``schemes`` alone (no
resolver, no asyncio: they start as fast as Python does)."""

from __future__ import annotations

import io
import sys
from collections.abc import Iterable, Sequence

from omniurl import schemes
from omniurl.exitstatus import EXIT_FAILURE, EXIT_OK, EXIT_REFUSED
from omniurl.schemes import precompiled
from omniurl.schemes.errors import URLError
from omniurl.schemes.secrets import mask_passwords

from .emit import error_json, print_json, write_stdout

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Literal

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


def cmd_parse(args: argparse.Namespace) -> int:
    """One JSON object per URL (the contract in PARSE_KEYS_HELP); exit 2 if any failed."""
    status = EXIT_OK
    texts: Iterable[str] = args.urls
    if args.urls == ["-"]:
        texts = (line.rstrip("\r\n") for line in sys.stdin)
    for text in texts:
        try:
            print_json(schemes.parse(text, syntax=args.syntax).to_json())
        except URLError as exc:
            print_json(error_json(exc))
            status = EXIT_REFUSED
    return status


def cmd_join(args: argparse.Namespace) -> int:
    """Print the target of each reference, one per line (an error prints JSON, status 2)."""
    rfc: Literal["3986", "1630"] = "1630" if args.rfc1630 or args.rfc == "1630" else "3986"
    status = EXIT_OK
    for ref in args.refs:
        try:
            target = schemes.join(args.base, ref, rfc=rfc, strict=not args.backward_compatible)
        except URLError as exc:
            print_json(error_json(exc))
            status = EXIT_REFUSED
            continue
        write_stdout(f"{target}\n")
        _note_if_not_of_its_scheme(target)
    return status


def _note_if_not_of_its_scheme(target: str) -> None:
    """RFC 3986 §5.2 is syntax only: against a base without hierarchy the target can be a
    text its (known) scheme does not define (``mailto:a@b?query2``: no ``name=value``).
    The target is printed as §5.2 gives it; a note on standard error says what the scheme's
    class answers, the typed error that ``omniurl parse`` would print."""
    name = target.partition(":")[0]
    if not name or schemes.scheme_class(name) is None:
        return
    try:
        schemes.parse(target)
    except URLError as exc:
        write_stdout("", flush=True)  # (the note follows its line)
        sys.stderr.write(f"omniurl: note: {target} is not a {name.lower()}: URL: {exc}\n")


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
                print_json({"input": name, **found.to_json()})
                continue
            write_stdout(f"{found.url}\n")
            if found.ambiguous:
                line = text.count("\n", 0, found.start) + 1
                sys.stderr.write(
                    f"omniurl: {name}:{line}: a hyphen ends a line inside {found.url}; it may "
                    "not be part of the URL (RFC 1738 appendix); without it: "
                    f"{found.without_break_hyphens}\n"
                )
    return EXIT_OK


def parse_given(text: str, syntax: str = "rfc3986") -> schemes.URL:
    """``schemes.parse`` of a URL a person typed; one without a scheme that looks like a host
    (``127.0.0.1:8081/x``, ``example.org/a``, ``localhost:8081/x``, ``[::1]:8081/``) gets
    the question a person needs (:func:`no_scheme`) instead of "no resolver for localhost:
    URLs"."""
    refused = no_scheme(text)
    if refused is not None:
        raise refused
    return schemes.parse(text, syntax=syntax)


def no_scheme(text: str) -> schemes.URLError | None:
    """The error for ``text`` when it is a URL typed without its scheme: "no scheme: did
    you mean http://…?" (exit 2, nothing sent); None when it is not one.  omniurl refuses
    it rather than guess as curl does: where a URL leads is never guessed.  The scheme
    suggested is curl's guess: the host's first label when that is a scheme of a server
    (``ftp.example.org`` → ftp://, ``gopher.floodgap.com`` → gopher://), else http."""
    head = text.split("/", 1)[0]
    if "://" in text or not head or " " in text:
        return None
    if head.startswith("["):  # an IPv6 literal, [::1]:8081
        host, _, rest = head[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else rest
        looks_like_host = bool(host) and ":" in host
    else:
        host, _, port = head.partition(":")
        looks_like_host = "." in host or host.lower() == "localhost" or bool(port)
    if (
        not looks_like_host
        or (port and not (port.isascii() and port.isdigit()))
        or schemes.scheme_class(host) is not None  # a scheme written without "//"
    ):
        return None
    return schemes.URLError(
        f"no scheme: did you mean {_guessed_scheme(host)}://{text} ? (omniurl needs the "
        "scheme written; it does not guess where a URL leads)",
        component="scheme",
        offset=0,
    )


def _guessed_scheme(host: str) -> str:
    """curl's guess for a URL without a scheme: the host's first label when it names a
    scheme of a server (``ftp.``, ``gopher.``, ``news.``), else the web's."""
    from omniurl.schemes.base import InternetURL

    label = host.split(".", 1)[0].lower()
    found = schemes.scheme_class(label) if "." in host else None
    if found is not None and issubclass(found, InternetURL):
        return label
    return "http"  # not a scheme: the word of a suggestion, not a dispatch


#: A '%' that starts no escape (RFC 3986 §2.1: pct-encoded = "%" HEXDIG HEXDIG).
_STRAY_PERCENT = precompiled.compile(r"%(?![0-9A-Fa-f]{2})")


def browser_form(text: str) -> str | None:
    """``text`` as a browser sends what was typed (WHATWG URL: a space in a path or query
    is percent-encoded, a ``%`` that starts no escape is kept as ``%25``); None when
    ``text`` has neither."""
    if " " not in text and "%" not in text:
        return None
    fixed = _STRAY_PERCENT.sub("%25", text).replace(" ", "%20")
    return fixed if fixed != text else None


def parse_typed(text: str, syntax: str = "rfc3986", *, strict: bool = False) -> schemes.URL:
    """:func:`parse_given`, accepting a raw space or a stray ``%`` as curl, wget and the
    browsers do (unless ``strict``): the URL is read in :func:`browser_form`, with a
    one-line note on stderr naming the URL actually used.  A URL still invalid that way
    gets the error of the text as given."""
    try:
        return parse_given(text, syntax)
    except schemes.URLError as given:
        fixed = None if strict else browser_form(text)
        if fixed is None:
            raise
        try:
            url = parse_given(fixed, syntax)
        except schemes.URLError:
            raise given from None
    sys.stderr.write(
        f"omniurl: note: the URL has a raw space or a '%' that starts no escape; using "
        f"{mask_passwords(str(url))} (as a browser does; --strict refuses it)\n"
    )
    return url
