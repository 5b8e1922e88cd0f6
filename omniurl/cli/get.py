"""``get``: resolve one URL and hand its content, listing or session to the terminal or a
file (the writing itself is :mod:`.output`)."""

from __future__ import annotations

import os
import sys

from omniurl import schemes
from omniurl.exitstatus import (
    EXIT_FAILURE,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_REFUSED,
    EXIT_UNSUPPORTED,
)
from omniurl.schemes.errors import OmniurlError

from .arguments import options_from_args
from .early import curl_manners as _curl_manners
from .early import is_batch
from .emit import print_json, report, stdout_error, write_stdout
from .text import parse_typed

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing's import is ~1.5 ms of a get's start, before its connect)
    import argparse
    from typing import Any

    from omniurl.partial import Kept, Partial
    from omniurl.resolvers.errors import NotFollowed
    from omniurl.resolvers.options import Options
    from omniurl.resolvers.resource import Resource

    from .output import Written


def cmd_get(args: argparse.Namespace) -> int:
    from .signals import run_command

    if args.remote_name_all and not args.outputs:
        args.remote_name = True
    if not args.urls and not args.input:
        sys.stderr.write(f"omniurl: {no_url_message(args)}\n")
        return EXIT_REFUSED
    warn_extra_outputs(args)
    batch = is_batch(args)
    if batch:
        # Only a batch imports the batch machinery (the manifest, hashing, the input
        # lists, omniurl.batch): 5-8 ms CPU measured, that one URL does not need.
        from .batch import batch_usage_error, run_from_args, to_stdout
    paired = batch and paired_outputs(args)
    if paired:
        problem = _parallel_pairs_problem(args) if args.parallel else None
    else:
        problem = batch_usage_error(args) if batch else None
    if problem is not None:
        sys.stderr.write(f"omniurl: {problem}\n")
        return EXIT_REFUSED
    try:
        check_output_dir(args)
        options = getattr(args, "early_options", None)  # (made once: early.connect_early)
        if options is None:
            options = options_from_args(args)
        if args.write_out is not None:
            args.write_out = _read_format(args.write_out)
    except OmniurlError as exc:
        return report(args, exc)
    try:
        if not batch:
            args.url = args.urls[0]
            return run_command(_transfer(args, options))
        if paired or to_stdout(args):
            return run_command(_get_each(args, options, paired=paired))
        return run_command(run_from_args(args, options))
    except KeyboardInterrupt:
        sys.stderr.write("omniurl: interrupted\n")
        return EXIT_INTERRUPTED
    except OmniurlError as exc:  # an unreadable -i list, an unwritable manifest
        return report(args, exc)


def _parallel_pairs_problem(args: argparse.Namespace) -> str | None:
    """``-Z -o a URL1 -o b URL2`` runs the pairs at once, as curl's; refused only where
    two contents would interleave on standard output (more than one URL without a file of
    its own), or with an ``-i`` list (its URLs are not known before the transfers)."""
    if args.input:
        return (
            "-Z with per-URL -o/-O and -i: save every URL with --output-dir DIR or "
            "--remote-name-all"
        )
    outputs = list(args.outputs)
    to_stdout = sum(1 for given in outputs[: len(args.urls)] if given == "-")
    if not args.remote_name_all:
        to_stdout += max(len(args.urls) - len(outputs), 0)
    if to_stdout > 1:
        return (
            "-Z with per-URL -o/-O: the URLs without one would interleave on standard "
            "output; give each its -o/-O, or add --remote-name-all"
        )
    return None


def no_url_message(args: argparse.Namespace) -> str:
    """curl's "no URL specified!", naming the ``-o`` that took a URL as its file name
    (``get -o http://h/a.txt``: nothing is fetched, nothing written, exit 2)."""
    taken = [given for given in args.outputs if given is not None and "://" in given]
    if taken:
        return (
            f"no URL specified: -o took {taken[0]} as its file name (write -o FILE URL, "
            "or -O URL to name the file after the URL)"
        )
    return "no URL specified: get needs a URL (or -i FILE with one URL a line)"


