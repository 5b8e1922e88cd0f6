"""The batch on a Dask cluster: millions of URLs, per-host limits that hold across workers.

``pip install 'omniurl[dask]'``.  :func:`fetch` partitions the URLs *by host* — every URL of
one server (after ``--resolve``: :func:`omniurl.batch.host_key`) lands in one partition — so
the batch's ``per_host`` limit, which one event loop enforces, holds on the whole cluster:
no two workers ever talk to the same server at once.  Each partition runs one event loop
with :meth:`omniurl.AsyncClient.fetch_many` (its connections kept between the partition's
URLs) and yields the batch's result records (:meth:`omniurl.batch.FetchResult.to_json`, the
``--manifest`` row), so the Dask job and ``omniurl get -i urls.txt`` describe a URL the
same way.

Content goes to a local (or shared) directory or to any fsspec target (``s3://bucket/dir``;
each partition writes to a temporary directory and puts the finished files there).  Each
URL's file name is decided on the client *before* scheduling (:func:`assign_names`: the
URL's name, collision-free in input order and beside the files already there, as the
single-machine batch names them), and each file is written atomically under it (one
temporary name, renamed over the name): a task that Dask retries after its worker died
replaces its own files, so the manifest and the folder agree, with no orphans and no
``a.1.txt`` beside an ``a.txt`` nobody lists.  A relative local path is the caller's (made
absolute on the client): a worker's working directory is not.  The manifest goes to Parquet
with :data:`MANIFEST_SCHEMA` (pyarrow), one row per URL.

Workers find omniurl's plugins (the ``omniurl.specs`` entry points) as the client does: the
registry loads them on the first URL a worker sees; a scheme's options travel with the
``Options`` (plain frozen dataclasses).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import dask
import dask.bag as db
import pyarrow as pa

from omniurl.batch import FetchResult, _names_in_input_order, host_key, output_name
from omniurl.resolvers.options import Options
from omniurl.schemes import URLError, parse
from omniurl.schemes.errors import OmniurlError

__all__ = [
    "MANIFEST_SCHEMA",
    "assign_names",
    "fetch",
    "partition_by_host",
    "to_frame",
    "write_manifest",
]

#: ``(input index, URL text, file name or None)``: one URL of a partition, its file named.
Item = tuple[int, str, str | None]

#: The manifest's fixed schema: the keys of ``FetchResult.to_json`` (the ``--manifest`` row).
MANIFEST_SCHEMA = pa.schema(
    [
        pa.field("index", pa.int64(), nullable=False),
        pa.field("url", pa.string(), nullable=False),
        pa.field("ok", pa.bool_(), nullable=False),
        pa.field("error_type", pa.string()),
        pa.field("error_message", pa.string()),
        pa.field("exit_status", pa.int32(), nullable=False),
        pa.field("bytes", pa.int64(), nullable=False),
        pa.field("sha256", pa.string()),
        pa.field("media_type", pa.string()),
        pa.field("kind", pa.string()),
        pa.field("elapsed", pa.float64(), nullable=False),
        pa.field("chain", pa.list_(pa.string()), nullable=False),
        pa.field("path", pa.string()),
    ]
)

#: A URL that cannot be parsed has no host: such URLs share one partition of their own, where
#: each becomes its failed row (exactly as in the single-machine batch).
_NO_HOST = ("", "", 0)


def partition_by_host(
    urls: Iterable[str], options: Options | None = None, *, npartitions: int | None = None
) -> list[list[tuple[int, str]]]:
    """``(input index, URL)`` pairs grouped so that one server's URLs share a partition.

    Hosts are packed, largest first, into at most ``npartitions`` partitions (default: one
    per host, up to 64) of roughly equal size; a host is never split.
    """
    options = options or Options()
    groups: dict[Any, list[tuple[int, str]]] = {}
    for index, text in enumerate(urls):
        text = text.strip()
        try:
            key: Any = host_key(parse(text, syntax=options.syntax), options)
        except (URLError, OmniurlError):
            key = _NO_HOST
        groups.setdefault(key, []).append((index, text))
    if not groups:
        return []
    count = npartitions or min(len(groups), 64)
    bins: list[list[tuple[int, str]]] = [[] for _ in range(max(1, min(count, len(groups))))]
    for group in sorted(groups.values(), key=len, reverse=True):
        min(bins, key=len).extend(group)
    return [b for b in bins if b]


def assign_names(
    parts: list[list[tuple[int, str]]], output: str | None, options: Options | None = None
) -> list[list[Item]]:
    """Each URL's file name, decided before anything is scheduled: ``output_name`` of the
    URL, made unique in input order (``a.txt``, ``a.1.txt``…) and beside the names already
    in ``output`` (read once), so a retried task writes the same names again."""
    options = options or Options()
    taken = _existing_names(output) if output is not None else set()
    numbers: dict[str, int] = {}  # (each colliding name's next number: no N² search)
    by_index: dict[int, str | None] = {}
    for index, text in sorted(pair for part in parts for pair in part):
        name: str | None = None
        if output is not None:
            try:
                given = output_name(parse(text, syntax=options.syntax))
                name = _names_in_input_order(taken, given, numbers)
            except (URLError, OmniurlError):
                name = None  # the URL fails as its own row; it writes nothing
        by_index[index] = name
    return [[(index, text, by_index[index]) for index, text in part] for part in parts]


def _existing_names(output: str) -> set[str]:
    """The names already in the output folder (never replaced by the batch)."""
    local, remote = _split_target(output)
    if remote is None:
        assert local is not None
        try:
            return set(os.listdir(local))
        except FileNotFoundError:
            return set()
    import fsspec

    fs, root = fsspec.core.url_to_fs(remote)
    try:
        return {Path(str(p)).name for p in fs.ls(root, detail=False)}
    except FileNotFoundError:
        return set()


def _split_target(output: str) -> tuple[str | None, str | None]:
    """(a local path, or None; an fsspec URL, or None)."""
    local = "file://"  # not a scheme: fsspec's local protocol
    if "://" not in output or output.startswith(local):
        return (output[len(local) :] if output.startswith(local) else output), None
    return None, output.rstrip("/")


def _client_side(output: str | None) -> str | None:
    """A relative local output path made absolute here, in the caller's working directory:
    the workers' own (a ``dask worker`` started elsewhere) would scatter the files."""
    if output is None:
        return None
    local, remote = _split_target(output)
    if remote is None and local is not None:
        return os.path.abspath(local)
    return output


