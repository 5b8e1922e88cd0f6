"""Many URLs at once: :func:`fetch_many` runs a stream of URLs under a global and a per-host
concurrency limit and yields one :class:`FetchResult` per URL as each finishes.

Why it is shaped this way:

- The URL source is read lazily, at most ``window`` URLs ahead of the ones finished, so a
  file of 10⁶ URLs never sits in memory at once (a slow host only holds back the window).
- The per-host limit is a hard limit on the *server actually connected to*: the host and
  port after the ``--resolve`` mapping (two names mapped onto one server share its limit),
  not the URL's text.  A URL waiting for its host never holds a global slot, so one slow
  host cannot starve the others.
- Errors are results: a refused, unreachable or broken URL gives a record with ``ok=False``
  and the error's type and message, and the batch goes on.  Only the caller stopping the
  iteration (or cancelling it) ends it early; every transfer still running is then cancelled
  and its connection closed before the iterator returns.
- Content goes to ``output_dir`` (written to a file with no name yet, linked to a
  collision-free name once complete, never overwriting another URL's file: :class:`_Files`)
  or is only counted and hashed.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import time
from collections import deque
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from omniurl import nameless
from omniurl.resolvers import registry as _registry
from omniurl.resolvers.batching import HELD_BODY as _HELD_BODY
from omniurl.resolvers.errors import ConfigurationError, ResolveError
from omniurl.resolvers.options import Options
from omniurl.resolvers.registry import unchanged
from omniurl.resolvers.resource import Resource
from omniurl.saving import listing_bytes
from omniurl.schemes import URL, parse
from omniurl.schemes.errors import OmniurlError
from omniurl.schemes.secrets import mask_passwords

if TYPE_CHECKING:
    from omniurl.resolvers.batching import BatchEngine, ReplyHead
    from omniurl.resolvers.trace import Trace


@dataclass(frozen=True)
class Unreadable:
    """An input item that is not a URL at all (a line of an ``-i`` list too long to be one):
    :func:`fetch_many` gives it a failed row with its ``error``; ``text`` is what the row
    shows for it."""

    text: str
    error: OmniurlError


#: ``open(url, options)`` -> an async context manager yielding the resolved :class:`Resource`
#: (``AsyncClient.stream`` in a client; ``omniurl.resolve`` otherwise).
Opener = Callable[[URL, Options], AbstractAsyncContextManager[Resource]]
URLSource = Iterable[str | URL | Unreadable] | AsyncIterable[str | URL | Unreadable]
#: ``(host, port)`` of the server a URL connects to, after ``--resolve``.
HostKey = tuple[str, int]


@dataclass(frozen=True)
class FetchResult:
    """What happened to one URL of a batch (one row of ``--manifest``).

    ``index`` is the URL's position in the input (results arrive in completion order);
    ``url`` is shown with any password masked.  ``error_type`` is the omniurl error class
    (``PortRefused``, ``ConnectError``…) and ``exit_status`` the CLI's status for it.
    """

    index: int
    url: str
    ok: bool
    error_type: str | None = None
    error_message: str | None = None
    exit_status: int = 0
    bytes: int = 0
    sha256: str | None = None
    media_type: str | None = None
    kind: str | None = None
    elapsed: float = 0.0
    chain: tuple[str, ...] = ()
    path: str | None = None
    error: BaseException | None = field(default=None, repr=False, compare=False)
    #: The HTTP status of the last response, when there was one, and the URL the redirects
    #: led to (``-w``'s ``%{http_code}``, ``%{url_effective}``; not manifest keys).
    status: int | None = field(default=None, compare=False)
    effective_url: str | None = field(default=None, compare=False)
    #: When each phase of the transfer ended and the addresses connected (``trace=True``:
    #: ``-w``'s ``time_connect``, ``remote_ip``…; not a manifest key).
    trace: Trace | None = field(default=None, repr=False, compare=False)
    #: The reply heads received, each redirect's then the last one's (status line and
    #: fields): ``-w``'s ``size_header``, ``num_headers``, ``http_version``; not a manifest key.
    heads: tuple[tuple[str, ...], ...] = field(default=(), repr=False, compare=False)

    def to_json(self) -> dict[str, Any]:
        """The manifest row: a stable set of keys (a contract for other programs)."""
        return {
            "index": self.index,
            "url": self.url,
            "ok": self.ok,
            "error_type": self.error_type,
            "error_message": self.error_message,
            "exit_status": self.exit_status,
            "bytes": self.bytes,
            "sha256": self.sha256,
            "media_type": self.media_type,
            "kind": self.kind,
            "elapsed": round(self.elapsed, 6),
            "chain": list(self.chain),
            "path": self.path,
        }


@dataclass
class _Job:
    """A URL of the batch waiting for, or taken by, a worker coroutine.  (A docstring of
    its own: without one ``dataclass`` makes one from ``inspect.signature``, and inspect
    with ast, dis and tokenize was imported into every batch's start for it, ~5 ms at load
    14, docs/speed.md, *Batches*, eighth round.)"""

    index: int
    text: str
    url: URL
    key: HostKey
    #: With ``resume``: the file name given in input order (the same list, the same names).
    name: str | None = None
    #: ``names`` given by the caller: ``name`` is this URL's file, written atomically over
    #: whatever an earlier attempt left (a retried task replaces its own file).
    fixed: bool = False


def host_key(url: URL, options: Options) -> HostKey:
    """The server ``url`` connects to, after the ``--resolve`` mapping (the per-host key).

    URLs that name no host (``news:``, ``mailto:``, ``file:``) share one key per scheme.
    """
    host = getattr(url, "host", None)
    if not host:
        return (f"{url.scheme}:", 0)
    port = getattr(url, "port", None) or getattr(url, "default_port", None) or 0
    mapped, mapped_port = options.map_address(str(host), int(port))
    return (mapped.lower(), mapped_port)


def shown(text: str) -> str:
    """``text`` with a userinfo password masked (``ftp://u:****@h/``) for records and logs."""
    return mask_passwords(text)


def exit_status_of(exc: BaseException) -> int:
    """The CLI's documented exit status for an error (1 for anything untyped): the one
    mapping, :func:`omniurl.exitstatus.exit_status`."""
    from omniurl.exitstatus import exit_status

    return exit_status(exc)


#: ``OMNIURL_BATCH_LEAN=0`` keeps every URL of a batch on the general path (the lean
#: engine's differential tests and A/B measurements; docs/speed.md, *Batches*).
LEAN_VARIABLE = "OMNIURL_BATCH_LEAN"


#: ``OMNIURL_BATCH_PIPELINE=N`` (N > 1): a batch's lean engine pipelines up to N requests on
#: each of a server's connections (RFC 9112 §9.3.2), so up to ``per_host * N`` transfers run
#: to one server over at most ``per_host`` connections of the engine (a URL the engine does
#: not take still gets a connection of its own on the general path).  Off (1) unless set:
#: docs/speed.md, *Batches*, seventh round, has what it gains and what it costs.
PIPELINE_VARIABLE = "OMNIURL_BATCH_PIPELINE"


def pipeline_depth() -> int:
    """The requests a lean engine may pipeline on a connection (:data:`PIPELINE_VARIABLE`;
    1: none).  A value that is no number of at least 1 is 1."""
    text = os.environ.get(PIPELINE_VARIABLE, "").strip()
    return int(text) if text.isdigit() and int(text) >= 1 else 1


#: ``OMNIURL_BATCH_PROOF=FILE``: each batch appends one line to FILE as it ends, ``asked A
#: made M urls U`` — the URLs it asked a batch engine about, the rows the engines made
#: themselves, every URL it read — so the differential tests prove which path each of
#: their runs took (under ``OMNIURL_BATCH_LEAN=0`` no engine is asked; with the engine on,
#: every plain ``http://`` URL is).  Unset, as anywhere but those tests: nothing is written.
PROOF_VARIABLE = "OMNIURL_BATCH_PROOF"


def lean_allowed(*, opener: Opener | None, resume: bool, names: object | None, trace: bool) -> bool:
    """Whether a batch may ask the resolvers for their batch engines
    (:meth:`~resolvers.base.Resolver.batch_engine`: the HTTP resolver's lean engine for
    plain ``http://`` GETs, resolvers/http/batch_engine.py) — the batch's half of the rule,
    what no resolver can see: not with the caller's ``opener`` (its resolves are its own),
    ``resume`` (``-C -``: each transfer continues its ``.part`` by the general path's
    ranges), ``names`` given (written to their own names), ``trace`` (``-w``: the phases the
    general path's connections mark), nor under ``OMNIURL_BATCH_LEAN=0``.  The options'
    half is each resolver's, asked once a batch (HTTP's: ``batch_engine.eligible``, every
    option that changes the exchange: a proxy, ``-v``, ``-w``, ``-u``, ``-I``,
    ``--compressed``, ``-C``, ``-m``, a plugin resolver of ``http:``), and the URL's its
    engine's (``Engine.request``: a userinfo, a netrc login, the policy).
    tests/test_batch_lean_qa.py runs the command under each such option and checks no
    engine was asked (``OMNIURL_BATCH_PROOF``)."""
    return (
        opener is None
        and not resume
        and names is None
        and not trace
        and os.environ.get(LEAN_VARIABLE, "1") != "0"
    )


class _Engines:
    """The batch engine of each resolver the batch meets (None: it has none), asked once
    at its first URL of that resolver's schemes; :meth:`close` closes them at the end."""

    def __init__(self, options: Options, per_host: int = 1, depth: int = 1) -> None:
        self.options = options
        #: Pipelining (:data:`PIPELINE_VARIABLE`): the batch's per-server limit and depth.
        self.per_host = per_host
        self.depth = depth
        self.by_scheme: dict[str, BatchEngine | None] = {}
        self.by_spec: dict[int, BatchEngine | None] = {}
        #: The URLs an engine was asked about (:data:`PROOF_VARIABLE`).
        self.asked = 0

    def of(self, url: URL) -> BatchEngine | None:
        try:
            return self.by_scheme[url.scheme]
        except KeyError:
            pass
        from omniurl.resolvers import registry

        spec = registry.find(url.scheme)
        engine = None
        if spec is not None:
            if id(spec) in self.by_spec:  # (one engine for its schemes: http and https)
                engine = self.by_spec[id(spec)]
            else:
                engine = spec.resolver_type()().batch_engine(self.options)
                pipeline = getattr(engine, "pipeline", None)
                if pipeline is not None and self.depth > 1:
                    pipeline(self.per_host, self.depth)
                self.by_spec[id(spec)] = engine
        self.by_scheme[url.scheme] = engine
        return engine

    def close(self) -> None:
        for engine in self.by_spec.values():
            if engine is not None:
                engine.close()

    def made(self) -> int:
        """The rows the engines made themselves (:data:`PROOF_VARIABLE`)."""
        return sum(engine.made for engine in self.by_spec.values() if engine is not None)


def _prove(proof: str, engines: _Engines | None, urls: int) -> None:
    """Append the batch's line to ``proof`` (:data:`PROOF_VARIABLE`)."""
    asked, made = (engines.asked, engines.made()) if engines is not None else (0, 0)
    with open(proof, "a", encoding="utf-8") as out:
        out.write(f"asked {asked} made {made} urls {urls}\n")


def _default_opener(url: URL, options: Options) -> AbstractAsyncContextManager[Resource]:
    from omniurl.resolvers.core import resolve

    return resolve(url, options)  # (a Resolving is the async context manager itself)


async def _source(urls: URLSource) -> AsyncIterator[str | URL | Unreadable]:
    if isinstance(urls, AsyncIterable):
        async for item in urls:
            yield item
    else:
        for item in urls:
            yield item


#: The most bytes of UTF-8 a file name made from a URL or a server's suggestion may take
#: (``-O``, the batch, ``-J``): file systems take 255 (``NAME_MAX``), and a collision's
#: ``.N`` and a temporary ``.NAME.PID-N.part`` are added to it.
NAME_BYTES = 200


def bounded_name(name: str, limit: int = NAME_BYTES) -> str:
    """``name`` cut to at most ``limit`` bytes as the file system writes it (UTF-8, an
    undecodable byte kept as one), at a character's boundary.  A count of characters is no
    bound there: 200 CJK characters are 600 bytes, a name no file system takes ("File name
    too long": the transfer failed after its download, where wget saves a shorter name)."""
    if len(name) * 4 <= limit:  # (no character takes more than 4 bytes)
        return name
    size = 0
    for i, ch in enumerate(name):
        size += len(ch.encode("utf-8", "surrogateescape"))
        if size > limit:
            return name[:i]
    return name


def header_name(resource: Resource) -> str | None:
    """``-J``: the file name the server suggested (the scheme's ``suggested_name`` hook:
    HTTP's ``Content-Disposition``, RFC 6266), as a bare name: no directory, no leading
    dots, no control characters, at most 200 bytes (``omniurl.batch.bounded_name``) — or
    None when there is none left (curl's -J, made safe)."""
    name = _registry.presentation_of(resource.url.scheme).suggested_name(resource)
    if not name:
        return None
    name = name.replace("\\", "/").rsplit("/", 1)[-1]
    name = "".join(ch if ch.isprintable() else "_" for ch in name).strip().lstrip(".")
    return bounded_name(name) or None


def output_name(url: URL, *, listing: bool | None = None) -> str:
    """A file name for ``url`` (``-O``, ``--output-dir``), from the URL the user gave — never
    one the server chose (a redirect to ``/.bashrc`` is still saved under the first URL's
    name: wget's CVE-2010-2252): its last path segment, decoded, never a dot-file, never a
    path separator or a control character; a directory or a bare host gets its scheme's
    ``index_name`` (``index.html``…: never the host, a port or a Gopher item type).

    A listing (``listing``: the resource is one; None: the URL is an index of a scheme
    whose indexes are listings, ``Presentation.index_lists``) is saved as
    :func:`omniurl.saving.listing_name`: the segment (or ``index_name`` without its suffix),
    a hash of the URL and ``.tsv``, so that two listings never take each other's name
    (docs/saving.md)."""
    text = str(url).split("#", 1)[0]
    # A query is no part of the path (RFC 3986 §3.4): "/a.txt?x=/b" is a.txt, as curl's -O
    # names it (the last segment was taken from inside the query: "b").  A URL class with
    # one keeps it as its ``search`` (http, wais) or ``query`` (gemini), written after "?".
    query = getattr(url, "search", None)
    if query is None:
        query = getattr(url, "query", None)
    if isinstance(query, str) and text.endswith("?" + query):
        text = text[: len(text) - len(query) - 1]
    tail = text.split("://", 1)[-1]
    path = tail.split("/", 1)[1] if "/" in tail else ""
    presentation = _registry.presentation_of(url.scheme)
    if not path and presentation.opaque_names and "://" not in text:
        # news:group, news:message-id (RFC 5538 §2.2): the opaque part is the one name, a
        # "/" inside a message-id no folder ("_" below); news:* (every group) has none
        opaque = text.split(":", 1)[1]
        path = "" if opaque == "*" else "/" + opaque.replace("/", "%2F")
    # Nor are the words a scheme sends after its path's name (Gopher's search and Gopher+
    # string after "%09"): "/0/a.txt%09x/../b" is a.txt (curl's -O, which knows no Gopher
    # search, names it b, and "/9/doc.pdf%09%09+application/pdf" pdf: docs/saving.md).
    ends = presentation.path_ends_at
    if ends is not None and ends in path:
        path = path.split(ends, 1)[0]
    last = path.rstrip("/").rsplit("/", 1)[-1] if path.strip("/") else ""
    # (FTP's ";type=", Prospero's fields, a query: no part of the name; an HTTP or Gopher
    # name's own ";" or "?" is — "a;b.txt" was saved as "a", where curl saves a;b.txt)
    for end in presentation.name_ends:
        last = last.split(end, 1)[0]
    # (an encoded TAB ends a Gopher path alone, path_ends_at above: an HTTP name's "%09" is
    # part of it, saved as "_" below as any unprintable letter; it was cut there, a%09b.txt
    # saved as "a")
    if "%" in last:
        from omniurl.schemes.percent import unquote_to_bytes

        decoded = unquote_to_bytes(last).decode("utf-8", "replace")
        decoded = decoded.replace("/", "_").replace("\\", "_").replace("\x00", "_")
    else:  # (nothing escaped: the text is the name; "/" cannot be in a segment)
        decoded = last.replace("\\", "_")
    if not decoded.isprintable():  # (one pass in C for the usual name: no per-letter loop)
        decoded = "".join(ch if ch.isprintable() else "_" for ch in decoded)
    decoded = decoded.lstrip(".")
    if decoded in ("..", "."):
        decoded = ""
    # A directory's own name ("/pub/") is no file's name: the index's.
    index = not decoded or path.endswith("/") or presentation.is_index(url, path)
    if listing is None:
        listing = index and presentation.index_lists
    beside = presentation.beside_suffix(url)
    if listing or beside is not None:
        from omniurl.saving import listing_name

        # (a one-character path is a Gopher type alone: the root menu, no name of its own;
        # an index is named by its scheme's index_name: gophermap, index, users…)
        own = bounded_name(decoded, 160) if len(path.strip("/")) > 1 else ""
        stem = own or presentation.index_name.rsplit(".", 1)[0]
        if beside is not None:  # (Gopher+ "!", "$": about the item, never over it)
            return listing_name(url, stem, beside)
        if not path.endswith("/"):
            # (a folder named without its "/": file:///srv/dir lists file:///srv/dir/, one
            # listing, one name: Presentation.listed_folder, docs/saving.md)
            url = presentation.listed_folder(url) or url
        return listing_name(url, stem)
    if index:
        decoded = presentation.index_name
    return bounded_name(decoded)


def folder_text(folder: str | os.PathLike[str]) -> str:
    """``str(pathlib.Path(folder))`` — the folder as a row's ``path`` begins (``./out/`` is
    ``out``, ``a//b`` ``a/b``) — without importing :mod:`pathlib` on POSIX (with ``fnmatch``
    and ``urllib.parse``, 4.5 ms of a batch's start at load 6, ``-X importtime``): the same
    rule as its POSIX parser (``//`` kept as a root of its own, ``.`` and empty parts
    dropped, ``..`` kept)."""
    text = os.fspath(folder)
    if os.name != "posix":
        from pathlib import Path

        return str(Path(text))
    root = "//" if text[:2] == "//" and text[2:3] != "/" else "/" if text[:1] == "/" else ""
    parts = [part for part in text.split("/") if part and part != "."]
    return root + "/".join(parts) if root or parts else "."


def _finish_file(tmp: str, folder: str, name: str, taken: dict[str, int] | None = None) -> str:
    """Give the complete temporary file its name without ever replacing an existing file
    (``os.link`` fails when the name is taken: ``a.txt``, then ``a.1.txt``, ``a.2.txt``…).
    The temporary file was made with a new file's mode (``0666 & ~umask``, what the name
    being new calls for), so nothing is left to change but its name.  Plain strings and
    ``os`` calls: ``pathlib`` objects cost a tenth of a small file's CPU here.  ``taken``:
    where the batch's search for each colliding name stopped (:func:`_free_numbers`)."""
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem:
        stem, ext = name, ""
    for n in _free_numbers(taken, name):
        candidate = os.path.join(folder, name if n == 0 else f"{stem}.{n}{dot}{ext}")
        try:
            os.link(tmp, candidate)
        except FileExistsError:
            continue
        os.unlink(tmp)
        _found(taken, name, n)
        return candidate
    raise ConfigurationError(f"no free file name for {name!r} in {folder}", component="output")


#: The numbers a colliding name is tried with (``a.1.txt`` … ``a.99999.txt``).
FREE_NUMBERS = 100_000


def _free_numbers(taken: dict[str, int] | None, name: str) -> range:
    """The numbers to try for ``name``: from where this batch last found one free.  Every
    search began at 0, so N URLs of one name (``download?id=1``, ``?id=2``…) made N²/2
    links fail: 9,000 such files took ten minutes (nginx, 2026-11-28), against seconds."""
    return range(taken.get(name, 0) if taken is not None else 0, FREE_NUMBERS)


def _found(taken: dict[str, int] | None, name: str, n: int) -> None:
    """Remember that ``name``'s numbers up to ``n`` are taken (a name that never collided
    is not kept: the map holds only the batch's colliding names)."""
    if taken is not None and n > 0:
        taken[name] = n + 1


def _names_in_input_order(taken: set[str], name: str, numbers: dict[str, int] | None = None) -> str:
    """``name``, else ``stem.1.ext``, ``stem.2.ext``… — the first not given to an earlier
    URL of this batch: a rerun of the same list gives every URL the same file again.
    ``numbers``: where each name's search last stopped (the names below are all in
    ``taken``, which only grows), so that N URLs of one name are not N²/2 lookups (5,000:
    3.9 s of CPU; 100,000 would have been ~26 minutes)."""
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem:
        stem, ext = name, ""
    n = numbers.get(name, 0) if numbers is not None else 0
    candidate = name if n == 0 else f"{stem}.{n}{'.' + ext if ext else ''}"
    while candidate in taken:
        n += 1
        candidate = f"{stem}.{n}{'.' + ext if ext else ''}"
    taken.add(candidate)
    if numbers is not None and n > 0:
        numbers[name] = n + 1
    return candidate


def _heads_of(resource: Resource) -> tuple[tuple[str, ...], ...]:
    """Each reply head of a resolve: the redirects' (``hops``), then the last one's."""
    return (*(tuple(hop) for hop in resource.hops), tuple(resource.replies))


def _resumable(url: URL, options: Options) -> bool:
    """Whether ``url``'s plan can start at an offset (resolvers.resume): only then is a
    failed transfer's part file kept for the next run."""
    from omniurl.resolvers.core import plan

    try:
        return plan(url, options.with_(resume_from=0)).resumable
    except OmniurlError:
        return False


async def _fetch_resumed(
    job: _Job, options: Options, opener: Opener, folder: str, *, digest: bool = True
) -> FetchResult:
    """``-C -`` in a batch: each URL continues its own ``.NAME.part`` (or ``NAME``, which a
    complete earlier run left: the server then says nothing is missing and nothing is
    sent again); a failure keeps the part for the next run where the scheme can resume."""
    from pathlib import Path

    from omniurl.partial import Kept, Partial, resume_facts, write_resumed

    assert job.name is not None
    started = time.monotonic()
    partial = Partial(Path(folder, job.name))
    kind = media_type = None
    chain: tuple[str, ...] = ()
    status: int | None = None
    effective: str | None = None
    heads: tuple[tuple[str, ...], ...] = ()
    try:
        kept = partial.kept(job.text)
        for _attempt in range(2):
            opts = options.with_(resume_from=kept.offset, resume_validator=kept.validator)
            async with opener(job.url, opts) as resource:
                kind, media_type, chain = resource.kind, resource.media_type, tuple(resource.chain)
                status, effective = resource.status, shown(str(resource.url))
                heads = _heads_of(resource)
                facts = resume_facts(resource)
                if facts.outcome == "refetch":  # the part is longer than the resource: whole
                    kept = Kept(0, None, None)
                    continue
                if facts.outcome != "complete" and resource.kind != "content":
                    raise ConfigurationError(
                        f"{job.url.scheme}: only content can be resumed, not a {resource.kind}",
                        component="scheme",
                    )
                await write_resumed(partial, kept, resource, job.text)
                break
        sha256 = None
        if digest:
            import hashlib

            with open(partial.target, "rb") as fh:
                sha256 = hashlib.file_digest(fh, "sha256").hexdigest()
        return FetchResult(
            index=job.index,
            url=shown(job.text),
            ok=True,
            bytes=partial.target.stat().st_size,
            sha256=sha256,
            media_type=media_type,
            kind=kind,
            elapsed=time.monotonic() - started,
            chain=tuple(shown(c) for c in chain),
            path=str(partial.target),
            status=status,
            effective_url=effective,
            heads=heads,
        )
    except (OmniurlError, OSError) as exc:
        if not _resumable(job.url, options):
            partial.discard()
        return _failed(job.index, job.text, exc, time.monotonic() - started, kind, chain)
    except BaseException:
        if not _resumable(job.url, options):
            partial.discard()
        raise


#: (Defined beside the engines' protocol, which bounds an engine's whole bodies by it too.)
HELD_BODY = _HELD_BODY


async def _fetch_lean(
    job: _Job,
    engine: BatchEngine,
    options: Options,
    opener: Opener,
    output_dir: str | None,
    files: _Files | None,
    *,
    digest: bool = True,
) -> FetchResult:
    """``job`` through its resolver's batch engine (:meth:`~resolvers.base.Resolver.batch_engine`:
    the lean HTTP engine, resolvers/http/batch_engine.py) when its plan
    allows, its row made here as :func:`_fetch_one` makes it for the same reply; anything
    the engine does not take goes on through :func:`_fetch_one`, with the exchange as it
    stands (nothing sent twice)."""
    request = engine.request(job.url)
    if request is None:
        return await _fetch_one(job, options, opener, output_dir, files, digest=digest)
    started = time.monotonic()

    def done(head: ReplyHead, body: bytes) -> FetchResult:
        fd = -1
        path = tmp = None
        try:
            if files is not None:
                name = output_name(job.url, listing=False)
                fd, tmp = files.open(job, name)
                try:
                    nameless.write_all(fd, body)
                    if tmp is None:
                        path = files.name(fd, name)
                finally:
                    os.close(fd)
                if tmp is not None:
                    path = _finish_file(tmp, files.folder, name, files.taken)
        except (OmniurlError, OSError) as exc:
            if tmp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
            return _failed(job.index, job.text, exc, time.monotonic() - started, "content")
        content_type = head.get("content-type")
        sha256 = None
        if digest:
            import hashlib

            sha256 = hashlib.sha256(body).hexdigest()
        return _row(
            index=job.index,
            url=shown(job.text),
            ok=True,
            bytes=len(body),
            sha256=sha256,
            media_type=content_type.split(";", 1)[0].strip() if content_type else None,
            kind="content",
            elapsed=time.monotonic() - started,
            path=path,
            status=head.status,
            effective_url=shown(str(job.url)),
            heads=((head.status_line, *head.field_lines()),),
        )

    def failed(exc: BaseException) -> FetchResult:
        return _failed(job.index, job.text, exc, time.monotonic() - started, "content")

    result, prepared = await engine.fetch(*request, done, failed)
    if result is not None:
        return result
    if prepared is None:
        return await _fetch_one(job, options, opener, output_dir, files, started, digest=digest)
    with engine.handing_over(prepared):
        return await _fetch_one(job, options, opener, output_dir, files, started, digest=digest)


#: Every field's default (all have one but the three every row gives: index, url, ok).
_ROW_DEFAULTS = {name: f.default for name, f in FetchResult.__dataclass_fields__.items() if f.init}


def _row(**values: Any) -> FetchResult:
    """``FetchResult(**values)``, made without the frozen dataclass's ``__init__`` (one
    ``object.__setattr__`` a field: 4.5 µs a row against 0.7, timeit; a small file's row in
    a batch).  The same object: equal, hashed and shown alike (tests/test_batch_lean.py)."""
    row: FetchResult = object.__new__(FetchResult)
    row.__dict__.update(_ROW_DEFAULTS)
    row.__dict__.update(values)
    return row


def _reindexed(row: FetchResult, index: int) -> FetchResult:
    """``dataclasses.replace(row, index=index)``, made as :func:`_row` makes a row (a share's
    row given its place in the whole input, ``omniurl.batch_procs``: 8.6 µs a row against
    0.5, timeit).  The same object: its other fields are ``row``'s own."""
    copy: FetchResult = object.__new__(FetchResult)
    copy.__dict__.update(row.__dict__)
    copy.__dict__["index"] = index
    return copy


async def _fetch_one(
    job: _Job,
    options: Options,
    opener: Opener,
    output_dir: str | None,
    files: _Files | None,
    started: float | None = None,
    *,
    digest: bool = True,
) -> FetchResult:
    if job.name is not None and output_dir is not None and not job.fixed:
        return await _fetch_resumed(job, options, opener, output_dir, digest=digest)
    started = time.monotonic() if started is None else started
    hasher = None
    if digest:
        import hashlib  # (here: a batch without a manifest never loads OpenSSL's hashes)

        hasher = hashlib.sha256()
    count = 0
    tmp: str | None = None
    fd = -1
    saved_as = ""
    media_type = kind = None
    chain: tuple[str, ...] = ()
    status: int | None = None
    effective: str | None = None
    folder = output_dir
    held: list[bytes] = []
    failure: Exception | None = None
    heads: tuple[tuple[str, ...], ...] = ()
    path = None
    try:
        async with opener(job.url, options) as resource:
            kind, media_type, chain = resource.kind, resource.media_type, tuple(resource.chain)
            status, effective = resource.status, shown(str(resource.url))
            # Options.error_body: an error reply's body is saved (curl's way without -f),
            # and the row is still the failure its status means, never ok
            failure = resource.failure
            heads = _heads_of(resource)
            if resource.kind == "session":
                raise ConfigurationError(
                    f"{job.url.scheme}: an interactive session cannot be fetched in a batch",
                    component="scheme",
                )
            chunks = listing_bytes(resource) if resource.kind == "listing" else resource
            if files is not None:
                saved_as = output_name(job.url, listing=resource.kind == "listing")
                if files.header_names and resource.kind == "content":
                    saved_as = header_name(resource) or saved_as
            try:
                async for chunk in chunks:
                    if hasher is not None:
                        hasher.update(chunk)
                    count += len(chunk)
                    if files is None:
                        continue
                    if fd < 0 and count <= HELD_BODY:
                        held.append(chunk if isinstance(chunk, bytes) else bytes(chunk))
                        continue
                    if fd < 0:
                        fd, tmp = files.open(job, saved_as)
                        nameless.write_all(fd, b"".join(held))
                        held.clear()
                    nameless.write_all(fd, chunk)
                if files is not None and not unchanged(resource):
                    # (a 304 has no content, RFC 9110 §15.4.5: no file, as curl's)
                    if fd < 0:
                        # Complete, and small: its file is made now, in one write.
                        fd, tmp = files.open(job, saved_as)
                        nameless.write_all(fd, held[0] if len(held) == 1 else b"".join(held))
                    if tmp is None:  # (a nameless file, complete: its name now)
                        path = files.name(fd, saved_as)
            finally:
                if fd >= 0:
                    os.close(fd)
        if tmp is not None and folder is not None and job.fixed and job.name is not None:
            from omniurl.finished import finish

            path = os.path.join(folder, job.name)
            finish(tmp, path)  # over an earlier attempt's file, atomically
            tmp = None
        elif tmp is not None and folder is not None:
            path = _finish_file(tmp, folder, saved_as, files.taken if files else None)
            tmp = None
        if isinstance(failure, OmniurlError):
            failed = _failed(job.index, job.text, failure, time.monotonic() - started, kind, chain)
            return replace(
                failed,
                bytes=count,
                sha256=hasher.hexdigest() if hasher is not None else None,
                media_type=media_type,
                path=path,
                status=status,
                effective_url=effective,
                heads=heads,
            )
        return FetchResult(
            index=job.index,
            url=shown(job.text),
            ok=True,
            bytes=count,
            sha256=hasher.hexdigest() if hasher is not None else None,
            media_type=media_type,
            kind=kind,
            elapsed=time.monotonic() - started,
            chain=tuple(shown(c) for c in chain) if chain else (),
            path=path,
            status=status,
            effective_url=effective,
            heads=heads,
        )
    except (OmniurlError, OSError) as exc:
        return _failed(job.index, job.text, exc, time.monotonic() - started, kind, chain)
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


class _Files:
    """Where a batch's new files are made (``output_dir``), never a partial one under a name.

    Each file is written *without a name* (Linux ``O_TMPFILE``: an inode of the folder's
    file system that no directory lists) and linked to its collision-free name once complete
    (``linkat`` of ``/proc/self/fd/N``, which fails when the name is taken: ``a.txt``, then
    ``a.1.txt``…).  A transfer that fails, or a process killed outright, leaves nothing to
    clean up: the kernel frees an unlinked inode when its descriptor closes.  Against the
    named temporary file this replaces (``.NAME.PID-N.part``: created, linked to the name,
    unlinked) it is one change of the folder instead of three and two calls fewer a file
    (measured on ext4, 1,000 files of 8 KB a round, the ways interleaved: at a quiet moment
    0.07–0.08 ms of CPU a file against 0.10–0.13 ms, a new file under its final name —
    curl's way — 0.07 ms; at load 7–8, medians of 5 rounds, 0.22 against 0.25 ms, curl's
    way 0.14 ms: docs/speed.md, *Batches*).  Where the
    file system has no ``O_TMPFILE`` (or ``/proc`` is not there) the named temporary file
    is made as before (:func:`_temp_file`, :func:`_finish_file`)."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        #: ``-J``: a content is named as its server suggests (:func:`header_name`).
        self.header_names = False
        self._nameless = True  # (until this file system shows it has none)
        #: The folder, open: nameless files are made and linked relative to it (no walk of
        #: its path a file; None: by its path).
        self._dir = nameless.open_folder(folder)
        self._linker = nameless.Linker(self._dir)
        self.taken: dict[
            str, int
        ] = {}  # (_free_numbers: where each colliding name's search stopped)

    def open(self, job: _Job, name: str) -> tuple[int, str | None]:
        """A descriptor for the file's bytes, and its temporary name (None: nameless)."""
        if job.fixed and job.name is not None:
            # A name the caller fixed: its one temporary name, renamed over it (truncated:
            # a retry replaces what a killed attempt left instead of leaving it beside it).
            path = os.path.join(self.folder, retry_temp_name(job.name))
            flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0)
            return os.open(path, flags, 0o666), path
        if self._nameless:
            if self._dir is not None:
                fd = nameless.open_at(self._dir)
            else:
                fd = nameless.open_in(self.folder)
            if fd is not None:
                return fd, None
            self._nameless = False  # (this file system has none: named ones from now)
        return _temp_file(self.folder, name)

    def name(self, fd: int, name: str) -> str:
        """Give the complete nameless file ``fd`` its name (``name``, else ``stem.N.ext``),
        never replacing an existing file; its path."""
        stem, dot, ext = name.rpartition(".")
        if not dot or not stem:
            stem, ext = name, ""
        relative = self._dir is not None
        for n in _free_numbers(self.taken, name):
            candidate = name if n == 0 else f"{stem}.{n}{dot}{ext}"
            try:
                if self._linker.link(fd, candidate if relative else self._path(candidate)):
                    _found(self.taken, name, n)
                    return self._path(candidate)
            except FileExistsError:
                continue
            # No /proc (or a file system that refuses the link): copied out to a named
            # temporary file, then linked as those are; named files from now on.
            self._nameless = False
            copied = _copied_out(fd, self.folder, name)
            return _finish_file(copied, self.folder, name, self.taken)
        raise ConfigurationError(
            f"no free file name for {name!r} in {self.folder}", component="output"
        )

    def _path(self, name: str) -> str:
        return os.path.join(self.folder, name)

    def close(self) -> None:
        self._linker.close()
        if self._dir is not None:
            with contextlib.suppress(OSError):
                os.close(self._dir)
            self._dir = None


