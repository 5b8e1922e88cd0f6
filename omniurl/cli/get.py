"""``get``: resolve one URL and hand its content, listing or session to the terminal or a
file (the writing itself is :mod:`.output`)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from omniurl import schemes
from omniurl.schemes.errors import OmniurlError
from omniurl.schemes.mask import mask_json, mask_url

from .arguments import options_from_args
from .emit import print_json, report
from .hints import missing_scheme_hint
from .output import listing_lines, output_path, write_content
from .status import EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_OK, EXIT_REFUSED, exit_status

if TYPE_CHECKING:
    from omniurl.resolvers.options import Options
    from omniurl.resolvers.resource import Resource

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
  omniurl get -Z --parallel-max 50 -i urls.txt --output-dir d --manifest m.jsonl
      a batch: 50 transfers at once (at most 6 per server), each saved in d under a
      name of its own, one JSON line per URL in m.jsonl as each finishes

files written with -o/-O appear only once complete (a temporary file is renamed); an
interrupted or failed transfer leaves the previous file, if any, untouched.  A FIFO or a
device (-o /dev/null) is written into directly, never replaced.

a batch (several URLs, -i, -Z) exits 0 when every URL succeeded, else with the status
of the first failure (below), and prints the counts on stderr.

"""


def cmd_get(args: argparse.Namespace) -> int:
    import asyncio

    from .batch import batch_usage_error, is_batch, run_from_args, to_stdout

    batch = is_batch(args)
    if batch:
        problem = batch_usage_error(args)
        if problem is not None:
            sys.stderr.write(f"omniurl: {problem}\n")
            return EXIT_REFUSED
    options = options_from_args(args)
    try:
        if not batch:
            args.url = args.urls[0]
            return asyncio.run(_get(args, options))
        if to_stdout(args):
            return asyncio.run(_get_each(args, options))
        return asyncio.run(run_from_args(args, options))
    except KeyboardInterrupt:
        sys.stderr.write("omniurl: interrupted\n")
        return EXIT_INTERRUPTED
    except OmniurlError as exc:  # an unreadable -i list, an unwritable manifest
        return report(args, exc)


async def _get_each(args: argparse.Namespace, options: Options) -> int:
    """Several URLs to standard output, one after the other (curl's way): every URL is
    tried; the status is that of the first failure."""
    from .batch import url_source

    status = EXIT_OK
    for text in url_source(args.urls, args.input):
        args.url = text
        result = await _get(args, options)
        if result != EXIT_OK and status == EXIT_OK:
            status = result
    return status


async def _get(args: argparse.Namespace, options: Options) -> int:
    from omniurl.resolvers import registry, resolve

    try:
        url = schemes.parse(args.url)
        # Input a URL lacks (search words, form fields, a password) is asked for by the
        # resolvers themselves through ``options.ask``, which is the terminal here.
        resource = await resolve(url, options)
    except OmniurlError as exc:
        hint = missing_scheme_hint(args.url)
        if hint is not None and not args.json:
            sys.stderr.write(f"omniurl: no scheme: did you mean {mask_url(hint)}?\n")
            return exit_status(exc)
        return report(args, exc)
    async with resource:
        try:
            resolver = registry.get(resource.url.scheme)
            presented = await resolver.present(resource, args)
            if presented is not None:
                return presented
            if resource.kind == "listing" and output_path(args, resource) is not None:
                await write_content(args, resource, listing_lines(resource))
            elif resource.kind == "listing":
                show_listing(args, resource)
            elif resource.kind == "session":
                sys.stderr.write("omniurl: this resolver opened a session it cannot show\n")
                return EXIT_FAILURE
            else:
                await write_content(args, resource)
        except OmniurlError as exc:
            return report(args, exc)
    if args.json:
        print_json(mask_json(resource.describe()))
    return EXIT_OK


def show_listing(args: argparse.Namespace, resource: Resource) -> None:
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