def _portable(options: Options) -> Options:
    """Options a worker can receive: no callbacks (no terminal there), no live pools (each
    scheme's options are plain frozen dataclasses and travel as they are)."""
    return replace(options, ask=None, transcript=None, form=None, shared=None)


def _run_partition(
    items: list[Item],
    *,
    options: Options,
    concurrency: int,
    per_host: int,
    output: str | None,
) -> Iterator[dict[str, Any]]:
    """One partition: one event loop, one client, the batch over its URLs (on a worker)."""
    if not items:
        return iter(())
    local, remote = _output_dirs(output)
    try:
        rows = asyncio.run(_fetch(items, options, concurrency, per_host, local))
        if remote is not None and local is not None:
            rows = [_upload(row, local, remote) for row in rows]
    finally:
        if remote is not None and local is not None:
            shutil.rmtree(local, ignore_errors=True)
    return iter(rows)


async def _fetch(
    items: list[Item],
    options: Options,
    concurrency: int,
    per_host: int,
    folder: str | None,
) -> list[dict[str, Any]]:
    from omniurl.client import AsyncClient

    indexes = [index for index, _, _ in items]
    rows: list[dict[str, Any]] = []
    async with AsyncClient(options) as client:
        results = client.fetch_many(
            [text for _, text, _ in items],
            concurrency=concurrency,
            per_host=per_host,
            output_dir=folder,
            names=[name for _, _, name in items] if folder is not None else None,
        )
        async for result in results:
            row = FetchResult.to_json(result)
            row["index"] = indexes[result.index]  # the partition's index -> the input's
            rows.append(row)
    return rows


def _output_dirs(output: str | None) -> tuple[str | None, str | None]:
    """(the directory fetch_many writes to, the fsspec target to put files into or None)."""
    if output is None:
        return None, None
    local, remote = _split_target(output)
    if remote is None:
        assert local is not None
        os.makedirs(local, exist_ok=True)
        return local, None
    return tempfile.mkdtemp(prefix="omniurl-dask-"), remote


def _upload(row: dict[str, Any], local: str, remote: str) -> dict[str, Any]:
    """Put a finished file into the fsspec target under the name decided on the client
    (:func:`assign_names`; a retry puts it again over its own); the row's ``path`` names it
    there."""
    if not row.get("ok") or not row.get("path"):
        return row
    import fsspec

    fs, root = fsspec.core.url_to_fs(remote)
    target = f"{root}/{Path(row['path']).name}"
    fs.put_file(row["path"], target)
    return {**row, "path": fs.unstrip_protocol(target)}