def warn_extra_outputs(args: argparse.Namespace) -> None:
    """curl's warning for ``-o``/``-O`` left over when every URL has one (``-O URL -o
    extra.txt``: extra.txt goes with no URL and is not written).  An ``-i`` list's URLs
    are not counted before the transfers, so a command with one is not judged."""
    outputs = args.outputs
    if args.input or getattr(args, "silent", False) or len(outputs) <= max(len(args.urls), 1):
        return  # (-s: no warning, as curl's -s)
    extra = outputs[len(args.urls) :]
    named = ", ".join("-O" if given is None else f"-o {given}" for given in extra)
    sys.stderr.write(
        f"omniurl: warning: Got more output options than URLs: {named} goes with no URL "
        "and is not written\n"
    )


def paired_outputs(args: argparse.Namespace) -> bool:
    """Whether a batch's ``-o``/``-O`` go with its URLs one by one, as curl's: several of
    them, or an ``-o FILE`` (a single ``-O`` saves every URL, as ``--remote-name-all``)."""
    outputs = args.outputs
    return len(outputs) > 1 or (len(outputs) == 1 and outputs[0] is not None)


def check_output_dir(args: argparse.Namespace) -> None:
    """``--output-dir DIR`` must exist before anything is fetched (``--create-dirs`` makes
    it); an fsspec URL (``s3://…``, with ``--dask``) is the cluster's to check."""
    folder = args.output_dir
    if folder is None or "://" in folder or os.path.isdir(folder):
        return
    from pathlib import Path

    from omniurl.resolvers.errors import ConfigurationError

    if args.create_dirs:
        try:
            Path(folder).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigurationError(
                f"--output-dir {folder}: cannot create it: {exc.strerror or exc}",
                component="output",
            ) from None
        return
    raise ConfigurationError(
        f"--output-dir {folder}: no such folder (--create-dirs creates it)", component="output"
    )


def _read_format(given: str) -> str:
    from omniurl.resolvers.errors import ConfigurationError

    from .writeout import read_format

    try:
        return read_format(given)
    except OSError as exc:
        raise ConfigurationError(
            f"-w {given}: cannot read it: {exc.strerror or exc}", component="write-out"
        ) from None


async def _transfer(args: argparse.Namespace, options: Options) -> int:
    """One URL (``_get``), then ``-w``'s report of it."""
    if args.write_out is None:  # nothing to report: no record kept (cli.writeout not loaded)
        args.transfer = None
        return await _get(args, options)
    import time

    from omniurl.resolvers.trace import Trace

    from .writeout import Transfer, write_out

    args.transfer = transfer = Transfer(url=args.url, given=args.url)
    transfer.trace = trace = Trace()  # the phases' times, the addresses
    options = options.with_(trace=trace)
    transfer.method = "HEAD" if getattr(args, "head", False) else "GET"
    started = time.monotonic()
    status = await _get(args, options)
    # time_total from the transfer's start (curl's: the first name lookup); a URL that
    # looked up nothing (refused, a local file) from the command's
    begun = trace.started > started
    transfer.seconds = trace.elapsed() if begun else time.monotonic() - started
    transfer.exitcode = status
    try:
        write_out(args.write_out, transfer, stdout=sys.stdout, stderr=sys.stderr)
    except BrokenPipeError:
        raise
    except OSError as exc:  # -w's report cannot be written: curl's write error (23)
        if status == EXIT_OK:
            return report(args, stdout_error(exc))
    return status


def _assign_output(args: argparse.Namespace, given: str | None, *, remote: bool) -> None:
    """A paired batch: the ``-o FILE`` (``given``) or ``-O`` (``remote``) of this URL, in
    ``--output-dir`` when one is given, or standard output (neither)."""
    import os

    if given is not None and given != "-" and args.output_dir and not os.path.isabs(given):
        given = os.path.join(args.output_dir, given)
    args.output = given
    args.remote_name = remote