def _copied_out(fd: int, folder: str, name: str) -> str:
    """The bytes of the nameless file ``fd`` in a new named temporary file (its path)."""
    out, path = _temp_file(folder, name)
    try:
        nameless.copy_out(fd, out)
    except BaseException:
        os.close(out)
        with contextlib.suppress(OSError):
            os.unlink(path)
        raise
    os.close(out)
    return path


def retry_temp_name(name: str) -> str:
    """The one temporary name of a file whose name the caller fixed (``names``)."""
    return f".{name}.fixed.part"


#: Temporary names unique within this process (with its pid: among processes); O_EXCL
#: makes sure, as mkstemp does — whose random names cost a quarter of a small file's CPU in
#: a batch (profiled: 2,000 files, 0.85 s of 4.9 s).
_TEMP_NUMBERS = itertools.count()


def _temp_file(folder: str, name: str) -> tuple[int, str]:
    """A new file ``.NAME.PID-N.part`` in ``folder``, with a new file's mode (``0666 &
    ~umask``: its name will be new too, so nothing needs changing when it gets it)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    while True:
        path = os.path.join(folder, f".{name}.{os.getpid()}-{next(_TEMP_NUMBERS)}.part")
        try:
            return os.open(path, flags, 0o666), path
        except FileExistsError:  # left by a run killed earlier with the same pid: go on
            continue


def _failed(
    index: int,
    text: str,
    exc: BaseException,
    elapsed: float = 0.0,
    kind: str | None = None,
    chain: tuple[str, ...] = (),
) -> FetchResult:
    if isinstance(exc, OSError) and not isinstance(exc, OmniurlError):
        message = f"cannot write the output: {exc.strerror or exc}"
    else:
        message = shown(str(exc))
    return FetchResult(
        index=index,
        url=shown(text),
        ok=False,
        error_type=type(exc).__name__,
        error_message=message,
        exit_status=exit_status_of(exc),
        kind=kind,
        elapsed=elapsed,
        chain=tuple(shown(c) for c in chain),
        error=exc,
        status=getattr(exc, "status", None),
    )


async def fetch_many(
    urls: URLSource,
    *,
    options: Options | None = None,
    concurrency: int = 50,
    per_host: int = 6,
    output_dir: str | os.PathLike[str] | None = None,
    opener: Opener | None = None,
    window: int | None = None,
    resume: bool = False,
    names: Sequence[str | None] | None = None,
    trace: bool = False,
    header_names: bool = False,
    digest: bool = True,
) -> AsyncIterator[FetchResult]:
    """Fetch every URL of ``urls``; yield one :class:`FetchResult` per URL as each finishes.

    ``concurrency`` bounds the transfers running at once, ``per_host`` those to one server
    (after ``--resolve``).  At most ``window`` URLs (default ``4 * concurrency``) are read
    ahead of the finished ones.  ``output_dir`` stores each content under a collision-free
    name; without it content is only counted and hashed.  ``resume`` (with ``output_dir``)
    is ``-C -``: names are given in input order (the same list, the same names), each
    transfer continues its ``.NAME.part`` or ends at once when ``NAME`` is complete, and a
    failed one keeps its part for the next run (where the scheme can resume).
    ``names`` (with ``output_dir``) gives each URL's file name, by input position, decided
    by the caller (the Dask integration, before scheduling): each file is written to one
    temporary name and renamed over ``NAME``, so running the same URLs again — a retried
    task — replaces its own files and leaves nothing else behind.  ``trace`` records each
    transfer's phases and addresses in its result's ``trace`` (:mod:`resolvers.trace`).
    ``header_names`` (``-J``, with ``output_dir``) saves a content under the name its server
    suggests (:func:`header_name`: HTTP's Content-Disposition, made safe as a single get
    makes it), else under its URL's; not for ``names`` and ``resume``, whose names are fixed
    before the transfer.  ``digest=False`` leaves each row's ``sha256`` None (the command
    line's batch without ``--manifest``, where no output shows it: a file of 8 KiB costs
    ~18 µs of SHA-256, docs/speed.md, *Batches*, seventh round).
    """
    if concurrency < 1 or per_host < 1:
        raise ConfigurationError(
            "concurrency and per_host must be at least 1", component="concurrency"
        )
    # Listings are written as their entries arrive (never held whole).
    options = (options or Options()).with_(stream_listings=True)
    folder = folder_text(output_dir) if output_dir is not None else None
    if folder is not None and not os.path.isdir(folder):
        raise ConfigurationError(f"no such folder: {folder}", component="output")
    if resume and folder is None:
        raise ConfigurationError("resume needs an output folder", component="output")
    if names is not None and (folder is None or resume):
        raise ConfigurationError(
            "names need an output folder (and are not for resume)", component="output"
        )
    taken: set[str] = set()
    numbers: dict[str, int] = {}  # (_names_in_input_order: each colliding name's next number)
    files = _Files(folder) if folder is not None else None
    if files is not None and header_names and not resume and names is None:
        files.header_names = True
    engines: _Engines | None = None
    if lean_allowed(opener=opener, resume=resume, names=names, trace=trace) and not (
        files is not None and files.header_names  # (-J: a name from the reply's fields)
    ):
        engines = _Engines(options, per_host, pipeline_depth())
    # Transfers at once to one server: ``per_host``, or with pipelining as many more as its
    # connections carry at once (the engine keeps its connections to ``per_host``).
    host_limit = per_host if engines is None else per_host * engines.depth
    opener = opener or _default_opener
    limit = max(window or 4 * concurrency, concurrency)
    source = _source(urls).__aiter__()
    loop = asyncio.get_running_loop()
    # A pool of at most ``concurrency`` worker coroutines (started as work arrives), each
    # taking the next job itself when it finishes one: no task, done-callback or
    # ``asyncio.wait`` over every running transfer per URL (2,000 small files: that
    # bookkeeping was a tenth of the batch's CPU).  The jobs wait per host, in input order.
    waiting: dict[HostKey, deque[_Job]] = {}
    active: dict[HostKey, int] = {}
    finished: deque[FetchResult | BaseException] = deque()
    idle: deque[asyncio.Future[_Job]] = deque()
    workers: set[asyncio.Task[None]] = set()
    queued = 0  # jobs waiting for a worker
    running = 0  # jobs a worker has taken and not finished
    wake: asyncio.Future[None] | None = None  # set while this generator waits for a result
    closing = False

    def take() -> _Job | None:
        """The next job a worker may start: the lowest input index among the hosts below
        their limit (with concurrency 1 the URLs run exactly in the order given)."""
        nonlocal queued, running
        best: deque[_Job] | None = None
        for key, jobs in waiting.items():
            if active.get(key, 0) < host_limit and (best is None or jobs[0].index < best[0].index):
                best = jobs
        if best is None:
            return None
        job = best.popleft()
        if not best:
            del waiting[job.key]
        active[job.key] = active.get(job.key, 0) + 1
        queued -= 1
        running += 1
        return job

    async def work(job: _Job | None) -> None:
        nonlocal running, wake
        me = asyncio.current_task()
        assert me is not None
        while True:
            if job is None:
                job = take()
            if job is None:
                ready: asyncio.Future[_Job] = loop.create_future()
                idle.append(ready)
                job = await ready
            result: FetchResult | BaseException
            try:
                if trace:
                    from omniurl.resolvers.trace import Trace

                    traced = options.with_(trace=Trace())
                    result = await _fetch_one(job, traced, opener, folder, files, digest=digest)
                    result = replace(result, trace=traced.trace)
                elif engines is not None and (engine := engines.of(job.url)) is not None:
                    engines.asked += 1
                    result = await _fetch_lean(
                        job, engine, options, opener, folder, files, digest=digest
                    )
                else:
                    result = await _fetch_one(job, options, opener, folder, files, digest=digest)
            except asyncio.CancelledError as exc:
                if closing or me.cancelling():  # the worker itself is cancelled: it ends
                    raise
                result = exc
            except (KeyboardInterrupt, SystemExit):
                raise  # (out of the event loop, as from any task)
            except BaseException as exc:  # a defect: raised by the iterator, as a task's was
                result = exc
            running -= 1
            key = job.key
            active[key] -= 1
            if not active[key]:
                del active[key]
            finished.append(result)
            if wake is not None and not wake.done():
                wake.set_result(None)
            job = None

    def dispatch() -> None:
        """Hand the jobs that may start to idle workers, or to new ones."""
        while queued:
            while idle and idle[0].done():  # (cancelled with its worker)
                idle.popleft()
            if not idle and len(workers) >= concurrency:
                return
            job = take()
            if job is None:
                return
            if idle:
                idle.popleft().set_result(job)
            else:
                worker = asyncio.create_task(work(job))
                workers.add(worker)

    index = 0
    exhausted = False
    try:
        while True:
            while finished:
                result = finished.popleft()
                if isinstance(result, BaseException):
                    raise result
                yield result
            # (a result not yet handed on still counts against the window)
            while not exhausted and queued + running + len(finished) < limit:
                try:
                    item = await anext(source)
                except StopAsyncIteration:
                    exhausted = True
                    break
                if isinstance(item, Unreadable):
                    yield _failed(index, item.text, item.error)
                    index += 1
                    continue
                text = item if isinstance(item, str) else str(item)
                try:
                    url = (
                        item
                        if isinstance(item, URL)
                        else parse(text.strip(), syntax=options.syntax)
                    )
                    key = host_key(url, options)
                except (OmniurlError, ResolveError) as exc:
                    yield _failed(index, text, exc)
                    index += 1
                    continue
                fixed = names is not None and index < len(names) and names[index] is not None
                if fixed:
                    assert names is not None
                    name = names[index]
                    from pathlib import Path

                    if not name or Path(name).name != name or name in (".", ".."):
                        raise ConfigurationError(
                            f"names[{index}]: {name!r} is not a file name", component="output"
                        )
                else:
                    name = (
                        _names_in_input_order(taken, output_name(url), numbers) if resume else None
                    )
                jobs = waiting.get(key)
                if jobs is None:
                    jobs = waiting[key] = deque()
                jobs.append(_Job(index, text, url, key, name, fixed=fixed))
                index += 1
                queued += 1
            dispatch()
            if finished:
                continue
            if not running:
                if exhausted and not queued:
                    return
                continue
            wake = loop.create_future()
            try:
                await wake
            finally:
                wake = None
    finally:
        closing = True
        for worker in workers:
            worker.cancel()
        if workers:
            await asyncio.gather(*workers, return_exceptions=True)
        if files is not None:
            files.close()
        if engines is not None:
            engines.close()
        proof = os.environ.get(PROOF_VARIABLE)
        if proof:
            _prove(proof, engines, index)
        if hasattr(source, "aclose"):
            await source.aclose()