def fetch(
    urls: Iterable[str],
    *,
    per_host: int = 6,
    concurrency: int = 50,
    output: str | os.PathLike[str] | None = None,
    options: Options | None = None,
    npartitions: int | None = None,
    manifest: str | os.PathLike[str] | None = None,
    as_frame: bool = False,
) -> Any:
    """The batch of ``urls`` as a Dask bag of result records (``as_frame``: a dataframe
    with :data:`MANIFEST_SCHEMA`'s columns), partitioned by host (see the module).

    Lazy, like every Dask collection: nothing is fetched until it is computed — except
    with ``manifest``, where the job runs now, writes the Parquet manifest, and the
    dataframe read back from it is returned (so nothing is fetched twice).
    """
    options = _portable(options or Options())
    target = _client_side(None if output is None else os.fspath(output))
    parts = assign_names(partition_by_host(urls, options, npartitions=npartitions), target, options)
    bag = db.from_sequence(parts, npartitions=max(1, len(parts))).map_partitions(
        _flatten_and_run,
        options=options,
        concurrency=concurrency,
        per_host=per_host,
        target=target,
    )
    if manifest is not None:
        write_manifest(bag, manifest)
        import dask.dataframe as dd

        return dd.read_parquet(os.fspath(manifest))
    return to_frame(bag) if as_frame else bag


def _flatten_and_run(partitions: list[list[Item]], **kw: Any) -> list[dict[str, Any]]:
    """A bag partition holds one host-group list (from_sequence): run it.  (``target`` is
    the output: dask's map_partitions keeps the name ``output`` for itself.)"""
    target = kw.pop("target")
    rows: list[dict[str, Any]] = []
    for items in partitions:
        rows.extend(_run_partition(items, output=target, **kw))
    return rows


def to_frame(records: db.Bag) -> Any:
    """A bag of records as a dataframe with the manifest's columns and dtypes."""
    import pandas as pd

    meta = pd.DataFrame(
        {field.name: pd.Series(dtype=field.type.to_pandas_dtype()) for field in MANIFEST_SCHEMA}
    )
    return records.to_dataframe(meta=meta)


def write_manifest(records: db.Bag, path: str | os.PathLike[str]) -> None:
    """Compute the job and write its manifest to Parquet (a directory of parts, one per
    partition) with :data:`MANIFEST_SCHEMA`: one row per URL."""
    frame = to_frame(records)
    frame.to_parquet(os.fspath(path), schema=MANIFEST_SCHEMA, write_index=False)


def run_cli(
    urls: Iterable[str],
    options: Options,
    *,
    scheduler: str,
    concurrency: int,
    per_host: int,
    output_dir: str | None,
) -> Iterator[FetchResult]:
    """``omniurl get -i FILE --dask SCHEDULER``: the job on ``scheduler`` (an address, or
    ``local:N`` for a LocalCluster of N worker processes), its rows as FetchResults in
    input order, for the same manifest and summary the single-machine batch writes."""
    from distributed import Client, LocalCluster

    local_cluster = scheduler.startswith("local:")
    if output_dir is not None and not local_cluster:
        local, _remote = _split_target(output_dir)
        if local is not None and not os.path.isabs(local):
            from omniurl.resolvers.errors import ConfigurationError

            raise ConfigurationError(
                f"--output-dir {output_dir}: a relative path means nothing to the workers of "
                f"{scheduler} (each has its own working directory): give an absolute path "
                "they share, or an fsspec URL (s3://bucket/dir, file:///shared/dir)",
                component="output",
            )
    cluster = None
    if local_cluster:
        workers = int(scheduler.split(":", 1)[1] or "2")
        cluster = LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
        )
        address: Any = cluster
    else:
        address = scheduler
    try:
        with Client(address) as client, dask.config.set(scheduler=client.get):
            bag = fetch(
                urls,
                options=options,
                concurrency=concurrency,
                per_host=per_host,
                output=output_dir,
            )
            rows = sorted(bag.compute(), key=lambda row: row["index"])
    finally:
        if cluster is not None:
            cluster.close()
    for row in rows:
        yield FetchResult(
            index=row["index"],
            url=row["url"],
            ok=row["ok"],
            error_type=row["error_type"],
            error_message=row["error_message"],
            exit_status=row["exit_status"],
            bytes=row["bytes"],
            sha256=row["sha256"],
            media_type=row["media_type"],
            kind=row["kind"],
            elapsed=row["elapsed"],
            chain=tuple(row["chain"]),
            path=row["path"],
        )