async def _get_each(args: argparse.Namespace, options: Options, *, paired: bool = False) -> int:
    """Several URLs one after the other (curl's way): each to standard output, or with
    ``paired`` to the ``-o``/``-O`` given for it in order (the URLs after the last one: to
    standard output, or saved with ``--remote-name-all``).  Every URL is tried; the status
    is that of the first failure; the counts go to stderr at the end, as a batch's."""
    import time

    from omniurl.batch import Unreadable

    from .emit import report
    from .inputs import url_source

    outputs = list(args.outputs)
    status = EXIT_OK
    done = failed = index = 0
    started = time.monotonic()
    if paired and args.parallel:
        return await _get_pairs_at_once(args, options, outputs, started)
    async for text in url_source(args.urls, args.input):
        index, done = done, done + 1
        if isinstance(text, Unreadable):  # a line too long to be a URL: its error, counted
            failed += 1
            result = report(args, text.error)
            status = result if status == EXIT_OK else status
            continue
        args.url = text
        if paired and index < len(outputs):
            _assign_output(args, outputs[index], remote=outputs[index] is None)
        elif paired:  # past the last -o/-O: standard output, or saved (--remote-name-all)
            _assign_output(args, None, remote=args.remote_name_all)
        result = await _transfer(args, options)
        if result != EXIT_OK:
            failed += 1
            if status == EXIT_OK:
                status = result
    if not args.silent:
        sys.stderr.write(
            f"omniurl: {done} URLs: {done - failed} ok, {failed} failed in "
            f"{time.monotonic() - started:.1f} s\n"
        )
    return status


async def _get_pairs_at_once(
    args: argparse.Namespace, options: Options, outputs: list[str | None], started: float
) -> int:
    """``-Z`` with ``-o``/``-O`` pairs (curl's ``-Z -o a URL1 -o b URL2``): every pair at
    once, at most ``--parallel-max`` together, each with its own copy of the command's
    arguments (no progress bars: several would overwrite each other's line).  The status is
    the first failure in input order, as a batch's."""
    import asyncio
    import copy
    import time

    gate = asyncio.Semaphore(max(args.parallel_max, 1))

    async def one(index: int, text: str) -> int:
        mine = copy.copy(args)
        mine.url, mine.no_progress = text, True
        if index < len(outputs):
            _assign_output(mine, outputs[index], remote=outputs[index] is None)
        else:  # past the last -o/-O: saved (--remote-name-all), or the one standard output
            _assign_output(mine, None, remote=args.remote_name_all)
        async with gate:
            return await _transfer(mine, options)

    results = await asyncio.gather(*(one(i, text) for i, text in enumerate(args.urls)))
    failed = [result for result in results if result != EXIT_OK]
    if not args.silent:
        sys.stderr.write(
            f"omniurl: {len(results)} URLs: {len(results) - len(failed)} ok, {len(failed)} "
            f"failed in {time.monotonic() - started:.1f} s\n"
        )
    return failed[0] if failed else EXIT_OK


def _show_heads(args: argparse.Namespace, heads: list[Any]) -> int:
    """``-I``'s heads, to standard output or to the file ``-o FILE`` / ``-O`` names: curl
    -I -o FILE writes the head there and nothing on the screen.  A file that cannot be
    written is curl's write error (23)."""
    text = "".join(_head_text(head) for head in heads)
    target = args.output if args.output not in (None, "-") else None
    if target is None and args.output is None and args.remote_name:
        from omniurl.batch import output_name
        from omniurl.schemes import parse

        target = os.path.join(getattr(args, "output_dir", None) or "", output_name(parse(args.url)))
    if target is None:
        write_stdout(text, flush=True)
        return EXIT_OK
    from .output import OutputError

    try:
        with open(target, "w", encoding="utf-8", errors="surrogateescape", newline="") as fh:
            fh.write(text)
    except OSError as exc:
        return report(args, OutputError(f"cannot write {target}: {exc.strerror or exc}"))
    return EXIT_OK


