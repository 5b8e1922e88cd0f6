"""The batch on a Dask cluster: millions of URLs, per-host limits that hold across workers.

``pip install 'omniurl[dask]'``.  :func:`fetch` partitions the URLs *by host* — every URL of
one server (after ``--resolve``: :func:`omniurl.batch.host_key`) lands in one partition — so
the batch's ``per_host`` limit, which one event loop enforces, holds on the whole cluster:
no two workers ever talk to the same server at once.  Each partition runs one event loop
with :meth:`omniurl.AsyncClient.fetch_many` (its connections kept between the partition's
URLs) and yields the batch's result records (:meth:`omniurl.batch.FetchResult.to_json`, the
``--manifest`` row), so the Dask job and ``omniurl get -i urls.txt`` describe a URL the
same way.

Content goes to a local (or shared) directory — collision-free names, never replacing a file,
as the single-machine batch does — or to any fsspec target (``s3://bucket/dir``): each
partition writes to a temporary directory and puts the finished files there.  The manifest
goes to Parquet with :data:`MANIFEST_SCHEMA` (pyarrow), one row per URL.

Workers find omniurl's plugins (the ``omniurl.schemes`` and ``omniurl.resolvers`` entry
points) as the client does: the registries load them on the first URL a worker sees.
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

from omniurl.batch import FetchResult, host_key
from omniurl.resolvers.options import Options
from omniurl.schemes import URLError, parse
from omniurl.schemes.errors import OmniurlError

__all__ = ["MANIFEST_SCHEMA", "fetch", "partition_by_host", "to_frame", "write_manifest"]

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


def _portable(options: Options) -> Options:
    """Options a worker can receive: no callbacks (no terminal there), no live pools."""
    extra = {k: v for k, v in options.extra.items() if isinstance(v, (str, int, float, bool))}
    return replace(options, ask=None, transcript=None, extra=extra)


def _run_partition(
    items: list[tuple[int, str]],
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
    items: list[tuple[int, str]],
    options: Options,
    concurrency: int,
    per_host: int,
    folder: str | None,
) -> list[dict[str, Any]]:
    from omniurl.client import AsyncClient

    indexes = [index for index, _ in items]
    rows: list[dict[str, Any]] = []
    async with AsyncClient(options) as client:
        results = client.fetch_many(
            [text for _, text in items],
            concurrency=concurrency,
            per_host=per_host,
            output_dir=folder,
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
    if "://" not in output or output.startswith("file://"):
        path = output[len("file://") :] if output.startswith("file://") else output
        os.makedirs(path, exist_ok=True)
        return path, None
    return tempfile.mkdtemp(prefix="omniurl-dask-"), output.rstrip("/")


def _upload(row: dict[str, Any], local: str, remote: str) -> dict[str, Any]:
    """Put a finished file into the fsspec target; the row's ``path`` names it there."""
    if not row.get("ok") or not row.get("path"):
        return row
    import fsspec

    fs, root = fsspec.core.url_to_fs(remote)
    name = Path(row["path"]).name
    target = f"{root}/{name}"
    n = 0
    while fs.exists(target):  # never replace a file (a.txt, a.1.txt…), as the batch does
        n += 1
        stem, dot, ext = name.rpartition(".")
        target = f"{root}/{stem}.{n}.{ext}" if dot and stem else f"{root}/{name}.{n}"
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
    target = None if output is None else os.fspath(output)
    parts = partition_by_host(urls, options, npartitions=npartitions)
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


def _flatten_and_run(partitions: list[list[tuple[int, str]]], **kw: Any) -> list[dict[str, Any]]:
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

    cluster = None
    if scheduler.startswith("local:"):
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
