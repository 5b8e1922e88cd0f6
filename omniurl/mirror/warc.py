"""``omniurl mirror --warc FILE.warc.gz``: each fetched resource as WARC/1.1 records
(ISO 28500:2017), written with warcio (the format's reference library in Python; it reads
back what it writes, and pywb replays it).

- a scheme that says what went on the wire (``Presentation.wire_exchange``: HTTP) gets a
  ``request`` record (the request head exactly as sent) and a ``response`` record (the
  response head as received, then the content), linked by ``WARC-Concurrent-To``;
- any other scheme's content is a ``resource`` record (``WARC-Target-URI``, ``WARC-Date``,
  ``WARC-Payload-Digest``, the media type), followed by a ``metadata`` record holding the
  plan's protocol lines (what ``omniurl plan`` prints, secrets masked) and the server's
  replies as ANVL fields (``plan: …``, ``reply: …``; ``text/anvl``, which pywb does not
  index, so replaying the URL gives the resource), whose ``WARC-Concurrent-To`` names the
  resource record.

The payload is the file the mirror writes (a Gopher text with local line ends, a saved menu
as ``get -o`` writes it), so the records match the files.
"""

from __future__ import annotations

import os
from typing import IO, TYPE_CHECKING

from omniurl.resolvers.errors import ConfigurationError

if TYPE_CHECKING:
    from omniurl.resolvers.resource import Resource
    from omniurl.schemes import URL


class WarcLog:
    """One WARC file, gzip-compressed record by record (``.warc.gz``)."""

    def __init__(self, path: str) -> None:
        try:
            from warcio.warcwriter import WARCWriter
        except ImportError:
            raise ConfigurationError(
                "--warc needs warcio: pip install 'omniurl[mirror]'", component="warc"
            ) from None
        folder, name = os.path.split(os.path.abspath(path))
        #: Where the last whole record ends (see :meth:`_mark`).
        self._end_path = os.path.join(folder, f".{name}.end")
        try:
            self._file: IO[bytes] = open(path, "ab")  # noqa: SIM115 - closed in close()
            self._cut_torn_record()
        except OSError as exc:
            raise ConfigurationError(
                f"cannot write the WARC file {path}: {exc.strerror or exc}", component="warc"
            ) from None
        self._writer = WARCWriter(self._file, gzip=path.endswith(".gz"), warc_version="1.1")
        if self._file.tell() == 0:
            info = self._writer.create_warcinfo_record(
                os.path.basename(path), {"software": "omniurl mirror", "format": "WARC/1.1"}
            )
            self._writer.write_record(info)
            self._mark()

    def _cut_torn_record(self) -> None:
        """A run killed while writing a record (SIGKILL: a 300 MB record takes seconds to
        compress) leaves it torn at the file's end; appending after it made every later
        record unreadable (warcio stopped there).  The end of the last whole record, kept
        in the hidden ``.NAME.end`` beside the file, is where the next run appends."""
        size = self._file.seek(0, os.SEEK_END)
        try:
            with open(self._end_path, encoding="ascii") as fh:
                end = int(fh.read().strip() or -1)
        except (OSError, ValueError):
            return
        if 0 <= end < size:
            self._file.truncate(end)
            self._file.seek(end)

    def _mark(self) -> None:
        """Note where the last whole record ends (the bytes are in the kernel once flushed:
        a killed process loses none of them)."""
        self._file.flush()
        tmp = self._end_path + ".tmp"
        with open(tmp, "w", encoding="ascii") as fh:
            fh.write(str(self._file.tell()))
        os.replace(tmp, self._end_path)

    async def record(self, resource: Resource, payload_path: str, uri: URL | None = None) -> None:
        """Archive ``resource``, whose content is now in ``payload_path``, under ``uri``
        (the resource's own URL by default); its records are whole before the next's."""
        self._records(resource, payload_path, uri)
        self._mark()

    def _records(self, resource: Resource, payload_path: str, uri: URL | None) -> None:
        from io import BytesIO

        from warcio.statusandheaders import StatusAndHeadersParser

        from omniurl.resolvers.registry import presentation_of
        from omniurl.schemes.secrets import mask_passwords

        url = mask_passwords(str(uri if uri is not None else resource.url))
        exchange = presentation_of(resource.url.scheme).wire_exchange(resource)
        length = os.path.getsize(payload_path)
        with open(payload_path, "rb") as payload:
            if exchange is not None:
                request_head, response_head = exchange
                parser = StatusAndHeadersParser(["HTTP/1.0", "HTTP/1.1"])
                http_headers = parser.parse(BytesIO(response_head))
                response = self._writer.create_warc_record(
                    url, "response", payload=payload, length=length, http_headers=http_headers
                )
                request_headers = StatusAndHeadersParser([], verify=False).parse(
                    BytesIO(request_head)
                )
                request = self._writer.create_warc_record(
                    url, "request", payload=BytesIO(b""), length=0, http_headers=request_headers
                )
                record_id = response.rec_headers.get_header("WARC-Record-ID")
                request.rec_headers.add_header("WARC-Concurrent-To", record_id)
                self._writer.write_record(request)
                self._writer.write_record(response)
                return
            content = self._writer.create_warc_record(
                url,
                "resource",
                payload=payload,
                length=length,
                warc_content_type=resource.media_type or "application/octet-stream",
            )
            self._writer.write_record(content)
        record_id = content.rec_headers.get_header("WARC-Record-ID")
        # ANVL ("name: value" a line), the type replay tools leave out of their indexes
        # (pywb's METADATA_NO_INDEX_TYPES): a replay of the URL gives the resource record.
        fields = [f"plan: {_one_line(step.shown)}" for step in resource.plan.steps]
        fields += [f"reply: {_one_line(reply)}" for reply in resource.replies]
        body = "".join(f"{field}\r\n" for field in fields).encode("utf-8", "replace")
        metadata = self._writer.create_warc_record(
            url,
            "metadata",
            payload=BytesIO(body),
            length=len(body),
            warc_content_type="text/anvl",
        )
        metadata.rec_headers.add_header("WARC-Concurrent-To", record_id)
        self._writer.write_record(metadata)

    def close(self) -> None:
        self._file.close()


def _one_line(text: str) -> str:
    """A protocol line as one ANVL value (no CR or LF of its own)."""
    return text.replace("\r", "\\r").replace("\n", "\\n")


__all__ = ["WarcLog"]