def _head_text(lines: list[str] | tuple[str, ...]) -> str:
    """The head's lines, CRLF each; an HTTP head ends with its blank line (RFC 9112 §2.1),
    the fields another scheme's ``-I`` shows (FTP's SIZE, MDTM) end without one, as
    curl's."""
    from omniurl.cli.emit import terminal_safe

    end = "\r\n" if not lines or lines[0].startswith("HTTP/") else ""
    return "".join(terminal_safe(line) + "\r\n" for line in lines) + end


async def _get(args: argparse.Namespace, options: Options) -> int:
    from omniurl.resolvers import resolve
    from omniurl.resolvers.registry import presentation_of

    from .output import output_path, write_content

    resume: tuple[Partial, Kept] | None = None
    try:
        url = parse_typed(args.url, options.syntax, strict=args.strict)
        if str(url) != args.url:  # read as a browser would: -v, --json, -w name it
            args.url = str(url)
            if getattr(args, "transfer", None) is not None:
                args.transfer.url = args.url
        for warning in presentation_of(url.scheme).warnings(url):
            sys.stderr.write(f"omniurl: warning: {warning}\n")
        if getattr(args, "head", False):
            _has_head(url)
        if getattr(args, "continue_at", None) is not None:
            _can_resume(args, url, options)
            if _written_into(args, url):
                # A FIFO, a device, an open descriptor (-o /dev/null, /dev/stdout): nothing
                # kept there to continue, no file to replace — written into as it is, from
                # -C N's offset (curl's reading).  Its part file was renamed over it: as
                # root, -C - -o /dev/null made /dev/null a regular file.
                if args.continue_at != "-":
                    options = options.with_(resume_from=int(args.continue_at))
            else:
                resume = _kept(args, url)
                if resume is None:
                    sys.stderr.write("omniurl: -C continues a file: give -o FILE or -O\n")
                    return EXIT_REFUSED
                kept = resume[1]
                options = options.with_(resume_from=kept.offset, resume_validator=kept.validator)
        options = _curl_manners(args, options)
        head_limit = None
        if getattr(args, "head", False) and options.max_filesize is not None:
            # -I shows the head first, as curl's; the limit is then the scheme's to apply
            # (Presentation.head_size_limited): not before anything is shown.
            head_limit = options.max_filesize
            options = options.with_(max_filesize=None)
        # Input a URL lacks (search words, form fields, a password) is asked for by the
        # resolvers themselves through ``options.ask``, which is the terminal here.
        resource = await resolve(url, options)
        if resume is not None and _refetch(resource):
            from omniurl.partial import Kept

            # The kept part is longer than the resource now is: fetch it whole.
            await resource.aclose()
            resume = (resume[0], Kept(0, None, None))
            resource = await resolve(url, options.with_(resume_from=0, resume_validator=None))
    except OmniurlError as exc:
        replies = getattr(exc, "replies", None)
        if getattr(args, "head", False) and replies:
            # -I of a 404 or a 401: what the server said, as for any other status (after
            # the heads of the redirects -L followed to it); of a redirect without -L: its
            # head (Location) is the answer, as curl -I's.
            shown = _show_heads(args, [*getattr(exc, "hops", ()), replies])
            from omniurl.resolvers.errors import NotFollowed

            if shown != EXIT_OK:
                return shown
            if isinstance(exc, NotFollowed):
                _note_unfollowed(args, exc)
                return EXIT_OK
        return report(args, exc)
    _note_transfer(args, resource)
    presentation = presentation_of(resource.url.scheme)
    if getattr(args, "head", False):
        async with resource:
            lines = presentation.head_lines(resource)
            if not lines and not resource.hops:
                from omniurl.schemes.secrets import mask_passwords

                from .emit import terminal_safe

                # (an FTP or file: directory: a listing has no size or date to show)
                sys.stderr.write(
                    f"omniurl: -I: {terminal_safe(mask_passwords(str(resource.url)))}: the "
                    f"server said nothing about this {resource.kind} but the thing itself; "
                    "get it without -I\n"
                )
                return EXIT_UNSUPPORTED
            # -I -L: each redirect's head, then the last one's
            shown = _show_heads(args, [*resource.hops, lines])
            if shown != EXIT_OK or head_limit is None or not presentation.head_size_limited:
                return shown
            try:  # (the size the head stated, over --max-filesize: curl's 63 after it)
                resource.limit_size(head_limit)
            except OmniurlError as exc:
                return report(args, exc)
            return shown
    written: Written | None = None
    async with resource:
        try:
            presented = await presentation.present(resource, args)
            if presented is not None:
                return presented
            text = presentation.text_source(resource, args) if resume is None else None
            if resource.kind == "listing" and output_path(args, resource) is not None:
                from omniurl.saving import listing_bytes  # (a listing's rules: only for one)

                written = await write_content(args, resource, listing_bytes(resource))
            elif resource.kind == "listing":
                await show_listing(args, resource)
            elif resource.kind == "session":
                sys.stderr.write("omniurl: this resolver opened a session it cannot show\n")
                return EXIT_FAILURE
            elif text is not None:
                written = await write_content(args, resource, text)
            else:
                written = await write_content(args, resource, resume=resume)
        except OmniurlError as exc:
            _note_transfer(args, resource)
            return report(args, exc)
    _note_transfer(args, resource, written)
    if isinstance(resource.failure, OmniurlError):
        # An error status whose body was shown or saved (curl's way without -f): the
        # typed status still tells a script the server refused (5; 7 for 401/407).
        return report(args, resource.failure)
    if args.json:
        described = presentation.describe(resource)
        print_json(written.merged(described) if written is not None else described)
    return EXIT_OK


def _refetch(resource: Resource) -> bool:
    """``-C``: whether the kept part is longer than the resource now is."""
    from omniurl.partial import resume_facts

    return resume_facts(resource).outcome == "refetch"


def _note_unfollowed(args: argparse.Namespace, exc: NotFollowed) -> None:
    """``-w %{redirect_url}`` and ``%{http_code}`` of a redirect left unfollowed."""
    transfer = getattr(args, "transfer", None)
    if transfer is None:
        return
    transfer.redirect_url = str(exc.target)
    transfer.heads([exc.replies])
    status = exc.replies[0].split(" ", 2)[1] if exc.replies else ""
    if status.isdigit():
        transfer.http_code = int(status)
    transfer.content_type = _field(exc.replies, "content-type") or ""


def _note_transfer(
    args: argparse.Namespace, resource: Resource, written: Written | None = None
) -> None:
    """What ``-w`` reports of this transfer so far (the URL redirects led to, the status,
    the bytes written, else those read)."""
    transfer = getattr(args, "transfer", None)
    if transfer is None:
        return
    transfer.url = str(resource.url)
    from omniurl.resolvers.registry import presentation_of

    # (curl's response_code: the status, or a conversation's last reply code: FTP's 226)
    presentation = presentation_of(resource.url.scheme)
    transfer.http_code = presentation.response_code(resource.status, resource.replies)
    transfer.size = written.size if written is not None else resource.bytes_read
    transfer.num_redirects = len(resource.chain)
    transfer.heads([*resource.hops, resource.replies])
    transfer.content_type = _field(resource.replies, "content-type") or resource.media_type or ""
    if written is not None and written.output is not None:
        transfer.filename = written.output
    elif written is None and resource.kind == "content":
        # curl's filename_effective is the file it was to write, a failed transfer's too
        from .output import output_path

        transfer.filename = output_path(args, resource) or ""
    location = _field(resource.replies, "location")
    if location and resource.status is not None and 300 <= resource.status < 400:
        # a redirect not followed (--no-follow): where it leads, absolute (curl's) — as the
        # scheme reads its target (a space as %20, Latin-1 octets as their %XX: before,
        # "/my file.txt" was printed as it came, not absolute)
        # (its fragment kept, as curl's, encoded as the scheme follows the Location)
        moved = presentation.redirect_url(resource)
        try:
            transfer.redirect_url = moved or schemes.join(str(resource.url), location)
        except schemes.URLError:
            transfer.redirect_url = location


def _field(lines: list[str], name: str) -> str | None:
    """The value of header field ``name`` (lower-case) among a reply's lines, or None."""
    for line in lines[1:]:
        key, colon, value = line.partition(":")
        if colon and key.strip().lower() == name:
            return value.strip()
    return None


#: The size and date columns of a listing on a terminal: "  12.3 MiB 2026-11-26 23:31".
FACTS_WIDTH = 10 + 1 + 16
#: The fewest characters of a name a terminal listing with sizes and dates shows.
MIN_NAME = 8


def _cut(name: str, room: int) -> str:
    """``name`` in ``room`` characters: whole, or shortened with "…" at its end."""
    return name if len(name) <= room else name[: max(room - 1, 0)] + "…"


def entry_facts(info: dict[str, object]) -> str:
    """An entry's size (the progress bar's binary units) and modification time (UTC, to
    the minute), in :data:`FACTS_WIDTH` columns; blank where the server gave none."""
    from .progress import human_size

    size = info.get("size")
    shown_size = human_size(size) if isinstance(size, int) else ""
    modify = info.get("modify")
    when = modify[:16].replace("T", " ") if isinstance(modify, str) else ""
    return f"{shown_size:>10} {when:<16}"


def head_lines(resource: Resource) -> str:
    """``-I``: what the server said about the resource, as header-field lines (CRLF, an
    HTTP head's blank line after them, as curl prints them): the scheme's presentation says which
    (HTTP: the status line and fields as received; FTP: SIZE and MDTM as fields)."""
    from omniurl.resolvers.registry import presentation_of

    return _head_text(presentation_of(resource.url.scheme).head_lines(resource))


def _has_head(url: schemes.URL) -> None:
    """``-I`` of a scheme whose protocol cannot ask about a resource without fetching it
    (the spec's ``head``: Gopher, telnet, mailto…): a typed refusal before anything is sent
    (exit 2), not a blank head after the item was asked for (or a mail sent)."""
    from omniurl.resolvers.errors import PlanError
    from omniurl.resolvers.registry import find

    spec = find(url.scheme)
    if spec is None or spec.head:
        return  # (no resolver: the resolve says so)
    raise PlanError(
        f"-I: {url.scheme}: URLs have no head to show: the protocol has no request for "
        "what a server knows of a resource without sending it; nothing was sent (fetch it "
        "without -I)",
        component="scheme",
    )


def _can_resume(args: argparse.Namespace, url: schemes.URL, options: Options) -> None:
    """``-C N``: refuse a URL whose scheme cannot start at an offset (Gopher has no way to
    ask for one) before the kept file is looked at, so that the reason given is the
    protocol's, not "only 0 bytes are kept".  (``-C -`` with nothing kept fetches whole;
    with a part kept, the core refuses it the same way.)"""
    from omniurl.resolvers.core import plan
    from omniurl.resolvers.resume import check_resumable

    if args.continue_at == "-" or int(args.continue_at) == 0:
        return
    offset = int(args.continue_at)
    check_resumable(plan(url, options.with_(resume_from=offset)), offset)


def _written_into(args: argparse.Namespace, url: schemes.URL) -> bool:
    """Whether ``-C``'s output is written into rather than continued: a FIFO, a device or
    a link to an open descriptor (``cli.output.written_into``)."""
    from .output import written_into

    if args.output and args.output != "-":
        return written_into(args.output)
    if args.remote_name:
        from omniurl.batch import output_name

        return written_into(output_name(url), links=False)
    return False


def _kept(args: argparse.Namespace, url: schemes.URL) -> tuple[Partial, Kept] | None:
    """``-C``: the file to continue (``-o FILE``, or ``-O``'s name from the URL given) and
    what of it is kept; None when the content has no file to go to."""
    from pathlib import Path

    from omniurl.batch import output_name
    from omniurl.partial import Partial

    if args.output and args.output != "-":
        from .output import through_links

        # (a symbolic link stays one: the file it points to is continued and replaced)
        target = Path(through_links(args.output) or args.output)
    elif args.remote_name:
        target = Path(output_name(url))
    else:
        return None
    partial = Partial(target)
    at = None if args.continue_at == "-" else int(args.continue_at)
    return partial, partial.kept(str(url), at)


async def show_listing(args: argparse.Namespace, resource: Resource) -> None:
    """Print a listing as its entries arrive (never the whole listing in memory).

    Not a terminal: the listing as it is saved (``omniurl.saving``: one ``kind TAB name TAB
    url`` line per entry, the bytes ``-o`` writes).  A terminal: aligned columns, the URL
    always whole on its line (a URL broken across lines cannot be copied); a listing whose
    entries carry a size or a date (FTP's MLSD or LIST facts) shows them in columns after
    the kind, as ``ls -l`` does, and keeps them at any width (issue 31 item 13: at 80
    columns the rows with long URLs lost them): a narrow terminal drops the kind column
    first (for the whole listing, by the length of its own URL), then shortens the name (to
    :data:`MIN_NAME` characters, marked with "…"); a row that does not fit even so is longer
    than the terminal, its URL whole.  ``--json`` collects the entries for the one JSON
    object printed at the end.
    """
    if args.json:
        await resource.collect_entries()
        return  # describe() at the end carries the entries
    try:
        await _show_listing(resource)
    except BrokenPipeError:
        raise  # the reader went away (| head): main() ends quietly
    except OSError as exc:  # a full disk behind a redirection
        raise stdout_error(exc) from None


async def _show_listing(resource: Resource) -> None:
    out = sys.stdout
    if not out.isatty():
        from omniurl.saving import listing_bytes

        out.flush()
        async for chunk in listing_bytes(resource):
            out.buffer.write(chunk)
        out.buffer.flush()
        return
    import shutil

    from omniurl.schemes.secrets import mask_passwords

    from .emit import terminal_safe

    width = shutil.get_terminal_size((100, 24)).columns
    out.write(terminal_safe(mask_passwords(str(resource.url))) + "\n")
    facts: bool | None = None  # decided by the first entry, for the whole listing
    with_kind = True
    async for e in resource.aiter_entries():
        url = terminal_safe(e.url or "")
        name = terminal_safe(e.name)
        kind = f"{e.kind:<9.9}"
        room = width - len(url) - 2
        if facts is None:
            facts = "size" in e.info or "modify" in e.info
            # The kind column, if it leaves MIN_NAME for a name beside an entry's URL of
            # the listing's own and 12 more characters (one rule for every row).
            typical = len(str(resource.url)) + 12
            with_kind = not facts or width - typical - 2 >= 10 + FACTS_WIDTH + 1 + MIN_NAME
        if facts:
            lead = (kind + " " if with_kind else "") + entry_facts(e.info) + " "
            rest = max(room - len(lead), MIN_NAME)
            line = f"{lead}{_cut(name, rest):<{rest}} {url}"
        elif room >= 10 + 12:  # kind, name and URL
            line = f"{kind} {_cut(name, room - 11):<{room - 11}} {url}"
        elif room >= 12:  # name and URL
            line = f"{_cut(name, room - 1):<{room - 1}} {url}"
        else:  # the URL alone (or the name, for an entry without one)
            line = url or f"{kind} {name}"
        out.write(line.rstrip() + "\n")
    out.flush()
